/* Audio stream copy: the audio streams of the input go into the output
 * untouched, interleaved with the video by time. One object for the writer
 * (ffmpeg_mux.c) and for the join (ffmpeg_join.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

/* The streams of either kind mapped into the output. */
static int nb_copied_out(const FFAudioCopy *p)
{
    return p->nb_audio_out + p->nb_subtitles_out;
}

/* Writes the input's audio packets that start before `limit` (AV_TIME_BASE
 * units, the output's clock) so that audio and video stay interleaved. */
int ffaudio_copy_until(FFAudioCopy *p, AVFormatContext *oc, const char *out_path,
                       int64_t limit, char *err, size_t errlen)
{
    if (!p->ain || !nb_copied_out(p))
        return 0;
    while (!p->audio_eof) {
        if (!p->apkt_pending) {
            int ret = av_read_frame(p->ain, p->apkt);
            if (ret == AVERROR(EAGAIN))
                continue;
            if (ret < 0) {
                /* The end of the audio, or damage in it: the video is what
                 * the user asked for, so keep what was copied. */
                p->audio_eof = 1;
                break;
            }
            if ((unsigned)p->apkt->stream_index >= p->ain->nb_streams ||
                p->amap[p->apkt->stream_index] < 0) {
                av_packet_unref(p->apkt);
                continue;
            }
            AVStream *ist = p->ain->streams[p->apkt->stream_index];
            int64_t off = av_rescale_q(p->a_offset, AV_TIME_BASE_Q, ist->time_base);
            if (p->apkt->pts == AV_NOPTS_VALUE)
                p->apkt->pts = p->apkt->dts;
            if (p->apkt->pts == AV_NOPTS_VALUE) {
                av_packet_unref(p->apkt);   /* cannot be placed in time */
                continue;
            }
            p->apkt->pts -= off;
            if (p->apkt->dts != AV_NOPTS_VALUE)
                p->apkt->dts -= off;
            /* Audio from before the first picture has no place in a file
             * whose video starts at 0. The packet that straddles 0 is kept,
             * moved to 0: it is at most one packet (~20 ms) early, where
             * dropping it would cut the start of the sound (Matroska puts
             * H.264 pictures a few ms after the audio). MP4 and MOV keep
             * audio before 0 where it is, under an edit list that starts
             * the track at 0, as `ffmpeg -c:a copy` writes it: an AAC
             * track's priming packet (its encoder delay, before 0 in every
             * phone clip) then still primes the decoder (dropped, the first
             * 21 ms of sound decoded wrong: a click). */
            const int early_kept = ist->codecpar->codec_type == AVMEDIA_TYPE_AUDIO &&
                                   (oc->oformat->flags & AVFMT_TS_NEGATIVE) &&
                                   ffmux_quicktime(oc->oformat);
            if (!early_kept &&
                (p->apkt->pts < 0 || (p->apkt->dts != AV_NOPTS_VALUE && p->apkt->dts < 0))) {
                int64_t ts = p->apkt->dts != AV_NOPTS_VALUE && p->apkt->dts < p->apkt->pts
                                 ? p->apkt->dts : p->apkt->pts;
                if (p->apkt->duration <= 0 || ts + p->apkt->duration <= 0) {
                    av_packet_unref(p->apkt);
                    continue;
                }
                int64_t shift = -ts;
                p->apkt->pts += shift;
                if (p->apkt->dts != AV_NOPTS_VALUE)
                    p->apkt->dts += shift;
            }
            p->apkt_pending = 1;
        }
        AVStream *ist = p->ain->streams[p->apkt->stream_index];
        int64_t t = av_rescale_q(p->apkt->pts, ist->time_base, AV_TIME_BASE_Q);
        if (t >= limit)
            break;
        AVStream *ost = oc->streams[p->amap[p->apkt->stream_index]];
        av_packet_rescale_ts(p->apkt, ist->time_base, ost->time_base);
        p->apkt->stream_index = ost->index;
        p->apkt->pos = -1;
        p->apkt_pending = 0;
        int ret = av_interleaved_write_frame(oc, p->apkt);
        if (ret < 0)
            return ffmux_fail(oc, OMCTI_ERR_IO, out_path, ret, "writing the audio", err,
                              errlen);
    }
    return 0;
}

/* Whether an audio stream has what every muxer needs to declare it: a
 * sample rate and a channel count. FFmpeg leaves them 0 when it saw none of
 * the stream's packets (an MPEG-TS audio PID that carries nothing); such a
 * stream has no sound to copy, and Matroska and MP4 refuse its header. */
static int audio_has_parameters(const AVCodecParameters *par)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(59, 24, 100)
    const int channels = par->ch_layout.nb_channels;
#else
    const int channels = par->channels;
#endif
    return par->sample_rate > 0 && channels > 0;
}


/* Where a dropped stream could be kept: Matroska holds what the others
 * refuse (WebM's too), so the hint is no help when the output is .mkv. */
static const char *keep_hint(const AVOutputFormat *of)
{
    return strcmp(of->name, "matroska") ? " (use .mkv to keep it)" : "";
}

/* Whether p copies streams of this kind. */
static int copied(const FFAudioCopy *p, enum AVMediaType t)
{
    return (t == AVMEDIA_TYPE_AUDIO && p->audio) || (t == AVMEDIA_TYPE_SUBTITLE && p->subs);
}

int ffaudio_open(FFAudioCopy *p, const char *out_path, const char *from,
                 const VideoOrigin *origin, int audio, int subs, char *err, size_t errlen)
{
    p->audio = audio;
    p->subs = subs;
    char *url = ffio_local_url(from);
    /* Only self-contained files (ffio_restrict_demuxers). */
    int ret = (p->ain = avformat_alloc_context()) && ffio_restrict_demuxers(p->ain) >= 0
                  ? 0 : AVERROR(ENOMEM);
    if (ret >= 0)
        ret = avformat_open_input(&p->ain, url ? url : from, NULL, NULL);
    if (ret < 0 && ret != AVERROR(ENOMEM) &&
        ffio_refused_demuxer(from, url ? url : from, err, errlen) < 0) {
        free(url);
        return OMCTI_ERR_FORMAT;
    }
    free(url);
    if (ret >= 0)
        ret = avformat_find_stream_info(p->ain, NULL);
    if (ret < 0) {
        /* The reason (a missing file, a permission, damage) is what the
         * user needs to act on. */
        char eb[AV_ERROR_MAX_STRING_SIZE];
        return set_error(err, errlen, ret == AVERROR(ENOMEM) ? OMCTI_ERR_NOMEM : OMCTI_ERR_IO,
                         "'%s': cannot read the audio of '%s': %s", out_path, from,
                         ffio_errstr(ret, eb, sizeof eb));
    }
    if (!(p->amap = malloc(sizeof *p->amap * p->ain->nb_streams)) ||
        !(p->apkt = av_packet_alloc()))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    /* The audio keeps its distance to the video's first frame slot: the
     * caller's origin (the reader's or the index's, which may lie before
     * the stream's start_time: B-pictures after a recording's first
     * packet), else the video stream's start. */
    int vs = ffio_video_stream(p->ain);
    if (origin && origin->pts != VIDEO_NO_PTS && origin->time_base.num > 0 &&
        origin->time_base.den > 0 && origin->time_base.num <= INT_MAX &&
        origin->time_base.den <= INT_MAX)
        p->a_offset = av_rescale_q(origin->pts, (AVRational){ (int)origin->time_base.num,
                                                               (int)origin->time_base.den },
                                   AV_TIME_BASE_Q);
    else if (vs >= 0 && p->ain->streams[vs]->start_time != AV_NOPTS_VALUE)
        p->a_offset = av_rescale_q(p->ain->streams[vs]->start_time,
                                   p->ain->streams[vs]->time_base, AV_TIME_BASE_Q);
    else if (p->ain->start_time != AV_NOPTS_VALUE)
        p->a_offset = p->ain->start_time;
    for (unsigned i = 0; i < p->ain->nb_streams; i++) {
        p->amap[i] = -1;
        if (!copied(p, p->ain->streams[i]->codecpar->codec_type))
            p->ain->streams[i]->discard = AVDISCARD_ALL;
    }
    return 0;
}

int ffaudio_add_streams(FFAudioCopy *p, AVFormatContext *oc, const AVOutputFormat *of,
                        const char *out_path, int with_audio, int quiet, char *err,
                        size_t errlen)
{
    p->nb_audio_out = p->nb_subtitles_out = 0;
    if (!p->ain)
        return 0;
    char name[1024];
    for (unsigned i = 0; i < p->ain->nb_streams; i++) {
        AVStream *is = p->ain->streams[i];
        p->amap[i] = -1;
        const enum AVMediaType type = is->codecpar->codec_type;
        if (!with_audio || !copied(p, type))
            continue;
        const char *kind = type == AVMEDIA_TYPE_AUDIO ? "audio" : "subtitle";
        const enum AVCodecID id = is->codecpar->codec_id;
        /* Decided here, before any header: the writer and the join then
         * keep the same streams (a refused header would cost the writer
         * all its audio and subtitles, and fail the join). */
        if (type == AVMEDIA_TYPE_AUDIO && !audio_has_parameters(is->codecpar)) {
            if (!quiet)
                fprintf(stderr, "omcti: note: '%s': the input's audio stream %u (%s) has no "
                        "sample rate or channel count (it carries no packets?); audio stream "
                        "%u dropped\n", io_printable(out_path, name, sizeof name), i,
                        avcodec_get_name(id), i);
            continue;
        }
        /* Subtitles only where the muxer says it takes the codec (a
         * refused subtitle stream at the header would cost the audio). */
        if (type == AVMEDIA_TYPE_SUBTITLE ? avformat_query_codec(of, id, FF_COMPLIANCE_NORMAL) != 1
                                          : ffmux_refuses(of, type, id)) {
            if (!quiet)
                fprintf(stderr, "omcti: note: '%s': the %s container cannot hold %s "
                        "%s; %s stream %u dropped%s\n",
                        io_printable(out_path, name, sizeof name), of->name,
                        avcodec_get_name(is->codecpar->codec_id), kind, kind, i, keep_hint(of));
            continue;
        }
        AVStream *os = avformat_new_stream(oc, NULL);
        if (!os)
            return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        int ret = avcodec_parameters_copy(os->codecpar, is->codecpar);
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, out_path, ret,
                                "codec parameters");
        /* The input container's tag may mean nothing in this one. */
        os->codecpar->codec_tag = 0;
        os->time_base = is->time_base;
        os->disposition = is->disposition;
        av_dict_copy(&os->metadata, is->metadata, 0);
        p->amap[i] = os->index;
        if (type == AVMEDIA_TYPE_AUDIO)
            p->nb_audio_out++;
        else
            p->nb_subtitles_out++;
    }
    return 0;
}

int ffaudio_header_refusal(const FFAudioCopy *p, int averr)
{
    /* Muxers answer a stream they cannot store in many ways (EINVAL "codec
     * not currently supported in container", "sample rate not set",
     * AVERROR_EXPERIMENTAL, ENOSYS...); what the output itself failed at
     * (a full disk, a write error, memory) is no refusal: retrying would
     * cost the audio and then fail anyway, after a wrong notice. */
    static const int output_errors[] = { EIO, ENOSPC, EDQUOT, EFBIG, EPIPE, EROFS, EACCES,
                                         EPERM, ENOMEM, EINTR };
    if (!nb_copied_out(p))
        return 0;
    for (size_t i = 0; i < sizeof output_errors / sizeof *output_errors; i++)
        if (averr == AVERROR(output_errors[i]))
            return 0;
    return 1;
}

int ffaudio_refused(const FFAudioCopy *p, const AVOutputFormat *of, const char *out_path,
                    int quiet)
{
    if (!nb_copied_out(p))
        return 0;
    /* The retry drops every copied stream, so the notice names each kind
     * the refused header held (subtitles alone, or beside the audio, were
     * called "the audio"). */
    const char *what = !p->nb_subtitles_out ? "audio"
                       : !p->nb_audio_out ? "subtitles" : "audio and subtitles";
    const char *hint = !p->nb_subtitles_out || !*keep_hint(of) ? keep_hint(of)
                                                                : " (use .mkv to keep them)";
    char name[1024];
    if (!quiet)
        fprintf(stderr, "omcti: note: '%s': the %s container refused the %s; %s "
                "dropped%s\n", io_printable(out_path, name, sizeof name), of->name, what,
                what, hint);
    return 1;
}

void ffaudio_close_if_unused(FFAudioCopy *p)
{
    if (p->ain && !nb_copied_out(p))
        ffaudio_close(p);
}

void ffaudio_close(FFAudioCopy *p)
{
    avformat_close_input(&p->ain);
    av_packet_free(&p->apkt);
    free(p->amap);
    p->amap = NULL;
}

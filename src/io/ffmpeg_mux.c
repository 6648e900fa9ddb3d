/* FFmpeg writer, muxing: the VideoWriter of the FFmpeg back end. Pictures go
 * through the encoder (ffmpeg_encoder.c) into a libavformat muxer, with the
 * input's audio copied alongside (ffmpeg_audio.c).
 *
 * The muxer is guessed from the name the user asked for (w->path); the bytes
 * go to w->tmp_path, which io.c renames into place after finish().
 *
 * Timing: time base 1/fps exactly, picture i has pts i and lasts 1, the
 * stream's frame rate is fps, so the file lasts n/fps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/avstring.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

/* open_output()'s answer when the header failed with audio streams in it. */
#define RETRY_WITHOUT_AUDIO 1

typedef struct FFWriter {
    FFEncoder e;
    FFAudioCopy audio;
    AVFormatContext *oc;
    AVStream *vst;
    AVPacket *pkt;
    AVFrame *frame;
    int64_t next_pts;
    int header_written;
    int done;                    /* finish() succeeded                       */
    int quiet;
    int meta, timed_meta;        /* WriterOptions.meta_from, .timed_meta     */
    const IoCancel *cancel;      /* WriterOptions.cancel                     */
} FFWriter;

static void ff_writer_free(FFWriter *p)
{
    if (!p)
        return;
    if (p->oc) {
        /* Without the trailer the file is unusable anyway; io.c removes it. */
        if (p->oc->pb && !(p->oc->oformat->flags & AVFMT_NOFILE))
            avio_closep(&p->oc->pb);
        avformat_free_context(p->oc);
    }
    ffenc_close(&p->e);
    av_packet_free(&p->pkt);
    av_frame_free(&p->frame);
    ffaudio_close(&p->audio);
    free(p);
}

static void ff_wclose(VideoWriter *w)
{
    ff_writer_free(w->priv);
    w->priv = NULL;
}

int ffmux_open_file(AVFormatContext *oc, const char *tmp_path, const char *path,
                    const IoCancel *cancel, char *err, size_t errlen)
{
    size_t n = strlen(tmp_path) + 6;
    char *url = malloc(n);
    if (!url)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    snprintf(url, n, "file:%s", tmp_path);
    /* A write blocked on a FIFO whose reader stalls ends when a stop is
     * asked (the wake signal interrupts it, the callback says stop), as
     * the y4m writer's does (io_write_iov()). */
    if (cancel)
        oc->interrupt_callback = (AVIOInterruptCB){ ffio_interrupt, (void *)cancel };
    int ret = avio_open2(&oc->pb, url, AVIO_FLAG_WRITE, &oc->interrupt_callback, NULL);
    free(url);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, path, ret, "cannot create");
    return 0;
}

int ffmux_quicktime(const AVOutputFormat *of)
{
    return strstr(of->name, "mov") || strstr(of->name, "mp4");
}

int ffmux_refuses(const AVOutputFormat *of, enum AVMediaType type, enum AVCodecID id)
{
    /* The Ogg muxer answers "don't know" for all but its default codecs,
     * then refuses the others at the header with a bare EINVAL; these are
     * the ones its init takes (oggenc.c). */
    if (av_match_name(of->name, "ogg,ogv,oga,opus,spx")) {
        static const enum AVCodecID ogg[] = { AV_CODEC_ID_THEORA, AV_CODEC_ID_VP8,
                                              AV_CODEC_ID_VORBIS, AV_CODEC_ID_OPUS,
                                              AV_CODEC_ID_SPEEX, AV_CODEC_ID_FLAC };
        for (size_t i = 0; i < sizeof ogg / sizeof ogg[0]; i++)
            if (id == ogg[i])
                return 0;
        return 1;
    }
    if (avformat_query_codec(of, id, FF_COMPLIANCE_NORMAL) != 0)
        return 0;
    /* Matroska answers "no" for every codec without a Matroska codec ID
     * of its own, yet stores one with an AVI (VfW, ACM) or a QuickTime
     * tag (PNG, Ut Video, v210, DNxHD; ADPCM); WebM is the strict subset
     * it names. */
    if (strcmp(of->name, "matroska"))
        return 1;
    const struct AVCodecTag *const video[] = { avformat_get_riff_video_tags(),
                                               avformat_get_mov_video_tags(), NULL };
    const struct AVCodecTag *const audio[] = { avformat_get_riff_audio_tags(), NULL };
    if (type == AVMEDIA_TYPE_VIDEO)
        return av_codec_get_tag(video, id) == 0;
    if (type == AVMEDIA_TYPE_AUDIO)
        return av_codec_get_tag(audio, id) == 0;
    return 1;
}

int ffmux_fail(const AVFormatContext *oc, int code, const char *path, int averr,
               const char *what, char *err, size_t errlen)
{
    if (averr != AVERROR(EINVAL))
        return ffio_fail_av(err, errlen, code, path, averr, what);
    /* The muxer's reason is in FFmpeg's log, hidden by default. (A write()
     * to a character device written in place could give EINVAL too, and
     * read so; the log then says so as well.) */
    return set_error(err, errlen, code == OMCTI_ERR_IO ? OMCTI_ERR_FORMAT : code,
                     "'%s': %s: the %s muxer refused it (--ffmpeg-log shows why)", path, what,
                     oc->oformat->name);
}

int ffmux_finish(AVFormatContext *oc, const char *path, char *err, size_t errlen)
{
    int ret = av_write_trailer(oc);
    if (ret < 0)
        return ffmux_fail(oc, OMCTI_ERR_IO, path, ret, "writing the trailer", err, errlen);
    if (oc->pb && !(oc->oformat->flags & AVFMT_NOFILE)) {
        avio_flush(oc->pb);
        int perr = oc->pb->error;
        ret = avio_closep(&oc->pb);
        if (perr < 0 || ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, path, perr < 0 ? perr : ret,
                                "writing");
    }
    return 0;
}

/* The container's name as people write it, for messages. */
static const char *container_name(const AVOutputFormat *of)
{
    static const char *const names[][2] = {
        { "matroska", "Matroska" }, { "webm", "WebM" }, { "mp4", "MP4" },
        { "mov", "QuickTime" }, { "avi", "AVI" }, { "flv", "FLV" }, { "mpegts", "MPEG-TS" },
        { "ogg", "Ogg" }, { "ogv", "Ogg" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(of->name, names[i][0]))
            return names[i][1];
    return of->name;
}

/* Whether the muxer can keep pictures of rate fps apart and in time, now
 * that it has chosen the stream's time base tb (avformat_write_header() or
 * avformat_init_output()): picture i has pts i in 1/fps (the encoder's time
 * base), rescaled to the nearest tick of tb. That gives every picture its
 * own time exactly when a frame lasts at least one tick (fps x tb <= 1);
 * beyond, pictures share times (Matroska counts in 1 ms: 501 of 5000
 * frames at 10000 fps) and players drop or stall on them. Shorter frames
 * than a tick cannot be fixed by rounding, so they are refused before a
 * picture is written. The MOV family's muxer also refuses a frame longer
 * than 2^31 - 1 ticks, only at the first packet and with a bare EINVAL.
 * Both are OMCTI_ERR_INVALID (exit 2), as a container that cannot hold
 * the --codec or the rate's 31-bit terms: the output's name and the rate
 * asked for are the command line's, and another of either works. */
int ffmux_check_timing(const AVOutputFormat *of, AVRational tb, AVRational fps,
                       const char *path, char *err, size_t errlen)
{
    char rate[32], step[48];
    if (tb.num <= 0 || tb.den <= 0 || fps.num <= 0 || fps.den <= 0)
        return 0;
    if ((int64_t)fps.num * tb.num > (int64_t)fps.den * tb.den) {
        if (tb.num == 1 && tb.den == 1000)
            snprintf(step, sizeof step, "1 ms");
        else if (tb.num == 1 && tb.den == 1000000)
            snprintf(step, sizeof step, "1 us");
        else
            snprintf(step, sizeof step, "%d/%d s", tb.num, tb.den);
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': %s stores times in %s steps, too coarse for %s fps (use .mp4, "
                         ".mov, .nut or .y4m, or a lower rate)", path, container_name(of),
                         step, rational_text((Rational){ fps.num, fps.den }, rate, sizeof rate));
    }
    static const char movenc[] = "mov,mp4,ipod,3gp,3g2,psp,ismv,f4v,avif";
    const int64_t ticks = av_rescale_q(1, av_inv_q(fps), tb);
    if (av_match_name(of->name, movenc) && ticks > INT_MAX)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': %s stores a frame's duration in at most 2^31 - 1 steps of "
                         "%d/%d s, and a frame at %d/%d fps lasts %lld of them (use .mkv, .nut "
                         "or .y4m, or a higher rate)", path, container_name(of), tb.num,
                         tb.den, fps.num, fps.den, (long long)ticks);
    return 0;
}

int ff_check_output_timing(const char *path, Rational rate, char *err, size_t errlen)
{
    /* A rehearsal of the writer's header in memory: the muxer's time base
     * for this rate, known before a run that writes the output late (the
     * parts of --workers, after a counting pass). Anything that fails here
     * is left to the writer itself, which checks again. */
    AVRational fps;
    if (rate.num <= 0 || rate.den <= 0 || rate.num > INT_MAX || rate.den > INT_MAX)
        return 0;
    av_reduce(&fps.num, &fps.den, rate.num, rate.den, INT_MAX);
    ffio_quiet_libav();
    const AVOutputFormat *of = av_guess_format(NULL, path, NULL);
    if (!of || of->video_codec == AV_CODEC_ID_NONE || (of->flags & AVFMT_NOFILE))
        return 0;
    AVFormatContext *oc = NULL;
    if (avformat_alloc_output_context2(&oc, of, NULL, NULL) < 0)
        return 0;
    int ret = 0;
    AVStream *vs = avformat_new_stream(oc, NULL);
    if (vs && avio_open_dyn_buf(&oc->pb) == 0) {
        vs->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
        vs->codecpar->codec_id = of->video_codec;
        vs->codecpar->width = 64;
        vs->codecpar->height = 64;
        vs->time_base = av_inv_q(fps);
        vs->avg_frame_rate = fps;
        vs->r_frame_rate = fps;
        /* Matroska and MP4 choose the time base in their init; others
         * (FLV, AVI) in the header, which may fail for want of the real
         * encoder's parameters (Matroska's H.264 without its extradata):
         * the time base is then init's. */
        if (avformat_init_output(oc, NULL) >= 0) {
            const int header = avformat_write_header(oc, NULL);
            (void)header;   /* (a failure leaves init's time base) */
            ret = ffmux_check_timing(of, vs->time_base, fps, path, err, errlen);
        }
        uint8_t *buf = NULL;
        avio_close_dyn_buf(oc->pb, &buf);
        av_free(buf);
        oc->pb = NULL;
    }
    avformat_free_context(oc);
    return ret;
}

/* Creates the muxer context, the streams and the file, and writes the
 * header. with_audio = 0 is the retry after the muxer refused the audio. */
static int open_output(VideoWriter *w, FFWriter *p, const AVOutputFormat *of, int with_audio,
                       char *err, size_t errlen)
{
    int ret = avformat_alloc_output_context2(&p->oc, of, NULL, w->tmp_path);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, w->path, ret, "creating the muxer");
    AVStream *vs = p->vst = avformat_new_stream(p->oc, NULL);
    if (!vs)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    if ((ret = avcodec_parameters_from_context(vs->codecpar, p->e.enc)) < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, w->path, ret, "codec parameters");
    vs->time_base = p->e.enc->time_base;   /* a hint; the muxer may refine it */
    vs->avg_frame_rate = p->e.fps;
    vs->r_frame_rate = p->e.fps;
    vs->sample_aspect_ratio = p->e.enc->sample_aspect_ratio;

    if ((ret = ffaudio_add_streams(&p->audio, p->oc, of, w->path, with_audio, p->quiet, err,
                                   errlen)) < 0)
        return ret;
    if (p->meta && p->audio.ain &&
        (ret = ffmeta_copy(p->audio.ain, p->oc, vs, p->timed_meta, p->audio.a_offset,
                           p->quiet || !with_audio, w->path, err, errlen)) < 0)
        return ret;
    if (!(of->flags & AVFMT_NOFILE) &&
        (ret = ffmux_open_file(p->oc, w->tmp_path, w->path, p->cancel, err, errlen)) < 0)
        return ret;
    if ((ret = avformat_write_header(p->oc, NULL)) < 0)
        return ffmux_fail(p->oc, ffaudio_header_refusal(&p->audio, ret) ? RETRY_WITHOUT_AUDIO
                                                                       : OMCTI_ERR_FORMAT,
                          w->path, ret, "writing the header", err, errlen);
    p->header_written = 1;
    /* (before any picture: the file is removed, an existing output kept) */
    return ffmux_check_timing(of, vs->time_base, p->e.fps, w->path, err, errlen);
}

static void close_output(FFWriter *p)
{
    if (!p->oc)
        return;
    if (p->oc->pb && !(p->oc->oformat->flags & AVFMT_NOFILE))
        avio_closep(&p->oc->pb);
    avformat_free_context(p->oc);
    p->oc = NULL;
    p->vst = NULL;
    p->header_written = 0;
}

/* Muxes one video packet whose timestamps are in tb into oc's stream
 * vst, after the audio due before it (a: NULL for none). Takes the
 * packet's data.
 *
 * last_dts (the join; NULL for the encoder, whose decode times always
 * rise): the previous packet's decode time in vst's time base. Pieces
 * joined one after the other may have different reorder delays (a short
 * piece without B-frames, then one with them), and the later piece's first
 * decode times then fall before the earlier piece's last. They are raised
 * to just after it, in the muxer's fine time base (1 ms for Matroska,
 * fps x 2^k for MP4): they stay before the presentation times, which are
 * at least a frame later. Equal decode times where the muxer allows them
 * (AVFMT_TS_NONSTRICT), else one tick more. Without a collision nothing
 * changes. */
int ffmux_video_packet(AVFormatContext *oc, FFAudioCopy *a, const char *path, AVStream *vst,
                       AVRational tb, AVPacket *pkt, int64_t *last_dts, char *err,
                       size_t errlen)
{
    const int64_t ts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
    if (ts != AV_NOPTS_VALUE && a) {
        int ret = ffaudio_copy_until(a, oc, path, av_rescale_q(ts, tb, AV_TIME_BASE_Q), err,
                                     errlen);
        if (ret < 0) {
            av_packet_unref(pkt);
            return ret;
        }
    }
    av_packet_rescale_ts(pkt, tb, vst->time_base);
    if (last_dts && pkt->dts != AV_NOPTS_VALUE) {
        const int step = !(oc->oformat->flags & AVFMT_TS_NONSTRICT);
        if (*last_dts != AV_NOPTS_VALUE && pkt->dts < *last_dts + step)
            pkt->dts = *last_dts + step;
        if (pkt->pts != AV_NOPTS_VALUE && pkt->dts > pkt->pts) {
            av_packet_unref(pkt);
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the pieces' decode times "
                             "cannot be continued (reorder delays too different)", path);
        }
        *last_dts = pkt->dts;
    }
    pkt->stream_index = vst->index;
    pkt->pos = -1;
    int ret = av_interleaved_write_frame(oc, pkt);
    if (ret < 0)
        return ffmux_fail(oc, OMCTI_ERR_IO, path, ret, "writing a frame", err, errlen);
    return 0;
}

/* Sends f (NULL: flush) and muxes every packet that comes out. */
static int encode(VideoWriter *w, FFWriter *p, AVFrame *f, char *err, size_t errlen)
{
    int ret = avcodec_send_frame(p->e.enc, f);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "encoding");
    for (;;) {
        ret = avcodec_receive_packet(p->e.enc, p->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "encoding");
        if (p->pkt->duration <= 0)
            p->pkt->duration = 1;   /* one picture: 1/fps */
        if ((ret = ffmux_video_packet(p->oc, &p->audio, w->path, p->vst, p->e.enc->time_base,
                                      p->pkt, NULL, err, errlen)) < 0)
            return ret;
    }
}

static int ff_write(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen)
{
    FFWriter *p = w->priv;
    if (p->done)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': write after finish", w->path);
    if (pic->width != p->e.width || pic->height != p->e.height)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': picture is %dx%d, the stream is %dx%d", w->path, pic->width,
                         pic->height, p->e.width, p->e.height);
    AVFrame *f = p->frame;
    int ret = ffenc_frame(&p->e, f, pic, w->path, err, errlen);
    if (ret < 0)
        return ret;
    f->pts = p->next_pts++;
    ret = encode(w, p, f, err, errlen);
    av_frame_unref(f);   /* the encoder holds its own reference */
    return ret;
}

static int ff_finish(VideoWriter *w, char *err, size_t errlen)
{
    FFWriter *p = w->priv;
    if (p->done)
        return 0;
    int ret = encode(w, p, NULL, err, errlen);
    if (ret < 0)
        return ret;
    /* Audio up to the end of the video: n pictures last n/fps. */
    int64_t end = av_rescale_q(p->next_pts, av_inv_q(p->e.fps), AV_TIME_BASE_Q);
    if ((ret = ffaudio_copy_until(&p->audio, p->oc, w->path, end, err, errlen)) < 0)
        return ret;
    if ((ret = ffmux_finish(p->oc, w->path, err, errlen)) < 0)
        return ret;
    p->done = 1;
    return 0;
}

static const VideoWriterOps ff_writer_ops = {
    .write = ff_write,
    .finish = ff_finish,
    .close = ff_wclose,
};

int ff_writer_open(VideoWriter **pw, const char *path, const VideoInfo *info,
                   const WriterOptions *opt, char *err, size_t errlen)
{
    VideoWriter *w = *pw;   /* created by io.c with path and tmp_path */
    (void)path;
    ffio_quiet_libav();
    if (!w || !w->tmp_path)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': FFmpeg output needs a file, not stdout", path);
    if (info->width <= 0 || info->height <= 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': invalid picture size %dx%d",
                         w->path, info->width, info->height);
    /* (writer_open() checked that the rate's terms fit: io_check_output_rate()) */
    AVRational fps;
    av_reduce(&fps.num, &fps.den, info->fps.num, info->fps.den, INT_MAX);

    const AVOutputFormat *of = av_guess_format(NULL, w->path, NULL);
    if (!of)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': unknown container for this file name (use .mkv, .mp4, .mov, "
                         ".avi, .webm or .y4m)", w->path);
    if (of->video_codec == AV_CODEC_ID_NONE)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': the %s format holds no video", w->path, of->name);
    /* image2 writes one file per picture (or fails on a plain name), and
     * the NOFILE muxers (hls, dash, segment, tee) open files of their own:
     * neither can be carried by the temporary-file-and-rename scheme. */
    if (!strncmp(of->name, "image2", 6))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': %s is an image format, not a video container (use .mkv, .mp4, "
                         ".mov, .avi, .webm or .y4m)", w->path, of->name);
    if (of->flags & AVFMT_NOFILE)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': the %s format writes files of its own, not one file (write "
                         ".mkv, .mp4, .mov, .avi, .webm or .y4m, then package it with ffmpeg)",
                         w->path, of->name);

    FFWriter *p = calloc(1, sizeof *p);
    if (!p)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    p->e.width = info->width;
    p->e.height = info->height;
    p->e.fps = fps;
    p->quiet = opt->quiet;
    p->cancel = opt->cancel;
    const char *srcname = opt->src_pix_fmt && *opt->src_pix_fmt ? opt->src_pix_fmt
                                                                : info->pix_fmt;
    enum AVPixelFormat want = srcname[0] ? av_get_pix_fmt(srcname) : AV_PIX_FMT_NONE;
    p->e.in_fmt = ffio_working_format(want);

    int ret;
    if (!(p->pkt = av_packet_alloc()) || !(p->frame = av_frame_alloc())) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((ret = ffenc_open(&p->e, w->path, &w->info, of, opt, want, err, errlen)) < 0)
        goto fail;
    /* One second demuxer of the input for its audio, subtitles and
     * metadata (the same file whenever both are given). */
    const char *from = opt->audio_from && *opt->audio_from ? opt->audio_from
                       : opt->meta_from && *opt->meta_from ? opt->meta_from : NULL;
    p->meta = opt->meta_from && *opt->meta_from;
    p->timed_meta = opt->timed_meta;
    if (from && (ret = ffaudio_open(&p->audio, w->path, from, &opt->origin,
                                    from == opt->audio_from,
                                    p->meta && opt->timed_meta, err, errlen)) < 0) {
        if (from == opt->audio_from)
            goto fail;
        /* Metadata alone is not worth failing the conversion for (the
         * reader opened the file; a second demuxer could not). */
        ffaudio_close(&p->audio);
        memset(&p->audio, 0, sizeof p->audio);
        p->meta = 0;
        err[0] = 0;
    }

    ret = open_output(w, p, of, 1, err, errlen);
    if (ret == RETRY_WITHOUT_AUDIO) {
        /* The muxer refused the audio (a codec it cannot store that
         * avformat_query_codec could not rule out): video only. */
        ffaudio_refused(&p->audio, of, w->path, p->quiet);
        close_output(p);
        ret = open_output(w, p, of, 0, err, errlen);
        if (ret == RETRY_WITHOUT_AUDIO)   /* cannot happen: no audio now */
            ret = OMCTI_ERR_FORMAT;
    }
    if (ret < 0)
        goto fail;
    ffaudio_close_if_unused(&p->audio);

    w->priv = p;
    w->ops = &ff_writer_ops;
    return 0;
fail:
    ff_writer_free(p);
    return ret;
}

/* omcti join (docs/scale.md): the pieces of a --segment run, one after the
 * other, stream-copied into one file (no re-encoding), with the audio of
 * the source copied alongside (ffmpeg_audio.c). join.c checks that the set
 * of pieces is whole before this runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

typedef struct JoinPiece {
    AVFormatContext *fmt;
    int stream;
} JoinPiece;

static int join_open_piece(JoinPiece *jp, const char *path, char *err, size_t errlen)
{
    char *url = ffio_local_url(path);
    /* Only self-contained files (ffio_restrict_demuxers). */
    int ret = (jp->fmt = avformat_alloc_context()) && ffio_restrict_demuxers(jp->fmt) >= 0
                  ? 0 : AVERROR(ENOMEM);
    if (ret >= 0)
        ret = avformat_open_input(&jp->fmt, url ? url : path, NULL, NULL);
    if (ret < 0 && ret != AVERROR(ENOMEM) &&
        ffio_refused_demuxer(path, url ? url : path, err, errlen) < 0) {
        free(url);
        return OMCTI_ERR_FORMAT;
    }
    free(url);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, path, ret, "cannot open the piece");
    if ((ret = avformat_find_stream_info(jp->fmt, NULL)) < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret,
                            "cannot read the stream information (a broken piece?)");
    jp->stream = av_find_best_stream(jp->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (jp->stream < 0)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the piece has no video stream",
                         path);
    ffio_keep_only_stream(jp->fmt, jp->stream);
    return 0;
}

static AVRational join_fps(const AVStream *st)
{
    AVRational q = ffio_snap_fps(st->avg_frame_rate);
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 11, 100)
    /* A piece too short for avg_frame_rate: the codec's own rate (FFmpeg 7
     * gives H.264 the field rate as r_frame_rate when it has no other). */
    if (q.num <= 0 || q.den <= 0)
        q = ffio_snap_fps(st->codecpar->framerate);
#endif
    if (q.num <= 0 || q.den <= 0)
        q = ffio_snap_fps(st->r_frame_rate);
    return q;
}

/* Pieces were made by one omcti with one set of options: same codec, size,
 * rate and encoder headers. Anything else would decode wrongly after the
 * seam, so it is refused. */
static int join_compatible(const AVStream *a, const AVStream *b, const char *pa,
                           const char *pb, char *err, size_t errlen)
{
    const AVCodecParameters *x = a->codecpar, *y = b->codecpar;
    const char *what = NULL;
    if (x->codec_id != y->codec_id) what = "codecs";
    else if (x->width != y->width || x->height != y->height) what = "picture sizes";
    else if (x->format != y->format) what = "pixel formats";
    else if (av_cmp_q(join_fps(a), join_fps(b))) what = "frame rates";
    else if (x->extradata_size != y->extradata_size ||
             (x->extradata_size && memcmp(x->extradata, y->extradata, x->extradata_size)))
        what = "encoder settings";
    if (what)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' cannot follow '%s': their %s "
                         "differ (pieces must come from one omcti --segment run)", pb, pa, what);
    return 0;
}

/* Matroska keeps no decode times: its demuxer gives none to the first
 * packets of a stream with B-frames, and the muxer's guess for them then
 * collides with the decode times of the piece before. Those packets wait
 * here until the first one that has a decode time d; the k-th of n held
 * then gets d - (n - k), one frame apart as the encoder had them, so the
 * decode times run on across the pieces. */
#define JOIN_HELD 32

/* Writes the held packets: with decode times up to just before next_dts,
 * or as they came when next_dts is AV_NOPTS_VALUE. */
static int join_flush_held(AVFormatContext *oc, FFAudioCopy *audio, const char *out,
                           AVStream *vst, AVRational ftb, AVPacket **held, int *nheld,
                           int64_t next_dts, int64_t *last_dts, char *err, size_t errlen)
{
    int ret = 0;
    /* A piece with no decode time at all (no reordering, or too short to
     * have any): when its pictures come in presentation order, decoding
     * them at their presentation times is exact, and gives the next
     * piece's decode times something to follow. */
    int in_order = 1;
    for (int h = 1; h < *nheld; h++)
        in_order &= held[h]->pts > held[h - 1]->pts;
    for (int h = 0; h < *nheld; h++) {
        if (ret == 0) {
            if (next_dts != AV_NOPTS_VALUE)
                held[h]->dts = FFMIN(next_dts - (*nheld - h), held[h]->pts);
            else if (in_order)
                held[h]->dts = held[h]->pts;
            ret = ffmux_video_packet(oc, audio, out, vst, ftb, held[h], last_dts, err, errlen);
        }
        av_packet_free(&held[h]);
    }
    *nheld = 0;
    return ret;
}

/* join_open_output()'s answer when the muxer refused a header that held
 * copied streams. */
#define JOIN_RETRY_WITHOUT_AUDIO 1

/* Creates the muxer context with the pieces' video stream (*vst) and, from
 * audio (when open), the copied streams (with_audio) and the input's
 * metadata; creates the file and writes the header. with_audio = 0 is the
 * retry after the muxer refused the copied streams (ffaudio_refused()). */
static int join_open_output(AVFormatContext **oc, AVStream **vst, const AVOutputFormat *of,
                            const char *out, const char *tmp, const AVStream *ist0,
                            AVRational fps, FFAudioCopy *audio, int with_audio, int quiet,
                            const IoCancel *cancel, char *err, size_t errlen)
{
    int ret = avformat_alloc_output_context2(oc, of, NULL, tmp);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, out, ret, "creating the muxer");
    AVStream *vs = *vst = avformat_new_stream(*oc, NULL);
    if (!vs || avcodec_parameters_copy(vs->codecpar, ist0->codecpar) < 0)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    vs->codecpar->codec_tag = 0;
    vs->time_base = av_inv_q(fps);
    vs->avg_frame_rate = vs->r_frame_rate = fps;
    vs->sample_aspect_ratio = ist0->sample_aspect_ratio;
    /* (the notices of the metadata once: not again on the retry) */
    if (audio->ain &&
        ((ret = ffaudio_add_streams(audio, *oc, of, out, with_audio, quiet, err, errlen)) < 0 ||
         (ret = ffmeta_copy(audio->ain, *oc, vs, 1, audio->a_offset, quiet || !with_audio, out,
                            err, errlen)) < 0))
        return ret;
    if ((ret = ffmux_open_file(*oc, tmp, out, cancel, err, errlen)) < 0)
        return ret;
    if ((ret = avformat_write_header(*oc, NULL)) < 0)
        return ffmux_fail(*oc, ffaudio_header_refusal(audio, ret) ? JOIN_RETRY_WITHOUT_AUDIO
                                                               : OMCTI_ERR_FORMAT,
                          out, ret, "writing the header", err, errlen);
    /* pieces of another container (.mp4 at 2000 fps) joined into one whose
     * time unit cannot tell their frames apart (.mkv): refused as the
     * writer refuses it, not written with shared timestamps */
    return ffmux_check_timing(of, vs->time_base, fps, out, err, errlen);
}

static void join_close_output(AVFormatContext **oc)
{
    if (!*oc)
        return;
    if ((*oc)->pb)
        avio_closep(&(*oc)->pb);
    avformat_free_context(*oc);
    *oc = NULL;
}

int ff_join(const char *out, const char *tmp, const char *const *pieces, int n,
            const char *audio_from, const VideoOrigin *origin, int quiet,
            const IoCancel *cancel, int64_t *frames_out, char *err, size_t errlen)
{
    ffio_quiet_libav();
    JoinPiece first = { 0 }, cur = { 0 };
    AVFormatContext *oc = NULL;
    AVStream *vst = NULL;
    FFAudioCopy audio = { 0 };
    AVPacket *pkt = av_packet_alloc();
    AVPacket *held[JOIN_HELD];
    int nheld = 0, ret = 0, header = 0;
    int64_t total = 0, last_dts = AV_NOPTS_VALUE;
    if (!pkt) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");

    if ((ret = join_open_piece(&first, pieces[0], err, errlen)) < 0) goto done;
    const AVStream *ist0 = first.fmt->streams[first.stream];
    const AVRational fps = join_fps(ist0), ftb = av_inv_q(fps);
    if (fps.num <= 0 || fps.den <= 0) {
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the piece has no frame rate",
                        pieces[0]);
        goto done;
    }
    const AVOutputFormat *of = av_guess_format(NULL, out, NULL);
    if (!of || (of->flags & AVFMT_NOFILE)) {
        ret = set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': unknown container for this file "
                        "name (use the pieces' extension, e.g. .mkv)", out);
        goto done;
    }
    if (ffmux_refuses(of, AVMEDIA_TYPE_VIDEO, ist0->codecpar->codec_id)) {
        ret = set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the %s container cannot hold %s "
                        "video", out, of->name, avcodec_get_name(ist0->codecpar->codec_id));
        goto done;
    }
    /* From the input (audio_from: a whole run's join): its audio, its
     * subtitles, metadata, chapters and rotation, as a single run's writer
     * copies them (ffmpeg_mux.c), and dropped as it drops them. */
    if (audio_from && *audio_from &&
        (ret = ffaudio_open(&audio, out, audio_from, origin, 1, 1, err, errlen)) < 0)
        goto done;
    ret = join_open_output(&oc, &vst, of, out, tmp, ist0, fps, &audio, 1, quiet, cancel, err,
                           errlen);
    if (ret == JOIN_RETRY_WITHOUT_AUDIO && ffaudio_refused(&audio, of, out, quiet)) {
        join_close_output(&oc);
        ret = join_open_output(&oc, &vst, of, out, tmp, ist0, fps, &audio, 0, quiet, cancel,
                               err, errlen);
    }
    if (ret == JOIN_RETRY_WITHOUT_AUDIO)   /* cannot happen: no audio in the retry */
        ret = OMCTI_ERR_FORMAT;
    if (ret < 0)
        goto done;
    header = 1;
    /* Past the header, a second demuxer that copies no stream (an input
     * without audio or subtitles, or whose streams the container refused)
     * is done: it held the packets its probe read (an input's first
     * pictures) for the whole join, as the writer no longer does. */
    ffaudio_close_if_unused(&audio);

    for (int k = 0; k < n; k++) {
        JoinPiece *jp = &first;
        if (k > 0) {
            avformat_close_input(&cur.fmt);
            if ((ret = join_open_piece(&cur, pieces[k], err, errlen)) < 0) goto done;
            if ((ret = join_compatible(ist0, cur.fmt->streams[cur.stream], pieces[0], pieces[k],
                                       err, errlen)) < 0)
                goto done;
            jp = &cur;
        }
        const AVStream *ist = jp->fmt->streams[jp->stream];
        /* MPEG-TS starts its clock at 1.4 s: frames count from the start. */
        const int64_t t0 = ist->start_time != AV_NOPTS_VALUE ? ist->start_time : 0;
        int64_t count = 0, lo = INT64_MAX, hi = INT64_MIN;
        int have_dts = 0;
        for (;;) {
            if (cancel && cancel->requested()) {
                ret = set_error(err, errlen, OMCTI_ERR_INTERRUPT, "interrupted");
                goto done;
            }
            ret = av_read_frame(jp->fmt, pkt);
            if (ret == AVERROR(EAGAIN)) continue;
            if (ret == AVERROR_EOF) break;
            if (ret < 0) {
                ret = ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, pieces[k], ret,
                                   "read error (a broken piece?)");
                goto done;
            }
            if (pkt->stream_index != jp->stream) {
                av_packet_unref(pkt);
                continue;
            }
            if (pkt->pts == AV_NOPTS_VALUE || (count == 0 && !(pkt->flags & AV_PKT_FLAG_KEY))) {
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': %s", pieces[k],
                                pkt->pts == AV_NOPTS_VALUE ? "a packet has no timestamp"
                                : "the piece does not start with a key frame");
                av_packet_unref(pkt);
                goto done;
            }
            /* Timestamps in frames of the piece, then of the whole. */
            const int64_t idx = av_rescale_q(pkt->pts - t0, ist->time_base, ftb);
            count++;
            lo = FFMIN(lo, idx);
            hi = FFMAX(hi, idx);
            pkt->pts = idx + total;
            if (pkt->dts != AV_NOPTS_VALUE)
                pkt->dts = av_rescale_q(pkt->dts - t0, ist->time_base, ftb) + total;
            pkt->duration = pkt->duration > 0 ? av_rescale_q(pkt->duration, ist->time_base, ftb)
                                              : 1;
            if (!have_dts && pkt->dts == AV_NOPTS_VALUE) {
                if (nheld < JOIN_HELD) {
                    if (!(held[nheld] = av_packet_alloc())) {
                        av_packet_unref(pkt);
                        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
                        goto done;
                    }
                    av_packet_move_ref(held[nheld++], pkt);
                    continue;
                }
                /* More than any B-frame delay: no decode times to fill. */
                have_dts = 1;
            }
            if (nheld && (ret = join_flush_held(oc, &audio, out, vst, ftb, held, &nheld,
                                                pkt->dts, &last_dts, err, errlen)) < 0) {
                av_packet_unref(pkt);
                goto done;
            }
            have_dts |= pkt->dts != AV_NOPTS_VALUE;
            if ((ret = ffmux_video_packet(oc, &audio, out, vst, ftb, pkt, &last_dts, err,
                                          errlen)) < 0)
                goto done;
        }
        /* A piece without any decode time (intra-only streams): as they came. */
        if ((ret = join_flush_held(oc, &audio, out, vst, ftb, held, &nheld, AV_NOPTS_VALUE,
                                   &last_dts, err, errlen)) < 0)
            goto done;
        if (!count || lo != 0 || hi != count - 1) {
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': %s", pieces[k],
                            count ? "the pictures' timestamps are not 0, 1, 2, ... frames "
                                    "(not a piece written by omcti)"
                                  : "the piece holds no picture");
            goto done;
        }
        total += count;
    }
    if ((ret = ffaudio_copy_until(&audio, oc, out, av_rescale_q(total, ftb, AV_TIME_BASE_Q),
                                  err, errlen)) < 0)
        goto done;
    header = 0;
    if ((ret = ffmux_finish(oc, out, err, errlen)) < 0)
        goto done;
    if (frames_out) *frames_out = total;
    ret = 0;
done:
    (void)header;
    for (int h = 0; h < nheld; h++) av_packet_free(&held[h]);
    join_close_output(&oc);
    ffaudio_close(&audio);
    av_packet_free(&pkt);
    avformat_close_input(&first.fmt);
    avformat_close_input(&cur.fmt);
    return ret;
}

/* FFmpeg back end: libavcodec encode + libavformat mux, with the audio of the
 * input stream-copied alongside.
 *
 * The muxer is guessed from the name the user asked for (w->path); the bytes
 * go to w->tmp_path, which io.c renames into place after finish().
 *
 * Encoder per container (opt->codec overrides; opt->crf overrides quality):
 *   .mp4 .mov .mkv .nut .ts ... : libx264, CRF 16, preset medium
 *                                  (visually lossless); without libx264:
 *                                  mpeg4 at qscale 2
 *   .avi                        : mpeg4 at qscale 2 (AVI has no B-frame
 *                                  timestamps; mpeg4 is its native codec)
 *   .webm                       : libvpx-vp9, CRF 20
 *   .ts .m2ts .mts              : libx264 as above
 *   --lossless                  : FFV1 (level 3) where the container holds
 *                                  it (.mkv .avi .nut .mov), else libx264
 *                                  qp 0 (.mp4), libvpx-vp9 lossless (.webm)
 *   other containers            : the muxer's own default video encoder
 *   image formats (.png, .jpg)  : refused (one file per picture)
 * Odd picture sizes: x264 and x265 cannot encode 4:2:0 at odd sizes, so the
 * default there becomes mpeg4 (qscale 2) / FFV1 (lossless); an explicit
 * libx264/libx265 is refused with a hint.
 * The encoder gets the input's pixel format where it supports it (so a
 * yuv420p input is encoded without any conversion and lossless output is
 * bit-exact), else the closest one it supports, converted with libswscale.
 *
 * Timing: time base 1/fps exactly, picture i has pts i and lasts 1, the
 * stream's frame rate is fps, so the file lasts n/fps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "src/common.h"
#include "src/io/ffmpeg_common.h"
#include "src/io/io_internal.h"

/* open_output()'s answer when the header failed with audio streams in it. */
#define RETRY_WITHOUT_AUDIO 1

typedef struct FFWriter {
    AVFormatContext *oc;
    AVCodecContext *enc;
    AVStream *vst;
    AVPacket *pkt;
    AVFrame *frame;
    AVBufferPool *pool;          /* picture buffers, recycled by the encoder */
    struct SwsContext *sws;      /* NULL when the encoder takes 4:2:0 as is  */
    enum AVPixelFormat in_fmt;   /* pictures we are given (yuv(j)420p)       */
    int width, height;
    AVRational fps;
    int64_t next_pts;
    int header_written;
    int done;                    /* finish() succeeded                       */
    int quiet;

    /* Audio stream copy. */
    AVFormatContext *ain;
    AVPacket *apkt;
    int *amap;                   /* input stream -> output stream, or -1     */
    int nb_audio_out;
    int64_t a_offset;            /* AV_TIME_BASE units subtracted from audio */
    int apkt_pending;            /* apkt is read but not yet written         */
    int audio_eof;
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
    avcodec_free_context(&p->enc);
    av_packet_free(&p->pkt);
    av_frame_free(&p->frame);
    av_buffer_pool_uninit(&p->pool);
    sws_freeContext(p->sws);
    avformat_close_input(&p->ain);
    av_packet_free(&p->apkt);
    free(p->amap);
    free(p);
}

static void ff_wclose(VideoWriter *w)
{
    ff_writer_free(w->priv);
    w->priv = NULL;
}

/* ---- audio ------------------------------------------------------------ */

/* Writes the input's audio packets that start before `limit` (AV_TIME_BASE
 * units, the output's clock) so that audio and video stay interleaved. */
static int copy_audio_until(VideoWriter *w, FFWriter *p, int64_t limit, char *err, size_t errlen)
{
    if (!p->ain || !p->nb_audio_out)
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
             * H.264 pictures a few ms after the audio). */
            if (p->apkt->pts < 0 || (p->apkt->dts != AV_NOPTS_VALUE && p->apkt->dts < 0)) {
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
        AVStream *ost = p->oc->streams[p->amap[p->apkt->stream_index]];
        av_packet_rescale_ts(p->apkt, ist->time_base, ost->time_base);
        p->apkt->stream_index = ost->index;
        p->apkt->pos = -1;
        p->apkt_pending = 0;
        int ret = av_interleaved_write_frame(p->oc, p->apkt);
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "writing");
    }
    return 0;
}

static int open_audio_input(VideoWriter *w, FFWriter *p, const char *from, char *err,
                            size_t errlen)
{
    char *url = ffio_local_url(from);
    int ret = avformat_open_input(&p->ain, url ? url : from, NULL, NULL);
    free(url);
    if (ret >= 0)
        ret = avformat_find_stream_info(p->ain, NULL);
    if (ret < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "'%s': cannot read the audio of '%s'",
                         w->path, from);
    if (!(p->amap = malloc(sizeof *p->amap * p->ain->nb_streams)) ||
        !(p->apkt = av_packet_alloc()))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    /* The reader starts the video at its first picture; the audio keeps its
     * distance to that picture. */
    int vs = av_find_best_stream(p->ain, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vs >= 0 && p->ain->streams[vs]->start_time != AV_NOPTS_VALUE)
        p->a_offset = av_rescale_q(p->ain->streams[vs]->start_time,
                                   p->ain->streams[vs]->time_base, AV_TIME_BASE_Q);
    else if (p->ain->start_time != AV_NOPTS_VALUE)
        p->a_offset = p->ain->start_time;
    for (unsigned i = 0; i < p->ain->nb_streams; i++) {
        p->amap[i] = -1;
        if (p->ain->streams[i]->codecpar->codec_type != AVMEDIA_TYPE_AUDIO)
            p->ain->streams[i]->discard = AVDISCARD_ALL;
    }
    return 0;
}

/* ---- encoder choice ---------------------------------------------------- */

static int holds(const AVOutputFormat *of, enum AVCodecID id)
{
    return avformat_query_codec(of, id, FF_COMPLIANCE_NORMAL) == 1;
}

static const char *path_ext(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot ? dot + 1 : "";
}

typedef struct EncChoice {
    const AVCodec *codec;
    int qscale;       /* > 0: fixed quantiser (codecs without CRF)          */
} EncChoice;

static const char *const lossless_codecs[] = {
    "ffv1", "ffvhuff", "huffyuv", "utvideo", "magicyuv", "png", "rawvideo", "qtrle",
    "libx264", "libx264rgb", "libx265", "libvpx-vp9", "libaom-av1", "libsvtav1", NULL,
};

static int choose_encoder(const VideoWriter *w, const AVOutputFormat *of,
                          const WriterOptions *opt, EncChoice *c, char *err, size_t errlen)
{
    const char *ext = path_ext(w->path);
    memset(c, 0, sizeof *c);
    if (opt->codec && *opt->codec) {
        c->codec = avcodec_find_encoder_by_name(opt->codec);
        if (!c->codec)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': no encoder named '%s' in this FFmpeg", w->path, opt->codec);
        if (c->codec->type != AVMEDIA_TYPE_VIDEO)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': '%s' is not a video encoder", w->path, opt->codec);
        if (avformat_query_codec(of, c->codec->id, FF_COMPLIANCE_NORMAL) == 0)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': the %s container cannot hold %s video", w->path,
                             of->name, avcodec_get_name(c->codec->id));
        if (opt->lossless) {
            int ok = 0;
            for (int i = 0; lossless_codecs[i]; i++)
                ok |= !strcmp(lossless_codecs[i], c->codec->name);
            if (!ok)
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "'%s': the encoder '%s' has no lossless mode (try ffv1)",
                                 w->path, c->codec->name);
        }
        if (opt->crf >= 0 && !strcmp(c->codec->name, "mpeg4"))
            c->qscale = clamp_i(opt->crf, 1, 31);
        return 0;
    }
    /* x264 cannot do 4:2:0 at odd sizes (nor x265); FFV1, mpeg4, VP9 can. */
    const int odd = (w->info.width | w->info.height) & 1;
    const AVCodec *x264 = odd ? NULL : avcodec_find_encoder_by_name("libx264");
    const AVCodec *vp9 = avcodec_find_encoder_by_name("libvpx-vp9");
    const AVCodec *ffv1 = avcodec_find_encoder(AV_CODEC_ID_FFV1);
    const AVCodec *mpeg4 = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    if (opt->lossless) {
        if (!strcasecmp(ext, "webm") && vp9)
            c->codec = vp9;
        else if (ffv1 && holds(of, AV_CODEC_ID_FFV1))
            c->codec = ffv1;
        else if (x264 && holds(of, AV_CODEC_ID_H264))
            c->codec = x264;
        else
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': no lossless encoder for the %s container (use .mkv)",
                             w->path, of->name);
        return 0;
    }
    /* MPEG-TS takes H.264, but its muxer cannot say so (no codec list). */
    const int ts = !strcasecmp(ext, "ts") || !strcasecmp(ext, "m2ts") || !strcasecmp(ext, "mts");
    if (!strcasecmp(ext, "avi") && mpeg4)
        c->codec = mpeg4;
    else if (ts && x264)
        c->codec = x264;
    else if (!strcasecmp(ext, "webm") && vp9)
        c->codec = vp9;
    else if (x264 && holds(of, AV_CODEC_ID_H264))
        c->codec = x264;
    else if (mpeg4 && holds(of, AV_CODEC_ID_MPEG4))
        c->codec = mpeg4;
    else if (of->video_codec != AV_CODEC_ID_NONE)
        c->codec = avcodec_find_encoder(of->video_codec);
    if (!c->codec)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': no video encoder available for the %s container (use .mkv or .mp4)",
                         w->path, of->name);
    if (c->codec->id == AV_CODEC_ID_MPEG4 || c->codec->id == AV_CODEC_ID_MPEG2VIDEO ||
        c->codec->id == AV_CODEC_ID_MPEG1VIDEO)
        c->qscale = opt->crf >= 0 ? clamp_i(opt->crf, 1, 31) : 2;
    return 0;
}

static int supports_fmt(const AVCodec *c, enum AVPixelFormat f)
{
    if (f == AV_PIX_FMT_NONE)
        return 0;
    if (!c->pix_fmts)
        return 1;
    for (const enum AVPixelFormat *q = c->pix_fmts; *q != AV_PIX_FMT_NONE; q++)
        if (*q == f)
            return 1;
    return 0;
}

/* The input's own format if the encoder takes it, else what we have
 * (4:2:0), else the encoder's closest. yuvj formats fall back to their
 * limited-range twin with a full-range tag: the same bytes. */
static enum AVPixelFormat choose_pix_fmt(const AVCodec *c, enum AVPixelFormat want,
                                         enum AVPixelFormat have)
{
    if (want == AV_PIX_FMT_NONE)
        want = have;
    if (supports_fmt(c, want))
        return want;
    if (supports_fmt(c, ffio_unj(want)))
        return ffio_unj(want);
    if (supports_fmt(c, have))
        return have;
    if (supports_fmt(c, ffio_unj(have)))
        return ffio_unj(have);
    return avcodec_find_best_pix_fmt_of_list(c->pix_fmts, want, 0, NULL);
}

static int is_yuv(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && !(d->flags & AV_PIX_FMT_FLAG_RGB) && d->nb_components >= 3;
}

static int open_encoder(VideoWriter *w, FFWriter *p, const AVOutputFormat *of,
                        const EncChoice *c, const WriterOptions *opt, enum AVPixelFormat want,
                        char *err, size_t errlen)
{
    const AVCodec *codec = c->codec;
    AVCodecContext *e = p->enc = avcodec_alloc_context3(codec);
    if (!e)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    enum AVPixelFormat pf = choose_pix_fmt(codec, want, p->in_fmt);
    if (pf == AV_PIX_FMT_NONE)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the encoder '%s' takes no pixel format omcti can give it",
                         w->path, codec->name);
    /* x264 and x265 refuse a subsampled chroma plane of fractional size
     * with only "Generic error"; say what is wrong and what works. */
    const AVPixFmtDescriptor *pd = av_pix_fmt_desc_get(pf);
    if (pd && !strncmp(codec->name, "libx26", 6) &&
        ((p->width & ((1 << pd->log2_chroma_w) - 1)) ||
         (p->height & ((1 << pd->log2_chroma_h) - 1))))
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': %s cannot encode the odd picture size %dx%d in %s "
                         "(write .mkv with --lossless for FFV1, or crop the input to even)",
                         w->path, codec->name, p->width, p->height, av_get_pix_fmt_name(pf));
    e->width = p->width;
    e->height = p->height;
    e->pix_fmt = pf;
    e->time_base = av_inv_q(p->fps);
    e->framerate = p->fps;
    if (w->info.sar.num > 0 && w->info.sar.den > 0)
        av_reduce(&e->sample_aspect_ratio.num, &e->sample_aspect_ratio.den, w->info.sar.num,
                  w->info.sar.den, INT_MAX);
    e->thread_count = 0;
    /* Every picture omcti writes is a whole frame (interpolated frames
     * have no fields), so say so rather than leave players guessing. */
    e->field_order = AV_FIELD_PROGRESSIVE;
    if (of->flags & AVFMT_GLOBALHEADER)
        e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int full = ffio_is_j(p->in_fmt);
    if (is_yuv(pf))
        e->color_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    if (is_yuv(pf) && w->info.has_color) {
        e->color_primaries = (enum AVColorPrimaries)w->info.color_primaries;
        e->color_trc = (enum AVColorTransferCharacteristic)w->info.color_trc;
        e->colorspace = (enum AVColorSpace)w->info.color_space;
        e->chroma_sample_location = (enum AVChromaLocation)w->info.chroma_location;
    }

    AVDictionary *d = NULL;
    const char *n = codec->name;
    char num[32];
    if (!strcmp(n, "libx264") || !strcmp(n, "libx264rgb")) {
        av_dict_set(&d, "preset", "medium", 0);
        if (opt->lossless) {
            av_dict_set(&d, "qp", "0", 0);
        } else {
            snprintf(num, sizeof num, "%d", opt->crf >= 0 ? opt->crf : 16);
            av_dict_set(&d, "crf", num, 0);
        }
    } else if (!strcmp(n, "libx265")) {
        /* x265 prints to stderr itself unless told not to. */
        av_dict_set(&d, "preset", "medium", 0);
        av_dict_set(&d, "x265-params", opt->lossless ? "log-level=error:lossless=1"
                                                     : "log-level=error", 0);
        if (!opt->lossless) {
            snprintf(num, sizeof num, "%d", opt->crf >= 0 ? opt->crf : 18);
            av_dict_set(&d, "crf", num, 0);
        }
    } else if (!strcmp(n, "libvpx-vp9")) {
        av_dict_set(&d, "row-mt", "1", 0);
        if (opt->lossless) {
            av_dict_set(&d, "lossless", "1", 0);
        } else {
            snprintf(num, sizeof num, "%d", opt->crf >= 0 ? opt->crf : 20);
            av_dict_set(&d, "crf", num, 0);
            av_dict_set(&d, "b", "0", 0);   /* constant quality */
        }
    } else if (!strcmp(n, "ffv1")) {
        av_dict_set(&d, "level", "3", 0);     /* sliced: multithreaded */
        av_dict_set(&d, "slicecrc", "1", 0);  /* damage is detectable  */
    } else if (c->qscale > 0) {
        e->flags |= AV_CODEC_FLAG_QSCALE;
        e->global_quality = FF_QP2LAMBDA * c->qscale;
    } else if (opt->crf >= 0 && av_opt_find(e, "crf", NULL, 0, AV_OPT_SEARCH_CHILDREN)) {
        snprintf(num, sizeof num, "%d", opt->crf);
        av_dict_set(&d, "crf", num, 0);
    }
    int ret = avcodec_open2(e, codec, &d);
    av_dict_free(&d);
    if (ret < 0) {
        char what[128];
        snprintf(what, sizeof what, "cannot open the %s encoder (%dx%d %s at %d/%d fps)",
                 codec->name, p->width, p->height, av_get_pix_fmt_name(pf), p->fps.num,
                 p->fps.den);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, w->path, ret, what);
    }

    if (ffio_unj(pf) != AV_PIX_FMT_YUV420P) {
        p->sws = sws_getContext(p->width, p->height, p->in_fmt, p->width, p->height, pf,
                                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL,
                                NULL, NULL);
        if (!p->sws)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': cannot convert %s to %s",
                             w->path, av_get_pix_fmt_name(p->in_fmt), av_get_pix_fmt_name(pf));
        if (full && is_yuv(pf) && !ffio_is_j(pf)) {
            /* Full-range source into a format swscale thinks limited: keep
             * the range (the stream is tagged full range above). */
            int *inv, *tbl, sr, dr, b, ct, s;
            if (sws_getColorspaceDetails(p->sws, &inv, &sr, &tbl, &dr, &b, &ct, &s) >= 0)
                sws_setColorspaceDetails(p->sws, inv, sr, tbl, 1, b, ct, s);
        }
    }
    /* One pool buffer per picture in flight; the encoder returns them. */
    int size = av_image_get_buffer_size(pf, FFALIGN(p->width, 64), p->height + 2, 64);
    if (size < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, w->path, size, "picture size");
    if (!(p->pool = av_buffer_pool_init((size_t)size + 256, NULL)))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    return 0;
}

/* ---- output file ------------------------------------------------------- */

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
    if ((ret = avcodec_parameters_from_context(vs->codecpar, p->enc)) < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, w->path, ret, "codec parameters");
    vs->time_base = p->enc->time_base;   /* a hint; the muxer may refine it */
    vs->avg_frame_rate = p->fps;
    vs->r_frame_rate = p->fps;
    vs->sample_aspect_ratio = p->enc->sample_aspect_ratio;

    p->nb_audio_out = 0;
    char name[1024];
    if (with_audio && p->ain) {
        for (unsigned i = 0; i < p->ain->nb_streams; i++) {
            AVStream *is = p->ain->streams[i];
            p->amap[i] = -1;
            if (is->codecpar->codec_type != AVMEDIA_TYPE_AUDIO)
                continue;
            if (avformat_query_codec(of, is->codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0) {
                if (!p->quiet)
                    fprintf(stderr, "omcti: notice: '%s': the %s container cannot hold %s "
                            "audio; audio stream %u dropped (use .mkv to keep it)\n",
                            io_printable(w->path, name, sizeof name), of->name, avcodec_get_name(is->codecpar->codec_id), i);
                continue;
            }
            AVStream *os = avformat_new_stream(p->oc, NULL);
            if (!os)
                return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
            if ((ret = avcodec_parameters_copy(os->codecpar, is->codecpar)) < 0)
                return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, w->path, ret,
                                   "codec parameters");
            /* The input container's tag may mean nothing in this one. */
            os->codecpar->codec_tag = 0;
            os->time_base = is->time_base;
            os->disposition = is->disposition;
            av_dict_copy(&os->metadata, is->metadata, 0);
            p->amap[i] = os->index;
            p->nb_audio_out++;
        }
    } else if (p->ain) {
        for (unsigned i = 0; i < p->ain->nb_streams; i++)
            p->amap[i] = -1;
    }

    if (!(of->flags & AVFMT_NOFILE)) {
        /* tmp_path is always a local file; "file:" keeps a name such as
         * "out:1.mkv" from being taken for a protocol. */
        size_t n = strlen(w->tmp_path) + 6;
        char *url = malloc(n);
        if (!url)
            return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        snprintf(url, n, "file:%s", w->tmp_path);
        ret = avio_open(&p->oc->pb, url, AVIO_FLAG_WRITE);
        free(url);
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "cannot create");
    }
    if ((ret = avformat_write_header(p->oc, NULL)) < 0)
        return ffio_fail_av(err, errlen, p->nb_audio_out ? RETRY_WITHOUT_AUDIO : OMCTI_ERR_FORMAT,
                           w->path, ret, "writing the header");
    p->header_written = 1;
    return 0;
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

/* ---- writing ----------------------------------------------------------- */

/* Muxes one video packet whose timestamps are in tb into p->oc's stream
 * vst, after the audio due before it. Takes the packet's data.
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
static int mux_video_packet(VideoWriter *w, FFWriter *p, AVStream *vst, AVRational tb,
                            AVPacket *pkt, int64_t *last_dts, char *err, size_t errlen)
{
    const int64_t ts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
    if (ts != AV_NOPTS_VALUE) {
        int ret = copy_audio_until(w, p, av_rescale_q(ts, tb, AV_TIME_BASE_Q), err, errlen);
        if (ret < 0) {
            av_packet_unref(pkt);
            return ret;
        }
    }
    av_packet_rescale_ts(pkt, tb, vst->time_base);
    if (last_dts && pkt->dts != AV_NOPTS_VALUE) {
        const int step = !(p->oc->oformat->flags & AVFMT_TS_NONSTRICT);
        if (*last_dts != AV_NOPTS_VALUE && pkt->dts < *last_dts + step)
            pkt->dts = *last_dts + step;
        if (pkt->pts != AV_NOPTS_VALUE && pkt->dts > pkt->pts) {
            av_packet_unref(pkt);
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the pieces' decode times "
                             "cannot be continued (reorder delays too different)", w->path);
        }
        *last_dts = pkt->dts;
    }
    pkt->stream_index = vst->index;
    pkt->pos = -1;
    int ret = av_interleaved_write_frame(p->oc, pkt);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "writing");
    return 0;
}

/* Sends f (NULL: flush) and muxes every packet that comes out. */
static int encode(VideoWriter *w, FFWriter *p, AVFrame *f, char *err, size_t errlen)
{
    int ret = avcodec_send_frame(p->enc, f);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "encoding");
    for (;;) {
        ret = avcodec_receive_packet(p->enc, p->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "encoding");
        if (p->pkt->duration <= 0)
            p->pkt->duration = 1;   /* one picture: 1/fps */
        if ((ret = mux_video_packet(w, p, p->vst, p->enc->time_base, p->pkt, NULL, err,
                                    errlen)) < 0)
            return ret;
    }
}

static int ff_write(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen)
{
    FFWriter *p = w->priv;
    if (p->done)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': write after finish", w->path);
    if (pic->width != p->width || pic->height != p->height)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': picture is %dx%d, the stream is %dx%d", w->path, pic->width,
                         pic->height, p->width, p->height);
    AVFrame *f = p->frame;
    f->buf[0] = av_buffer_pool_get(p->pool);
    if (!f->buf[0])
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    int ret = av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, p->enc->pix_fmt,
                                   FFALIGN(p->width, 64), p->height, 64);
    if (ret < 0) {
        av_frame_unref(f);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, w->path, ret, "picture layout");
    }
    f->extended_data = f->data;
    f->format = p->enc->pix_fmt;
    f->width = p->width;
    f->height = p->height;
    f->color_range = p->enc->color_range;
    f->color_primaries = p->enc->color_primaries;
    f->color_trc = p->enc->color_trc;
    f->colorspace = p->enc->colorspace;
    f->chroma_location = p->enc->chroma_sample_location;
    f->sample_aspect_ratio = p->enc->sample_aspect_ratio;
    f->pts = p->next_pts++;

    const uint8_t *src[4] = { pic->data[0], pic->data[1], pic->data[2], NULL };
    int sls[4] = { (int)pic->stride[0], (int)pic->stride[1], (int)pic->stride[2], 0 };
    if (p->sws) {
        ret = sws_scale(p->sws, src, sls, 0, p->height, f->data, f->linesize);
        if (ret < 0) {
            av_frame_unref(f);
            return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, w->path, ret, "converting");
        }
    } else {
        av_image_copy(f->data, f->linesize, src, sls, AV_PIX_FMT_YUV420P, p->width,
                      p->height);
    }
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
    int64_t end = av_rescale_q(p->next_pts, av_inv_q(p->fps), AV_TIME_BASE_Q);
    if ((ret = copy_audio_until(w, p, end, err, errlen)) < 0)
        return ret;
    if ((ret = av_write_trailer(p->oc)) < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, ret, "writing the trailer");
    if (p->oc->pb && !(p->oc->oformat->flags & AVFMT_NOFILE)) {
        avio_flush(p->oc->pb);
        int perr = p->oc->pb->error;
        ret = avio_closep(&p->oc->pb);
        if (perr < 0 || ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, w->path, perr < 0 ? perr : ret,
                               "writing");
    }
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
    AVRational fps;
    if (info->fps.num <= 0 || info->fps.den <= 0 ||
        !av_reduce(&fps.num, &fps.den, info->fps.num, info->fps.den, INT_MAX))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': the frame rate %lld/%lld cannot be stored exactly", w->path,
                         (long long)info->fps.num, (long long)info->fps.den);

    const AVOutputFormat *of = av_guess_format(NULL, w->path, NULL);
    if (!of)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': unknown container for this file name (use .mkv, .mp4, .mov, "
                         ".avi, .webm or .y4m)", w->path);
    if (of->video_codec == AV_CODEC_ID_NONE)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': the %s format holds no video", w->path, of->name);
    /* image2 writes one file per picture (or fails on a plain name), which
     * the temporary-file-and-rename scheme cannot carry. */
    if ((of->flags & AVFMT_NOFILE) || !strncmp(of->name, "image2", 6))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': %s is an image format, not a video container (use .mkv, .mp4, "
                         ".mov, .avi, .webm or .y4m)", w->path, of->name);

    FFWriter *p = calloc(1, sizeof *p);
    if (!p)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    p->width = info->width;
    p->height = info->height;
    p->fps = fps;
    p->quiet = opt->quiet;
    const char *srcname = opt->src_pix_fmt && *opt->src_pix_fmt ? opt->src_pix_fmt
                                                                : info->pix_fmt;
    enum AVPixelFormat want = srcname[0] ? av_get_pix_fmt(srcname) : AV_PIX_FMT_NONE;
    p->in_fmt = ffio_working_format(want);

    EncChoice c;
    int ret;
    if ((ret = choose_encoder(w, of, opt, &c, err, errlen)) < 0)
        goto fail;
    if (!(p->pkt = av_packet_alloc()) || !(p->frame = av_frame_alloc())) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((ret = open_encoder(w, p, of, &c, opt, want, err, errlen)) < 0)
        goto fail;
    if (opt->audio_from && *opt->audio_from &&
        (ret = open_audio_input(w, p, opt->audio_from, err, errlen)) < 0)
        goto fail;

    ret = open_output(w, p, of, 1, err, errlen);
    if (ret == RETRY_WITHOUT_AUDIO) {
        /* The muxer refused the audio (a codec it cannot store that
         * avformat_query_codec could not rule out): video only. */
        char name[1024];
        if (!p->quiet)
            fprintf(stderr, "omcti: notice: '%s': the %s container refused the audio; "
                    "audio dropped (use .mkv to keep it)\n",
                    io_printable(w->path, name, sizeof name), of->name);
        close_output(p);
        ret = open_output(w, p, of, 0, err, errlen);
        if (ret == RETRY_WITHOUT_AUDIO)   /* cannot happen: no audio now */
            ret = OMCTI_ERR_FORMAT;
    }
    if (ret < 0)
        goto fail;

    w->priv = p;
    w->ops = &ff_writer_ops;
    return 0;
fail:
    ff_writer_free(p);
    return ret;
}

/* ---- join (omcti join, docs/scale.md) ---------------------------------- */

typedef struct JoinPiece {
    AVFormatContext *fmt;
    int stream;
} JoinPiece;

static int join_open_piece(JoinPiece *jp, const char *path, char *err, size_t errlen)
{
    char *url = ffio_local_url(path);
    int ret = avformat_open_input(&jp->fmt, url ? url : path, NULL, NULL);
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
    for (unsigned i = 0; i < jp->fmt->nb_streams; i++)
        if ((int)i != jp->stream)
            jp->fmt->streams[i]->discard = AVDISCARD_ALL;
    return 0;
}

static AVRational join_fps(const AVStream *st)
{
    AVRational q = ffio_snap_fps(st->avg_frame_rate);
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
    if (x->codec_id != y->codec_id) what = "codec";
    else if (x->width != y->width || x->height != y->height) what = "picture size";
    else if (x->format != y->format) what = "pixel format";
    else if (av_cmp_q(join_fps(a), join_fps(b))) what = "frame rate";
    else if (x->extradata_size != y->extradata_size ||
             (x->extradata_size && memcmp(x->extradata, y->extradata, x->extradata_size)))
        what = "encoder settings";
    if (what)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' cannot follow '%s': the %s "
                         "differs (pieces must come from one omcti --segment run)", pb, pa, what);
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
static int join_flush_held(VideoWriter *aw, FFWriter *audio, AVStream *vst, AVRational ftb,
                           AVPacket **held, int *nheld, int64_t next_dts, int64_t *last_dts,
                           char *err, size_t errlen)
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
            ret = mux_video_packet(aw, audio, vst, ftb, held[h], last_dts, err, errlen);
        }
        av_packet_free(&held[h]);
    }
    *nheld = 0;
    return ret;
}

int ff_join(const char *out, const char *tmp, const char *const *pieces, int n,
            const char *audio_from, int quiet, int64_t *frames_out, char *err, size_t errlen)
{
    ffio_quiet_libav();
    JoinPiece first = { 0 }, cur = { 0 };
    AVFormatContext *oc = NULL;
    FFWriter audio;                   /* only its audio fields are used */
    VideoWriter aw;                   /* for copy_audio_until's messages */
    AVPacket *pkt = av_packet_alloc();
    AVPacket *held[JOIN_HELD];
    int nheld = 0, ret = 0, header = 0;
    int64_t total = 0, last_dts = AV_NOPTS_VALUE;
    memset(&audio, 0, sizeof audio);
    memset(&aw, 0, sizeof aw);
    aw.path = (char *)out;
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
    if (avformat_query_codec(of, ist0->codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0) {
        ret = set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the %s container cannot hold %s "
                        "video", out, of->name, avcodec_get_name(ist0->codecpar->codec_id));
        goto done;
    }
    if ((ret = avformat_alloc_output_context2(&oc, of, NULL, tmp)) < 0) {
        ret = ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, out, ret, "creating the muxer");
        goto done;
    }
    AVStream *vst = avformat_new_stream(oc, NULL);
    if (!vst || avcodec_parameters_copy(vst->codecpar, ist0->codecpar) < 0) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto done;
    }
    vst->codecpar->codec_tag = 0;
    vst->time_base = ftb;
    vst->avg_frame_rate = vst->r_frame_rate = fps;
    vst->sample_aspect_ratio = ist0->sample_aspect_ratio;
    audio.oc = oc;
    if (audio_from && *audio_from) {
        if ((ret = open_audio_input(&aw, &audio, audio_from, err, errlen)) < 0) goto done;
        for (unsigned i = 0; i < audio.ain->nb_streams; i++) {
            AVStream *is = audio.ain->streams[i];
            audio.amap[i] = -1;
            if (is->codecpar->codec_type != AVMEDIA_TYPE_AUDIO)
                continue;
            if (avformat_query_codec(of, is->codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0) {
                char name[1024];
                if (!quiet)
                    fprintf(stderr, "omcti: notice: '%s': the %s container cannot hold %s "
                            "audio; audio stream %u dropped (use .mkv to keep it)\n",
                            io_printable(out, name, sizeof name),
                            of->name, avcodec_get_name(is->codecpar->codec_id), i);
                continue;
            }
            AVStream *os = avformat_new_stream(oc, NULL);
            if (!os || avcodec_parameters_copy(os->codecpar, is->codecpar) < 0) {
                ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
                goto done;
            }
            os->codecpar->codec_tag = 0;
            os->time_base = is->time_base;
            os->disposition = is->disposition;
            av_dict_copy(&os->metadata, is->metadata, 0);
            audio.amap[i] = os->index;
            audio.nb_audio_out++;
        }
    }
    {
        size_t ul = strlen(tmp) + 6;
        char *url = malloc(ul);
        if (!url) {
            ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
            goto done;
        }
        snprintf(url, ul, "file:%s", tmp);
        ret = avio_open(&oc->pb, url, AVIO_FLAG_WRITE);
        free(url);
        if (ret < 0) {
            ret = ffio_fail_av(err, errlen, OMCTI_ERR_IO, out, ret, "cannot create");
            goto done;
        }
    }
    if ((ret = avformat_write_header(oc, NULL)) < 0) {
        ret = ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, out, ret, "writing the header");
        goto done;
    }
    header = 1;

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
            if (nheld && (ret = join_flush_held(&aw, &audio, vst, ftb, held, &nheld, pkt->dts,
                                                &last_dts, err, errlen)) < 0) {
                av_packet_unref(pkt);
                goto done;
            }
            have_dts |= pkt->dts != AV_NOPTS_VALUE;
            if ((ret = mux_video_packet(&aw, &audio, vst, ftb, pkt, &last_dts, err, errlen)) < 0)
                goto done;
        }
        /* A piece without any decode time (intra-only streams): as they came. */
        if ((ret = join_flush_held(&aw, &audio, vst, ftb, held, &nheld, AV_NOPTS_VALUE,
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
    if ((ret = copy_audio_until(&aw, &audio, av_rescale_q(total, ftb, AV_TIME_BASE_Q), err,
                                errlen)) < 0)
        goto done;
    if ((ret = av_write_trailer(oc)) < 0) {
        ret = ffio_fail_av(err, errlen, OMCTI_ERR_IO, out, ret, "writing the trailer");
        goto done;
    }
    header = 0;
    avio_flush(oc->pb);
    int perr = oc->pb->error;
    if ((ret = avio_closep(&oc->pb)) < 0 || perr < 0) {
        ret = ffio_fail_av(err, errlen, OMCTI_ERR_IO, out, perr < 0 ? perr : ret, "writing");
        goto done;
    }
    if (frames_out) *frames_out = total;
    ret = 0;
done:
    (void)header;
    for (int h = 0; h < nheld; h++) av_packet_free(&held[h]);
    if (oc) {
        if (oc->pb) avio_closep(&oc->pb);
        avformat_free_context(oc);
    }
    avformat_close_input(&audio.ain);
    av_packet_free(&audio.apkt);
    free(audio.amap);
    av_packet_free(&pkt);
    avformat_close_input(&first.fmt);
    avformat_close_input(&cur.fmt);
    return ret;
}

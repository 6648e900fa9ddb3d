/* FFmpeg writer, the encoder: which one for the container and the options,
 * its settings, and the conversion of pictures into its pixel format.
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavutil/imgutils.h>
#include <libavutil/opt.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

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

static int choose_encoder(const char *path, const VideoInfo *info, const AVOutputFormat *of,
                          const WriterOptions *opt, EncChoice *c, char *err, size_t errlen)
{
    const char *ext = path_ext(path);
    memset(c, 0, sizeof *c);
    if (opt->codec && *opt->codec) {
        c->codec = avcodec_find_encoder_by_name(opt->codec);
        if (!c->codec)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': no encoder named '%s' in this FFmpeg", path, opt->codec);
        if (c->codec->type != AVMEDIA_TYPE_VIDEO)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': '%s' is not a video encoder", path, opt->codec);
        if (avformat_query_codec(of, c->codec->id, FF_COMPLIANCE_NORMAL) == 0)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': the %s container cannot hold %s video", path,
                             of->name, avcodec_get_name(c->codec->id));
        if (opt->lossless) {
            int ok = 0;
            for (int i = 0; lossless_codecs[i]; i++)
                ok |= !strcmp(lossless_codecs[i], c->codec->name);
            if (!ok)
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "'%s': the encoder '%s' has no lossless mode (try ffv1)",
                                 path, c->codec->name);
        }
        if (opt->crf >= 0 && !strcmp(c->codec->name, "mpeg4"))
            c->qscale = clamp_i(opt->crf, 1, 31);
        return 0;
    }
    /* x264 cannot do 4:2:0 at odd sizes (nor x265); FFV1, mpeg4, VP9 can. */
    const int odd = (info->width | info->height) & 1;
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
                             path, of->name);
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
                         path, of->name);
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

static int open_codec(FFEncoder *p, const char *path, const VideoInfo *info,
                      const AVOutputFormat *of, const EncChoice *c, const WriterOptions *opt,
                      enum AVPixelFormat want, char *err, size_t errlen)
{
    const AVCodec *codec = c->codec;
    AVCodecContext *e = p->enc = avcodec_alloc_context3(codec);
    if (!e)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    enum AVPixelFormat pf = choose_pix_fmt(codec, want, p->in_fmt);
    if (pf == AV_PIX_FMT_NONE)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the encoder '%s' takes no pixel format omcti can give it",
                         path, codec->name);
    /* x264 and x265 refuse a subsampled chroma plane of fractional size
     * with only "Generic error"; say what is wrong and what works. */
    const AVPixFmtDescriptor *pd = av_pix_fmt_desc_get(pf);
    if (pd && !strncmp(codec->name, "libx26", 6) &&
        ((p->width & ((1 << pd->log2_chroma_w) - 1)) ||
         (p->height & ((1 << pd->log2_chroma_h) - 1))))
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': %s cannot encode the odd picture size %dx%d in %s "
                         "(write .mkv with --lossless for FFV1, or crop the input to even)",
                         path, codec->name, p->width, p->height, av_get_pix_fmt_name(pf));
    e->width = p->width;
    e->height = p->height;
    e->pix_fmt = pf;
    e->time_base = av_inv_q(p->fps);
    e->framerate = p->fps;
    if (info->sar.num > 0 && info->sar.den > 0)
        av_reduce(&e->sample_aspect_ratio.num, &e->sample_aspect_ratio.den, info->sar.num,
                  info->sar.den, INT_MAX);
    e->thread_count = 0;
    /* Every picture omcti writes is a whole frame (interpolated frames
     * have no fields), so say so rather than leave players guessing. */
    e->field_order = AV_FIELD_PROGRESSIVE;
    if (of->flags & AVFMT_GLOBALHEADER)
        e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int full = ffio_is_j(p->in_fmt);
    if (is_yuv(pf))
        e->color_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    if (is_yuv(pf) && info->has_color) {
        e->color_primaries = (enum AVColorPrimaries)info->color_primaries;
        e->color_trc = (enum AVColorTransferCharacteristic)info->color_trc;
        e->colorspace = (enum AVColorSpace)info->color_space;
        e->chroma_sample_location = (enum AVChromaLocation)info->chroma_location;
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
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, what);
    }

    if (ffio_unj(pf) != AV_PIX_FMT_YUV420P) {
        p->sws = sws_getContext(p->width, p->height, p->in_fmt, p->width, p->height, pf,
                                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL,
                                NULL, NULL);
        if (!p->sws)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': cannot convert %s to %s",
                             path, av_get_pix_fmt_name(p->in_fmt), av_get_pix_fmt_name(pf));
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
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, size, "picture size");
    if (!(p->pool = av_buffer_pool_init((size_t)size + 256, NULL)))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    return 0;
}

int ffenc_open(FFEncoder *e, const char *path, const VideoInfo *info, const AVOutputFormat *of,
               const WriterOptions *opt, enum AVPixelFormat want, char *err, size_t errlen)
{
    EncChoice c;
    int ret = choose_encoder(path, info, of, opt, &c, err, errlen);
    if (ret < 0)
        return ret;
    return open_codec(e, path, info, of, &c, opt, want, err, errlen);
}

int ffenc_frame(FFEncoder *p, AVFrame *f, const OmctiPicture *pic, const char *path,
                char *err, size_t errlen)
{
    f->buf[0] = av_buffer_pool_get(p->pool);
    if (!f->buf[0])
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    int ret = av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, p->enc->pix_fmt,
                                   FFALIGN(p->width, 64), p->height, 64);
    if (ret < 0) {
        av_frame_unref(f);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "picture layout");
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

    const uint8_t *src[4] = { pic->data[0], pic->data[1], pic->data[2], NULL };
    int sls[4] = { (int)pic->stride[0], (int)pic->stride[1], (int)pic->stride[2], 0 };
    if (p->sws) {
        ret = sws_scale(p->sws, src, sls, 0, p->height, f->data, f->linesize);
        if (ret < 0) {
            av_frame_unref(f);
            return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "converting");
        }
    } else {
        av_image_copy(f->data, f->linesize, src, sls, AV_PIX_FMT_YUV420P, p->width,
                      p->height);
    }
    return 0;
}

void ffenc_close(FFEncoder *e)
{
    avcodec_free_context(&e->enc);
    av_buffer_pool_uninit(&e->pool);
    sws_freeContext(e->sws);
    e->sws = NULL;
}

/* FFmpeg writer, the encoder: which one for the container and the options,
 * its settings, and the conversion of pictures into its pixel format.
 *
 * Encoder per container (opt->codec overrides; opt->crf overrides quality):
 *   .mp4 .mov .mkv .nut .ts ... : libx264, CRF 23, preset medium (x264's
 *                                  own defaults: docs/cli.md measures CRF
 *                                  16 against them); without libx264:
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
 *
 * Pixel format: the pictures are 8-bit 4:2:0 (the working format, yuvj420p
 * for full-range sources), and that is what is written wherever the
 * encoder takes it, whatever the source was: a 10-bit or 4:2:2 source
 * written as High 10 / High 4:2:2 would only hold 8-bit 4:2:0 content in a
 * format fewer players decode. Encoders without 4:2:0 get the closest
 * format, converted with libswscale.
 *
 * Odd picture sizes: x264 and x265 cannot encode subsampled chroma of a
 * fractional size. opt->odd_size: pad (default) repeats the last column /
 * row up to the even size, crop drops it, fail refuses. The sample aspect
 * ratio is kept (the pictures' content keeps its shape; the frame gains or
 * loses one pixel). Other encoders (FFV1, VP9, mpeg4) and y4m keep the size.
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

static int choose_encoder(const char *path, const AVOutputFormat *of, const WriterOptions *opt,
                          EncChoice *c, char *err, size_t errlen)
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
        if (ffmux_refuses(of, AVMEDIA_TYPE_VIDEO, c->codec->id))
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
    const AVCodec *x264 = avcodec_find_encoder_by_name("libx264");
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

/* The encoder's pixel formats, AV_PIX_FMT_NONE-terminated (NULL: any). */
static const enum AVPixelFormat *pix_fmts_of(const AVCodec *c)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *fmts = NULL;
    if (avcodec_get_supported_config(NULL, c, AV_CODEC_CONFIG_PIX_FORMAT, 0, &fmts, NULL) < 0)
        return NULL;
    return fmts;
#else
    return c->pix_fmts;
#endif
}

static int supports_fmt(const AVCodec *c, enum AVPixelFormat f)
{
    if (f == AV_PIX_FMT_NONE)
        return 0;
    const enum AVPixelFormat *fmts = pix_fmts_of(c);
    if (!fmts)
        return 1;
    for (const enum AVPixelFormat *q = fmts; *q != AV_PIX_FMT_NONE; q++)
        if (*q == f)
            return 1;
    return 0;
}

/* What we have (8-bit 4:2:0) if the encoder takes it, else the encoder's
 * closest. yuvj formats fall back to their limited-range twin with a
 * full-range tag: the same bytes. MJPEG is full range by its standard (its
 * encoder refuses limited range unless told to be unofficial), so a
 * limited-range source goes to yuvj and is converted, as FFmpeg's CLI does. */
static enum AVPixelFormat choose_pix_fmt(const AVCodec *c, enum AVPixelFormat have)
{
    if (c->id == AV_CODEC_ID_MJPEG && !ffio_is_j(have)) {
        static const enum AVPixelFormat full[] = {AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P,
                                                  AV_PIX_FMT_YUVJ444P};
        for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
            if (supports_fmt(c, full[i]))
                return full[i];
    }
    if (supports_fmt(c, have))
        return have;
    if (supports_fmt(c, ffio_unj(have)))
        return ffio_unj(have);
    return avcodec_find_best_pix_fmt_of_list(pix_fmts_of(c), have, 0, NULL);
}

/* Repeats the last written column and row of each plane of f (pictures of
 * sw x sh in a frame of f->width x f->height): the padding of an odd size.
 * Any planar or packed format without bit-packed pixels (the encoders that
 * need it take no others). */
static void pad_edges(AVFrame *f, int sw, int sh)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    const int planes = av_pix_fmt_count_planes(f->format);
    for (int i = 0; i < planes && d; i++) {
        int step = 0, sub = 0;
        for (int c = 0; c < d->nb_components; c++)
            if (d->comp[c].plane == i) {
                step = max_i(step, d->comp[c].step);
                sub |= (c == 1 || c == 2) && !(d->flags & AV_PIX_FMT_FLAG_RGB);
            }
        const int ws = sub ? d->log2_chroma_w : 0, hs = sub ? d->log2_chroma_h : 0;
        const int pw = AV_CEIL_RSHIFT(sw, ws), fw = AV_CEIL_RSHIFT(f->width, ws);
        const int ph = AV_CEIL_RSHIFT(sh, hs), fh = AV_CEIL_RSHIFT(f->height, hs);
        const ptrdiff_t ls = f->linesize[i];
        uint8_t *row = f->data[i];
        for (int y = 0; y < ph && pw < fw; y++, row += ls)
            for (int x = pw; x < fw; x++)
                memcpy(row + (ptrdiff_t)x * step, row + (ptrdiff_t)(pw - 1) * step, step);
        for (int y = ph; y < fh; y++)
            memcpy(f->data[i] + y * ls, f->data[i] + (ph - 1) * ls, (size_t)fw * step);
    }
}

static const char *edge_name(int odd_w, int odd_h)
{
    return odd_w && odd_h ? "column and row" : odd_w ? "column" : "row";
}

/* The size the encoder gets: the pictures' own, or for x264 / x265 with
 * subsampled chroma of a fractional size, the even size that
 * opt->odd_size asks for (with a notice), or an error. */
static int coded_size(const FFEncoder *p, const char *path, const AVCodec *codec,
                      enum AVPixelFormat pf, const WriterOptions *opt, int *cw, int *ch,
                      char *err, size_t errlen)
{
    const AVPixFmtDescriptor *pd = av_pix_fmt_desc_get(pf);
    *cw = p->width;
    *ch = p->height;
    if (!pd || strncmp(codec->name, "libx26", 6))
        return 0;
    const int odd_w = p->width & ((1 << pd->log2_chroma_w) - 1);
    const int odd_h = p->height & ((1 << pd->log2_chroma_h) - 1);
    if (!odd_w && !odd_h)
        return 0;
    const int mw = (1 << pd->log2_chroma_w) - 1, mh = (1 << pd->log2_chroma_h) - 1;
    char name[1024];
    if (opt->odd_size == ODD_SIZE_CROP && p->width > mw && p->height > mh) {
        *cw = p->width & ~mw;
        *ch = p->height & ~mh;
    } else if (opt->odd_size == ODD_SIZE_PAD) {
        *cw = (p->width + mw) & ~mw;
        *ch = (p->height + mh) & ~mh;
    } else {
        /* x264 and x265 would refuse it with only "Generic error". A
         * picture one pixel wide or high cannot be cropped. */
        const int can_crop = p->width > mw && p->height > mh;
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': %s cannot encode the odd picture size %dx%d in %s "
                         "(--odd-size pad%s makes it even; .mkv with --lossless keeps it, "
                         "as FFV1)", path, codec->name, p->width, p->height,
                         av_get_pix_fmt_name(pf), can_crop ? " or --odd-size crop" : "");
    }
    if (!opt->quiet)
        fprintf(stderr, "omcti: note: '%s': %s needs an even size in %s: %dx%d is %s to "
                "%dx%d (the last %s %s; --odd-size %s or fail chooses otherwise)\n",
                io_printable(path, name, sizeof name), codec->name, av_get_pix_fmt_name(pf),
                p->width, p->height, *cw > p->width || *ch > p->height ? "padded" : "cropped",
                *cw, *ch, edge_name(odd_w, odd_h),
                opt->odd_size == ODD_SIZE_PAD ? "repeated" : "removed",
                opt->odd_size == ODD_SIZE_PAD ? "crop" : "pad");
    return 0;
}

static int is_yuv(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && !(d->flags & AV_PIX_FMT_FLAG_RGB) && d->nb_components >= 3;
}

/* Whether FFV1 finds a slice layout (level 3) for a w x h picture of
 * format pf: it refuses, with "Function not implemented", pictures
 * too narrow or too short for two slices a side, whose layout rules
 * depend on the chroma planes too, so it is asked, on a throwaway context. */
static int ffv1_can_slice(const AVCodec *codec, int w, int h, enum AVPixelFormat pf)
{
    AVCodecContext *t = avcodec_alloc_context3(codec);
    if (!t)
        return 0;
    t->width = w;
    t->height = h;
    t->pix_fmt = pf;
    t->time_base = (AVRational){ 1, 25 };
    t->thread_count = 1;
    AVDictionary *d = NULL;
    av_dict_set(&d, "level", "3", 0);
    const int ok = avcodec_open2(t, codec, &d) >= 0;
    av_dict_free(&d);
    avcodec_free_context(&t);
    return ok;
}

static int open_codec(FFEncoder *p, const char *path, const VideoInfo *info,
                      const AVOutputFormat *of, const EncChoice *c, const WriterOptions *opt,
                      char *err, size_t errlen)
{
    const AVCodec *codec = c->codec;
    AVCodecContext *e = p->enc = avcodec_alloc_context3(codec);
    if (!e)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    enum AVPixelFormat pf = choose_pix_fmt(codec, p->in_fmt);
    if (pf == AV_PIX_FMT_NONE)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the encoder '%s' takes no pixel format omcti can give it",
                         path, codec->name);
    int cw, ch;
    int ret = coded_size(p, path, codec, pf, opt, &cw, &ch, err, errlen);
    if (ret < 0)
        return ret;
    e->width = cw;
    e->height = ch;
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
        e->color_range = (full || ffio_is_j(pf)) ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
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
        /* x264 holds its rate-control lookahead's frames (40 at medium),
         * about 3 bytes a pixel each: 6.9 GB for an 8K UHD clip. Above 4K
         * the lookahead shrinks with the picture (10 frames at 8K UHD), so
         * that the encoder holds about what it holds for 4K. */
        const int64_t px = (int64_t)cw * ch, uhd4k = 3840 * 2160;
        if (px > uhd4k) {
            const int64_t la = 40 * uhd4k / px;
            snprintf(num, sizeof num, "%d", (int)(la < 10 ? 10 : la));
            av_dict_set(&d, "rc-lookahead", num, 0);
        }
        if (opt->lossless) {
            av_dict_set(&d, "qp", "0", 0);
        } else {
            snprintf(num, sizeof num, "%d", opt->crf >= 0 ? opt->crf : 23);
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
        /* Sliced (multithreaded) with a CRC per slice (damage is
         * detectable) where the picture can be sliced; else level 1. */
        if (ffv1_can_slice(codec, cw, ch, pf)) {
            av_dict_set(&d, "level", "3", 0);
            av_dict_set(&d, "slicecrc", "1", 0);
        }
    } else if (!strcmp(n, "dnxhd")) {
        /* DNxHD proper takes a few sizes at set bit rates, none of which
         * omcti asks for; DNxHR HQ (the resolution-independent family's
         * 8-bit 4:2:2 high-quality profile) takes any picture of 256x120 or
         * more at its own rate */
        if (cw < 256 || ch < 120)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': DNxHR takes pictures of 256x120 or more, not %dx%d "
                             "(use another --codec)", path, cw, ch);
        av_dict_set(&d, "profile", "dnxhr_hq", 0);
    } else if (c->qscale > 0) {
        e->flags |= AV_CODEC_FLAG_QSCALE;
        e->global_quality = FF_QP2LAMBDA * c->qscale;
    } else if (opt->crf >= 0 && av_opt_find(e, "crf", NULL, 0, AV_OPT_SEARCH_CHILDREN)) {
        snprintf(num, sizeof num, "%d", opt->crf);
        av_dict_set(&d, "crf", num, 0);
    }
    ret = avcodec_open2(e, codec, &d);
    av_dict_free(&d);
    if (ret < 0) {
        char what[128];
        snprintf(what, sizeof what, "cannot open the %s encoder (%dx%d %s at %d/%d fps)",
                 codec->name, cw, ch, av_get_pix_fmt_name(pf), p->fps.num,
                 p->fps.den);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, what);
    }

    /* Converted at the size both have: the picture's, cropped to the coded
     * size; padding is added after (ffenc_frame). */
    const int sw = min_i(p->width, cw), sh = min_i(p->height, ch);
    /* Converted unless the bytes are the same: 4:2:0 of the source's range
     * (a yuvj twin of a full-range source included). */
    if (ffio_unj(pf) != AV_PIX_FMT_YUV420P || (ffio_is_j(pf) && !full)) {
        p->sws = sws_getContext(sw, sh, p->in_fmt, sw, sh, pf,
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
    int size = av_image_get_buffer_size(pf, FFALIGN(cw, 64), ch + 2, 64);
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
    (void)want;   /* the source's format: written as the working format */
    int ret = choose_encoder(path, of, opt, &c, err, errlen);
    if (ret < 0)
        return ret;
    return open_codec(e, path, info, of, &c, opt, err, errlen);
}

int ffenc_frame(FFEncoder *p, AVFrame *f, const OmctiPicture *pic, const char *path,
                char *err, size_t errlen)
{
    f->buf[0] = av_buffer_pool_get(p->pool);
    if (!f->buf[0])
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    const int cw = p->enc->width, ch = p->enc->height;
    const int sw = min_i(p->width, cw), sh = min_i(p->height, ch);
    int ret = av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, p->enc->pix_fmt,
                                   FFALIGN(cw, 64), ch, 64);
    if (ret < 0) {
        av_frame_unref(f);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "picture layout");
    }
    f->extended_data = f->data;
    f->format = p->enc->pix_fmt;
    f->width = cw;
    f->height = ch;
    f->color_range = p->enc->color_range;
    f->color_primaries = p->enc->color_primaries;
    f->color_trc = p->enc->color_trc;
    f->colorspace = p->enc->colorspace;
    f->chroma_location = p->enc->chroma_sample_location;
    f->sample_aspect_ratio = p->enc->sample_aspect_ratio;

    const uint8_t *src[4] = { pic->data[0], pic->data[1], pic->data[2], NULL };
    int sls[4] = { (int)pic->stride[0], (int)pic->stride[1], (int)pic->stride[2], 0 };
    if (p->sws) {
        ret = sws_scale(p->sws, src, sls, 0, sh, f->data, f->linesize);
        if (ret < 0) {
            av_frame_unref(f);
            return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "converting");
        }
    } else {
        av_image_copy(f->data, f->linesize, src, sls, AV_PIX_FMT_YUV420P, sw, sh);
    }
    if (sw < cw || sh < ch)
        pad_edges(f, sw, sh);
    return 0;
}

void ffenc_close(FFEncoder *e)
{
    avcodec_free_context(&e->enc);
    av_buffer_pool_uninit(&e->pool);
    sws_freeContext(e->sws);
    e->sws = NULL;
}

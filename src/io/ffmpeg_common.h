/* Helpers shared by the FFmpeg reader (ffmpeg_probe.c, ffmpeg_decode.c) and
 * writer (ffmpeg_encoder.c, ffmpeg_mux.c, ...). Header-only.  */
#ifndef OMCTI_FFMPEG_COMMON_H
#define OMCTI_FFMPEG_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
#include <libavutil/rational.h>

#include "src/common.h"

/* libav prints its own diagnostics ("[h264 @ 0x...] error while decoding MB
 * ..."), which would bury the one line we report. Quieten it, but only when
 * nobody has chosen a level yet (AV_LOG_INFO is libav's default; the tools'
 * --ffmpeg-log chooses one with io_show_ffmpeg_log()). */
static inline void ffio_quiet_libav(void)
{
    if (av_log_get_level() == AV_LOG_INFO)
        av_log_set_level(AV_LOG_QUIET);
}

/* av_err2str() is a compound-literal macro that some compilers warn about;
 * this is the same thing into a caller buffer. */
static inline const char *ffio_errstr(int averr, char *buf, size_t len)
{
    if (av_strerror(averr, buf, len) < 0)
        snprintf(buf, len, "error %d", averr);
    return buf;
}

/* Writes "path: what: libav reason" into err and returns code. */
static inline int ffio_fail_av(char *err, size_t errlen, int code, const char *path,
                               int averr, const char *what)
{
    char eb[AV_ERROR_MAX_STRING_SIZE];
    return set_error(err, errlen, code, "'%s': %s: %s", path, what,
                     ffio_errstr(averr, eb, sizeof eb));
}

/* A pix_fmt name to its full-range ("yuvj") twin and back. FFmpeg 5.1 still
 * marks full-range JPEG YUV with separate, deprecated formats; the working
 * format keeps that distinction so full-range sources are not squeezed. */
static inline enum AVPixelFormat ffio_unj(enum AVPixelFormat f)
{
    switch (f) {
    case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P;
    case AV_PIX_FMT_YUVJ440P: return AV_PIX_FMT_YUV440P;
    case AV_PIX_FMT_YUVJ411P: return AV_PIX_FMT_YUV411P;
    default: return f;
    }
}

static inline int ffio_is_j(enum AVPixelFormat f)
{
    return ffio_unj(f) != f;
}

/* The working format of the pictures that travel between reader, engine and
 * writer: yuvj420p for full-range JPEG YUV sources, yuv420p otherwise. The
 * writer derives the same answer from VideoInfo.pix_fmt. */
static inline enum AVPixelFormat ffio_working_format(enum AVPixelFormat src)
{
    return ffio_is_j(src) ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P;
}

/* libavformat reads "clip:1.mp4" as the protocol "clip", and a local
 * file at "http://host/x.mkv" (the folder "http:") as a URL. Every input
 * is a local file: for a name that holds a ':', returns "file:NAME"
 * (free() it), else NULL: open the name as given. */
static inline char *ffio_local_url(const char *path)
{
    if (!strchr(path, ':'))
        return NULL;
    size_t n = strlen(path) + 6;
    char *url = malloc(n);
    if (url)
        snprintf(url, n, "file:%s", path);
    return url;
}

/* Matroska stores the picture duration in whole nanoseconds and FFmpeg
 * 5.1's demuxer turns 1e9/duration into a fraction with terms <= 30000, so
 * a 60000/1001 file reads back as 19001/317. Rates within 1 ppm of an
 * integer or an N*1000/1001 rate are taken to be that rate. */
static inline AVRational ffio_snap_fps(AVRational q)
{
    if (q.den == 1 || q.den == 1001)
        return q;
    const double v = av_q2d(q);
    const AVRational cand[2] = {
        { (int)llrint(v), 1 },
        { (int)llrint(v * 1.001) * 1000, 1001 },
    };
    for (int i = 0; i < 2; i++)
        if (cand[i].num > 0 && fabs(av_q2d(cand[i]) - v) <= 1e-6 * v)
            return cand[i];
    return q;
}

#endif

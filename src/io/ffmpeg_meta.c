/* What the output keeps of its input besides the pictures, audio and
 * subtitles (those are copied as streams, ffmpeg_audio.c): the container's
 * metadata (title, creation time, location, ...), the video stream's
 * language, title and handler, its display matrix (a phone clip's
 * rotation or mirroring: the pictures stay as stored, players turn them,
 * as `ffmpeg -i IN OUT` does), what else it says about its pictures (HDR10's mastering
 * display, a 360-degree projection) and the chapters. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <libavutil/avstring.h>
#include <libavutil/display.h>
#include <libavutil/timecode.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

/* Keys that describe the input file's own muxing, not its content. */
static int muxing_key(const char *k)
{
    static const char *const keys[] = { "encoder", "major_brand", "minor_version",
                                        "compatible_brands", "creation_tool" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!av_strcasecmp(k, keys[i]))
            return 1;
    return 0;
}

static int copy_dict(AVDictionary **dst, const AVDictionary *src, const char *const *only)
{
    const AVDictionaryEntry *e = NULL;
    while ((e = av_dict_get(src, "", e, AV_DICT_IGNORE_SUFFIX))) {
        if (muxing_key(e->key))
            continue;
        if (only) {
            int want = 0;
            for (int i = 0; only[i]; i++)
                want |= !av_strcasecmp(e->key, only[i]);
            if (!want)
                continue;
        }
        if (av_dict_set(dst, e->key, e->value, 0) < 0)
            return AVERROR(ENOMEM);
    }
    return 0;
}

/* Stream st's side data of the given type (NULL: none), and its size. */
static const uint8_t *side_data(const AVStream *st, enum AVPacketSideDataType type, size_t *size)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 102)
    const AVPacketSideData *sd = av_packet_side_data_get(
        st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data, type);
    *size = sd ? sd->size : 0;
    return sd ? sd->data : NULL;
#else
    return av_stream_get_side_data(st, type, size);
#endif
}

static int set_side_data(AVStream *st, enum AVPacketSideDataType type, const uint8_t *m,
                         size_t size)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 102)
    AVPacketSideData *sd = av_packet_side_data_new(&st->codecpar->coded_side_data,
                                                   &st->codecpar->nb_coded_side_data, type,
                                                   size, 0);
    uint8_t *data = sd ? sd->data : NULL;
#else
    uint8_t *data = av_stream_new_side_data(st, type, size);
#endif
    if (!data)
        return AVERROR(ENOMEM);
    memcpy(data, m, size);
    return 0;
}

/* Stream st's display matrix into m: 1, or 0 where it has none. Where it
 * has no side data, a 'rotate' tag (0, 90, 180 or 270) says the same, as
 * FFmpeg 4.x wrote it into Matroska (from a phone's MOV: the degrees
 * clockwise, minus av_display_rotation_get()'s) and FFmpeg 5 no longer
 * reads it: such a clip was converted as if it were upright. */
static int display_matrix(const AVStream *st, int32_t m[9])
{
    size_t size = 0;
    const uint8_t *d = side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (d && size >= 9 * sizeof *m) {
        memcpy(m, d, 9 * sizeof *m);
        return 1;
    }
    const AVDictionaryEntry *e = av_dict_get(st->metadata, "rotate", NULL, 0);
    char *end;
    const long deg = e ? strtol(e->value, &end, 10) : 0;
    if (!e || end == e->value || *end || deg <= 0 || deg >= 360 || deg % 90)
        return 0;
    av_display_rotation_set(m, (double)deg);
    return 1;
}

/* What the video stream says about its pictures that stays true of the
 * interpolated ones, as FFmpeg's CLI keeps it: HDR10's mastering display
 * and light levels, a 360-degree video's projection, stereo layout. The
 * muxers that have a place for it write it (Matroska, MP4, MOV). */
static int copy_picture_side_data(const AVStream *ist, AVStream *vst)
{
    static const enum AVPacketSideDataType types[] = {
        AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL,
        AV_PKT_DATA_SPHERICAL, AV_PKT_DATA_STEREO3D,
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        size_t size = 0;
        const uint8_t *d = side_data(ist, types[i], &size);
        int ret;
        if (d && size && (ret = set_side_data(vst, types[i], d, size)) < 0)
            return ret;
    }
    return 0;
}

/* A timecode (SMPTE hh:mm:ss:ff, the first picture's: a camera's, a MOV's
 * tmcd track) counts frames at the input's rate, the output's at its own:
 * its frames field is carried over to the output's rate (25 to 50 fps:
 * 01:02:03:04 becomes 01:02:03:08, the same moment; kept as written, the
 * 04 read 4/50 s), to the nearest frame where the rates do not divide,
 * and hh:mm:ss stay as they read. Drop-frame counting stays where the
 * output's rate has it (29.97 to 59.94 fps). A timecode that FFmpeg cannot
 * read at the input's rate is kept as it is, as FFmpeg's CLI keeps every
 * one. Above max_fps (the QuickTime family's tmcd track counts at most 255
 * frames a second: its muxer fails in the trailer, after the whole run)
 * the timecode is dropped: 1, else 0 (< 0: out of memory). */
static int rescale_timecode(AVDictionary **d, AVRational in, AVRational out, int max_fps)
{
    const AVDictionaryEntry *e = av_dict_get(*d, "timecode", NULL, 0);
    AVTimecode tc, otc;
    int hh, mm, ss, ff;
    char c;
    if (!e || out.num <= 0 || out.den <= 0)
        return 0;
    const int fps = (int)((out.num + out.den / 2) / out.den);
    if (fps > max_fps)
        return av_dict_set(d, "timecode", NULL, 0) < 0 ? AVERROR(ENOMEM) : 1;
    if (in.num <= 0 || in.den <= 0 || av_timecode_init_from_string(&tc, in, e->value, NULL) < 0 ||
        sscanf(e->value, "%d:%d:%d%c%d", &hh, &mm, &ss, &c, &ff) != 5)
        return 0;
    const int drop = (tc.flags & AV_TIMECODE_FLAG_DROPFRAME) && out.den == 1001 && fps % 30 == 0;
    int64_t f = av_rescale_rnd(ff, fps, tc.fps, AV_ROUND_NEAR_INF);
    if (f > fps - 1)
        f = fps - 1;
    char key[32], buf[AV_TIMECODE_STR_SIZE + 16];
    snprintf(buf, sizeof buf, "%02d:%02d:%02d%c%02d", hh, mm, ss, drop ? ';' : ':', (int)f);
    if (av_timecode_init_from_string(&otc, out, buf, NULL) < 0)
        return 0;
    av_strlcpy(key, e->key, sizeof key);
    return av_dict_set(d, key, buf, 0);
}

/* The display matrix is a rotation, then (where its determinant is
 * negative) a flip left to right, as FFmpeg's av_display_matrix_flip()
 * writes one; a flip after a half turn is a flip upside down. The
 * degrees are av_display_rotation_get()'s, as ffprobe shows them. */
void ffmeta_orientation(const AVStream *st, char *buf, size_t len)
{
    int32_t mat[9];
    buf[0] = '\0';
    if (!display_matrix(st, mat))
        return;
    const int mirrored = (double)mat[0] * mat[4] - (double)mat[1] * mat[3] < 0;
    if (mirrored) {   /* undo the flip: the rotation is left */
        mat[0] = -mat[0];
        mat[3] = -mat[3];
    }
    const double r = av_display_rotation_get(mat);
    int deg = isfinite(r) ? (int)lrint(r) : 0;
    if (mirrored && (deg == 180 || deg == -180)) {
        snprintf(buf, len, "flipped upside down");
        return;
    }
    if (deg && mirrored)
        snprintf(buf, len, "rotated by %d degrees and flipped left to right", deg);
    else if (deg)
        snprintf(buf, len, "rotated by %d degrees", deg);
    else if (mirrored)
        snprintf(buf, len, "flipped left to right");
}

int ffmeta_copy(const AVFormatContext *in, AVFormatContext *oc, AVStream *vst, int timed,
                int64_t offset, int quiet, const char *out_path, char *err, size_t errlen)
{
    char name[1024];
    int ret = copy_dict(&oc->metadata, in->metadata, NULL);
    /* The QuickTime family stores the matrix (tkhd); the other muxers of
     * this FFmpeg drop it. */
    const int keeps = ffmux_quicktime(oc->oformat);
    /* An iPhone's place is an 'mdta' key, which the MP4 and MOV muxers
     * write only in their metadata-tag mode: it goes where they write a
     * place, 'location' (the udta box that Apple's players read too),
     * unless the input has one (before, an iPhone clip lost its place). */
    const AVDictionaryEntry *loc =
        av_dict_get(in->metadata, "com.apple.quicktime.location.ISO6709", NULL, 0);
    if (ret >= 0 && keeps && loc && loc->value[0] &&
        !av_dict_get(in->metadata, "location", NULL, 0))
        ret = av_dict_set(&oc->metadata, "location", loc->value, 0);
    const int v = ffio_video_stream(in);
    if (ret >= 0 && v >= 0) {
        static const char *const vkeys[] = { "language", "title", "handler_name", "timecode",
                                             NULL };
        const AVStream *ist = in->streams[v];
        /* (frames a second, not fields: an interlaced stream's
         * r_frame_rate can be twice its frame rate) */
        const AVRational in_rate = ist->avg_frame_rate.num > 0 && ist->avg_frame_rate.den > 0
                                       ? ist->avg_frame_rate : ist->r_frame_rate;
        const int tc_max = keeps ? 255 : INT_MAX;
        int dropped = 0;
        ret = copy_dict(&vst->metadata, ist->metadata, vkeys);
        if (ret >= 0 && (ret = rescale_timecode(&vst->metadata, in_rate, vst->avg_frame_rate,
                                                tc_max)) > 0)
            dropped = 1;
        if (ret >= 0 && (ret = rescale_timecode(&oc->metadata, in_rate, vst->avg_frame_rate,
                                                tc_max)) > 0)
            dropped = 1;
        if (ret > 0) ret = 0;
        if (dropped && !quiet)
            fprintf(stderr, "omcti: note: '%s': the %s container's timecode track counts at most "
                    "255 frames a second; the input's timecode is not written\n",
                    io_printable(out_path, name, sizeof name), oc->oformat->name);
        /* Its user-facing flags (default, forced, ...), as the copied audio
         * keeps theirs: Matroska marks a track default only where its
         * stream says so once any stream does (the video of a clip with
         * default audio was written not default). Not what describes the
         * input's pictures (a still image, a thumbnail, a cover). */
        vst->disposition = ist->disposition &
                           (AV_DISPOSITION_DEFAULT | AV_DISPOSITION_FORCED | AV_DISPOSITION_ORIGINAL |
                            AV_DISPOSITION_DUB | AV_DISPOSITION_COMMENT |
                            AV_DISPOSITION_HEARING_IMPAIRED | AV_DISPOSITION_VISUAL_IMPAIRED);
        char shown[64];
        int32_t m[9];
        if (ret >= 0 && display_matrix(ist, m)) {
            if (keeps)
                ret = set_side_data(vst, AV_PKT_DATA_DISPLAYMATRIX, (const uint8_t *)m, sizeof m);
            else if (!quiet && (ffmeta_orientation(ist, shown, sizeof shown), shown[0]))
                fprintf(stderr, "omcti: note: '%s': the %s container cannot hold the input's "
                        "display matrix (shown %s); the pictures are written as stored "
                        "(use .mp4 or .mov to keep it)\n",
                        io_printable(out_path, name, sizeof name), oc->oformat->name, shown);
        }
        if (ret >= 0)
            ret = copy_picture_side_data(ist, vst);
    }
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, out_path, ret, "metadata");
    if (!in->nb_chapters)
        return 0;
    if (!timed) {
        if (!quiet)
            fprintf(stderr, "omcti: note: '%s': chapters are not kept in slow motion (their "
                    "times no longer match)\n", io_printable(out_path, name, sizeof name));
        return 0;
    }
    for (unsigned i = 0; i < in->nb_chapters; i++) {
        const AVChapter *c = in->chapters[i];
        const int64_t off = av_rescale_q(offset, AV_TIME_BASE_Q, c->time_base);
        if (c->end != AV_NOPTS_VALUE && c->end - off <= 0)
            continue;   /* before the first picture */
        AVChapter *o = av_mallocz(sizeof *o);
        if (!o || av_dynarray_add_nofree(&oc->chapters, (int *)&oc->nb_chapters, o) < 0) {
            av_free(o);
            return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        }
        o->id = c->id;
        o->time_base = c->time_base;
        o->start = c->start - off > 0 ? c->start - off : 0;
        o->end = c->end - off;
        if (copy_dict(&o->metadata, c->metadata, NULL) < 0)
            return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    return 0;
}

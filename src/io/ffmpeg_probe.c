/* FFmpeg reader, opening: the demuxer, the video stream, its decoder, the
 * frame rate and the VideoInfo of the first decoded picture. Decoding is
 * ffmpeg_decode.c's (the behaviour is described there). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/parseutils.h>
#include <libavutil/imgutils.h>
#include <libavutil/avstring.h>
#include <libswscale/swscale.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"


/* Demuxers whose input names other files or URLs that they open. */
static const char refused_demuxers[] =
    "concat,hls,dash,imf,image2,sdp,rtsp,rtp,sap,avisynth,vapoursynth,lavfi";

static int is_refused(const char *name)
{
    return av_match_list(name, refused_demuxers, ',') > 0;
}

int ffio_restrict_demuxers(AVFormatContext *fmt)
{
    size_t len = 1;
    void *it = NULL;
    const AVInputFormat *f;
    while ((f = av_demuxer_iterate(&it)))
        if (!is_refused(f->name))
            len += strlen(f->name) + 1;
    char *list = av_malloc(len);
    if (!list)
        return AVERROR(ENOMEM);
    list[0] = 0;
    it = NULL;
    while ((f = av_demuxer_iterate(&it)))
        if (!is_refused(f->name)) {
            if (list[0])
                av_strlcat(list, ",", len);
            av_strlcat(list, f->name, len);
        }
    av_freep(&fmt->format_whitelist);
    fmt->format_whitelist = list;
    av_freep(&fmt->protocol_whitelist);
    return (fmt->protocol_whitelist = av_strdup(FFIO_PROTOCOLS)) ? 0 : AVERROR(ENOMEM);
}

int ffio_refused_demuxer(const char *path, const char *url, char *err, size_t errlen)
{
    struct stat sb;
    AVIOContext *pb = NULL;
    const AVInputFormat *f = NULL;
    AVDictionary *opts = NULL;
    /* Probing consumes a pipe's bytes: only a regular file is probed again. */
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        av_dict_set(&opts, "protocol_whitelist", FFIO_PROTOCOLS, 0) < 0)
        return 0;
    const int opened = avio_open2(&pb, url, AVIO_FLAG_READ, NULL, &opts);
    av_dict_free(&opts);
    if (opened < 0)
        return 0;
    int ret = av_probe_input_buffer2(pb, &f, url, NULL, 0, 0);
    avio_closep(&pb);
    if (ret < 0 || !f || !is_refused(f->name))
        return 0;
    /* A photo (.jpg, .tif, .bmp) is image2's too; without a frame number
     * in its name (a sequence's %d) it is that one picture, as a .png is,
     * which its own demuxer reads ("photo [1].jpg" too: this FFmpeg reads
     * it as one picture). */
    if (!strcmp(f->name, "image2") && !io_name_has_frame_number(path))
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' has only one video frame (a "
                         "still image); at least two are needed", path);
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': %s %s file, which names other files "
                     "or URLs to read; omcti reads only self-contained video files", path,
                     strchr("aeiou", f->name[0]) ? "an" : "a", f->name);
}

/* Whether the regular file at path starts as a container FFmpeg knows, by
 * its bytes alone: FFmpeg's own probe of a short file settles for the
 * name's extension, which a text file named .mp4 has too. (Probing
 * consumes a pipe's bytes: only a regular file is read again.) */
static int starts_as_container(const char *path)
{
    enum { HEAD = 16384 };
    unsigned char head[HEAD + AVPROBE_PADDING_SIZE] = { 0 };
    struct stat sb;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const ssize_t got = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? read(fd, head, HEAD) : -1;
    close(fd);
    if (got <= 0)
        return 0;
    AVProbeData pd = { .filename = "", .buf = head, .buf_size = (int)got };
    int score = 0;
    return av_probe_input_format3(&pd, 1, &score) && score > AVPROBE_SCORE_RETRY;
}

static int valid_q(AVRational q)
{
    return q.num > 0 && q.den > 0;
}

/* The nominal rate: avg_frame_rate (exact for CFR mp4/mkv written by
 * FFmpeg), replaced by r_frame_rate when that is the same rate written
 * more cleanly (29.97 vs 30000/1001). */
static AVRational pick_fps(AVFormatContext *fmt, AVStream *st, int *vfr)
{
    AVRational avg = ffio_snap_fps(st->avg_frame_rate), rr = ffio_snap_fps(st->r_frame_rate);
    *vfr = 0;
    if (valid_q(avg) && valid_q(rr)) {
        double a = av_q2d(avg), b = av_q2d(rr);
        double rel = a > b ? (a - b) / a : (b - a) / b;
        if (rel < 0.001)
            return rr;
        /* r_frame_rate = 2 x avg is field rate of interlaced video,
         * not a variable rate. */
        if (av_cmp_q(rr, av_mul_q(avg, (AVRational){2, 1})) != 0)
            *vfr = 1;
        return avg;
    }
    if (valid_q(avg))
        return avg;
    AVRational g = av_guess_frame_rate(fmt, st, NULL);
    if (valid_q(g))
        return ffio_snap_fps(g);
    *vfr = 1;
    return (AVRational){25, 1};
}

/* A stream without an average rate (typical of variable-rate Matroska)
 * gets one from its packets: (frames - 1) / (last pts - first pts), read
 * with a demux-only pass; the caller opens the demuxer again to read from
 * the start (a seek back to the lowest timestamp landed on the last of the
 * packets that share it, or after pictures whose timestamps go back: a
 * file of ten pictures at one time read as one, pictures lost unsaid).
 * Returns 0/1 when unknown (too few packets), -1/1 on an unseekable input,
 * which cannot be read twice; *stuck is set when two or more packets all
 * have one timestamp (the rate is then FFmpeg's guess from the time base:
 * Matroska's 1 ms gives 1000 fps). */
static AVRational scan_average_fps(AVFormatContext *fmt, int stream, int *stuck)
{
    AVRational none = { 0, 1 };
    if (!fmt->pb || !(fmt->pb->seekable & AVIO_SEEKABLE_NORMAL))
        return (AVRational){ -1, 1 };
    AVPacket *pkt = av_packet_alloc();
    if (!pkt) return none;
    const AVStream *st = fmt->streams[stream];
    int64_t n = 0, lo = INT64_MAX, hi = INT64_MIN;
    while (av_read_frame(fmt, pkt) >= 0) {
        if (pkt->stream_index == stream && pkt->pts != AV_NOPTS_VALUE) {
            n++;
            lo = FFMIN(lo, pkt->pts);
            hi = FFMAX(hi, pkt->pts);
        }
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    *stuck = n >= 2 && hi <= lo;
    if (n < 2 || hi <= lo)
        return none;
    AVRational span = av_mul_q((AVRational){ (int)FFMIN(hi - lo, INT_MAX), 1 }, st->time_base);
    AVRational fps = av_div_q((AVRational){ (int)FFMIN(n - 1, INT_MAX), 1 }, span);
    av_reduce(&fps.num, &fps.den, fps.num, fps.den, 1000000);
    return ffio_snap_fps(fps);
}

/* Of several video streams (a camera's main and proxy, a file with two
 * angles), FFmpeg's CLI converts the one of the most pixels, a default
 * stream counting 5,000,000 more (ties: the first), as users compare with
 * `ffmpeg -i IN OUT`; av_find_best_stream() ranks by packets read and bit
 * rate, and took a small proxy over the main picture. Cover art of a music
 * file is a video stream of one picture, never taken: alone it is not a
 * video. */
int ffio_video_stream(const AVFormatContext *fmt)
{
    int best = -1;
    int64_t best_score = -1;
    for (unsigned i = 0; i < fmt->nb_streams; i++) {
        const AVStream *st = fmt->streams[i];
        if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO ||
            (st->disposition & AV_DISPOSITION_ATTACHED_PIC))
            continue;
        const int64_t score = (int64_t)st->codecpar->width * st->codecpar->height +
                              5000000 * !!(st->disposition & AV_DISPOSITION_DEFAULT);
        if (score > best_score) {
            best_score = score;
            best = (int)i;
        }
    }
    return best;
}

int ffio_video_stream_count(const AVFormatContext *fmt)
{
    int n = 0;
    for (unsigned i = 0; i < fmt->nb_streams; i++)
        n += fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO &&
             !(fmt->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC);
    return n;
}

static char field_order_char(enum AVFieldOrder fo)
{
    switch (fo) {
    case AV_FIELD_PROGRESSIVE: return 'p';
    case AV_FIELD_TT: return 't';
    case AV_FIELD_BB: return 'b';
    case AV_FIELD_TB: return 'b';   /* top coded first, bottom shown first */
    case AV_FIELD_BT: return 't';
    default: return '?';
    }
}

/* The demuxer of path, its stream information read. */
static int open_demuxer(FFReader *p, const char *path, const IoCancel *cancel, char *err,
                        size_t errlen)
{
    char *url = ffio_local_url(path);
    if (!(p->fmt = ffdec_alloc_input(cancel)) || ffio_restrict_demuxers(p->fmt) < 0) {
        free(url);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    }
    int ret = avformat_open_input(&p->fmt, url ? url : path, NULL, NULL);
    if (ret < 0 && ret != AVERROR_EXIT && ffio_refused_demuxer(path, url ? url : path, err,
                                                               errlen) < 0) {
        free(url);
        return OMCTI_ERR_FORMAT;
    }
    /* The data ended or broke off inside the header of a container FFmpeg
     * recognises (a file cut short, a download not finished; Matroska's
     * reader says EIO at the end of a regular file): the user can act on
     * that, not on the bare "cannot open: Input/output error". A file no
     * demuxer recognises (text, random bytes) is "not a video" below. */
    const int cut_header = (ret == AVERROR_EOF || ret == AVERROR(EIO) ||
                            ret == AVERROR_INVALIDDATA) && starts_as_container(path);
    free(url);
    if (ret == AVERROR_EXIT)
        return set_error(err, errlen, OMCTI_ERR_INTERRUPT, "interrupted");
    if (ret < 0) {
        char eb[AV_ERROR_MAX_STRING_SIZE];
        if (cut_header)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': cannot read its container "
                             "header (%s): a truncated or damaged file?", path,
                             ffio_errstr(ret, eb, sizeof eb));
        if (ret == AVERROR(ENOENT) || ret == AVERROR(EACCES) || ret == AVERROR(EISDIR) ||
            ret == AVERROR(EIO))
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, path, ret, "cannot open");
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret,
                            "not a video file FFmpeg can read");
    }
    /* The tty demuxer turns any *.txt into "ANSI art" video. */
    if (!strcmp(p->fmt->iformat->name, "tty"))
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a video (a text file)", path);
    if ((ret = avformat_find_stream_info(p->fmt, NULL)) < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret,
                            "cannot read the stream information (corrupt or truncated file?)");
    return 0;
}

void ffio_keep_only_stream(AVFormatContext *fmt, int stream)
{
    for (unsigned i = 0; i < fmt->nb_streams; i++)
        if ((int)i != stream)
            fmt->streams[i]->discard = AVDISCARD_ALL;
}

/* A Matroska DURATION tag, "H:MM:SS.nnnnnnnnn" with any number of hour
 * digits, into microseconds: av_parse_time() takes at most 4 hour digits,
 * and a stream that starts at 1e9 s (-output_ts_offset, a capture's clock)
 * has a tag of 277777 hours, the track's end time. Returns 1 on success. */
static int parse_tag_duration(const char *v, int64_t *us)
{
    int64_t h = 0;
    int nd = 0;
    for (; *v >= '0' && *v <= '9'; v++, nd++) {
        h = h * 10 + (*v - '0');
        if (h > 1000000000)   /* 1e9 hours, 3.6e18 us: int64 holds the sum below */
            return 0;
    }
    if (!nd || v[0] != ':' || v[1] < '0' || v[1] > '5' || v[2] < '0' || v[2] > '9' ||
        v[3] != ':' || v[4] < '0' || v[4] > '5' || v[5] < '0' || v[5] > '9')
        return 0;
    int64_t t = ((h * 60 + (v[1] - '0') * 10 + (v[2] - '0')) * 60 + (v[4] - '0') * 10 +
                 (v[5] - '0')) * 1000000;
    v += 6;
    if (*v == '.') {
        int64_t scale = 100000;
        for (v++; *v >= '0' && *v <= '9'; v++, scale /= 10)
            t += (*v - '0') * scale;   /* digits past the microsecond add 0 */
    }
    if (*v)
        return 0;
    *us = t;
    return 1;
}

int64_t ffio_stream_duration(const AVFormatContext *fmt, const AVStream *st)
{
    if (st->duration > 0)
        return st->duration;
    /* What is left of the file from the stream's start: a file whose sound
     * starts before its first picture (a phone clip, a cut made on the
     * audio) is that much longer than its video. FFmpeg's Matroska muxer
     * writes the DURATION tag as the track's end time, not its length
     * (mkvmerge's statistics tags, marked _STATISTICS_WRITING_APP, are
     * lengths), and either is taken at most up to the file's end. */
    int64_t left = 0;
    const int64_t start = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    if (fmt->duration > 0) {
        const int64_t fstart = fmt->start_time != AV_NOPTS_VALUE ? fmt->start_time : 0;
        const int64_t end = av_rescale_q(fstart + fmt->duration, AV_TIME_BASE_Q, st->time_base);
        left = end > start ? end - start : 0;
    }
    const AVDictionaryEntry *e = av_dict_get(st->metadata, "DURATION", NULL, 0);
    int64_t us;
    if (e && (av_parse_time(&us, e->value, 1) == 0 || parse_tag_duration(e->value, &us)) &&
        us > 0) {
        int64_t tag = av_rescale_q(us, AV_TIME_BASE_Q, st->time_base);
        if (!av_dict_get(st->metadata, "_STATISTICS_WRITING_APP", NULL, 0) && start > 0 &&
            tag > start)
            tag -= start;
        return left > 0 && tag > left ? left : tag;
    }
    return left;
}

int ffdec_reopen_demuxer(FFReader *p, const char *path, const IoCancel *cancel, char *err,
                         size_t errlen)
{
    AVFormatContext *old = p->fmt;
    p->fmt = NULL;
    int ret = open_demuxer(p, path, cancel, err, errlen);
    if (ret == 0 && ((unsigned)p->stream >= p->fmt->nb_streams ||
                     p->fmt->streams[p->stream]->codecpar->codec_id !=
                         old->streams[p->stream]->codecpar->codec_id))
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the video stream is not found "
                        "again", path);
    if (ret < 0) {
        avformat_close_input(&p->fmt);
        p->fmt = old;
        return ret;
    }
    avformat_close_input(&old);
    ffio_keep_only_stream(p->fmt, p->stream);
    return 0;
}

/* The video stream and its decoder; the other streams are discarded. */
static int open_decoder(FFReader *p, const char *path, int has_audio, char *err, size_t errlen)
{
    p->stream = ffio_video_stream(p->fmt);
    int cover = 0;   /* a music file's cover art: a still picture, no video */
    for (unsigned i = 0; i < p->fmt->nb_streams; i++)
        cover |= !!(p->fmt->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC);
    if (p->stream < 0)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': no video stream%s", path,
                         has_audio && cover ? " (the file holds audio and its cover art only)"
                         : has_audio        ? " (the file holds audio only)"
                         : cover            ? " (the file holds a cover picture only)" : "");
    AVStream *st = p->fmt->streams[p->stream];
    AVCodecParameters *par = st->codecpar;
    if (par->codec_id == AV_CODEC_ID_ANSI)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a video (a text file)", path);

    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec)
        return ffio_no_decoder(p->fmt, p->stream, path, err, errlen);
    if (!(p->dec = avcodec_alloc_context3(codec)) || !(p->pkt = av_packet_alloc()) ||
        !(p->frame = av_frame_alloc()))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    int ret = avcodec_parameters_to_context(p->dec, par);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "bad codec parameters");
    p->dec->pkt_timebase = st->time_base;
    p->dec->thread_count = 0;   /* one per core */
    p->dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if ((ret = avcodec_open2(p->dec, codec, NULL)) < 0)
        return ffio_decoder_refuses(p->fmt, p->stream, codec, ret, path, err, errlen);
    /* Other streams are not decoded; telling the demuxer saves work. */
    ffio_keep_only_stream(p->fmt, p->stream);
    return 0;
}

/* The VideoInfo from the stream and the first decoded picture (p->frame).
 * scanned: the rate measured from the packets, or 0/1; stuck: no rate
 * stated and the timestamps do not advance (scan_average_fps()). */
static void fill_info(VideoInfo *vi, const FFReader *p, AVRational scanned, int stuck,
                      int has_audio)
{
    const AVStream *st = p->fmt->streams[p->stream];
    const AVCodecParameters *par = st->codecpar;
    const enum AVPixelFormat src = p->frame->format;
    memset(vi, 0, sizeof *vi);
    vi->width = p->width;
    vi->height = p->height;
    AVRational fps;
    if (valid_q(scanned)) {
        /* No declared average: use the measured one, and say the input
         * may be variable (its timestamps are not kept). */
        fps = scanned;
        vi->vfr = av_cmp_q(ffio_snap_fps(st->r_frame_rate), scanned) != 0;
    } else {
        fps = pick_fps(p->fmt, (AVStream *)st, &vi->vfr);
    }
    /* Constant rates are whole, 1000/1001 or simple fractions (12.5); an
     * average such as 24239/894 comes from timestamps that vary. */
    if (fps.den > 10 && fps.den != 1001)
        vi->vfr = 1;
    vi->fps.num = fps.num;
    vi->fps.den = fps.den;
    vi->untimed = stuck;
    if (valid_q(st->time_base)) {
        vi->time_base.num = st->time_base.num;
        vi->time_base.den = st->time_base.den;
    }
    AVRational sar = av_guess_sample_aspect_ratio(p->fmt, (AVStream *)st, p->frame);
    if (valid_q(sar)) {
        av_reduce(&sar.num, &sar.den, sar.num, sar.den, INT_MAX);
        vi->sar.num = sar.num;
        vi->sar.den = sar.den;
    } else {
        vi->sar.num = 0;
        vi->sar.den = 1;
    }
    const int64_t dur = ffio_stream_duration(p->fmt, st);
    if (st->nb_frames > 0)
        vi->nb_frames = st->nb_frames;
    else if (dur > 0)
        vi->nb_frames = av_rescale_q(dur, st->time_base, av_inv_q(fps));
    else
        vi->nb_frames = -1;
    vi->has_audio = has_audio;
    const char *name = av_get_pix_fmt_name(src);
    snprintf(vi->pix_fmt, sizeof vi->pix_fmt, "%s", name ? name : "unknown");
    vi->converted = src != p->work_fmt;
    vi->interlace = field_order_char(par->field_order);
    /* Where the stream states no field order (DV, MPEG-4 Part 2: such a
     * file had no note) or one that FFmpeg's CLI writes for either order
     * ("tb", bottom first by its name, for pictures that say top first,
     * into Matroska and MOV), the first picture's flags say, as FFmpeg's
     * deinterlacers read them (bwdif's and yadif's parity "auto"). A
     * stated top or bottom first stays (an H.264 picture without timing
     * SEI is guessed top first by the decoder); so does the stream's word
     * where the picture is progressive (soft telecine). */
#ifdef AV_FRAME_FLAG_INTERLACED
    const int il = !!(p->frame->flags & AV_FRAME_FLAG_INTERLACED);
    const int tff = !!(p->frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST);
#else
    const int il = p->frame->interlaced_frame, tff = p->frame->top_field_first;
#endif
    if (il && par->field_order != AV_FIELD_TT && par->field_order != AV_FIELD_BB)
        vi->interlace = tff ? 't' : 'b';
    /* the pictures' range is the working format's (yuvj420p: full) */
    vi->color_range = ffio_is_j(p->work_fmt) ? AVCOL_RANGE_JPEG
                      : par->color_range == AVCOL_RANGE_MPEG ? AVCOL_RANGE_MPEG : 0;
    ffmeta_orientation(st, vi->orientation, sizeof vi->orientation);
    vi->video_streams = ffio_video_stream_count(p->fmt);
    vi->stream = p->stream;
    /* A YUV source's matrix, primaries and transfer survive the conversion
     * to 8-bit 4:2:0 (swscale keeps the matrix between YUV formats); an RGB
     * source's do not, and it is converted with swscale's default matrix. */
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(src);
    if (desc && desc->nb_components >= 3 &&
        !(desc->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) &&
        strncmp(desc->name, "xyz", 3) && par->color_space != AVCOL_SPC_RGB) {
        vi->has_color = 1;
        vi->color_primaries = par->color_primaries;
        vi->color_trc = par->color_trc;
        vi->color_space = par->color_space;
        vi->chroma_location = desc->log2_chroma_w == 1 && desc->log2_chroma_h == 1
                                  ? par->chroma_location
                                  : AVCHROMA_LOC_UNSPECIFIED;
    }
}

/* A file that fails before its first picture, of an MP4/MOV that ends
 * inside one of its boxes, is named as that: what FFmpeg says then ("no
 * video stream", an unknown codec, invalid data) is only a consequence. */
static int name_cut_short(const char *path, int ret, char *err, size_t errlen)
{
    IoCutShort cut;
    if (ret != OMCTI_ERR_FORMAT || !io_mp4_cut_short(path, &cut))
        return ret;
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the file ends at byte %llu, inside "
                     "its '%s' box, which runs to byte %llu: a truncated file (a download or "
                     "copy not finished?)", path, (unsigned long long)cut.file_size, cut.type,
                     (unsigned long long)cut.box_end);
}

int ff_reader_open(VideoReader **out, const char *path, const IoCancel *cancel, char *err,
                   size_t errlen)
{
    *out = NULL;
    ffio_quiet_libav();

    /* libavformat says "Invalid data" for a directory and gives no hint for
     * an empty file; name those causes ourselves. URLs are left to it. */
    struct stat sb;
    if (!strstr(path, "://") && stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return set_error(err, errlen, OMCTI_ERR_IO, "'%s': is a directory, not a video file", path);
        if (S_ISREG(sb.st_mode) && sb.st_size == 0)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the file is empty", path);
    }

    FFReader *p = calloc(1, sizeof *p);
    if (!p)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    int ret = open_demuxer(p, path, cancel, err, errlen);
    if (ret < 0) {
        ffdec_free(p);
        return name_cut_short(path, ret, err, errlen);
    }
    int has_audio = 0;
    for (unsigned i = 0; i < p->fmt->nb_streams; i++)
        has_audio |= p->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;
    if ((ret = open_decoder(p, path, has_audio, err, errlen)) < 0) {
        ffdec_free(p);
        return name_cut_short(path, ret, err, errlen);
    }

    AVRational scanned = { 0, 1 };
    int stuck = 0;
    if (!valid_q(p->fmt->streams[p->stream]->avg_frame_rate)) {
        scanned = scan_average_fps(p->fmt, p->stream, &stuck);
        if (scanned.num < 0)
            scanned = (AVRational){ 0, 1 };   /* a pipe: read once, as it comes */
        else if ((ret = ffdec_reopen_demuxer(p, path, cancel, err, errlen)) < 0) {
            ffdec_free(p);
            return ret;
        }
    }

    VideoReader *r = video_reader_new(&ff_reader_ops, path);
    if (!r) {
        ffdec_free(p);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    }
    r->priv = p;
    r->cancel = cancel;

    /* A stated size beyond the limit is refused before a picture of it is
     * decoded (a tiny file can state any size). */
    const AVCodecParameters *par0 = p->fmt->streams[p->stream]->codecpar;
    if ((ret = io_check_size(path, par0->width, par0->height, err, errlen)) < 0) {
        video_reader_close(&r);
        return ret;
    }
    /* Decode the first picture now: its size and format are the truth
     * (stream headers can be absent or wrong), and a file with nothing
     * decodable fails here rather than after the output was created. */
    ret = ffdec_next(r, p, err, errlen);
    if (ret <= 0) {
        if (ret == 0) {
            const AVStream *st = p->fmt->streams[p->stream];
            const double stated = (double)ffio_stream_duration(p->fmt, st) *
                                  av_q2d(st->time_base);
            if (p->bad || p->truncated)
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT,
                                "'%s': no picture could be decoded (%lld of %lld packets bad%s)",
                                path, (long long)p->bad, (long long)p->packets,
                                p->truncated ? ", file truncated" : "");
            else if (!p->packets && stated > 0)
                /* the header is whole, the data ends inside the first
                 * picture (or before it) */
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the file ends before its "
                                "first picture (its header says %.2f s of video): a truncated "
                                "or damaged file?", path, stated);
            else
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT,
                                "'%s': the video stream holds no picture", path);
        }
        video_reader_close(&r);
        return name_cut_short(path, ret, err, errlen);
    }
    p->pending = 1;
    p->width = p->frame->width;
    p->height = p->frame->height;
    if (p->width <= 0 || p->height <= 0) {
        video_reader_close(&r);
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the video has no picture size", path);
    }
    if ((ret = io_check_size(path, p->width, p->height, err, errlen)) < 0) {
        video_reader_close(&r);
        return ret;
    }
    p->work_fmt = ffio_working_format(p->frame->format);
    fill_info(&r->info, p, scanned, stuck, has_audio);
    *out = r;
    return 0;
}

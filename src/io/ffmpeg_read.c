/* FFmpeg front end: libavformat demux + libavcodec decode of the best video
 * stream, libswscale to the working format (8-bit 4:2:0).
 *
 * Behaviour decided here:
 *  - Pictures come out as yuv420p, or yuvj420p for full-range JPEG-YUV
 *    sources (kept as is so the range survives the round trip). yuv420p and
 *    yuvj420p sources are handed out without a copy; everything else is
 *    converted into one reader-owned buffer allocated on first use.
 *  - open() decodes the first picture before it returns, so a file that
 *    opens but holds nothing decodable fails at once with a clear line, and
 *    the VideoInfo describes what the decoder really produces.
 *  - Still images (png, jpg, ...) are accepted as a one-picture video at the
 *    demuxer's nominal rate (25 fps); the caller decides what one picture means.
 *  - Text files: refused ("not a video"). Audio-only files: refused.
 *  - Corrupt streams: a packet the decoder rejects, and a picture the decoder
 *    itself flags as corrupt (broken references), is skipped and counted
 *    (broken pictures before the first clean one, as in a clip cut mid-GOP,
 *    are skipped without counting against the limit);
 *    pictures with concealed errors are passed on and counted. At the end a
 *    one-line warning on stderr gives the counts. Reading fails when more
 *    than 5% of the packets (and at least 10) are bad, so damaged input never
 *    turns into garbage silently. A file cut short (truncated) ends at the
 *    last decodable picture, with the warning.
 *  - A resolution change mid-stream is refused with a line naming the
 *    picture and both sizes: rescaling would silently change the geometry
 *    of every later picture, and motion search needs one size.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

#include "src/common.h"
#include "src/io/ffmpeg_common.h"
#include "src/io/io_internal.h"

#define BAD_MIN      10   /* bad packets always tolerated                 */
#define BAD_PERCENT   5   /* beyond BAD_MIN, the share that makes us fail */
#define MAX_IN_A_ROW 1000 /* decode errors in a row without progress      */

typedef struct FFReader {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;            /* last decoded picture; referenced while its
                                  planes are handed out                   */
    int stream;
    int width, height;         /* fixed for the whole stream              */
    enum AVPixelFormat work_fmt;

    struct SwsContext *sws;    /* only for sources not in the work format */
    uint8_t *conv[4];          /* converted picture, allocated once       */
    int conv_linesize[4];

    int pending;               /* frame holds a picture decoded by open() */
    int eof_sent;              /* NULL packet sent: the decoder drains    */
    int ended;                 /* read() returned 0                       */
    int truncated;             /* the demuxer hit the end mid-packet      */
    int lost_sync;             /* the demuxer gave up before the end      */
    int64_t stop_pos, size;    /* where reading stopped, the file's size  */
    int64_t end_ts;            /* end of the latest packet (stream tb)    */
    int64_t max_gap;           /* longest time between two pictures       */
    int64_t packets;           /* packets of our stream sent              */
    int64_t bad;               /* rejected packets + dropped pictures     */
    int64_t concealed;         /* pictures passed on with concealment     */
    int64_t leading;           /* broken pictures before the first clean one */
    int got_one;               /* a clean picture was decoded             */
    int64_t pictures;          /* pictures returned                       */
    int in_a_row;              /* consecutive decode errors               */
} FFReader;

/* libavformat's I/O retries a read that a signal interrupted (EINTR)
 * unless this says stop: Ctrl-C ends a read blocked on a pipe or FIFO. */
static int ff_interrupt(void *opaque)
{
    const IoCancel *cancel = opaque;
    return cancel && cancel->requested && cancel->requested();
}

/* A demuxer context that stops when cancel is requested, or NULL. */
static AVFormatContext *ff_alloc_input(const IoCancel *cancel)
{
    AVFormatContext *fmt = avformat_alloc_context();
    if (fmt && cancel)
        fmt->interrupt_callback = (AVIOInterruptCB){ ff_interrupt, (void *)cancel };
    return fmt;
}

static void ff_reader_free(FFReader *p)
{
    if (!p)
        return;
    sws_freeContext(p->sws);
    av_freep(&p->conv[0]);
    av_frame_free(&p->frame);
    av_packet_free(&p->pkt);
    avcodec_free_context(&p->dec);
    avformat_close_input(&p->fmt);
    free(p);
}

static void ff_close(VideoReader *r)
{
    ff_reader_free(r->priv);
    r->priv = NULL;
}

/* One bad packet or picture more; fails when the share is too large. */
static int count_bad(const VideoReader *r, FFReader *p, char *err, size_t errlen)
{
    p->bad++;
    if (p->bad > BAD_MIN && p->bad * 100 > (p->packets > 0 ? p->packets : 1) * BAD_PERCENT)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': corrupt video stream: %lld of %lld packets could not be decoded",
                         r->path, (long long)p->bad, (long long)p->packets);
    return 0;
}

static void warn_damage(const VideoReader *r, const FFReader *p)
{
    /* Demuxers report a file cut short as a plain end of file; the length
     * in the header tells. 1% of slack: the guess comes from a duration. */
    const int64_t expect = r->info.nb_frames;
    int short_end = expect > 0 && p->pictures < expect - 2 - expect / 100;
    if (!p->bad && !p->concealed && !p->truncated && !short_end && !p->leading && !p->lost_sync)
        return;
    /* Truncated: the data stops before the time the header gives. Data
     * that goes on to the end while pictures are missing, or a demuxer
     * that gave up far from the end, is damage inside the file. */
    const AVStream *st = p->fmt->streams[p->stream];
    const int64_t dur = st->duration > 0 ? st->duration
                      : p->fmt->duration > 0 ? av_rescale_q(p->fmt->duration, AV_TIME_BASE_Q,
                                                            st->time_base) : 0;
    const int64_t start = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    const AVRational frame = { (int)r->info.fps.den, (int)r->info.fps.num };   /* 1/fps */
    const int64_t slack = frame.num > 0 && frame.den > 0
                              ? av_rescale_q(3, frame, st->time_base) : 0;   /* 3 frames */
    const int reached_end = dur > 0 && p->end_ts - start >= dur - slack;
    /* Fewer pictures than the nominal rate promises, all the way to the
     * end and without a hole: a variable frame rate, not damage. */
    if (short_end && reached_end && !p->truncated && p->max_gap <= 4 * slack / 3)
        short_end = 0;
    if (!p->bad && !p->concealed && !p->truncated && !short_end && !p->leading && !p->lost_sync)
        return;
    char name[1024];
    fprintf(stderr, "omcti: warning: '%s':", io_printable(r->path, name, sizeof name));
    if (p->lost_sync && p->size > 0 && p->stop_pos < p->size - 65536)
        fprintf(stderr, " the file is damaged at about byte %lld of %lld, the rest could not "
                "be read;", (long long)p->stop_pos, (long long)p->size);
    else if (short_end && reached_end && !p->truncated)
        fprintf(stderr, " the file is damaged inside (pictures are missing, its end is there);");
    else if (p->truncated || short_end || p->lost_sync)
        fprintf(stderr, " the file ends early (truncated?);");
    if (p->bad)
        fprintf(stderr, " %lld of %lld packets could not be decoded and were skipped;",
                (long long)p->bad, (long long)p->packets);
    if (p->leading)
        fprintf(stderr, " %lld pictures before the first key frame were skipped;",
                (long long)p->leading);
    if (p->concealed)
        fprintf(stderr, " %lld pictures had decoding errors concealed;", (long long)p->concealed);
    fprintf(stderr, " %lld pictures read", (long long)p->pictures);
    if (expect > 0)
        fprintf(stderr, " of about %lld", (long long)expect);
    fputc('\n', stderr);
}

/* Decodes the next picture into p->frame: 1, 0 at the end, < 0 on error. */
static int decode_next(const VideoReader *r, FFReader *p, char *err, size_t errlen)
{
    for (;;) {
        int ret = avcodec_receive_frame(p->dec, p->frame);
        if (ret == 0) {
            p->in_a_row = 0;
            if (p->frame->flags & AV_FRAME_FLAG_CORRUPT) {
                /* Decoded from missing references: grey or smeared
                 * blocks. Interpolating from it would spread the damage
                 * over the in-between pictures, so skip it. Before the
                 * first clean picture this is a clip cut mid-GOP (stream
                 * copied from a longer one): normal, and not counted
                 * against the corruption limit. */
                av_frame_unref(p->frame);
                if (!p->got_one) {
                    p->leading++;
                    continue;
                }
                if ((ret = count_bad(r, p, err, errlen)) < 0)
                    return ret;
                continue;
            }
            if (p->frame->decode_error_flags)
                p->concealed++;
            p->got_one = 1;
            return 1;
        }
        if (ret == AVERROR_EOF)
            return 0;
        if (ret != AVERROR(EAGAIN)) {
            if (ret == AVERROR(ENOMEM))
                return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, r->path, ret, "decoding");
            /* With frame threads a packet's decode error surfaces here. */
            if (++p->in_a_row > MAX_IN_A_ROW)
                return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, r->path, ret,
                                    "corrupt video stream");
            if ((ret = count_bad(r, p, err, errlen)) < 0)
                return ret;
            continue;
        }
        if (p->eof_sent)   /* a draining decoder never asks for more */
            return 0;

        ret = av_read_frame(p->fmt, p->pkt);
        if (ret == AVERROR(EAGAIN))
            continue;
        if (ret < 0) {
            if (ret != AVERROR_EOF) {
                /* An error at the end of the file is a truncated file:
                 * keep what was decoded. Elsewhere it is a read error. */
                if (p->fmt->pb && (avio_feof(p->fmt->pb) || p->fmt->pb->eof_reached))
                    p->truncated = 1;
                else if (ret == AVERROR_INVALIDDATA)
                    p->lost_sync = 1;   /* damage the demuxer cannot pass */
                else
                    return ffio_fail_av(err, errlen, OMCTI_ERR_IO, r->path, ret, "read error");
            }
            if (p->fmt->pb) {
                p->stop_pos = avio_tell(p->fmt->pb);
                p->size = avio_size(p->fmt->pb);
            }
            ret = avcodec_send_packet(p->dec, NULL);
            if (ret < 0 && ret != AVERROR_EOF)
                return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, r->path, ret, "decoding");
            p->eof_sent = 1;
            continue;
        }
        if (p->pkt->stream_index != p->stream) {
            av_packet_unref(p->pkt);
            continue;
        }
        if (p->pkt->flags & AV_PKT_FLAG_CORRUPT)
            p->truncated |= p->fmt->pb && avio_feof(p->fmt->pb);
        if (p->pkt->pts != AV_NOPTS_VALUE)
            p->end_ts = FFMAX(p->end_ts, p->pkt->pts + FFMAX(p->pkt->duration, 0));
        p->packets++;
        ret = avcodec_send_packet(p->dec, p->pkt);
        av_packet_unref(p->pkt);
        if (ret < 0) {
            if (ret == AVERROR(ENOMEM))
                return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, r->path, ret, "decoding");
            /* EAGAIN cannot happen (we only send after receive asked for
             * input); anything else is a packet the decoder rejected. */
            if ((ret = count_bad(r, p, err, errlen)) < 0)
                return ret;
        }
    }
}

static int ff_read(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen)
{
    FFReader *p = r->priv;
    if (p->ended)
        return 0;
    if (p->pending) {
        p->pending = 0;
    } else {
        int ret = decode_next(r, p, err, errlen);
        if (ret < 0)
            return ret;
        if (ret == 0) {
            p->ended = 1;
            warn_damage(r, p);
            return 0;
        }
    }

    AVFrame *f = p->frame;
    if (f->width != p->width || f->height != p->height)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the picture size changes mid-stream from %dx%d to %dx%d at picture %lld; "
                         "not supported (scale the input to one size first)",
                         r->path, p->width, p->height, f->width, f->height,
                         (long long)p->pictures);

    if (f->format == p->work_fmt) {
        for (int i = 0; i < 3; i++) {
            pic->data[i] = f->data[i];
            pic->stride[i] = f->linesize[i];
        }
    } else {
        /* Cached: rebuilt only if the source format changes mid-stream. */
        p->sws = sws_getCachedContext(p->sws, p->width, p->height, f->format,
                                      p->width, p->height, p->work_fmt,
                                      SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                                      NULL, NULL, NULL);
        if (!p->sws)
            return set_error(err, errlen, OMCTI_ERR_FORMAT,
                             "'%s': cannot convert pixel format %s to %s", r->path,
                             av_get_pix_fmt_name(f->format) ? av_get_pix_fmt_name(f->format) : "?",
                             av_get_pix_fmt_name(p->work_fmt));
        if (!p->conv[0]) {
            int ret = av_image_alloc(p->conv, p->conv_linesize, p->width, p->height,
                                     p->work_fmt, 64);
            if (ret < 0)
                return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, r->path, ret,
                                    "allocating a picture");
        }
        int ret = sws_scale(p->sws, (const uint8_t *const *)f->data, f->linesize, 0,
                            p->height, p->conv, p->conv_linesize);
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, r->path, ret,
                                "converting the picture");
        for (int i = 0; i < 3; i++) {
            pic->data[i] = p->conv[i];
            pic->stride[i] = p->conv_linesize[i];
        }
    }
    pic->width = p->width;
    pic->height = p->height;
    const int64_t prev = p->pictures ? r->pts : VIDEO_NO_PTS;
    r->pts = f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp
           : f->pts != AV_NOPTS_VALUE ? f->pts : VIDEO_NO_PTS;
    if (prev != VIDEO_NO_PTS && r->pts != VIDEO_NO_PTS && r->pts - prev > p->max_gap)
        p->max_gap = r->pts - prev;
    p->pictures++;
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* A demux-only pass over a second demuxer of the same file: every packet of
 * the video stream is a picture, in decode order; sorted, their timestamps
 * give frame k's. No decoding, so it reads at the speed of the disk. */
static int ff_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen)
{
    FFReader *p = r->priv;
    AVFormatContext *fmt = NULL;
    if (!p->fmt->pb || !(p->fmt->pb->seekable & AVIO_SEEKABLE_NORMAL))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': cannot index a stream that is not seekable", r->path);
    char *url = ffio_local_url(r->path);
    int ret = (fmt = ff_alloc_input(r->cancel)) ? 0 : AVERROR(ENOMEM);
    if (ret == 0)
        ret = avformat_open_input(&fmt, url ? url : r->path, p->fmt->iformat, NULL);
    free(url);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, r->path, ret, "cannot open");
    AVPacket *pkt = av_packet_alloc();
    int64_t cap = 1024, n = 0;
    int have_pts = 1;
    ix->kind = FRAME_INDEX_PTS;
    ix->stream = p->stream;
    ix->key = malloc(sizeof *ix->key * (size_t)cap);
    if (!pkt || !ix->key) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((unsigned)p->stream >= fmt->nb_streams) {
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the video stream is not found "
                        "again", r->path);
        goto done;
    }
    for (unsigned i = 0; i < fmt->nb_streams; i++)
        if ((int)i != p->stream)
            fmt->streams[i]->discard = AVDISCARD_ALL;
    for (;;) {
        ret = av_read_frame(fmt, pkt);
        if (ret == AVERROR(EAGAIN)) continue;
        if (ret < 0) break;
        if (pkt->stream_index == p->stream && !(pkt->flags & AV_PKT_FLAG_DISCARD)) {
            if (n == cap) {
                int64_t *k2 = realloc(ix->key, sizeof *k2 * (size_t)(cap *= 2));
                if (!k2) {
                    av_packet_unref(pkt);
                    ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
                    goto done;
                }
                ix->key = k2;
            }
            if (pkt->pts == AV_NOPTS_VALUE) have_pts = 0;
            ix->key[n++] = pkt->pts;
        }
        av_packet_unref(pkt);
    }
    if (ret != AVERROR_EOF && !(fmt->pb && avio_feof(fmt->pb))) {
        ret = ffio_fail_av(err, errlen, OMCTI_ERR_IO, r->path, ret, "read error while counting "
                           "frames");
        goto done;
    }
    ix->count = n;
    if (have_pts) {
        qsort(ix->key, (size_t)n, sizeof *ix->key, cmp_i64);
        for (int64_t k = 1; k < n; k++)
            if (ix->key[k] == ix->key[k - 1]) have_pts = 0;   /* not a usable key */
    }
    if (!have_pts) {
        free(ix->key);
        ix->key = NULL;
    }
    ret = 0;
done:
    av_packet_free(&pkt);
    avformat_close_input(&fmt);
    return ret;
}

static int64_t frame_ts(const AVFrame *f)
{
    return f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : f->pts;
}

/* Drops pictures until the next one has timestamp ts; it becomes pending.
 * 1: found, 0: the first picture was already past ts (seek too late), < 0. */
static int ff_skip_to(VideoReader *r, FFReader *p, int64_t ts, char *err, size_t errlen)
{
    for (int first = 1;; first = 0) {
        int ret = decode_next(r, p, err, errlen);
        if (ret < 0) return ret;
        if (ret == 0)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the stream ended before the "
                             "picture at timestamp %lld (seek failed)", r->path, (long long)ts);
        const int64_t t = frame_ts(p->frame);
        if (t == AV_NOPTS_VALUE)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': a decoded picture has no "
                             "timestamp; cannot seek exactly", r->path);
        if (t == ts) {
            p->pending = 1;
            return 1;
        }
        if (t > ts && first)
            return 0;
        if (t > ts) {
            /* The picture at ts did not decode (damage): start at the next
             * one, as the whole run, which skips it too, goes on there. */
            p->pending = 1;
            return 1;
        }
        av_frame_unref(p->frame);
    }
}

static void ff_reset_decoder(FFReader *p)
{
    avcodec_flush_buffers(p->dec);
    av_frame_unref(p->frame);
    p->pending = p->eof_sent = p->ended = p->got_one = 0;
    p->in_a_row = 0;
}

static int ff_seek(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err, size_t errlen)
{
    FFReader *p = r->priv;
    if (ix->kind != FRAME_INDEX_PTS || ix->stream != p->stream)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the frame index was made for "
                         "another stream", r->path);
    if (p->pictures != 0 || !p->pending)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': seek after reading", r->path);
    if (frame == 0)
        return 0;
    if (!ix->key) {
        /* No timestamps: decode from the start and drop frame pictures. */
        OmctiPicture pic;
        for (int64_t k = 0; k < frame; k++) {
            int ret = ff_read(r, &pic, err, errlen);
            if (ret < 0) return ret;
            if (ret == 0)
                return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the file ended at frame "
                                 "%lld, before frame %lld", r->path, (long long)k,
                                 (long long)frame);
        }
        return 0;
    }
    const int64_t ts = ix->key[frame];
    /* The key frame at or before ts; decoding forward from it reaches ts.
     * Should the demuxer land after ts (a sparse or wrong index), start
     * again from the first picture. */
    for (int attempt = 0; attempt < 2; attempt++) {
        const int64_t target = attempt ? ix->key[0] : ts;
        int ret = av_seek_frame(p->fmt, p->stream, target, AVSEEK_FLAG_BACKWARD);
        if (ret < 0 && attempt)
            ret = avformat_seek_file(p->fmt, p->stream, INT64_MIN, ix->key[0], ix->key[0], 0);
        if (ret < 0)
            return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, r->path, ret, "cannot seek");
        ff_reset_decoder(p);
        if ((ret = ff_skip_to(r, p, ts, err, errlen)) < 0) return ret;
        if (ret == 1) {
            p->pictures = frame;   /* for the end-of-file check */
            return 0;
        }
    }
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': cannot seek to frame %lld "
                     "(timestamp %lld)", r->path, (long long)frame, (long long)ts);
}

static const VideoReaderOps ff_reader_ops = {
    .read = ff_read,
    .close = ff_close,
    .index = ff_index,
    .seek = ff_seek,
};

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
 * with a demux-only pass and a seek back to the start. Returns 0/1 when
 * unknown (unseekable input or too few packets). */
static AVRational scan_average_fps(AVFormatContext *fmt, int stream)
{
    AVRational none = { 0, 1 };
    if (!fmt->pb || !(fmt->pb->seekable & AVIO_SEEKABLE_NORMAL))
        return none;
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
    if (av_seek_frame(fmt, stream, lo == INT64_MAX ? 0 : lo, AVSEEK_FLAG_BACKWARD) < 0 &&
        av_seek_frame(fmt, -1, 0, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_BYTE) < 0)
        return (AVRational){ -1, 1 };   /* could not rewind: the caller must reopen */
    if (n < 2 || hi <= lo)
        return none;
    AVRational span = av_mul_q((AVRational){ (int)FFMIN(hi - lo, INT_MAX), 1 }, st->time_base);
    AVRational fps = av_div_q((AVRational){ (int)FFMIN(n - 1, INT_MAX), 1 }, span);
    av_reduce(&fps.num, &fps.den, fps.num, fps.den, 1000000);
    return ffio_snap_fps(fps);
}

static int find_video_stream(AVFormatContext *fmt)
{
    int best = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (best >= 0 && !(fmt->streams[best]->disposition & AV_DISPOSITION_ATTACHED_PIC))
        return best;
    /* Cover art of a music file is a video stream of one picture; a real
     * video stream wins over it, and cover art alone is not a video. */
    for (unsigned i = 0; i < fmt->nb_streams; i++) {
        AVStream *st = fmt->streams[i];
        if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO &&
            !(st->disposition & AV_DISPOSITION_ATTACHED_PIC))
            return (int)i;
    }
    return -1;
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
    int ret;

    char *url = ffio_local_url(path);
    if (!(p->fmt = ff_alloc_input(cancel))) {
        free(url);
        free(p);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    }
    ret = avformat_open_input(&p->fmt, url ? url : path, NULL, NULL);
    free(url);
    if (ret == AVERROR_EXIT) {
        ff_reader_free(p);
        return set_error(err, errlen, OMCTI_ERR_INTERRUPT, "interrupted");
    }
    if (ret < 0) {
        ff_reader_free(p);
        if (ret == AVERROR(ENOENT) || ret == AVERROR(EACCES) || ret == AVERROR(EISDIR) ||
            ret == AVERROR(EIO))
            return ffio_fail_av(err, errlen, OMCTI_ERR_IO, path, ret, "cannot open");
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret,
                            "not a video file FFmpeg can read");
    }
    /* The tty demuxer turns any *.txt into "ANSI art" video. */
    if (!strcmp(p->fmt->iformat->name, "tty")) {
        ff_reader_free(p);
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a video (a text file)", path);
    }
    if ((ret = avformat_find_stream_info(p->fmt, NULL)) < 0) {
        ff_reader_free(p);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret,
                            "cannot read the stream information (corrupt or truncated file?)");
    }

    int has_audio = 0;
    for (unsigned i = 0; i < p->fmt->nb_streams; i++)
        has_audio |= p->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;

    p->stream = find_video_stream(p->fmt);
    if (p->stream < 0) {
        ff_reader_free(p);
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': no video stream%s", path,
                         has_audio ? " (the file holds audio only)" : "");
    }
    AVStream *st = p->fmt->streams[p->stream];
    AVCodecParameters *par = st->codecpar;
    if (par->codec_id == AV_CODEC_ID_ANSI) {
        ff_reader_free(p);
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a video (a text file)", path);
    }

    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec) {
        /* par belongs to p->fmt: name the codec before freeing it. */
        if (par->codec_id == AV_CODEC_ID_NONE)
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': no decoder for the video "
                            "codec (the file names a codec FFmpeg does not know)", path);
        else
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': no decoder for the video "
                            "codec '%s'", path, avcodec_get_name(par->codec_id));
        ff_reader_free(p);
        return ret;
    }
    if (!(p->dec = avcodec_alloc_context3(codec)) || !(p->pkt = av_packet_alloc()) ||
        !(p->frame = av_frame_alloc())) {
        ff_reader_free(p);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    }
    if ((ret = avcodec_parameters_to_context(p->dec, par)) < 0) {
        ff_reader_free(p);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "bad codec parameters");
    }
    p->dec->pkt_timebase = st->time_base;
    p->dec->thread_count = 0;   /* one per core */
    p->dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if ((ret = avcodec_open2(p->dec, codec, NULL)) < 0) {
        ff_reader_free(p);
        return ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, path, ret, "cannot open the decoder");
    }
    /* Other streams are not decoded; telling the demuxer saves work. */
    for (unsigned i = 0; i < p->fmt->nb_streams; i++)
        if ((int)i != p->stream)
            p->fmt->streams[i]->discard = AVDISCARD_ALL;

    AVRational scanned = { 0, 1 };
    if (!valid_q(st->avg_frame_rate)) {
        scanned = scan_average_fps(p->fmt, p->stream);
        if (scanned.num < 0) {
            ff_reader_free(p);
            return set_error(err, errlen, OMCTI_ERR_FORMAT,
                             "'%s': cannot seek back after measuring the frame rate", path);
        }
    }

    VideoReader *r = video_reader_new(&ff_reader_ops, path);
    if (!r) {
        ff_reader_free(p);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    }
    r->priv = p;
    r->cancel = cancel;

    /* Decode the first picture now: its size and format are the truth
     * (stream headers can be absent or wrong), and a file with nothing
     * decodable fails here rather than after the output was created. */
    ret = decode_next(r, p, err, errlen);
    if (ret <= 0) {
        if (ret == 0) {
            if (p->bad || p->truncated)
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT,
                                "'%s': no picture could be decoded (%lld of %lld packets bad%s)",
                                path, (long long)p->bad, (long long)p->packets,
                                p->truncated ? ", file truncated" : "");
            else
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT,
                                "'%s': the video stream holds no picture", path);
        }
        video_reader_close(&r);
        return ret;
    }
    p->pending = 1;
    p->width = p->frame->width;
    p->height = p->frame->height;
    if (p->width <= 0 || p->height <= 0) {
        video_reader_close(&r);
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the video has no picture size", path);
    }
    enum AVPixelFormat src = p->frame->format;
    p->work_fmt = ffio_working_format(src);

    VideoInfo *vi = &r->info;
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
        fps = pick_fps(p->fmt, st, &vi->vfr);
    }
    /* Constant rates are whole, 1000/1001 or simple fractions (12.5); an
     * average such as 24239/894 comes from timestamps that vary. */
    if (fps.den > 10 && fps.den != 1001)
        vi->vfr = 1;
    vi->fps.num = fps.num;
    vi->fps.den = fps.den;
    if (valid_q(st->time_base)) {
        vi->time_base.num = st->time_base.num;
        vi->time_base.den = st->time_base.den;
    }
    AVRational sar = av_guess_sample_aspect_ratio(p->fmt, st, p->frame);
    if (valid_q(sar)) {
        av_reduce(&sar.num, &sar.den, sar.num, sar.den, INT_MAX);
        vi->sar.num = sar.num;
        vi->sar.den = sar.den;
    } else {
        vi->sar.num = 0;
        vi->sar.den = 1;
    }
    if (st->nb_frames > 0)
        vi->nb_frames = st->nb_frames;
    else if (st->duration > 0)
        vi->nb_frames = av_rescale_q(st->duration, st->time_base, av_inv_q(fps));
    else if (p->fmt->duration > 0)
        vi->nb_frames = av_rescale_q(p->fmt->duration, AV_TIME_BASE_Q, av_inv_q(fps));
    else
        vi->nb_frames = -1;
    vi->has_audio = has_audio;
    const char *name = av_get_pix_fmt_name(src);
    snprintf(vi->pix_fmt, sizeof vi->pix_fmt, "%s", name ? name : "unknown");
    vi->converted = src != p->work_fmt;
    vi->interlace = field_order_char(par->field_order);
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

    *out = r;
    return 0;
}

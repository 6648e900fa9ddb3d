/* FFmpeg reader, decoding: packets to pictures in the working format,
 * damage counted, index and seek for --segment. The file is opened and
 * probed by ffmpeg_probe.c. Behaviour decided by the two halves:
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
#include "src/io/ffmpeg_internal.h"

#define BAD_MIN      10   /* bad packets always tolerated                 */
#define BAD_PERCENT   5   /* beyond BAD_MIN, the share that makes us fail */
#define MAX_IN_A_ROW 1000 /* decode errors in a row without progress      */

int ffio_interrupt(void *opaque)
{
    const IoCancel *cancel = opaque;
    return cancel && cancel->requested && cancel->requested();
}

AVFormatContext *ffdec_alloc_input(const IoCancel *cancel)
{
    AVFormatContext *fmt = avformat_alloc_context();
    if (fmt && cancel)
        fmt->interrupt_callback = (AVIOInterruptCB){ ffio_interrupt, (void *)cancel };
    return fmt;
}

void ffdec_free(FFReader *p)
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
    ffdec_free(r->priv);
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

/* How the file ended, once read() met its end (VIDEO_END_*). */
static int end_kind(const VideoReader *r, const FFReader *p)
{
    /* Demuxers report a file cut short as a plain end of file; the length
     * in the header tells. 1% of slack: the guess comes from a duration. */
    const int64_t expect = r->info.nb_frames;
    int short_end = expect > 0 && p->pictures < expect - 2 - expect / 100;
    if (!p->truncated && !short_end && !p->lost_sync)
        return VIDEO_END_INTACT;
    /* Truncated: the data stops before the time the header gives. Data
     * that goes on to the end while pictures are missing, or a demuxer
     * that gave up far from the end, is damage inside the file. */
    const AVStream *st = p->fmt->streams[p->stream];
    const int64_t dur = ffio_stream_duration(p->fmt, st);
    const int64_t start = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    const AVRational frame = { (int)r->info.fps.den, (int)r->info.fps.num };   /* 1/fps */
    const int64_t slack = frame.num > 0 && frame.den > 0
                              ? av_rescale_q(3, frame, st->time_base) : 0;   /* 3 frames */
    const int reached_end = dur > 0 && p->end_ts - start >= dur - slack;
    /* Fewer pictures than the nominal rate promises, all the way to the
     * end and without a hole: a variable frame rate, not damage. */
    if (short_end && reached_end && !p->truncated && p->max_gap <= 4 * slack / 3)
        short_end = 0;
    if (p->lost_sync && p->size > 0 && p->stop_pos < p->size - 65536)
        return VIDEO_END_LOST_SYNC;
    if (short_end && reached_end && !p->truncated)
        return VIDEO_END_DAMAGED_INSIDE;
    if (p->truncated || short_end || p->lost_sync)
        return VIDEO_END_EARLY;
    return VIDEO_END_INTACT;
}

static void ff_damage(const VideoReader *r, VideoDamage *d)
{
    const FFReader *p = r->priv;
    d->bad = p->bad;
    d->packets = p->packets;
    d->concealed = p->concealed;
    d->leading = p->leading;
    d->pictures = p->pictures;
    d->expect = r->info.nb_frames;
    d->end = p->ended ? p->end_kind : VIDEO_END_INTACT;
    d->stop_pos = p->stop_pos;
    d->size = p->size;
}

int ffdec_next(const VideoReader *r, FFReader *p, char *err, size_t errlen)
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
            /* With frame threads, a packet's decode error can surface
             * here (the last packet of a file cut inside a picture): a bad
             * packet like any other, the decoder still drains. */
            ret = avcodec_send_packet(p->dec, NULL);
            p->eof_sent = 1;
            if (ret == AVERROR(ENOMEM))
                return ffio_fail_av(err, errlen, OMCTI_ERR_NOMEM, r->path, ret, "decoding");
            if (ret < 0 && ret != AVERROR_EOF && (ret = count_bad(r, p, err, errlen)) < 0)
                return ret;
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
        if (!p->pictures && !p->got_one && !(p->pkt->flags & AV_PKT_FLAG_DISCARD)) {
            p->unstamped |= p->pkt->pts == AV_NOPTS_VALUE;
            if (p->pkt->pts != AV_NOPTS_VALUE &&
                (!p->have_first_min || p->pkt->pts < p->first_min)) {
                p->first_min = p->pkt->pts;
                p->have_first_min = 1;
            }
        }
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
        int ret = ffdec_next(r, p, err, errlen);
        if (ret < 0)
            return ret;
        if (ret == 0) {
            p->ended = 1;
            p->end_kind = end_kind(r, p);
            if (!r->defer_damage) {
                VideoDamage d;
                ff_damage(r, &d);
                video_damage_warn(r->path, &d);
            }
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
    if (!p->pictures && !p->seeked && r->pts != VIDEO_NO_PTS) {
        r->origin = p->have_first_min && p->first_min < r->pts ? p->first_min : r->pts;
        r->audio_origin = p->have_first_min && !p->unstamped ? r->origin : VIDEO_NO_PTS;
    }
    p->pictures++;
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* One demux-only pass over a second demuxer of the same file: the
 * presentation timestamps of the video stream's packets (not those marked
 * discard) into ix->key, in decode order. *stamped: every packet had one;
 * *key_stamped: the first key frame had one. With AVFMT_FLAG_GENPTS, libavformat
 * gives a packet without one the decode time of the picture shown there
 * (the next reference picture's, in MPEG). */
static int index_pass(VideoReader *r, FFReader *p, FrameIndex *ix, int genpts, int *stamped,
                      int *key_stamped, int64_t *skipped, char *err, size_t errlen)
{
    AVFormatContext *fmt = NULL;
    char *url = ffio_local_url(r->path);
    int ret = (fmt = ffdec_alloc_input(r->cancel)) ? 0 : AVERROR(ENOMEM);
    if (ret == 0 && !(fmt->protocol_whitelist = av_strdup(FFIO_PROTOCOLS))) {
        avformat_free_context(fmt);
        fmt = NULL;
        ret = AVERROR(ENOMEM);
    }
    if (ret == 0) {
        if (genpts) fmt->flags |= AVFMT_FLAG_GENPTS;
        ret = avformat_open_input(&fmt, url ? url : r->path, p->fmt->iformat, NULL);
    }
    free(url);
    if (ret < 0)
        return ffio_fail_av(err, errlen, OMCTI_ERR_IO, r->path, ret, "cannot open");
    AVPacket *pkt = av_packet_alloc();
    int64_t cap = 1024, n = 0;
    int key_seen = 0;
    *stamped = *key_stamped = 1;
    *skipped = 0;
    ix->key = malloc(sizeof *ix->key * (size_t)cap);
    if (!pkt || !ix->key) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* Probed as the reader was, so that the packets carry the timestamps
     * the reader's pictures get (the probe's packets come back first):
     * MPEG-PS and FLV streams appear only with their packets, and WebM
     * with negative timestamps shows its first cluster 500 ms late to a
     * demuxer that was not probed. */
    if ((ret = avformat_find_stream_info(fmt, NULL)) < 0) {
        ret = ffio_fail_av(err, errlen, OMCTI_ERR_FORMAT, r->path, ret, "cannot read the stream "
                           "information");
        goto done;
    }
    if ((unsigned)p->stream >= fmt->nb_streams) {
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the video stream is not found "
                        "again", r->path);
        goto done;
    }
    ffio_keep_only_stream(fmt, p->stream);
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
            /* A fragment before the first key frame (a recording cut
             * inside a packet: no time at all) gives no picture and no
             * slot in the whole run (it places pictures by time). */
            if (genpts && !key_seen && !(pkt->flags & AV_PKT_FLAG_KEY) &&
                pkt->pts == AV_NOPTS_VALUE && pkt->dts == AV_NOPTS_VALUE) {
                (*skipped)++;
                av_packet_unref(pkt);
                continue;
            }
            if (pkt->pts == AV_NOPTS_VALUE) *stamped = 0;
            if (!key_seen && (pkt->flags & AV_PKT_FLAG_KEY)) {
                key_seen = 1;
                *key_stamped = pkt->pts != AV_NOPTS_VALUE;
            }
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
    ret = 0;
done:
    av_packet_free(&pkt);
    avformat_close_input(&fmt);
    return ret;
}

/* Sorted, the keys give frame k's timestamp: every packet a picture, the
 * k-th picture the decoder returns. MPEG-PS stamps a picture only now and
 * then: where the first key frame had a timestamp, a second pass lets
 * libavformat fill in the others from the decode times
 * (AVFMT_FLAG_GENPTS), as the decoder times those pictures. Without keys,
 * seeking decodes from the start and the pieces of --workers go by picture
 * numbers, which moved them by a slot for each picture the decoder drops
 * at the start (a recording cut inside a GOP). Where even the first key
 * frame had none (AVI stamps no reference picture), the filled-in times are
 * guesses that need not match the decoder's (H.264 in AVI: off by its
 * reorder delay), so there are none. */
static int ff_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen)
{
    FFReader *p = r->priv;
    if (!p->fmt->pb || !(p->fmt->pb->seekable & AVIO_SEEKABLE_NORMAL))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': cannot index a stream that is not seekable", r->path);
    ix->kind = FRAME_INDEX_PTS;
    ix->stream = p->stream;
    int stamped, key_stamped, ret;
    int64_t skipped;
    ret = index_pass(r, p, ix, 0, &stamped, &key_stamped, &skipped, err, errlen);
    if (ret == 0 && !stamped) {
        const int64_t count = ix->count;
        int filled = 0, dummy;
        free(ix->key);
        ix->key = NULL;
        if (key_stamped)
            ret = index_pass(r, p, ix, 1, &filled, &dummy, &skipped, err, errlen);
        if (ret == 0 && (!filled || ix->count + skipped != count)) {
            free(ix->key);
            ix->key = NULL;
            ix->count = count;
        }
    }
    if (ret < 0) {
        free(ix->key);
        ix->key = NULL;
        return ret;
    }
    if (ix->key) {
        qsort(ix->key, (size_t)ix->count, sizeof *ix->key, cmp_i64);
        for (int64_t k = 1; k < ix->count && ix->key; k++)
            if (ix->key[k] == ix->key[k - 1]) {     /* not a usable key */
                ix->times = ix->key;    /* but the times place the pictures */
                ix->key = NULL;
                ix->repeated = 1;
            }
    }
    return 0;
}

static int64_t frame_ts(const AVFrame *f)
{
    return f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : f->pts;
}

/* Drops pictures until the next one has timestamp ts; it becomes pending.
 * 1: found, 0: start again from the first picture (the first picture was
 * already past ts: the seek landed too late; or, unless last, damage on
 * the way: a packet that did not decode, a concealed picture, where the
 * whole run, which decoded the pictures before the key frame, may have got
 * other pictures; or, unless last == 2, the stream's end before ts), < 0. last: 1 when
 * the attempt started from the first picture, 2 when from the file's start
 * (the demuxer opened again). */
static int ff_skip_to(VideoReader *r, FFReader *p, int64_t ts, int last, char *err,
                      size_t errlen)
{
    const int64_t bad = p->bad, concealed = p->concealed;
    for (int first = 1;; first = 0) {
        int ret = ffdec_next(r, p, err, errlen);
        if (ret < 0) return ret;
        if (ret == 0) {
            /* From the first picture's timestamp too (last == 1): a seek
             * that lands past a file's only key frame (an H.264 TS of one
             * GOP) decodes no picture to the end; the demuxer opened again
             * reads from the start. */
            if (last != 2)
                return 0;
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the stream ended before the "
                             "picture at timestamp %lld (seek failed)", r->path, (long long)ts);
        }
        const int64_t t = frame_ts(p->frame);
        if (t == AV_NOPTS_VALUE)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': a decoded picture has no "
                             "timestamp; cannot seek exactly", r->path);
        /* From the file's start (last == 2: the demuxer opened again), a
         * first picture past ts is the first that decodes at all (a
         * recording cut inside a GOP, its key frame seconds later): the
         * whole run holds it over the slots before it, ts among them. */
        if (t > ts && first && last != 2)
            return 0;
        if (t >= ts && !last && (p->bad > bad || p->concealed > concealed))
            return 0;
        if (t == ts) {
            p->pending = 1;
            return 1;
        }
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
    p->seeked = 1;
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
     * Demuxers without a key frame index land after ts: MPEG-TS searches
     * by packet timestamps and the decoder starts at the next key frame
     * (H.264 and MPEG-2 in TS land late on nearly every seek), so the seek
     * steps back 16, 64 and 256 frames of the index. Should it still land
     * after ts, or damage lie between the key frame and ts (a damaged key
     * frame: the whole run conceals from the pictures before it, a seek
     * cannot), start again from the first picture: by its timestamp (-1),
     * or, where that seek lands late too (TS) or fails (WebM with negative
     * timestamps cannot seek at all), from a demuxer opened again (-2; a
     * seek to byte 0 lands after the first cluster of such a WebM). A seek
     * the demuxer refuses goes on to the next way. */
    static const int64_t back[] = { 0, 16, 64, 256, -1, -2 };
    const int64_t packets = p->packets, bad = p->bad, concealed = p->concealed;
    const int64_t leading = p->leading;
    for (size_t a = 0; a < sizeof back / sizeof back[0]; a++) {
        const int from_start = back[a] < 0;
        if (!from_start && a > 0 && frame - back[a - 1] <= 0)
            continue;                      /* the last step reached frame 0 */
        const int64_t target = from_start ? ix->key[0]
                                          : ix->key[frame > back[a] ? frame - back[a] : 0];
        int ret;
        if (back[a] == -2) {
            if ((ret = ffdec_reopen_demuxer(p, r->path, r->cancel, err, errlen)) < 0)
                return ret;
        } else {
            ret = av_seek_frame(p->fmt, p->stream, target, AVSEEK_FLAG_BACKWARD);
            if (ret < 0 && from_start)
                ret = avformat_seek_file(p->fmt, p->stream, INT64_MIN, target, target, 0);
            if (ret == AVERROR_EXIT)
                return set_error(err, errlen, OMCTI_ERR_INTERRUPT, "interrupted");
            if (ret < 0)
                continue;
        }
        ff_reset_decoder(p);
        /* The damage counts of the warning: what this attempt reads (from
         * the first picture: all of it, as the whole run counts). */
        p->packets = from_start ? 0 : packets;
        p->bad = from_start ? 0 : bad;
        p->concealed = from_start ? 0 : concealed;
        p->leading = from_start ? 0 : leading;
        if ((ret = ff_skip_to(r, p, ts, back[a] == -2 ? 2 : from_start, err, errlen)) < 0)
            return ret;
        if (ret == 1) {
            p->pictures = frame;   /* for the end-of-file check */
            /* A piece reports the damage of its own part (its caller
             * deferred the warning): not what the file's start or the
             * way here held. */
            if (r->defer_damage)
                p->packets = p->bad = p->concealed = p->leading = 0;
            return 0;
        }
    }
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': cannot seek to frame %lld "
                     "(timestamp %lld)", r->path, (long long)frame, (long long)ts);
}

const VideoReaderOps ff_reader_ops = {
    .read = ff_read,
    .close = ff_close,
    .damage = ff_damage,
    .index = ff_index,
    .seek = ff_seek,
};

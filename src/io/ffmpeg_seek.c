/* FFmpeg reader, the exact frame index and seeking of --segment and the
 * workers (VideoReaderOps .index and .seek of ffmpeg_decode.c's reader): a
 * demux-only pass that lists every video packet's timestamp, and a seek to
 * a frame that decodes from the key frame before it and skips to the
 * frame's timestamp, so that a piece starts on the very picture the whole
 * run reads there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

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
int ffdec_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen)
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

int ffdec_seek(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err, size_t errlen)
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
            int ret = ffdec_read(r, &pic, err, errlen);
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

/* FFmpeg reader, decoding: packets to pictures in the working format,
 * damage counted (the index pass and seeking for --segment are
 * ffmpeg_seek.c's). The file is opened and probed by ffmpeg_probe.c. Behaviour decided by the two halves:
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

int ffdec_read(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen)
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

const VideoReaderOps ff_reader_ops = {
    .read = ffdec_read,
    .close = ff_close,
    .damage = ff_damage,
    .index = ffdec_index,
    .seek = ffdec_seek,
};

/* The FFmpeg back end's pieces (reader: ffmpeg_probe.c opens, ffmpeg_decode.c
 * decodes; writer: ffmpeg_encoder.c, ffmpeg_audio.c, ffmpeg_mux.c; the join:
 * ffmpeg_join.c) and what they share. Private to src/io. */
#ifndef OMCTI_FFMPEG_INTERNAL_H
#define OMCTI_FFMPEG_INTERNAL_H

#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>

#include "src/io/ffmpeg_common.h"
#include "src/io/io_internal.h"

/* ---- reader ------------------------------------------------------------ */

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
    int end_kind;              /* then: how the file ended (VIDEO_END_*)  */
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
    int seeked;                /* a seek moved the reader                 */
    int have_first_min;        /* first_min holds a packet's timestamp    */
    int64_t first_min;         /* the smallest packet timestamp before the
                                  first picture (video_reader_origin())   */
    int unstamped;             /* a packet before it had no timestamp     */
    int64_t pictures;          /* pictures returned                       */
    int in_a_row;              /* consecutive decode errors               */
} FFReader;

/* The reader's operations (ffmpeg_decode.c); ff_reader_open() in
 * ffmpeg_probe.c fills an FFReader and hands it to them. */
extern const VideoReaderOps ff_reader_ops;
void ffdec_free(FFReader *p);
/* Decodes the next picture into p->frame: 1, 0 at the end, < 0 on error. */
int ffdec_next(const VideoReader *r, FFReader *p, char *err, size_t errlen);
/* The reader's read (ffmpeg_decode.c), its index pass and seek
 * (ffmpeg_seek.c). */
int ffdec_read(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen);
int ffdec_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen);
int ffdec_seek(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err, size_t errlen);
/* A demuxer context that stops when cancel is requested, or NULL. */
AVFormatContext *ffdec_alloc_input(const IoCancel *cancel);
/* libavformat's I/O retries a read or write that a signal interrupted
 * (EINTR) unless this, its interrupt callback (opaque: the IoCancel, may be
 * NULL), says stop: Ctrl-C ends a read or a write blocked on a pipe or a
 * FIFO. */
int ffio_interrupt(void *opaque);
/* Opens p's file again in place of p->fmt, at its start (probed as the
 * first open was), keeping p->stream: the seek that cannot fail. 0, or
 * < 0 with p->fmt untouched. */
int ffdec_reopen_demuxer(FFReader *p, const char *path, const IoCancel *cancel, char *err,
                         size_t errlen);

/* ---- what the demuxer may open (ffmpeg_probe.c) ------------------------ */

/* Demuxers that open further files or URLs named inside the input (a
 * playlist, a concat list, an image sequence, a script) are refused, so a
 * file's content never makes omcti read another file. Sets fmt's
 * format_whitelist to every other demuxer, and its protocol_whitelist to
 * FFIO_PROTOCOLS; < 0 when out of memory. */
int ffio_restrict_demuxers(AVFormatContext *fmt);
/* The only protocol an input is read through: a local file (a pipe by
 * path too), never the network or another protocol a name could spell. */
#define FFIO_PROTOCOLS "file"
/* Tells the demuxer to drop every stream but `stream` (less work). */
void ffio_keep_only_stream(AVFormatContext *fmt, int stream);
/* The video stream omcti converts (< 0: none): the one FFmpeg's CLI takes
 * (the most pixels, default first), never cover art (an attached picture).
 * The reader, the metadata and the audio's origin take this one. */
int ffio_video_stream(const AVFormatContext *fmt);
/* How many video streams fmt has, cover art not counted. */
int ffio_video_stream_count(const AVFormatContext *fmt);
/* The one-line errors (always < 0) for the video stream's decoder: none
 * for its codec, or avcodec_open2()'s refusal ret (ffmpeg_dec_errors.c). */
int ffio_no_decoder(const AVFormatContext *fmt, int stream, const char *path, char *err,
                    size_t errlen);
int ffio_decoder_refuses(const AVFormatContext *fmt, int stream, const AVCodec *codec, int ret,
                         const char *path, char *err, size_t errlen);
/* The duration of stream st in its time base: its own, else Matroska's
 * DURATION tag of the track, else the rest of the file from the stream's
 * start (which audio or subtitles that outlast the pictures lengthen);
 * 0 when unknown. */
int64_t ffio_stream_duration(const AVFormatContext *fmt, const AVStream *st);
/* After an open refused by the above: writes "'path': <why>" into err and
 * returns OMCTI_ERR_FORMAT when path is such a file; else returns 0. */
int ffio_refused_demuxer(const char *path, const char *url, char *err, size_t errlen);

/* ---- audio copy (ffmpeg_audio.c): the writer's and the join's ---------- */

/* The audio (and subtitle) streams of a file, copied packet by packet into
 * a muxer next to the video, interleaved by time. */
typedef struct FFAudioCopy {
    AVFormatContext *ain;
    AVPacket *apkt;
    int *amap;                   /* input stream -> output stream, or -1     */
    int nb_audio_out;            /* audio streams mapped into the output     */
    int nb_subtitles_out;        /* subtitle streams mapped into the output  */
    int64_t a_offset;            /* AV_TIME_BASE units subtracted from audio */
    int apkt_pending;            /* apkt is read but not yet written         */
    int audio_eof;
    int audio, subs;             /* which kinds of streams are copied        */
} FFAudioCopy;

/* Opens `from` for the output out_path (named in messages), to copy its
 * audio streams (audio) and subtitle streams (subs), placed so that
 * `origin` of `from` (NULL or unknown: its video stream's start) is the
 * output's time 0. */
int ffaudio_open(FFAudioCopy *a, const char *out_path, const char *from,
                 const VideoOrigin *origin, int audio, int subs, char *err, size_t errlen);
/* Adds an output stream to oc for each audio / subtitle stream the
 * container of `of` can hold (a notice, unless quiet, for each it cannot);
 * with_audio = 0 maps none. */
int ffaudio_add_streams(FFAudioCopy *a, AVFormatContext *oc, const AVOutputFormat *of,
                        const char *out_path, int with_audio, int quiet, char *err,
                        size_t errlen);
/* Writes the audio packets that start before limit (AV_TIME_BASE units,
 * the output's clock) into oc. */
int ffaudio_copy_until(FFAudioCopy *a, AVFormatContext *oc, const char *out_path,
                       int64_t limit, char *err, size_t errlen);
/* Whether the muxer's answer averr to a header with copied streams is a
 * refusal of what it was given (then the header is written again without
 * them, ffaudio_refused()), not a failure of the output (a full disk). */
int ffaudio_header_refusal(const FFAudioCopy *a, int averr);
/* After the muxer refused a header that held copied streams (a codec that
 * avformat_query_codec() could not rule out): 1, with a notice unless
 * quiet, to write the output again with with_audio = 0, the video being
 * what the user asked for; 0 when no stream was copied (the refusal is the
 * video's). The writer's and the join's one answer. */
int ffaudio_refused(const FFAudioCopy *a, const AVOutputFormat *of, const char *out_path,
                    int quiet);
void ffaudio_close(FFAudioCopy *a);
/* After the header: closes the second demuxer when it copies no stream
 * (it was opened for the metadata only), so that the packets its stream
 * probe read and keeps (at 4K a 12 MB picture of a y4m input) go with it. */
void ffaudio_close_if_unused(FFAudioCopy *a);

/* ---- metadata (ffmpeg_meta.c) ------------------------------------------ */

/* Copies into oc (before its header) the container metadata of `in`, the
 * metadata and display matrix of its video stream onto vst, and with timed
 * its chapters, moved by -offset (AV_TIME_BASE units: the output starts at
 * the input's first picture). Notices, unless quiet, for what is not kept. */
/* How stream st's display matrix shows its pictures, a phrase: "rotated
 * by 90 degrees", "flipped left to right", "flipped upside down", "rotated
 * by -90 degrees and flipped left to right"; "" where it has none or it
 * shows them as stored. */
void ffmeta_orientation(const AVStream *st, char *buf, size_t len);
int ffmeta_copy(const AVFormatContext *in, AVFormatContext *oc, AVStream *vst, int timed,
                int64_t offset, int quiet, const char *out_path, char *err, size_t errlen);

/* ---- encoder (ffmpeg_encoder.c) ---------------------------------------- */

typedef struct FFEncoder {
    AVCodecContext *enc;
    AVBufferPool *pool;          /* picture buffers, recycled by the encoder */
    struct SwsContext *sws;      /* NULL when the encoder takes 4:2:0 as is  */
    enum AVPixelFormat in_fmt;   /* pictures we are given (yuv(j)420p)       */
    int width, height;
    AVRational fps;
} FFEncoder;

/* Chooses the encoder for the container `of` and the options (see
 * ffmpeg_encoder.c), and opens it for e's size, rate and in_fmt; want: the
 * source's pixel format, kept where the encoder takes it. path and info
 * are the output's. */
int ffenc_open(FFEncoder *e, const char *path, const VideoInfo *info, const AVOutputFormat *of,
               const WriterOptions *opt, enum AVPixelFormat want, char *err, size_t errlen);
/* Fills f (a pool buffer, the encoder's format) with pic. */
int ffenc_frame(FFEncoder *e, AVFrame *f, const OmctiPicture *pic, const char *path,
                char *err, size_t errlen);
void ffenc_close(FFEncoder *e);

/* ---- muxing (ffmpeg_mux.c) --------------------------------------------- */

/* Opens the file tmp_path (always local: "file:" keeps a name such as
 * "out:1.mkv" from being taken for a protocol) as oc's output. */
int ffmux_open_file(AVFormatContext *oc, const char *tmp_path, const char *path,
                    const IoCancel *cancel, char *err,
                    size_t errlen);
/* Muxes one video packet whose timestamps are in tb into oc's stream vst,
 * after the audio due before it (a: may be NULL). Takes the packet's data.
 * last_dts: see ffmpeg_mux.c (the join; NULL for the encoder). */
int ffmux_video_packet(AVFormatContext *oc, FFAudioCopy *a, const char *path, AVStream *vst,
                       AVRational tb, AVPacket *pkt, int64_t *last_dts, char *err,
                       size_t errlen);
/* Writes the trailer and closes the file, checking every write. */
int ffmux_finish(AVFormatContext *oc, const char *path, char *err, size_t errlen);
/* Whether muxer of cannot hold codec id (of media type type), by the
 * muxer's own answer, except where Matroska says "no" to a codec it
 * stores under its AVI or QuickTime tag, as FFmpeg's CLI writes it. */
int ffmux_refuses(const AVOutputFormat *of, enum AVMediaType type, enum AVCodecID id);
/* Whether of is a QuickTime-family muxer (mov, mp4 and their kin: what
 * keeps a display matrix, edit lists, the iPhone's place, a tmcd track). */
int ffmux_quicktime(const AVOutputFormat *of);

/* Whether a stream of rate fps can be stored in the time base tb that the
 * muxer of format of chose (its header written): every frame a timestamp
 * of its own, and MP4's 31-bit durations; else OMCTI_ERR_FORMAT with the
 * reason (the writer and the join). */
int ffmux_check_timing(const AVOutputFormat *of, AVRational tb, AVRational fps,
                       const char *path, char *err, size_t errlen);
/* "path: what: reason" for a failed write call of muxer oc; EINVAL, the
 * muxer refusing what it was given (a duration it cannot store, a codec it
 * does not take) rather than the disk failing, is told as such, with
 * OMCTI_ERR_FORMAT for OMCTI_ERR_IO. */
int ffmux_fail(const AVFormatContext *oc, int code, const char *path, int averr,
               const char *what, char *err, size_t errlen);

#endif

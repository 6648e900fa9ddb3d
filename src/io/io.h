/* Front end (demux + decode + scale to 8-bit 4:2:0) and back end (encode +
 * mux) of the omcti program. Two implementations: y4m (always built) and
 * FFmpeg (libavformat/libavcodec/libswscale, when built with it).
 *
 * Paths: "-" is a y4m stream on stdin/stdout; a name ending in .y4m is y4m;
 * everything else goes through FFmpeg. */
#ifndef OMCTI_IO_H
#define OMCTI_IO_H

#include <stddef.h>
#include <stdint.h>

#include "omcti.h"
#include "src/rational.h"

typedef struct VideoInfo {
    int width, height;
    Rational fps;            /* frames per second (nominal)                */
    Rational time_base;      /* unit of the pictures' timestamps, 0/1 when
                                they have none (y4m: the frame is the time) */
    Rational sar;            /* sample aspect ratio, 0/1 when unknown      */
    int64_t nb_frames;       /* best guess, -1 when unknown                */
    int has_audio;           /* an audio stream exists                     */
    int vfr;                 /* variable frame rate suspected              */
    int untimed;             /* no rate stated and the timestamps do not
                                advance: fps is a guess (the time base's) */
    char pix_fmt[32];        /* the source's pixel format name             */
    int converted;           /* frames are converted to 8-bit 4:2:0        */
    char interlace;          /* y4m 'p', 't', 'b', 'm'; '?' unknown        */
    /* The source's colour description (FFmpeg's AVColorPrimaries,
     * AVColorTransferCharacteristic, AVColorSpace, AVChromaLocation values),
     * carried to encoded outputs so that players show the same colours.
     * has_color 0: not known (y4m, RGB sources). */
    int has_color;
    int color_primaries, color_trc, color_space, chroma_location;
    /* The pictures' range, AVColorRange's values: 0 unknown, 1 limited
     * (MPEG), 2 full (JPEG); known also without has_color (y4m's
     * XCOLORRANGE, its C420jpeg/mpeg2/paldv set chroma_location too). */
    int color_range;
    /* How the display matrix shows the pictures, a phrase ("rotated by 90
     * degrees", "flipped left to right", ...; "": as stored, or unknown):
     * the pictures are stored so, players turn or mirror them. */
    char orientation[64];
    /* The input's video streams, cover art not counted (0: not known, y4m
     * has one), and the index in the file of the one converted. */
    int video_streams;
    int stream;
} VideoInfo;

/* A way to stop blocking I/O from outside (Ctrl-C): requested() says a
 * stop is wanted; wake_signal (0: none) is a signal whose handler was
 * installed without SA_RESTART, sent to a thread blocked in read() or
 * write() so that the call fails with EINTR. Both must be async-safe. */
typedef struct IoCancel {
    int (*requested)(void);
    int wake_signal;
} IoCancel;

typedef struct VideoReader VideoReader;
typedef struct VideoWriter VideoWriter;

/* Opens path (or "-"). On failure returns a negative OMCTI_ERR_* code and a
 * one-line message naming the file and the cause in err. */
int  video_reader_open(VideoReader **r, const char *path, char *err, size_t errlen);
/* The same, with a way to stop reads blocked on a pipe or FIFO (may be
 * NULL; must outlive the reader). */
int  video_reader_open_cancel(VideoReader **r, const char *path, const IoCancel *cancel,
                              char *err, size_t errlen);
const VideoInfo *video_reader_info(const VideoReader *r);
/* Reads the next picture: 1 on success, 0 at end of stream, < 0 on error.
 * The picture's planes belong to the reader and stay valid until the next
 * call. */
int  video_reader_read(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen);
/* The presentation timestamp of the picture the last read returned, in
 * info.time_base (the container's, so variable frame rates are seen), or
 * VIDEO_NO_PTS. */
#define VIDEO_NO_PTS INT64_MIN
int64_t video_reader_pts(const VideoReader *r);
/* Where the video starts, once a picture was read from the beginning: the
 * smallest timestamp among the first picture's and those of the packets
 * read up to it. A picture at the start that does not decode (a damaged
 * key frame, a recording cut inside a GOP) keeps its slot so; it is the
 * index's first timestamp (FrameIndex key[0]) wherever those packets hold
 * the smallest one. VIDEO_NO_PTS when unknown (no timestamps, a seek). */
int64_t video_reader_origin(const VideoReader *r);
/* The origin where it is the container's time of the video's start: every
 * packet read up to the first picture carried a timestamp. VIDEO_NO_PTS
 * otherwise: a picture's guessed timestamp (AVI's B-pictures: the decode
 * time plus the reorder delay, 80 ms late) places the pictures but not the
 * audio, which then goes by the stream's start time. */
int64_t video_reader_audio_origin(const VideoReader *r);
void video_reader_close(VideoReader **r);

/* What a reader met on its way: FFmpeg inputs count the packets that did
 * not decode, the pictures decoded with errors concealed and those broken
 * before the first clean one, and tell how the file ended once the reader
 * got there; y4m inputs report nothing (a damaged y4m is an error). */
enum { VIDEO_END_INTACT, VIDEO_END_EARLY, VIDEO_END_DAMAGED_INSIDE, VIDEO_END_LOST_SYNC };
typedef struct VideoDamage {
    int64_t bad, packets;      /* packets that could not be decoded, of all  */
    int64_t concealed;         /* pictures with decoding errors concealed    */
    int64_t leading;           /* broken pictures before the first clean one */
    int64_t pictures, expect;  /* pictures read (-1: not told), about how
                                  many the file holds (<= 0: unknown)        */
    int end;                   /* VIDEO_END_*, INTACT where not reached      */
    int64_t stop_pos, size;    /* VIDEO_END_LOST_SYNC: where it stopped      */
} VideoDamage;
void video_reader_damage(const VideoReader *r, VideoDamage *d);
/* The reader then prints no damage warning when it reaches the end: its
 * caller reports (a piece of the video, or the sum of several readers). */
void video_reader_defer_damage(VideoReader *r);
/* Adds d's counts to sum; the end is the one of whichever reached it. */
void video_damage_add(VideoDamage *sum, const VideoDamage *d);
/* One "warning:" line on stderr for path, or nothing where d holds no
 * damage. */
void video_damage_warn(const char *path, const VideoDamage *d);

/* Where an output's time 0 lies in its input: the timestamp of the first
 * frame slot (the video's start, video_reader_origin() or the index's first
 * timestamp), in the input video stream's time base. The copied audio,
 * subtitles and chapters keep their distance to it, so that they stay in
 * sync with the pictures. time_base.den == 0 (a zeroed struct): unknown;
 * the video stream's start time is taken then. */
typedef struct VideoOrigin {
    int64_t pts;
    Rational time_base;
} VideoOrigin;

/* An exact frame count and a seek table, for converting one segment of a
 * file (docs/scale.md). FFmpeg inputs: a demux-only pass over the packets
 * of the video stream (no decoding): count = packets (those not marked
 * discard), key = their presentation timestamps, sorted, so that frame k is
 * the k-th picture the decoder returns; key is NULL when some packet has no
 * timestamp (then seeking decodes from the start). y4m files: a scan of the
 * FRAME headers, key = the byte offset of every frame. Pipes cannot be
 * indexed. */
enum { FRAME_INDEX_PTS = 1, FRAME_INDEX_OFFSET = 2 };
typedef struct FrameIndex {
    int64_t count;           /* frames the reader delivers                  */
    int kind;                /* FRAME_INDEX_PTS or FRAME_INDEX_OFFSET       */
    int stream;              /* the FFmpeg video stream                     */
    int64_t *key;            /* count entries, or NULL (see above)          */
    int repeated;            /* NULL key because two pictures share a time: */
    int64_t *times;          /* then every picture's, sorted (count)        */
    int64_t file_size;       /* the input it describes                      */
    int64_t file_mtime;
} FrameIndex;

/* Builds the index of r's file. Call right after video_reader_open(). */
int  video_reader_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen);
/* Positions r so that the next read returns frame `frame` (0-based) of the
 * index, exactly: FFmpeg seeks to the key frame at or before it and
 * decodes forward, dropping pictures until the timestamp matches; y4m
 * seeks to the byte offset. Call right after video_reader_open(). */
int  video_reader_seek(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err,
                       size_t errlen);
void frame_index_free(FrameIndex *ix);
/* A text file (written to a temporary name and renamed), and back; load
 * refuses an index made for another file or another version of it. */
int  frame_index_save(const FrameIndex *ix, const char *path, char *err, size_t errlen);
int  frame_index_load(FrameIndex *ix, const char *path, const char *input, char *err,
                      size_t errlen);

/* Joins pieces (outputs of `omcti --segment`, all of one format) into out
 * by stream copy: no re-encoding, timestamps continued from piece to piece,
 * audio stream-copied from audio_from (NULL: none), placed against the
 * first piece's start at `origin` of audio_from (NULL: unknown). Written to a temporary
 * file beside out and renamed on success (the rules of video_writer_open:
 * no overwrite without `overwrite`, never over a piece or audio_from).
 * y4m pieces are concatenated. frames_out (may be NULL) gets the frame
 * count. cancel (may be NULL) stops the copy: OMCTI_ERR_INTERRUPT, the
 * temporary file removed. */
int  io_join(const char *out, const char *const *pieces, int n, const char *audio_from,
             const VideoOrigin *origin, int overwrite, int quiet, const IoCancel *cancel,
             int64_t *frames_out, char *err, size_t errlen);

/* What an encoder that takes only even sizes (x264, x265 in 4:2:0) gets
 * from an odd-sized input (WriterOptions.odd_size; docs/cli.md). */
enum { ODD_SIZE_PAD = 0, ODD_SIZE_CROP, ODD_SIZE_FAIL };

typedef struct WriterOptions {
    const char *codec;       /* encoder name, NULL = from the container     */
    int crf;                 /* -1 = omcti's default per encoder (x264: 23) */
    int lossless;
    int overwrite;           /* -y                                          */
    const char *audio_from;  /* copy audio from this input, NULL = none     */
    VideoOrigin origin;      /* the input's time at the output's time 0     */
    /* Copy the container's metadata, chapters, subtitle streams and the
     * video's display matrix from this input (NULL: none); timed_meta = 0
     * keeps only the metadata and the matrix (slow motion: the times of
     * chapters and subtitles no longer match). */
    const char *meta_from;
    int timed_meta;
    const char *input_path;  /* to refuse writing over the input            */
    const char *src_pix_fmt; /* the input's pixel format (for its range)    */
    int quiet;
    const IoCancel *cancel;  /* stops a write blocked on a pipe; may be NULL */
    int odd_size;            /* ODD_SIZE_*: pad (default), crop or fail      */
} WriterOptions;

/* The output goes to a temporary file beside path and is renamed into
 * place by video_writer_finish(); "-" writes y4m to stdout as it goes. */
int  video_writer_open(VideoWriter **w, const char *path, const VideoInfo *info,
                       const WriterOptions *opt, char *err, size_t errlen);
int  video_writer_write(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen);
/* Flushes, closes and renames into place. */
int  video_writer_finish(VideoWriter *w, char *err, size_t errlen);
/* Closes and removes the temporary file (used on every error path). */
void video_writer_abort(VideoWriter **w);
void video_writer_close(VideoWriter **w);

/* y4m and FFmpeg back ends (io.c chooses through its table of them). */
int  y4m_reader_open(VideoReader **r, const char *path, char *err, size_t errlen);
int  y4m_writer_open(VideoWriter **w, const char *path, const VideoInfo *info,
                     const WriterOptions *opt, char *err, size_t errlen);
#if OMCTI_HAVE_FFMPEG
int  ff_reader_open(VideoReader **r, const char *path, const IoCancel *cancel, char *err,
                    size_t errlen);
int  ff_writer_open(VideoWriter **w, const char *path, const VideoInfo *info,
                    const WriterOptions *opt, char *err, size_t errlen);
/* io_check_output_timing()'s FFmpeg half. */
int  ff_check_output_timing(const char *path, Rational fps, char *err, size_t errlen);
int  ff_join(const char *out, const char *tmp, const char *const *pieces, int n,
             const char *audio_from, const VideoOrigin *origin, int quiet,
             const IoCancel *cancel, int64_t *frames_out, char *err, size_t errlen);
#endif

/* A y4m file that several threads fill at once, each its own frames, at
 * their place (every y4m frame has the same size): the whole-run output of
 * --workers / --devices without parts or a join (y4m_slots.c). Temporary
 * file and rename, as video_writer_open; the checks of io_check_output. */
typedef struct Y4mSlots Y4mSlots;
int  y4m_slots_open(Y4mSlots **s, const char *path, const VideoInfo *info, int64_t frames,
                    const WriterOptions *opt, char *err, size_t errlen);
/* A writer (for one thread, e.g. behind an AsyncWriter) of frames first ..
 * first + count - 1 in order; its finish checks that all came and renames
 * nothing. Close it before y4m_slots_finish / _abort. */
int  y4m_slots_writer(Y4mSlots *s, int64_t first, int64_t count, VideoWriter **w, char *err,
                      size_t errlen);
/* Every frame written: sized, closed and renamed into place. */
int  y4m_slots_finish(Y4mSlots **s, char *err, size_t errlen);
void y4m_slots_abort(Y4mSlots **s);

/* Checks that a video of rate fps may be written to path: every container
 * (y4m and omcti's own reader included) keeps the rate as two 31-bit terms. */
int io_check_output_rate(const char *path, Rational fps, char *err, size_t errlen);

/* Checks, before anything is written, that the container path names can
 * give every picture of rate fps its own time (its time base may be too
 * coarse: Matroska's 1 ms for more than 1000 fps): one line naming path
 * and the reason, or 0 (also where it cannot tell; the writer checks
 * again once its muxer has chosen the time base). */
int io_check_output_timing(const char *path, Rational fps, char *err, size_t errlen);

/* Checks that path may be written: not a directory, not existing without
 * overwrite, not the file `other` (may be NULL). */
int io_check_output(const char *path, const char *other, int overwrite, char *err,
                    size_t errlen);

/* Checks that the folder path names (the current one without a slash)
 * exists, is a folder and may be written into: "cannot write 'PATH':
 * No such file or directory" as the output's own open would say, for runs
 * that write the output only after a long pass (--workers). */
int io_check_output_folder(const char *path, char *err, size_t errlen);

/* Checks that the input path can be opened and read again from any point
 * (segments, workers, farm): a FIFO, socket or character device cannot, and
 * opening a FIFO would first wait for a writer (the check does not open it).
 * `what` names the mode in the message. A path that does not exist is left
 * to the reader's own error. */
int io_check_rereadable(const char *path, const char *what, char *err, size_t errlen);

/* The last step of the temporary-file-and-rename rule: moves the finished
 * tmp to path. Without overwrite a file that appeared at path during the run
 * is never replaced: then tmp is kept, *kept is set and the error names it
 * (the caller must not remove it). */
int io_commit_output(const char *tmp, const char *path, int overwrite, int *kept, char *err,
                     size_t errlen);

/* Whether the output path is a FIFO or a character device (/dev/null, a
 * terminal): written in place like a pipe, never through a temporary file
 * renamed over it, which would replace the node with a regular file. */
int io_output_in_place(const char *path);
/* Opens the FIFO or character device at path for writing, as -o writes
 * one: without O_CREAT (a node removed meanwhile is not made a file) and
 * only while it still is one. A FIFO waits in open() for its reader (a
 * signal without SA_RESTART ends the wait: -EINTR). The descriptor, or
 * -errno, -ENOTSUP when path is no longer a FIFO or a device. */
int io_open_in_place(const char *path);

/* "DIR/.STEM.TAGEXT" beside path, with STEM (path's name without ext)
 * shortened so that the name stays within 255 bytes: temporary files and
 * folders of a legal output name are legal too. 0, or -1 when it cannot. */
int io_sibling_name(char *out, size_t size, const char *path, const char *tag,
                    const char *ext);

/* s with every byte a terminal would act on (control characters, DEL, C1
 * controls, invalid UTF-8) written as \xNN, into buf: names and file
 * content quoted in messages cannot move the cursor, clear the screen or
 * fake a line. Returns buf. */
const char *io_printable(const char *s, char *buf, size_t size);
/* The same, in place, for a whole message (at most 1023 bytes kept). */
void io_escape_message(char *msg, size_t size);
/* A decimal int64 (optional '-', digits only) filling all of s: 0, or -1
 * (side files are read like inputs: no sign games, no trailing bytes). */
int io_parse_i64(const char *s, int64_t *v);

/* Whether path is a regular file (can be opened again, seeked, indexed),
 * not stdin, a pipe, a FIFO or a device. */
int io_path_is_regular(const char *path);

/* Lets FFmpeg's own warnings through (the tools' --ffmpeg-log). Without it
 * the FFmpeg back end quietens libav's log the first time it opens a file,
 * so that the one line we report is not buried under "[h264 @ 0x...]". */
void io_show_ffmpeg_log(void);

/* Whether the path names y4m ("-" or *.y4m). */
int io_path_is_y4m(const char *path);
/* Whether the input path is read as y4m (by its name, or a regular file by
 * its first bytes): a stream with no audio, metadata or chapters to copy. */
int io_input_is_y4m(const char *path);

#endif

/* What the y4m and FFmpeg back ends share with io.c. */
#ifndef OMCTI_IO_INTERNAL_H
#define OMCTI_IO_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "src/io/io.h"

/* The largest picture an input may have: 16384 a side (the library's
 * limit) and 64 megapixels (8K UHD is 33). A header can state any size: a
 * 13 KB FFV1 file saying 12000x12000 took a minute and 3.2 GB before it
 * failed. io_check_size(): 0, or the error written ('path': ...). */
#define IO_MAX_SIDE OMCTI_MAX_DIMENSION
#define IO_MAX_PIXELS (64LL << 20)
int io_check_size(const char *path, int64_t w, int64_t h, char *err, size_t errlen);

/* An MP4/MOV file (ISO base media boxes) that ends inside one of its
 * top-level boxes: the box's type, the byte where it says it ends, and the
 * file's size. io_mp4_cut_short(): 1 and *cut filled; 0 for a whole file,
 * another kind of file, or one whose boxes are damaged rather than cut. */
typedef struct IoCutShort {
    char type[5];
    uint64_t box_end, file_size;
} IoCutShort;
int io_mp4_cut_short(const char *path, IoCutShort *cut);

typedef struct VideoReaderOps {
    int  (*read)(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen);
    void (*close)(VideoReader *r);   /* frees priv, not r */
    /* Optional (NULL: the input cannot be indexed or seeked). */
    int  (*index)(VideoReader *r, FrameIndex *ix, char *err, size_t errlen);
    int  (*seek)(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err,
                 size_t errlen);
    void (*damage)(const VideoReader *r, VideoDamage *d);   /* optional */
} VideoReaderOps;

struct VideoReader {
    const VideoReaderOps *ops;
    VideoInfo info;
    char *path;
    const IoCancel *cancel;
    int64_t pts;       /* of the last picture read, or VIDEO_NO_PTS         */
    int64_t origin;    /* video_reader_origin()                             */
    int64_t audio_origin; /* video_reader_audio_origin()                    */
    int defer_damage;  /* video_reader_defer_damage()                        */
    void *priv;
};

typedef struct VideoWriterOps {
    int  (*write)(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen);
    /* Flushes and closes the file at w->tmp_path (or stdout). */
    int  (*finish)(VideoWriter *w, char *err, size_t errlen);
    /* Closes without finishing; io.c removes tmp_path afterwards. */
    void (*close)(VideoWriter *w);   /* frees priv, not w */
} VideoWriterOps;

struct VideoWriter {
    const VideoWriterOps *ops;
    VideoInfo info;
    char *path;        /* what the user asked for                         */
    char *tmp_path;    /* where the back end writes; NULL for stdout      */
    int to_stdout;
    int overwrite;     /* -y: the final rename may replace a file          */
    int finished;
    int kept;          /* the target appeared meanwhile: tmp_path is kept  */
    int in_place;      /* tmp_path is the target itself (a FIFO or a
                          character device): no rename, never removed    */
    const IoCancel *cancel;
    void *priv;
};

/* Writer back ends (y4m_writer_open, ff_writer_open) are called by io.c
 * with *w already made by video_writer_new(): path, tmp_path (a fresh empty
 * file beside the target, same extension; NULL with to_stdout) and info are
 * set. The back end sets w->ops and w->priv and opens w->tmp_path. On
 * failure it returns < 0; io.c then calls ops->close (if set) and removes
 * tmp_path.
 *
 * Allocators, so io.c can free uniformly: */
VideoReader *video_reader_new(const VideoReaderOps *ops, const char *path);
VideoWriter *video_writer_new(const VideoWriterOps *ops, const char *path,
                              const char *tmp_path, const VideoInfo *info);

/* A fresh, empty file beside path with its extension (".NAME.omcti-XXXXXX.EXT",
 * NAME shortened to keep the name within 255 bytes), for the
 * temporary-file-and-rename rule; NULL on failure (message in err). */
char *io_make_temp_path(const char *path, char *err, size_t errlen);

/* Whether a and b name the same file (device and inode). */
int io_same_file(const char *a, const char *b);
/* Whether fd is the regular file at path: stdout of -o - redirected onto
 * the input (> IN, >> IN, 1<> IN: the stream would be written over or
 * after the pictures it reads), stdin of -i - read from the output (the
 * result would replace the input). */
int io_fd_is_file(int fd, const char *path);

/* What stands under an output's name (output_path.c): 0 where nothing
 * does or -y lets it be replaced; *in_place = 1 for a FIFO or character
 * device, written in place like a pipe. */
int io_check_existing(const char *path, int overwrite, int *in_place, char *err,
                      size_t errlen);

/* Size and modification time (ns) of a file, what an index is checked by. */
int frame_index_identity(const char *path, int64_t *size, int64_t *mtime);

/* A y4m reader over an open stream (pipes, and the fuzzer's memory
 * buffers); name is used in messages. */
int y4m_reader_open_stream(VideoReader **r, FILE *f, int own_file, const char *name,
                           char *err, size_t errlen);

/* The stream header omcti writes for info (8-bit 4:2:0), with its newline;
 * returns its length (snprintf's). */
int y4m_format_header(char *buf, size_t size, const VideoInfo *info);
/* A y4m frame ("FRAME\n" and the three planes) as iovecs over pic's own
 * memory: 4 when its rows are unpadded, else 0 (the caller packs). */
int y4m_frame_iov(const OmctiPicture *pic, struct iovec iov[4]);
/* Writes all of iov (modified) to fd: at offset (pwritev) or, offset < 0,
 * where the file is (writev); retries short writes, and interrupted ones
 * unless cancel (may be NULL) is requested (then -EINTR, after a short
 * write too). 0 or -errno. */
int io_write_iov(int fd, struct iovec *iov, int n, int64_t offset, const IoCancel *cancel);

/* Whether the file name (after the last '/') holds an image sequence's
 * frame number as FFmpeg's image2 reads one: %d or %0Nd ("img%03d.png"). */
int io_name_has_frame_number(const char *path);

#endif

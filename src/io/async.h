/* Decode ahead and encode behind on threads of their own, so that reading,
 * motion search/interpolation and writing overlap. Pictures move through
 * small rings of buffers allocated once; the order of frames and the bytes
 * written are exactly those of the synchronous calls. */
#ifndef OMCTI_IO_ASYNC_H
#define OMCTI_IO_ASYNC_H

#include "src/io/io.h"

typedef struct AsyncReader AsyncReader;
typedef struct AsyncWriter AsyncWriter;

/* Starts a thread that reads r into a ring of `depth` pictures (allocated
 * when the first picture arrives), at most `limit` of them (< 0: to the
 * end; a part of the file reads no further than its part, so that what the
 * reader counts, its damage, does not depend on how far the thread ran
 * ahead). r stays owned by the caller and must outlive the AsyncReader.
 * cancel (may be NULL; must outlive it too): the waits of
 * next/acquire/drain return OMCTI_ERR_INTERRUPT within 100 ms of a request,
 * and stop wakes a thread blocked in I/O with its signal. */
int  async_reader_start(AsyncReader **ar, VideoReader *r, int depth, int64_t limit,
                        const IoCancel *cancel, char *err, size_t errlen);
/* The next picture: 1, 0 at the end, < 0 on error (message in err). The
 * picture stays valid until the next call. */
int  async_reader_next(AsyncReader *ar, OmctiPicture *pic, char *err, size_t errlen);
/* The timestamp of the picture the last next() returned (video_reader_pts). */
int64_t async_reader_pts(const AsyncReader *ar);
/* The reader's video_reader_origin() as of that picture. */
int64_t async_reader_origin(const AsyncReader *ar);
/* And its video_reader_audio_origin(). */
int64_t async_reader_audio_origin(const AsyncReader *ar);
void async_reader_stop(AsyncReader **ar);

/* Starts a thread that writes pictures of w x h to vw. */
int  async_writer_start(AsyncWriter **aw, VideoWriter *vw, int w, int h, int depth,
                        const IoCancel *cancel, char *err, size_t errlen);
/* A free picture to fill, then commit it: written in commit order. Returns
 * < 0 (message in err) once the writer thread has failed. */
int  async_writer_acquire(AsyncWriter *aw, OmctiPicture *pic, char *err, size_t errlen);
void async_writer_commit(AsyncWriter *aw);
/* Waits until every committed picture is written; < 0 on a write error. */
int  async_writer_drain(AsyncWriter *aw, char *err, size_t errlen);
void async_writer_stop(AsyncWriter **aw);

#endif

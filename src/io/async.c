#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common.h"
#include "src/frame.h"
#include "src/io/async.h"

/* A ring of pictures shared by one producer and one consumer. */
typedef struct PictureRing {
    OmctiPicture *pics;
    uint8_t *buf;
    int depth;
    int head, count;        /* oldest filled slot, filled slots            */
} PictureRing;

static int ring_alloc(PictureRing *q, int w, int h, int depth)
{
    const size_t luma = (size_t)w * h, chroma = (size_t)chroma_size(w) * chroma_size(h);
    const size_t size = ALIGN_UP(luma + 2 * chroma, 64);
    q->depth = depth;
    q->pics = calloc(depth, sizeof *q->pics);
    q->buf = aligned_calloc(size * depth);
    if (!q->pics || !q->buf) return -1;
    for (int i = 0; i < depth; i++) {
        uint8_t *b = q->buf + size * i;
        q->pics[i] = (OmctiPicture){
            .data = { b, b + luma, b + luma + chroma },
            .stride = { w, chroma_size(w), chroma_size(w) },
            .width = w, .height = h,
        };
    }
    return 0;
}

static void ring_free(PictureRing *q)
{
    free(q->pics);
    aligned_free(q->buf);
    memset(q, 0, sizeof *q);
}

/* Waits on cond for at most 100 ms when a cancel request must be watched
 * (a signal does not end a wait), else as long as it takes. */
static void wait_changed(pthread_cond_t *cond, pthread_mutex_t *lock, const IoCancel *cancel)
{
    if (!cancel || !cancel->requested) {
        pthread_cond_wait(cond, lock);
        return;
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 100000000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(cond, lock, &t);
}

static int cancelled(const IoCancel *cancel)
{
    return cancel && cancel->requested && cancel->requested();
}

/* Joins a thread that may be blocked in a read or write of a pipe: the
 * wake signal (whose handler has no SA_RESTART) makes that call fail with
 * EINTR, and the I/O code stops retrying once the cancel is requested.
 * Sent until the thread has gone, as it may not have blocked yet. */
static void join_waking(pthread_t thread, pthread_mutex_t *lock, pthread_cond_t *cond,
                        const int *exited, const IoCancel *cancel)
{
    if (cancel && cancel->wake_signal && cancelled(cancel)) {
        pthread_mutex_lock(lock);
        while (!*exited) {
            pthread_kill(thread, cancel->wake_signal);
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 20000000;
            if (t.tv_nsec >= 1000000000) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(cond, lock, &t);
        }
        pthread_mutex_unlock(lock);
    }
    pthread_join(thread, NULL);
}

/* ---- reader ---- */

struct AsyncReader {
    VideoReader *r;
    PictureRing q;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int started;
    int holding;            /* the consumer still uses the head slot       */
    int done;               /* producer finished: end or error             */
    int status;             /* 0 end of stream, < 0 error                  */
    int quit;
    int exited;             /* the thread is about to return               */
    const IoCancel *cancel;
    int width, height;      /* the ring's pictures, allocated on the first */
    int64_t left;           /* pictures still to read (< 0: to the end)    */
    int64_t pts[16];        /* each slot's timestamp (depth <= 16)         */
    int64_t origin[16];     /* and the reader's origins at it             */
    int64_t audio_origin[16];
    char err[1024];
};

static void *reader_main(void *arg)
{
    AsyncReader *ar = arg;
    char err[1024] = "";
    for (;;) {
        pthread_mutex_lock(&ar->lock);
        while (!ar->quit && ar->q.count + ar->holding >= ar->q.depth)
            pthread_cond_wait(&ar->changed, &ar->lock);
        const int quit = ar->quit;
        const int slot = (ar->q.head + ar->q.count + ar->holding) % ar->q.depth;
        pthread_mutex_unlock(&ar->lock);
        if (quit) break;

        OmctiPicture in;
        int ret = ar->left == 0 ? 0 : video_reader_read(ar->r, &in, err, sizeof err);
        if (ret > 0 && ar->left > 0) ar->left--;
        /* The ring takes memory only once a picture exists: a stream that
         * ends (or stalls) after its header costs nothing. */
        if (ret > 0 && !ar->q.buf && ring_alloc(&ar->q, ar->width, ar->height, ar->q.depth) < 0)
            ret = set_error(err, sizeof err, OMCTI_ERR_NOMEM,
                            "out of memory for the read-ahead buffers");
        if (ret > 0 && (in.width != ar->q.pics[slot].width || in.height != ar->q.pics[slot].height)) {
            /* Passed on as is: the consumer names the change with its sizes. */
            ar->q.pics[slot].width = in.width;
            ar->q.pics[slot].height = in.height;
        } else if (ret > 0) {
            picture_copy(&ar->q.pics[slot], &in);
        }
        if (ret > 0) {
            ar->pts[slot] = video_reader_pts(ar->r);
            ar->origin[slot] = video_reader_origin(ar->r);
            ar->audio_origin[slot] = video_reader_audio_origin(ar->r);
        }
        pthread_mutex_lock(&ar->lock);
        if (ret > 0) {
            ar->q.count++;
        } else {
            ar->done = 1;
            ar->status = ret;
            snprintf(ar->err, sizeof ar->err, "%s", err);
        }
        pthread_cond_broadcast(&ar->changed);
        pthread_mutex_unlock(&ar->lock);
        if (ret <= 0) break;
    }
    pthread_mutex_lock(&ar->lock);
    ar->exited = 1;
    pthread_cond_broadcast(&ar->changed);
    pthread_mutex_unlock(&ar->lock);
    return NULL;
}

int async_reader_start(AsyncReader **out, VideoReader *r, int depth, int64_t limit,
                       const IoCancel *cancel, char *err, size_t errlen)
{
    const VideoInfo *info = video_reader_info(r);
    AsyncReader *ar = calloc(1, sizeof *ar);
    if (!ar)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory for the read-ahead buffers");
    ar->q.depth = min_i(max_i(depth, 2) + 1, (int)ARRAY_LEN(ar->pts));
    ar->width = info->width;
    ar->height = info->height;
    ar->cancel = cancel;
    ar->left = limit < 0 ? -1 : limit;
    ar->r = r;
    pthread_mutex_init(&ar->lock, NULL);
    pthread_cond_init(&ar->changed, NULL);
    if (pthread_create(&ar->thread, NULL, reader_main, ar)) {
        async_reader_stop(&ar);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cannot start the reader thread");
    }
    ar->started = 1;
    *out = ar;
    return 0;
}

int async_reader_next(AsyncReader *ar, OmctiPicture *pic, char *err, size_t errlen)
{
    pthread_mutex_lock(&ar->lock);
    if (ar->holding) {                    /* release the previous picture */
        ar->holding = 0;
        ar->q.head = (ar->q.head + 1) % ar->q.depth;
        pthread_cond_broadcast(&ar->changed);
    }
    while (!ar->q.count && !ar->done && !cancelled(ar->cancel))
        wait_changed(&ar->changed, &ar->lock, ar->cancel);
    int ret;
    if (!ar->q.count && !ar->done) {
        ret = set_error(err, errlen, OMCTI_ERR_INTERRUPT, "interrupted");
    } else if (ar->q.count) {
        *pic = ar->q.pics[ar->q.head];
        ar->q.count--;
        ar->holding = 1;
        ret = 1;
    } else {
        ret = ar->status;
        if (ret < 0) set_error(err, errlen, ret, "%s", ar->err);
    }
    pthread_mutex_unlock(&ar->lock);
    return ret;
}

int64_t async_reader_pts(const AsyncReader *ar)
{
    return ar->pts[ar->q.head];
}

int64_t async_reader_origin(const AsyncReader *ar)
{
    return ar->origin[ar->q.head];
}

int64_t async_reader_audio_origin(const AsyncReader *ar)
{
    return ar->audio_origin[ar->q.head];
}

void async_reader_stop(AsyncReader **par)
{
    AsyncReader *ar = *par;
    if (!ar) return;
    if (ar->started) {
        pthread_mutex_lock(&ar->lock);
        ar->quit = 1;
        pthread_cond_broadcast(&ar->changed);
        pthread_mutex_unlock(&ar->lock);
        join_waking(ar->thread, &ar->lock, &ar->changed, &ar->exited, ar->cancel);
    }
    pthread_mutex_destroy(&ar->lock);
    pthread_cond_destroy(&ar->changed);
    ring_free(&ar->q);
    free(ar);
    *par = NULL;
}

/* ---- writer ---- */

struct AsyncWriter {
    VideoWriter *w;
    PictureRing q;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int started;
    int acquired;           /* the producer fills the slot after the queue */
    int writing;            /* the writer thread is writing the head slot  */
    int status;             /* < 0 once a write failed                     */
    int quit;
    int exited;
    const IoCancel *cancel;
    char err[1024];
};

static void *writer_main(void *arg)
{
    AsyncWriter *aw = arg;
    char err[1024] = "";
    for (;;) {
        pthread_mutex_lock(&aw->lock);
        while (!aw->quit && !aw->q.count)
            pthread_cond_wait(&aw->changed, &aw->lock);
        if (!aw->q.count) {                   /* quit with nothing queued */
            pthread_mutex_unlock(&aw->lock);
            break;
        }
        const OmctiPicture pic = aw->q.pics[aw->q.head];
        aw->writing = 1;
        pthread_mutex_unlock(&aw->lock);

        int ret = aw->status < 0 ? 0 : video_writer_write(aw->w, &pic, err, sizeof err);

        pthread_mutex_lock(&aw->lock);
        aw->writing = 0;
        aw->q.head = (aw->q.head + 1) % aw->q.depth;
        aw->q.count--;
        if (ret < 0 && aw->status == 0) {
            aw->status = ret;
            snprintf(aw->err, sizeof aw->err, "%s", err);
        }
        pthread_cond_broadcast(&aw->changed);
        pthread_mutex_unlock(&aw->lock);
    }
    pthread_mutex_lock(&aw->lock);
    aw->exited = 1;
    pthread_cond_broadcast(&aw->changed);
    pthread_mutex_unlock(&aw->lock);
    return NULL;
}

int async_writer_start(AsyncWriter **out, VideoWriter *vw, int w, int h, int depth,
                       const IoCancel *cancel, char *err, size_t errlen)
{
    AsyncWriter *aw = calloc(1, sizeof *aw);
    if (!aw || ring_alloc(&aw->q, w, h, max_i(depth, 2) + 1) < 0) {
        if (aw) ring_free(&aw->q);
        free(aw);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory for the write-behind buffers");
    }
    aw->w = vw;
    aw->cancel = cancel;
    pthread_mutex_init(&aw->lock, NULL);
    pthread_cond_init(&aw->changed, NULL);
    if (pthread_create(&aw->thread, NULL, writer_main, aw)) {
        async_writer_stop(&aw);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cannot start the writer thread");
    }
    aw->started = 1;
    *out = aw;
    return 0;
}

int async_writer_acquire(AsyncWriter *aw, OmctiPicture *pic, char *err, size_t errlen)
{
    pthread_mutex_lock(&aw->lock);
    while (aw->status == 0 && aw->q.count + 1 > aw->q.depth - 1 && !cancelled(aw->cancel))
        wait_changed(&aw->changed, &aw->lock, aw->cancel);
    if (aw->status == 0 && cancelled(aw->cancel))
        aw->status = OMCTI_ERR_INTERRUPT;
    int ret = aw->status;
    if (ret < 0) {
        set_error(err, errlen, ret, "%s", aw->err[0] ? aw->err : "interrupted");
    } else {
        *pic = aw->q.pics[(aw->q.head + aw->q.count) % aw->q.depth];
        aw->acquired = 1;
    }
    pthread_mutex_unlock(&aw->lock);
    return ret;
}

void async_writer_commit(AsyncWriter *aw)
{
    pthread_mutex_lock(&aw->lock);
    if (aw->acquired) {
        aw->acquired = 0;
        aw->q.count++;
        pthread_cond_broadcast(&aw->changed);
    }
    pthread_mutex_unlock(&aw->lock);
}

int async_writer_drain(AsyncWriter *aw, char *err, size_t errlen)
{
    pthread_mutex_lock(&aw->lock);
    while (aw->q.count && aw->status == 0 && !cancelled(aw->cancel))
        wait_changed(&aw->changed, &aw->lock, aw->cancel);
    if (aw->status == 0 && cancelled(aw->cancel))
        aw->status = OMCTI_ERR_INTERRUPT;
    while (aw->writing && aw->status == 0)
        wait_changed(&aw->changed, &aw->lock, aw->cancel);
    int ret = aw->status;
    if (ret < 0) set_error(err, errlen, ret, "%s", aw->err[0] ? aw->err : "interrupted");
    pthread_mutex_unlock(&aw->lock);
    return ret;
}

void async_writer_stop(AsyncWriter **paw)
{
    AsyncWriter *aw = *paw;
    if (!aw) return;
    if (aw->started) {
        pthread_mutex_lock(&aw->lock);
        aw->quit = 1;
        if (aw->status == 0) aw->status = OMCTI_ERR_STATE;   /* drop what is queued */
        pthread_cond_broadcast(&aw->changed);
        pthread_mutex_unlock(&aw->lock);
        join_waking(aw->thread, &aw->lock, &aw->changed, &aw->exited, aw->cancel);
    }
    pthread_mutex_destroy(&aw->lock);
    pthread_cond_destroy(&aw->changed);
    ring_free(&aw->q);
    free(aw);
    *paw = NULL;
}

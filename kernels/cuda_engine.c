/* The CUDA motion engine: host side.
 *
 * Per pair: the frames are made resident in the device's frame store
 * (cuda_device.c: what is not on the GPU yet is copied up, luma on
 * `stream`, where the search waits for it; chroma, when the filter renders
 * on the GPU too, on `stream2`, overlapping the search), one kernel launch
 * searches both directions, and the two fields come back in one small copy.
 * The fields stay on the device for the filter's backend as well
 * (CudaDevice.d_fwd).
 *
 * The engine runs on the context's device (MotionParams.dev) or, made
 * alone (tests, benchmarks), on one of its own. All state lives in the
 * engine and the device (no globals). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/cuda_device.h"
#include "kernels/cuda_engine.h"
#include "kernels/cuda_me.h"
#include "src/common.h"
#include "src/motion/engine.h"
#include "src/motion/pyramid_block.h"

struct MotionEngine {
    MotionParams p;
    CudaDevice *d;
    int own_device;            /* d was opened by the engine (no context)  */
    int bw, bh;
    cudaEvent_t ev0, ev1;
    int tile_k;                /* 0, or forced (benchmarks, tests)         */
    void *d_out, *h_out;       /* points (u64), mv/sad fwd, mv/sad bwd     */
    size_t out_bytes;
    CudaPyrArgs pyr;           /* pyramid search: buffers made at create    */
    /* Level 0's vectors kept for the next pair (pyramid_level0.h),
     * [buffer][field]. */
    uint32_t *kept[2][2];
    PyrHistory pyr_hist;
};

static int engine_available(char *err, size_t errlen)
{
    return cuda_available(err, errlen);
}

static int cuda_devices(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

static void cuda_destroy(MotionEngine **pe)
{
    MotionEngine *e = pe ? *pe : NULL;
    if (!e)
        return;
    /* Errors are ignored here: there is nothing left to report them to. */
    if (e->d) {
        cudaSetDevice(e->d->dev);
        cudaStreamSynchronize(e->d->stream);
        e->d->d_fwd = e->d->d_bwd = NULL;
        e->d->fields_prev = e->d->fields_next = 0;
    }
    for (int i = 0; i < 2; i++) {
        for (int l = 0; l < CUDA_PYR_LEVELS; l++) {
            cudaFree(e->pyr.level[i][l]);
            cudaFree(e->pyr.vec[i][l]);
        }
        cudaFree(e->pyr.top1[i]);
        cudaFree(e->pyr.vol[i]);
        for (int f = 0; f < 2; f++)
            cudaFree(e->kept[i][f]);
    }
    cudaFree(e->d_out);
    cudaFreeHost(e->h_out);
    if (e->ev0)
        cudaEventDestroy(e->ev0);
    if (e->ev1)
        cudaEventDestroy(e->ev1);
    if (e->own_device)
        cuda_device_destroy(&e->d);
    free(e);
    *pe = NULL;
}

/* The pyramid search's device buffers (its sizes as pyramid.c's). */
static int pyramid_init(MotionEngine *e, char *err, size_t errlen)
{
    CudaPyrArgs *a = &e->pyr;
    a->levels = pyr_levels(e->p.width);
    a->block = e->p.block;
    a->bw = e->bw;
    a->bh = e->bh;
    for (int l = 0; l <= a->levels; l++) {
        a->w[l] = pyr_level_size(e->p.width, l);
        a->h[l] = pyr_level_size(e->p.height, l);
        a->nbx[l] = (a->w[l] + PYR_B - 1) / PYR_B;
        a->nby[l] = (a->h[l] + PYR_B - 1) / PYR_B;
        if (l == 0)
            continue;
        const size_t nb = (size_t)a->nbx[l] * a->nby[l];
        for (int i = 0; i < 2; i++) {
            CUDA_CHECK(cudaMalloc((void **)&a->level[i][l], (size_t)a->w[l] * a->h[l]));
            CUDA_CHECK(cudaMalloc((void **)&a->vec[i][l], nb * sizeof(uint32_t)));
        }
    }
    const size_t nt = (size_t)a->nbx[a->levels] * a->nby[a->levels];
    for (int i = 0; i < 2; i++) {
        CUDA_CHECK(cudaMalloc((void **)&a->top1[i], nt * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc((void **)&a->vol[i], nt * PYR_TOP_N * sizeof(uint32_t)));
        for (int f = 0; f < 2; f++)
            CUDA_CHECK(cudaMalloc((void **)&e->kept[i][f],
                                  (size_t)e->bw * e->bh * sizeof(uint32_t)));
    }
    return 0;
}

static int engine_init(MotionEngine *e, char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(e->d->dev));
    CUDA_CHECK(cudaEventCreate(&e->ev0));
    CUDA_CHECK(cudaEventCreate(&e->ev1));
    const size_t nb = (size_t)e->bw * e->bh;
    /* points, then 4 fields of nb words */
    e->out_bytes = 8 + 4 * nb * sizeof(uint32_t);
    CUDA_CHECK(cudaMalloc(&e->d_out, e->out_bytes));
    CUDA_CHECK(cudaMallocHost(&e->h_out, e->out_bytes));
    if (e->p.search == OMCTI_SEARCH_PYRAMID)
        return pyramid_init(e, err, errlen);
    return 0;
}

static int cuda_create(MotionEngine **pe, const MotionParams *p, char *err, size_t errlen)
{
    *pe = NULL;
    if (p->block != 8 && p->block != 16 && p->block != 32)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: block size %d is not 8, 16 or 32", p->block);
    if (p->range < 1 || p->range > 64)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: search range %d is outside 1..64", p->range);
    if (p->width < 1 || p->height < 1)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: picture size %dx%d is invalid", p->width, p->height);
    if (p->search != OMCTI_SEARCH_FULL && p->search != OMCTI_SEARCH_DIAMOND &&
        p->search != OMCTI_SEARCH_PYRAMID)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "cuda engine: unknown search %d",
                         (int)p->search);
    MotionEngine *e = calloc(1, sizeof *e);
    if (!e)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cuda engine: out of memory");
    e->p = *p;
    e->p.dev = NULL;
    e->bw = (p->width + p->block - 1) / p->block;
    e->bh = (p->height + p->block - 1) / p->block;
    int rc = 0;
    if (p->dev && p->dev->type == &cuda_device_type) {
        e->d = p->dev->priv;
    } else {
        e->own_device = 1;
        rc = cuda_device_create(&e->d, p->device, err, errlen);
    }
    if (rc >= 0)
        rc = engine_init(e, err, errlen);
    if (rc < 0) {
        cuda_destroy(&e);
        return rc;
    }
    *pe = e;
    return 0;
}

static int check_pair(const MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                      const MotionFields *out, char *err, size_t errlen)
{
    const MotionParams *p = &e->p;
    const OmctiPlane *a = &prev->p[0], *b = &next->p[0];
    const int need_pad = p->range + p->block;
    if (a->w != p->width || a->h != p->height || b->w != p->width || b->h != p->height)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: frames are %dx%d and %dx%d, engine made for %dx%d",
                         a->w, a->h, b->w, b->h, p->width, p->height);
    if (a->pad < need_pad || b->pad < need_pad)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: frame padding %d is less than range + block = %d",
                         a->pad < b->pad ? a->pad : b->pad, need_pad);
    for (int c = 0; c < 3; c++) {
        const OmctiPlane *x = &prev->p[c], *y = &next->p[c];
        if (x->stride != y->stride || x->pad != y->pad || x->data - x->buf != y->data - y->buf)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "cuda engine: the two frames of a pair have different layouts");
    }
    if (out && (out->fwd.block != p->block || out->fwd.bw != e->bw || out->fwd.bh != e->bh ||
                out->bwd.block != p->block || out->bwd.bw != e->bw || out->bwd.bh != e->bh))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: motion fields do not match the picture and block size");
    return 0;
}

/* Validates, uploads what is missing and fills the kernel arguments. */
static int prepare(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                   const MotionFields *out, CudaMeArgs *a, int *sp_out, int *sn_out, char *err,
                   size_t errlen)
{
    int rc = check_pair(e, prev, next, out, err, errlen);
    if (rc < 0)
        return rc;
    /* The staging buffers are reused, and the context rewrites a frame two
     * pictures after it was sent: the copies of the last call must be done
     * (they are, unless that call failed half-way). */
    if ((rc = cuda_device_sync(e->d, err, errlen)) < 0)
        return rc;
    int sp, sn;
    if ((rc = cuda_frames_resident(e->d, prev, next, &sp, &sn, err, errlen)) < 0)
        return rc;

    memset(a, 0, sizeof *a);
    const PlaneLayout *l = &e->d->lay[0];
    const CudaMePlane base = { NULL, (int)l->stride, l->xlo, l->xhi, l->ylo, l->yhi };
    a->prev = a->next = base;
    a->prev.data = e->d->slot[sp].buf + l->dev_off + l->off;
    a->next.data = e->d->slot[sn].buf + l->dev_off + l->off;
    a->block = e->p.block;
    a->range = e->p.range;
    a->bw = e->bw;
    a->bh = e->bh;
    a->tile_k = e->tile_k;
    const size_t nb = (size_t)e->bw * e->bh;
    uint8_t *o = e->d_out;
    a->points = (unsigned long long *)o;
    a->mv[0] = (uint32_t *)(o + 8);
    a->sad[0] = a->mv[0] + nb;
    a->mv[1] = a->sad[0] + nb;
    a->sad[1] = a->mv[1] + nb;
    if (sp_out)
        *sp_out = sp;
    if (sn_out)
        *sn_out = sn;
    return 0;
}

static int kernel_of(const MotionEngine *e, int kind)
{
    if (kind == CUDA_KERNEL_AUTO)
        return e->p.search == OMCTI_SEARCH_DIAMOND ? CUDA_ME_DIAMOND
             : e->p.search == OMCTI_SEARCH_PYRAMID ? CUDA_ME_PYRAMID
                                                   : CUDA_ME_FULL;
    return kind == CUDA_KERNEL_DIAMOND ? CUDA_ME_DIAMOND
         : kind == CUDA_KERNEL_NAIVE   ? CUDA_ME_FULL_NAIVE
                                       : CUDA_ME_FULL;
}

/* The pyramid's level-0 history (pyramid_level0.h) for a pair whose prev
 * is prev: the buffers its kernel reads and writes. Returns the buffer
 * written, to be recorded once the pair's fields are in (an error leaves
 * the history as it was), or -1 for the other kernels, which keep it. */
static int history_bind(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next, int k)
{
    if (k != CUDA_ME_PYRAMID)
        return -1;
    const int hs = pyr_history_read(&e->pyr_hist, prev->serial);
    const int ws = pyr_history_write(&e->pyr_hist, hs);
    e->pyr_hist.tag[ws] = 0; /* rewritten from here on */
    for (int f = 0; f < 2; f++) {
        e->pyr.hist[f] = hs >= 0 ? e->kept[hs][f] : NULL;
        e->pyr.kept[f] = e->kept[ws][f];
    }
    e->pyr.keep_final = pyr_history_keeps_final(prev->number, next->number);
    return ws;
}

static int launch(MotionEngine *e, const CudaMeArgs *a, int k, char *err, size_t errlen)
{
    if (k == CUDA_ME_DIAMOND || k == CUDA_ME_PYRAMID)
        CUDA_CHECK(cudaMemsetAsync(a->points, 0, sizeof *a->points, e->d->stream));
    cudaError_t rc;
    if (k == CUDA_ME_PYRAMID) {
        /* The frames of this pair and the outputs of prepare(). */
        CudaPyrArgs *pa = &e->pyr;
        pa->frame[0] = a->prev.data;
        pa->frame[1] = a->next.data;
        pa->frame_stride = a->prev.stride;
        for (int f = 0; f < 2; f++) {
            pa->mv[f] = a->mv[f];
            pa->sad[f] = a->sad[f];
        }
        pa->points = a->points;
        rc = cuda_me_pyramid_launch(pa, e->d->stream);
    } else {
        rc = cuda_me_launch(a, k, e->d->stream);
    }
    if (rc != cudaSuccess)
        return cuda_fail(err, errlen, "cuda_me_launch (kernel launch)", rc);
    return 0;
}

int cuda_engine_estimate_kind(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                              int kind, MotionFields *out, char *err, size_t errlen)
{
    CudaMeArgs a;
    int rc = prepare(e, prev, next, out, &a, NULL, NULL, err, errlen);
    if (rc < 0)
        return rc;
    const int k = kernel_of(e, kind);
    const int ws = history_bind(e, prev, next, k);
    if ((rc = launch(e, &a, k, err, errlen)) < 0)
        return rc;
    CUDA_CHECK(cudaMemcpyAsync(e->h_out, e->d_out, e->out_bytes, cudaMemcpyDeviceToHost,
                               e->d->stream));
    /* Kernel faults surface here, with their own message. The chroma
     * uploads (stream2) ran beside the search; they are waited for too, so
     * that the caller may rewrite its frames after any estimate(). */
    if ((rc = cuda_device_sync(e->d, err, errlen)) < 0)
        return rc;
    /* The fields stay on the device for the filter (serial 0: never). */
    const size_t nbf = (size_t)e->bw * e->bh;
    e->d->d_fwd = (const McVec *)((const uint8_t *)e->d_out + 8);
    e->d->d_bwd = e->d->d_fwd + 2 * nbf;
    e->d->fields_prev = prev->serial;
    e->d->fields_next = prev->serial ? next->serial : 0;
    if (ws >= 0)
        pyr_history_done(&e->pyr_hist, ws, prev->serial, next->serial);

    const size_t nb = (size_t)e->bw * e->bh;
    const uint8_t *h = e->h_out;
    uint64_t points;
    memcpy(&points, h, sizeof points);
    h += 8;
    memcpy(out->fwd.mv, h, nb * 4);
    memcpy(out->fwd.sad, h + nb * 4, nb * 4);
    memcpy(out->bwd.mv, h + nb * 8, nb * 4);
    memcpy(out->bwd.sad, h + nb * 12, nb * 4);
    const uint64_t b2 = (uint64_t)e->p.block * (uint64_t)e->p.block;
    if (k == CUDA_ME_PYRAMID) {
        out->abs_diffs = points; /* counted as the CPU engine counts them */
    } else if (k == CUDA_ME_DIAMOND) {
        out->abs_diffs = points * b2;
    } else {
        /* Full search evaluates the whole window for every block, as the
         * CPU engine counts it (the tiles' rounding is not counted). */
        const uint64_t side = 2 * (uint64_t)e->p.range + 1;
        out->abs_diffs = 2 * (uint64_t)nb * side * side * b2;
    }
    return 0;
}

static int cuda_estimate(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                         MotionFields *out, char *err, size_t errlen)
{
    return cuda_engine_estimate_kind(e, prev, next, CUDA_KERNEL_AUTO, out, err, errlen);
}

int cuda_engine_time_kernel(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                            int kind, int warmup, int reps, float *ms, char *err, size_t errlen)
{
    CudaMeArgs a;
    int rc = prepare(e, prev, next, NULL, &a, NULL, NULL, err, errlen);
    if (rc < 0)
        return rc;
    const int k = kernel_of(e, kind);
    /* Each launch is the pair's search, history included, as in estimate. */
    const int ws = history_bind(e, prev, next, k);
    for (int i = 0; i < warmup; i++)
        if ((rc = launch(e, &a, k, err, errlen)) < 0)
            return rc;
    for (int i = 0; i < reps; i++) {
        CUDA_CHECK(cudaEventRecord(e->ev0, e->d->stream));
        if ((rc = launch(e, &a, k, err, errlen)) < 0)
            return rc;
        CUDA_CHECK(cudaEventRecord(e->ev1, e->d->stream));
        CUDA_CHECK(cudaEventSynchronize(e->ev1));
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], e->ev0, e->ev1));
    }
    if ((rc = cuda_device_sync(e->d, err, errlen)) < 0)
        return rc;
    if (ws >= 0 && warmup + reps > 0)
        pyr_history_done(&e->pyr_hist, ws, prev->serial, next->serial);
    return 0;
}

const char *cuda_engine_device_name(const MotionEngine *e)
{
    return e->d->name;
}

void cuda_engine_set_tile(MotionEngine *e, int k)
{
    e->tile_k = k;
}

unsigned long cuda_engine_uploads(const MotionEngine *e)
{
    return e->d->uploads;
}

unsigned long cuda_engine_direct_uploads(const MotionEngine *e)
{
    return e->d->direct_uploads;
}

const MotionEngineVTable motion_engine_cuda = {
    .name = "cuda",
    .device = &cuda_device_type,
    .available = engine_available,
    .devices = cuda_devices,
    .create = cuda_create,
    .estimate = cuda_estimate,
    .destroy = cuda_destroy,
};

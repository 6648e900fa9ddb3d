/* The CUDA motion engine: host side.
 *
 * Per pair: the planes that are not on the GPU yet are copied up (luma on
 * `stream`, where the search waits for it; chroma, when the GPU also
 * interpolates, on `stream2`, overlapping the search), one kernel launch
 * searches both directions, and the two fields (plus the scene-cut
 * statistics, cuda_filter.c) come back in one small copy. Frames the
 * context registered (register_frame: its two ring frames, pinned in place
 * with cudaHostRegister) are copied straight from its memory; others go
 * through pinned staging buffers in 1 MiB pieces, so the host copy of one
 * piece overlaps the DMA of the one before. Device copies are cached by
 * OmctiFrame.serial: the next frame of one pair is the previous frame of
 * the next pair, so a video uploads every frame once. Serial 0 means
 * "unknown content" (frames made outside a context) and is never reused
 * from the cache.
 *
 * Every CUDA call is checked; a failure returns OMCTI_ERR_ENGINE with the
 * call and CUDA's own message. Without a driver or a GPU, available()
 * says why in one line and create() fails the same way; nothing here
 * aborts. All state lives in the engine (no globals). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/cuda_engine.h"
#include "kernels/cuda_priv.h"
#include "src/common.h"
#include "src/motion/engine.h"

#define UPLOAD_PIECE (1u << 20)

int cuda_fail(char *err, size_t errlen, const char *call, cudaError_t rc)
{
    /* Name the function only: the argument list adds nothing for a user. */
    return set_error(err, errlen, OMCTI_ERR_ENGINE, "cuda engine: %.*s failed: %s (%s)",
                     (int)strcspn(call, "("), call, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

static int cuda_available(char *err, size_t errlen)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess) {
        /* Without any driver CUDA reports an "insufficient" one; say which. */
        int drv = 0;
        const int none = rc == cudaErrorInsufficientDriver &&
                         cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0;
        set_error(err, errlen, OMCTI_ERR_ENGINE,
                  "engine 'cuda' is not available: %scudaGetDeviceCount failed: %s (%s)",
                  none ? "no NVIDIA driver found; " : "", cudaGetErrorString(rc),
                  cudaGetErrorName(rc));
        return 0;
    }
    if (n < 1) {
        set_error(err, errlen, OMCTI_ERR_ENGINE, "engine 'cuda' is not available: no CUDA device");
        return 0;
    }
    rc = cuda_me_probe();
    if (rc != cudaSuccess) {
        set_error(err, errlen, OMCTI_ERR_ENGINE,
                  "engine 'cuda' is not available: the GPU cannot run this build's kernels: %s "
                  "(%s); rebuild with -Dgpu_arch= for this GPU",
                  cudaGetErrorString(rc), cudaGetErrorName(rc));
        return 0;
    }
    return 1;
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
    /* Errors are ignored here: there is nothing left to report them to,
     * and a failed free must not stop the others. */
    cudaSetDevice(e->dev);
    if (e->stream)
        cudaStreamSynchronize(e->stream);
    if (e->stream2)
        cudaStreamSynchronize(e->stream2);
    cuda_interp_free(e);
    /* The frames stay the caller's; only their pinning ends here, before
     * the caller frees them (engine.h, register_frame). */
    for (int i = 0; i < e->nreg; i++)
        cudaHostUnregister((void *)e->reg[i].p);
    for (int i = 0; i < NSLOTS; i++)
        cudaFree(e->slot[i].buf);
    for (int i = 0; i < 2; i++)
        cudaFreeHost(e->stage[i]);
    cudaFree(e->d_out);
    cudaFreeHost(e->h_out);
    if (e->ev0)
        cudaEventDestroy(e->ev0);
    if (e->ev1)
        cudaEventDestroy(e->ev1);
    if (e->ev_up)
        cudaEventDestroy(e->ev_up);
    if (e->stream)
        cudaStreamDestroy(e->stream);
    if (e->stream2)
        cudaStreamDestroy(e->stream2);
    free(e);
    *pe = NULL;
}

static int engine_init(MotionEngine *e, char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(e->dev));
    const cudaError_t rc = cuda_me_probe();
    if (rc != cudaSuccess)
        return set_error(err, errlen, OMCTI_ERR_ENGINE,
                         "cuda engine: device %d cannot run this build's kernels: %s (%s)",
                         e->dev, cudaGetErrorString(rc), cudaGetErrorName(rc));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, e->dev));
    snprintf(e->name, sizeof e->name, "%s (cc %d.%d, %d SMs)", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount);
    CUDA_CHECK(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&e->stream2, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&e->ev0));
    CUDA_CHECK(cudaEventCreate(&e->ev1));
    CUDA_CHECK(cudaEventCreateWithFlags(&e->ev_up, cudaEventDisableTiming));
    const size_t nb = (size_t)e->bw * e->bh;
    /* points, 4 fields of nb words (a multiple of 8 bytes for nb even or
     * not: 16 nb), then the scene-cut statistics */
    e->stats_off = 8 + 4 * nb * sizeof(uint32_t);
    e->out_bytes = e->stats_off + sizeof(CudaMcStats);
    CUDA_CHECK(cudaMalloc(&e->d_out, e->out_bytes));
    CUDA_CHECK(cudaMallocHost(&e->h_out, e->out_bytes));
    e->need_planes = 1;
    e->ip.method = -1;
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
    if (p->search != OMCTI_SEARCH_FULL && p->search != OMCTI_SEARCH_DIAMOND)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "cuda engine: unknown search %d",
                         (int)p->search);
    if (!cuda_available(err, errlen))
        return OMCTI_ERR_ENGINE;
    int n = 0;
    CUDA_CHECK(cudaGetDeviceCount(&n));
    if (p->device < 0 || p->device >= n)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: device %d does not exist (%d CUDA device%s found)",
                         p->device, n, n == 1 ? "" : "s");

    MotionEngine *e = calloc(1, sizeof *e);
    if (!e)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cuda engine: out of memory");
    e->p = *p;
    e->dev = p->device;
    e->bw = (p->width + p->block - 1) / p->block;
    e->bh = (p->height + p->block - 1) / p->block;
    const int rc = engine_init(e, err, errlen);
    if (rc < 0) {
        cuda_destroy(&e);
        return rc;
    }
    *pe = e;
    return 0;
}

static void plane_layout(const OmctiPlane *pl, PlaneLayout *l)
{
    l->stride = pl->stride;
    l->off = (size_t)(pl->data - pl->buf);
    const int rows_above = (int)(l->off / (size_t)pl->stride);
    l->bytes = (size_t)(rows_above + pl->h + pl->pad) * (size_t)pl->stride;
    l->w = pl->w;
    l->h = pl->h;
    l->ylo = -rows_above;
    l->yhi = pl->h + pl->pad - 1;
    l->xlo = -(int)(l->off % (size_t)pl->stride);
    l->xhi = (int)pl->stride + l->xlo - 1;
}

/* Takes the layout of a frame's planes; drops the cache when it changes. */
static int set_layout(MotionEngine *e, const OmctiFrame *f, char *err, size_t errlen)
{
    PlaneLayout l[3];
    size_t total = 0;
    for (int i = 0; i < 3; i++) {
        plane_layout(&f->p[i], &l[i]);
        l[i].dev_off = total;
        /* One spare row after each plane: a diamond thread reads one
         * aligned word past the last byte it uses. */
        total += ALIGN_UP(l[i].bytes + (size_t)l[i].stride, 256);
    }
    int same = e->slot[0].buf != NULL;
    for (int i = 0; i < 3 && same; i++)
        same = l[i].stride == e->lay[i].stride && l[i].off == e->lay[i].off &&
               l[i].bytes == e->lay[i].bytes && l[i].w == e->lay[i].w && l[i].h == e->lay[i].h;
    if (same)
        return 0;
    CUDA_CHECK(cudaStreamSynchronize(e->stream));
    CUDA_CHECK(cudaStreamSynchronize(e->stream2));
    for (int i = 0; i < NSLOTS; i++) {
        CUDA_CHECK(cudaFree(e->slot[i].buf));
        e->slot[i].buf = NULL;
        e->slot[i].serial = 0;
        e->slot[i].planes = 0;
    }
    for (int i = 0; i < 2; i++) {
        CUDA_CHECK(cudaFreeHost(e->stage[i]));
        e->stage[i] = NULL;
    }
    memcpy(e->lay, l, sizeof l);
    e->slot_bytes = total;
    for (int i = 0; i < NSLOTS; i++)
        CUDA_CHECK(cudaMalloc((void **)&e->slot[i].buf, total));
    return 0;
}

static int find_frame(MotionEngine *e, const OmctiFrame *f)
{
    if (f->serial)
        for (int i = 0; i < NSLOTS; i++)
            if (e->slot[i].serial == f->serial) {
                e->slot[i].used = ++e->tick;
                return i;
            }
    return -1;
}

static int host_pinned(const MotionEngine *e, const uint8_t *p, size_t n)
{
    for (int i = 0; i < e->nreg; i++)
        if (p >= e->reg[i].p && p + n <= e->reg[i].p + e->reg[i].n)
            return 1;
    return 0;
}

/* Copies planes [c0, c1) of f into slot s: luma on stream (the search
 * needs it first), chroma on stream2 (overlapping the search), straight
 * from the frame when it is pinned, else through the staging buffer in
 * pieces so that the host copy of one piece overlaps the DMA of the last. */
static int upload_planes(MotionEngine *e, const OmctiFrame *f, int s, int c0, int c1, int stage,
                         char *err, size_t errlen)
{
    DevFrame *d = &e->slot[s];
    for (int c = c0; c < c1; c++) {
        const PlaneLayout *l = &e->lay[c];
        const uint8_t *src = f->p[c].buf;
        uint8_t *dst = d->buf + l->dev_off;
        cudaStream_t st = c ? e->stream2 : e->stream;
        if (host_pinned(e, src, l->bytes)) {
            CUDA_CHECK(cudaMemcpyAsync(dst, src, l->bytes, cudaMemcpyHostToDevice, st));
            e->direct_uploads++;
            continue;
        }
        if (!e->stage[stage])
            CUDA_CHECK(cudaMallocHost((void **)&e->stage[stage], e->slot_bytes));
        uint8_t *stg = e->stage[stage] + l->dev_off;
        for (size_t done = 0; done < l->bytes; done += UPLOAD_PIECE) {
            const size_t n = l->bytes - done < UPLOAD_PIECE ? l->bytes - done : UPLOAD_PIECE;
            memcpy(stg + done, src + done, n);
            CUDA_CHECK(cudaMemcpyAsync(dst + done, stg + done, n, cudaMemcpyHostToDevice, st));
        }
    }
    if (c1 > 1 && c0 < c1)
        CUDA_CHECK(cudaEventRecord(e->ev_up, e->stream2));
    return 0;
}

/* Uploads frame f into the least recently used slot other than `keep` (the
 * slot of the other frame of the pair). */
static int upload_frame(MotionEngine *e, const OmctiFrame *f, int keep, int stage, int *slot_out,
                        char *err, size_t errlen)
{
    int v = -1;
    for (int i = 0; i < NSLOTS; i++)
        if (i != keep && (v < 0 || e->slot[i].used < e->slot[v].used))
            v = i;
    DevFrame *d = &e->slot[v];
    d->serial = 0; /* until the copy is queued completely */
    d->planes = 0;
    const int rc = upload_planes(e, f, v, 0, e->need_planes, stage, err, errlen);
    if (rc < 0)
        return rc;
    d->serial = f->serial;
    d->planes = e->need_planes;
    d->used = ++e->tick;
    e->uploads++;
    *slot_out = v;
    return 0;
}

int cuda_frames_resident(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                         int *sp_out, int *sn_out, char *err, size_t errlen)
{
    int rc;
    if ((rc = set_layout(e, prev, err, errlen)) < 0)
        return rc;
    int sp = find_frame(e, prev), sn = find_frame(e, next);
    if (sn < 0 && (rc = upload_frame(e, next, sp, 1, &sn, err, errlen)) < 0)
        return rc;
    if (sp < 0 && (rc = upload_frame(e, prev, sn, 0, &sp, err, errlen)) < 0)
        return rc;
    /* A frame cached for the search alone gets its chroma now. */
    if (e->slot[sn].planes < e->need_planes) {
        if ((rc = upload_planes(e, next, sn, e->slot[sn].planes, e->need_planes, 1, err,
                                errlen)) < 0)
            return rc;
        e->slot[sn].planes = e->need_planes;
    }
    if (e->slot[sp].planes < e->need_planes) {
        if ((rc = upload_planes(e, prev, sp, e->slot[sp].planes, e->need_planes, 0, err,
                                errlen)) < 0)
            return rc;
        e->slot[sp].planes = e->need_planes;
    }
    *sp_out = sp;
    *sn_out = sn;
    return 0;
}

CudaMcPlane cuda_dev_plane(const MotionEngine *e, int s, int c)
{
    const PlaneLayout *l = &e->lay[c];
    const CudaMcPlane p = { e->slot[s].buf + l->dev_off + l->off, (int)l->stride, l->w, l->h };
    return p;
}

/* Pins a plane of a context frame in place (cudaHostRegister), so that its
 * uploads need no staging copy. */
static void cuda_register_frame(MotionEngine *e, const OmctiFrame *f)
{
    if (cudaSetDevice(e->dev) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    for (int c = 0; c < 3 && e->nreg < MAX_REG; c++) {
        PlaneLayout l;
        plane_layout(&f->p[c], &l);
        if (cudaHostRegister(f->p[c].buf, l.bytes, cudaHostRegisterDefault) != cudaSuccess) {
            /* e.g. two small planes sharing a page: that plane is staged.
             * Clear the error so that no later check reports it. */
            cudaGetLastError();
            continue;
        }
        e->reg[e->nreg].p = f->p[c].buf;
        e->reg[e->nreg].n = l.bytes;
        e->nreg++;
    }
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
    CUDA_CHECK(cudaSetDevice(e->dev));
    /* The staging buffers are reused, and the context rewrites a frame two
     * pictures after it was sent: the copies of the last call must be done
     * (they are, unless that call failed half-way). */
    CUDA_CHECK(cudaStreamSynchronize(e->stream));
    CUDA_CHECK(cudaStreamSynchronize(e->stream2));
    int sp, sn;
    if ((rc = cuda_frames_resident(e, prev, next, &sp, &sn, err, errlen)) < 0)
        return rc;

    memset(a, 0, sizeof *a);
    const PlaneLayout *l = &e->lay[0];
    const CudaMePlane base = { NULL, (int)l->stride, l->xlo, l->xhi, l->ylo, l->yhi };
    a->prev = a->next = base;
    a->prev.data = e->slot[sp].buf + l->dev_off + l->off;
    a->next.data = e->slot[sn].buf + l->dev_off + l->off;
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
        return e->p.search == OMCTI_SEARCH_DIAMOND ? CUDA_ME_DIAMOND : CUDA_ME_FULL;
    return kind == CUDA_KERNEL_DIAMOND ? CUDA_ME_DIAMOND
         : kind == CUDA_KERNEL_NAIVE   ? CUDA_ME_FULL_NAIVE
                                       : CUDA_ME_FULL;
}

static int launch(MotionEngine *e, const CudaMeArgs *a, int k, char *err, size_t errlen)
{
    if (k == CUDA_ME_DIAMOND)
        CUDA_CHECK(cudaMemsetAsync(a->points, 0, sizeof *a->points, e->stream));
    const cudaError_t rc = cuda_me_launch(a, k, e->stream);
    if (rc != cudaSuccess)
        return cuda_fail(err, errlen, "cuda_me_launch (kernel launch)", rc);
    return 0;
}

int cuda_engine_estimate_kind(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                              int kind, MotionFields *out, char *err, size_t errlen)
{
    CudaMeArgs a;
    int sp = 0, sn = 0;
    int rc = prepare(e, prev, next, out, &a, &sp, &sn, err, errlen);
    if (rc < 0)
        return rc;
    const int k = kernel_of(e, kind);
    if ((rc = launch(e, &a, k, err, errlen)) < 0)
        return rc;
    /* The scene-cut statistics of the pair, for the GPU filter: they come
     * back with the fields in the same copy. */
    if ((rc = cuda_interp_stats_launch(e, sp, sn, err, errlen)) < 0)
        return rc;
    CUDA_CHECK(cudaMemcpyAsync(e->h_out, e->d_out, e->out_bytes, cudaMemcpyDeviceToHost,
                               e->stream));
    /* Kernel faults surface here, with their own message. The chroma
     * uploads (stream2) ran beside the search; they are waited for too, so
     * that the caller may rewrite its frames after any estimate(). */
    CUDA_CHECK(cudaStreamSynchronize(e->stream));
    CUDA_CHECK(cudaStreamSynchronize(e->stream2));
    if (e->ip.method >= 0) {
        e->ip.stats_prev = prev->serial;
        e->ip.stats_next = next->serial;
    }

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
    if (k == CUDA_ME_DIAMOND) {
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
    for (int i = 0; i < warmup; i++)
        if ((rc = launch(e, &a, k, err, errlen)) < 0)
            return rc;
    for (int i = 0; i < reps; i++) {
        CUDA_CHECK(cudaEventRecord(e->ev0, e->stream));
        if ((rc = launch(e, &a, k, err, errlen)) < 0)
            return rc;
        CUDA_CHECK(cudaEventRecord(e->ev1, e->stream));
        CUDA_CHECK(cudaEventSynchronize(e->ev1));
        CUDA_CHECK(cudaEventElapsedTime(&ms[i], e->ev0, e->ev1));
    }
    return 0;
}

const char *cuda_engine_device_name(const MotionEngine *e)
{
    return e->name;
}

void cuda_engine_set_tile(MotionEngine *e, int k)
{
    e->tile_k = k;
}

unsigned long cuda_engine_uploads(const MotionEngine *e)
{
    return e->uploads;
}

unsigned long cuda_engine_direct_uploads(const MotionEngine *e)
{
    return e->direct_uploads;
}

const MotionEngineVTable motion_engine_cuda = {
    .name = "cuda",
    .available = cuda_available,
    .devices = cuda_devices,
    .create = cuda_create,
    .estimate = cuda_estimate,
    .destroy = cuda_destroy,
    .interp_init = cuda_interp_init,
    .interp_pair = cuda_interp_pair,
    .interp_picture = cuda_interp_picture,
    .interp_holds = cuda_interp_holds,
    .register_frame = cuda_register_frame,
};

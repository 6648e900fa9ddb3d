/* The CUDA device and its frame store (cuda_device.h).
 *
 * Frames the context registered (register_frame: its two ring frames,
 * pinned in place with cudaHostRegister) are copied straight from its
 * memory; others go through pinned staging buffers in 1 MiB pieces, so the
 * host copy of one piece overlaps the DMA of the one before. Device copies
 * are cached by OmctiFrame.serial: the next frame of one pair is the
 * previous frame of the next pair, so a video uploads every frame once.
 * Serial 0 means "unknown content" (frames made outside a context) and is
 * never reused from the cache.
 *
 * Every CUDA call is checked; a failure returns OMCTI_ERR_ENGINE with the
 * call and CUDA's own message. Without a driver or a GPU, cuda_available()
 * says why in one line and opening fails the same way; nothing here aborts.
 * All state lives in the device (no globals). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_device.h"
#include "kernels/cuda_me.h"
#include "src/common.h"

#define UPLOAD_PIECE (1u << 20)

int cuda_fail(char *err, size_t errlen, const char *call, cudaError_t rc)
{
    /* Name the function only: the argument list adds nothing for a user. */
    return set_error(err, errlen, OMCTI_ERR_ENGINE, "cuda engine: %.*s failed: %s (%s)",
                     (int)strcspn(call, "("), call, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

int cuda_available(char *err, size_t errlen)
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

void cuda_device_destroy(CudaDevice **pd)
{
    CudaDevice *e = pd ? *pd : NULL;
    if (!e)
        return;
    /* Errors are ignored here: there is nothing left to report them to,
     * and a failed free must not stop the others. */
    cudaSetDevice(e->dev);
    if (e->stream)
        cudaStreamSynchronize(e->stream);
    if (e->stream2)
        cudaStreamSynchronize(e->stream2);
    /* The frames stay the caller's; only their pinning ends here, before
     * the caller frees them (device.h, register_frame). */
    for (int i = 0; i < e->nreg; i++)
        cudaHostUnregister((void *)e->reg[i].p);
    for (int i = 0; i < NSLOTS; i++)
        cudaFree(e->slot[i].buf);
    for (int i = 0; i < 2; i++)
        cudaFreeHost(e->stage[i]);
    if (e->ev_up)
        cudaEventDestroy(e->ev_up);
    if (e->stream)
        cudaStreamDestroy(e->stream);
    if (e->stream2)
        cudaStreamDestroy(e->stream2);
    free(e);
    *pd = NULL;
}

static int device_init(CudaDevice *e, char *err, size_t errlen)
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
    CUDA_CHECK(cudaEventCreateWithFlags(&e->ev_up, cudaEventDisableTiming));
    e->need_planes = 1;
    return 0;
}

int cuda_device_create(CudaDevice **pd, int index, char *err, size_t errlen)
{
    *pd = NULL;
    if (!cuda_available(err, errlen))
        return OMCTI_ERR_ENGINE;
    int n = 0;
    CUDA_CHECK(cudaGetDeviceCount(&n));
    if (index < 0 || index >= n)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: device %d does not exist (%d CUDA device%s found)",
                         index, n, n == 1 ? "" : "s");
    CudaDevice *d = calloc(1, sizeof *d);
    if (!d)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cuda engine: out of memory");
    d->dev = index;
    const int rc = device_init(d, err, errlen);
    if (rc < 0) {
        cuda_device_destroy(&d);
        return rc;
    }
    *pd = d;
    return 0;
}

void cuda_device_need_planes(CudaDevice *d, int planes)
{
    if (planes > d->need_planes)
        d->need_planes = planes;
}

int cuda_device_sync(CudaDevice *e, char *err, size_t errlen)
{
    CUDA_CHECK(cudaSetDevice(e->dev));
    CUDA_CHECK(cudaStreamSynchronize(e->stream));
    CUDA_CHECK(cudaStreamSynchronize(e->stream2));
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
static int set_layout(CudaDevice *e, const OmctiFrame *f, char *err, size_t errlen)
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

static int find_frame(CudaDevice *e, const OmctiFrame *f)
{
    if (f->serial)
        for (int i = 0; i < NSLOTS; i++)
            if (e->slot[i].serial == f->serial) {
                e->slot[i].used = ++e->tick;
                return i;
            }
    return -1;
}

static int host_pinned(const CudaDevice *e, const uint8_t *p, size_t n)
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
static int upload_planes(CudaDevice *e, const OmctiFrame *f, int s, int c0, int c1, int stage,
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
static int upload_frame(CudaDevice *e, const OmctiFrame *f, int keep, int stage, int *slot_out,
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

int cuda_frames_resident(CudaDevice *e, const OmctiFrame *prev, const OmctiFrame *next,
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

McPlaneView cuda_dev_plane(const CudaDevice *e, int s, int c)
{
    const PlaneLayout *l = &e->lay[c];
    const McPlaneView p = { e->slot[s].buf + l->dev_off + l->off, (int)l->stride, l->w, l->h };
    return p;
}

/* Pins a plane of a context frame in place (cudaHostRegister), so that its
 * uploads need no staging copy. */
static void cuda_register_frame(void *priv, const OmctiFrame *f)
{
    CudaDevice *e = priv;
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

static int cuda_open(void **priv, int index, char *err, size_t errlen)
{
    return cuda_device_create((CudaDevice **)priv, index, err, errlen);
}

static void cuda_close(void **priv)
{
    cuda_device_destroy((CudaDevice **)priv);
}

const DeviceType cuda_device_type = {
    .name = "cuda",
    .open = cuda_open,
    .register_frame = cuda_register_frame,
    .close = cuda_close,
};

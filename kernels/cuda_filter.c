/* The CUDA backend of the filters (filters/filter.h FilterBackend): the
 * heavy stages of omcti, mcti (statistics, vectors, rendering) and blend as
 * kernels over the single C reference of filters/mc_block.h and
 * mc_stages.h (kernels/mc_gpu.h). The decisions around them (scene cut,
 * stepwise source, holding the nearer original) stay in filters/mc.c, the
 * same for every backend.
 *
 * Frames come from the device's store (cuda_device.c), where the search
 * already put them (all three planes: this backend asks for them at init,
 * so the chroma goes up beside the search); the pair's fields too, when the
 * engine searched on this device (else the host's fields are uploaded).
 *
 * Per picture: the phase table (when the phase changes), stage A and C of
 * the vector choice, then the picture is rendered in NBANDS bands of block
 * rows on `stream`; `stream2` downloads each band into pinned memory as
 * soon as it is rendered, and the host copies a band into the caller's
 * picture while the next ones render and download. Only finished pictures
 * cross the bus. This file only moves data and orders the work. */
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_device.h"
#include "kernels/cuda_filter.h"
#include "kernels/cuda_mc.h"
#include "filters/filter.h"
#include "filters/mc.h"
#include "src/common.h"

#define NBANDS 4               /* render/download pipeline depth           */

typedef struct CudaFilter {
    CudaDevice *d;
    int motion;                /* omcti or mcti (else blend)               */
    int overlap;
    McGrid g;
    McVec *d_vec;              /* vec_a, vec_c: nb each; vec_q: 4 nb;
                                  vec_sa, vec_sc: nb each; vec_sq: 4 nb;
                                  vec_ha[2], vec_hc[2]: nb each; vec_hq:
                                  4 nb                                     */
    uint8_t *d_split;          /* 4 nb: the quadrant splits' switches
                                  (first, shifted, down-shifted grid),
                                  then the other grids' acting indices
                                  (mc_gpu.h CudaMcArgs acts)               */
    McVec *d_fields;           /* host fields uploaded: fwd, bwd           */
    int32_t *d_tab;
    int K;
    int64_t tab_num, tab_den;
    uint8_t *d_pic, *h_pic;    /* dense Y, U, V of one output picture      */
    size_t pic_bytes;
    McSceneStats *d_stats, *h_stats;
    McVec cam;                 /* the pair's camera vector (host, per pair) */
    McCamModel cam_model;      /* and its camera model (mc_camera.c)        */
    uint32_t *keys;            /* motion_camera_vector()'s scratch         */
    cudaEvent_t ev_band[NBANDS], ev_dl[NBANDS], ev0, ev1;
} CudaFilter;

static void cuda_filter_uninit(void **priv)
{
    CudaFilter *f = *priv;
    if (!f)
        return;
    cudaSetDevice(f->d->dev);
    cudaStreamSynchronize(f->d->stream);
    cudaStreamSynchronize(f->d->stream2);
    cudaFree(f->d_vec);
    cudaFree(f->d_split);
    cudaFree(f->d_fields);
    cudaFree(f->d_tab);
    cudaFree(f->d_pic);
    cudaFree(f->d_stats);
    cudaFreeHost(f->h_pic);
    cudaFreeHost(f->h_stats);
    free(f->keys);
    for (int i = 0; i < NBANDS; i++) {
        if (f->ev_band[i])
            cudaEventDestroy(f->ev_band[i]);
        if (f->ev_dl[i])
            cudaEventDestroy(f->ev_dl[i]);
    }
    if (f->ev0)
        cudaEventDestroy(f->ev0);
    if (f->ev1)
        cudaEventDestroy(f->ev1);
    free(f);
    *priv = NULL;
}

static int setup(CudaFilter *f, const FilterParams *p, char *err, size_t errlen)
{
    CudaDevice *d = f->d;
    CUDA_CHECK(cudaSetDevice(d->dev));
    const int w = p->width, h = p->height;
    const size_t cw = (size_t)chroma_size(w), ch = (size_t)chroma_size(h);
    f->pic_bytes = (size_t)w * h + 2 * cw * ch;
    CUDA_CHECK(cudaMalloc((void **)&f->d_pic, f->pic_bytes));
    CUDA_CHECK(cudaMallocHost((void **)&f->h_pic, f->pic_bytes));
    for (int i = 0; i < NBANDS; i++) {
        CUDA_CHECK(cudaEventCreateWithFlags(&f->ev_band[i], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&f->ev_dl[i], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaEventCreate(&f->ev0));
    CUDA_CHECK(cudaEventCreate(&f->ev1));
    if (!f->motion)
        return 0;
    const size_t nb = (size_t)f->g.nbx * f->g.nby;
    CUDA_CHECK(cudaMalloc((void **)&f->d_vec, 20 * nb * sizeof *f->d_vec));
    CUDA_CHECK(cudaMalloc((void **)&f->d_split, 4 * nb));
    CUDA_CHECK(cudaMalloc((void **)&f->d_fields, 2 * nb * sizeof *f->d_fields));
    CUDA_CHECK(cudaMalloc((void **)&f->d_stats, sizeof *f->d_stats));
    CUDA_CHECK(cudaMallocHost((void **)&f->h_stats, sizeof *f->h_stats));
    /* the CPU backend's table: displacements k = v * scale of every vector
     * the fields can hold, refined by up to 3/4 pel */
    f->K = 16 * (p->range + 2);
    CUDA_CHECK(cudaMalloc((void **)&f->d_tab, (2 * (size_t)f->K + 1) * sizeof(int32_t)));
    f->tab_den = 0;
    return 0;
}

static int cuda_filter_init(void **priv, const FilterParams *p, OmctiMethod method, char *err,
                            size_t errlen)
{
    *priv = NULL;
    if (!p->dev || p->dev->type != &cuda_device_type)
        return set_error(err, errlen, OMCTI_ERR_ENGINE, "cuda filter: no CUDA device");
    if (method != OMCTI_METHOD_OMCTI && method != OMCTI_METHOD_MCTI &&
        method != OMCTI_METHOD_BLEND)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "cuda filter: no kernels for %s",
                         omcti_method_name(method));
    CudaFilter *f = calloc(1, sizeof *f);
    if (!f)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cuda filter: out of memory");
    f->d = p->dev->priv;
    f->motion = method != OMCTI_METHOD_BLEND;
    f->overlap = method == OMCTI_METHOD_OMCTI;
    f->g = mc_grid_make(p->width, p->height, p->block);
    f->keys = malloc(MOTION_CAMERA_KEYS(f->g.nbx * f->g.nby) * sizeof *f->keys);
    if (!f->keys) {
        free(f);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cuda filter: out of memory");
    }
    const int rc = setup(f, p, err, errlen);
    if (rc < 0) {
        cuda_filter_uninit((void **)&f);
        return rc;
    }
    /* Every plane on the device: the pictures are rendered there. */
    cuda_device_need_planes(f->d, 3);
    *priv = f;
    return 0;
}

/* Makes the pair resident (normally a lookup since the search) with the
 * streams idle and the chroma uploads done before the kernels read them. */
static int pair_resident(CudaFilter *f, const FilterPair *pr, int *sp, int *sn, char *err,
                         size_t errlen)
{
    int rc;
    if ((rc = cuda_device_sync(f->d, err, errlen)) < 0)
        return rc;
    if ((rc = cuda_frames_resident(f->d, pr->prev, pr->next, sp, sn, err, errlen)) < 0)
        return rc;
    CUDA_CHECK(cudaStreamWaitEvent(f->d->stream, f->d->ev_up, 0));
    return 0;
}

static int cuda_filter_stats(void *priv, const FilterPair *pr, McSceneStats *st, char *err,
                             size_t errlen)
{
    CudaFilter *f = priv;
    if (!f->motion)
        return set_error(err, errlen, OMCTI_ERR_STATE, "cuda filter: blend has no statistics");
    int sp, sn, rc;
    if ((rc = pair_resident(f, pr, &sp, &sn, err, errlen)) < 0)
        return rc;
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.prev[0] = cuda_dev_plane(f->d, sp, 0);
    a.next[0] = cuda_dev_plane(f->d, sn, 0);
    a.g = f->g;
    const cudaError_t r = cuda_mc_stats(&a, f->d_stats, f->d->stream);
    if (r != cudaSuccess)
        return cuda_fail(err, errlen, "cuda_mc_stats (kernel launch)", r);
    CUDA_CHECK(cudaMemcpyAsync(f->h_stats, f->d_stats, sizeof *f->h_stats,
                               cudaMemcpyDeviceToHost, f->d->stream));
    if ((rc = cuda_device_sync(f->d, err, errlen)) < 0)
        return rc;
    *st = *f->h_stats;
    /* the camera vector from the host's copy of the forward field (the
     * CPU backend's function: the same vector on every backend) */
    const MotionVector g =
        filter_pair_camera(pr, f->g.width, f->g.height, f->g.nbx * f->g.nby, f->keys);
    f->cam = (McVec){ g.x, g.y };
    mc_camera_model(pr, f->g.width, f->g.height, g, &f->cam_model);
    return 0;
}

static void copy_rows(uint8_t *dst, ptrdiff_t ds, const uint8_t *src, size_t ss, int w, int y0,
                      int y1)
{
    for (int y = y0; y < y1; y++)
        memcpy(dst + (ptrdiff_t)y * ds, src + (size_t)y * ss, (size_t)w);
}

/* Renders (motion) or blends into d_pic band by band and brings each band
 * into out as soon as it is down. */
static int render_and_fetch(CudaFilter *f, const CudaMcArgs *a, OmctiPicture *out, char *err,
                            size_t errlen)
{
    CudaDevice *d = f->d;
    const int w = f->g.width, h = f->g.height, cw = chroma_size(w), ch = chroma_size(h);
    const int B = f->g.block, nby = f->g.nby;
    const int nbands = nby < NBANDS ? nby : NBANDS;
    int br[NBANDS + 1];
    for (int b = 0; b <= nbands; b++)
        br[b] = (int)((int64_t)nby * b / nbands);
    const size_t off[3] = { 0, (size_t)w * h, (size_t)w * h + (size_t)cw * ch };
    const int pw[3] = { w, cw, cw };
    for (int b = 0; b < nbands; b++) {
        const cudaError_t rc = cuda_mc_render(a, f->motion, br[b], br[b + 1], d->stream);
        if (rc != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_render (kernel launch)", rc);
        CUDA_CHECK(cudaEventRecord(f->ev_band[b], d->stream));
        CUDA_CHECK(cudaStreamWaitEvent(d->stream2, f->ev_band[b], 0));
        for (int c = 0; c < 3; c++) {
            const int bs = c ? B / 2 : B, ph = c ? ch : h;
            const int y0 = br[b] * bs, y1 = br[b + 1] * bs < ph ? br[b + 1] * bs : ph;
            if (y1 <= y0)
                continue;
            const size_t o = off[c] + (size_t)y0 * pw[c], n = (size_t)(y1 - y0) * pw[c];
            CUDA_CHECK(cudaMemcpyAsync(f->h_pic + o, f->d_pic + o, n, cudaMemcpyDeviceToHost,
                                       d->stream2));
        }
        CUDA_CHECK(cudaEventRecord(f->ev_dl[b], d->stream2));
    }
    for (int b = 0; b < nbands; b++) {
        /* Kernel faults surface here, with their own message. */
        CUDA_CHECK(cudaEventSynchronize(f->ev_dl[b]));
        for (int c = 0; c < 3; c++) {
            const int bs = c ? B / 2 : B, ph = c ? ch : h;
            const int y0 = br[b] * bs, y1 = br[b + 1] * bs < ph ? br[b + 1] * bs : ph;
            copy_rows(out->data[c], out->stride[c], f->h_pic + off[c], (size_t)pw[c], pw[c],
                      y0, y1);
        }
    }
    return 0;
}

/* The kernel arguments for the pair (slots sp, sn) at num/den; the pair's
 * fields from the search on this device, else uploaded from the host. */
static int fill_args(CudaFilter *f, const FilterPair *pr, CudaMcArgs *a, int sp, int sn,
                     int64_t num, int64_t den, char *err, size_t errlen)
{
    const CudaDevice *d = f->d;
    const int w = f->g.width, h = f->g.height, cw = chroma_size(w), ch = chroma_size(h);
    const size_t nb = (size_t)f->g.nbx * f->g.nby;
    memset(a, 0, sizeof *a);
    for (int c = 0; c < 3; c++) {
        a->prev[c] = cuda_dev_plane(d, sp, c);
        a->next[c] = cuda_dev_plane(d, sn, c);
    }
    a->g = f->g;
    a->overlap = f->overlap;
    a->wt = phase_weight256(num, den);
    a->out[0] = f->d_pic;
    a->out[1] = f->d_pic + (size_t)w * h;
    a->out[2] = f->d_pic + (size_t)w * h + (size_t)cw * ch;
    a->out_stride[0] = w;
    a->out_stride[1] = a->out_stride[2] = cw;
    if (!f->motion)
        return 0;
    a->vec_a = f->d_vec;
    a->vec_c = f->d_vec + nb;
    a->vec_q = f->d_vec + 2 * nb;
    a->split = f->d_split;
    if (f->overlap) {
        a->gs = mc_grid_shifted(&f->g);
        a->vec_sa = f->d_vec + 6 * nb;
        a->vec_sc = f->d_vec + 7 * nb;
        a->vec_sq = f->d_vec + 8 * nb;
        a->split_s = f->d_split + nb;
        mc_other_grids(a, f->d_vec + 12 * nb, f->d_split + 2 * nb, nb);
    }
    a->ph = (McPhase){ f->d_tab, f->K, num, den };
    a->cam = f->cam;
    a->cam_model = f->cam_model;
    if (d->fields_prev && d->fields_prev == pr->prev->serial &&
        d->fields_next == pr->next->serial) {
        a->fwd = d->d_fwd;
        a->bwd = d->d_bwd;
        return 0;
    }
    const MotionFields *mf = pr->fields;
    if (!mf || (size_t)mf->fwd.bw * mf->fwd.bh != nb)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "cuda filter: the pair has no fields");
    /* MotionVector is McVec's layout */
    CUDA_CHECK(cudaMemcpyAsync(f->d_fields, mf->fwd.mv, nb * sizeof *f->d_fields,
                               cudaMemcpyHostToDevice, d->stream));
    CUDA_CHECK(cudaMemcpyAsync(f->d_fields + nb, mf->bwd.mv, nb * sizeof *f->d_fields,
                               cudaMemcpyHostToDevice, d->stream));
    a->fwd = f->d_fields;
    a->bwd = f->d_fields + nb;
    return 0;
}

/* The pair resident and the kernel arguments filled. */
static int prepare(CudaFilter *f, const FilterPair *pr, CudaMcArgs *a, int64_t num, int64_t den,
                   char *err, size_t errlen)
{
    int sp, sn, rc;
    if ((rc = pair_resident(f, pr, &sp, &sn, err, errlen)) < 0)
        return rc;
    return fill_args(f, pr, a, sp, sn, num, den, err, errlen);
}

static int phase_table(CudaFilter *f, int64_t num, int64_t den, int force, char *err,
                       size_t errlen)
{
    if (!force && f->tab_num == num && f->tab_den == den)
        return 0;
    const cudaError_t r = cuda_mc_phase_table(f->d_tab, f->K, num, den, f->d->stream);
    if (r != cudaSuccess)
        return cuda_fail(err, errlen, "cuda_mc_phase_table (kernel launch)", r);
    f->tab_num = num;
    f->tab_den = den;
    return 0;
}

static int cuda_filter_picture(void *priv, const FilterPair *pr, int64_t num, int64_t den,
                               OmctiPicture *out, char *err, size_t errlen)
{
    CudaFilter *f = priv;
    if (den <= 0 || num <= 0 || num >= den)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda filter: phase %lld/%lld is not strictly between 0 and 1",
                         (long long)num, (long long)den);
    CudaMcArgs a;
    int rc = prepare(f, pr, &a, num, den, err, errlen);
    if (rc < 0)
        return rc;
    if (f->motion) {
        if ((rc = phase_table(f, num, den, 0, err, errlen)) < 0)
            return rc;
        const cudaError_t r = cuda_mc_vectors(&a, f->d->stream);
        if (r != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_vectors (kernel launch)", r);
    }
    return render_and_fetch(f, &a, out, err, errlen);
}

int cuda_filter_time(void *priv, const FilterPair *pr, int64_t num, int64_t den, int reps,
                     float *ms_vec, float *ms_render, char *err, size_t errlen)
{
    CudaFilter *f = priv;
    CudaMcArgs a;
    int rc = prepare(f, pr, &a, num, den, err, errlen);
    if (rc < 0)
        return rc;
    cudaStream_t st = f->d->stream;
    for (int i = 0; i < reps; i++) {
        CUDA_CHECK(cudaEventRecord(f->ev0, st));
        if (f->motion) {
            if ((rc = phase_table(f, num, den, 1, err, errlen)) < 0)
                return rc;
            const cudaError_t r = cuda_mc_vectors(&a, st);
            if (r != cudaSuccess)
                return cuda_fail(err, errlen, "cuda_mc_vectors (kernel launch)", r);
        }
        CUDA_CHECK(cudaEventRecord(f->ev1, st));
        CUDA_CHECK(cudaEventSynchronize(f->ev1));
        CUDA_CHECK(cudaEventElapsedTime(&ms_vec[i], f->ev0, f->ev1));
        CUDA_CHECK(cudaEventRecord(f->ev0, st));
        const cudaError_t r = cuda_mc_render(&a, f->motion, 0, f->g.nby, st);
        if (r != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_render (kernel launch)", r);
        CUDA_CHECK(cudaEventRecord(f->ev1, st));
        CUDA_CHECK(cudaEventSynchronize(f->ev1));
        CUDA_CHECK(cudaEventElapsedTime(&ms_render[i], f->ev0, f->ev1));
    }
    return 0;
}

const FilterBackend filter_backend_cuda = {
    .device = "cuda",
    .init = cuda_filter_init,
    .stats = cuda_filter_stats,
    .picture = cuda_filter_picture,
    .uninit = cuda_filter_uninit,
};

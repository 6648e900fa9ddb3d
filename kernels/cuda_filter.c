/* Interpolation on the GPU: the OMCTI/MCTI filter, blend and repeat of
 * filters/, bit-exact with them, behind MotionEngineVTable's interp_*
 * entries (src/motion/engine.h).
 *
 * Per pair (estimate(), then interp_pair()): all three planes are on the
 * device (chroma uploaded beside the search); the scene-cut statistics
 * (activity, static blocks) are computed there and come back with the
 * fields in one copy; the decision itself runs here with the CPU filter's
 * own scenecut_decide(), on the same integers, so it is the CPU's decision.
 *
 * Per picture: the phase table (when the phase changes), stage A and C of
 * the vector choice, then the picture is rendered in NBANDS bands of block
 * rows on `stream`; `stream2` downloads each band into pinned memory as
 * soon as it is rendered, and the host copies a band into the caller's
 * picture while the next ones render and download. Only finished pictures
 * cross the bus. Repeat, scene cuts and stepwise sources hold an original,
 * which is already in the caller's memory: that is a host copy, cheaper
 * than any download.
 *
 * The arithmetic is kernels/mc_gpu.h (shared with the CPU emulation test);
 * this file only moves data and orders the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_priv.h"
#include "filters/filter.h"
#include "filters/mc.h"
#include "filters/mc_dsp.h"
#include "filters/scenecut.h"

void cuda_interp_free(MotionEngine *e)
{
    CudaInterp *ip = &e->ip;
    cudaFree(ip->d_vec);
    cudaFree(ip->d_tab);
    cudaFree(ip->d_mask);
    cudaFree(ip->d_pic);
    cudaFreeHost(ip->h_pic);
    for (int i = 0; i < NBANDS; i++) {
        if (ip->ev_band[i])
            cudaEventDestroy(ip->ev_band[i]);
        if (ip->ev_dl[i])
            cudaEventDestroy(ip->ev_dl[i]);
    }
    memset(ip, 0, sizeof *ip);
    ip->method = -1;
}

static int is_mc(int method)
{
    return method == OMCTI_METHOD_OMCTI || method == OMCTI_METHOD_MCTI;
}

int cuda_interp_init(MotionEngine *e, const MotionInterpParams *p, char *err, size_t errlen)
{
    if (p->method < 0 || p->method >= OMCTI_METHOD_COUNT)
        return 0;
    CUDA_CHECK(cudaSetDevice(e->dev));
    int8_t taps[16][4];
    CUDA_CHECK(cuda_mc_taps(taps));
    if (memcmp(taps, mc_cubic_taps, sizeof taps))
        return 0; /* the CPU filter changed its taps: keep the CPU filter */

    CudaInterp *ip = &e->ip;
    cuda_interp_free(e);
    ip->threads = p->threads > 0 ? p->threads : 1;
    ip->overlap = p->method == OMCTI_METHOD_OMCTI;
    const FilterParams fp = {
        .width = e->p.width, .height = e->p.height, .block = e->p.block, .range = e->p.range,
        .threads = ip->threads, .scd = p->scd, .scd_threshold = p->scd_threshold,
    };
    scenecut_init(&ip->scd, &fp);
    ip->method = p->method;
    if (p->method == OMCTI_METHOD_REPEAT)
        return 1; /* host copies only */

    e->need_planes = 3;
    const int w = e->p.width, h = e->p.height;
    const size_t cw = (size_t)chroma_size(w), ch = (size_t)chroma_size(h);
    ip->pic_bytes = (size_t)w * h + 2 * cw * ch;
    int rc = 0;
#define TRY(call)                                                                         \
    do {                                                                                  \
        const cudaError_t rc_ = (call);                                                   \
        if (rc_ != cudaSuccess) {                                                         \
            rc = cuda_fail(err, errlen, #call, rc_);                                      \
            goto fail;                                                                    \
        }                                                                                 \
    } while (0)
    TRY(cudaMalloc((void **)&ip->d_pic, ip->pic_bytes));
    TRY(cudaMallocHost((void **)&ip->h_pic, ip->pic_bytes));
    for (int i = 0; i < NBANDS; i++) {
        TRY(cudaEventCreateWithFlags(&ip->ev_band[i], cudaEventDisableTiming));
        TRY(cudaEventCreateWithFlags(&ip->ev_dl[i], cudaEventDisableTiming));
    }
    if (is_mc(p->method)) {
        const size_t nb = (size_t)e->bw * e->bh;
        TRY(cudaMalloc((void **)&ip->d_vec, 3 * nb * sizeof(uint32_t)));
        /* mc.c: displacements k = v * scale of every vector the fields can
         * hold, refined by up to 3/4 pel; others are computed directly */
        ip->K = 16 * (e->p.range + 2);
        TRY(cudaMalloc((void **)&ip->d_tab, (2 * (size_t)ip->K + 1) * sizeof(int32_t)));
        ip->tab_den = 0;
        /* The OBMC masks from the CPU filter's own function (1/256). */
        int16_t mask[2][3][1024];
        memset(mask, 0, sizeof mask);
        for (int c = 0; c < 2; c++) {
            const int bs = c ? e->p.block / 2 : e->p.block;
            for (int y = 0; y < bs; y++)
                for (int x = 0; x < bs; x++) {
                    int wk[3];
                    mc_mask_weights(bs, x, y, wk);
                    for (int k = 0; k < 3; k++)
                        mask[c][k][y * bs + x] = (int16_t)wk[k];
                }
        }
        TRY(cudaMalloc((void **)&ip->d_mask, sizeof mask));
        TRY(cudaMemcpy(ip->d_mask, mask, sizeof mask, cudaMemcpyHostToDevice));
    }
#undef TRY
    return 1;
fail:
    cuda_interp_free(e);
    e->need_planes = 1;
    return rc;
}

int cuda_interp_stats_launch(MotionEngine *e, int sp, int sn, char *err, size_t errlen)
{
    if (!is_mc(e->ip.method))
        return 0;
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.prev[0] = cuda_dev_plane(e, sp, 0);
    a.next[0] = cuda_dev_plane(e, sn, 0);
    a.block = e->p.block;
    const cudaError_t rc = cuda_mc_stats(&a, (CudaMcStats *)((uint8_t *)e->d_out + e->stats_off),
                                         e->stream);
    if (rc != cudaSuccess)
        return cuda_fail(err, errlen, "cuda_mc_stats (kernel launch)", rc);
    return 0;
}

/* scenecut_pair_cost() from the fields and the GPU's activity sum: the
 * same integers in the same order. */
static uint32_t pair_cost(const MotionEngine *e, const MotionFields *f, const CudaMcStats *st)
{
    const MotionField *fw = &f->fwd, *bw = &f->bwd;
    uint64_t res = 0;
    for (int i = 0; i < fw->bw * fw->bh; i++)
        res += fw->sad[i] < bw->sad[i] ? fw->sad[i] : bw->sad[i];
    const int w = e->p.width, h = e->p.height;
    const uint64_t npix = (uint64_t)fw->bw * fw->bh * fw->block * fw->block;
    const uint64_t apix = (uint64_t)(h / 2) * (uint64_t)(w - 1);
    const uint64_t r = res * 256 / npix;
    const uint64_t a = apix ? st->activity * 256 / apix : 0;
    const uint64_t cost = r * 256 / (a + 256);
    return (uint32_t)(cost > UINT32_MAX ? UINT32_MAX : cost);
}

int cuda_interp_pair(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                     const MotionFields *f, int *cut, char *err, size_t errlen)
{
    CudaInterp *ip = &e->ip;
    *cut = 0;
    if (ip->method < 0)
        return set_error(err, errlen, OMCTI_ERR_STATE, "cuda engine: interpolation not set up");
    if (!is_mc(ip->method))
        return 0; /* blend and repeat decide nothing per pair */
    if (!f)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "cuda engine: the pair has no fields");
    CUDA_CHECK(cudaSetDevice(e->dev));
    if (!prev->serial || ip->stats_prev != prev->serial || ip->stats_next != next->serial) {
        /* Not the pair of the last estimate(): compute its statistics. */
        int sp, sn, rc;
        CUDA_CHECK(cudaStreamSynchronize(e->stream));
        CUDA_CHECK(cudaStreamSynchronize(e->stream2));
        if ((rc = cuda_frames_resident(e, prev, next, &sp, &sn, err, errlen)) < 0)
            return rc;
        if ((rc = cuda_interp_stats_launch(e, sp, sn, err, errlen)) < 0)
            return rc;
        CUDA_CHECK(cudaMemcpyAsync((uint8_t *)e->h_out + e->stats_off,
                                   (uint8_t *)e->d_out + e->stats_off, sizeof(CudaMcStats),
                                   cudaMemcpyDeviceToHost, e->stream));
        CUDA_CHECK(cudaStreamSynchronize(e->stream));
        CUDA_CHECK(cudaStreamSynchronize(e->stream2));
    }
    ip->stats_prev = ip->stats_next = 0; /* used once */
    CudaMcStats st;
    memcpy(&st, (const uint8_t *)e->h_out + e->stats_off, sizeof st);
    const uint32_t cost = pair_cost(e, f, &st);
    const uint32_t share = st.textured ? (uint32_t)((uint64_t)st.same * 256 / st.textured) : 0;
    ip->cut = scenecut_decide(&ip->scd, cost, share, prev->serial, next->serial);
    ip->stepwise = ip->scd.stepwise && ip->scd.enabled;
    *cut = ip->cut;
    return 0;
}

int cuda_interp_holds(MotionEngine *e)
{
    const CudaInterp *ip = &e->ip;
    return ip->method == OMCTI_METHOD_REPEAT || (is_mc(ip->method) && (ip->cut || ip->stepwise));
}

static void copy_rows(uint8_t *dst, ptrdiff_t ds, const uint8_t *src, size_t ss, int w, int y0,
                      int y1)
{
    for (int y = y0; y < y1; y++)
        memcpy(dst + (ptrdiff_t)y * ds, src + (size_t)y * ss, (size_t)w);
}

/* Renders (mode 1) or blends (mode 0) into d_pic band by band and brings
 * each band into out as soon as it is down. */
static int render_and_fetch(MotionEngine *e, CudaMcArgs *a, int mode, OmctiPicture *out,
                            char *err, size_t errlen)
{
    CudaInterp *ip = &e->ip;
    const int w = e->p.width, h = e->p.height, cw = chroma_size(w), ch = chroma_size(h);
    const int B = e->p.block, nby = e->bh;
    const int nbands = nby < NBANDS ? nby : NBANDS;
    int br[NBANDS + 1];
    for (int b = 0; b <= nbands; b++)
        br[b] = (int)((int64_t)nby * b / nbands);
    const size_t off[3] = { 0, (size_t)w * h, (size_t)w * h + (size_t)cw * ch };
    const int pw[3] = { w, cw, cw };
    for (int b = 0; b < nbands; b++) {
        const cudaError_t rc = cuda_mc_render(a, mode, br[b], br[b + 1], e->stream);
        if (rc != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_render (kernel launch)", rc);
        CUDA_CHECK(cudaEventRecord(ip->ev_band[b], e->stream));
        CUDA_CHECK(cudaStreamWaitEvent(e->stream2, ip->ev_band[b], 0));
        for (int c = 0; c < 3; c++) {
            const int bs = c ? B / 2 : B, ph = c ? ch : h;
            const int y0 = br[b] * bs, y1 = br[b + 1] * bs < ph ? br[b + 1] * bs : ph;
            if (y1 <= y0)
                continue;
            const size_t o = off[c] + (size_t)y0 * pw[c], n = (size_t)(y1 - y0) * pw[c];
            CUDA_CHECK(cudaMemcpyAsync(ip->h_pic + o, ip->d_pic + o, n, cudaMemcpyDeviceToHost,
                                       e->stream2));
        }
        CUDA_CHECK(cudaEventRecord(ip->ev_dl[b], e->stream2));
    }
    for (int b = 0; b < nbands; b++) {
        /* Kernel faults surface here, with their own message. */
        CUDA_CHECK(cudaEventSynchronize(ip->ev_dl[b]));
        for (int c = 0; c < 3; c++) {
            const int bs = c ? B / 2 : B, ph = c ? ch : h;
            const int y0 = br[b] * bs, y1 = br[b + 1] * bs < ph ? br[b + 1] * bs : ph;
            copy_rows(out->data[c], out->stride[c], ip->h_pic + off[c], (size_t)pw[c], pw[c],
                      y0, y1);
        }
    }
    return 0;
}

/* Fills the kernel arguments for the pair (slots sp, sn) at num/den. */
static void fill_args(const MotionEngine *e, CudaMcArgs *a, int sp, int sn, int64_t num,
                      int64_t den)
{
    const CudaInterp *ip = &e->ip;
    const int w = e->p.width, h = e->p.height, cw = chroma_size(w), ch = chroma_size(h);
    const size_t nb = (size_t)e->bw * e->bh;
    memset(a, 0, sizeof *a);
    for (int c = 0; c < 3; c++) {
        a->prev[c] = cuda_dev_plane(e, sp, c);
        a->next[c] = cuda_dev_plane(e, sn, c);
    }
    a->width = w;
    a->height = h;
    a->block = e->p.block;
    a->nbx = e->bw;
    a->nby = e->bh;
    a->overlap = ip->overlap;
    const uint32_t *fields = (const uint32_t *)((const uint8_t *)e->d_out + 8);
    a->fmv = fields;          /* layout of cuda_engine.c prepare(): mv0 sad0 mv1 sad1 */
    a->bmv = fields + 2 * nb;
    a->vec_a = ip->d_vec;
    a->cost_a = ip->d_vec ? ip->d_vec + nb : NULL;
    a->vec_c = ip->d_vec ? ip->d_vec + 2 * nb : NULL;
    a->tab = ip->d_tab;
    a->K = ip->K;
    a->num = num;
    a->den = den;
    a->wt = phase_weight256(num, den);
    a->mask = ip->d_mask;
    a->out[0] = ip->d_pic;
    a->out[1] = ip->d_pic + (size_t)w * h;
    a->out[2] = ip->d_pic + (size_t)w * h + (size_t)cw * ch;
    a->out_stride[0] = w;
    a->out_stride[1] = a->out_stride[2] = cw;
}

int cuda_interp_picture(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                        int64_t num, int64_t den, OmctiPicture *out, char *err, size_t errlen)
{
    CudaInterp *ip = &e->ip;
    if (ip->method < 0)
        return set_error(err, errlen, OMCTI_ERR_STATE, "cuda engine: interpolation not set up");
    if (den <= 0 || num <= 0 || num >= den)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cuda engine: phase %lld/%lld is not strictly between 0 and 1",
                         (long long)num, (long long)den);
    if (ip->method == OMCTI_METHOD_REPEAT || (is_mc(ip->method) && (ip->cut || ip->stepwise))) {
        /* repeat.c and mc.c's hold: the nearer original, prev on a tie. */
        OmctiPicture src;
        frame_as_picture(2 * num <= den ? prev : next, &src);
        picture_copy(out, &src);
        return 0;
    }
    CUDA_CHECK(cudaSetDevice(e->dev));
    int sp, sn, rc;
    /* Normally both frames are resident since estimate() (motion methods)
     * and this is a lookup; blend uploads here. The streams are idle then
     * (every call ends synchronized), so the staging buffers are free. */
    CUDA_CHECK(cudaStreamSynchronize(e->stream));
    CUDA_CHECK(cudaStreamSynchronize(e->stream2));
    if ((rc = cuda_frames_resident(e, prev, next, &sp, &sn, err, errlen)) < 0)
        return rc;
    /* Chroma uploads (if any were just queued) before the kernels read it. */
    CUDA_CHECK(cudaStreamWaitEvent(e->stream, e->ev_up, 0));
    CudaMcArgs a;
    fill_args(e, &a, sp, sn, num, den);
    if (is_mc(ip->method)) {
        if (ip->tab_num != num || ip->tab_den != den) {
            const cudaError_t r = cuda_mc_phase_table(ip->d_tab, ip->K, num, den, e->stream);
            if (r != cudaSuccess)
                return cuda_fail(err, errlen, "cuda_mc_phase_table (kernel launch)", r);
            ip->tab_num = num;
            ip->tab_den = den;
        }
        const cudaError_t r = cuda_mc_vectors(&a, e->stream);
        if (r != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_vectors (kernel launch)", r);
    }
    return render_and_fetch(e, &a, is_mc(ip->method), out, err, errlen);
}

int cuda_engine_time_interp(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                            int64_t num, int64_t den, int reps, float *ms_vec, float *ms_render,
                            char *err, size_t errlen)
{
    CudaInterp *ip = &e->ip;
    if (!is_mc(ip->method) && ip->method != OMCTI_METHOD_BLEND)
        return set_error(err, errlen, OMCTI_ERR_STATE,
                         "cuda engine: no GPU interpolation kernels to time");
    CUDA_CHECK(cudaSetDevice(e->dev));
    CUDA_CHECK(cudaStreamSynchronize(e->stream));
    CUDA_CHECK(cudaStreamSynchronize(e->stream2));
    int sp, sn, rc;
    if ((rc = cuda_frames_resident(e, prev, next, &sp, &sn, err, errlen)) < 0)
        return rc;
    CUDA_CHECK(cudaStreamWaitEvent(e->stream, e->ev_up, 0));
    CudaMcArgs a;
    fill_args(e, &a, sp, sn, num, den);
    for (int i = 0; i < reps; i++) {
        cudaError_t r = cudaSuccess;
        CUDA_CHECK(cudaEventRecord(e->ev0, e->stream));
        if (is_mc(ip->method)) {
            r = cuda_mc_phase_table(ip->d_tab, ip->K, num, den, e->stream);
            if (r == cudaSuccess)
                r = cuda_mc_vectors(&a, e->stream);
        }
        if (r != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_vectors (kernel launch)", r);
        CUDA_CHECK(cudaEventRecord(e->ev1, e->stream));
        CUDA_CHECK(cudaEventSynchronize(e->ev1));
        CUDA_CHECK(cudaEventElapsedTime(&ms_vec[i], e->ev0, e->ev1));
        CUDA_CHECK(cudaEventRecord(e->ev0, e->stream));
        r = cuda_mc_render(&a, is_mc(ip->method), 0, e->bh, e->stream);
        if (r != cudaSuccess)
            return cuda_fail(err, errlen, "cuda_mc_render (kernel launch)", r);
        CUDA_CHECK(cudaEventRecord(e->ev1, e->stream));
        CUDA_CHECK(cudaEventSynchronize(e->ev1));
        CUDA_CHECK(cudaEventElapsedTime(&ms_render[i], e->ev0, e->ev1));
    }
    ip->tab_den = 0; /* the table was rebuilt here: rebuild it on next use */
    return 0;
}

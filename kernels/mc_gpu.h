/* The CUDA backend's work split of the motion-compensated filters, over the
 * single C reference of filters/ (mc_block.h: the per-pixel arithmetic;
 * mc_stages.h: the decisions of the vector choice). What is here is only
 * how the work is shared out: one "group" (a warp on the GPU, one loop on
 * the CPU) per block for the vector choice, whose lanes split a window's
 * pixels and sum with MC_SUM; one thread per output pixel for rendering.
 * nvcc builds the kernels from it (kernels/mc_kernels.cu), and a C compiler
 * builds the same functions with one lane for the emulation test
 * (tests/cuda/test_cuda_mc_emul.c), which compares them with the CPU
 * backend on every machine, GPU or not. Integer sums do not depend on the
 * order, so the warp gives the CPU's sum, and every lane gets it. */
#ifndef OMCTI_KERNELS_MC_GPU_H
#define OMCTI_KERNELS_MC_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "filters/mc_block.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CudaMcArgs {
    McPlaneView prev[3], next[3];  /* Y, U, V                               */
    McGrid g;
    int overlap;                   /* 1 omcti (OBMC), 0 mcti                */
    const McVec *fwd, *bwd;        /* the pair's fields (full pel)          */
    McVec cam;                     /* the pair's camera vector (full pel)   */
    McCamModel cam_model;          /* and its camera model (mc_camera.c)    */
    /* Per block: screened vector (stage A), final vector (C), vectors in
     * quarter luma pel. */
    McVec *vec_a, *vec_c;
    /* The quadrant split (overlap only): 4 quarter vectors per block
     * (2*nby rows of 2*nbx), and per block whether a quarter switched. */
    McVec *vec_q;
    uint8_t *split;
    /* Under OBMC, the shifted grid (mc_grid_shifted() of g; none where
     * gs.nbx or gs.nby is 0), its stages A and C (nbx*nby of g each, gs's
     * own layout) and its quadrant split (vec_sq: 4 per block, split_s):
     * averaged into the picture where it covers it. */
    McGrid gs;
    McVec *vec_sa, *vec_sc, *vec_sq;
    uint8_t *split_s;
    /* and the half-shifted grids (mc_grid_half(); none where gs has no
     * block), their stages A and C (nbx*nby of g each, in their own
     * layout): averaged in where they act (mc_grid_average()) */
    McGrid gh[2];
    McVec *vec_ha[2], *vec_hc[2];
    /* the down-shifted grid's quadrant split (as the shifted grid's) */
    McVec *vec_hq;
    uint8_t *split_h;
    /* at index (bx, by) of g (nbx*nby; written where a block of another
     * grid lies, by each such block's warp in k_choose_other, all with
     * the same value): whether the other grids' blocks there act
     * (mc_shifted_active()), so that the later stages and every pixel of
     * the render read one byte instead of comparing the first grid's
     * vectors again */
    uint8_t *acts;
    McPhase ph;                    /* the phase and its displacement table  */
    int wt;                        /* phase_weight256(num, den)             */
    uint8_t *out[3];               /* output planes                         */
    int out_stride[3];
} CudaMcArgs;

#ifdef __CUDACC__
#define MC_LANE ((int)(threadIdx.x & 31))
#define MC_NLANES 32
__device__ __forceinline__ uint32_t mc_warp_sum(uint32_t v)
{
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
#define MC_SUM(v) mc_warp_sum(v)
#else
#define MC_LANE 0
#define MC_NLANES 1
#define MC_SUM(v) (v)
#endif

/* The lanes' costs for mc_stages.h: the C reference's sums over the lane's
 * pixels (mc_block.h), added up over the warp. */
#define MC_STAGE_CTX const CudaMcArgs *

MCF uint32_t mc_cost_int(const CudaMcArgs *a, int x0, int y0, int w, int h, int ax, int ay,
                         int bx, int by)
{
    return MC_SUM(mc_cost_int_part(&a->prev[0], &a->next[0], x0, y0, w, h, ax, ay, bx, by,
                                   MC_LANE, MC_NLANES));
}

MCF uint32_t mc_cost_sub(const CudaMcArgs *a, int x0, int y0, int w, int h, int vx, int vy)
{
    return MC_SUM(mc_cost_sub_part(&a->prev[0], &a->next[0], &a->ph, x0, y0, w, h, vx, vy,
                                   MC_LANE, MC_NLANES));
}

/* The one-sided costs in one pass over the window: the three sums of
 * mc_block.h, each added up over the warp; no branch around a warp sum
 * depends on anything but the arguments, and there is one call site of
 * each. (The CPU's rectangle form, whose warp sums sat on three paths,
 * gave other costs on the H100 when built with nvcc 13.0 -O2, not with -O0
 * -G: a few blocks per picture differed. The cause was not isolated; this
 * form is identical to the CPU's, tests/cuda/test_cuda_equiv.) */
MCF uint32_t mc_cost_int_os(const CudaMcArgs *a, const McGrid *g, int x0, int y0, int w, int h,
                            int ax, int ay, int bx, int by)
{
    (void)g;
    uint32_t s[3] = { 0, 0, 0 };
    mc_cost_int_os_part(&a->prev[0], &a->next[0], x0, y0, w, h, ax, ay, bx, by, MC_LANE,
                        MC_NLANES, s);
    const uint32_t all = MC_SUM(s[0]), valid = MC_SUM(s[1]), missed = MC_SUM(s[2]);
    return mc_one_sided_cost(w * h, all, valid, missed, MC_OCC_T);
}

MCF uint32_t mc_cost_sub_os(const CudaMcArgs *a, const McGrid *g, const McPhase *ph, int x0,
                            int y0, int w, int h, int vx, int vy)
{
    (void)g;
    uint32_t s[3] = { 0, 0, 0 };
    mc_cost_sub_os_part(&a->prev[0], &a->next[0], ph, x0, y0, w, h, vx, vy, MC_LANE, MC_NLANES,
                        s);
    const uint32_t all = MC_SUM(s[0]), valid = MC_SUM(s[1]), missed = MC_SUM(s[2]);
    return mc_one_sided_cost(w * h, all, valid, missed, 16 * MC_OCC_T);
}

/* The lanes sum the whole window in one pass, so a bound saves nothing
 * here: the exact cost, which is what the template's contract allows. */
MCF uint32_t mc_cost_int_os_below(const CudaMcArgs *a, const McGrid *g, int x0, int y0, int w,
                                  int h, int ax, int ay, int bx, int by, uint32_t bound)
{
    (void)bound;
    return mc_cost_int_os(a, g, x0, y0, w, h, ax, ay, bx, by);
}

MCF uint32_t mc_cost_sub_os_below(const CudaMcArgs *a, const McGrid *g, const McPhase *ph,
                                  int x0, int y0, int w, int h, int vx, int vy, uint32_t bound)
{
    (void)bound;
    return mc_cost_sub_os(a, g, ph, x0, y0, w, h, vx, vy);
}

/* The colour term's sums: one pass over each chroma plane's window, as
 * mc_cost_int_os() (one warp sum each, no branch around them). */
MCF void mc_chroma_os(const CudaMcArgs *a, int x0, int y0, int w, int h, int ax, int ay, int bx,
                      int by, uint32_t *sad, uint32_t *missed)
{
    uint32_t su[3] = { 0, 0, 0 }, sv[3] = { 0, 0, 0 };
    mc_cost_int_os_part(&a->prev[1], &a->next[1], x0, y0, w, h, ax, ay, bx, by, MC_LANE,
                        MC_NLANES, su);
    mc_cost_int_os_part(&a->prev[2], &a->next[2], x0, y0, w, h, ax, ay, bx, by, MC_LANE,
                        MC_NLANES, sv);
    *sad = MC_SUM(su[1] + sv[1]);
    *missed = MC_SUM(su[2]);
}

#include "filters/mc_stages.h"

/* Stage A of block k; every lane computes, lane 0 stores. */
MCF void mc_choose_block(const CudaMcArgs *a, int k)
{
    const McVec v = mc_choose(a, &a->g, &a->ph, a->fwd, a->bwd, &a->cam_model, a->cam, NULL, 0,
                              k % a->g.nbx, k / a->g.nbx);
    if (MC_LANE == 0)
        a->vec_a[k] = v;
}

/* Stage C of block k. */
MCF void mc_refine_block(const CudaMcArgs *a, int k)
{
    const McVec v = mc_refine(a, &a->g, &a->ph, a->vec_a, k % a->g.nbx, k / a->g.nbx);
    if (MC_LANE == 0)
        a->vec_c[k] = v;
}

/* The quadrant split of block k (under OBMC only). */
MCF void mc_quad_block(const CudaMcArgs *a, int k)
{
    const int bx = k % a->g.nbx, by = k / a->g.nbx;
    McVec q[4];
    const int any = mc_quad(a, &a->g, &a->ph, a->vec_c, a->fwd, a->bwd, bx, by, q);
    if (MC_LANE == 0) {
        mc_quad_store(a->vec_q, a->g.nbx, bx, by, q);
        a->split[k] = (uint8_t)any;
    }
}

#ifndef __CUDACC__
/* Host code (kernels/cuda_filter.c, the emulation test): the half-shifted
 * grids of a, whose g and gs are set, their stage A and C arrays, the
 * down-shifted grid's split and the acting indices (vec: 8 nb vectors,
 * split: 2 nb bytes); none where the shifted grid has no block, as on the
 * CPU (mc_cpu.c band_run()). */
static inline void mc_other_grids(CudaMcArgs *a, McVec *vec, uint8_t *split, size_t nb)
{
    for (int h = 0; h < 2; h++) {
        a->gh[h] = mc_grid_half(&a->g, h);
        if (a->gs.nbx == 0 || a->gs.nby == 0)
            a->gh[h].nbx = a->gh[h].nby = 0;
        a->vec_ha[h] = vec + h * nb;
        a->vec_hc[h] = vec + (2 + h) * nb;
    }
    a->vec_hq = vec + 4 * nb;
    a->split_h = split;
    a->acts = split + nb;
}
#endif

/* The blocks of the other grids in one index k, as the CPU's wavefront
 * computes them: the shifted grid's, then the right-shifted grid's, then
 * the down-shifted grid's. mc_other() gives block k's grid, its stage A
 * and C arrays and its index there. */
#ifdef __CUDACC__
#define MC_HOST_DEVICE static __host__ __device__ __forceinline__
#else
#define MC_HOST_DEVICE static inline
#endif
MC_HOST_DEVICE int mc_other_count(const CudaMcArgs *a)
{
    return a->gs.nbx * a->gs.nby + a->gh[0].nbx * a->gh[0].nby + a->gh[1].nbx * a->gh[1].nby;
}

MCF const McGrid *mc_other(const CudaMcArgs *a, int k, McVec **va, McVec **vc, int *kk)
{
    const int ns = a->gs.nbx * a->gs.nby, n0 = a->gh[0].nbx * a->gh[0].nby;
    if (k < ns) {
        *va = a->vec_sa;
        *vc = a->vec_sc;
        *kk = k;
        return &a->gs;
    }
    const int h = k - ns >= n0;
    *va = a->vec_ha[h];
    *vc = a->vec_hc[h];
    *kk = k - ns - h * n0;
    return &a->gh[h];
}

/* Stage A of block k of the other grids (after the first grid's stages):
 * a block that acts (mc_shifted_active() at its index) chooses its own
 * vector, the others take the first grid's stage A vector of their block
 * (bx, by). The decision goes into a->acts at the index; the blocks of the
 * three grids at one index write the same value. */
MCF void mc_choose_other_block(const CudaMcArgs *a, int k)
{
    McVec *va, *vc;
    int kk;
    const McGrid *gg = mc_other(a, k, &va, &vc, &kk);
    const int bx = kk % gg->nbx, by = kk / gg->nbx;
    McVec more[4];
    mc_shifted_more(&a->g, a->vec_a, bx, by, more);
    const int acts = mc_shifted_active(&a->g, a->vec_a, bx, by);
    const McVec v = acts ? mc_choose(a, gg, &a->ph, a->fwd, a->bwd, &a->cam_model, a->cam, more,
                                     4, bx, by)
                         : a->vec_a[by * a->g.nbx + bx];
    if (MC_LANE == 0) {
        va[kk] = v;
        a->acts[by * a->g.nbx + bx] = (uint8_t)acts;
    }
}

/* Stage C of block k of the other grids (the others: the first grid's
 * final vector of their block). */
MCF void mc_refine_other_block(const CudaMcArgs *a, int k)
{
    McVec *va, *vc;
    int kk;
    const McGrid *gg = mc_other(a, k, &va, &vc, &kk);
    const int bx = kk % gg->nbx, by = kk / gg->nbx;
    const McVec v = a->acts[by * a->g.nbx + bx] ? mc_refine(a, gg, &a->ph, va, bx, by)
                                                 : a->vec_c[by * a->g.nbx + bx];
    if (MC_LANE == 0)
        vc[kk] = v;
}

/* The number of blocks that k_quad_other splits: the shifted grid's,
 * then the down-shifted grid's. */
MC_HOST_DEVICE int mc_split_count(const CudaMcArgs *a)
{
    return a->gs.nbx * a->gs.nby + a->gh[1].nbx * a->gh[1].nby;
}

/* The quadrant split of block k of the shifted grid, or (k past its
 * blocks) of the down-shifted grid, after the first grid's k_quad: a block
 * that acts splits as the first grid's blocks do where
 * mc_shifted_may_split(), the others keep their vector in all four
 * quarters (the CPU's grid_split_row()). */
MCF void mc_quad_other_block(const CudaMcArgs *a, int k)
{
    const int ns = a->gs.nbx * a->gs.nby, d = k >= ns;
    const McGrid *gg = d ? &a->gh[1] : &a->gs;
    const McVec *vc = d ? a->vec_hc[1] : a->vec_sc;
    McVec *vq = d ? a->vec_hq : a->vec_sq;
    uint8_t *sp = d ? a->split_h : a->split_s;
    const int kk = k - d * ns, bx = kk % gg->nbx, by = kk / gg->nbx;
    McVec q[4];
    int any = 0;
    if (a->acts[by * a->g.nbx + bx] && mc_shifted_may_split(&a->g, a->split, bx, by))
        any = mc_quad(a, gg, &a->ph, vc, a->fwd, a->bwd, bx, by, q);
    else
        q[0] = q[1] = q[2] = q[3] = vc[kk];
    if (MC_LANE == 0) {
        mc_quad_store(vq, gg->nbx, bx, by, q);
        sp[kk] = (uint8_t)any;
    }
}

/* One output pixel (x, y) of plane c: under OBMC, the first grid's pixel
 * averaged with those of the other grids whose blocks that act cover
 * (x, y) (mc_grid_average(); the CPU's mc_render_block_acc() and
 * grids_average()). */
MCF int mc_render_pixel(const CudaMcArgs *a, int c, int x, int y)
{
    const McPlaneView *P = c == 0 ? &a->prev[0] : c == 1 ? &a->prev[1] : &a->prev[2];
    const McPlaneView *N = c == 0 ? &a->next[0] : c == 1 ? &a->next[1] : &a->next[2];
    if (!a->overlap)
        return mc_render_px(P, N, &a->ph, a->wt, &a->g, a->vec_c, 0, c != 0, x, y);
    const int bs = c ? a->g.block / 2 : a->g.block;
    const int v = a->split[(y / bs) * a->g.nbx + x / bs]
                      ? mc_render_quad_px(P, N, &a->ph, a->wt, &a->g, a->vec_q, c != 0, x, y)
                      : mc_render_px(P, N, &a->ph, a->wt, &a->g, a->vec_c, 1, c != 0, x, y);
    int sum = 0, n = 0;
    for (int i = 0; i < 3; i++) {
        const McGrid *gg = i == 0 ? &a->gs : &a->gh[i - 1];
        const int sx = x - (c ? gg->ox >> 1 : gg->ox), sy = y - (c ? gg->oy >> 1 : gg->oy);
        if (gg->nbx == 0 || gg->nby == 0 || sx < 0 || sy < 0 ||
            !a->acts[(sy / bs) * a->g.nbx + sx / bs])
            continue;
        if (i == 0 && a->split_s[(sy / bs) * gg->nbx + sx / bs])
            sum += mc_render_quad_px(P, N, &a->ph, a->wt, gg, a->vec_sq, c != 0, x, y);
        else if (i == 2 && a->split_h[(sy / bs) * gg->nbx + sx / bs])
            sum += mc_render_quad_px(P, N, &a->ph, a->wt, gg, a->vec_hq, c != 0, x, y);
        else
            sum += mc_render_px(P, N, &a->ph, a->wt, gg, i == 0 ? a->vec_sc : a->vec_hc[i - 1], 1,
                                c != 0, x, y);
        n++;
    }
    return mc_grid_average(v, sum, n);
}

/* filters/blend.c at one pixel. */
MCF int mc_blend_pixel(const CudaMcArgs *a, int c, int x, int y)
{
    const McPlaneView *P = c == 0 ? &a->prev[0] : c == 1 ? &a->prev[1] : &a->prev[2];
    const McPlaneView *N = c == 0 ? &a->next[0] : c == 1 ? &a->next[1] : &a->next[2];
    return mc_blend_px(mc_px(P, x, y), mc_px(N, x, y), a->wt);
}

#ifdef __cplusplus
}
#endif

#endif

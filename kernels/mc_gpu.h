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

/* Stage A of block k of the shifted grid (after the first grid's stages):
 * a block that acts (mc_shifted_active()) chooses its own vector, the
 * others take the first grid's stage A vector of their block (bx, by). */
MCF void mc_choose_shifted_block(const CudaMcArgs *a, int k)
{
    const int bx = k % a->gs.nbx, by = k / a->gs.nbx;
    McVec more[4];
    mc_shifted_more(&a->g, a->vec_a, bx, by, more);
    const McVec v = mc_shifted_active(&a->g, a->vec_a, bx, by)
                        ? mc_choose(a, &a->gs, &a->ph, a->fwd, a->bwd, &a->cam_model, a->cam,
                                    more, 4, bx, by)
                        : a->vec_a[by * a->g.nbx + bx];
    if (MC_LANE == 0)
        a->vec_sa[k] = v;
}

/* Stage C of block k of the shifted grid (the others: the first grid's
 * final vector of their block). */
MCF void mc_refine_shifted_block(const CudaMcArgs *a, int k)
{
    const int bx = k % a->gs.nbx, by = k / a->gs.nbx;
    const McVec v = mc_shifted_active(&a->g, a->vec_a, bx, by)
                        ? mc_refine(a, &a->gs, &a->ph, a->vec_sa, bx, by)
                        : a->vec_c[by * a->g.nbx + bx];
    if (MC_LANE == 0)
        a->vec_sc[k] = v;
}

/* The quadrant split of block k of the shifted grid (after the first
 * grid's k_quad): a block that acts splits as the first grid's blocks do
 * where mc_shifted_may_split(), the others keep their vector in all four
 * quarters (the CPU's shifted_split_row()). */
MCF void mc_quad_shifted_block(const CudaMcArgs *a, int k)
{
    const int bx = k % a->gs.nbx, by = k / a->gs.nbx;
    McVec q[4];
    int any = 0;
    if (mc_shifted_active(&a->g, a->vec_a, bx, by) &&
        mc_shifted_may_split(&a->g, a->split, bx, by))
        any = mc_quad(a, &a->gs, &a->ph, a->vec_sc, a->fwd, a->bwd, bx, by, q);
    else
        q[0] = q[1] = q[2] = q[3] = a->vec_sc[k];
    if (MC_LANE == 0) {
        mc_quad_store(a->vec_sq, a->gs.nbx, bx, by, q);
        a->split_s[k] = (uint8_t)any;
    }
}

/* One output pixel (x, y) of plane c: under OBMC, the first grid's pixel
 * averaged with the shifted grid's where a block of it that acts covers
 * (x, y) (the CPU's mc_render_block_avg()). */
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
    const int sx = x - (c ? a->gs.ox >> 1 : a->gs.ox), sy = y - (c ? a->gs.oy >> 1 : a->gs.oy);
    if (a->gs.nbx == 0 || a->gs.nby == 0 || sx < 0 || sy < 0 ||
        !mc_shifted_active(&a->g, a->vec_a, sx / bs, sy / bs))
        return v;
    const int s = a->split_s[(sy / bs) * a->gs.nbx + sx / bs]
                      ? mc_render_quad_px(P, N, &a->ph, a->wt, &a->gs, a->vec_sq, c != 0, x, y)
                      : mc_render_px(P, N, &a->ph, a->wt, &a->gs, a->vec_sc, 1, c != 0, x, y);
    return (v + s + 1) >> 1;
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

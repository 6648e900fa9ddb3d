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
    /* Per block: screened vector and cost (stage A), final vector (C),
     * vectors in quarter luma pel. */
    McVec *vec_a, *vec_c;
    uint32_t *cost_a;
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

/* The lanes' costs for mc_stages.h: reads clamped to the visible plane
 * (equal to the CPU's reads of the padded plane), pixel i of the window
 * walked incrementally (a division per pixel costs more than the pixel's
 * arithmetic on the GPU). */
#define MC_STAGE_CTX const CudaMcArgs *

MCF uint32_t mc_cost_int(const CudaMcArgs *a, int x0, int y0, int w, int h, int ax, int ay,
                         int bx, int by)
{
    const McPlaneView *P = &a->prev[0], *N = &a->next[0];
    const int sx = MC_NLANES % w, sy = MC_NLANES / w;
    int x = x0 + MC_LANE % w, y = y0 + MC_LANE / w;
    uint32_t s = 0;
    for (int j = MC_LANE; j < w * h; j += MC_NLANES) {
        const int d = P->data[(ptrdiff_t)mc_clamp(y - ay, 0, P->h - 1) * P->stride +
                              mc_clamp(x - ax, 0, P->w - 1)] -
                      N->data[(ptrdiff_t)mc_clamp(y + by, 0, N->h - 1) * N->stride +
                              mc_clamp(x + bx, 0, N->w - 1)];
        s += (uint32_t)mc_abs(d);
        x += sx;
        y += sy;
        if (x >= x0 + w) {
            x -= w;
            y++;
        }
    }
    return MC_SUM(s);
}

MCF uint32_t mc_cost_sub(const CudaMcArgs *a, int x0, int y0, int w, int h, int vx, int vy)
{
    int ax, ay, bx, by;
    mc_phase_split(vx, 4, &a->ph, &ax, &bx);
    mc_phase_split(vy, 4, &a->ph, &ay, &by);
    const int pxs = x0 * 16 - ax, pys = y0 * 16 - ay, nxs = x0 * 16 + bx, nys = y0 * 16 + by;
    const int ix = pxs >> 4, fx = pxs & 15, iy = pys >> 4, fy = pys & 15;
    const int jx = nxs >> 4, gx = nxs & 15, jy = nys >> 4, gy = nys & 15;
    const int sx = MC_NLANES % w, sy = MC_NLANES / w;
    int x = MC_LANE % w, y = MC_LANE / w;
    uint32_t s = 0;
    for (int i = MC_LANE; i < w * h; i += MC_NLANES) {
        const int d = mc_bilin_px(&a->prev[0], ix + x, iy + y, fx, fy) -
                      mc_bilin_px(&a->next[0], jx + x, jy + y, gx, gy);
        s += (uint32_t)mc_abs(d);
        x += sx;
        y += sy;
        if (x >= w) {
            x -= w;
            y++;
        }
    }
    return MC_SUM(s);
}

#include "filters/mc_stages.h"

/* Stage A of block k; every lane computes, lane 0 stores. */
MCF void mc_choose_block(const CudaMcArgs *a, int k)
{
    uint32_t c;
    const McVec v = mc_choose(a, &a->g, &a->ph, a->fwd, a->bwd, k % a->g.nbx, k / a->g.nbx, &c);
    if (MC_LANE == 0) {
        a->vec_a[k] = v;
        a->cost_a[k] = c;
    }
}

/* Stage C of block k. */
MCF void mc_refine_block(const CudaMcArgs *a, int k)
{
    const McVec v = mc_refine(a, &a->g, a->vec_a, a->cost_a, k % a->g.nbx, k / a->g.nbx);
    if (MC_LANE == 0)
        a->vec_c[k] = v;
}

/* One output pixel (x, y) of plane c. */
MCF int mc_render_pixel(const CudaMcArgs *a, int c, int x, int y)
{
    const McPlaneView *P = c == 0 ? &a->prev[0] : c == 1 ? &a->prev[1] : &a->prev[2];
    const McPlaneView *N = c == 0 ? &a->next[0] : c == 1 ? &a->next[1] : &a->next[2];
    return mc_render_px(P, N, &a->ph, a->wt, &a->g, a->vec_c, a->overlap, c != 0, x, y);
}

/* filters/blend.c at one pixel. */
MCF int mc_blend_pixel(const CudaMcArgs *a, int c, int x, int y)
{
    const McPlaneView *P = c == 0 ? &a->prev[0] : c == 1 ? &a->prev[1] : &a->prev[2];
    const McPlaneView *N = c == 0 ? &a->next[0] : c == 1 ? &a->next[1] : &a->next[2];
    return mc_blend_px(P->data[(ptrdiff_t)y * P->stride + x], N->data[(ptrdiff_t)y * N->stride + x],
                       a->wt);
}

#ifdef __cplusplus
}
#endif

#endif

/* Interpolation kernels: the OMCTI/MCTI filter, blend and the scene-cut
 * statistics on the GPU, bit-exact with filters/ (the arithmetic is the C
 * reference of filters/mc_block.h and mc_stages.h, shared out by
 * kernels/mc_gpu.h, which the CPU emulation test builds too).
 *
 * Mapping: stages A and C take one warp per block (the lanes split the
 * window's pixels, a butterfly sum gives every lane the cost, so all lanes
 * take the same decisions without divergence); rendering and blend take
 * one thread per output pixel, 32 x 8 per CTA, a launch per band of block
 * rows so that the host can download a finished band while the next one
 * renders. Stage C reads stage A of the 3x3 neighbourhood and the quadrant
 * split reads C of it, so the three are separate launches. */
#include <stdint.h>

#include "kernels/cuda_mc.h"

#define WARPS 4 /* warps (blocks of the picture) per CTA in stages A and C */

__global__ void __launch_bounds__(256) k_phase_table(int32_t *tab, int K, long long num, long long den)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 2 * K)
        tab[i] = (int32_t)mc_rdiv(num * (i - K), den);
}

__global__ void __launch_bounds__(32 * WARPS) k_choose(const __grid_constant__ CudaMcArgs a)
{
    const int k = blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (k < a.g.nbx * a.g.nby) /* uniform per warp */
        mc_choose_block(&a, k);
}

__global__ void __launch_bounds__(32 * WARPS) k_refine(const __grid_constant__ CudaMcArgs a)
{
    const int k = blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (k < a.g.nbx * a.g.nby)
        mc_refine_block(&a, k);
}

__global__ void __launch_bounds__(32 * WARPS) k_quad(const __grid_constant__ CudaMcArgs a)
{
    const int k = blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (k < a.g.nbx * a.g.nby)
        mc_quad_block(&a, k);
}

__global__ void __launch_bounds__(32 * WARPS) k_choose_other(const __grid_constant__ CudaMcArgs a)
{
    const int k = blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (k < mc_other_count(&a))
        mc_choose_other_block(&a, k);
}

__global__ void __launch_bounds__(32 * WARPS) k_refine_other(const __grid_constant__ CudaMcArgs a)
{
    const int k = blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (k < mc_other_count(&a))
        mc_refine_other_block(&a, k);
}

__global__ void __launch_bounds__(32 * WARPS) k_quad_other(const __grid_constant__ CudaMcArgs a)
{
    const int k = blockIdx.x * WARPS + (int)(threadIdx.x >> 5);
    if (k < mc_split_count(&a))
        mc_quad_other_block(&a, k);
}

/* blockIdx.z = plane; rows [y0, y1) of that plane. */
template <int MODE>
__global__ void __launch_bounds__(256) k_render(const __grid_constant__ CudaMcArgs a, int r0, int r1)
{
    const int c = blockIdx.z;
    const int pw = c ? (a.g.width + 1) >> 1 : a.g.width, ph = c ? (a.g.height + 1) >> 1 : a.g.height;
    const int bs = c ? a.g.block / 2 : a.g.block;
    const int y0 = r0 * bs, y1 = min(r1 * bs, ph);
    const int x = blockIdx.x * 32 + threadIdx.x, y = y0 + blockIdx.y * 8 + threadIdx.y;
    if (x >= pw || y >= y1)
        return;
    const int v = MODE ? mc_render_pixel(&a, c, x, y) : mc_blend_pixel(&a, c, x, y);
    uint8_t *o = c == 0 ? a.out[0] : c == 1 ? a.out[1] : a.out[2];
    const int os = c == 0 ? a.out_stride[0] : c == 1 ? a.out_stride[1] : a.out_stride[2];
    o[(ptrdiff_t)y * os + x] = (uint8_t)v;
}

/* Activity: one warp per even row; a CTA's warps add into one atomic. */
__global__ void __launch_bounds__(256) k_activity(const __grid_constant__ CudaMcArgs a, McSceneStats *st)
{
    __shared__ unsigned long long part[8];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int y = 2 * (blockIdx.x * 8 + warp);
    uint32_t s = 0;
    if (y < a.next[0].h - 1)
        s = mc_activity_part(&a.next[0], y, lane, 32);
    s = mc_warp_sum(s); /* a row: at most 2 * 255 * 16383, fits */
    if (lane == 0)
        part[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int i = 0; i < 8; i++)
            t += part[i];
        atomicAdd(&st->activity, t);
    }
}

/* Static share: one warp per whole block, a lane per row. */
__global__ void __launch_bounds__(128) k_static(const __grid_constant__ CudaMcArgs a, McSceneStats *st)
{
    const int block = a.g.block;
    const int nbx = a.prev[0].w / block, nby = a.prev[0].h / block;
    const int k = blockIdx.x * 4 + (int)(threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (k >= nbx * nby)
        return;
    int r = 3;
    for (int y = lane; y < block; y += 32)
        r &= mc_static_row(&a.prev[0], &a.next[0], block, k % nbx, k / nbx, y);
    const int flat = __all_sync(0xffffffffu, r & 1), eq = __all_sync(0xffffffffu, r & 2);
    if (lane == 0 && !flat) {
        atomicAdd(&st->textured, 1u);
        if (eq)
            atomicAdd(&st->same, 1u);
    }
}

extern "C" cudaError_t cuda_mc_phase_table(int32_t *tab, int K, long long num, long long den,
                                           cudaStream_t st)
{
    k_phase_table<<<(2 * K + 1 + 255) / 256, 256, 0, st>>>(tab, K, num, den);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_mc_vectors(const CudaMcArgs *a, cudaStream_t st)
{
    const int nb = a->g.nbx * a->g.nby;
    const int grid = (nb + WARPS - 1) / WARPS;
    k_choose<<<grid, 32 * WARPS, 0, st>>>(*a);
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess)
        return rc;
    k_refine<<<grid, 32 * WARPS, 0, st>>>(*a);
    rc = cudaGetLastError();
    if (rc != cudaSuccess || !a->overlap)
        return rc;
    k_quad<<<grid, 32 * WARPS, 0, st>>>(*a);
    rc = cudaGetLastError();
    const int ns = a->gs.nbx * a->gs.nby;
    if (rc != cudaSuccess || ns == 0)
        return rc;
    /* the other grids (the shifted grid and the half-shifted ones, one
     * launch for each stage), after the first grid's split, then the
     * shifted and the down-shifted grid's split (k_quad_other reads the
     * first grid's switches) */
    const int no = mc_other_count(a);
    k_choose_other<<<(no + WARPS - 1) / WARPS, 32 * WARPS, 0, st>>>(*a);
    if ((rc = cudaGetLastError()) != cudaSuccess)
        return rc;
    k_refine_other<<<(no + WARPS - 1) / WARPS, 32 * WARPS, 0, st>>>(*a);
    if ((rc = cudaGetLastError()) != cudaSuccess)
        return rc;
    const int nq = mc_split_count(a);
    k_quad_other<<<(nq + WARPS - 1) / WARPS, 32 * WARPS, 0, st>>>(*a);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_mc_render(const CudaMcArgs *a, int mode, int r0, int r1,
                                      cudaStream_t st)
{
    if (r1 <= r0)
        return cudaSuccess;
    const int rows = (r1 - r0) * a->g.block; /* luma rows; chroma needs half */
    dim3 grid((a->g.width + 31) / 32, (rows + 7) / 8, 3);
    if (mode)
        k_render<1><<<grid, dim3(32, 8), 0, st>>>(*a, r0, r1);
    else
        k_render<0><<<grid, dim3(32, 8), 0, st>>>(*a, r0, r1);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_mc_stats(const CudaMcArgs *a, McSceneStats *stats, cudaStream_t st)
{
    cudaError_t rc = cudaMemsetAsync(stats, 0, sizeof *stats, st);
    if (rc != cudaSuccess)
        return rc;
    const int rows = a->next[0].h / 2 + 1;
    k_activity<<<(rows + 7) / 8, 256, 0, st>>>(*a, stats);
    if ((rc = cudaGetLastError()) != cudaSuccess)
        return rc;
    const int nb = (a->prev[0].w / a->g.block) * (a->prev[0].h / a->g.block);
    if (nb > 0) {
        k_static<<<(nb + 3) / 4, 128, 0, st>>>(*a, stats);
        rc = cudaGetLastError();
    }
    return rc;
}

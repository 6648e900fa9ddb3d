/* The pyramid search on the GPU (included by me_kernels.cu, one object):
 * the same per-block arithmetic as the CPU engine (src/motion/pyramid.c),
 * from the same header, src/motion/pyramid_block.h; every SAD is the
 * clamped reference, so the fields are byte-identical to the CPU's.
 *
 * One thread per block and field (the top level's volume: per vector;
 * its picks: a warp per block),
 * one launch per level (the blocks of a level depend only on the level
 * above, or on pass 1 of the top level). The absolute differences are counted as the CPU counts
 * them (integer sums: the order of the atomics does not matter). */
#include "src/motion/pyramid_block.h"

static __device__ PyrPlane pyr_level_plane(const CudaPyrArgs &a, int i, int l)
{
    PyrPlane p;
    p.data = l ? a.level[i][l] : a.frame[i];
    p.stride = l ? a.w[l] : a.frame_stride;
    p.w = a.w[l];
    p.h = a.h[l];
    return p;
}

/* Level l of frame blockIdx.z from level l - 1. */
__global__ void pyr_down(const CudaPyrArgs a, int l)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int i = blockIdx.z;
    if (x >= a.w[l] || y >= a.h[l])
        return;
    const PyrPlane below = pyr_level_plane(a, i, l - 1);
    a.level[i][l][(size_t)y * a.w[l] + x] = pyr_down_px(&below, x, y);
}

/* The top level's SAD volume, one thread per (block, vector) of field f =
 * blockIdx.y (cur is frame f, ref the other): the exhaustive window is
 * where the pyramid spends most of its differences, and a thread per block
 * left the GPU nearly idle (a 1080p top level has 135 blocks). */
__global__ void pyr_top_vol(const CudaPyrArgs a)
{
    const int L = a.levels, f = blockIdx.y;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= a.nbx[L] * a.nby[L] * PYR_TOP_N)
        return;
    const int k = t / PYR_TOP_N, i = t % PYR_TOP_N;
    const PyrPlane cur = pyr_level_plane(a, f, L), ref = pyr_level_plane(a, !f, L);
    const PyrWin w = pyr_coarse_win(k % a.nbx[L], k / a.nbx[L], a.w[L], a.h[L]);
    a.vol[f][(size_t)k * PYR_TOP_N + i] =
        pyr_sad_clamped(&cur, &ref, &w, i % PYR_TOP_SIDE - PYR_TOP_R, i / PYR_TOP_SIDE - PYR_TOP_R);
}

/* The top level's pick (pyramid_block.h pyr_top_pick()) by one warp per
 * block: each lane the best of its share of the volume, then the warp's
 * best by the same total order. */
static __device__ PyrVec pyr_top_pick_warp(const uint32_t *vol, int area, PyrVec md, int lane)
{
    uint32_t bc = UINT32_MAX;
    int bdx = 0, bdy = 0;
    pyr_top_pick_part(vol, area, md, lane, 32, &bc, &bdx, &bdy);
    for (int o = 16; o; o >>= 1) {
        const uint32_t oc = __shfl_xor_sync(0xffffffffu, bc, o);
        const int ox = __shfl_xor_sync(0xffffffffu, bdx, o);
        const int oy = __shfl_xor_sync(0xffffffffu, bdy, o);
        if (pyr_better(oc, ox, oy, bc, bdx, bdy)) {
            bc = oc;
            bdx = ox;
            bdy = oy;
        }
    }
    PyrVec v;
    v.x = (int16_t)bdx;
    v.y = (int16_t)bdy;
    return v;
}

#define PYR_PICK_WARPS 4 /* blocks per CTA of the picks */

/* Pass 1 of the top level from the volume, a warp per block. */
__global__ void pyr_top1(const CudaPyrArgs a)
{
    const int L = a.levels, f = blockIdx.y, lane = threadIdx.x & 31;
    const int k = blockIdx.x * PYR_PICK_WARPS + (int)(threadIdx.x >> 5);
    if (k >= a.nbx[L] * a.nby[L]) /* uniform per warp */
        return;
    const PyrWin w = pyr_coarse_win(k % a.nbx[L], k / a.nbx[L], a.w[L], a.h[L]);
    const uint32_t *vol = a.vol[f] + (size_t)k * PYR_TOP_N;
    PyrVec zero;
    zero.x = zero.y = 0;
    const PyrVec v = pyr_top_pick_warp(vol, 0, zero, lane);
    if (lane == 0) {
        ((PyrVec *)a.top1[f])[k] = v;
        atomicAdd(a.points, (u64)PYR_TOP_N * pyr_area(&w));
    }
}

__global__ void pyr_top2(const CudaPyrArgs a)
{
    const int L = a.levels, f = blockIdx.y, lane = threadIdx.x & 31;
    const int k = blockIdx.x * PYR_PICK_WARPS + (int)(threadIdx.x >> 5);
    if (k >= a.nbx[L] * a.nby[L])
        return;
    const int bx = k % a.nbx[L], by = k / a.nbx[L];
    const PyrWin w = pyr_coarse_win(bx, by, a.w[L], a.h[L]);
    const int area = pyr_area(&w);
    const PyrVec md = pyr_median3((const PyrVec *)a.top1[f], a.nbx[L], a.nby[L], bx, by);
    const uint32_t *vol = a.vol[f] + (size_t)k * PYR_TOP_N;
    const PyrVec v = pyr_top_pick_warp(vol, area, md, lane);
    if (lane == 0)
        ((PyrVec *)a.vec[f][L])[k] = v;
}

/* A middle level: the parent's candidates, then the small-diamond walk. */
__global__ void pyr_middle(const CudaPyrArgs a, int l)
{
    const int f = blockIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= a.nbx[l] * a.nby[l])
        return;
    const int bx = k % a.nbx[l], by = k / a.nbx[l];
    const PyrPlane cur = pyr_level_plane(a, f, l), ref = pyr_level_plane(a, !f, l);
    const PyrWin w = pyr_coarse_win(bx, by, a.w[l], a.h[l]);
    const int area = pyr_area(&w);
    PyrVec cand[PYR_MAX_CAND], pred;
    const int n = pyr_candidates((const PyrVec *)a.vec[f][l + 1], a.nbx[l + 1], a.nby[l + 1],
                                 bx, by, cand, &pred);
    uint32_t bc = UINT32_MAX;
    PyrVec b = cand[0];
    for (int i = 0; i < n; i++)
        pyr_consider(pyr_sad_clamped(&cur, &ref, &w, cand[i].x, cand[i].y), cand[i], area, pred,
                     &bc, &b);
    int evaluated = n;
    for (int step = 0; step < PYR_WALK; step++) {
        PyrVec nb = b;
        uint32_t nc = bc;
        for (int j = 0; j < 4; j++) {
            const PyrVec t = pyr_walk_point(b, j);
            pyr_consider(pyr_sad_clamped(&cur, &ref, &w, t.x, t.y), t, area, pred, &nc, &nb);
        }
        evaluated += 4;
        if (nb.x == b.x && nb.y == b.y)
            break;
        b = nb;
        bc = nc;
    }
    ((PyrVec *)a.vec[f][l])[k] = b;
    atomicAdd(a.points, (u64)evaluated * area);
}

/* Level 0's SADs for pyramid_level0.h: the clamped reference. */
typedef struct Level0Ctx {
    PyrPlane cur, ref;
    PyrWin w;
} Level0Ctx;

static __device__ __forceinline__ uint32_t pyr_l0_sad(const Level0Ctx *c, int dx, int dy)
{
    return pyr_sad_clamped(&c->cur, &c->ref, &c->w, dx, dy);
}

#define PYR_L0_CTX const Level0Ctx *
#include "src/motion/pyramid_level0.h"

/* Level 0: pyramid_level0.h's choice of the output block. */
__global__ void pyr_level0(const CudaPyrArgs a)
{
    const int f = blockIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= a.bw * a.bh)
        return;
    const int bx = k % a.bw, by = k / a.bw;
    const int i1 = pyr_level1_index(bx, a.block, a.nbx[1]);
    const int j1 = pyr_level1_index(by, a.block, a.nby[1]);
    const PyrVec *v1s = (const PyrVec *)a.vec[f][1];
    const PyrVec v1 = v1s[(size_t)j1 * a.nbx[1] + i1];
    const PyrVec m1 = pyr_median3(v1s, a.nbx[1], a.nby[1], i1, j1);
    Level0Ctx c;
    c.cur = pyr_level_plane(a, f, 0);
    c.ref = pyr_level_plane(a, !f, 0);
    c.w = pyr_block_win(bx, by, a.block, a.w[0], a.h[0]);
    const int area = pyr_area(&c.w);
    PyrVec v;
    uint32_t sad;
    const int n = pyr_level0_block(&c, area, v1, m1, (const PyrVec *)a.hist[f], a.bw, a.bh, bx,
                                   by, a.keep_final, (PyrVec *)a.kept[f] + k, &v, &sad);
    a.mv[f][k] = (uint32_t)(uint16_t)v.x | (uint32_t)(uint16_t)v.y << 16;
    a.sad[f][k] = sad;
    atomicAdd(a.points, (u64)n * area);
}

extern "C" cudaError_t cuda_me_pyramid_launch(const CudaPyrArgs *a, cudaStream_t st)
{
    const int L = a->levels;
    if (L < 1 || L >= CUDA_PYR_LEVELS || a->bw < 1 || a->bh < 1)
        return cudaErrorInvalidValue;
    for (int l = 1; l <= L; l++) {
        const dim3 blk(32, 8), grid((a->w[l] + 31) / 32, (a->h[l] + 7) / 8, 2);
        pyr_down<<<grid, blk, 0, st>>>(*a, l);
    }
    const int T = 64;
    const int ntop = a->nbx[L] * a->nby[L];
    pyr_top_vol<<<dim3((ntop * PYR_TOP_N + 255) / 256, 2), 256, 0, st>>>(*a);
    const int W = PYR_PICK_WARPS;
    pyr_top1<<<dim3((ntop + W - 1) / W, 2), 32 * W, 0, st>>>(*a);
    pyr_top2<<<dim3((ntop + W - 1) / W, 2), 32 * W, 0, st>>>(*a);
    for (int l = L - 1; l >= 1; l--) {
        const int nb = a->nbx[l] * a->nby[l];
        pyr_middle<<<dim3((nb + T - 1) / T, 2), T, 0, st>>>(*a, l);
    }
    const int nb0 = a->bw * a->bh;
    pyr_level0<<<dim3((nb0 + T - 1) / T, 2), T, 0, st>>>(*a);
    return cudaGetLastError();
}

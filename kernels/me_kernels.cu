/* CUDA block motion estimation: full search and diamond search, both
 * directions in one launch, fields identical bit for bit to the CPU engine.
 *
 * Tie rule (src/motion/engine.h, mv_better): smaller SAD, then smaller
 * |dx|+|dy|, then smaller dy, then smaller dx. It is a strict total order on
 * (sad, dx, dy), so it is packed into one 64-bit key whose unsigned minimum
 * is the winner; the minimum does not depend on the order in which threads
 * or atomics see the candidates, which is what makes the GPU deterministic.
 *
 * Full search ("tiled"): a CTA takes M neighbouring blocks of one block row
 * and one direction. The reference window of the M blocks and the blocks
 * themselves are staged in shared memory once. A thread owns a tile of
 * 4 horizontal x K vertical candidates for one block (or one S-pixel wide
 * strip of a 32-pixel block) and keeps that block strip in registers. It
 * walks down the K+B-1 reference rows of its tile once: each row is loaded
 * once (S/4+1 words), shifted into the 4 byte alignments once (funnel
 * shifts), and then serves every (block row j, candidate dy) pair with
 * j + dy = row, i.e. up to B candidates. So partial SADs are shared between
 * neighbouring candidates through the reused row loads, and the inner loop
 * is almost only vabsdiff4 with accumulate (4 absolute differences and the
 * sum in one instruction).
 *
 * Diamond search: one warp per block. The 32 lanes form 8 slots of 4; a
 * slot evaluates one candidate (each lane a quarter of the block's rows), so
 * one LDSP step is one round. The visited set is a bitmap in shared memory,
 * so no point is evaluated twice (this only affects the work counter: a
 * point seen before is always worse than the current centre). */
#include <stdint.h>

#include "kernels/cuda_me.h"

typedef unsigned long long u64;

#define KEY_NONE (~0ull)

__device__ __forceinline__ uint32_t vsad4(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

__device__ __forceinline__ u64 mv_key(uint32_t sad, int dx, int dy)
{
    const uint32_t n = (uint32_t)(abs(dx) + abs(dy));
    return ((u64)sad << 24) | (u64)((n << 16) | ((uint32_t)(dy + 64) << 8) | (uint32_t)(dx + 64));
}

/* Field-by-field selects: indexing the kernel parameters with a run-time
 * value would make the compiler copy them to local memory. */
__device__ __forceinline__ void key_store(const CudaMeArgs &a, int dir, int idx, u64 key)
{
    const int dx = (int)(key & 0xff) - 64, dy = (int)((key >> 8) & 0xff) - 64;
    uint32_t *mv = dir ? a.mv[1] : a.mv[0];
    uint32_t *sad = dir ? a.sad[1] : a.sad[0];
    mv[idx] = ((uint32_t)(uint16_t)(int16_t)dx) | ((uint32_t)(uint16_t)(int16_t)dy << 16);
    sad[idx] = (uint32_t)(key >> 24);
}

__device__ __forceinline__ CudaMePlane plane_sel(const CudaMeArgs &a, bool next)
{
    CudaMePlane p;
    p.data = next ? a.next.data : a.prev.data;
    p.stride = next ? a.next.stride : a.prev.stride;
    p.xlo = next ? a.next.xlo : a.prev.xlo;
    p.xhi = next ? a.next.xhi : a.prev.xhi;
    p.ylo = next ? a.next.ylo : a.prev.ylo;
    p.yhi = next ? a.next.yhi : a.prev.yhi;
    return p;
}

__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* 4 bytes of row y starting at column x (any alignment), every byte clamped
 * into the plane's uploaded area. */
__device__ __forceinline__ uint32_t load4(const CudaMePlane &p, int x, int y)
{
    const uint8_t *row = p.data + (ptrdiff_t)clampi(y, p.ylo, p.yhi) * p.stride;
    const int xa = x & ~3;
    if (xa >= p.xlo && xa + 7 <= p.xhi) {
        const uint32_t lo = *(const uint32_t *)(row + xa);
        const uint32_t hi = *(const uint32_t *)(row + xa + 4);
        return __funnelshift_r(lo, hi, 8 * (x & 3));
    }
    uint32_t v = 0;
    for (int b = 0; b < 4; b++)
        v |= (uint32_t)row[clampi(x + b, p.xlo, p.xhi)] << (8 * b);
    return v;
}

/* ---------------------------------------------------------------- full -- */

struct FullCfg {
    int M;      /* blocks per CTA                                   */
    int ndx;    /* groups of 4 dx                                   */
    int ng;     /* groups of K dy                                   */
    int wr;     /* window rows                                      */
    int wcw;    /* window words per row                             */
    int cw;     /* words per row of the staged blocks               */
};

template <int B, int S, int K>
__global__ void __launch_bounds__(256)
full_tiled(const CudaMeArgs a, const FullCfg f)
{
    constexpr int SW = S / 4;   /* words per strip row */
    constexpr int NS = B / S;   /* strips per block    */
    const int R = a.range, M = f.M;
    const int dir = blockIdx.z;
    const CudaMePlane cp = plane_sel(a, dir);  /* the blocks      */
    const CudaMePlane rp = plane_sel(a, !dir); /* where they move */
    const int bx0 = blockIdx.x * M, by = blockIdx.y;
    const int x0 = bx0 * B, y0 = by * B;

    extern __shared__ __align__(16) uint32_t smem[];
    u64 *best = (u64 *)smem;
    uint32_t *curt = smem + 2 * M;
    uint32_t *win = curt + B * f.cw;

    /* Window column 0 is x0 - R, row 0 is y0 - R. */
    for (int i = threadIdx.x; i < f.wr * f.wcw; i += blockDim.x) {
        const int r = i / f.wcw, c = i - r * f.wcw;
        win[i] = load4(rp, x0 - R + 4 * c, y0 - R + r);
    }
    for (int i = threadIdx.x; i < B * f.cw; i += blockDim.x) {
        const int r = i / f.cw, c = i - r * f.cw;
        /* Blocks past the last grid column are never reported; load4's
         * clamp keeps their (unused) pixels inside the plane. */
        curt[i] = load4(cp, x0 + 4 * c, y0 + r);
    }
    for (int i = threadIdx.x; i < M; i += blockDim.x)
        best[i] = KEY_NONE;
    __syncthreads();

    const int nitems = f.ng * M * f.ndx * NS;
    for (int base = 0; base < nitems; base += blockDim.x) {
        /* Every thread runs every round (strip partial sums are combined
         * with shuffles); threads past the end compute item 0 and drop it. */
        const int it = base + threadIdx.x;
        const int itc = it < nitems ? it : 0;
        const int s = itc % NS;
        int t = itc / NS;
        const int dxg = t % f.ndx;
        t /= f.ndx;
        const int mb = t % M, g = t / M;
        const bool active = it < nitems && bx0 + mb < a.bw;

        uint32_t c[B][SW];
        {
            const uint32_t *cb = curt + mb * (B / 4) + s * SW;
#pragma unroll
            for (int j = 0; j < B; j++)
#pragma unroll
                for (int w = 0; w < SW; w++)
                    c[j][w] = cb[j * f.cw + w];
        }

        uint32_t acc[4][K];
#pragma unroll
        for (int q = 0; q < 4; q++)
#pragma unroll
            for (int k = 0; k < K; k++)
                acc[q][k] = 0;

        /* Candidate (dxg*4 - R + q, g*K - R + k), block row j reads window
         * row g*K + k + j at column mb*B + s*S + dxg*4 + q (+ pixel). */
        const uint32_t *wp = win + g * K * f.wcw + (mb * B + s * S) / 4 + dxg;
#pragma unroll
        for (int r = 0; r < K + B - 1; r++) {
            uint32_t wv[SW + 1];
#pragma unroll
            for (int w = 0; w <= SW; w++)
                wv[w] = wp[r * f.wcw + w];
            uint32_t sh[4][SW];
#pragma unroll
            for (int w = 0; w < SW; w++) {
                sh[0][w] = wv[w];
                sh[1][w] = __funnelshift_r(wv[w], wv[w + 1], 8);
                sh[2][w] = __funnelshift_r(wv[w], wv[w + 1], 16);
                sh[3][w] = __funnelshift_r(wv[w], wv[w + 1], 24);
            }
#pragma unroll
            for (int j = 0; j < B; j++) {
                const int k = r - j;
                if (k >= 0 && k < K) {
#pragma unroll
                    for (int q = 0; q < 4; q++)
#pragma unroll
                        for (int w = 0; w < SW; w++)
                            acc[q][k] = vsad4(c[j][w], sh[q][w], acc[q][k]);
                }
            }
        }

        if (NS > 1) {
            /* The NS strips of one block are NS neighbouring lanes. */
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (int k = 0; k < K; k++)
#pragma unroll
                    for (int o = 1; o < NS; o <<= 1)
                        acc[q][k] += __shfl_xor_sync(0xffffffffu, acc[q][k], o);
        }

        /* Best of the tile in two passes: the minimum SAD (candidates past
         * the window get a penalty bit that no real SAD reaches), then the
         * tie rule among the few candidates equal to it; building the full
         * key for every candidate would cost as much as 15% of the SADs. */
        const int dxb = dxg * 4 - R, dyb = g * K - R;
        uint32_t pq[4], pk[K];
#pragma unroll
        for (int q = 0; q < 4; q++)
            pq[q] = dxb + q <= R ? 0u : 0x80000000u;
#pragma unroll
        for (int k = 0; k < K; k++)
            pk[k] = dyb + k <= R ? 0u : 0x80000000u;
        uint32_t m = 0xffffffffu;
#pragma unroll
        for (int k = 0; k < K; k++)
#pragma unroll
            for (int q = 0; q < 4; q++) {
                acc[q][k] |= pq[q] | pk[k];
                m = min(m, acc[q][k]);
            }
        u64 kb = KEY_NONE;
#pragma unroll
        for (int k = 0; k < K; k++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (acc[q][k] == m) {
                    const u64 key = mv_key(m, dxb + q, dyb + k);
                    kb = key < kb ? key : kb;
                }
        if (active && s == 0 && !(m & 0x80000000u))
            atomicMin(&best[mb], kb);
    }
    __syncthreads();

    for (int i = threadIdx.x; i < M; i += blockDim.x)
        if (bx0 + i < a.bw)
            key_store(a, dir, by * a.bw + bx0 + i, best[i]);
}

/* ---------------------------------------------------------- full naive -- */

/* The plain layout the tiled kernel is measured against: one CTA per block,
 * one thread per candidate, window and block in shared memory, packed SAD
 * on funnel-shifted words. Kept for the benchmark and as a second,
 * independent implementation in the equivalence test. */
template <int B>
__global__ void __launch_bounds__(256)
full_naive(const CudaMeArgs a)
{
    const int R = a.range, D = 2 * R + 1;
    const int dir = blockIdx.z;
    const CudaMePlane cp = plane_sel(a, dir);
    const CudaMePlane rp = plane_sel(a, !dir);
    const int bx = blockIdx.x, by = blockIdx.y;
    const int x0 = bx * B, y0 = by * B;
    const int wcw = (B + 2 * R + 3) / 4 + 1, wr = B + 2 * R;

    extern __shared__ __align__(16) uint32_t smem[];
    u64 *best = (u64 *)smem;
    uint32_t *cur = smem + 2;
    uint32_t *win = cur + B * B / 4;
    for (int i = threadIdx.x; i < wr * wcw; i += blockDim.x) {
        const int r = i / wcw, c = i - r * wcw;
        win[i] = load4(rp, x0 - R + 4 * c, y0 - R + r);
    }
    for (int i = threadIdx.x; i < B * B / 4; i += blockDim.x) {
        const int r = i / (B / 4), c = i - r * (B / 4);
        cur[i] = load4(cp, x0 + 4 * c, y0 + r);
    }
    if (threadIdx.x == 0)
        *best = KEY_NONE;
    __syncthreads();

    u64 kb = KEY_NONE;
    for (int i = threadIdx.x; i < D * D; i += blockDim.x) {
        const int v = i / D, u = i - v * D; /* window offsets */
        uint32_t sad = 0;
        const int sh = 8 * (u & 3);
        for (int j = 0; j < B; j++) {
            const uint32_t *wrow = win + (v + j) * wcw + (u >> 2);
#pragma unroll
            for (int w = 0; w < B / 4; w++)
                sad = vsad4(cur[j * (B / 4) + w], __funnelshift_r(wrow[w], wrow[w + 1], sh), sad);
        }
        const u64 key = mv_key(sad, u - R, v - R);
        kb = key < kb ? key : kb;
    }
    atomicMin(best, kb);
    __syncthreads();
    if (threadIdx.x == 0)
        key_store(a, dir, by * a.bw + bx, *best);
}

/* ------------------------------------------------------------- diamond -- */

template <int B>
__global__ void __launch_bounds__(128)
diamond(const CudaMeArgs a, int vis_words)
{
    constexpr int RQ = B / 4; /* rows per lane         */
    constexpr int BW = B / 4; /* words per block row   */
    const int R = a.range, D = 2 * R + 1;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int slot = lane >> 2, q = lane & 3;
    const int dir = blockIdx.y;

    extern __shared__ uint32_t vis_all[];
    uint32_t *vis = vis_all + warp * vis_words;

    const int blk = blockIdx.x * 4 + warp;
    if (blk >= a.bw * a.bh)
        return; /* whole warp: no barrier below spans warps */
    const int bx = blk % a.bw, by = blk / a.bw;
    const int x0 = bx * B, y0 = by * B + q * RQ;
    const CudaMePlane cp = plane_sel(a, dir);
    const CudaMePlane rp = plane_sel(a, !dir);

    uint32_t c[RQ][BW];
#pragma unroll
    for (int j = 0; j < RQ; j++)
#pragma unroll
        for (int w = 0; w < BW; w++)
            c[j][w] = load4(cp, x0 + 4 * w, y0 + j);

    for (int i = lane; i < vis_words; i += 32)
        vis[i] = 0;
    __syncwarp();

    /* LDSP ring (the 8 points around the centre) and SDSP ring (4). */
    const int ldx[8] = {0, -1, 1, -2, 2, -1, 1, 0};
    const int ldy[8] = {-2, -1, -1, 0, 0, 1, 1, 2};
    const int sdx[4] = {0, -1, 1, 0};
    const int sdy[4] = {-1, 0, 0, 1};

    int cx = 0, cy = 0, points = 0;
    u64 best = KEY_NONE;

    /* One round: every lane builds the same list of new, in-window points
     * (warp-uniform), slot i evaluates point i. Returns the best key of the
     * round. phase 0: the start point; 1: LDSP; 2: SDSP. */
    for (int phase = 0; phase < 3;) {
        const int npts = phase == 0 ? 1 : phase == 1 ? 8 : 4;
        int n = 0, mx = 0, my = 0;
#pragma unroll
        for (int i = 0; i < 8; i++) {
            if (i >= npts)
                break;
            const int px = cx + (phase == 0 ? 0 : phase == 1 ? ldx[i] : sdx[i & 3]);
            const int py = cy + (phase == 0 ? 0 : phase == 1 ? ldy[i] : sdy[i & 3]);
            if (px < -R || px > R || py < -R || py > R)
                continue;
            const int bit = (py + R) * D + (px + R);
            if (vis[bit >> 5] >> (bit & 31) & 1)
                continue;
            if (n == slot) {
                mx = px;
                my = py;
            }
            n++;
        }
        __syncwarp();
        if (q == 0 && slot < n) {
            const int bit = (my + R) * D + (mx + R);
            atomicOr(&vis[bit >> 5], 1u << (bit & 31));
        }
        __syncwarp();
        points += n;

        uint32_t part = 0;
        if (slot < n) {
            const int x = x0 + mx, sh = 8 * (x & 3), xa = x & ~3;
#pragma unroll
            for (int j = 0; j < RQ; j++) {
                /* Candidates in the window never need clamping (padding);
                 * the read is plain and 4-byte aligned. */
                const uint32_t *row = (const uint32_t *)(rp.data + (ptrdiff_t)(y0 + my + j) * rp.stride + xa);
                uint32_t wv[BW + 1];
#pragma unroll
                for (int w = 0; w <= BW; w++)
                    wv[w] = row[w];
#pragma unroll
                for (int w = 0; w < BW; w++)
                    part = vsad4(c[j][w], __funnelshift_r(wv[w], wv[w + 1], sh), part);
            }
        }
        part += __shfl_xor_sync(0xffffffffu, part, 1);
        part += __shfl_xor_sync(0xffffffffu, part, 2);
        u64 key = slot < n ? mv_key(part, mx, my) : KEY_NONE;
#pragma unroll
        for (int o = 4; o < 32; o <<= 1) {
            const u64 other = __shfl_xor_sync(0xffffffffu, key, o);
            key = other < key ? other : key;
        }

        if (phase == 1 && key < best) {
            /* A ring point beat the centre: it becomes the new centre. */
            best = key;
            cx = (int)(key & 0xff) - 64;
            cy = (int)((key >> 8) & 0xff) - 64;
            continue;
        }
        if (key < best)
            best = key;
        phase++;
    }

    if (lane == 0) {
        key_store(a, dir, blk, best);
        atomicAdd(a.points, (u64)points);
    }
}

/* ---------------------------------------------------------------- host -- */

template <int B, int S, int K>
static cudaError_t launch_full_k(const CudaMeArgs *a, cudaStream_t st)
{
    constexpr int NS = B / S;
    const int D = 2 * a->range + 1;
    FullCfg f;
    f.ndx = (D + 3) / 4;
    f.ng = (D + K - 1) / K;
    f.wr = f.ng * K + B - 1;
    /* Pick the number of blocks per CTA that wastes the fewest thread slots
     * (idle lanes, blocks past the row end), preferring wide CTAs, whose
     * windows overlap less, within the default 48 KiB of shared memory. */
    int bestM = 1, bestThreads = 32;
    double bestScore = -1.0;
    for (int M = 1; M <= 16; M++) {
        const int wcw = (M * B) / 4 + f.ndx + 1;
        const size_t smem = 8 * (size_t)M + 4 * (size_t)(B * (M * B / 4) + f.wr * wcw);
        if (smem > 48 * 1024)
            break;
        const int items = f.ng * M * f.ndx * NS;
        int threads = (items + 31) / 32 * 32;
        if (threads > 256)
            threads = 256;
        const int rounds = (items + threads - 1) / threads;
        const int ctas_row = (a->bw + M - 1) / M;
        const double useful = (double)a->bw * f.ng * f.ndx * NS;
        const double eff = useful / ((double)ctas_row * threads * rounds);
        const double overlap = (double)(M * B) / (M * B + 2 * a->range);
        const double score = eff * (0.9 + 0.1 * overlap);
        if (score > bestScore + 1e-9) {
            bestScore = score;
            bestM = M;
            bestThreads = threads;
        }
    }
    f.M = bestM;
    f.wcw = (f.M * B) / 4 + f.ndx + 1;
    f.cw = f.M * B / 4;
    const size_t smem = 8 * (size_t)f.M + 4 * (size_t)(B * f.cw + f.wr * f.wcw);
    dim3 grid((a->bw + f.M - 1) / f.M, a->bh, 2);
    full_tiled<B, S, K><<<grid, bestThreads, smem, st>>>(*a, f);
    return cudaGetLastError();
}

/* Work of one configuration: candidate rows computed (with the rounding of
 * dy into groups of K) plus the reference rows loaded per group. */
static double tile_cost(int D, int B, int K)
{
    const int g = (D + K - 1) / K;
    return (double)g * K * B + (double)g * (K + B - 1) * 3.0;
}

template <int B, int S>
static cudaError_t launch_full(const CudaMeArgs *a, cudaStream_t st)
{
    const int D = 2 * a->range + 1;
    switch (a->tile_k) { /* forced by a benchmark */
    case 5: return launch_full_k<B, S, 5>(a, st);
    case 8: return launch_full_k<B, S, 8>(a, st);
    case 11: return launch_full_k<B, S, 11>(a, st);
    }
    /* Measured on an H100 (docs/cuda.md): 5 candidates per thread win up to
     * range 16 and for 8x8 blocks, the lower register count (64) letting
     * more CTAs overlap their window loads; for larger windows the work
     * model decides (K = 11 wins at range 32, block 16). */
    if (B == 8 || a->range <= 16)
        return launch_full_k<B, S, 5>(a, st);
    const double c5 = tile_cost(D, B, 5), c8 = tile_cost(D, B, 8), c11 = tile_cost(D, B, 11);
    if (c11 <= c8 && c11 <= c5)
        return launch_full_k<B, S, 11>(a, st);
    if (c8 <= c5)
        return launch_full_k<B, S, 8>(a, st);
    return launch_full_k<B, S, 5>(a, st);
}

template <int B>
static cudaError_t launch_naive(const CudaMeArgs *a, cudaStream_t st)
{
    const int R = a->range;
    const int wcw = (B + 2 * R + 3) / 4 + 1, wr = B + 2 * R;
    const size_t smem = 16 + 4 * (size_t)(B * B / 4 + wr * wcw);
    dim3 grid(a->bw, a->bh, 2);
    full_naive<B><<<grid, 256, smem, st>>>(*a);
    return cudaGetLastError();
}

template <int B>
static cudaError_t launch_diamond(const CudaMeArgs *a, cudaStream_t st)
{
    const int D = 2 * a->range + 1;
    const int vis_words = (D * D + 31) / 32;
    const int nblk = a->bw * a->bh;
    dim3 grid((nblk + 3) / 4, 2);
    diamond<B><<<grid, 128, 4 * (size_t)vis_words * 4, st>>>(*a, vis_words);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_me_launch(const CudaMeArgs *a, int kind, cudaStream_t st)
{
    if (a->range < 1 || a->range > 64 || a->bw < 1 || a->bh < 1)
        return cudaErrorInvalidValue;
    switch (kind) {
    case CUDA_ME_FULL:
        switch (a->block) {
        case 8: return launch_full<8, 8>(a, st);
        case 16: return launch_full<16, 16>(a, st);
        case 32: return launch_full<32, 8>(a, st);
        }
        break;
    case CUDA_ME_FULL_NAIVE:
        switch (a->block) {
        case 8: return launch_naive<8>(a, st);
        case 16: return launch_naive<16>(a, st);
        case 32: return launch_naive<32>(a, st);
        }
        break;
    case CUDA_ME_DIAMOND:
        switch (a->block) {
        case 8: return launch_diamond<8>(a, st);
        case 16: return launch_diamond<16>(a, st);
        case 32: return launch_diamond<32>(a, st);
        }
        break;
    }
    return cudaErrorInvalidValue;
}

/* The pyramid search (its own file: the diamond and full kernels above are
 * independent of it). */
#include "kernels/me_pyramid.cuh"

extern "C" cudaError_t cuda_me_probe(void)
{
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, full_tiled<16, 16, 11>);
}

/* The arithmetic of the motion-compensated filters (filters/mc.c), blend
 * and the scene-cut statistics (filters/scenecut.c), written once for two
 * compilers: nvcc builds the CUDA kernels from it (kernels/mc_kernels.cu),
 * and a plain C compiler builds the same functions for the emulation test
 * (tests/cuda/test_cuda_mc_emul.c), which runs them sequentially on the CPU
 * and compares with the CPU filters on every machine, GPU or not. So the
 * arithmetic that must be bit-exact is checked in CI; the device run only
 * has to confirm the thread mapping.
 *
 * Work split (one "group" = one warp on the GPU, one loop on the CPU):
 *   mc_choose_block()  stage A of one block: candidate screening (integer
 *                      bilateral SAD on the grown window), exact cost;
 *   mc_refine_block()  stage C: 3x3 vector median of outliers, half and
 *                      quarter pel refinement on the block;
 *   mc_render_pixel()  one output pixel of one plane: bicubic predictions of
 *                      the own and (omcti) neighbour vectors, OBMC sum;
 *   mc_blend_pixel()   blend; mc_activity_part(), mc_static_block(): the
 *                      scene-cut statistics.
 * The cost sums are split over MC_NLANES lanes and reduced by MC_SUM;
 * integer sums do not depend on the order, so the warp gives the CPU's sum.
 *
 * Pixel reads clamp the coordinates to the visible plane. The CPU reads the
 * padded plane and clamps to the padding; the padding replicates the edge
 * pixels (src/frame.c), so both read the same value at every position.
 *
 * Only the default tuning of mc.c is implemented (the one a release build
 * has): H.263 OBMC masks (taken from mc_mask_weights() at init), bicubic
 * rendering, bilinear costs, window margin block/4, median tolerance 6/16,
 * quarter pel with 8 points per step on the block only. */
#ifndef OMCTI_KERNELS_MC_GPU_H
#define OMCTI_KERNELS_MC_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One plane: data points at pixel (0, 0); reads are clamped to w x h. */
typedef struct CudaMcPlane {
    const uint8_t *data;
    int stride;
    int w, h;
} CudaMcPlane;

#define MC_GPU_MAX_CAND 19   /* zero + 2 per block of the 3x3 neighbourhood */
#define MC_GPU_MEDIAN_TOL 6  /* mc.c default_tuning(): median_tol         */

typedef struct CudaMcArgs {
    CudaMcPlane prev[3], next[3];  /* Y, U, V                               */
    int width, height;             /* luma                                  */
    int block, nbx, nby;
    int overlap;                   /* 1 omcti (OBMC), 0 mcti                */
    /* Fields of the pair (engine layout: int16 x | int16 y << 16). */
    const uint32_t *fmv, *bmv;
    /* Per block: screened vector and cost (stage A), final vector (C),
     * vectors in quarter luma pel, packed like the fields. */
    uint32_t *vec_a, *cost_a, *vec_c;
    /* Phase t = num/den: tab[k + K] = mc_rdiv(num * k, den), |k| <= K. */
    const int32_t *tab;
    int K;
    long long num, den;
    int wt;                        /* phase_weight256(num, den)             */
    const int16_t *mask;           /* [luma, chroma][own, h, v][32 * 32]    */
    uint8_t *out[3];               /* output planes                         */
    int out_stride[3];
} CudaMcArgs;

/* Statistics of a pair for the scene-cut decision (filled by the GPU,
 * read by the host): activity of next's luma, whole textured blocks and
 * those identical in prev and next. */
typedef struct CudaMcStats {
    unsigned long long activity;
    uint32_t textured, same;
} CudaMcStats;

#ifdef __CUDACC__
#define MCF static __device__ __forceinline__
#define MC_TAPS_QUAL static __constant__ const
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
#define MCF static inline
#define MC_TAPS_QUAL static const
#define MC_LANE 0
#define MC_NLANES 1
#define MC_SUM(v) (v)
#endif

/* mc_cubic_taps (filters/mc_dsp.c), a compile-time copy for the constant
 * bank; the engine compares the two at init and keeps the CPU filter if
 * they ever differ. */
MC_TAPS_QUAL int8_t mc_gpu_taps[16][4] = {
    {0, 64, 0, 0},    {-2, 64, 2, 0},   {-3, 61, 6, 0},   {-4, 59, 10, -1},
    {-4, 56, 14, -2}, {-5, 51, 20, -2}, {-5, 47, 25, -3}, {-4, 41, 30, -3},
    {-4, 36, 36, -4}, {-3, 30, 41, -4}, {-3, 25, 47, -5}, {-2, 20, 51, -5},
    {-2, 14, 56, -4}, {-1, 10, 59, -4}, {0, 6, 61, -3},   {0, 2, 64, -2},
};

MCF int mc_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

MCF int mc_px(const CudaMcPlane *p, int x, int y)
{
    return p->data[(ptrdiff_t)mc_clamp(y, 0, p->h - 1) * p->stride + mc_clamp(x, 0, p->w - 1)];
}

MCF uint32_t mc_pack(int x, int y)
{
    return (uint32_t)(uint16_t)(int16_t)x | (uint32_t)(uint16_t)(int16_t)y << 16;
}
MCF int mc_vx(uint32_t v) { return (int16_t)(uint16_t)(v & 0xffffu); }
MCF int mc_vy(uint32_t v) { return (int16_t)(uint16_t)(v >> 16); }

/* mc_rdiv(): n/d rounded, halves away from zero. */
MCF int mc_rdiv_i(long long n, long long d)
{
    return n >= 0 ? (int)((2 * n + d) / (2 * d)) : -(int)((-2 * n + d) / (2 * d));
}

/* mc.c phase_disp(): mc_rdiv(num * k, den), from the table when it covers k. */
MCF int mc_disp(const CudaMcArgs *a, int k)
{
    if (k >= -a->K && k <= a->K)
        return a->tab[k + a->K];
    return mc_rdiv_i(a->num * k, a->den);
}

/* Bilinear sample in 1/16 (mc.c sample_bilinear, mc_dsp.h sad_bilin). */
MCF int mc_bilin(const CudaMcPlane *p, int ix, int iy, int fx, int fy)
{
    const int w00 = (16 - fx) * (16 - fy), w01 = fx * (16 - fy);
    const int w10 = (16 - fx) * fy, w11 = fx * fy;
    return (w00 * mc_px(p, ix, iy) + w01 * mc_px(p, ix + 1, iy) + w10 * mc_px(p, ix, iy + 1) +
            w11 * mc_px(p, ix + 1, iy + 1) + 8) >> 4;
}

/* Bicubic sample in 1/16 (mc.c sample_cubic): horizontal pass in int16
 * (never truncates: |taps| sum to at most 71, times 255), vertical pass
 * rounded once, negative to 0, clamped to 4080. With fx = fy = 0 this is
 * q << 4, the value sample_cubic() takes from its bilinear shortcut. */
MCF int mc_cubic(const CudaMcPlane *p, int ix, int iy, int fx, int fy)
{
    int v = 128;
    for (int r = 0; r < 4; r++) {
        const int y = iy - 1 + r;
        const int t = mc_gpu_taps[fx][0] * mc_px(p, ix - 1, y) + mc_gpu_taps[fx][1] * mc_px(p, ix, y) +
                      mc_gpu_taps[fx][2] * mc_px(p, ix + 1, y) +
                      mc_gpu_taps[fx][3] * mc_px(p, ix + 2, y);
        v += mc_gpu_taps[fy][r] * (int)(int16_t)t;
    }
    v = v < 0 ? 0 : v >> 8;
    return v > 4080 ? 4080 : v;
}

/* mc.c block_window(): the block grown by block/4, clipped to the picture. */
MCF void mc_window(const CudaMcArgs *a, int bx, int by, int *x0, int *y0, int *w, int *h)
{
    const int m = a->block / 4;
    const int xa = bx * a->block - m > 0 ? bx * a->block - m : 0;
    const int ya = by * a->block - m > 0 ? by * a->block - m : 0;
    const int xb = (bx + 1) * a->block + m < a->width ? (bx + 1) * a->block + m : a->width;
    const int yb = (by + 1) * a->block + m < a->height ? (by + 1) * a->block + m : a->height;
    *x0 = xa;
    *y0 = ya;
    *w = xb - xa;
    *h = yb - ya;
}

/* mc.c cost_sub() with bilinear samples: bilateral SAD (1/16 units) of the
 * quarter-pel vector (vx, vy) over the window. Every lane of the group
 * calls it; every lane gets the sum. */
MCF uint32_t mc_cost_sub(const CudaMcArgs *a, int x0, int y0, int w, int h, int vx, int vy)
{
    const int ax = mc_disp(a, vx * 4), ay = mc_disp(a, vy * 4);
    const int bx = vx * 4 - ax, by = vy * 4 - ay;
    const int pxs = x0 * 16 - ax, pys = y0 * 16 - ay, nxs = x0 * 16 + bx, nys = y0 * 16 + by;
    const int ix = pxs >> 4, fx = pxs & 15, iy = pys >> 4, fy = pys & 15;
    const int jx = nxs >> 4, gx = nxs & 15, jy = nys >> 4, gy = nys & 15;
    /* (x, y) of pixel i walked incrementally: a division per pixel costs
     * more than the pixel's arithmetic on the GPU */
    const int sx = MC_NLANES % w, sy = MC_NLANES / w;
    int x = MC_LANE % w, y = MC_LANE / w;
    uint32_t s = 0;
    for (int i = MC_LANE; i < w * h; i += MC_NLANES) {
        const int d = mc_bilin(&a->prev[0], ix + x, iy + y, fx, fy) -
                      mc_bilin(&a->next[0], jx + x, jy + y, gx, gy);
        s += (uint32_t)(d < 0 ? -d : d);
        x += sx;
        y += sy;
        if (x >= w) {
            x -= w;
            y++;
        }
    }
    return MC_SUM(s);
}

/* mc.c gather_candidates(): zero, then the forward and negated backward
 * vectors of the block and its neighbours in raster order, without
 * duplicates. Returns the count. */
MCF int mc_gather(const CudaMcArgs *a, int bx, int by, uint32_t cand[MC_GPU_MAX_CAND])
{
    int n = 0;
    cand[n++] = 0;
    const int order[9][2] = {
        {0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
    };
    for (int k = 0; k < 9; k++) {
        const int x = bx + order[k][0], y = by + order[k][1];
        if (x < 0 || y < 0 || x >= a->nbx || y >= a->nby) continue;
        const uint32_t f = a->fmv[y * a->nbx + x], b = a->bmv[y * a->nbx + x];
        const uint32_t c2[2] = { f, mc_pack(-mc_vx(b), -mc_vy(b)) };
        for (int j = 0; j < 2; j++) {
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= cand[i] == c2[j];
            if (!dup) cand[n++] = c2[j];
        }
    }
    return n;
}

/* Stage A of block k (mc.c choose_block()). */
MCF void mc_choose_block(const CudaMcArgs *a, int k)
{
    const int bx = k % a->nbx, by = k / a->nbx;
    uint32_t cand[MC_GPU_MAX_CAND];
    const int n = mc_gather(a, bx, by, cand);
    int x0, y0, w, h;
    mc_window(a, bx, by, &x0, &y0, &w, &h);
    uint32_t best = 0xffffffffu;
    int bi = 0;
    const int sx = MC_NLANES % w, sy = MC_NLANES / w, lx = MC_LANE % w, ly = MC_LANE / w;
    for (int i = 0; i < n; i++) {
        const int cx = mc_vx(cand[i]), cy = mc_vy(cand[i]);
        const int ax = mc_disp(a, cx), ay = mc_disp(a, cy);
        const int bxx = cx - ax, byy = cy - ay;
        uint32_t s = 0;
        int x = x0 + lx, y = y0 + ly; /* walked as in mc_cost_sub() */
        for (int j = MC_LANE; j < w * h; j += MC_NLANES) {
            const int d = mc_px(&a->prev[0], x - ax, y - ay) - mc_px(&a->next[0], x + bxx, y + byy);
            s += (uint32_t)(d < 0 ? -d : d);
            x += sx;
            y += sy;
            if (x >= x0 + w) {
                x -= w;
                y++;
            }
        }
        s = MC_SUM(s); /* zero_bias is 0: the zero vector's cost stays as it is */
        if (s < best) {
            best = s;
            bi = i;
        }
    }
    const int vx = mc_vx(cand[bi]) * 4, vy = mc_vy(cand[bi]) * 4;
    const uint32_t c = mc_cost_sub(a, x0, y0, w, h, vx, vy);
    if (MC_LANE == 0) {
        a->vec_a[k] = mc_pack(vx, vy);
        a->cost_a[k] = c;
    }
}

/* mc.c vector_median(): the member of the 3x3 neighbourhood with the
 * smallest sum of L1 distances to the others, first in raster order. */
MCF uint32_t mc_median(const CudaMcArgs *a, int bx, int by)
{
    uint32_t m[9];
    int n = 0;
    for (int y = by - 1; y <= by + 1; y++)
        for (int x = bx - 1; x <= bx + 1; x++)
            if (x >= 0 && y >= 0 && x < a->nbx && y < a->nby)
                m[n++] = a->vec_a[y * a->nbx + x];
    int best = 0;
    long long bd = 0x7fffffffffffffffll;
    for (int i = 0; i < n; i++) {
        long long d = 0;
        for (int j = 0; j < n; j++) {
            const int dx = mc_vx(m[i]) - mc_vx(m[j]), dy = mc_vy(m[i]) - mc_vy(m[j]);
            d += (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
        }
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return m[best];
}

/* Stage C of block k (mc.c refine_block()). */
MCF void mc_refine_block(const CudaMcArgs *a, int k)
{
    const int bx = k % a->nbx, by = k / a->nbx;
    uint32_t v = a->vec_a[k];
    uint32_t c = a->cost_a[k];
    int x0, y0, w, h;
    mc_window(a, bx, by, &x0, &y0, &w, &h);
    const uint32_t m = mc_median(a, bx, by);
    if (m != v) {
        const uint32_t cm = mc_cost_sub(a, x0, y0, w, h, mc_vx(m), mc_vy(m));
        if ((unsigned long long)cm * 16 <= (unsigned long long)c * (16 + MC_GPU_MEDIAN_TOL)) {
            v = m;
            c = cm;
        }
    }
    /* refinement on the block only */
    const int sx0 = bx * a->block, sy0 = by * a->block;
    const int sw = a->width - sx0 < a->block ? a->width - sx0 : a->block;
    const int sh = a->height - sy0 < a->block ? a->height - sy0 : a->block;
    c = mc_cost_sub(a, sx0, sy0, sw, sh, mc_vx(v), mc_vy(v));
    const int d8[8][2] = {
        {0, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
    };
    for (int step = 2; step >= 1; step--) {
        uint32_t best = v;
        for (int i = 0; i < 8; i++) {
            const int vx = mc_vx(v) + d8[i][0] * step, vy = mc_vy(v) + d8[i][1] * step;
            const uint32_t cc = mc_cost_sub(a, sx0, sy0, sw, sh, vx, vy);
            if (cc < c) {
                c = cc;
                best = mc_pack(vx, vy);
            }
        }
        v = best;
    }
    if (MC_LANE == 0)
        a->vec_c[k] = v;
}

/* mc.c predict() at one pixel of plane c: the bidirectional bicubic
 * prediction of vector v (quarter luma pel), 1/16 units. */
MCF int mc_pred(const CudaMcArgs *a, const CudaMcPlane *P, const CudaMcPlane *N, int scale,
                uint32_t v, int x, int y)
{
    const int vx = mc_vx(v) * scale, vy = mc_vy(v) * scale;
    const int ax = mc_disp(a, vx), ay = mc_disp(a, vy);
    const int bx = vx - ax, by = vy - ay;
    const int pxs = x * 16 - ax, pys = y * 16 - ay, nxs = x * 16 + bx, nys = y * 16 + by;
    const int p = mc_cubic(P, pxs >> 4, pys >> 4, pxs & 15, pys & 15);
    const int n = mc_cubic(N, nxs >> 4, nys >> 4, nxs & 15, nys & 15);
    return ((256 - a->wt) * p + a->wt * n + 128) >> 8;
}

/* One output pixel (x, y) of plane c (mc.c render_block()): with one
 * vector (p + 8) >> 4; under OBMC (w_own p_own + w_h p_h + w_v p_v + 2048)
 * >> 12, which is the same value where the three vectors agree. */
MCF int mc_render_pixel(const CudaMcArgs *a, int c, int x, int y)
{
    const CudaMcPlane *P = c == 0 ? &a->prev[0] : c == 1 ? &a->prev[1] : &a->prev[2];
    const CudaMcPlane *N = c == 0 ? &a->next[0] : c == 1 ? &a->next[1] : &a->next[2];
    const int bs = c ? a->block / 2 : a->block, hb = bs / 2, scale = c ? 2 : 4;
    const int bx = x / bs, by = y / bs, lx = x - bx * bs, ly = y - by * bs;
    const int k = by * a->nbx + bx;
    const uint32_t own = a->vec_c[k];
    const int p0 = mc_pred(a, P, N, scale, own, x, y);
    if (!a->overlap)
        return (p0 + 8) >> 4;
    uint32_t vh = own, vv = own;
    if (lx < hb) {
        if (bx > 0) vh = a->vec_c[k - 1];
    } else if (bx + 1 < a->nbx) {
        vh = a->vec_c[k + 1];
    }
    if (ly < hb) {
        if (by > 0) vv = a->vec_c[k - a->nbx];
    } else if (by + 1 < a->nby) {
        vv = a->vec_c[k + a->nbx];
    }
    if (vh == own && vv == own)
        return (p0 + 8) >> 4;
    const int ph = vh == own ? p0 : mc_pred(a, P, N, scale, vh, x, y);
    const int pv = vv == own ? p0 : vv == vh ? ph : mc_pred(a, P, N, scale, vv, x, y);
    const int16_t *m = a->mask + (c ? 3 * 1024 : 0) + ly * bs + lx;
    const uint32_t acc = (uint32_t)(m[0] * p0 + m[1024] * ph + m[2048] * pv) + 2048;
    return (int)(acc >> 12);
}

/* filters/blend.c at one pixel. */
MCF int mc_blend_pixel(const CudaMcArgs *a, int c, int x, int y)
{
    const CudaMcPlane *P = c == 0 ? &a->prev[0] : c == 1 ? &a->prev[1] : &a->prev[2];
    const CudaMcPlane *N = c == 0 ? &a->next[0] : c == 1 ? &a->next[1] : &a->next[2];
    return (P->data[(ptrdiff_t)y * P->stride + x] * (256 - a->wt) +
            N->data[(ptrdiff_t)y * N->stride + x] * a->wt + 128) >> 8;
}

/* scenecut.c activity(): the terms of row y (even, < h - 1) of plane p,
 * columns x = lane, lane + nlanes, ... (< w - 1). */
MCF uint32_t mc_activity_part(const CudaMcPlane *p, int y, int lane, int nlanes)
{
    const uint8_t *r = p->data + (ptrdiff_t)y * p->stride, *d = r + p->stride;
    uint32_t s = 0;
    for (int x = lane; x < p->w - 1; x += nlanes) {
        const int a = r[x + 1] - r[x], b = d[x] - r[x];
        s += (uint32_t)((a < 0 ? -a : a) + (b < 0 ? -b : b));
    }
    return s;
}

/* scenecut.c static share, one whole block (bx, by): bit 0 textured (not
 * flat), bit 1 identical in prev and next. Per lane over its pixels; the
 * caller combines the lanes with AND. Returns flat | eq << 1 for the lane. */
MCF int mc_static_part(const CudaMcPlane *P, const CudaMcPlane *N, int block, int bx, int by,
                       int lane, int nlanes)
{
    const uint8_t *p = P->data + (ptrdiff_t)by * block * P->stride + bx * block;
    const uint8_t *n = N->data + (ptrdiff_t)by * block * N->stride + bx * block;
    int flat = 1, eq = 1;
    for (int i = lane; i < block * block; i += nlanes) {
        const int y = i / block, x = i - y * block;
        const uint8_t pv = p[(ptrdiff_t)y * P->stride + x];
        flat &= pv == p[0];
        eq &= pv == n[(ptrdiff_t)y * N->stride + x];
    }
    return flat | eq << 1;
}

#ifdef __cplusplus
}
#endif

#endif

/* The per-block arithmetic of the motion-compensated filters, written once
 * as static inline C that both compilers build: gcc/clang for the CPU
 * backend (filters/mc_vectors.c, mc_render.c, mc_dsp.c, scenecut.c) and
 * nvcc for the CUDA backend (kernels/mc_kernels.cu). Only data and pure
 * functions live here; the decisions built from them (which candidates,
 * which vector wins, when the median replaces a vector, the refinement
 * pattern) are in filters/mc_stages.h, also compiled by both.
 *
 * Pixel reads of the per-pixel functions clamp the coordinates to the
 * visible plane. The CPU reads the padded plane and clamps to the padding;
 * the padding replicates the edge pixels (src/frame.c), so both read the
 * same value at every position. */
#ifndef OMCTI_FILTERS_MC_BLOCK_H
#define OMCTI_FILTERS_MC_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "src/vec_median.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define MCF static __device__ __forceinline__
#define MC_CONST static __constant__ const
#else
#define MCF static inline
#define MC_CONST static const
#endif

/* A vector: full pel in the motion fields (the layout of MotionVector,
 * src/motion/engine.h), quarter luma pel in the filters' choices. */
typedef VecXY McVec;

/* One plane for the per-pixel functions: data points at pixel (0, 0);
 * reads are clamped to w x h. */
typedef struct McPlaneView {
    const uint8_t *data;
    int stride;
    int w, h;
} McPlaneView;

/* A block grid of a picture. Block (bx, by) covers luma pixels from
 * (ox + bx * block, oy + by * block), clipped to the picture: the first
 * grid starts at (0, 0) (mc_grid_make()), the other grids half a block
 * right and down (mc_grid_shifted()), right, or down (mc_grid_half()).
 * The pair's motion fields have the first grid's blocks, fnbx x fnby of
 * them; block (bx, by) of any grid reads the fields' block (bx, by) as its
 * own (for the other grids, the one under its top-left corner). */
typedef struct McGrid {
    int width, height;         /* luma                                    */
    int block, nbx, nby;
    int ox, oy;                /* origin of block (0, 0), luma pixels     */
    int fnbx, fnby;            /* the fields' size in blocks              */
} McGrid;

/* The phase t = num/den with its displacement table: tab[k + K] is
 * mc_rdiv(num * k, den) for |k| <= K, which saves a 64-bit division per
 * displacement (several per candidate and per prediction). */
typedef struct McPhase {
    const int32_t *tab;
    int K;
    int64_t num, den;
} McPhase;

/* The pair's camera model (filters/mc_camera.c mc_camera_model()): where
 * the camera zooms or turns, the motion of the background is not one
 * vector but v(x, y) = t + (z dx - r dy, r dx + z dy), (dx, dy) from the
 * origin (ox, oy) in luma pixels; t, z, r in 1/65536 (pel, pel per pel).
 * on = 0: the camera vector alone (a pan, or a still camera). */
typedef struct McCamModel {
    int on;
    int ox, oy, lim;       /* origin; |vector components| <= lim pel      */
    int64_t tx, ty, z, r;
} McCamModel;

/* Statistics of a pair for the scene-cut decision (filters/scenecut.h):
 * activity of next's luma, whole textured blocks and those identical in
 * prev and next. */
typedef struct McSceneStats {
    unsigned long long activity;
    uint32_t textured, same;
} McSceneStats;

#define MC_MAX_CAND 16   /* zero + 2 per block of the cross of 5 + camera + 4 */
#define MC_MARGIN_DIV 8  /* bilateral window: the block grown by block/8  */
#define MC_MEDIAN_TOL 6  /* the median may cost (16 + 6)/16 of the vector */
#define MC_SMOOTH_SHIFT 5 /* smoothness: (A * |c - camera|_1) >> 5 (lambda0 = 1) */
#define MC_LOCAL_SHIFT 6  /* and (A * |c - local|_1) >> 6 (mc_local_motion())     */
#define MC_CHROMA_W 2     /* stage A: 2 * (SAD_U + SAD_V) (mc_chroma_cost())      */
#define MC_REFINE_MARGIN 2 /* sub-pel step: cost down by 2/16 level per pixel */
#define MC_OCC_T 6       /* one-sided cost: grey levels per pixel one side misses */
#define MC_OCC_Q 4       /* ... when at least 1/4 of the window is missed   */
#define MC_QUAD_GUARD 12 /* a quarter switches below 12/16 of its own cost  */
#define MC_QUAD_MIN_L1 4 /* to a vector at least 1 pel (L1) from its own    */
#define MC_QUAD_FINAL 3  /* a quarter's candidates: 3 neighbours' final    */
#define MC_QUAD_CAND 9   /* vectors, then 6 field vectors                   */
#define MC_QUAD_FIELD_PEN 2 /* per px, quarter pel: 2/16 grey (field only)  */
#define MC_SHIFT_MIN_L1 16 /* the shifted grid acts where stage A differs by 4 pel */

/* Catmull-Rom (Keys, a = -1/2) taps in 1/64 for the 16 fractions, rounded
 * and mirrored so that f and 16 - f are symmetric and every row sums to 64. */
MC_CONST int8_t mc_cubic_taps[16][4] = {
    {0, 64, 0, 0},    {-2, 64, 2, 0},   {-3, 61, 6, 0},   {-4, 59, 10, -1},
    {-4, 56, 14, -2}, {-5, 51, 20, -2}, {-5, 47, 25, -3}, {-4, 41, 30, -3},
    {-4, 36, 36, -4}, {-3, 30, 41, -4}, {-3, 25, 47, -5}, {-2, 20, 51, -5},
    {-2, 14, 56, -4}, {-1, 10, 59, -4}, {0, 6, 61, -3},   {0, 2, 64, -2},
};

/* H.263 Annex F OBMC masks in 1/8: own, left/right, top/bottom. */
MC_CONST uint8_t mc_h263_mask[3][8][8] = {
    { {4, 5, 5, 5, 5, 5, 5, 4}, {5, 5, 5, 5, 5, 5, 5, 5},
      {5, 5, 6, 6, 6, 6, 5, 5}, {5, 5, 6, 6, 6, 6, 5, 5},
      {5, 5, 6, 6, 6, 6, 5, 5}, {5, 5, 6, 6, 6, 6, 5, 5},
      {5, 5, 5, 5, 5, 5, 5, 5}, {4, 5, 5, 5, 5, 5, 5, 4} },
    { {2, 1, 1, 1, 1, 1, 1, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
      {2, 2, 1, 1, 1, 1, 2, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
      {2, 2, 1, 1, 1, 1, 2, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
      {2, 2, 1, 1, 1, 1, 2, 2}, {2, 1, 1, 1, 1, 1, 1, 2} },
    { {2, 2, 2, 2, 2, 2, 2, 2}, {1, 1, 2, 2, 2, 2, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 2, 2, 2, 2, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2} },
};

/* OBMC weight k (0 own, 1 horizontal neighbour, 2 vertical neighbour) in
 * 1/8 of pixel (x, y) of a block of `block` pixels: the H.263 masks scaled
 * to the block; the three sum to 8. */
MCF int mc_mask8(int k, int block, int x, int y)
{
    return mc_h263_mask[k][y * 8 / block][x * 8 / block];
}

MCF int mc_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
MCF int mc_min(int a, int b) { return a < b ? a : b; }
MCF int mc_max(int a, int b) { return a > b ? a : b; }
MCF int mc_abs(int v) { return v < 0 ? -v : v; }

/* The first block grid of a width x height picture: blocks from (0, 0),
 * the last column and row partial where block does not divide the size. */
MCF McGrid mc_grid_make(int width, int height, int block)
{
    McGrid g;
    g.width = width;
    g.height = height;
    g.block = block;
    g.nbx = (width + block - 1) / block;
    g.nby = (height + block - 1) / block;
    g.ox = 0;
    g.oy = 0;
    g.fnbx = g.nbx;
    g.fnby = g.nby;
    return g;
}

/* The grid g moved by (dx, dy) luma pixels (0 or half a block each): its
 * blocks straddle g's. The first dx columns and dy rows belong to g alone;
 * nbx, nby count the blocks that start inside the picture (possibly none:
 * a picture of half a block or less). */
MCF McGrid mc_grid_offset(const McGrid *g, int dx, int dy)
{
    McGrid s = *g;
    s.ox = dx;
    s.oy = dy;
    s.nbx = g->width > s.ox ? (g->width - s.ox + g->block - 1) / g->block : 0;
    s.nby = g->height > s.oy ? (g->height - s.oy + g->block - 1) / g->block : 0;
    return s;
}

/* The grid g shifted by half a block right and down: its blocks straddle
 * g's, so that the two grids' OBMC renders average their errors
 * (docs/quality.md, "two block grids"). */
MCF McGrid mc_grid_shifted(const McGrid *g)
{
    return mc_grid_offset(g, g->block / 2, g->block / 2);
}

/* The two half-shifted grids: g moved by half a block right (h = 0) or
 * down (h = 1). Where the shifted grid acts (mc_shifted_active() of the
 * same index), these act too, choose their own vectors the same way (the
 * down-shifted grid also splits as the shifted one does, the
 * right-shifted grid never), and the picture there is the average of
 * every grid that covers the pixel (mc_grid_average()): four windows where two
 * motions meet, whose errors partly cancel (docs/quality.md, "four block
 * grids"). */
MCF McGrid mc_grid_half(const McGrid *g, int h)
{
    return mc_grid_offset(g, h ? 0 : g->block / 2, h ? g->block / 2 : 0);
}

/* A pixel of the first grid's picture first, averaged with the sum of the
 * n (0..3) other grids' pixels that act there, rounded: with one other grid
 * (first + other + 1) >> 1. */
MCF int mc_grid_average(int first, int sum, int n)
{
    return (first + sum + (n + 1) / 2) / (n + 1);
}

/* n/d rounded to nearest, halves away from zero (d > 0), so that
 * mc_rdiv(-n, d) == -mc_rdiv(n, d): forward and backward are symmetric. */
MCF int64_t mc_rdiv(int64_t n, int64_t d)
{
    return n >= 0 ? (2 * n + d) / (2 * d) : -((-2 * n + d) / (2 * d));
}

/* mc_rdiv(num * k, den), from the table when it covers k. */
MCF int mc_disp(const McPhase *ph, int k)
{
    if (k >= -ph->K && k <= ph->K)
        return ph->tab[k + ph->K];
    return (int)mc_rdiv(ph->num * k, ph->den);
}

/* The camera's motion (full pel) at luma pixel (x, y): the model's,
 * rounded (halves upwards: an arithmetic shift, as gcc and nvcc do it; the
 * same on every backend, if not symmetric like mc_rdiv()) and limited to
 * +-lim, else the camera vector cam. */
MCF McVec mc_cam_at(const McCamModel *m, McVec cam, int x, int y)
{
    if (!m || !m->on)
        return cam;
    const int64_t dx = x - m->ox, dy = y - m->oy;
    const int64_t vx = (m->tx + m->z * dx - m->r * dy + 32768) >> 16;
    const int64_t vy = (m->ty + m->r * dx + m->z * dy + 32768) >> 16;
    McVec v;
    v.x = (int16_t)(vx < -m->lim ? -m->lim : vx > m->lim ? m->lim : vx);
    v.y = (int16_t)(vy < -m->lim ? -m->lim : vy > m->lim ? m->lim : vy);
    return v;
}

/* The prev and next displacements (1/16 pel of the plane) of a vector v in
 * quarter luma pel times scale/4 at the phase: prev is read at x - a, next
 * at x + b, with a + b == v * scale exactly, so the trajectory is never
 * broken. */
MCF void mc_phase_split(int v, int scale, const McPhase *ph, int *a, int *b)
{
    const int v16 = v * scale;
    *a = mc_disp(ph, v16);
    *b = v16 - *a;
}

/* The bilateral window of block (bx, by): the block grown by block/8 on
 * every side, clipped to the picture so that padding never votes. */
MCF void mc_window(const McGrid *g, int bx, int by, int *x0, int *y0, int *w, int *h)
{
    const int m = g->block / MC_MARGIN_DIV;
    const int bx0 = g->ox + bx * g->block, by0 = g->oy + by * g->block;
    const int xa = mc_max(bx0 - m, 0), ya = mc_max(by0 - m, 0);
    const int xb = mc_min(bx0 + g->block + m, g->width);
    const int yb = mc_min(by0 + g->block + m, g->height);
    *x0 = xa;
    *y0 = ya;
    *w = xb - xa;
    *h = yb - ya;
}

/* The refinement's area: the block itself, clipped to the picture. */
MCF void mc_block_area(const McGrid *g, int bx, int by, int *x0, int *y0, int *w, int *h)
{
    *x0 = g->ox + bx * g->block;
    *y0 = g->oy + by * g->block;
    *w = mc_min(g->block, g->width - *x0);
    *h = mc_min(g->block, g->height - *y0);
}

/* Whether the integer positions [x, x + w) x [y, y + h) all lie inside a
 * pw x ph picture (not its padding). */
MCF int mc_in_picture(int pw, int ph, int x, int y, int w, int h)
{
    return x >= 0 && y >= 0 && x + w <= pw && y + h <= ph;
}

/* The pixels of the window [x0, x0 + w) x [y0, y0 + h) whose integer prev
 * sample position x + pdx, y + pdy and next sample position x + ndx,
 * y + ndy both lie inside a pw x ph picture: a rectangle (empty: *rw or
 * *rh <= 0). For the whole-pixel cost pdx = -ax, ndx = bx; for the
 * bilinear cost the integer parts, floor(-a / 16) and floor(b / 16). */
MCF void mc_valid_rect(int pw, int ph, int x0, int y0, int w, int h, int pdx, int pdy, int ndx,
                       int ndy, int *rx, int *ry, int *rw, int *rh)
{
    const int xa = mc_max(x0, mc_max(-pdx, -ndx)), xb = mc_min(x0 + w, mc_min(pw - pdx, pw - ndx));
    const int ya = mc_max(y0, mc_max(-pdy, -ndy)), yb = mc_min(y0 + h, mc_min(ph - pdy, ph - ndy));
    *rx = xa;
    *ry = ya;
    *rw = xb - xa;
    *rh = yb - ya;
}

/* Pixel (x, y), the coordinates clamped to the plane. */
MCF int mc_px(const McPlaneView *p, int x, int y)
{
    return p->data[(ptrdiff_t)mc_clamp(y, 0, p->h - 1) * p->stride + mc_clamp(x, 0, p->w - 1)];
}

/* Bilinear sample in 1/16 at (ix + fx/16, iy + fy/16), clamped reads. */
MCF int mc_bilin_px(const McPlaneView *p, int ix, int iy, int fx, int fy)
{
    const int x0 = mc_clamp(ix, 0, p->w - 1), x1 = mc_clamp(ix + 1, 0, p->w - 1);
    const uint8_t *r0 = p->data + (ptrdiff_t)mc_clamp(iy, 0, p->h - 1) * p->stride;
    const uint8_t *r1 = p->data + (ptrdiff_t)mc_clamp(iy + 1, 0, p->h - 1) * p->stride;
    return ((16 - fx) * (16 - fy) * r0[x0] + fx * (16 - fy) * r0[x1] + (16 - fx) * fy * r1[x0] +
            fx * fy * r1[x1] + 8) >> 4;
}

/* Bicubic sample in 1/16, clamped reads: horizontal pass in int16 (never
 * truncates: |taps| sum to at most 71, times 255), vertical pass rounded
 * once, negative to 0, clamped to 4080. With fx = fy = 0 this is q << 4. */
MCF int mc_cubic_px(const McPlaneView *p, int ix, int iy, int fx, int fy)
{
    const int xa = mc_clamp(ix - 1, 0, p->w - 1), xb = mc_clamp(ix, 0, p->w - 1);
    const int xc = mc_clamp(ix + 1, 0, p->w - 1), xd = mc_clamp(ix + 2, 0, p->w - 1);
    int v = 128;
    for (int r = 0; r < 4; r++) {
        const uint8_t *q = p->data + (ptrdiff_t)mc_clamp(iy - 1 + r, 0, p->h - 1) * p->stride;
        const int t = mc_cubic_taps[fx][0] * q[xa] + mc_cubic_taps[fx][1] * q[xb] +
                      mc_cubic_taps[fx][2] * q[xc] + mc_cubic_taps[fx][3] * q[xd];
        v += mc_cubic_taps[fy][r] * (int)(int16_t)t;
    }
    v = v < 0 ? 0 : v >> 8;
    return v > 4080 ? 4080 : v;
}

/* The bidirectional average of two samples p (prev) and n (next), 1/16. */
MCF int mc_pred_mix(int p, int n, int wt)
{
    return ((256 - wt) * p + wt * n + 128) >> 8;
}

/* The OBMC sum of three predictions (1/16) with weights in 1/8 summing to
 * 8, to a pixel; with one prediction, mc_put16(). */
MCF int mc_obmc8(int k0, int k1, int k2, int p0, int ph, int pv)
{
    return (k0 * p0 + k1 * ph + k2 * pv + 64) >> 7;
}

MCF int mc_put16(int p)
{
    return (p + 8) >> 4;
}

/* The next weight of a prediction whose integer prev sample is (px, py)
 * and next sample (nx, ny) (docs/quality.md, issue 16, step 9): the
 * phase's wt where both or neither lie inside the pictures, else all of
 * the side that sees the pixel. */
MCF int mc_one_sided_wt(const McPlaneView *P, const McPlaneView *N, int px, int py, int nx,
                        int ny, int wt)
{
    const int pin = px >= 0 && py >= 0 && px < P->w && py < P->h;
    const int nin = nx >= 0 && ny >= 0 && nx < N->w && ny < N->h;
    return pin == nin ? wt : nin ? 256 : 0;
}

/* The bidirectional bicubic prediction (1/16 units) at pixel (x, y) of a
 * plane for the vector v (quarter luma pel; scale 4 luma, 2 chroma) at
 * phase weight wt (1/256). */
MCF int mc_pred_px(const McPlaneView *P, const McPlaneView *N, const McPhase *ph, int wt,
                   int scale, McVec v, int x, int y)
{
    int ax, ay, bx, by;
    mc_phase_split(v.x, scale, ph, &ax, &bx);
    mc_phase_split(v.y, scale, ph, &ay, &by);
    const int pxs = x * 16 - ax, pys = y * 16 - ay, nxs = x * 16 + bx, nys = y * 16 + by;
    return mc_pred_mix(mc_cubic_px(P, pxs >> 4, pys >> 4, pxs & 15, pys & 15),
                       mc_cubic_px(N, nxs >> 4, nys >> 4, nxs & 15, nys & 15),
                       mc_one_sided_wt(P, N, pxs >> 4, pys >> 4, nxs >> 4, nys >> 4, wt));
}

MCF int mc_vec_eq(McVec a, McVec b)
{
    return a.x == b.x && a.y == b.y;
}

/* The vectors of the first grid's blocks (bx, by), (bx + 1, by),
 * (bx, by + 1), (bx + 1, by + 1) in vec (clipped to the grid): those that
 * block (bx, by) of the shifted grid overlaps, and the index rule of the
 * half-shifted grids (whose block (bx, by) overlaps two of them). */
MCF void mc_shifted_under(const McGrid *g, const McVec *vec, int bx, int by, McVec v[4])
{
    const int x1 = mc_min(bx + 1, g->nbx - 1), y1 = mc_min(by + 1, g->nby - 1);
    v[0] = vec[by * g->nbx + bx];
    v[1] = vec[by * g->nbx + x1];
    v[2] = vec[y1 * g->nbx + bx];
    v[3] = vec[y1 * g->nbx + x1];
}

/* The first grid's stage A vectors under block (bx, by) of the shifted
 * grid (mc_shifted_under()), in full pel: the shifted grid's extra stage A
 * candidates there, so that a motion the first grid found (a small fast
 * car, say) is not lost by the shifted grid's choice (docs/quality.md, "two
 * block grids": a car of traffic_above_later). */
MCF void mc_shifted_more(const McGrid *g, const McVec *vec_a, int bx, int by, McVec more[4])
{
    mc_shifted_under(g, vec_a, bx, by, more);
    for (int i = 0; i < 4; i++) {
        more[i].x = (int16_t)mc_rdiv(more[i].x, 4);
        more[i].y = (int16_t)mc_rdiv(more[i].y, 4);
    }
}

/* Whether block (bx, by) of the shifted grid (mc_grid_shifted() of the
 * first grid g), and with it block (bx, by) of each half-shifted grid
 * (mc_grid_half()), acts: where the stage A vectors vec_a of the first
 * grid's blocks that the shifted block overlaps (up to 2x2,
 * mc_shifted_under()) differ by
 * MC_SHIFT_MIN_L1 quarter pel (L1) or more, two motions meet and a second
 * grid's choice gains; elsewhere the motion is smooth, its render would
 * all but equal the first grid's, and it is skipped: its vectors are then
 * the first grid's of block (bx, by), for its neighbours' median and OBMC
 * (docs/quality.md, "two block grids"). Stage A's vectors, not the final
 * ones, so that the shifted grid's stages need no first-grid row beyond
 * those the band wavefront has already screened (mc_cpu.c band_run()). */
MCF int mc_shifted_active(const McGrid *g, const McVec *vec_a, int bx, int by)
{
    McVec v[4];
    mc_shifted_under(g, vec_a, bx, by, v);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (mc_abs(v[i].x - v[j].x) + mc_abs(v[i].y - v[j].y) >= MC_SHIFT_MIN_L1)
                return 1;
    return 0;
}

/* The four quarter vectors q of block (bx, by) into the quarter grid vq
 * (2 nbx columns). */
MCF void mc_quad_store(McVec *vq, int nbx, int bx, int by, const McVec q[4])
{
    const int n8x = 2 * nbx, i = 2 * by * n8x + 2 * bx;
    vq[i] = q[0];
    vq[i + 1] = q[1];
    vq[i + n8x] = q[2];
    vq[i + n8x + 1] = q[3];
}

/* Whether block (bx, by) of the shifted grid, one that acts, may take the
 * quadrant split (mc_stages.h mc_quad()): only where none of the first
 * grid's blocks under it (mc_shifted_under(); split: the first grid's
 * switches) took it. The down-shifted grid's block (bx, by) follows the
 * same rule at its index (the 2x2 blocks include the column bx + 1, which
 * it does not overlap: one rule for both grids, as mc_shifted_active()).
 * Where the first grid split, its picture already holds both motions
 * there, and a second split makes the two grids' pictures alike where
 * their average gains by their being unlike: split
 * wherever it acts, the shifted grid gained +0.46 dB summed over the
 * evaluation set but lost 0.005 dB or more on 17 of its 66 clips that are
 * not pans; under this rule +0.21 dB, losing on two, by 0.09 dB at most
 * (docs/quality.md, "the shifted grid's quadrant split"). */
MCF int mc_shifted_may_split(const McGrid *g, const uint8_t *split, int bx, int by)
{
    const int x1 = mc_min(bx + 1, g->nbx - 1), y1 = mc_min(by + 1, g->nby - 1);
    return !(split[by * g->nbx + bx] | split[by * g->nbx + x1] | split[y1 * g->nbx + bx] |
             split[y1 * g->nbx + x1]);
}

/* A field's vector v (full pel) in quarter pel, times sign (-1: a backward
 * field's vector as the forward motion). */
MCF McVec mc_field_qpel(McVec v, int sign)
{
    McVec q;
    q.x = (int16_t)(4 * sign * v.x);
    q.y = (int16_t)(4 * sign * v.y);
    return q;
}

/* One output pixel (x, y) of a plane (bs: the plane's block size) from the
 * final vectors vec: with one vector (p + 8) >> 4; under OBMC (overlap)
 * (k_own p_own + k_h p_h + k_v p_v + 64) >> 7 with the masks in 1/8, which
 * is the same value where the three vectors agree. (x, y) lies at or past
 * the grid's origin (the chroma origin is half the luma one). */
MCF int mc_render_px(const McPlaneView *P, const McPlaneView *N, const McPhase *ph, int wt,
                     const McGrid *g, const McVec *vec, int overlap, int chroma, int x, int y)
{
    const int bs = chroma ? g->block / 2 : g->block, hb = bs / 2, scale = chroma ? 2 : 4;
    const int gx = x - (chroma ? g->ox >> 1 : g->ox), gy = y - (chroma ? g->oy >> 1 : g->oy);
    const int bx = gx / bs, by = gy / bs, lx = gx - bx * bs, ly = gy - by * bs;
    const int k = by * g->nbx + bx;
    const McVec own = vec[k];
    const int p0 = mc_pred_px(P, N, ph, wt, scale, own, x, y);
    if (!overlap)
        return mc_put16(p0);
    McVec vh = own, vv = own;
    if (lx < hb) {
        if (bx > 0) vh = vec[k - 1];
    } else if (bx + 1 < g->nbx) {
        vh = vec[k + 1];
    }
    if (ly < hb) {
        if (by > 0) vv = vec[k - g->nbx];
    } else if (by + 1 < g->nby) {
        vv = vec[k + g->nbx];
    }
    if (mc_vec_eq(vh, own) && mc_vec_eq(vv, own))
        return mc_put16(p0);
    const int pp = mc_vec_eq(vh, own) ? p0 : mc_pred_px(P, N, ph, wt, scale, vh, x, y);
    const int pv = mc_vec_eq(vv, own) ? p0 : mc_vec_eq(vv, vh) ? pp
                                           : mc_pred_px(P, N, ph, wt, scale, vv, x, y);
    return mc_obmc8(mc_mask8(0, bs, lx, ly), mc_mask8(1, bs, lx, ly), mc_mask8(2, bs, lx, ly),
                    p0, pp, pv);
}

/* One output pixel (x, y) of a plane (bs: the plane's block size) of a
 * block that the quadrant split changed (mc_stages.h mc_quad(); never one
 * of the picture's outer blocks), from the quarter vectors vq (2 nbx
 * columns, 2 nby rows). The block's outer edges keep the OBMC of
 * mc_render_px(), with the quarters that touch them from outside (ho, vo);
 * its own term is the quarter's prediction blended across the block's inner
 * seams with the quarters beside it (hi, vi), under the H.263 masks scaled
 * to the quarter, on the quarter's inner halves only:
 *   own = ((8 - m1 - m2) p + m1 p_hi + m2 p_vi + 4) >> 3,
 * so that a quarter's motion fades into its neighbours' inside the block as
 * blocks do at their edges (docs/quality.md, "the quadrant split"). */
/* The weight k (1: the quarter beside, 2: the quarter above or below) in
 * 1/8 with which the quarter of a split block that holds block pixel
 * (lx, ly) (bs: the plane's block size) blends the quarter beside it
 * across the block's inner seam: the H.263 mask scaled to the quarter, on
 * the quarter's half towards that seam, 0 on the other half. */
MCF int mc_quad_seam_mask(int k, int bs, int lx, int ly)
{
    const int qs = bs / 2, hq = qs / 2;
    const int qx = lx >= qs, qy = ly >= qs, ux = lx - qx * qs, uy = ly - qy * qs;
    const int inner = k == 1 ? (qx ? ux < hq : ux >= hq) : (qy ? uy < hq : uy >= hq);
    return inner ? mc_mask8(k, qs, ux, uy) : 0;
}

MCF int mc_render_quad_px(const McPlaneView *P, const McPlaneView *N, const McPhase *ph, int wt,
                          const McGrid *g, const McVec *vq, int chroma, int x, int y)
{
    const int bs = chroma ? g->block / 2 : g->block, qs = bs / 2;
    const int scale = chroma ? 2 : 4;
    const int gx = x - (chroma ? g->ox >> 1 : g->ox), gy = y - (chroma ? g->oy >> 1 : g->oy);
    const int bx = gx / bs, by = gy / bs, lx = gx - bx * bs, ly = gy - by * bs;
    const int qx = lx >= qs, qy = ly >= qs;
    const int n8x = 2 * g->nbx, k = (2 * by + qy) * n8x + 2 * bx + qx;
    const McVec own = vq[k];
    const McVec ho = vq[qx ? k + 1 : k - 1], vo = vq[qy ? k + n8x : k - n8x];
    const McVec hi = vq[qx ? k - 1 : k + 1], vi = vq[qy ? k - n8x : k + n8x];
    const int p0 = mc_pred_px(P, N, ph, wt, scale, own, x, y);
    const int m1 = mc_quad_seam_mask(1, bs, lx, ly), m2 = mc_quad_seam_mask(2, bs, lx, ly);
    const int phi = m1 && !mc_vec_eq(hi, own) ? mc_pred_px(P, N, ph, wt, scale, hi, x, y) : p0;
    const int pvi = m2 && !mc_vec_eq(vi, own) ? mc_pred_px(P, N, ph, wt, scale, vi, x, y) : p0;
    const int pown = (8 * p0 + m1 * (phi - p0) + m2 * (pvi - p0) + 4) >> 3;
    const int pp = mc_vec_eq(ho, own) ? p0 : mc_pred_px(P, N, ph, wt, scale, ho, x, y);
    const int pv = mc_vec_eq(vo, own) ? p0 : mc_vec_eq(vo, ho) ? pp
                                           : mc_pred_px(P, N, ph, wt, scale, vo, x, y);
    return mc_obmc8(mc_mask8(0, bs, lx, ly), mc_mask8(1, bs, lx, ly), mc_mask8(2, bs, lx, ly),
                    pown, pp, pv);
}

/* The two costs of the vector choice over the window [x0, x0 + w) x
 * [y0, y0 + h), summed over the pixels i = lane, lane + nlanes, ... of the
 * window (i = y * w + x; a warp's lanes, or one lane on the CPU), walked
 * incrementally (a division per pixel costs more than the pixel's
 * arithmetic on the GPU). Integer sums do not depend on the order.
 * mc_cost_int_part: whole-pixel SAD of prev at (x - ax, y - ay) against
 * next at (x + bx, y + by). */
MCF uint32_t mc_cost_int_part(const McPlaneView *P, const McPlaneView *N, int x0, int y0, int w,
                              int h, int ax, int ay, int bx, int by, int lane, int nlanes)
{
    const int sx = nlanes % w, sy = nlanes / w;
    int x = x0 + lane % w, y = y0 + lane / w;
    uint32_t s = 0;
    for (int j = lane; j < w * h; j += nlanes) {
        s += (uint32_t)mc_abs(mc_px(P, x - ax, y - ay) - mc_px(N, x + bx, y + by));
        x += sx;
        y += sy;
        if (x >= x0 + w) {
            x -= w;
            y++;
        }
    }
    return s;
}

/* The bilinear samples of the window's first pixel (x0, y0) for the
 * quarter-pel vector (vx, vy) at the phase: integer positions and 1/16
 * fractions in prev (ix, iy, fx, fy) and next (jx, jy, gx, gy). */
typedef struct McSubOrigin {
    int ix, fx, iy, fy, jx, gx, jy, gy;
} McSubOrigin;

MCF McSubOrigin mc_sub_origin(const McPhase *ph, int x0, int y0, int vx, int vy)
{
    int ax, ay, bx, by;
    mc_phase_split(vx, 4, ph, &ax, &bx);
    mc_phase_split(vy, 4, ph, &ay, &by);
    const int pxs = x0 * 16 - ax, pys = y0 * 16 - ay, nxs = x0 * 16 + bx, nys = y0 * 16 + by;
    McSubOrigin o;
    o.ix = pxs >> 4;
    o.fx = pxs & 15;
    o.iy = pys >> 4;
    o.fy = pys & 15;
    o.jx = nxs >> 4;
    o.gx = nxs & 15;
    o.jy = nys >> 4;
    o.gy = nys & 15;
    return o;
}

/* mc_cost_sub_part: the bilateral cost (bilinear samples, 1/16 units) of
 * the quarter-pel vector (vx, vy) at the phase. */
MCF uint32_t mc_cost_sub_part(const McPlaneView *P, const McPlaneView *N, const McPhase *ph,
                              int x0, int y0, int w, int h, int vx, int vy, int lane, int nlanes)
{
    const McSubOrigin o = mc_sub_origin(ph, x0, y0, vx, vy);
    const int ix = o.ix, fx = o.fx, iy = o.iy, fy = o.fy, jx = o.jx, gx = o.gx, jy = o.jy,
              gy = o.gy;
    const int sx = nlanes % w, sy = nlanes / w;
    int x = lane % w, y = lane / w;
    uint32_t s = 0;
    for (int i = lane; i < w * h; i += nlanes) {
        s += (uint32_t)mc_abs(mc_bilin_px(P, ix + x, iy + y, fx, fy) -
                              mc_bilin_px(N, jx + x, jy + y, gx, gy));
        x += sx;
        y += sy;
        if (x >= w) {
            x -= w;
            y++;
        }
    }
    return s;
}

/* The one-sided rule (docs/quality.md, issue 16, step 8) as sums over
 * the lane's pixels of the window, in the walk of mc_cost_int_part():
 * s[0] the SAD over every pixel (clamped samples), s[1] the SAD over the
 * pixels whose two integer sample positions lie inside the picture, s[2]
 * the count of the others (missed). The cost is mc_one_sided_cost() of
 * their totals. Every backend computes these numbers; the GPU this way
 * (one pass, no branch around the warp sums), the CPU from rectangles
 * (filters/mc_vectors.c). */
MCF int mc_inside(const McPlaneView *p, int x, int y)
{
    return x >= 0 && y >= 0 && x < p->w && y < p->h;
}

MCF void mc_cost_int_os_part(const McPlaneView *P, const McPlaneView *N, int x0, int y0, int w,
                             int h, int ax, int ay, int bx, int by, int lane, int nlanes,
                             uint32_t s[3])
{
    const int sx = nlanes % w, sy = nlanes / w;
    int x = x0 + lane % w, y = y0 + lane / w;
    for (int j = lane; j < w * h; j += nlanes) {
        const uint32_t d = (uint32_t)mc_abs(mc_px(P, x - ax, y - ay) - mc_px(N, x + bx, y + by));
        const int in = mc_inside(P, x - ax, y - ay) && mc_inside(N, x + bx, y + by);
        s[0] += d;
        s[1] += in ? d : 0;
        s[2] += (uint32_t)!in;
        x += sx;
        y += sy;
        if (x >= x0 + w) {
            x -= w;
            y++;
        }
    }
}

/* The same for the bilinear cost of the quarter-pel vector (vx, vy). */
MCF void mc_cost_sub_os_part(const McPlaneView *P, const McPlaneView *N, const McPhase *ph,
                             int x0, int y0, int w, int h, int vx, int vy, int lane, int nlanes,
                             uint32_t s[3])
{
    const McSubOrigin o = mc_sub_origin(ph, x0, y0, vx, vy);
    const int ix = o.ix, fx = o.fx, iy = o.iy, fy = o.fy, jx = o.jx, gx = o.gx, jy = o.jy,
              gy = o.gy;
    const int sx = nlanes % w, sy = nlanes / w;
    int x = lane % w, y = lane / w;
    for (int i = lane; i < w * h; i += nlanes) {
        const uint32_t d = (uint32_t)mc_abs(mc_bilin_px(P, ix + x, iy + y, fx, fy) -
                                            mc_bilin_px(N, jx + x, jy + y, gx, gy));
        const int in = mc_inside(P, ix + x, iy + y) && mc_inside(N, jx + x, jy + y);
        s[0] += d;
        s[1] += in ? d : 0;
        s[2] += (uint32_t)!in;
        x += sx;
        y += sy;
        if (x >= w) {
            x -= w;
            y++;
        }
    }
}

/* Whether the one-sided rule applies to a window of area pixels of which
 * missed have a sample outside the picture: a quarter or more. */
MCF int mc_one_sided_applies(int area, uint32_t missed)
{
    return (uint64_t)MC_OCC_Q * missed >= (uint64_t)area;
}

/* The cost of a window from its sums: where the rule applies, the SAD
 * over the pixels both sides see plus t per missed pixel; else the
 * two-sided SAD with clamped samples. */
MCF uint32_t mc_one_sided_cost(int area, uint32_t sad_all, uint32_t sad_valid, uint32_t missed,
                               uint32_t t)
{
    return mc_one_sided_applies(area, missed) ? sad_valid + t * missed : sad_all;
}

/* filters/blend.c at one pixel: (1-t)*prev + t*next. */
MCF int mc_blend_px(int p, int n, int wt)
{
    return (p * (256 - wt) + n * wt + 128) >> 8;
}

/* Scene-cut activity: the terms of row y (even, < h - 1) of plane p,
 * columns x = lane, lane + nlanes, ... (< w - 1). */
MCF uint32_t mc_activity_part(const McPlaneView *p, int y, int lane, int nlanes)
{
    const uint8_t *r = p->data + (ptrdiff_t)y * p->stride, *d = r + p->stride;
    uint32_t s = 0;
    for (int x = lane; x < p->w - 1; x += nlanes)
        s += (uint32_t)(mc_abs(r[x + 1] - r[x]) + mc_abs(d[x] - r[x]));
    return s;
}

/* Scene-cut static share, row y of whole block (bx, by): bit 0 every pixel
 * of the row equals the block's first (flat), bit 1 every pixel equals
 * next's. A block is textured unless every row says flat. */
MCF int mc_static_row(const McPlaneView *P, const McPlaneView *N, int block, int bx, int by,
                      int y)
{
    const uint8_t *p = P->data + (ptrdiff_t)by * block * P->stride + bx * block;
    const uint8_t *n = N->data + (ptrdiff_t)by * block * N->stride + bx * block;
    const uint8_t *pr = p + (ptrdiff_t)y * P->stride, *nr = n + (ptrdiff_t)y * N->stride;
    int flat = 1, eq = 1;
    for (int x = 0; x < block; x++) {
        flat &= pr[x] == p[0];
        eq &= pr[x] == nr[x];
    }
    return flat | eq << 1;
}

#ifdef __cplusplus
}
#endif

#endif

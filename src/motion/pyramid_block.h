/* The per-block arithmetic of the pyramid search (docs/quality.md, issue 16,
 * "The design" steps 1-3), written once as static inline C that both
 * compilers build: gcc/clang for the CPU engine (src/motion/pyramid.c) and
 * nvcc for the CUDA kernels (kernels/me_kernels.cu). Only data and pure
 * functions live here: the level sizes, the 2x2 mean, the cost window, the
 * clamped SAD (the reference the SIMD paths must equal), the tie rule, the
 * penalty, the 3x3 vector median, the candidate list from the parent level
 * and the small-diamond step.
 *
 * Reads clamp the coordinates to the plane's w x h. Padded planes replicate
 * their edge pixels (src/frame.c), so a direct read inside the padding and a
 * clamped read give the same value: the engines read directly where the
 * displaced window lies inside their padding and clamp elsewhere, and the
 * result does not depend on the padding. */
#ifndef OMCTI_MOTION_PYRAMID_BLOCK_H
#define OMCTI_MOTION_PYRAMID_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "src/vec_median.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define PYF static __host__ __device__ __forceinline__
#else
#define PYF static inline
#endif

enum {
    PYR_MAX_LEVEL = 4,   /* top level index at most (3840 stops at 240)   */
    PYR_TOP_WIDTH = 128, /* halve until the width is at most this         */
    PYR_B = 8,           /* coarse block side (level pixels)              */
    PYR_WIN = 16,        /* coarse cost window: the block + 4 each side   */
    PYR_TOP_R = 8,       /* exhaustive +-8 at the top level               */
    PYR_TOP_SIDE = 2 * PYR_TOP_R + 1,
    PYR_TOP_N = PYR_TOP_SIDE * PYR_TOP_SIDE,
    PYR_LAMBDA = 4,      /* penalty, 1/16 grey level per pixel per pel     */
    PYR_WALK = 8,        /* small-diamond steps at most                   */
    PYR_MAX_CAND = 10,   /* (0,0) + the parent's 3x3                      */
    PYR_HIST_CAND = 9,   /* level 0: the previous pair's 3x3 (pyramid_level0.h) */
    PYR_HIST_MARGIN = 1, /* ... must cost this many grey levels per pixel less */
    PYR_CHAIN = 8,       /* level 0's chain restarts at multiples of this number */
};

/* A vector of the fields, in whole pel. */
typedef VecXY PyrVec;

/* One plane: data points at pixel (0, 0); clamped reads stay in w x h. */
typedef struct PyrPlane {
    const uint8_t *data;
    ptrdiff_t stride;
    int w, h;
} PyrPlane;

PYF int pyr_abs(int v) { return v < 0 ? -v : v; }
PYF int pyr_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Top level index L: the halvings until the width is <= 128, 1..4. */
PYF int pyr_levels(int width)
{
    int l = 1, w = (width + 1) >> 1;
    while (w > PYR_TOP_WIDTH && l < PYR_MAX_LEVEL) {
        w = (w + 1) >> 1;
        l++;
    }
    return l;
}

/* Size of level l from level 0's. */
PYF int pyr_level_size(int size0, int l)
{
    for (int i = 0; i < l; i++)
        size0 = (size0 + 1) >> 1;
    return size0;
}

/* Pixel (x, y) of a level from the level below (clamped reads). */
PYF uint8_t pyr_down_px(const PyrPlane *s, int x, int y)
{
    const int x0 = 2 * x, y0 = 2 * y;
    const int x1 = x0 + 1 < s->w ? x0 + 1 : s->w - 1;
    const int y1 = y0 + 1 < s->h ? y0 + 1 : s->h - 1;
    const uint8_t *r0 = s->data + (ptrdiff_t)y0 * s->stride;
    const uint8_t *r1 = s->data + (ptrdiff_t)y1 * s->stride;
    return (uint8_t)((r0[x0] + r0[x1] + r1[x0] + r1[x1] + 2) >> 2);
}

/* The tie rule of mv_better() (engine.h): cost, then |dx|+|dy|, then dy,
 * then dx; smaller wins. */
PYF int pyr_better(uint32_t c, int x, int y, uint32_t bc, int bx, int by)
{
    if (c != bc) return c < bc;
    const int a = pyr_abs(x) + pyr_abs(y), b = pyr_abs(bx) + pyr_abs(by);
    if (a != b) return a < b;
    if (y != by) return y < by;
    return x < bx;
}

/* (lambda * area * |d - m|_1) >> 4 */
PYF uint32_t pyr_penalty(int area, int ddx, int ddy)
{
    return (uint32_t)(((int64_t)PYR_LAMBDA * area * (pyr_abs(ddx) + pyr_abs(ddy))) >> 4);
}

/* A cost window [x0, x1) x [y0, y1). */
typedef struct PyrWin {
    int x0, y0, x1, y1;
} PyrWin;

PYF int pyr_area(const PyrWin *w) { return (w->x1 - w->x0) * (w->y1 - w->y0); }

/* Coarse levels: block (bx, by) of 8x8 grown by 4 on every side, clipped. */
PYF PyrWin pyr_coarse_win(int bx, int by, int w, int h)
{
    PyrWin r;
    r.x0 = bx * PYR_B - PYR_B / 2 < 0 ? 0 : bx * PYR_B - PYR_B / 2;
    r.y0 = by * PYR_B - PYR_B / 2 < 0 ? 0 : by * PYR_B - PYR_B / 2;
    r.x1 = bx * PYR_B + PYR_B + PYR_B / 2 > w ? w : bx * PYR_B + PYR_B + PYR_B / 2;
    r.y1 = by * PYR_B + PYR_B + PYR_B / 2 > h ? h : by * PYR_B + PYR_B + PYR_B / 2;
    return r;
}

/* Level 0: the output block, clipped to the picture. */
PYF PyrWin pyr_block_win(int bx, int by, int block, int w, int h)
{
    PyrWin r;
    r.x0 = bx * block;
    r.y0 = by * block;
    r.x1 = r.x0 + block > w ? w : r.x0 + block;
    r.y1 = r.y0 + block > h ? h : r.y0 + block;
    return r;
}

/* SAD of cur over the window against ref displaced by (dx, dy), ref's reads
 * clamped: the reference of every fast path. cur's window is inside. */
PYF uint32_t pyr_sad_clamped(const PyrPlane *cur, const PyrPlane *ref, const PyrWin *w,
                             int dx, int dy)
{
    uint32_t sad = 0;
    for (int y = w->y0; y < w->y1; y++) {
        const uint8_t *c = cur->data + (ptrdiff_t)y * cur->stride;
        const uint8_t *r = ref->data + (ptrdiff_t)pyr_clamp(y + dy, 0, ref->h - 1) * ref->stride;
        for (int x = w->x0; x < w->x1; x++)
            sad += (uint32_t)pyr_abs(c[x] - r[pyr_clamp(x + dx, 0, ref->w - 1)]);
    }
    return sad;
}

/* Whether the window displaced by (dx, dy) lies within `pad` pixels of
 * the plane (where direct reads equal clamped ones). */
PYF int pyr_inside(const PyrWin *w, int dx, int dy, int pw, int ph, int pad)
{
    return w->x0 + dx >= -pad && w->x1 + dx <= pw + pad &&
           w->y0 + dy >= -pad && w->y1 + dy <= ph + pad;
}

/* 3x3 vector median around (bx, by) (today's vector_median() rule: the
 * smallest sum of L1 distances to the others, first in raster order). */
PYF PyrVec pyr_median3(const PyrVec *v, int nbx, int nby, int bx, int by)
{
    return vec_median3x3(v, nbx, nby, bx, by);
}

/* Middle levels: the candidates of block (bx, by) from the parent level
 * (nbx x nby blocks): (0, 0), then 2x each of the parent's 3x3 vectors in
 * raster order, duplicates dropped; *pred = 2x the parent's 3x3 median.
 * Returns the count. */
PYF int pyr_candidates(const PyrVec *parent, int nbx, int nby, int bx, int by,
                       PyrVec cand[PYR_MAX_CAND], PyrVec *pred)
{
    const int px = (bx >> 1) < nbx ? bx >> 1 : nbx - 1;
    const int py = (by >> 1) < nby ? by >> 1 : nby - 1;
    const PyrVec md = pyr_median3(parent, nbx, nby, px, py);
    pred->x = (int16_t)(2 * md.x);
    pred->y = (int16_t)(2 * md.y);
    int n = 0;
    cand[n].x = 0;
    cand[n].y = 0;
    n++;
    for (int y = py - 1; y <= py + 1; y++)
        for (int x = px - 1; x <= px + 1; x++) {
            if (x < 0 || y < 0 || x >= nbx || y >= nby) continue;
            const PyrVec v = parent[(ptrdiff_t)y * nbx + x];
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= cand[i].x == 2 * v.x && cand[i].y == 2 * v.y;
            if (!dup) {
                cand[n].x = (int16_t)(2 * v.x);
                cand[n].y = (int16_t)(2 * v.y);
                n++;
            }
        }
    return n;
}

/* Level 0's temporal candidates of block (bx, by) of a bw x bh grid: the
 * vectors of hist (the previous pair's kept vectors of the same field) at
 * the 3x3 blocks around it, in raster order, duplicates dropped. Returns
 * the count. */
PYF int pyr_temporal_candidates(const PyrVec *hist, int bw, int bh, int bx, int by,
                                PyrVec cand[PYR_HIST_CAND])
{
    int n = 0;
    uint32_t key[PYR_HIST_CAND];   /* cand[i] packed: one compare a test */
    for (int y = by - 1; y <= by + 1; y++)
        for (int x = bx - 1; x <= bx + 1; x++) {
            if (x < 0 || y < 0 || x >= bw || y >= bh) continue;
            const PyrVec v = hist[(ptrdiff_t)y * bw + x];
            const uint32_t kv = (uint32_t)(uint16_t)v.x | (uint32_t)(uint16_t)v.y << 16;
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= key[i] == kv;
            if (!dup) {
                key[n] = kv;
                cand[n++] = v;
            }
        }
    return n;
}

/* Level 0's history (pyramid_level0.h): two buffers of vectors, each
 * tagged with the serial of the next frame of the pair that wrote it (0:
 * none). A pair reads the buffer tagged with its prev's serial, if any, and
 * writes the other one (when none matches, the one not written last): a
 * second search of a pair on other pictures (a fade's scaled copies, other
 * serials) then neither reads nor overwrites what the next pair needs. */
typedef struct PyrHistory {
    uint64_t tag[2];
    int last;
} PyrHistory;

/* The buffer to read for a pair whose prev has this serial, or -1. */
PYF int pyr_history_read(const PyrHistory *h, uint64_t prev_serial)
{
    if (!prev_serial) return -1;
    return h->tag[0] == prev_serial ? 0 : h->tag[1] == prev_serial ? 1 : -1;
}

/* The buffer the pair writes, given the one it reads (or -1). */
PYF int pyr_history_write(const PyrHistory *h, int read)
{
    return read >= 0 ? !read : !h->last;
}

/* Whether the pair of pictures numbered prev_number, next_number (their
 * places in the whole video, >= 0) keeps its final vectors for the next
 * pair (a chain: an object once found is followed from pair to pair)
 * rather than its base vectors (which depend on that pair alone). The
 * chain restarts at every pair whose numbers enclose a multiple of
 * PYR_CHAIN (prev < 8m <= next), as a closed GOP restarts temporal
 * prediction, also where the picture numbered 8m did not decode: a pair's
 * fields depend on at most PYR_CHAIN pairs before it, back to the last
 * restart, whatever picture a run starts at. A pair whose numbers decrease
 * (next < prev, which omcti.h allows) restarts the chain too, also inside
 * one period: numbers that go back and forth within it would otherwise
 * never restart it. */
PYF int pyr_history_keeps_final(int64_t prev_number, int64_t next_number)
{
    return prev_number <= next_number && prev_number / PYR_CHAIN == next_number / PYR_CHAIN;
}

/* After the pair (prev, next) wrote buffer w. */
PYF void pyr_history_done(PyrHistory *h, int w, uint64_t prev_serial, uint64_t next_serial)
{
    h->tag[w] = prev_serial ? next_serial : 0;
    h->last = w;
}

/* The small diamond's neighbours, in the order the walk scores them. */
PYF PyrVec pyr_walk_point(PyrVec c, int j)
{
    PyrVec r = c;
    if (j == 0) r.y--;
    else if (j == 1) r.x--;
    else if (j == 2) r.x++;
    else r.y++;
    return r;
}

/* Level 0: the level-1 block whose 16x16 area holds the centre of output
 * block bx (block 16: bx itself; 8: bx >> 1; 32: 2 bx + 1), clamped. */
PYF int pyr_level1_index(int bx, int block, int nb1)
{
    const int i = (bx * block + block / 2) / (2 * PYR_B);
    return i < nb1 ? i : nb1 - 1;
}

#ifdef __cplusplus
}
#endif

/* A middle level's step: candidate t with its SAD plus the penalty towards
 * pred replaces the best (b, bc) when the tie rule says so. */
PYF void pyr_consider(uint32_t sad, PyrVec t, int area, PyrVec pred, uint32_t *bc, PyrVec *b)
{
    const uint32_t c = sad + pyr_penalty(area, t.x - pred.x, t.y - pred.y);
    if (pyr_better(c, t.x, t.y, *bc, b->x, b->y)) {
        *bc = c;
        *b = t;
    }
}

/* The top level's choice from a block's SAD volume (PYR_TOP_N costs, d in
 * raster order over [-PYR_TOP_R, PYR_TOP_R]^2): the best by the tie rule of
 * each cost plus the penalty towards md (pass 2), or of the plain costs with
 * area = 0 (pass 1: the penalty is then 0). The tie rule is a total order
 * of the candidates, so the best of the entries first, first + step, ...
 * (a lane's share; *bc starts at UINT32_MAX) combined in any order with
 * pyr_better() is the best of all: the GPU splits the scan over a warp. */
PYF void pyr_top_pick_part(const uint32_t *vol, int area, PyrVec md, int first, int step,
                           uint32_t *bc, int *bdx, int *bdy)
{
    for (int i = first; i < PYR_TOP_N; i += step) {
        const int dx = i % PYR_TOP_SIDE - PYR_TOP_R, dy = i / PYR_TOP_SIDE - PYR_TOP_R;
        const uint32_t c = vol[i] + pyr_penalty(area, dx - md.x, dy - md.y);
        if (pyr_better(c, dx, dy, *bc, *bdx, *bdy)) {
            *bc = c;
            *bdx = dx;
            *bdy = dy;
        }
    }
}

PYF PyrVec pyr_top_pick(const uint32_t *vol, int area, PyrVec md)
{
    uint32_t bc = UINT32_MAX;
    int bdx = 0, bdy = 0;
    pyr_top_pick_part(vol, area, md, 0, 1, &bc, &bdx, &bdy);
    PyrVec v;
    v.x = (int16_t)bdx;
    v.y = (int16_t)bdy;
    return v;
}

#endif

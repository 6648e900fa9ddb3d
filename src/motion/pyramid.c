/* The CPU pyramid search (docs/quality.md, issue 16, "The design" steps
 * 1-3): a picture pyramid of 2x2 means, an exhaustive +-8 search with a
 * smoothness pass at the top level, predictor candidates and a small
 * diamond walk at the middle levels, a 3x3 square at level 0 and the
 * previous pair's level-0 vectors around the block (pyramid_level0.h);
 * forward and backward fields. The per-block arithmetic is
 * src/motion/pyramid_block.h and pyramid_level0.h, the same the CUDA kernels
 * run.
 *
 * Every block of a level depends only on the level above (or on pass 1 of
 * the same level): OpenMP over rows of blocks, one level after the other
 * (the levels with enough work: PYR_PARALLEL_MIN), gives the same fields
 * for every thread count. Vectors can reach far
 * outside the frame's padding (+-150 px and more): every SAD reads directly
 * only where the displaced window lies inside the padding and clamps the
 * coordinates elsewhere (the same values, as the padding replicates the
 * edges), so no read ever leaves the allocation. */
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "src/motion/pyramid.h"
#include "src/motion/pyramid_block.h"

#if OMCTI_HAVE_OPENMP
#define PYR_OMP(text) _Pragma(text)
#else
#define PYR_OMP(text)
#endif

enum { PYR_PAD = 32 }; /* replicated border of the coarse levels */

/* A loop runs on the OpenMP team only where it has a few milliseconds of
 * work: a fork and a join cost about a millisecond where the other threads
 * sleep between loops (omcti's launcher sets OMP_WAIT_POLICY=passive; the
 * join waits for a thread to wake up even when the caller did all the
 * work), and on a loaded machine the join waits for a descheduled thread.
 * 1080p on the 2-core machine (docs/benchmarks.md, 2026-11-26): the top
 * level's 270 SAD volumes (2.8 ms) and the middle levels of 2040 blocks
 * or more (1.2 ms and up) gain; the pyramid's construction (0.1-0.4 ms a
 * level) and the top level's pick (0.4 ms) took three times as long on
 * the team as on one thread. */
enum {
    PYR_PARALLEL_MIN = 1024, /* middle levels: blocks                       */
    PYR_PARALLEL_TOP = 32,   /* top level: blocks (289 SADs each)           */
};

struct PyramidSearch {
    const SadDSP *dsp;
    int block, threads, L;
    int w[PYR_MAX_LEVEL + 1], h[PYR_MAX_LEVEL + 1];
    int nbx[PYR_MAX_LEVEL + 1], nby[PYR_MAX_LEVEL + 1];
    ptrdiff_t stride[PYR_MAX_LEVEL + 1];
    /* Two pyramids (levels 1..L): a frame's, kept for the next pair. */
    uint8_t *buf[2][PYR_MAX_LEVEL + 1];
    uint64_t serial[2];           /* the frame each slot holds, 0: none   */
    PyrVec *vec[2][PYR_MAX_LEVEL + 1]; /* [field][level], levels 1..L     */
    PyrVec *top1[2];              /* pass 1 of the top level              */
    uint32_t *vol[2];             /* the top level's 289 SADs per block    */
    /* Level 0's vectors kept for the next pair (pyramid_level0.h),
     * [buffer][field]. */
    PyrVec *kept[2][2];
    PyrHistory hist;
};

void pyramid_search_free(PyramidSearch **ps)
{
    PyramidSearch *s = ps ? *ps : NULL;
    if (!s)
        return;
    for (int i = 0; i < 2; i++) {
        for (int l = 0; l <= PYR_MAX_LEVEL; l++) {
            aligned_free(s->buf[i][l]);
            aligned_free(s->vec[i][l]);
        }
        aligned_free(s->top1[i]);
        aligned_free(s->vol[i]);
        for (int f = 0; f < 2; f++)
            aligned_free(s->kept[i][f]);
    }
    free(s);
    *ps = NULL;
}

int pyramid_search_create(PyramidSearch **ps, const SadDSP *dsp, int width, int height,
                          int block, int threads)
{
    PyramidSearch *s = calloc(1, sizeof *s);
    *ps = s;
    if (!s)
        return -1;
    s->dsp = dsp;
    s->block = block;
    s->threads = threads < 1 ? 1 : threads;
    s->L = pyr_levels(width);
    for (int l = 0; l <= s->L; l++) {
        s->w[l] = pyr_level_size(width, l);
        s->h[l] = pyr_level_size(height, l);
        if (l == 0)
            continue;
        s->nbx[l] = (s->w[l] + PYR_B - 1) / PYR_B;
        s->nby[l] = (s->h[l] + PYR_B - 1) / PYR_B;
        s->stride[l] = ALIGN_UP(s->w[l] + 2 * PYR_PAD, 32);
        const size_t bytes = (size_t)s->stride[l] * (s->h[l] + 2 * PYR_PAD);
        const size_t nb = (size_t)s->nbx[l] * s->nby[l];
        for (int i = 0; i < 2; i++) {
            s->buf[i][l] = aligned_calloc(bytes);
            s->vec[i][l] = aligned_calloc(nb * sizeof(PyrVec));
            if (!s->buf[i][l] || !s->vec[i][l])
                return -1;
        }
    }
    const size_t nt = (size_t)s->nbx[s->L] * s->nby[s->L];
    const size_t n0 = (size_t)((width + block - 1) / block) * ((height + block - 1) / block);
    for (int i = 0; i < 2; i++) {
        s->top1[i] = aligned_calloc(nt * sizeof(PyrVec));
        s->vol[i] = aligned_calloc(nt * PYR_TOP_N * sizeof(uint32_t));
        if (!s->top1[i] || !s->vol[i])
            return -1;
        for (int f = 0; f < 2; f++)
            if (!(s->kept[i][f] = aligned_calloc(n0 * sizeof(PyrVec))))
                return -1;
    }
    return 0;
}

static PyrPlane level_plane(const PyramidSearch *s, int slot, int l)
{
    PyrPlane p = { s->buf[slot][l] + PYR_PAD * s->stride[l] + PYR_PAD, s->stride[l],
                   s->w[l], s->h[l] };
    return p;
}

/* Level l of a slot from the level below, then its border replicated. */
static void build_level(PyramidSearch *s, int slot, int l, const PyrPlane *below)
{
    const PyrPlane d = level_plane(s, slot, l);
    uint8_t *data = (uint8_t *)d.data;
    /* on the calling thread: too little work for a fork (PYR_PARALLEL_MIN) */
    for (int y = -PYR_PAD; y < d.h + PYR_PAD; y++) {
        uint8_t *row = data + (ptrdiff_t)y * d.stride;
        if (y >= 0 && y < d.h) {
            /* Columns whose 2x2 source is inside without the clamp, then
             * the last one through the clamped reference. */
            const int y1 = 2 * y + 1 < below->h ? 2 * y + 1 : below->h - 1;
            const uint8_t *restrict r0 = below->data + (ptrdiff_t)(2 * y) * below->stride;
            const uint8_t *restrict r1 = below->data + (ptrdiff_t)y1 * below->stride;
            const int nx = below->w / 2;
            s->dsp->down2(row, r0, r1, nx);
            for (int x = nx; x < d.w; x++)
                row[x] = pyr_down_px(below, x, y);
            memset(row - PYR_PAD, row[0], PYR_PAD);
            memset(row + d.w, row[d.w - 1], PYR_PAD);
        }
    }
    for (int y = -PYR_PAD; y < 0; y++)
        memcpy(data + (ptrdiff_t)y * d.stride - PYR_PAD, data - PYR_PAD,
               (size_t)d.w + 2 * PYR_PAD);
    for (int y = d.h; y < d.h + PYR_PAD; y++)
        memcpy(data + (ptrdiff_t)y * d.stride - PYR_PAD,
               data + (ptrdiff_t)(d.h - 1) * d.stride - PYR_PAD, (size_t)d.w + 2 * PYR_PAD);
}

/* The slot holding the pyramid of frame f, built unless already there;
 * `keep` is a slot not to overwrite (-1: none). */
static int pyramid_of(PyramidSearch *s, const OmctiFrame *f, int keep)
{
    for (int i = 0; i < 2; i++)
        if (i != keep && f->serial && s->serial[i] == f->serial)
            return i;
    const int slot = keep == 0 ? 1 : keep == 1 ? 0 : (s->serial[0] ? 1 : 0);
    const OmctiPlane *p0 = &f->p[0];
    PyrPlane below = { p0->data, p0->stride, p0->w, p0->h };
    for (int l = 1; l <= s->L; l++) {
        build_level(s, slot, l, &below);
        below = level_plane(s, slot, l);
    }
    s->serial[slot] = f->serial;
    return slot;
}

/* The clamped SAD where the displaced window lies inside the padding: the
 * same sum without the clamps (windows clipped at the picture's edges). */
static inline uint32_t sad_direct(const SadDSP *dsp, const PyrPlane *cur, const PyrPlane *ref,
                                  const PyrWin *w, int dx, int dy)
{
    return dsp->rect(cur->data + (ptrdiff_t)w->y0 * cur->stride + w->x0, cur->stride,
                     ref->data + (ptrdiff_t)(w->y0 + dy) * ref->stride + w->x0 + dx, ref->stride,
                     w->x1 - w->x0, w->y1 - w->y0);
}

/* SAD of a coarse window: the SIMD 16x16 kernel where the window is whole
 * and inside the level's padding, direct reads where it is clipped and
 * inside, else the clamped reference. */
static uint32_t coarse_sad(const PyramidSearch *s, const PyrPlane *cur, const PyrPlane *ref,
                           const PyrWin *w, int dx, int dy)
{
    if (!pyr_inside(w, dx, dy, ref->w, ref->h, PYR_PAD))
        return pyr_sad_clamped(cur, ref, w, dx, dy);
    if (pyr_area(w) == PYR_WIN * PYR_WIN)
        return s->dsp->sad[1](cur->data + w->y0 * cur->stride + w->x0, cur->stride,
                              ref->data + (w->y0 + dy) * ref->stride + w->x0 + dx, ref->stride);
    return sad_direct(s->dsp, cur, ref, w, dx, dy);
}

/* The SADs of n candidates: four to an x4 call where the window is whole
 * and the four displaced windows lie inside the padding (the block's rows
 * loaded once for the four), else coarse_sad() one by one. */
static void coarse_sads(const PyramidSearch *s, const PyrPlane *cur, const PyrPlane *ref,
                        const PyrWin *w, const PyrVec *cand, int n, uint32_t *sad)
{
    int i = 0;
    if (pyr_area(w) == PYR_WIN * PYR_WIN)
        for (; i + 4 <= n; i += 4) {
            int inside = 1;
            ptrdiff_t off[4];
            for (int j = 0; j < 4; j++) {
                inside &= pyr_inside(w, cand[i + j].x, cand[i + j].y, ref->w, ref->h, PYR_PAD);
                off[j] = cand[i + j].y * ref->stride + cand[i + j].x;
            }
            if (!inside)
                break;
            s->dsp->x4[1](cur->data + w->y0 * cur->stride + w->x0, cur->stride,
                          ref->data + w->y0 * ref->stride + w->x0, ref->stride, off, sad + i);
        }
    for (; i < n; i++)
        sad[i] = coarse_sad(s, cur, ref, w, cand[i].x, cand[i].y);
}

/* Top level, pass 1: the 289 SADs of block k kept, the best by the tie rule. */
static uint64_t top_pass1(PyramidSearch *s, int f, const PyrPlane *cur, const PyrPlane *ref,
                          int k)
{
    const int L = s->L, bx = k % s->nbx[L], by = k / s->nbx[L];
    const PyrWin w = pyr_coarse_win(bx, by, s->w[L], s->h[L]);
    uint32_t *vol = s->vol[f] + (size_t)k * PYR_TOP_N;
    const PyrWin grow = { w.x0 - PYR_TOP_R, w.y0 - PYR_TOP_R, w.x1 + PYR_TOP_R, w.y1 + PYR_TOP_R };
    if (pyr_area(&w) == PYR_WIN * PYR_WIN && pyr_inside(&grow, 0, 0, ref->w, ref->h, PYR_PAD))
        s->dsp->grid[1](cur->data + w.y0 * cur->stride + w.x0, cur->stride,
                        ref->data + (w.y0 - PYR_TOP_R) * ref->stride + w.x0 - PYR_TOP_R,
                        ref->stride, PYR_TOP_SIDE, PYR_TOP_SIDE, vol, PYR_TOP_SIDE);
    else
        for (int i = 0; i < PYR_TOP_N; i++)
            vol[i] = coarse_sad(s, cur, ref, &w, i % PYR_TOP_SIDE - PYR_TOP_R,
                                i / PYR_TOP_SIDE - PYR_TOP_R);
    const PyrVec zero = { 0, 0 };
    s->top1[f][k] = pyr_top_pick(vol, 0, zero);
    return (uint64_t)PYR_TOP_N * pyr_area(&w);
}

/* Top level, pass 2: the same SADs plus the penalty towards the pass-1
 * field's 3x3 median. */
static void top_pass2(PyramidSearch *s, int f, int k)
{
    const int L = s->L, bx = k % s->nbx[L], by = k / s->nbx[L];
    const PyrWin w = pyr_coarse_win(bx, by, s->w[L], s->h[L]);
    const int area = pyr_area(&w);
    const PyrVec md = pyr_median3(s->top1[f], s->nbx[L], s->nby[L], bx, by);
    const uint32_t *vol = s->vol[f] + (size_t)k * PYR_TOP_N;
    s->vec[f][L][k] = pyr_top_pick(vol, area, md);
}

/* A parent block's candidates and predictor (pyr_candidates()), kept for
 * its next child in the row: the two children side by side share them. */
typedef struct ParentCands {
    int px, py, n;
    PyrVec cand[PYR_MAX_CAND], pred;
} ParentCands;

/* A middle level's block: the parent's candidates, then the small diamond. */
static uint64_t middle_block(PyramidSearch *s, int f, int l, const PyrPlane *cur,
                             const PyrPlane *ref, int k, ParentCands *pc)
{
    const int bx = k % s->nbx[l], by = k / s->nbx[l];
    const PyrWin w = pyr_coarse_win(bx, by, s->w[l], s->h[l]);
    const int area = pyr_area(&w);
    const int pnbx = s->nbx[l + 1], pnby = s->nby[l + 1];
    const int px = (bx >> 1) < pnbx ? bx >> 1 : pnbx - 1;   /* as pyr_candidates() */
    const int py = (by >> 1) < pnby ? by >> 1 : pnby - 1;
    if (pc->px != px || pc->py != py) {
        pc->n = pyr_candidates(s->vec[f][l + 1], pnbx, pnby, bx, by, pc->cand, &pc->pred);
        pc->px = px;
        pc->py = py;
    }
    const int n = pc->n;
    const PyrVec *cand = pc->cand, pred = pc->pred;
    uint32_t bc = UINT32_MAX, sad_c[PYR_MAX_CAND];
    PyrVec b = cand[0];
    coarse_sads(s, cur, ref, &w, cand, n, sad_c);
    for (int i = 0; i < n; i++)
        pyr_consider(sad_c[i], cand[i], area, pred, &bc, &b);
    int evaluated = n;
    for (int step = 0; step < PYR_WALK; step++) {
        PyrVec nb = b;
        uint32_t nc = bc, sad[4];
        PyrVec pt[4];
        int all_inside = area == PYR_WIN * PYR_WIN;
        for (int j = 0; j < 4; j++) {
            pt[j] = pyr_walk_point(b, j);
            all_inside &= pyr_inside(&w, pt[j].x, pt[j].y, ref->w, ref->h, PYR_PAD);
        }
        if (all_inside) {
            const ptrdiff_t off[4] = {
                pt[0].y * ref->stride + pt[0].x, pt[1].y * ref->stride + pt[1].x,
                pt[2].y * ref->stride + pt[2].x, pt[3].y * ref->stride + pt[3].x,
            };
            s->dsp->x4[1](cur->data + w.y0 * cur->stride + w.x0, cur->stride,
                          ref->data + w.y0 * ref->stride + w.x0, ref->stride, off, sad);
        } else {
            for (int j = 0; j < 4; j++)
                sad[j] = coarse_sad(s, cur, ref, &w, pt[j].x, pt[j].y);
        }
        evaluated += 4;
        for (int j = 0; j < 4; j++)
            pyr_consider(sad[j], pt[j], area, pred, &nc, &nb);
        if (nb.x == b.x && nb.y == b.y)
            break;
        b = nb;
        bc = nc;
    }
    s->vec[f][l][k] = b;
    return (uint64_t)evaluated * area;
}

/* Level 0's SADs for pyramid_level0.h: the SIMD kernel of the block size
 * where the window is whole and inside the padding, direct reads where it
 * is clipped and inside, else the clamped reference. */
typedef struct Level0Ctx {
    const SadDSP *dsp;
    PyrPlane cur, ref;
    PyrWin w;
    int pad, whole, si;
} Level0Ctx;

static inline uint32_t pyr_l0_sad(const Level0Ctx *c, int dx, int dy)
{
    if (!pyr_inside(&c->w, dx, dy, c->ref.w, c->ref.h, c->pad))
        return pyr_sad_clamped(&c->cur, &c->ref, &c->w, dx, dy);
    if (c->whole)
        return c->dsp->sad[c->si](c->cur.data + c->w.y0 * c->cur.stride + c->w.x0, c->cur.stride,
                                  c->ref.data + (c->w.y0 + dy) * c->ref.stride + c->w.x0 + dx,
                                  c->ref.stride);
    return sad_direct(c->dsp, &c->cur, &c->ref, &c->w, dx, dy);
}

static inline void pyr_l0_square(const Level0Ctx *c, int cx, int cy, uint32_t sad[9]);

#define PYR_L0_CTX const Level0Ctx *
#define PYR_L0_SQUARE(c, cx, cy, sad) pyr_l0_square(c, cx, cy, sad)
#include "src/motion/pyramid_level0.h"

/* The 3x3 square: where the whole window displaced by every point of it
 * lies inside the padding, two x4 calls and one single, each loading the
 * block once (level 0 took 2.3x as long in nine single calls); else point
 * by point. */
static inline void pyr_l0_square(const Level0Ctx *c, int cx, int cy, uint32_t sad[9])
{
    if (!c->whole || !pyr_inside(&c->w, cx - 1, cy - 1, c->ref.w, c->ref.h, c->pad) ||
        !pyr_inside(&c->w, cx + 1, cy + 1, c->ref.w, c->ref.h, c->pad)) {
        pyr_l0_square_each(c, cx, cy, sad);
        return;
    }
    const ptrdiff_t rs = c->ref.stride;
    const uint8_t *cur = c->cur.data + c->w.y0 * c->cur.stride + c->w.x0;
    const uint8_t *ref = c->ref.data + (c->w.y0 + cy - 1) * rs + c->w.x0 + cx - 1;
    const ptrdiff_t o0[4] = { 0, 1, 2, rs }, o1[4] = { rs + 1, rs + 2, 2 * rs, 2 * rs + 1 };
    c->dsp->x4[c->si](cur, c->cur.stride, ref, rs, o0, sad);
    c->dsp->x4[c->si](cur, c->cur.stride, ref, rs, o1, sad + 4);
    sad[8] = c->dsp->sad[c->si](cur, c->cur.stride, ref + 2 * rs + 2, rs);
}

/* Level 0: pyramid_level0.h's choice for output block k; its final vector
 * and plain SAD go to the field, the vector kept for the next pair (the
 * final one when keep_final, else the base) to kept. hist: the vectors the
 * previous pair kept of this field, or NULL. */
static uint64_t level0_block(PyramidSearch *s, int f, const OmctiPlane *cur,
                             const OmctiPlane *ref, MotionField *field, const PyrVec *hist,
                             int keep_final, PyrVec *kept, int k)
{
    const int b = s->block, bx = k % field->bw, by = k / field->bw;
    const int i1 = pyr_level1_index(bx, b, s->nbx[1]);
    const int j1 = pyr_level1_index(by, b, s->nby[1]);
    const PyrVec v1 = s->vec[f][1][(ptrdiff_t)j1 * s->nbx[1] + i1];
    const PyrVec m1 = pyr_median3(s->vec[f][1], s->nbx[1], s->nby[1], i1, j1);
    Level0Ctx c = { s->dsp, { cur->data, cur->stride, cur->w, cur->h },
                    { ref->data, ref->stride, ref->w, ref->h },
                    pyr_block_win(bx, by, b, cur->w, cur->h),
                    cur->pad < ref->pad ? cur->pad : ref->pad, 0, sad_size_index(b) };
    const int area = pyr_area(&c.w);
    c.whole = area == b * b;
    PyrVec v;
    uint32_t sad;
    const int n = pyr_level0_block(&c, area, v1, m1, hist, field->bw, field->bh, bx, by,
                                   keep_final, &kept[k], &v, &sad);
    field->mv[k] = (MotionVector){ v.x, v.y };
    field->sad[k] = sad;
    return (uint64_t)n * area;
}

/* Unit u of the top level: block u >> 1 of field u & 1. */
static uint64_t top_unit(PyramidSearch *s, const PyrPlane *pa, const PyrPlane *pb, int L, int u)
{
    const int f = u & 1;
    return top_pass1(s, f, f ? &pb[L] : &pa[L], f ? &pa[L] : &pb[L], u >> 1);
}

/* Row u >> 1 of field u & 1 of middle level l. */
static uint64_t middle_row(PyramidSearch *s, const PyrPlane *pa, const PyrPlane *pb, int l, int u)
{
    const int f = u & 1, nbx = s->nbx[l];
    ParentCands pc = { -1, -1, 0, { { 0, 0 } }, { 0, 0 } };
    uint64_t ad = 0;
    for (int k = (u >> 1) * nbx; k < ((u >> 1) + 1) * nbx; k++)
        ad += middle_block(s, f, l, f ? &pb[l] : &pa[l], f ? &pa[l] : &pb[l], k, &pc);
    return ad;
}

/* Row u >> 1 of field u & 1 of level 0. */
static uint64_t level0_row(PyramidSearch *s, const OmctiFrame *prev, const OmctiFrame *next,
                           MotionFields *out, int hs, int ws, int keep_final, int u)
{
    const int f = u & 1, bw = out->fwd.bw;
    const OmctiPlane *cur = f ? &next->p[0] : &prev->p[0];
    const OmctiPlane *ref = f ? &prev->p[0] : &next->p[0];
    uint64_t ad = 0;
    for (int k = (u >> 1) * bw; k < ((u >> 1) + 1) * bw; k++)
        ad += level0_block(s, f, cur, ref, f ? &out->bwd : &out->fwd,
                           hs >= 0 ? s->kept[hs][f] : NULL, keep_final, s->kept[ws][f], k);
    return ad;
}

uint64_t pyramid_search_estimate(PyramidSearch *s, const OmctiFrame *prev,
                                 const OmctiFrame *next, MotionFields *out)
{
    const int ia = pyramid_of(s, prev, -1);
    const int ib = pyramid_of(s, next, ia);
    const int nt = s->threads, L = s->L;
    uint64_t ad = 0;
    PyrPlane pa[PYR_MAX_LEVEL + 1], pb[PYR_MAX_LEVEL + 1];
    for (int l = 1; l <= L; l++) {
        pa[l] = level_plane(s, ia, l);
        pb[l] = level_plane(s, ib, l);
    }
    /* Units: block k of field f, both fields in one loop per level. */
    const int ntop = s->nbx[L] * s->nby[L];
    /* A loop that would run on one thread does not go through a region:
     * libgomp allocates (and frees) a team of one at every such fork. */
    int par = nt > 1 && ntop >= PYR_PARALLEL_TOP;
    if (par) {
        PYR_OMP("omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+ : ad)")
        for (int u = 0; u < 2 * ntop; u++)
            ad += top_unit(s, pa, pb, L, u);
    } else {
        for (int u = 0; u < 2 * ntop; u++)
            ad += top_unit(s, pa, pb, L, u);
    }
    /* on the calling thread: too little work for a fork (PYR_PARALLEL_MIN) */
    for (int u = 0; u < 2 * ntop; u++)
        top_pass2(s, u & 1, u >> 1);
    for (int l = L - 1; l >= 1; l--) {
        const int nbx = s->nbx[l], rows = 2 * s->nby[l];
        par = nt > 1 && nbx * s->nby[l] >= PYR_PARALLEL_MIN;
        if (par) {
            PYR_OMP("omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+ : ad)")
            for (int u = 0; u < rows; u++)
                ad += middle_row(s, pa, pb, l, u);
        } else {
            for (int u = 0; u < rows; u++)
                ad += middle_row(s, pa, pb, l, u);
        }
    }
    const int rows0 = 2 * out->fwd.bh;
    /* What the previous pair kept, where it ended at this pair's prev. */
    const int hs = pyr_history_read(&s->hist, prev->serial);
    const int ws = pyr_history_write(&s->hist, hs);
    const int keep_final = pyr_history_keeps_final(prev->number, next->number);
    if (nt > 1) {
        PYR_OMP("omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+ : ad)")
        for (int u = 0; u < rows0; u++)
            ad += level0_row(s, prev, next, out, hs, ws, keep_final, u);
    } else {
        for (int u = 0; u < rows0; u++)
            ad += level0_row(s, prev, next, out, hs, ws, keep_final, u);
    }
    pyr_history_done(&s->hist, ws, prev->serial, next->serial);
    return ad;
}

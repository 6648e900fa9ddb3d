/* Scene-cut detection with bounded temporal context (scenecut.h). */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "filters/scenecut.h"

void scenecut_init(SceneCut *sc, const FilterParams *p)
{
    *sc = (SceneCut){0};
    sc->enabled = p->scd == OMCTI_SCD_AUTO;
    double t = p->scd_threshold > 0 ? p->scd_threshold : 1.0;
    sc->thr256 = (uint32_t)(t * 256.0 + 0.5);
}

/* Spatial activity of a luma plane (McSceneStats.activity): the
 * horizontal and vertical absolute differences, every second row (plenty
 * for a global statistic). scenecut_stats() runs the same rows on the
 * team. */
static uint64_t plane_activity(const OmctiPlane *P)
{
    const McPlaneView v = { P->data, (int)P->stride, P->w, P->h };
    uint64_t act = 0;
    for (int y = 0; y < P->h - 1; y += 2)
        act += mc_activity_part(&v, y, 0, 1);
    return act;
}

/* The AND of mc_static_row() over the rows of whole block (bx, by): bit 0
 * every pixel equals the block's first, bit 1 every pixel equals next's.
 * Eight pixels to a 64-bit word where the block's width allows, and done
 * once both bits are clear (the first row decides most camera blocks): the
 * same bits. */
static int static_block(const OmctiPlane *P, const OmctiPlane *N, int block, int bx, int by)
{
    const uint8_t *p = P->data + (ptrdiff_t)by * block * P->stride + bx * block;
    const uint8_t *n = N->data + (ptrdiff_t)by * block * N->stride + bx * block;
    if (block % 8) {
        const McPlaneView pv = { P->data, (int)P->stride, P->w, P->h };
        const McPlaneView nv = { N->data, (int)N->stride, N->w, N->h };
        int r = 3;
        for (int y = 0; y < block && r; y++)
            r &= mc_static_row(&pv, &nv, block, bx, by, y);
        return r;
    }
    const uint64_t first = 0x0101010101010101ull * p[0];
    uint64_t off_first = 0, off_next = 0;
    for (int y = 0; y < block && !(off_first && off_next); y++) {
        const uint8_t *pr = p + (ptrdiff_t)y * P->stride, *nr = n + (ptrdiff_t)y * N->stride;
        for (int x = 0; x < block; x += 8) {
            uint64_t a, b;
            memcpy(&a, pr + x, 8);
            memcpy(&b, nr + x, 8);
            off_first |= a ^ first;
            off_next |= a ^ b;
        }
    }
    return (off_first == 0) | (off_next == 0) << 1;
}

/* Block row by: its textured blocks added to *textured, those of them
 * bit-identical in prev and next to *same. */
static void static_row(const OmctiPlane *P, const OmctiPlane *N, int block, int nbx, int by,
                       uint32_t *textured, uint32_t *same)
{
    for (int bx = 0; bx < nbx; bx++) {
        const int r = static_block(P, N, block, bx, by);
        *textured += !(r & 1);
        *same += (uint32_t)(r == 2);
    }
}

void scenecut_stats(const FilterPair *pair, int block, int threads, McSceneStats *st)
{
    const OmctiPlane *P = &pair->prev->p[0], *N = &pair->next->p[0];
    const McPlaneView n = { N->data, (int)N->stride, N->w, N->h };
    (void)threads;
    /* next's spatial activity (plane_activity()), and the textured blocks
     * bit-identical in prev and next: camera video never repeats a
     * textured block exactly (noise, grain, coding); screen captures and
     * synthetic content do wherever nothing changed, and change in steps
     * rather than continuously. Both in one parallel region (each fork and
     * join costs about a millisecond where the threads sleep between
     * loops: src/motion/pyramid.c); the sums are integers, the same in any
     * order. */
    const int nbx = P->w / block, nby = P->h / block; /* whole blocks only */
    uint64_t act = 0;
    uint32_t textured = 0, same = 0;
    /* One thread: not through the region, where libgomp would allocate
     * (and free) a team of one every pair. */
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
        {
#pragma omp for schedule(static) reduction(+ : act) nowait
            for (int y = 0; y < N->h - 1; y += 2)
                act += mc_activity_part(&n, y, 0, 1);
#pragma omp for schedule(static) reduction(+ : textured, same)
            for (int by = 0; by < nby; by++)
                static_row(P, N, block, nbx, by, &textured, &same);
        }
    } else {
        for (int y = 0; y < N->h - 1; y += 2)
            act += mc_activity_part(&n, y, 0, 1);
        for (int by = 0; by < nby; by++)
            static_row(P, N, block, nbx, by, &textured, &same);
    }
    st->activity = act;
    st->textured = textured;
    st->same = same;
}

/* The picture's activity per pixel in 1/256 (the rows the activity read). */
static uint64_t activity256(const McSceneStats *st, int w, int h)
{
    const uint64_t apix = (uint64_t)(h / 2) * (uint64_t)(w - 1);
    return apix ? st->activity * 256 / apix : 0;
}

/* A residual per pixel r (1/256) relative to the activity per pixel a
 * (1/256; +1 so that flat pictures do not divide by zero), in 1/256. */
static uint32_t relative256(uint64_t r, uint64_t a)
{
    const uint64_t q = r * 256 / (a + 256);
    return (uint32_t)(q > UINT32_MAX ? UINT32_MAX : q);
}

static uint32_t block_residual(const MotionFields *fields, int i)
{
    const uint32_t f = fields->fwd.sad[i], b = fields->bwd.sad[i];
    return f < b ? f : b;
}

uint32_t scenecut_cost(const MotionFields *fields, const McSceneStats *st, int w, int h)
{
    if (!fields) return 0;
    const MotionField *f = &fields->fwd;
    uint64_t res = 0;
    for (int i = 0; i < f->bw * f->bh; i++)
        res += block_residual(fields, i);
    const uint64_t npix = (uint64_t)f->bw * f->bh * f->block * f->block;
    return relative256(res * 256 / npix, activity256(st, w, h));
}

/* Whether block (bx, by) of size bs of the plane is flat: less than 1/4
 * grey level of activity per pixel (reads one column and one row past the
 * block: the padding). */
static int block_flat(const OmctiPlane *pl, int bs, int bx, int by)
{
    const uint8_t *p = pl->data + (ptrdiff_t)by * bs * pl->stride + bx * bs;
    uint64_t act = 0;
    for (int y = 0; y < bs; y++, p += pl->stride)
        for (int x = 0; x < bs; x++)
            act += (uint64_t)(abs(p[x + 1] - p[x]) + abs(p[x + pl->stride] - p[x]));
    return act * 4 < (uint64_t)(bs * bs);
}

uint32_t scenecut_spread(const MotionFields *fields, const OmctiPlane *prev,
                         const OmctiPlane *next, const McSceneStats *st, int w, int h)
{
    if (!fields) return 0;
    const MotionField *f = &fields->fwd;
    const int bs = f->block, area = bs * bs;
    /* the residual per pixel in 1/16 grey level (at most 4080) of every
     * whole block that is not flat in both pictures, counted; the lower
     * quartile is the value of rank n / 4. A block flat in both (clean
     * black, a cartoon's fill, a title card's ground on either side) matches
     * anything of its colour and says nothing about the change; one flat
     * on one side only is a change (a cut to black). */
    enum { BINS = 4096 };
    uint32_t hist[BINS] = { 0 };
    uint32_t n = 0;
    for (int by = 0; (by + 1) * bs <= h && by < f->bh; by++)
        for (int bx = 0; (bx + 1) * bs <= w && bx < f->bw; bx++) {
            if (block_flat(next, bs, bx, by) && block_flat(prev, bs, bx, by))
                continue;
            const uint64_t r16 =
                (uint64_t)block_residual(fields, by * f->bw + bx) * 16 / (uint64_t)area;
            hist[r16 < BINS ? r16 : BINS - 1]++;
            n++;
        }
    /* Nothing to judge the spread by (both pictures flat, or smaller than
     * a block): the tests of scenecut_change() after it decide. */
    if (!n) return UINT32_MAX;
    const uint32_t rank = n / 4;
    uint32_t seen = 0;
    int q = 0;
    while (q < BINS - 1 && seen + hist[q] <= rank)
        seen += hist[q++];
    return relative256((uint64_t)q * 16, activity256(st, w, h));
}

/* Sample (x + vx, y + vy) of the plane, clamped to its picture (as its
 * padding repeats the edge, however far a vector reaches). */
static inline int sample_at(const OmctiPlane *pl, int x, int y)
{
    return pl->data[(ptrdiff_t)clamp_i(y, 0, pl->h - 1) * pl->stride + clamp_i(x, 0, pl->w - 1)];
}

/* The sums of block (bx, by) of prev and of next at the block moved by
 * (vx, vy) that the correlation needs, times area^2 (exact integers):
 * the covariance and the two variances, each block's own mean taken out. */
static void block_moments(const OmctiPlane *prev, const OmctiPlane *next, int bs, int bx, int by,
                          int vx, int vy, int64_t m[3])
{
    const int64_t area = (int64_t)bs * bs;
    int64_t sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    for (int y = by * bs; y < (by + 1) * bs; y++) {
        const uint8_t *pa = prev->data + (ptrdiff_t)y * prev->stride;
        for (int x = bx * bs; x < (bx + 1) * bs; x++) {
            const int64_t a = pa[x], b = sample_at(next, x + vx, y + vy);
            sa += a;
            sb += b;
            saa += a * a;
            sbb += b * b;
            sab += a * b;
        }
    }
    m[0] = area * sab - sa * sb;
    m[1] = area * saa - sa * sa;
    m[2] = area * sbb - sb * sb;
}

/* Whether the correlation m[0] / sqrt(m[1] m[2]) of a exceeds that of b
 * (both with positive variances). */
static int corr_above(const int64_t a[3], const int64_t b[3])
{
    const double ca = (double)a[0] / sqrt((double)a[1] * (double)a[2]);
    const double cb = (double)b[0] / sqrt((double)b[1] * (double)b[2]);
    return ca > cb;
}

uint32_t scenecut_texture_kept(const MotionFields *fields, const OmctiPlane *prev,
                               const OmctiPlane *next, int w, int h)
{
    if (!fields) return 0;
    const MotionField *f = &fields->fwd;
    const int bs = f->block;
    /* Pooled over the whole blocks with texture in both pictures, each at
     * the best of three matches: the forward vector, the zero vector and
     * the negated backward vector (the search's SAD is thrown off by a
     * change of brightness, the correlation is not). Pooled, the blocks of
     * strong structure (lines, edges, faces) speak for the picture; the
     * correlation of fine, noisy texture (grass, gravel) is low even
     * within a shot. */
    int64_t cov = 0, var_p = 0, var_n = 0;
    int n = 0;
    for (int by = 0; (by + 1) * bs <= h && by < f->bh; by++)
        for (int bx = 0; (bx + 1) * bs <= w && bx < f->bw; bx++) {
            if (block_flat(next, bs, bx, by) || block_flat(prev, bs, bx, by))
                continue;
            const int i = by * f->bw + bx;
            const int v[3][2] = { { f->mv[i].x, f->mv[i].y }, { 0, 0 },
                                  { -fields->bwd.mv[i].x, -fields->bwd.mv[i].y } };
            int64_t best[3] = { 0, 0, 0 };
            int have = 0;
            for (int k = 0; k < 3; k++) {
                int64_t m[3];
                block_moments(prev, next, bs, bx, by, v[k][0], v[k][1], m);
                if (m[1] > 0 && m[2] > 0 && (!have || corr_above(m, best))) {
                    best[0] = m[0]; best[1] = m[1]; best[2] = m[2];
                    have = 1;
                }
            }
            cov += best[0];
            var_p += best[1];
            var_n += best[2];
            n++;
        }
    /* Too few blocks to speak for a picture (a tiny one): no veto. */
    if (n < SCD_KEPT_BLOCKS || cov <= 0 || var_p <= 0 || var_n <= 0) return 0;
    const double r = (double)cov / sqrt((double)var_p * (double)var_n);
    return r >= 1 ? 256 : (uint32_t)(r * 256);
}

uint32_t scenecut_change(const FilterPair *pair, const McSceneStats *st, int w, int h)
{
    const OmctiPlane *prev = &pair->prev->p[0], *next = &pair->next->p[0];
    const uint32_t spread = scenecut_spread(pair->fields, prev, next, st, w, h);
    if (spread < SCD_SPREAD_MIN)
        return spread;
    const McSceneStats ps = { .activity = plane_activity(prev) };
    const int flat_p = scenecut_flat(&ps, w, h), flat_n = scenecut_flat(st, w, h);
    if (flat_p || flat_n) {
        /* To or from a flat picture (black, a plain card): a cut when the
         * other picture is more than dim; the last or first step of a
         * fade when it is dim as well, no cut (mc_new_pair() then blends
         * it where scenecut_fade_edge() finds the change spread over the
         * picture, and interpolates it elsewhere). */
        const uint64_t other = activity256(flat_n ? &ps : st, w, h);
        return other < SCD_DIM_MAX ? 0 : spread;
    }
    return scenecut_texture_kept(pair->fields, prev, next, w, h) >= SCD_KEPT_MIN ? 0 : spread;
}

uint32_t scenecut_share(const McSceneStats *st)
{
    return st->textured ? (uint32_t)((uint64_t)st->same * 256 / st->textured) : 0;
}

int scenecut_jump(const SceneCut *sc, uint32_t cost, uint64_t prev_serial)
{
    /* a pair that does not continue the pairs seen so far has no history */
    if (!sc->enabled || prev_serial != sc->last_serial || sc->count == 0)
        return 0;
    /* Reference: the smallest recent cost, so that earlier cuts in the
     * history do not mask this one. */
    uint32_t ref = UINT32_MAX;
    for (int i = 0; i < sc->count; i++)
        if (sc->hist[i] < ref) ref = sc->hist[i];
    /* Below half the activity nothing is a cut: measured within-scene
     * costs reach 0.39 (foreman), cuts 1.4 and more. After only flat
     * pictures (their pairs leave no cost, ref = UINT32_MAX) any cost
     * above that is a jump: scenecut_change() tells a cut out of black
     * from a fade in, however long the black lasted. */
    const uint64_t floor = 128;
    return cost > floor &&
           (ref == UINT32_MAX || (uint64_t)cost * 256 > (uint64_t)ref * 3 * sc->thr256);
}

int scenecut_flat(const McSceneStats *st, int w, int h)
{
    return activity256(st, w, h) < 64;
}

/* How many of the 4x4 regions of the picture change between P and N by
 * 1/4 grey level per pixel or more on average (every second row). */
static int regions_changed(const OmctiPlane *P, const OmctiPlane *N)
{
    uint64_t sum[16] = { 0 }, cnt[16] = { 0 };
    for (int y = 0; y < P->h; y += 2) {
        const uint8_t *p = P->data + (ptrdiff_t)y * P->stride;
        const uint8_t *n = N->data + (ptrdiff_t)y * N->stride;
        for (int rx = 0; rx < 4; rx++) {
            const int a = P->w * rx / 4, b = P->w * (rx + 1) / 4, k = y * 4 / P->h * 4 + rx;
            uint32_t s = 0;   /* 255 x 4096 < 2^32: 16384 wide pictures */
            for (int x = a; x < b; x++)
                s += (uint32_t)abs(p[x] - n[x]);
            sum[k] += s;
            cnt[k] += (uint64_t)(b - a);
        }
    }
    int changed = 0;
    for (int k = 0; k < 16; k++)
        changed += cnt[k] && 4 * sum[k] >= cnt[k];
    return changed;
}

int scenecut_fade_edge(const FilterPair *pair, const McSceneStats *st, int w, int h)
{
    if (activity256(st, w, h) >= SCD_DIM_MAX)
        return 0;
    const McSceneStats ps = { .activity = plane_activity(&pair->prev->p[0]) };
    return activity256(&ps, w, h) < SCD_DIM_MAX &&
           scenecut_flat(&ps, w, h) != scenecut_flat(st, w, h) &&
           regions_changed(&pair->prev->p[0], &pair->next->p[0]) >= SCD_FADE_REGIONS;
}

int scenecut_decide(SceneCut *sc, uint32_t cost, uint32_t spread, uint32_t share, int flat,
                    uint64_t prev_serial, uint64_t next_serial)
{
    const int cut = scenecut_jump(sc, cost, prev_serial) && spread >= SCD_SPREAD_MIN;
    if (prev_serial != sc->last_serial) {
        /* Not the continuation of the pairs seen so far: start afresh. */
        sc->count = 0;
        sc->pos = 0;
    }
    sc->last_serial = next_serial;
    /* 254/256: all but 1/128 of the textured blocks identical. Screen
     * captures and animation repeat whole pictures (255-256 measured, a
     * cursor or a clock aside); a still camera whose encoder skipped most
     * blocks repeats them too, but its noise and small motion keep more
     * than 1/128 changing (measured: a noisy IR surveillance clip at x264
     * CRF 45 reaches 251). */
    const uint32_t dup = 254;
    int stepwise = share >= dup;
    for (int i = 0; i < sc->count; i++)
        stepwise |= sc->share[i] >= dup;
    sc->stepwise = stepwise;
    sc->share[sc->pos] = share;
    sc->hist[sc->pos] = flat ? UINT32_MAX : cost;
    sc->pos = (sc->pos + 1) % SCD_HISTORY;
    if (sc->count < SCD_HISTORY) sc->count++;
    sc->last_cost = cost;
    sc->last_cut = cut;
    return cut;
}

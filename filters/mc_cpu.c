/* The CPU backend of the motion-compensated filters (mc.h): the DSP table
 * (mc_dsp.h) and the band wavefront that builds a picture. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if OMCTI_HAVE_OPENMP
#include <omp.h>
#endif

#include "src/common.h"
#include "filters/mc_priv.h"
#include "filters/scenecut.h"

static void mc_cpu_uninit(void **priv)
{
    Mc *s = *priv;
    if (!s) return;
    aligned_free(s->vec_a);
    aligned_free(s->vec_c);
    aligned_free(s->vec_q);
    aligned_free(s->split);
    aligned_free(s->vec_sa);
    aligned_free(s->vec_sc);
    aligned_free(s->vec_sq);
    aligned_free(s->split_s);
    for (int h = 0; h < 2; h++) {
        aligned_free(s->vec_ha[h]);
        aligned_free(s->vec_hc[h]);
    }
    aligned_free(s->vec_hq);
    aligned_free(s->split_h);
    for (int c = 0; c < 3; c++) {
        aligned_free(s->acc[c]);
        aligned_free(s->cnt[c]);
    }
    aligned_free(s->tab);
    aligned_free(s->keys);
    aligned_free((void *)s->band);
    free(s);
    *priv = NULL;
}

static int mc_cpu_init(void **priv, const FilterParams *p, OmctiMethod method, char *err,
                       size_t errlen)
{
    Mc *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->w = p->width;
    s->h = p->height;
    s->block = p->block;
    s->overlap = method == OMCTI_METHOD_OMCTI;
    s->threads = p->threads > 0 ? p->threads : 1;
    s->nbx = (p->width + p->block - 1) / p->block;
    s->nby = (p->height + p->block - 1) / p->block;
    s->grid = mc_grid_make(s->w, s->h, s->block);
    s->shifted = mc_grid_shifted(&s->grid);
    s->half[0] = mc_grid_half(&s->grid, 0);
    s->half[1] = mc_grid_half(&s->grid, 1);
    mc_dsp_init(&s->dsp);
    for (int c = 0; c < 2; c++) {
        const int bs = c ? p->block / 2 : p->block;
        for (int y = 0; y < bs; y++)
            for (int x = 0; x < bs; x++)
                for (int k = 0; k < 3; k++)
                    s->mask8[c][k][y * bs + x] = (int16_t)mc_mask8(k, bs, x, y);
        for (int y = 0; y < bs; y++)
            for (int x = 0; x < bs; x++)
                for (int k = 1; k <= 2; k++)
                    s->mask_in[c][k - 1][y * bs + x] = (int16_t)mc_quad_seam_mask(k, bs, x, y);
    }
    const size_t n = (size_t)s->nbx * s->nby;
    s->vec_a = aligned_calloc(n * s->threads * sizeof *s->vec_a);
    s->vec_c = aligned_calloc(n * s->threads * sizeof *s->vec_c);
    s->vec_q = aligned_calloc(4 * n * s->threads * sizeof *s->vec_q);
    s->split = aligned_calloc(n * s->threads);
    s->vec_sa = aligned_calloc(n * s->threads * sizeof *s->vec_sa);
    s->vec_sc = aligned_calloc(n * s->threads * sizeof *s->vec_sc);
    s->vec_sq = aligned_calloc(4 * n * s->threads * sizeof *s->vec_sq);
    s->split_s = aligned_calloc(n * s->threads);
    int ok = 1;
    for (int h = 0; h < 2; h++) {
        s->vec_ha[h] = aligned_calloc(n * s->threads * sizeof *s->vec_ha[h]);
        s->vec_hc[h] = aligned_calloc(n * s->threads * sizeof *s->vec_hc[h]);
        ok &= s->vec_ha[h] && s->vec_hc[h];
    }
    s->vec_hq = aligned_calloc(4 * n * s->threads * sizeof *s->vec_hq);
    s->split_h = aligned_calloc(n * s->threads);
    ok &= s->vec_hq && s->split_h;
    for (int c = 0; c < 3 && s->overlap; c++) {
        const size_t np = c ? (size_t)chroma_size(s->w) * (size_t)chroma_size(s->h)
                            : (size_t)s->w * (size_t)s->h;
        s->acc[c] = aligned_calloc(np * sizeof *s->acc[c]);
        s->cnt[c] = aligned_calloc(np);
        ok &= s->acc[c] && s->cnt[c];
    }
    /* displacements k = v * scale of every vector the fields can hold
     * (|v| <= range pel, quarter pel, refined by up to 3/4) */
    s->ph.K = 16 * (p->range + 2);
    s->tab = aligned_calloc((2 * (size_t)s->ph.K + 1) * sizeof *s->tab);
    s->ph.tab = s->tab;
    s->ph.den = 0; /* no phase yet */
    s->keys = aligned_calloc(MOTION_CAMERA_KEYS(n) * sizeof *s->keys);
    s->band = aligned_calloc((size_t)s->threads * MC_BAND_STRIDE * sizeof *s->band);
    if (!s->vec_a || !s->vec_c || !s->vec_q || !s->split || !s->vec_sa || !s->vec_sc || !s->vec_sq ||
        !s->split_s || !ok || !s->tab ||
        !s->keys || !s->band) {
        mc_cpu_uninit((void **)&s);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    *priv = s;
    return 0;
}

static int mc_cpu_stats(void *priv, const FilterPair *pair, McSceneStats *st, char *err,
                        size_t errlen)
{
    (void)err;
    (void)errlen;
    Mc *s = priv;
    scenecut_stats(pair, s->block, s->threads, st);
    const MotionVector g = filter_pair_camera(pair, s->w, s->h, s->nbx * s->nby, s->keys);
    s->cam = (McVec){ g.x, g.y };
    mc_camera_model(pair, s->w, s->h, g, &s->cam_model);
    return 0;
}

static inline int thread_index(void)
{
#if OMCTI_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* A band's claimable render rows [next, end) in one word (next low, end
 * high), so that its owner's claim of the next row and a thief's cut of its
 * end are one compare-and-swap each. */
static inline uint64_t band_word(int next, int end)
{
    return (uint64_t)(uint32_t)next | (uint64_t)(uint32_t)end << 32;
}

/* The first row of thread t's band in an even split of nby rows. */
static inline int band_first(int nby, int t, int nt)
{
    return (int)((int64_t)nby * t / nt);
}

/* The owner's claim of render row r, its band's next: 0 once the band ends
 * at r (a thief took the rest). */
static int band_claim(_Atomic uint64_t *band, int r)
{
    uint64_t v = atomic_load_explicit(band, memory_order_relaxed);
    for (;;) {
        const int end = (int)(v >> 32);
        if (r >= end)
            return 0;
        if (atomic_compare_exchange_weak_explicit(band, &v, band_word(r + 1, end),
                                                  memory_order_relaxed, memory_order_relaxed))
            return 1;
    }
}

/* A thief's cut: the second half of the band of the most unclaimed rows
 * (at least MC_STEAL_MIN), [*r0, *r1) on success. */
enum { MC_STEAL_MIN = 4 };

static int band_steal(_Atomic uint64_t *bands, int nt, int *r0, int *r1)
{
    for (;;) {
        int victim = -1, most = MC_STEAL_MIN - 1;
        uint64_t seen = 0;
        for (int t = 0; t < nt; t++) {
            const uint64_t v = atomic_load_explicit(&bands[MC_BAND_STRIDE * t], memory_order_relaxed);
            const int left = (int)(v >> 32) - (int)(uint32_t)v;
            if (left > most) {
                most = left;
                victim = t;
                seen = v;
            }
        }
        if (victim < 0)
            return 0;
        const int next = (int)(uint32_t)seen, end = (int)(seen >> 32);
        const int cut = next + (end - next) / 2;
        if (atomic_compare_exchange_strong_explicit(&bands[MC_BAND_STRIDE * victim], &seen,
                                                    band_word(next, cut), memory_order_relaxed,
                                                    memory_order_relaxed)) {
            *r0 = cut;
            *r1 = end;
            return 1;
        }
    }
}

/* Stage A and C of row j of grid g, the shifted grid or a half-shifted one
 * (McVec *sa, *sc: the thread's arrays): blocks that act
 * (mc_shifted_active() at the same index, from the first grid's stage A
 * vectors vec_a) choose and refine their own; the others take the first
 * grid's vectors of their block (bx, j): its A, then its C. */
static void grid_choose_row(const Mc *s, const McGrid *g, const FilterPair *pr, int j,
                            const McVec *vec_a, McVec *sa)
{
    for (int bx = 0; bx < g->nbx; bx++) {
        if (mc_shifted_active(&s->grid, vec_a, bx, j)) {
            McVec more[4];
            mc_shifted_more(&s->grid, vec_a, bx, j, more);
            mc_choose_block(s, g, pr, more, 4, bx, j, sa);
        } else
            sa[(size_t)j * g->nbx + bx] = vec_a[(size_t)j * s->nbx + bx];
    }
}

static void grid_refine_row(const Mc *s, const McGrid *g, const FilterPair *pr, int j,
                            const McVec *vec_a, const McVec *vec_c, const McVec *sa, McVec *sc)
{
    for (int bx = 0; bx < g->nbx; bx++)
        sc[(size_t)j * g->nbx + bx] = mc_shifted_active(&s->grid, vec_a, bx, j)
                                          ? mc_refine_block(s, g, pr, bx, j, sa)
                                          : vec_c[(size_t)j * s->nbx + bx];
}

/* The quadrant split of row j of grid g, the shifted or the down-shifted
 * grid: blocks that act split as the first grid's do (mc_quad()) where
 * none of the first grid's blocks at their index split
 * (mc_shifted_may_split(); split: the first grid's switches of rows j and
 * j + 1), the others keep their vector in all four quarters (sq: the
 * quarter vectors that the render of a split neighbour reads). */
static void grid_split_row(const Mc *s, const McGrid *g, const FilterPair *pr, int j,
                           const McVec *vec_a, const McVec *sc, McVec *sq, uint8_t *split_g,
                           const uint8_t *split)
{
    for (int bx = 0; bx < g->nbx; bx++) {
        const size_t k = (size_t)j * g->nbx + bx;
        if (mc_shifted_active(&s->grid, vec_a, bx, j) &&
            mc_shifted_may_split(&s->grid, split, bx, j)) {
            split_g[k] = (uint8_t)mc_quad_block(s, g, pr, bx, j, sc, sq);
        } else {
            const McVec q[4] = { sc[k], sc[k], sc[k], sc[k] };
            mc_quad_store(sq, g->nbx, bx, j, q);
            split_g[k] = 0;
        }
    }
}

/* Row j of grid g (the shifted or the down-shifted grid, with its split
 * split_s and quarter vectors sq; the right-shifted grid: split_s NULL)
 * added into s->acc over the luma rows [ya, yb) (its blocks that act). */
static void grid_render_row(const Mc *s, const McGrid *g, const FilterPair *pr, int j,
                            const McVec *vec_a, const McVec *sc, const McVec *sq,
                            const uint8_t *split_s, int wt, int ya, int yb, uint16_t *buf,
                            uint8_t *tmp)
{
    for (int bx = 0; bx < g->nbx; bx++)
        if (mc_shifted_active(&s->grid, vec_a, bx, j))
            mc_render_block_acc(s, g, sc, sq, split_s ? split_s[(size_t)j * g->nbx + bx] : 0, pr,
                                bx, j, wt, ya, yb, buf, tmp);
}

/* The luma rows [ya, yb) of out (and the chroma rows [ya / 2, yb / 2)),
 * which hold the first grid's picture, averaged with the other grids'
 * pixels summed in s->acc (mc_grid_average()); s->acc and s->cnt are
 * cleared there for the next picture. */
static void grids_average(const Mc *s, OmctiPicture *out, int ya, int yb)
{
    for (int c = 0; c < 3; c++) {
        const int pw = c ? chroma_size(s->w) : s->w, ph = c ? chroma_size(s->h) : s->h;
        const int y1 = min_i(c ? yb >> 1 : yb, ph);
        for (int y = c ? ya >> 1 : ya; y < y1; y++) {
            uint8_t *o = out->data[c] + (ptrdiff_t)y * out->stride[c];
            uint16_t *a = s->acc[c] + (size_t)y * pw;
            uint8_t *n = s->cnt[c] + (size_t)y * pw;
            /* the other grids act on a few per cent of most pictures:
             * eight counts are tested at once */
            for (int x0 = 0; x0 < pw; x0 += 8) {
                const int x1 = min_i(x0 + 8, pw);
                uint64_t any = 0;
                if (x1 - x0 == 8)
                    memcpy(&any, n + x0, 8);
                else
                    for (int x = x0; x < x1; x++)
                        any |= n[x];
                if (!any)
                    continue;
                for (int x = x0; x < x1; x++)
                    if (n[x]) {
                        o[x] = (uint8_t)mc_grid_average(o[x], a[x], n[x]);
                        a[x] = 0;
                        n[x] = 0;
                    }
            }
        }
    }
}

/* The wavefront over render rows [r0, ...) of band `own` (a word of
 * s->band), as long as its claims succeed; the thread's arrays (vec_a,
 * vec_c, vec_q, split, vec_sa, vec_sc, vec_sq, split_s, vec_ha, vec_hc,
 * vec_hq, split_h) hold any rows it needs, recomputed here.
 *
 * Step i runs stage A of row i, C of row i - 1, the split of row i - 2 and
 * renders row i - 3 (without OBMC: A of i, C of i - 1, render of i - 2).
 * Under OBMC the other grids' row j (mc_shifted_active() at index (bx, j)
 * reads the first grid's A of rows j and j + 1) has its A at step
 * j + 1, its C at step j + 2 and (the shifted and the down-shifted
 * grid's) split at step j + 3,
 * which reads the first grid's split of rows j and j + 1
 * (mc_shifted_may_split()). The shifted grid's and the down-shifted
 * grid's row j covers the luma rows [8 + 16 j, 24 + 16 j) (blocks of 16),
 * across the first grid's rows j and j + 1; the right-shifted grid's row
 * j lies in the first grid's row j. After the first grid's row r = i - 3
 * is rendered, the right-shifted grid's row r and the two others' row
 * r - 1 are added into s->acc (the band's own pixel rows only), and the
 * rows they complete, from halfway down row r - 1 to halfway down row r,
 * are averaged into the picture (grids_average()); the first halves of the
 * rows that straddle the band's end are added and averaged after the loop.
 * The halves of the rows that straddle the band's edges which the band
 * discards are rendered without the rows beyond them
 * (mc_render_block_acc()), so its halo rows (A from r0 - 3, C from r0 - 2,
 * the split from r0 - 1) need no first-grid row that the band did not
 * already compute. */
static void band_run(Mc *s, const FilterPair *pr, int wt, OmctiPicture *out, int tid,
                     _Atomic uint64_t *own, int r0)
{
    const int nbx = s->nbx, nby = s->nby, bs = s->block;
    const size_t nb = (size_t)nbx * nby;
    const int split_on = s->overlap, lag = split_on ? 3 : 2;
    const int shift_on = s->overlap && s->shifted.nbx > 0 && s->shifted.nby > 0;
    const int snby = s->shifted.nby;
    McVec *vec_a = s->vec_a + nb * (size_t)tid, *vec_c = s->vec_c + nb * (size_t)tid;
    McVec *vec_q = s->vec_q + 4 * nb * (size_t)tid;
    uint8_t *split = s->split + nb * (size_t)tid;
    McVec *vec_sa = s->vec_sa + nb * (size_t)tid, *vec_sc = s->vec_sc + nb * (size_t)tid;
    McVec *vec_sq = s->vec_sq + 4 * nb * (size_t)tid;
    uint8_t *split_s = s->split_s + nb * (size_t)tid;
    McVec *vec_ha[2] = { s->vec_ha[0] + nb * (size_t)tid, s->vec_ha[1] + nb * (size_t)tid };
    McVec *vec_hc[2] = { s->vec_hc[0] + nb * (size_t)tid, s->vec_hc[1] + nb * (size_t)tid };
    McVec *vec_hq = s->vec_hq + 4 * nb * (size_t)tid;
    uint8_t *split_h = s->split_h + nb * (size_t)tid;
    uint16_t buf[6 * 32 * 32];
    uint8_t tmp[3 * 32 * 32];
    if ((int)(atomic_load_explicit(own, memory_order_relaxed) >> 32) <= r0)
        return; /* an empty band (fewer rows than threads) */
    /* the first row each stage needs: the band keeps only the bottom half
     * of the shifted row r0 - 1, which reads its own quarters and those of
     * row r0 (mc_render_block_acc()), so the shifted split from r0 - 1,
     * which needs the shifted C from r0 - 2 and the first grid's split from
     * r0 - 1 (mc_shifted_may_split()); the shifted C of r0 - 2 needs its A
     * from r0 - 3 and the first grid's C of r0 - 2 (a block that does not
     * act takes it), and its A of r0 - 3 the first grid's A of r0 - 3 and
     * r0 - 2: all computed for the first grid's own halo. The down-shifted
     * grid (split the same way) needs the same rows; the right-shifted
     * grid needs less: the band's first row of it, r0, reads its C of rows
     * r0 - 1 to r0 + 1, so its C from r0 - 1 and its A from r0 - 2 */
    const int c0 = max_i(r0 - lag + 1, 0), q0 = max_i(r0 - 1, 0);
    const int sa0 = max_i(r0 - 3, 0), sc0 = max_i(r0 - 2, 0), sq0 = max_i(r0 - 1, 0);
    const int ha0[2] = { max_i(r0 - 2, 0), sa0 }, hc0[2] = { max_i(r0 - 1, 0), sc0 };
    int end = nby;
    for (int i = max_i(r0 - lag, 0); i < nby + lag; i++) {
        const int r = i - lag;
        if (r >= r0 && !band_claim(own, r)) {
            end = r;
            break;
        }
        if (i < nby)
            for (int bx = 0; bx < nbx; bx++)
                mc_choose_block(s, &s->grid, pr, NULL, 0, bx, i, vec_a);
        const int j = i - 1;
        if (j >= c0 && j < nby)
            for (int bx = 0; bx < nbx; bx++)
                vec_c[(size_t)j * nbx + bx] = mc_refine_block(s, &s->grid, pr, bx, j, vec_a);
        const int q = i - 2;
        if (split_on && q >= q0 && q < nby)
            for (int bx = 0; bx < nbx; bx++)
                split[(size_t)q * nbx + bx] =
                    (uint8_t)mc_quad_block(s, &s->grid, pr, bx, q, vec_c, vec_q);
        if (shift_on && i - 1 >= sa0 && i - 1 < snby)
            grid_choose_row(s, &s->shifted, pr, i - 1, vec_a, vec_sa);
        if (shift_on && i - 2 >= sc0 && i - 2 < snby)
            grid_refine_row(s, &s->shifted, pr, i - 2, vec_a, vec_c, vec_sa, vec_sc);
        for (int h = 0; h < 2 && shift_on; h++) {
            if (i - 1 >= ha0[h] && i - 1 < s->half[h].nby)
                grid_choose_row(s, &s->half[h], pr, i - 1, vec_a, vec_ha[h]);
            if (i - 2 >= hc0[h] && i - 2 < s->half[h].nby)
                grid_refine_row(s, &s->half[h], pr, i - 2, vec_a, vec_c, vec_ha[h], vec_hc[h]);
        }
        if (shift_on && i - 3 >= sq0 && i - 3 < snby)
            grid_split_row(s, &s->shifted, pr, i - 3, vec_a, vec_sc, vec_sq, split_s, split);
        if (shift_on && i - 3 >= sq0 && i - 3 < s->half[1].nby)
            grid_split_row(s, &s->half[1], pr, i - 3, vec_a, vec_hc[1], vec_hq, split_h, split);
        if (r >= r0) {
            for (int bx = 0; bx < nbx; bx++) {
                if (split_on && split[(size_t)r * nbx + bx])
                    mc_render_block_quad(s, vec_q, pr, bx, r, wt, out, buf);
                else
                    mc_render_block(s, vec_c, pr, bx, r, wt, out, buf);
            }
            if (shift_on) {
                /* the other grids' blocks over the first grid's row r:
                 * the right-shifted grid's row r, and the rows r - 1 of
                 * the grids shifted down, which end halfway down row r;
                 * then every pixel that no later row covers is complete */
                const int ya = r0 * bs, yb = (r + 1) * bs;
                grid_render_row(s, &s->half[0], pr, r, vec_a, vec_hc[0], NULL, NULL, wt, ya, yb,
                                buf, tmp);
                if (r >= 1 && r - 1 < snby)
                    grid_render_row(s, &s->shifted, pr, r - 1, vec_a, vec_sc, vec_sq, split_s,
                                    wt, ya, yb, buf, tmp);
                if (r >= 1 && r - 1 < s->half[1].nby)
                    grid_render_row(s, &s->half[1], pr, r - 1, vec_a, vec_hc[1], vec_hq, split_h,
                                    wt, ya, yb, buf, tmp);
                grids_average(s, out, max_i((r - 1) * bs + bs / 2, ya), r * bs + bs / 2);
            }
        }
    }
    if (shift_on) {
        /* the top halves of the rows of the grids shifted down that
         * straddle the band's end */
        const int ya = r0 * bs, yb = end * bs;
        if (end >= 1 && end - 1 < snby)
            grid_render_row(s, &s->shifted, pr, end - 1, vec_a, vec_sc, vec_sq, split_s, wt, ya,
                            yb, buf, tmp);
        if (end >= 1 && end - 1 < s->half[1].nby)
            grid_render_row(s, &s->half[1], pr, end - 1, vec_a, vec_hc[1], vec_hq, split_h, wt, ya,
                            yb, buf, tmp);
        grids_average(s, out, max_i((end - 1) * bs + bs / 2, ya), yb);
    }
}

static int mc_cpu_picture(void *priv, const FilterPair *pr, int64_t num, int64_t den,
                          OmctiPicture *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    Mc *s = priv;
    const int wt = phase_weight256(num, den);
    if (s->ph.num != num || s->ph.den != den) {
        for (int k = -s->ph.K; k <= s->ph.K; k++)
            s->tab[k + s->ph.K] = (int32_t)mc_rdiv(num * k, den);
        s->ph.num = num;
        s->ph.den = den;
    }
    const int nby = s->nby;
    /* Each thread takes a band of block rows and runs every stage on it as a
     * wavefront, row by row (band_run()): screening (stage A) of row i,
     * median and refinement (stage C) of row i - 1, which needs A of rows
     * i-2..i, the quadrant split of row i - 2, which needs C of rows
     * i-3..i-1, and rendering of row i - 3, which needs C and the quarters
     * of rows i-4..i-2 (without OBMC, no split: C of row i - 1, rendering of
     * row i - 2). The rows that a band needs above its first row (3 rows of
     * A, 2 of C, 1 of the split, the shifted grid's 3 rows of A, 2 of C
     * and 1 of the split, as many of the down-shifted grid's, and the
     * right-shifted grid's 2 rows of A and 1 of C, for their blocks that
     * act; without OBMC 2 of A, 1 of C) and below its last (those its last
     * steps compute before a claim fails) it computes itself, into its own
     * arrays: every value is a deterministic function of the
     * pair and the phase, so the picture is the same for every thread count
     * and every split, no thread ever waits for another (no barrier inside
     * the picture), and the rows a stage reads are still in the core's
     * cache from the stage before. A thread claims each row it renders from
     * its band (band_claim()); one that has finished takes the second half
     * of the rows left in the band with the most (band_steal()), so that the
     * threads end together however late one started (a thread sleeping
     * between parallel regions wakes 1-2 ms after the fork on the 2-core
     * machine) or whatever slowed it. A thief takes at least 2 rows of the
     * 4 or more left: with the rows above it recomputes (about 1.3 rows'
     * work) it still ends before the owner would have. */
    /* The bands are set before the fork: a thread that starts late is not
     * waited for, its band is there to be stolen from. */
    for (int t = 0; t < s->threads; t++)
        atomic_store_explicit(&s->band[MC_BAND_STRIDE * t],
                              band_word(band_first(nby, t, s->threads),
                                        band_first(nby, t + 1, s->threads)),
                              memory_order_relaxed);
    if (s->threads <= 1) { /* not through a region: libgomp allocates a team of one at each */
        band_run(s, pr, wt, out, 0, &s->band[0], 0);
        return 0;
    }
#pragma omp parallel num_threads(s->threads)
    {
#if OMCTI_HAVE_OPENMP
        const int nt = omp_get_num_threads();
#else
        const int nt = 1;
#endif
        const int tid = thread_index();
        if (nt == s->threads) {
            _Atomic uint64_t *own = &s->band[MC_BAND_STRIDE * tid];
            int r0 = band_first(nby, tid, nt), r1;
            do {
                band_run(s, pr, wt, out, tid, own, r0);
                if (!band_steal(s->band, nt, &r0, &r1))
                    break;
                atomic_store_explicit(own, band_word(r0, r1), memory_order_relaxed);
            } while (1);
        } else { /* a smaller team than asked for: the even split, no stealing */
            const int r0 = band_first(nby, tid, nt);
            _Atomic uint64_t own = band_word(r0, band_first(nby, tid + 1, nt));
            band_run(s, pr, wt, out, tid, &own, r0);
        }
    }
    return 0;
}

const FilterBackend mc_backend_cpu = {
    .device = NULL,
    .init = mc_cpu_init,
    .stats = mc_cpu_stats,
    .picture = mc_cpu_picture,
    .uninit = mc_cpu_uninit,
};

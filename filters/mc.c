/* The motion-compensated interpolator shared by omcti and mcti (mc.h): the
 * per-pair decisions and the wavefront that builds a picture. */
#include <stdlib.h>
#include <string.h>
#if OMCTI_HAVE_OPENMP
#include <omp.h>
#endif

#include "src/common.h"
#include "filters/mc_priv.h"

static const uint8_t h263_own[8][8] = {
    {4, 5, 5, 5, 5, 5, 5, 4}, {5, 5, 5, 5, 5, 5, 5, 5},
    {5, 5, 6, 6, 6, 6, 5, 5}, {5, 5, 6, 6, 6, 6, 5, 5},
    {5, 5, 6, 6, 6, 6, 5, 5}, {5, 5, 6, 6, 6, 6, 5, 5},
    {5, 5, 5, 5, 5, 5, 5, 5}, {4, 5, 5, 5, 5, 5, 5, 4},
};
static const uint8_t h263_lr[8][8] = {
    {2, 1, 1, 1, 1, 1, 1, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
    {2, 2, 1, 1, 1, 1, 2, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
    {2, 2, 1, 1, 1, 1, 2, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
    {2, 2, 1, 1, 1, 1, 2, 2}, {2, 1, 1, 1, 1, 1, 1, 2},
};
static const uint8_t h263_tb[8][8] = {
    {2, 2, 2, 2, 2, 2, 2, 2}, {1, 1, 2, 2, 2, 2, 1, 1},
    {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 2, 2, 2, 2, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2},
};

void mc_mask_weights(int block, int x, int y, int w[3])
{
    const int i = y * 8 / block, j = x * 8 / block;
    w[0] = h263_own[i][j] * 32; /* the three tables sum to 8 everywhere */
    w[1] = h263_lr[i][j] * 32;
    w[2] = h263_tb[i][j] * 32;
}

int mc_init(void **priv, const FilterParams *p, int overlap, char *err, size_t errlen)
{
    if (p->block != 8 && p->block != 16 && p->block != 32)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "block size %d is not supported",
                         p->block);
    Mc *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->w = p->width;
    s->h = p->height;
    s->block = p->block;
    s->overlap = overlap;
    s->threads = p->threads > 0 ? p->threads : 1;
    s->nbx = (p->width + p->block - 1) / p->block;
    s->nby = (p->height + p->block - 1) / p->block;
    mc_dsp_init(&s->dsp);
    for (int c = 0; c < 2; c++) {
        const int bs = c ? p->block / 2 : p->block;
        for (int y = 0; y < bs; y++)
            for (int x = 0; x < bs; x++) {
                int w[3];
                mc_mask_weights(bs, x, y, w);
                for (int k = 0; k < 3; k++)
                    s->mask8[c][k][y * bs + x] = (int16_t)(w[k] / 32);
            }
    }
    const size_t n = (size_t)s->nbx * s->nby;
    s->vec_a = aligned_calloc(n * s->threads * sizeof *s->vec_a);
    s->vec_c = aligned_calloc(n * s->threads * sizeof *s->vec_c);
    s->cost_a = aligned_calloc(n * s->threads * sizeof *s->cost_a);
    s->bmax = p->block + 2 * (p->block / MC_MARGIN_DIV);
    s->scratch_len = ALIGN_UP(2 * (size_t)s->bmax * s->bmax, 32);
    s->scratch = aligned_calloc(s->scratch_len * s->threads * sizeof *s->scratch);
    /* displacements k = v * scale of every vector the fields can hold
     * (|v| <= range pel, quarter pel, refined by up to 3/4) */
    s->ph.K = 16 * (p->range + 2);
    s->ph.tab = aligned_calloc((2 * (size_t)s->ph.K + 1) * sizeof *s->ph.tab);
    s->ph.den = 0; /* no phase yet */
    if (!s->vec_a || !s->vec_c || !s->cost_a || !s->scratch || !s->ph.tab) {
        mc_uninit((void **)&s);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    scenecut_init(&s->scd, p);
    *priv = s;
    return 0;
}

void mc_uninit(void **priv)
{
    Mc *s = *priv;
    if (!s) return;
    aligned_free(s->vec_a);
    aligned_free(s->vec_c);
    aligned_free(s->cost_a);
    aligned_free(s->scratch);
    aligned_free(s->ph.tab);
    free(s);
    *priv = NULL;
}

int mc_new_pair(void *priv, const FilterPair *pair)
{
    Mc *s = priv;
    const uint32_t cost = scenecut_pair_cost(pair, s->threads);
    s->static_share = scenecut_static_share(pair, s->block, s->threads);
    s->cut = scenecut_decide(&s->scd, cost, s->static_share, pair->prev->serial,
                             pair->next->serial);
    s->stepwise = s->scd.stepwise && s->scd.enabled;
    return 0;
}

int mc_pair_is_cut(void *priv)
{
    const Mc *s = priv;
    return s->cut;
}

int mc_pair_holds(void *priv)
{
    const Mc *s = priv;
    return s->cut || s->stepwise;
}

static inline int thread_index(void)
{
#if OMCTI_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

int mc_picture(void *priv, const FilterPair *pr, int64_t num, int64_t den, OmctiPicture *out)
{
    Mc *s = priv;
    const int wt = phase_weight256(num, den);
    if (s->cut || s->stepwise) {
        /* A scene cut: no vector relates the two pictures; the in-between
         * picture belongs to one of the two scenes, so hold the nearer.
         * A stepwise source (duplicates seen recently): the in-between
         * picture is one of the originals, and the nearer is the best guess;
         * unchanged areas are identical in both anyway. */
        const OmctiFrame *src = 2 * num <= den ? pr->prev : pr->next;
        OmctiPicture pic;
        frame_as_picture(src, &pic);
        picture_copy(out, &pic);
        return 0;
    }
    if (s->ph.num != num || s->ph.den != den) {
        for (int k = -s->ph.K; k <= s->ph.K; k++)
            s->ph.tab[k + s->ph.K] = (int32_t)mc_rdiv(num * k, den);
        s->ph.num = num;
        s->ph.den = den;
    }
    const int nbx = s->nbx, nby = s->nby;
    const size_t nb = (size_t)nbx * nby;
    /* Each thread takes a band of block rows and runs every stage on it as a
     * wavefront, row by row: screening (stage A) of row i, median and
     * refinement (stage C) of row i - 1, which needs A of rows i-2..i, and
     * rendering of row i - 2, which needs C of rows i-3..i-1. The rows that
     * a band needs from its neighbours' bands (2 rows of A, 1 row of C on
     * each side) it computes itself, into its own arrays: every value is a
     * deterministic function of the pair and the phase, so the picture is
     * the same for every thread count, no thread ever waits for another
     * (no barrier inside the picture), and the rows a stage reads are still
     * in the core's cache from the stage before. */
#pragma omp parallel num_threads(s->threads) if (s->threads > 1)
    {
#if OMCTI_HAVE_OPENMP
        const int nt = omp_get_num_threads();
#else
        const int nt = 1;
#endif
        const int tid = thread_index();
        const int r0 = (int)((int64_t)nby * tid / nt), r1 = (int)((int64_t)nby * (tid + 1) / nt);
        McVec *vec_a = s->vec_a + nb * (size_t)tid, *vec_c = s->vec_c + nb * (size_t)tid;
        uint32_t *cost_a = s->cost_a + nb * (size_t)tid;
        uint16_t *tmp = s->scratch + s->scratch_len * (size_t)tid;
        uint16_t buf[4 * 32 * 32];
        int16_t rtmp2[35 * 32];
        const int a0 = max_i(r0 - 2, 0), a1 = min_i(r1 + 2, nby);
        const int c0 = max_i(r0 - 1, 0), c1 = min_i(r1 + 1, nby);
        for (int i = a0; r0 < r1 && i < a1 + 2; i++) {
            if (i < a1)
                for (int bx = 0; bx < nbx; bx++)
                    mc_choose_block(s, pr, bx, i, vec_a, cost_a, tmp);
            const int j = i - 1;
            if (j >= c0 && j < c1)
                for (int bx = 0; bx < nbx; bx++)
                    vec_c[(size_t)j * nbx + bx] = mc_refine_block(s, pr, bx, j, vec_a, cost_a, tmp);
            const int r = i - 2;
            if (r >= r0 && r < r1)
                for (int bx = 0; bx < nbx; bx++)
                    mc_render_block(s, vec_c, pr, bx, r, wt, out, buf, rtmp2);
        }
    }
    return 0;
}

/* Full and diamond block search over one cost function. */
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "src/motion/search.h"

/* Orders window indices by the tie rule of mv_better() at equal SAD. */
static int tie_order(const void *a, const void *b, void *arg)
{
    const int side = *(const int *)arg, r = side / 2;
    const int ia = (int)*(const uint32_t *)a, ib = (int)*(const uint32_t *)b;
    const int ax = ia % side - r, ay = ia / side - r, bx = ib % side - r, by = ib / side - r;
    if (mv_better(0, ax, ay, 0, bx, by)) return -1;
    if (mv_better(0, bx, by, 0, ax, ay)) return 1;
    return 0;
}

int me_search_init(MeSearch *s, const SadDSP *dsp, int block, int range)
{
    memset(s, 0, sizeof *s);
    s->dsp = dsp;
    s->block = block;
    s->size_index = sad_size_index(block);
    s->range = range;
    s->side = 2 * range + 1;
    if (s->size_index < 0 || range < 0)
        return OMCTI_ERR_INVALID;
    const size_t n = (size_t)s->side * s->side;
    s->costs = aligned_calloc(n * sizeof *s->costs);
    s->visited = aligned_calloc(n * sizeof *s->visited);
    s->tie_rank = aligned_calloc(n * sizeof *s->tie_rank);
    s->rank_pos = aligned_calloc(n * sizeof *s->rank_pos);
    if (!s->costs || !s->visited || !s->tie_rank || !s->rank_pos) {
        me_search_free(s);
        return OMCTI_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        s->rank_pos[i] = (uint32_t)i;
    qsort_r(s->rank_pos, n, sizeof *s->rank_pos, tie_order, &s->side);
    for (size_t k = 0; k < n; k++)
        s->tie_rank[s->rank_pos[k]] = (uint32_t)k;
    return 0;
}

void me_search_free(MeSearch *s)
{
    aligned_free(s->costs);
    aligned_free(s->visited);
    aligned_free(s->tie_rank);
    aligned_free(s->rank_pos);
    s->costs = s->visited = s->tie_rank = s->rank_pos = NULL;
}

/* The one cost function: SAD of the block against candidate (dx, dy). */
static inline uint32_t me_point_cost(const MeSearch *s, const uint8_t *cur, ptrdiff_t cs,
                                     const uint8_t *ref, ptrdiff_t rs, int dx, int dy)
{
    return s->dsp->sad[s->size_index](cur, cs, ref + dy * rs + dx, rs);
}

void me_full_search(MeSearch *s, const uint8_t *cur, ptrdiff_t cs,
                    const uint8_t *ref, ptrdiff_t rs, MeResult *res)
{
    const int r = s->range;
    s->dsp->grid[s->size_index](cur, cs, ref - r * rs - r, rs, s->side, s->side,
                                s->costs, s->side);
    const int pos = (int)s->rank_pos[s->dsp->pick(s->costs, s->tie_rank, s->side * s->side,
                                                  &res->sad)];
    res->mv.x = (int16_t)(pos % s->side - r);
    res->mv.y = (int16_t)(pos / s->side - r);
    res->evaluated = (uint32_t)(s->side * s->side);
}

/* Large and small diamond patterns (Zhu & Ma 2000), centre excluded. */
static const int8_t ldsp[8][2] = {
    { 0, -2 }, { -1, -1 }, { 1, -1 }, { -2, 0 }, { 2, 0 }, { -1, 1 }, { 1, 1 }, { 0, 2 },
};
static const int8_t sdsp[4][2] = { { 0, -1 }, { -1, 0 }, { 1, 0 }, { 0, 1 } };

/* Starts a new block's visited set: bumping the stamp invalidates every
 * mark; on wrap-around the stamps are cleared once. */
static void me_visited_reset(MeSearch *s)
{
    if (++s->stamp == 0) {
        memset(s->visited, 0, (size_t)s->side * s->side * sizeof *s->visited);
        s->stamp = 1;
    }
}

/* Evaluates the points of a pattern around (cx, cy) chosen by `mask`, not
 * seen yet and inside the window; updates the best. Returns the index of
 * the pattern point that became the best, or -1 when the best stayed. The
 * new points are scored four to a call (x4), then compared in pattern
 * order, so the outcome is that of one by one. */
static inline __attribute__((always_inline)) int
me_try_pattern(MeSearch *s, const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
               const int8_t (*pat)[2], unsigned mask, int cx, int cy, MeResult *best)
{
    const int r = s->range;
    int px[8], py[8], idx[8], n = 0;
    for (int i = 0; i < 8; i++) {
        if (!(mask >> i & 1))
            continue;
        const int dx = cx + pat[i][0], dy = cy + pat[i][1];
        if (dx < -r || dx > r || dy < -r || dy > r)
            continue;
        uint32_t *mark = &s->visited[(dy + r) * s->side + dx + r];
        if (*mark == s->stamp)
            continue;
        *mark = s->stamp;
        px[n] = dx;
        py[n] = dy;
        idx[n] = i;
        n++;
    }
    uint32_t cost[8];
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const ptrdiff_t off[4] = {
            py[i] * rs + px[i], py[i + 1] * rs + px[i + 1],
            py[i + 2] * rs + px[i + 2], py[i + 3] * rs + px[i + 3],
        };
        s->dsp->x4[s->size_index](cur, cs, ref, rs, off, cost + i);
    }
    for (; i < n; i++)
        cost[i] = me_point_cost(s, cur, cs, ref, rs, px[i], py[i]);
    best->evaluated += (uint32_t)n;
    int won = -1;
    for (i = 0; i < n; i++)
        if (mv_better(cost[i], px[i], py[i], best->sad, best->mv.x, best->mv.y)) {
            best->sad = cost[i];
            best->mv.x = (int16_t)px[i];
            best->mv.y = (int16_t)py[i];
            won = idx[i];
        }
    return won;
}

void me_diamond_search(MeSearch *s, const uint8_t *cur, ptrdiff_t cs,
                       const uint8_t *ref, ptrdiff_t rs, MeResult *res)
{
    const int r = s->range;
    me_visited_reset(s);
    s->visited[r * s->side + r] = s->stamp;
    res->mv.x = res->mv.y = 0;
    res->sad = me_point_cost(s, cur, cs, ref, rs, 0, 0);
    res->evaluated = 1;

    /* The best so far is always the centre of the next pattern, and it is
     * better than every point evaluated before; so skipping points already
     * seen cannot change the outcome. */
    /* After a step to ldsp[m], only the points of the new large diamond
     * that were neither in the old one nor its centre need a look (bit i:
     * ldsp[i]): 5 after a step along an axis, 3 after a diagonal one.
     * Points seen two or more steps back can still come round again; the
     * visited marks catch those. Each call is inlined with its constant
     * mask (x264 writes these steps out by hand): 9 % fewer instructions
     * outside the SADs than testing all 8 points. */
#define LDSP_STEP(mask) me_try_pattern(s, cur, cs, ref, rs, ldsp, mask, res->mv.x, res->mv.y, res)
    int m = LDSP_STEP(0xff);
    while (m >= 0) {
        switch (m) {
        case 0: m = LDSP_STEP(0x1f); break;
        case 1: m = LDSP_STEP(0x0b); break;
        case 2: m = LDSP_STEP(0x15); break;
        case 3: m = LDSP_STEP(0xab); break;
        case 4: m = LDSP_STEP(0xd5); break;
        case 5: m = LDSP_STEP(0xa8); break;
        case 6: m = LDSP_STEP(0xd0); break;
        default: m = LDSP_STEP(0xf8); break;
        }
    }
#undef LDSP_STEP
    me_try_pattern(s, cur, cs, ref, rs, sdsp, 0xf, res->mv.x, res->mv.y, res);
}

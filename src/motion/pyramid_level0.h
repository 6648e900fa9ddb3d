/* Level 0 of the pyramid search for one output block, written once for
 * every engine: the CPU's (src/motion/pyramid.c) and the CUDA kernel
 * (kernels/me_pyramid.cuh). A template in the manner of
 * filters/mc_stages.h: before including, define
 *   PYR_L0_CTX  the type of the SAD context (a pointer type), and
 *   static inline (or __device__) uint32_t pyr_l0_sad(PYR_L0_CTX c, int dx, int dy);
 *               the SAD of the block's window in cur against ref displaced
 *               by (dx, dy), equal to pyr_sad_clamped() however computed;
 * and optionally
 *   PYR_L0_SQUARE(c, cx, cy, sad)
 *               the 9 SADs of the 3x3 square around (cx, cy) into sad[],
 *               raster order, each equal to pyr_l0_sad()'s (the CPU scores
 *               them in three calls that load the block once per call);
 *               by default nine pyr_l0_sad() calls.
 *
 * The block's choice:
 * 1. the 3x3 square around 2x the level-1 vector, penalised towards 2x the
 *    level-1 median (the pair's own search): the block's *base* vector;
 * 2. the temporal candidates (docs/quality.md, "Small fast objects"): the
 *    vectors the previous pair kept, of the same field at the 3x3 blocks
 *    around this one, with the same cost. A small object that moves fast
 *    is lost at the coarse levels (it is a small part of a coarse window),
 *    but where the previous pair found it, it still moves about the same
 *    way. The best of them replaces the base only when it costs
 *    PYR_HIST_MARGIN grey levels per pixel less (on noise and in flat areas
 *    the previous pair's vectors otherwise win by chance), and is then
 *    refined by the small diamond (the object's speed changes a little).
 * A pair keeps its final vectors for the next pair (a chain: an object once
 * found is followed), except a pair whose picture numbers (their places in
 * the whole video) enclose a multiple of PYR_CHAIN, which keeps its base
 * vectors, which depend on that pair alone (pyr_history_keeps_final()): a
 * pair's fields depend on at most PYR_CHAIN pairs before it, and --segment
 * pieces, which start SCD_HISTORY + 1 + PYR_CHAIN pictures early
 * (omcti_segment_lead_in()) and number their pictures as the whole run
 * does, still join bit for bit. */
#ifndef PYR_L0_CTX
#error "define PYR_L0_CTX and pyr_l0_sad() before including pyramid_level0.h"
#endif

#include "src/motion/pyramid_block.h"

#ifdef __CUDACC__
#define PYL0F static __device__ __forceinline__
#else
#define PYL0F static inline
#endif

/* pyr_consider() of t with its SAD, kept with the best (*bs): level 0
 * reports the plain SAD of its choice. (When the best is t, its SAD is this
 * one, whether t just won or had already.) */
PYL0F void pyr_l0_consider_sad(uint32_t sad, int area, PyrVec m2, PyrVec t, uint32_t *bc,
                               PyrVec *b, uint32_t *bs)
{
    pyr_consider(sad, t, area, m2, bc, b);
    if (b->x == t.x && b->y == t.y)
        *bs = sad;
}

/* The same with the SAD computed here. */
PYL0F void pyr_l0_consider(PYR_L0_CTX c, int area, PyrVec m2, PyrVec t, uint32_t *bc,
                           PyrVec *b, uint32_t *bs)
{
    pyr_l0_consider_sad(pyr_l0_sad(c, t.x, t.y), area, m2, t, bc, b, bs);
}

/* The 3x3 square's SADs point by point (PYR_L0_SQUARE's default). */
PYL0F void pyr_l0_square_each(PYR_L0_CTX c, int cx, int cy, uint32_t sad[9])
{
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            sad[3 * j + i] = pyr_l0_sad(c, cx + i - 1, cy + j - 1);
}
#ifndef PYR_L0_SQUARE
#define PYR_L0_SQUARE(c, cx, cy, sad) pyr_l0_square_each(c, cx, cy, sad)
#endif

/* Block (bx, by) of a bw x bh grid: v1 and m1 its level-1 vector and
 * median, area its window's pixels, hist the vectors the previous pair kept
 * of this field (NULL: none). Writes the final vector and its plain SAD,
 * and into *kept the vector kept for the next pair: the final one when
 * keep_final, else the base. Returns the number of SADs evaluated. */
PYL0F int pyr_level0_block(PYR_L0_CTX c, int area, PyrVec v1, PyrVec m1, const PyrVec *hist,
                           int bw, int bh, int bx, int by, int keep_final, PyrVec *kept,
                           PyrVec *v, uint32_t *sad)
{
    PyrVec m2, b;
    m2.x = (int16_t)(2 * m1.x);
    m2.y = (int16_t)(2 * m1.y);
    b.x = 0;
    b.y = 0;
    uint32_t bc = UINT32_MAX, bs = 0, sq[9];
    PYR_L0_SQUARE(c, 2 * v1.x, 2 * v1.y, sq);
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++) {
            PyrVec t;
            t.x = (int16_t)(2 * v1.x + i);
            t.y = (int16_t)(2 * v1.y + j);
            pyr_l0_consider_sad(sq[3 * (j + 1) + i + 1], area, m2, t, &bc, &b, &bs);
        }
    int evaluated = 9;
    const PyrVec base = b;
    if (hist) {
        PyrVec cand[PYR_HIST_CAND], tb = b;
        uint32_t tc = UINT32_MAX, ts = 0;
        const int n = pyr_temporal_candidates(hist, bw, bh, bx, by, cand);
        for (int i = 0; i < n; i++) {
            /* One inside the square costs at least the base and cannot
             * pass the margin (nor can one outside that it would beat):
             * skipping it changes nothing and saves most of the SADs where
             * the motion goes on as before. */
            if (pyr_abs(cand[i].x - 2 * v1.x) <= 1 && pyr_abs(cand[i].y - 2 * v1.y) <= 1)
                continue;
            pyr_l0_consider(c, area, m2, cand[i], &tc, &tb, &ts);
            evaluated++;
        }
        if ((uint64_t)tc + (uint64_t)area * PYR_HIST_MARGIN < bc) {
            b = tb;
            bc = tc;
            bs = ts;
            for (int step = 0; step < PYR_WALK; step++) {
                PyrVec nb = b;
                uint32_t nc = bc, ns = bs;
                for (int j = 0; j < 4; j++)
                    pyr_l0_consider(c, area, m2, pyr_walk_point(b, j), &nc, &nb, &ns);
                evaluated += 4;
                if (nb.x == b.x && nb.y == b.y)
                    break;
                b = nb;
                bc = nc;
                bs = ns;
            }
        }
    }
    *v = b;
    *sad = bs;
    *kept = keep_final ? b : base;
    return evaluated;
}

/* Internal state of the motion-compensated filters, shared by mc.c,
 * mc_vectors.c and mc_render.c (see mc.h). */
#ifndef OMCTI_FILTERS_MC_PRIV_H
#define OMCTI_FILTERS_MC_PRIV_H

#include <stdint.h>

#include "filters/filter.h"
#include "filters/mc.h"
#include "filters/mc_dsp.h"
#include "filters/scenecut.h"

/* The bilateral window of a block is the block grown by block/MC_MARGIN_DIV
 * on every side; a median that costs at most (16 + MC_MEDIAN_TOL)/16 of the
 * screened vector replaces it (docs/quality.md). */
#define MC_MARGIN_DIV 4
#define MC_MEDIAN_TOL 6

/* The phase t = num/den with its displacement table: tab[k + K] is
 * mc_rdiv(num * k, den) for |k| <= K, which saves a 64-bit division per
 * displacement (several per candidate and per prediction). */
typedef struct McPhase {
    int64_t num, den;
    int32_t *tab;
    int K;
} McPhase;

/* A chosen vector of one block of the in-between picture. */
typedef struct McVec {
    int16_t x, y;  /* quarter luma pel, prev -> next                       */
    int32_t pad_;
} McVec;

typedef struct Mc {
    int w, h, block, overlap, threads;
    int nbx, nby;
    int16_t mask8[2][3][32 * 32]; /* [luma/chroma][own,h,v][y*bs+x], 1/8   */
    McDSP dsp;
    /* per thread, nbx*nby each: the screened vectors and their exact
     * bilateral cost (1/16 units), and the final (median, refined) vectors,
     * for the thread's band of block rows plus its halo */
    McVec *vec_a, *vec_c;
    uint32_t *cost_a;
    uint16_t *scratch;           /* per thread, scratch_len samples        */
    size_t scratch_len;
    int bmax;                    /* largest bilateral window side          */
    SceneCut scd;
    int cut;
    uint32_t static_share;       /* scenecut_static_share() of the pair    */
    int stepwise;                /* hold: the source changes in steps      */
    McPhase ph;                  /* the phase of the picture being built   */
} Mc;

/* mc_rdiv(num * k, den) */
static inline int phase_disp(const McPhase *ph, int k)
{
    if (k >= -ph->K && k <= ph->K)
        return ph->tab[k + ph->K];
    return (int)mc_rdiv(ph->num * k, ph->den);
}

/* The prev and next displacements (1/16 pel of the plane) of a vector v in
 * quarter luma pel at phase num/den: prev is read at x - a, next at x + b,
 * with a + b == v * scale exactly, so the trajectory is never broken. */
static inline void phase_split(int v, int scale, const McPhase *ph, int *a, int *b)
{
    const int v16 = v * scale;
    *a = phase_disp(ph, v16);
    *b = v16 - *a;
}

/* Splits a displacement in 1/16 pel into integer and fraction. */
static inline void split16(int d, int *i, int *f)
{
    *i = d >> 4; /* arithmetic shift: floor */
    *f = d & 15;
}

static inline int clampc(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Whether rows y0..y0+h and columns x0..x0+w (inclusive of the bilinear
 * neighbour) stay inside the padded plane. */
static inline int inside(const OmctiPlane *p, int x0, int y0, int w, int h)
{
    return x0 >= -p->pad && y0 >= -p->pad && x0 + w < p->w + p->pad &&
           y0 + h < p->h + p->pad;
}

/* mc_vectors.c: bilinear samples of a w x h region whose top-left sample
 * lies at (x0*16 + fx, y0*16 + fy) in 1/16 pel, into dst (1/16 units,
 * 0..4080), clamped to the padded plane where it leaves it. */
void mc_sample_bilinear(uint16_t *dst, int ds, const OmctiPlane *p, int x0, int y0, int fx,
                        int fy, int w, int h);

/* mc_vectors.c, stage A of block (bx, by): the screened vector and its
 * exact bilateral cost into vec[k], cost[k]. */
void mc_choose_block(const Mc *s, const FilterPair *pr, int bx, int by, McVec *vec,
                     uint32_t *cost, uint16_t *tmp);

/* mc_vectors.c, stage C of block (bx, by): median of outliers, then sub-pel
 * refinement, from stage A of the block and its 8 neighbours. */
McVec mc_refine_block(const Mc *s, const FilterPair *pr, int bx, int by, const McVec *vec_a,
                      const uint32_t *cost_a, uint16_t *tmp);

/* mc_render.c: block (bx, by) of all three planes of out from the final
 * vectors vec at phase weight wt. buf holds 4 * 32 * 32 samples, tmp2
 * 35 * 32. */
void mc_render_block(const Mc *s, const McVec *vec, const FilterPair *pr, int bx, int by,
                     int wt, OmctiPicture *out, uint16_t *buf, int16_t *tmp2);

#endif

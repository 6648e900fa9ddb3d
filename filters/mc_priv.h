/* The CPU backend of the motion-compensated filters (mc.h): its state,
 * shared by mc_cpu.c (set-up, the picture's wavefront), mc_vectors.c
 * (stages A and C) and mc_render.c (predictions, OBMC). */
#ifndef OMCTI_FILTERS_MC_PRIV_H
#define OMCTI_FILTERS_MC_PRIV_H

#include <stdint.h>

#include "filters/filter.h"
#include "filters/mc.h"
#include "filters/mc_block.h"
#include "filters/mc_dsp.h"

typedef struct Mc {
    int w, h, block, overlap, threads;
    int nbx, nby;
    McGrid grid;
    /* Under OBMC, the grid shifted by half a block (mc_grid_shifted()),
     * rendered too and averaged with the first grid's picture where it
     * covers it. */
    McGrid shifted;
    /* and the grids shifted by half a block right (half[0]) or down
     * (half[1]) (mc_grid_half()), whose block (bx, by) acts where the
     * shifted grid's block of the same index does */
    McGrid half[2];
    int16_t mask8[2][3][32 * 32]; /* [luma/chroma][own,h,v][y*bs+x], 1/8   */
    /* mc_quad_seam_mask() over a whole block, for the split render:
     * [luma/chroma][beside, above/below][y*bs+x], 1/8 */
    int16_t mask_in[2][2][32 * 32];
    McDSP dsp;
    /* per thread, nbx*nby each: the screened vectors and the final
     * (median, refined) vectors, for the thread's band of block rows plus
     * its halo */
    McVec *vec_a, *vec_c;
    /* per thread: the quarter vectors of the quadrant split (4*nbx*nby:
     * 2*nby rows of 2*nbx), and per block whether a quarter switched */
    McVec *vec_q;
    uint8_t *split;
    /* per thread, nbx*nby each: stages A and C of the shifted grid, and
     * its quadrant split (vec_sq: 4*nbx*nby, as vec_q in its own layout) */
    McVec *vec_sa, *vec_sc, *vec_sq;
    uint8_t *split_s;
    /* per thread, nbx*nby each: stages A and C of the half-shifted grids,
     * and the down-shifted grid's quadrant split (vec_hq: 4*nbx*nby) */
    McVec *vec_ha[2], *vec_hc[2], *vec_hq;
    uint8_t *split_h;
    /* per plane: the sum of the other grids' pixels that act at a pixel of
     * the picture and their count, added by mc_render_block_acc() and
     * taken into the picture (and cleared) by mc_cpu.c grids_average();
     * each band writes only its own rows */
    uint16_t *acc[3];
    uint8_t *cnt[3];
    int32_t *tab;                /* the phase's displacement table         */
    McPhase ph;                  /* the phase of the picture being built   */
    McVec cam;                   /* the pair's camera vector (full pel)    */
    McCamModel cam_model;        /* and its camera model (mc_camera.c)     */
    uint32_t *keys;              /* MOTION_CAMERA_KEYS(nbx*nby): scratch   */
    /* The band wavefront's bands (mc_cpu.c), one word per thread, each on
     * a cache line of its own: the render rows not yet claimed. */
    _Atomic uint64_t *band;
} Mc;

enum { MC_BAND_STRIDE = 8 }; /* words between two threads' bands: 64 bytes */

/* Splits a displacement in 1/16 pel into integer and fraction. */
static inline void split16(int d, int *i, int *f)
{
    *i = d >> 4; /* arithmetic shift: floor */
    *f = d & 15;
}

/* Whether rows y0..y0+h and columns x0..x0+w (inclusive of the bilinear
 * neighbour) stay inside the padded plane. */
static inline int inside(const OmctiPlane *p, int x0, int y0, int w, int h)
{
    return x0 >= -p->pad && y0 >= -p->pad && x0 + w < p->w + p->pad &&
           y0 + h < p->h + p->pad;
}

/* mc_vectors.c, stage A of block (bx, by) of grid g (s->grid or
 * s->shifted; mc_stages.h mc_choose()): the screened vector into vec[k]. */
void mc_choose_block(const Mc *s, const McGrid *g, const FilterPair *pr, const McVec *more,
                     int nmore, int bx, int by, McVec *vec);

/* mc_vectors.c, stage C of block (bx, by) of grid g (mc_stages.h
 * mc_refine()). */
McVec mc_refine_block(const Mc *s, const McGrid *g, const FilterPair *pr, int bx, int by,
                      const McVec *vec_a);

/* mc_vectors.c, the quadrant split of block (bx, by) of grid g (mc_stages.h
 * mc_quad()): its four quarter vectors into vec_q; returns whether any
 * differs from the block's vector. */
int mc_quad_block(const Mc *s, const McGrid *g, const FilterPair *pr, int bx, int by,
                  const McVec *vec_c, McVec *vec_q);

/* mc_render.c: block (bx, by) of all three planes, split by the quadrant
 * split (mc_block.h mc_render_quad_px(), block by block). buf holds
 * 6 * 32 * 32 samples. */
void mc_render_block_quad(const Mc *s, const McVec *vec_q, const FilterPair *pr, int bx, int by,
                          int wt, OmctiPicture *out, uint16_t *buf);

/* mc_render.c: block (bx, by) of all three planes of out from the final
 * vectors vec at phase weight wt. buf holds 3 * 32 * 32 samples. */
void mc_render_block(const Mc *s, const McVec *vec, const FilterPair *pr, int bx, int by,
                     int wt, OmctiPicture *out, uint16_t *buf);

/* mc_render.c: block (bx, by) of grid g (the shifted or a half-shifted
 * grid) from its final vectors vec (or, where split, its quarter vectors
 * vq), added into s->acc and counted in s->cnt over the luma rows [ya, yb)
 * (and the chroma rows [ya / 2, yb / 2)). buf holds 6 * 32 * 32 samples,
 * tmp 3 * 32 * 32 bytes. */
void mc_render_block_acc(const Mc *s, const McGrid *g, const McVec *vec, const McVec *vq,
                         int split, const FilterPair *pr, int bx, int by, int wt, int ya, int yb,
                         uint16_t *buf, uint8_t *tmp);

#endif

/* Shared core of the motion-compensated filters (omcti and mcti).
 *
 * Per pair (new_pair): the scene-cut and stepwise-source decisions
 * (filters/scenecut.h); either makes the pair hold the nearer original.
 * Per phase t (picture): for every block of the in-between picture a vector
 * is chosen among candidates from both motion fields (zero, the forward
 * and negated backward vectors of the block and its 4 direct neighbours,
 * and the pair's camera vector, motion_camera_vector()) by its bilateral cost
 * at t over the block grown by block/8 on every side plus a smoothness term
 * towards the camera vector, one-sided where the window leaves the picture
 * (mc_stages.h); outliers are replaced by the 3x3 vector median when that
 * costs at most 6/16 more; the vector is refined to quarter pel on the
 * block. Pixels that only one side sees at the picture's edges take that
 * side alone (mc_block.h mc_one_sided_wt()). Then every
 * block is compensated with bicubic samples: with one vector (mcti) or per
 * sub-block with its own vector and the two neighbouring blocks' vectors
 * under per-pixel OBMC masks (omcti; H.263 Annex F masks scaled to the
 * block). Under OBMC three more grids lie half a block away (right and
 * down, mc_grid_shifted(); right, or down, mc_grid_half()) and act where
 * two motions meet: where the first grid's stage A vectors of the 2x2
 * blocks at a block's index differ by 4 pel or more (mc_shifted_active()),
 * that block of each grid chooses its own vector by the same stages A and
 * C from the same fields (and the first grid's vectors there), the shifted
 * and the down-shifted grid's take the quadrant split where the first
 * grid kept its blocks there whole (mc_shifted_may_split()), each is
 * rendered the same way,
 * and each pixel there is the rounded average of the first grid's pixel
 * and the acting blocks' that cover it (mc_grid_average()): the grids'
 * vectors fit different windows, and their errors partly cancel
 * (docs/quality.md, "two block grids", "four block grids"). The
 * measurements behind each choice are in docs/quality.md.
 *
 * Everything per pixel is integer arithmetic in a fixed order, so a GPU port
 * can reproduce it bit for bit:
 *   - vectors are in quarter luma pel; the displacements t*v are rounded to
 *     1/16 pel of the plane (luma or chroma) by mc_rdiv();
 *   - a sample is bicubic (Catmull-Rom taps in 1/64, horizontal pass kept
 *     in int16, vertical pass rounded once) for the pictures, bilinear
 *     ((4 pixels * weights in 1/256 + 8) >> 4) for the bilateral costs,
 *     both in 1/16 (0..4080);
 *   - the bidirectional prediction is ((256-wt)*p + wt*n + 128) >> 8 with
 *     wt = phase_weight256(t);
 *   - the OBMC sum is (w_own*p_own + w_h*p_h + w_v*p_v + 2048) >> 12 with
 *     weights in 1/256 summing to 256 (with one vector: (p + 8) >> 4, the
 *     same value).
 *
 * Speed (docs/benchmarks.md, "Interpolation filter speed"): the per-pixel
 * loops run through the DSP table of filters/mc_dsp.h (C reference, AVX2,
 * AVX-512; the CPU flags mask of src/cpu.h caps it), bit-exact with the
 * arithmetic above, with the clamped per-pixel code kept for footprints that
 * leave the padding. Each thread runs every stage on its own band of block
 * rows as a wavefront and recomputes the few halo rows it needs, so no
 * thread waits for another inside a picture and the output does not depend
 * on the thread count.
 *
 * Files: mc.c (the filter: the per-pair decisions, holding, the backend),
 * mc_stages.h (the vector choice's decisions) and mc_block.h (the per-block
 * arithmetic), both compiled for the CPU and for CUDA; the CPU backend is
 * mc_cpu.c (set-up, the band wavefront), mc_vectors.c (its costs) and
 * mc_render.c (predictions and the OBMC sum of a block); the CUDA backend
 * is kernels/cuda_filter.c.
 */
#ifndef OMCTI_FILTERS_MC_H
#define OMCTI_FILTERS_MC_H

#include <stdint.h>

#include "filters/filter.h"
#include "filters/mc_block.h"

int  mc_init(void **priv, const FilterParams *p, OmctiMethod method, char *err, size_t errlen);
int  mc_new_pair(void *priv, const FilterPair *pair, char *err, size_t errlen);
int  mc_picture(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                OmctiPicture *out, char *err, size_t errlen);
int  mc_pair_is_cut(void *priv);
int  mc_pair_holds(void *priv);
void mc_uninit(void **priv);

/* The pair's camera model (mc_block.h McCamModel; mc_camera.c), host code
 * that every backend runs after the camera vector cam: a similarity
 * (translation, zoom, rotation) fitted in integers to a quarter of the
 * forward field's blocks inside the active area, in four rounds: over all
 * of them, then over those within 6, 3 and 2 pel of the last fit; m->on
 * only where it moves the picture's corners by a pixel or more and fits
 * 10 % more blocks than cam (within 1 pel). */
void mc_camera_model(const FilterPair *pr, int width, int height, MotionVector cam,
                     McCamModel *m);

/* The CPU backend (mc_cpu.c). */
extern const FilterBackend mc_backend_cpu;

/* OBMC weights (1/256) of pixel (x, y) of a block of `block` x `block`
 * pixels, the H.263 Annex F masks scaled to the block (mc_block.h): w[0] own vector,
 * w[1] the horizontal neighbour (left for the left half, right for the
 * right half), w[2] the vertical neighbour (above for the top half, below
 * for the bottom half). They sum to 256 and are multiples of 32. */
void mc_mask_weights(int block, int x, int y, int w[3]);

#endif

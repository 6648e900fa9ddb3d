/* Scene-cut detection with a small, fixed temporal context.
 *
 * Every pair gets one cost: the motion-compensated residual per pixel (the
 * smaller of the forward and backward SAD of every block), relative to the
 * picture's spatial activity. A pair is a cut when its cost jumps far above
 * the costs of the previous few pairs and the change covers the whole
 * picture: even the best-predicted quarter of the blocks is poorly
 * predicted (fast motion of a head or a hand after a still moment raises
 * the cost as much, but leaves the rest of the picture well predicted;
 * docs/quality.md, "Scene cuts"). Only SCD_HISTORY costs are kept, so
 * the decision for a pair depends on that pair and the SCD_HISTORY pairs
 * before it: converting a segment that starts SCD_HISTORY + 1 frames early
 * reproduces the decisions bit for bit (the Segments contract), given the
 * same fields; omcti_segment_lead_in() adds the pairs the first of those
 * pairs' motion search depends on (its chain, src/motion/pyramid_level0.h). */
#ifndef OMCTI_FILTERS_SCENECUT_H
#define OMCTI_FILTERS_SCENECUT_H

#include <stdint.h>

#include "filters/filter.h"

#define SCD_HISTORY 4
#define SCD_SPREAD_MIN 64 /* scenecut_spread() of a cut, 1/256: a quarter */
#define SCD_KEPT_MIN 154  /* scenecut_texture_kept() of a fade, 1/256: 0.6 */
#define SCD_KEPT_BLOCKS 16 /* ... over at least this many blocks            */
#define SCD_DIM_MAX 512   /* activity before the last step of a fade to black:
                           * 2 grey levels per pixel, in 1/256             */
#define SCD_FADE_REGIONS 12 /* of the 4x4 regions, those a fade's first or last
                             * step changes (a fade changes the whole picture;
                             * an object moving over black, a few regions) */

typedef struct SceneCut {
    int enabled;
    uint32_t thr256;            /* scd_threshold in 1/256                  */
    uint32_t hist[SCD_HISTORY]; /* costs of the previous pairs (UINT32_MAX: *
                                 * a flat picture's pair), newest at       *
                                 * (pos - 1) mod SCD_HISTORY               */
    int count, pos;
    uint64_t last_serial;       /* serial of the last pair's next frame    */
    uint32_t share[SCD_HISTORY];/* scenecut_static_share() of those pairs  */
    uint32_t last_cost;
    int last_cut;
    int stepwise;               /* the source updates in steps (see below) */
} SceneCut;

void scenecut_init(SceneCut *sc, const FilterParams *p);

/* The pair's statistics on the CPU (the CPU backend's stats stage): the
 * activity of next's luma (mc_activity_part() of every second row), and
 * the whole textured blocks and those bit-identical in prev and next
 * (mc_static_row()). A device backend computes the same integers. */
void scenecut_stats(const FilterPair *pair, int block, int threads, McSceneStats *st);

/* Pair cost in 1/256 (integer, deterministic): the motion-compensated
 * residual per pixel (the smaller of the forward and backward SAD of every
 * block) relative to the activity per pixel of the w x h picture. */
uint32_t scenecut_cost(const MotionFields *f, const McSceneStats *st, int w, int h);

/* The spread of the change in 1/256 (integer, deterministic): the lower
 * quartile of the residual per pixel (the smaller of the forward and
 * backward SAD) of the whole blocks that are not flat in both prev's and
 * next's luma planes, relative to the activity per pixel as in
 * scenecut_cost(); UINT32_MAX where no such block exists (a picture
 * smaller than a block, or two flat ones: the other tests decide). A cut
 * changes the whole picture, so even its best-predicted quarter of the
 * blocks scores high (measured >= 0.32, 0.47 between unrelated clips);
 * within a shot, the unchanged or well tracked part keeps it low (<= 0.21
 * on fast head motion, <= 0.35 on a fast camera). A pass over the
 * picture: called only for pairs whose cost jumps (scenecut_jump()). */
uint32_t scenecut_spread(const MotionFields *f, const OmctiPlane *prev, const OmctiPlane *next,
                         const McSceneStats *st, int w, int h);

/* How much of prev's texture its matches in next keep: the correlation
 * (in 1/256, 0 when negative) of the whole blocks with texture in both
 * pictures with their matches (the best of the forward vector, the zero
 * vector and the negated backward vector), each block's mean taken out,
 * pooled; 0 with fewer than SCD_KEPT_BLOCKS such blocks. The correlation
 * ignores brightness and contrast: a fade keeps the texture, a cut does
 * not (measured: docs/quality.md, "Scene cuts"). Three passes over the
 * picture. */
uint32_t scenecut_texture_kept(const MotionFields *f, const OmctiPlane *prev,
                               const OmctiPlane *next, int w, int h);

/* What scenecut_decide() takes as the spread: scenecut_spread(), or 0 when
 * the change is one of brightness: to or from a flat picture (black, a
 * plain card) when the other is dim as well (activity below SCD_DIM_MAX:
 * the last or first step of a fade), else scenecut_texture_kept() at least
 * SCD_KEPT_MIN. A fade is no cut: interpolating it is exact where holding
 * it would step. A cut to or from black from or to a picture that is
 * more than dim stays one. For pairs whose cost jumps (scenecut_jump()). */
uint32_t scenecut_change(const FilterPair *pair, const McSceneStats *st, int w, int h);

/* Whether the pair's cost jumps far above the costs of the previous pairs,
 * or above the floor after only flat pictures (the first test of a cut;
 * scenecut_decide() makes the same test). */
int scenecut_jump(const SceneCut *sc, uint32_t cost, uint64_t prev_serial);

/* Share (1/256) of the textured whole blocks that are bit-identical in the
 * two pictures: high for screen captures and synthetic content. */
uint32_t scenecut_share(const McSceneStats *st);

/* Whether the pair is the first or last step of a fade from or to a flat
 * picture (black, a plain card): one of its pictures is flat
 * (scenecut_flat()), the other dim (activity below SCD_DIM_MAX) but not
 * flat, and the change between them spread over the picture
 * (SCD_FADE_REGIONS of its 4x4 regions by 1/4 grey level per pixel or
 * more; an object that moves over black, or a small title, changes a
 * few). The flat picture holds nothing a vector could match: the vectors
 * matched against it follow the other picture's darker or brighter parts
 * (a fade in from black's first lit picture was drawn up to 64 pixels
 * off), and the in-between picture of a fade is the blend of the pair, at
 * any phase (docs/quality.md, "the first step of a fade"). Reads prev's
 * activity only where next is dim. */
int scenecut_fade_edge(const FilterPair *pair, const McSceneStats *st, int w, int h);

/* Whether the picture of the statistics is flat (less than 1/4 grey
 * level of activity per pixel: digital black, a plain card). A pair whose
 * next is flat says nothing about the residual a shot usually has:
 * scenecut_decide() keeps no cost for it. */
int scenecut_flat(const McSceneStats *st, int w, int h);

/* Decides whether the pair (with that cost and spread; flat: next is flat,
 * scenecut_flat()) is a cut, and records the cost and the static share. prev_serial/next_serial detect a
 * gap in the stream (a seek or a new segment): the history is then dropped.
 * Also sets sc->stepwise: the pair or one of the previous SCD_HISTORY pairs
 * repeated (nearly) every textured block bit for bit, i.e. the source shows
 * duplicate pictures (screen capture, slides, animation on twos). Such a
 * source changes in steps, not continuously, so the in-between picture is
 * one of the two originals rather than a point along a motion path. */
int scenecut_decide(SceneCut *sc, uint32_t cost, uint32_t spread, uint32_t share, int flat,
                    uint64_t prev_serial, uint64_t next_serial);

#endif

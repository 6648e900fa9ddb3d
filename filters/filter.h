/* Interpolation filters: each one file in filters/, like libavfilter's vf_*.c:
 * an options/params struct, init, a per-picture function and uninit.
 *
 * A filter builds the picture at phase t = num/den (0 < t < 1) between prev
 * and next, from the pair's motion fields (NULL for filters that need none).
 * All arithmetic is integer/fixed-point so that a GPU port can reproduce it
 * bit for bit. */
#ifndef OMCTI_FILTER_H
#define OMCTI_FILTER_H

#include <stdint.h>

#include "omcti.h"
#include "src/frame.h"
#include "src/motion/engine.h"

typedef struct FilterParams {
    int width, height;
    int block;          /* motion block size                             */
    int range;          /* search range the fields come from             */
    int threads;        /* OpenMP threads for the per-picture work       */
    OmctiSceneCut scd;
    double scd_threshold;
} FilterParams;

typedef struct FilterPair {
    const OmctiFrame *prev, *next;   /* padded frames                    */
    const MotionFields *fields;      /* NULL when !needs_motion          */
} FilterPair;

typedef struct OmctiFilter {
    const char *name;
    int needs_motion;
    int  (*init)(void **priv, const FilterParams *p, char *err, size_t errlen);
    /* Called once per new pair, before any picture of it (vector choice,
     * scene-cut decision). May be NULL. */
    int  (*new_pair)(void *priv, const FilterPair *pair);
    /* Builds the picture at t = num/den into out (visible area only). */
    int  (*picture)(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                    OmctiPicture *out);
    /* 1 when the last pair was handled by a fallback (scene cut). */
    int  (*pair_is_cut)(void *priv);
    /* 1 when the last pair's pictures are the nearer original (a scene cut
     * or a stepwise source). May be NULL: pair_is_cut then tells. */
    int  (*pair_holds)(void *priv);
    void (*uninit)(void **priv);
} OmctiFilter;

extern const OmctiFilter filter_omcti;
extern const OmctiFilter filter_mcti;
extern const OmctiFilter filter_blend;
extern const OmctiFilter filter_repeat;

const OmctiFilter *filter_for_method(OmctiMethod m);

/* t = num/den as a weight in 1/256 (0..256), rounded; shared by filters so
 * that every method and engine uses the same temporal weights. */
static inline int phase_weight256(int64_t num, int64_t den)
{
    return (int)((num * 512 + den) / (2 * den));
}

#endif

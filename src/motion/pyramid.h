/* The CPU engine's pyramid search (src/motion/pyramid.c): state allocated
 * once per engine, per pair a function of the two frames and of the
 * previous pair's level-0 vectors when that pair ended at this pair's prev
 * (frame serials; pyramid_level0.h). */
#ifndef OMCTI_MOTION_PYRAMID_H
#define OMCTI_MOTION_PYRAMID_H

#include <stdint.h>

#include "src/frame.h"
#include "src/motion/engine.h"
#include "src/motion/sad.h"

typedef struct PyramidSearch PyramidSearch;

/* Allocates the two pyramids, the coarse fields and the top cost volume
 * for pictures of width x height; -1 when out of memory (*ps then holds
 * what was allocated, for pyramid_search_free). */
int  pyramid_search_create(PyramidSearch **ps, const SadDSP *dsp, int width, int height,
                           int block, int threads);
void pyramid_search_free(PyramidSearch **ps);

/* Both fields of the pair; returns the absolute differences computed. The
 * pyramid of `next` and the level-0 vectors the pair keeps (final, or base
 * where its picture numbers enclose a multiple of PYR_CHAIN) are kept for
 * the next pair when the serials are non-zero. */
uint64_t pyramid_search_estimate(PyramidSearch *s, const OmctiFrame *prev,
                                 const OmctiFrame *next, MotionFields *out);

#endif

/* Extra entry point of the filters' CUDA backend (cuda_filter.c) for the
 * benchmark; the library itself only uses filter_backend_cuda
 * (filters/filter.h). */
#ifndef OMCTI_KERNELS_CUDA_FILTER_H
#define OMCTI_KERNELS_CUDA_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "filters/filter.h"

/* With b a started filter_backend_cuda (omcti, mcti or blend) that has
 * built a picture of the pair: runs the kernels of phase num/den `reps`
 * times, timed with CUDA events: ms_vec[i] the phase table and vector
 * choice (stages A, C), ms_render[i] the rendering of all planes (no
 * download). */
int cuda_filter_time(void *b, const FilterPair *pr, int64_t num, int64_t den, int reps,
                     float *ms_vec, float *ms_render, char *err, size_t errlen);

#endif

/* Extra entry points of the CUDA engine for its tests and benchmark (the
 * library itself only uses motion_engine_cuda, src/motion/engine.h). */
#ifndef OMCTI_KERNELS_CUDA_ENGINE_H
#define OMCTI_KERNELS_CUDA_ENGINE_H

#include <stddef.h>

#include "src/motion/engine.h"

typedef enum CudaKernelKind {
    CUDA_KERNEL_AUTO = -1,   /* the engine's search (full, diamond, pyramid) */
    CUDA_KERNEL_FULL = 0,    /* tiled full search                          */
    CUDA_KERNEL_DIAMOND = 1,
    CUDA_KERNEL_NAIVE = 2,   /* one thread per candidate (reference point) */
} CudaKernelKind;

/* Like estimate(), but runs the given kernel (for tests: the naive full
 * search is a second, independent implementation). */
int cuda_engine_estimate_kind(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                              int kind, MotionFields *out, char *err, size_t errlen);

/* Uploads the pair (or finds it cached), then runs the kernel `warmup`
 * times untimed and `reps` times, each timed with CUDA events; ms[i] gets
 * the kernel time of repetition i (both directions of the pair). */
int cuda_engine_time_kernel(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                            int kind, int warmup, int reps, float *ms, char *err, size_t errlen);

/* The GPU the engine runs on, e.g. "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs)". */
const char *cuda_engine_device_name(const MotionEngine *e);

/* Forces the full-search tile height: k candidates per thread vertically
 * (5, 8 or 11; 0 = automatic). For benchmarks and tests; the fields do not
 * depend on it. */
void cuda_engine_set_tile(MotionEngine *e, int k);

/* Frames uploaded so far (a cached frame is not uploaded again). */
unsigned long cuda_engine_uploads(const MotionEngine *e);

/* Planes uploaded straight from pinned (registered) frames, no staging. */
unsigned long cuda_engine_direct_uploads(const MotionEngine *e);

#endif

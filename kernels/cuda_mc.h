/* C ABI of the interpolation kernels (mc_kernels.cu) for the filter
 * backend's host side (cuda_filter.c). Plain data only, like cuda_me.h. */
#ifndef OMCTI_KERNELS_CUDA_MC_H
#define OMCTI_KERNELS_CUDA_MC_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernels/mc_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tab[k + K] = mc_rdiv(num * k, den) for |k| <= K. */
cudaError_t cuda_mc_phase_table(int32_t *tab, int K, long long num, long long den,
                                cudaStream_t st);

/* Stage A, stage C and (under OBMC) the quadrant split of every block
 * (vec_a, vec_c, then vec_q and split). */
cudaError_t cuda_mc_vectors(const CudaMcArgs *a, cudaStream_t st);

/* The output pixels of block rows [r0, r1) of all three planes:
 * blend (mode 0) or motion-compensated (mode 1, a->overlap decides). */
cudaError_t cuda_mc_render(const CudaMcArgs *a, int mode, int r0, int r1, cudaStream_t st);

/* Scene-cut statistics of a pair into *stats (zeroed by the call, on the
 * stream). Only prev[0], next[0] and g.block of a are read. */
cudaError_t cuda_mc_stats(const CudaMcArgs *a, McSceneStats *stats, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif

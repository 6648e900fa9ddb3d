/* C ABI between the CUDA engine's host side (cuda_engine.c, C11) and its
 * kernels (me_kernels.cu, built by nvcc). Only plain data crosses it: device
 * pointers, sizes and the search parameters, so the C side never needs a
 * CUDA C++ compiler and the kernels never see the library's structs. */
#ifndef OMCTI_KERNELS_CUDA_ME_H
#define OMCTI_KERNELS_CUDA_ME_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One luma plane on the device. data points at pixel (0,0); every read the
 * kernels make is clamped to [xlo,xhi] x [ylo,yhi] (the uploaded, padded
 * area), so candidates that only exist to round a thread's tile up to whole
 * groups can never read outside the allocation. Candidates inside the
 * search window never need the clamp (the frame is padded by range+block). */
typedef struct CudaMePlane {
    const uint8_t *data;
    int stride;
    int xlo, xhi, ylo, yhi;
} CudaMePlane;

typedef struct CudaMeArgs {
    CudaMePlane prev, next;
    int block;                 /* 8, 16, 32                                 */
    int range;                 /* 1..64                                     */
    int bw, bh;                /* blocks per row / column                   */
    /* Outputs, index 0 = forward (prev block matched in next), 1 = backward.
     * mv is the MotionVector layout: int16 x then int16 y. */
    uint32_t *mv[2];
    uint32_t *sad[2];
    unsigned long long *points; /* diamond: candidates evaluated, summed    */
    int tile_k;                /* full search: dy per thread (5, 8, 11);
                                  0 = chosen by the range                   */
} CudaMeArgs;

enum { CUDA_ME_FULL = 0, CUDA_ME_DIAMOND = 1, CUDA_ME_FULL_NAIVE = 2 };

/* Launches the search for both directions on the stream (no sync). For
 * CUDA_ME_DIAMOND, *points must be zeroed before. Returns the launch error. */
cudaError_t cuda_me_launch(const CudaMeArgs *a, int kind, cudaStream_t stream);

/* cudaSuccess when this binary holds code the current device can run
 * (cudaErrorNoKernelImageForDevice when the GPU is too old for it). */
cudaError_t cuda_me_probe(void);

#ifdef __cplusplus
}
#endif

#endif

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

enum { CUDA_ME_FULL = 0, CUDA_ME_DIAMOND = 1, CUDA_ME_FULL_NAIVE = 2, CUDA_ME_PYRAMID = 3 };

/* Launches the search for both directions on the stream (no sync). For
 * CUDA_ME_DIAMOND, *points must be zeroed before. Returns the launch error. */
cudaError_t cuda_me_launch(const CudaMeArgs *a, int kind, cudaStream_t stream);

/* The pyramid search (src/motion/pyramid_block.h, the CPU's pyramid.c):
 * level buffers, coarse fields and the top cost volume allocated once by
 * the engine; levels unpadded (w x h bytes each, clamped reads). */
enum { CUDA_PYR_LEVELS = 5 };
typedef struct CudaPyrArgs {
    const uint8_t *frame[2];   /* prev, next luma at pixel (0, 0)           */
    int frame_stride;
    int w[CUDA_PYR_LEVELS], h[CUDA_PYR_LEVELS]; /* level sizes (0: picture) */
    int nbx[CUDA_PYR_LEVELS], nby[CUDA_PYR_LEVELS]; /* coarse blocks        */
    int levels;                /* top level L, 1..4                          */
    uint8_t *level[2][CUDA_PYR_LEVELS];   /* [prev, next][1..L]             */
    uint32_t *vec[2][CUDA_PYR_LEVELS];    /* [fwd, bwd][1..L], PyrVec       */
    uint32_t *top1[2];         /* pass 1 of the top level                   */
    uint32_t *vol[2];          /* 289 SADs per top block                    */
    int block, bw, bh;         /* output grid                               */
    uint32_t *mv[2], *sad[2];  /* outputs as CudaMeArgs                     */
    /* Level 0's vectors (pyramid_level0.h), PyrVec per output block: what
     * the previous pair kept, read (NULL: none), and what this pair keeps,
     * written (its final vectors when keep_final, else its base vectors). */
    const uint32_t *hist[2];   /* [fwd, bwd]                                */
    uint32_t *kept[2];
    int keep_final;
    unsigned long long *points; /* absolute differences, summed (zeroed)     */
} CudaPyrArgs;

/* Builds both pyramids and searches both fields, level after level, on the
 * stream (no sync). */
cudaError_t cuda_me_pyramid_launch(const CudaPyrArgs *a, cudaStream_t stream);

/* cudaSuccess when this binary holds code the current device can run
 * (cudaErrorNoKernelImageForDevice when the GPU is too old for it). */
cudaError_t cuda_me_probe(void);

#ifdef __cplusplus
}
#endif

#endif

/*
 * The vectors of the motion fields and of the filter's choices, and their
 * 3x3 median: one rule for the pyramid search (src/motion/pyramid_block.h
 * pyr_median3()) and the filter's stage C (filters/mc_stages.h
 * mc_median()). Built by gcc and by nvcc (the CUDA search and filter
 * kernels call it on the device).
 */
#ifndef OMCTI_VEC_MEDIAN_H
#define OMCTI_VEC_MEDIAN_H

#include <stdint.h>

#ifdef __CUDACC__
#define VMF static __host__ __device__ __forceinline__
#else
#define VMF static inline
#endif

/* The layout of MotionVector (src/motion/engine.h): whole pel in the
 * motion fields (PyrVec), quarter luma pel in the filter's (McVec). */
typedef struct VecXY {
    int16_t x, y;
} VecXY;

/* Of the vectors of the 3x3 neighbourhood of (bx, by) in a field of
 * nbx x nby, the one with the smallest sum of L1 distances to the others,
 * the first in raster order on a tie. */
VMF VecXY vec_median3x3(const VecXY *v, int nbx, int nby, int bx, int by)
{
    VecXY m[9];
    m[0] = v[by * nbx + bx]; /* the block's own, replaced below: n >= 1, which
                                gcc cannot see where it inlines this */
    int n = 0;
    for (int y = by - 1; y <= by + 1; y++)
        for (int x = bx - 1; x <= bx + 1; x++)
            if (x >= 0 && y >= 0 && x < nbx && y < nby)
                m[n++] = v[y * nbx + x];
    /* A neighbourhood of one vector (most of a smooth field) has it as its
     * median: every sum is 0 and the first wins. */
    int same = 1;
    for (int i = 1; i < n; i++)
        same &= m[i].x == m[0].x && m[i].y == m[0].y;
    if (same)
        return m[0];
    /* Each distance once, added to both ends: the sums of the plain double
     * loop, half the work. */
    int d[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const int ex = m[i].x - m[j].x, ey = m[i].y - m[j].y;
            const int e = (ex < 0 ? -ex : ex) + (ey < 0 ? -ey : ey);
            d[i] += e;
            d[j] += e;
        }
    int best = 0;
    for (int i = 1; i < n; i++)
        if (d[i] < d[best])
            best = i;
    return m[best];
}

#endif

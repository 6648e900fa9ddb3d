/* SAD (sum of absolute differences) primitives behind a function table,
 * dav1d style: one table filled at run time with the fastest variant the
 * CPU supports, capped by a level so tests can force each one.
 *
 * Three kinds of function per block size (8x8, 16x16, 32x32):
 * - sad[]:  one block against one candidate.
 * - x4[]:   one block against four arbitrary candidates (diamond search:
 *   the new points of a pattern), each row of the block loaded once for
 *   the four, one call instead of four (x264's sad_x4).
 * - rect:   one window of any size against one candidate: the pyramid's
 *   windows clipped at the picture's edges (the top level's edge blocks
 *   take 289 of them each).
 * - down2:  not a SAD: a row of the picture pyramid's 2x2 means (each
 *   level of the pyramid search is built from the one below with it).
 * - grid[]: one block against a whole nx x ny grid of consecutive
 *   candidates (full search). This is where the speed is: the current block
 *   stays in registers, one load of a reference row serves two candidate
 *   rows, and each vpsadbw scores several horizontal candidates at once
 *   (lanes at +0, +block, +2*block ... bytes of one unaligned load).
 *
 * Every variant is bit-exact with the C reference and reads only the bytes
 * a plain loop would read (no over-read past the last candidate). */
#ifndef OMCTI_MOTION_SAD_H
#define OMCTI_MOTION_SAD_H

#include <stddef.h>
#include <stdint.h>

#include "src/cpu.h"


/* Index of a block size in the tables: 8 -> 0, 16 -> 1, 32 -> 2, else -1. */
static inline int sad_size_index(int block)
{
    return block == 8 ? 0 : block == 16 ? 1 : block == 32 ? 2 : -1;
}

/* SAD of the block at a (stride as) against the block at b (stride bs). */
typedef uint32_t (*SadBlockFn)(const uint8_t *a, ptrdiff_t as,
                               const uint8_t *b, ptrdiff_t bs);

/* SAD of the w x h window at a against the one at b; w, h >= 0. */
typedef uint32_t (*SadRectFn)(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs,
                              int w, int h);

/* out[y * out_stride + x] = SAD(cur, ref + y * rs + x) for 0 <= x < nx,
 * 0 <= y < ny. Reads ref rows 0 .. ny + block - 2, columns
 * 0 .. nx + block - 2. */
typedef void (*SadGridFn)(const uint8_t *cur, ptrdiff_t cs,
                          const uint8_t *ref, ptrdiff_t rs,
                          int nx, int ny, uint32_t *out, ptrdiff_t out_stride);

/* out[k] = SAD(cur, ref + off[k]) for k = 0..3 (ref's stride rs). */
typedef void (*SadX4Fn)(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                        const ptrdiff_t off[4], uint32_t out[4]);

/* dst[x] = (r0[2x] + r0[2x + 1] + r1[2x] + r1[2x + 1] + 2) >> 2 for
 * 0 <= x < n: reads columns 0 .. 2n - 1 of the two rows. */
typedef void (*SadDown2Fn)(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n);

/* The best of n window costs under mv_better() (engine.h): the smallest
 * cost, and among the entries equal to it the smallest rank[i] (rank holds
 * the tie rule's order of the positions); returns that rank, the cost in
 * *best. */
typedef uint32_t (*PickBestFn)(const uint32_t *costs, const uint32_t *rank, int n,
                               uint32_t *best);

/* The pick in two branch-free passes the compiler vectorises: the minimum,
 * then the smallest rank among the entries equal to it. Compiled once per
 * instruction set (sad.c, sad_x86.c): the scan costs about half as much as
 * the SAD kernel itself when it is left to SSE2 and a branch per entry. */
#define SAD_DEFINE_PICK_BEST(name, attr)                                        \
    attr uint32_t name(const uint32_t *restrict c, const uint32_t *restrict rank, \
                       int n, uint32_t *best_cost)                              \
    {                                                                           \
        uint32_t m = UINT32_MAX, best = UINT32_MAX;                             \
        for (int i = 0; i < n; i++)                                             \
            m = c[i] < m ? c[i] : m;                                            \
        for (int i = 0; i < n; i++) {                                           \
            const uint32_t k = c[i] == m ? rank[i] : UINT32_MAX;                \
            best = k < best ? k : best;                                         \
        }                                                                       \
        *best_cost = m;                                                         \
        return best;                                                            \
    }

typedef struct SadDSP {
    SadBlockFn sad[3];   /* 8x8, 16x16, 32x32 */
    SadX4Fn    x4[3];
    SadGridFn  grid[3];
    SadRectFn  rect;
    SadDown2Fn down2;    /* the pyramid's levels */
    PickBestFn pick;     /* full search's choice over the window */
    int level;           /* CPU_LEVEL_* actually used */
} SadDSP;

/* Fills d with the best variants the CPU flags allow (src/cpu.h). */
void sad_dsp_init(SadDSP *d);

#if defined(__x86_64__) || defined(__i386__)
/* sad_x86.c: overrides the entries of d for the given (supported) level
 * (the kernels: sad_x86.c SSE2, sad_avx.c AVX2 and AVX-512). */
void sad_dsp_init_x86(SadDSP *d, int level);
#endif

#endif

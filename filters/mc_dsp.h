/* DSP primitives of the motion-compensated filters (mc.c) behind a function
 * table, dav1d style, like the SAD table of src/motion/sad.h: a plain C
 * reference and SIMD variants (AVX2, AVX-512) picked at run time, capped by
 * the CPU flags mask (src/cpu.h) so that tests/checkasm runs each one.
 *
 * Every variant is bit-exact with the C reference, which is the arithmetic of
 * docs/architecture.md / mc.h written out for the case where every sample
 * lies inside the padded plane. mc.c calls these only on such footprints and
 * keeps its clamped per-pixel code for the rare rest (vectors that point past
 * the padding); since a sample's value depends only on its position, vector
 * and phase, both paths give the same picture.
 *
 * Reads: the SIMD variants may read up to 32 bytes past the last sample of a
 * row that the arithmetic uses (never before the first, never extra rows);
 * padded planes (src/frame.c) have room for that, including one spare row at
 * the end of the allocation. */
#ifndef OMCTI_FILTERS_MC_DSP_H
#define OMCTI_FILTERS_MC_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "filters/mc_block.h"


/* The bidirectional bicubic prediction of a w x h block, in 1/16 units:
 *   dst[y*ds + x] = ((256 - wt) * C(p, pfx, pfy) + wt * C(n, nfx, nfy) + 128) >> 8
 * where C(q, fx, fy)(x, y) is the separable Catmull-Rom sample at
 * (x + fx/16, y + fy/16) of the plane whose integer sample (0, 0) is at q:
 * horizontal pass t = sum taps[fx][k] * q[x - 1 + k] kept in int16, vertical
 * pass v = sum taps[fy][k] * t[y - 1 + k] + 128, clamp(v >> 8, 0, 4080).
 * Reads rows -1 .. h+1 and columns -1 .. w+1 of both planes.
 * w is 8, 16 or 32; h is 1 .. 32; wt is 0 .. 256; ds in elements. */
typedef void (*McPred2Fn)(uint16_t *dst, ptrdiff_t ds,
                          const uint8_t *p, ptrdiff_t ps, int pfx, int pfy,
                          const uint8_t *n, ptrdiff_t ns, int nfx, int nfy,
                          int w, int h, int wt);

/* The two SADs below stop early, as x264's early termination does: the
 * window is summed in strips of MC_SAD_STRIP rows (all columns), and once
 * the sum of the strips so far reaches bound, that sum is returned. So the
 * result is the exact SAD when the SAD is below bound, else a partial sum
 * >= bound; bound = UINT32_MAX gives the exact SAD. A caller that only
 * needs to know whether a candidate beats a cost gets the same decision
 * for less work (docs/benchmarks.md, "Early termination"). Every variant
 * returns the C reference's value, partial sums included. */
#define MC_SAD_STRIP 4

/* Sum over a w x h window of |B(p, pfx, pfy) - B(n, nfx, nfy)| where B is
 * the bilinear sample in 1/16 units:
 *   ((16-fx)(16-fy) q00 + fx(16-fy) q01 + (16-fx)fy q10 + fx fy q11 + 8) >> 4.
 * Reads rows 0 .. h and columns 0 .. w of both planes; w, h are 1 .. 64. */
typedef uint32_t (*McSadBilinFn)(const uint8_t *p, ptrdiff_t ps, int pfx, int pfy,
                                 const uint8_t *n, ptrdiff_t ns, int nfx, int nfy,
                                 int w, int h, uint32_t bound);

/* Plain SAD of two w x h byte windows; w, h are 1 .. 64. */
typedef uint32_t (*McSadFn)(const uint8_t *p, ptrdiff_t ps, const uint8_t *n, ptrdiff_t ns,
                            int w, int h, uint32_t bound);

/* OBMC sum with weights in 1/8 (the H.263 masks are multiples of 32/256):
 *   dst[x] = (k0[x] * o[x] + k1[x] * hp[x] + k2[x] * vp[x] + 64) >> 7
 * with k0 + k1 + k2 == 8 at every pixel and samples 0 .. 4080, which is
 * (w_own*p_own + w_h*p_h + w_v*p_v + 2048) >> 12 for w = 32k exactly.
 * o, hp, vp share the stride ps (elements), k0..k2 the stride ks; w <= 32. */
typedef void (*McObmcFn)(uint8_t *dst, ptrdiff_t ds, const uint16_t *o,
                         const uint16_t *hp, const uint16_t *vp, ptrdiff_t ps,
                         const int16_t *k0, const int16_t *k1, const int16_t *k2,
                         ptrdiff_t ks, int w, int h);

/* One prediction to pixels: dst[x] = (o[x] + 8) >> 4; w <= 32. */
typedef void (*McPutFn)(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, ptrdiff_t ps,
                        int w, int h);

typedef struct McDSP {
    McPred2Fn pred2;
    McSadBilinFn sad_bilin;
    McSadFn sad;
    McObmcFn obmc;
    McPutFn put;
    int level;          /* CPU_LEVEL_* (src/cpu.h) actually used */
} McDSP;

/* Fills d with the best variants the CPU flags allow (src/cpu.h). */
void mc_dsp_init(McDSP *d);

#if defined(__x86_64__) || defined(__i386__)
void mc_dsp_init_x86(McDSP *d, unsigned flags);
#endif

#endif

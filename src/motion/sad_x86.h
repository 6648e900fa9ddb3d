/* What the x86 SAD files share (sad_x86.c: SSE2 and the dispatch,
 * sad_dsp_init_x86(); sad_avx.c: AVX2 and AVX-512): the target attributes,
 * the grid kernels' column group, and the kernels that the dispatch
 * installs or that a wider grid kernel falls back to (its columns left
 * over, through the narrower one). */
#ifndef OMCTI_MOTION_SAD_X86_H
#define OMCTI_MOTION_SAD_X86_H

#include <immintrin.h>
#include <string.h>

#include "src/motion/sad.h"

#define INLINE static inline __attribute__((always_inline))
#define T_SSE2 __attribute__((target("sse2")))
#define T_AVX2 __attribute__((target("avx2")))
#define T_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl")))

/* Columns scored together by one pass over the block's rows. */
#define GROUP 4

static inline int64_t load64(const uint8_t *p)
{
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* sad_x86.c: the SSE2 grid kernels (the AVX2 and AVX-512 ones' narrower
 * kernel) */
T_SSE2 void grid_8x8_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_SSE2 void grid_16x16_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_SSE2 void grid_32x32_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);

/* sad_avx.c */
T_AVX2 uint32_t sad_16x16_avx2(const uint8_t *a, ptrdiff_t as,
                               const uint8_t *b, ptrdiff_t bs);
T_AVX2 uint32_t sad_32x32_avx2(const uint8_t *a, ptrdiff_t as,
                               const uint8_t *b, ptrdiff_t bs);
T_AVX2 void x4_16x16_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4]);
T_AVX2 void x4_32x32_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4]);
T_AVX2 void grid_8x8_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_AVX2 void grid_16x16_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_AVX2 void grid_32x32_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_AVX512 void grid_8x8_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                              ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_AVX512 void grid_16x16_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);
T_AVX512 void grid_32x32_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os);

#endif

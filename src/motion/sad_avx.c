/* AVX2 and AVX-512 SADs (the AVX-512 grid kernel builds on AVX2's blocks),
 * installed by sad_dsp_init_x86() (sad_x86.c, whose first comment gives the
 * grid kernels' layout). */
#include "src/motion/sad_x86.h"

/* ------------------------------------------------------------------ AVX2 */

T_AVX2 INLINE __m256i avx2_loadu(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

T_AVX2 INLINE uint32_t avx2_hsum(__m256i v)
{
    const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint32_t)_mm_cvtsi128_si32(s) + (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
}

T_AVX2 INLINE __m256i avx2_load_2x16(const uint8_t *p0, const uint8_t *p1)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p0)),
                                   _mm_loadu_si128((const __m128i *)p1), 1);
}

/* 16x16: two rows per ymm. */
T_AVX2 uint32_t sad_16x16_avx2(const uint8_t *a, ptrdiff_t as,
                               const uint8_t *b, ptrdiff_t bs)
{
    __m256i acc = _mm256_setzero_si256();
    for (int y = 0; y < 16; y += 2)
        acc = _mm256_add_epi32(acc, _mm256_sad_epu8(avx2_load_2x16(a + y * as, a + (y + 1) * as),
                                                    avx2_load_2x16(b + y * bs, b + (y + 1) * bs)));
    return avx2_hsum(acc);
}

T_AVX2 uint32_t sad_32x32_avx2(const uint8_t *a, ptrdiff_t as,
                               const uint8_t *b, ptrdiff_t bs)
{
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    for (int y = 0; y < 32; y += 2) {
        acc0 = _mm256_add_epi32(acc0, _mm256_sad_epu8(avx2_loadu(a + y * as), avx2_loadu(b + y * bs)));
        acc1 = _mm256_add_epi32(acc1, _mm256_sad_epu8(avx2_loadu(a + (y + 1) * as),
                                                      avx2_loadu(b + (y + 1) * bs)));
    }
    return avx2_hsum(_mm256_add_epi32(acc0, acc1));
}

/* 32 bytes of block rows at p, stride ps, from row y: two rows of a 16-wide
 * block, one row of a 32-wide one. */
T_AVX2 INLINE __m256i avx2_rows32(const uint8_t *p, ptrdiff_t ps, int y, const int bw)
{
    return bw == 16 ? avx2_load_2x16(p + y * ps, p + (y + 1) * ps) : avx2_loadu(p + y * ps);
}

/* One block against four candidates (diamond search), a ymm per 32 bytes of
 * block: half the vpsadbw and adds of sse2_x4. bw 16 or 32. */
T_AVX2 INLINE void avx2_x4(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                           const ptrdiff_t off[4], uint32_t out[4], const int bw)
{
    const uint8_t *r0 = ref + off[0], *r1 = ref + off[1], *r2 = ref + off[2], *r3 = ref + off[3];
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (int y = 0; y < bw; y += 32 / bw) {
        const __m256i C = avx2_rows32(cur, cs, y, bw);
        a0 = _mm256_add_epi32(a0, _mm256_sad_epu8(C, avx2_rows32(r0, rs, y, bw)));
        a1 = _mm256_add_epi32(a1, _mm256_sad_epu8(C, avx2_rows32(r1, rs, y, bw)));
        a2 = _mm256_add_epi32(a2, _mm256_sad_epu8(C, avx2_rows32(r2, rs, y, bw)));
        a3 = _mm256_add_epi32(a3, _mm256_sad_epu8(C, avx2_rows32(r3, rs, y, bw)));
    }
    out[0] = avx2_hsum(a0);
    out[1] = avx2_hsum(a1);
    out[2] = avx2_hsum(a2);
    out[3] = avx2_hsum(a3);
}

T_AVX2 void x4_16x16_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4])
{
    avx2_x4(cur, cs, ref, rs, off, out, 16);
}

T_AVX2 void x4_32x32_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4])
{
    avx2_x4(cur, cs, ref, rs, off, out, 32);
}

T_AVX2 INLINE __m256i avx2_bcast_row(const uint8_t *p, const int bw)
{
    if (bw == 8)
        return _mm256_set1_epi64x(load64(p));
    if (bw == 16)
        return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
    return avx2_loadu(p);
}

/* As sse2_cols, with 32-byte loads: lanes hold candidates c, c+bw, ... */
T_AVX2 INLINE void avx2_cols(const __m256i *C, const uint8_t *ref, ptrdiff_t rs,
                             const int bh, const int dual, __m256i *a0, __m256i *a1)
{
    for (int k = 0; k < GROUP; k++) {
        a0[k] = _mm256_sad_epu8(avx2_loadu(ref + k), C[0]);
        a1[k] = _mm256_setzero_si256();
    }
    for (int j = 1; j < bh; j++) {
        const uint8_t *r = ref + j * rs;
        for (int k = 0; k < GROUP; k++) {
            const __m256i R = avx2_loadu(r + k);
            a0[k] = _mm256_add_epi32(a0[k], _mm256_sad_epu8(R, C[j]));
            if (dual)
                a1[k] = _mm256_add_epi32(a1[k], _mm256_sad_epu8(R, C[j - 1]));
        }
    }
    if (dual) {
        const uint8_t *r = ref + bh * rs;
        for (int k = 0; k < GROUP; k++)
            a1[k] = _mm256_add_epi32(a1[k], _mm256_sad_epu8(avx2_loadu(r + k), C[bh - 1]));
    }
}

/* Writes the sums of GROUP accumulators whose lanes are bw bytes wide:
 * accumulator k, lane m -> o[k + m * bw]. */
T_AVX2 INLINE void avx2_store_group(const __m256i *a, uint32_t *o, const int bw)
{
    if (bw == 8) {
        const __m256i u = _mm256_or_si256(a[0], _mm256_slli_epi64(a[1], 32));
        const __m256i v = _mm256_or_si256(a[2], _mm256_slli_epi64(a[3], 32));
        const __m256i lo = _mm256_unpacklo_epi64(u, v), hi = _mm256_unpackhi_epi64(u, v);
        _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(lo));
        _mm_storeu_si128((__m128i *)(o + 8), _mm256_castsi256_si128(hi));
        _mm_storeu_si128((__m128i *)(o + 16), _mm256_extracti128_si256(lo, 1));
        _mm_storeu_si128((__m128i *)(o + 24), _mm256_extracti128_si256(hi, 1));
        return;
    }
    const __m256i s = _mm256_add_epi64(_mm256_unpacklo_epi64(a[0], a[2]),
                                       _mm256_unpackhi_epi64(a[0], a[2]));
    const __m256i t = _mm256_add_epi64(_mm256_unpacklo_epi64(a[1], a[3]),
                                       _mm256_unpackhi_epi64(a[1], a[3]));
    const __m256i u = _mm256_or_si256(s, _mm256_slli_epi64(t, 32));
    if (bw == 16) {
        _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(u));
        _mm_storeu_si128((__m128i *)(o + 16), _mm256_extracti128_si256(u, 1));
    } else {
        _mm_storeu_si128((__m128i *)o, _mm_add_epi32(_mm256_castsi256_si128(u),
                                                     _mm256_extracti128_si256(u, 1)));
    }
}

/* Scores candidate rows [y, ny) with 32-byte lanes groups; the columns that
 * do not fill a chunk go to the SSE2 kernel. */
T_AVX2 INLINE void avx2_grid_rows(const __m256i *C, const uint8_t *cur, ptrdiff_t cs,
                                  const uint8_t *ref, ptrdiff_t rs, int nx, int y, int ny,
                                  uint32_t *out, ptrdiff_t os, const int bw, SadGridFn narrow)
{
    const int lanes = 32 / bw;
    const int span = lanes > 1 ? 32 : GROUP;
    const int done = nx / span * span;
    for (int y0 = y; y0 < ny && done; y0 += 2) {
        const int dual = y0 + 1 < ny;
        const uint8_t *r = ref + y0 * rs;
        uint32_t *o0 = out + y0 * os, *o1 = o0 + os;
        __m256i a0[GROUP], a1[GROUP];
        for (int base = 0; base < done; base += span)
            for (int c = base; c < base + span / lanes; c += GROUP) {
                if (dual) {
                    avx2_cols(C, r + c, rs, bw, 1, a0, a1);
                    avx2_store_group(a0, o0 + c, bw);
                    avx2_store_group(a1, o1 + c, bw);
                } else {
                    avx2_cols(C, r + c, rs, bw, 0, a0, a1);
                    avx2_store_group(a0, o0 + c, bw);
                }
            }
    }
    if (done < nx && y < ny)
        narrow(cur, cs, ref + y * rs + done, rs, nx - done, ny - y, out + y * os + done, os);
}

T_AVX2 INLINE void avx2_grid(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                             ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os,
                             const int bw, SadGridFn narrow)
{
    __m256i C[32];
    for (int j = 0; j < bw; j++)
        C[j] = avx2_bcast_row(cur + j * cs, bw);
    avx2_grid_rows(C, cur, cs, ref, rs, nx, 0, ny, out, os, bw, narrow);
}

T_AVX2 void grid_8x8_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx2_grid(cur, cs, ref, rs, nx, ny, out, os, 8, grid_8x8_sse2);
}

T_AVX2 void grid_16x16_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx2_grid(cur, cs, ref, rs, nx, ny, out, os, 16, grid_16x16_sse2);
}

T_AVX2 void grid_32x32_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx2_grid(cur, cs, ref, rs, nx, ny, out, os, 32, grid_32x32_sse2);
}

/* --------------------------------------------------------------- AVX-512 */

/* Each zmm holds two 32-byte reference loads, rows j and j+2, so one pass
 * scores 4 candidate rows: against cur row j they give candidate rows y and
 * y+2, against cur row j-1 candidate rows y+1 and y+3. Half the vpsadbw,
 * add and accumulator instructions of the AVX2 kernel for the same work. */
T_AVX512 INLINE __m512i avx512_load_2rows(const uint8_t *p, ptrdiff_t rs2)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(avx2_loadu(p)),
                              avx2_loadu(p + rs2), 1);
}

T_AVX512 INLINE void avx512_cols(const __m512i *C, const uint8_t *ref, ptrdiff_t rs,
                                 const int bh, __m512i *a0, __m512i *a1)
{
    for (int k = 0; k < GROUP; k++) {
        a0[k] = _mm512_sad_epu8(avx512_load_2rows(ref + k, 2 * rs), C[0]);
        a1[k] = _mm512_setzero_si512();
    }
    for (int j = 1; j < bh; j++) {
        const uint8_t *r = ref + j * rs;
        for (int k = 0; k < GROUP; k++) {
            const __m512i R = avx512_load_2rows(r + k, 2 * rs);
            a0[k] = _mm512_add_epi32(a0[k], _mm512_sad_epu8(R, C[j]));
            a1[k] = _mm512_add_epi32(a1[k], _mm512_sad_epu8(R, C[j - 1]));
        }
    }
    const uint8_t *r = ref + bh * rs;
    for (int k = 0; k < GROUP; k++)
        a1[k] = _mm512_add_epi32(a1[k], _mm512_sad_epu8(avx512_load_2rows(r + k, 2 * rs),
                                                        C[bh - 1]));
}

T_AVX512 INLINE void avx512_store_group(const __m512i *a, uint32_t *o_lo, uint32_t *o_hi,
                                        const int bw)
{
    __m256i lo[GROUP], hi[GROUP];
    for (int k = 0; k < GROUP; k++) {
        lo[k] = _mm512_castsi512_si256(a[k]);
        hi[k] = _mm512_extracti64x4_epi64(a[k], 1);
    }
    avx2_store_group(lo, o_lo, bw);
    avx2_store_group(hi, o_hi, bw);
}

T_AVX512 INLINE void avx512_grid(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                 ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os,
                                 const int bw, SadGridFn narrow)
{
    const int lanes = 32 / bw;
    const int span = lanes > 1 ? 32 : GROUP;
    const int done = nx / span * span;
    __m512i C[32];
    __m256i C2[32];
    for (int j = 0; j < bw; j++) {
        C2[j] = avx2_bcast_row(cur + j * cs, bw);
        C[j] = _mm512_broadcast_i64x4(C2[j]);
    }
    int y = 0;
    for (; y + 4 <= ny && done; y += 4) {
        const uint8_t *r = ref + y * rs;
        uint32_t *o = out + y * os;
        __m512i a0[GROUP], a1[GROUP];
        for (int base = 0; base < done; base += span)
            for (int c = base; c < base + span / lanes; c += GROUP) {
                avx512_cols(C, r + c, rs, bw, a0, a1);
                avx512_store_group(a0, o + c, o + 2 * os + c, bw);
                avx512_store_group(a1, o + os + c, o + 3 * os + c, bw);
            }
    }
    /* Rows left over (< 4) through the AVX2 path; columns left over for
     * rows [0, y) through the narrower kernel. */
    avx2_grid_rows(C2, cur, cs, ref, rs, nx, y, ny, out, os, bw, narrow);
    if (done < nx && y > 0)
        narrow(cur, cs, ref + done, rs, nx - done, y, out + done, os);
}

T_AVX512 void grid_8x8_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                              ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx512_grid(cur, cs, ref, rs, nx, ny, out, os, 8, grid_8x8_sse2);
}

T_AVX512 void grid_16x16_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx512_grid(cur, cs, ref, rs, nx, ny, out, os, 16, grid_16x16_sse2);
}

T_AVX512 void grid_32x32_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx512_grid(cur, cs, ref, rs, nx, ny, out, os, 32, grid_32x32_sse2);
}

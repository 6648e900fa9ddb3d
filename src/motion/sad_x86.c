/* SSE2, AVX2 and AVX-512 SADs, compiled with per-function target attributes
 * so that the build needs no -m flags; sad_dsp_init() picks them at run time.
 *
 * The grid kernels (full search) share one layout, chosen for vpsadbw:
 * - The current block's rows are broadcast once into vector registers, one
 *   copy per lane of `block` bytes (8x8: 8-byte lanes, 16x16: 16, 32x32: 32).
 * - One unaligned load of a reference row at column c then holds the rows of
 *   candidates c, c + block, c + 2*block ... in its lanes, so one vpsadbw
 *   scores as many candidates as there are lanes (all bytes do useful work).
 * - Each reference row loaded serves two candidate rows: ref row j matches
 *   cur row j for candidate row y and cur row j-1 for candidate row y+1
 *   (the AVX-512 kernel pairs two such loads in one zmm: 4 candidate rows).
 * - 4 adjacent columns are accumulated at once for instruction-level
 *   parallelism; the sums leave the registers only once per candidate.
 * Columns that do not fill a whole group of lanes fall through to the next
 * narrower kernel, so nothing reads past the last candidate's bytes.
 *
 * Measured before adding (DESIGN.md): partial-distortion early exits do not
 * pay on real video, so there are none. */
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

/* ------------------------------------------------------------------ SSE2 */

T_SSE2 INLINE __m128i sse2_loadu(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)p);
}

T_SSE2 INLINE __m128i sse2_load_2x8(const uint8_t *p0, const uint8_t *p1)
{
    return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)p0),
                              _mm_loadl_epi64((const __m128i *)p1));
}

T_SSE2 INLINE uint32_t sse2_hsum(__m128i v)
{
    return (uint32_t)_mm_cvtsi128_si32(v) + (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(v, 8));
}

T_SSE2 static uint32_t sad_8x8_sse2(const uint8_t *a, ptrdiff_t as,
                                    const uint8_t *b, ptrdiff_t bs)
{
    __m128i acc = _mm_setzero_si128();
    for (int y = 0; y < 8; y += 2)
        acc = _mm_add_epi32(acc, _mm_sad_epu8(sse2_load_2x8(a + y * as, a + (y + 1) * as),
                                              sse2_load_2x8(b + y * bs, b + (y + 1) * bs)));
    return sse2_hsum(acc);
}

T_SSE2 INLINE uint32_t sse2_sad_wide(const uint8_t *a, ptrdiff_t as,
                                     const uint8_t *b, ptrdiff_t bs, const int bw)
{
    __m128i acc0 = _mm_setzero_si128(), acc1 = _mm_setzero_si128();
    for (int y = 0; y < bw; y++, a += as, b += bs) {
        acc0 = _mm_add_epi32(acc0, _mm_sad_epu8(sse2_loadu(a), sse2_loadu(b)));
        if (bw == 32)
            acc1 = _mm_add_epi32(acc1, _mm_sad_epu8(sse2_loadu(a + 16), sse2_loadu(b + 16)));
    }
    return sse2_hsum(_mm_add_epi32(acc0, acc1));
}

/* A row of any width without reading past it: 16 bytes at a time, then
 * 8 to 15 bytes as two 8-byte loads that overlap (the overlap's second
 * copy, at the start of the high half, zeroed in both rows, so it counts
 * once), then bytes one by one. */
T_SSE2 static uint32_t rect_sse2(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs,
                                 int w, int h)
{
    if (w <= 0 || h <= 0)
        return 0;
    const int w16 = w & ~15, r = w - w16, tail = r >= 8 ? r : 0;
    /* lanes 8 .. 8 + (16 - tail) - 1 hold the overlap: zero them */
    const __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i keep = _mm_or_si128(_mm_cmplt_epi8(idx, _mm_set1_epi8(8)),
                                      _mm_cmpgt_epi8(idx, _mm_set1_epi8((char)(23 - tail))));
    __m128i acc = _mm_setzero_si128();
    uint32_t rest = 0;
    for (int y = 0; y < h; y++, a += as, b += bs) {
        int x = 0;
        for (; x < w16; x += 16)
            acc = _mm_add_epi32(acc, _mm_sad_epu8(sse2_loadu(a + x), sse2_loadu(b + x)));
        if (tail) {
            const __m128i va = _mm_and_si128(sse2_load_2x8(a + x, a + x + tail - 8), keep);
            const __m128i vb = _mm_and_si128(sse2_load_2x8(b + x, b + x + tail - 8), keep);
            acc = _mm_add_epi32(acc, _mm_sad_epu8(va, vb));
            x += tail;
        }
        for (; x < w; x++)
            rest += (uint32_t)(a[x] > b[x] ? a[x] - b[x] : b[x] - a[x]);
    }
    return sse2_hsum(acc) + rest;
}

/* 16 means from 32 bytes of each row: the even and odd bytes as 16-bit
 * lanes, summed with the rounding term, shifted and packed. */
T_SSE2 static void down2_sse2(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n)
{
    const __m128i even = _mm_set1_epi16(0xff), two = _mm_set1_epi16(2);
    int x = 0;
    for (; x + 16 <= n; x += 16) {
        __m128i s[2];
        for (int k = 0; k < 2; k++) {
            const __m128i a = sse2_loadu(r0 + 2 * x + 16 * k), b = sse2_loadu(r1 + 2 * x + 16 * k);
            const __m128i sa = _mm_add_epi16(_mm_and_si128(a, even), _mm_srli_epi16(a, 8));
            const __m128i sb = _mm_add_epi16(_mm_and_si128(b, even), _mm_srli_epi16(b, 8));
            s[k] = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(sa, sb), two), 2);
        }
        _mm_storeu_si128((__m128i *)(dst + x), _mm_packus_epi16(s[0], s[1]));
    }
    for (; x < n; x++)
        dst[x] = (uint8_t)((r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) >> 2);
}

T_SSE2 static uint32_t sad_16x16_sse2(const uint8_t *a, ptrdiff_t as,
                                      const uint8_t *b, ptrdiff_t bs)
{
    return sse2_sad_wide(a, as, b, bs, 16);
}

T_SSE2 static uint32_t sad_32x32_sse2(const uint8_t *a, ptrdiff_t as,
                                      const uint8_t *b, ptrdiff_t bs)
{
    return sse2_sad_wide(a, as, b, bs, 32);
}

/* One block against four candidates: each row of the block is loaded once
 * for the four. bw 8 takes two rows per register. */
T_SSE2 INLINE void sse2_x4(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                           const ptrdiff_t off[4], uint32_t out[4], const int bw)
{
    const uint8_t *r0 = ref + off[0], *r1 = ref + off[1], *r2 = ref + off[2], *r3 = ref + off[3];
    __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
    if (bw == 8) {
        for (int y = 0; y < 8; y += 2) {
            const ptrdiff_t o = y * rs;
            const __m128i C = sse2_load_2x8(cur + y * cs, cur + (y + 1) * cs);
            a0 = _mm_add_epi32(a0, _mm_sad_epu8(C, sse2_load_2x8(r0 + o, r0 + o + rs)));
            a1 = _mm_add_epi32(a1, _mm_sad_epu8(C, sse2_load_2x8(r1 + o, r1 + o + rs)));
            a2 = _mm_add_epi32(a2, _mm_sad_epu8(C, sse2_load_2x8(r2 + o, r2 + o + rs)));
            a3 = _mm_add_epi32(a3, _mm_sad_epu8(C, sse2_load_2x8(r3 + o, r3 + o + rs)));
        }
    } else {
        for (int y = 0; y < bw; y++)
            for (int v = 0; v < bw; v += 16) {
                const ptrdiff_t o = y * rs + v;
                const __m128i C = sse2_loadu(cur + y * cs + v);
                a0 = _mm_add_epi32(a0, _mm_sad_epu8(C, sse2_loadu(r0 + o)));
                a1 = _mm_add_epi32(a1, _mm_sad_epu8(C, sse2_loadu(r1 + o)));
                a2 = _mm_add_epi32(a2, _mm_sad_epu8(C, sse2_loadu(r2 + o)));
                a3 = _mm_add_epi32(a3, _mm_sad_epu8(C, sse2_loadu(r3 + o)));
            }
    }
    out[0] = sse2_hsum(a0);
    out[1] = sse2_hsum(a1);
    out[2] = sse2_hsum(a2);
    out[3] = sse2_hsum(a3);
}

T_SSE2 static void x4_8x8_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                               ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4])
{
    sse2_x4(cur, cs, ref, rs, off, out, 8);
}

T_SSE2 static void x4_16x16_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                 ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4])
{
    sse2_x4(cur, cs, ref, rs, off, out, 16);
}

T_SSE2 static void x4_32x32_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                 ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4])
{
    sse2_x4(cur, cs, ref, rs, off, out, 32);
}

/* Scores K adjacent columns starting at ref for candidate row 0 (a0) and,
 * when dual, candidate row 1 (a1), sharing each reference load. vpr is the
 * number of 16-byte vectors per block row (2 for 32x32). */
T_SSE2 INLINE void sse2_cols(const __m128i *C, const uint8_t *ref, ptrdiff_t rs,
                             const int bh, const int vpr, const int dual, const int K,
                             __m128i *a0, __m128i *a1)
{
    for (int k = 0; k < K; k++) {
        a0[k] = _mm_setzero_si128();
        a1[k] = _mm_setzero_si128();
    }
    for (int v = 0; v < vpr; v++)
        for (int k = 0; k < K; k++)
            a0[k] = _mm_add_epi32(a0[k], _mm_sad_epu8(sse2_loadu(ref + 16 * v + k), C[v]));
    for (int j = 1; j < bh; j++) {
        const uint8_t *r = ref + j * rs;
        for (int v = 0; v < vpr; v++)
            for (int k = 0; k < K; k++) {
                const __m128i R = sse2_loadu(r + 16 * v + k);
                a0[k] = _mm_add_epi32(a0[k], _mm_sad_epu8(R, C[j * vpr + v]));
                if (dual)
                    a1[k] = _mm_add_epi32(a1[k], _mm_sad_epu8(R, C[(j - 1) * vpr + v]));
            }
    }
    if (dual) {
        const uint8_t *r = ref + bh * rs;
        for (int v = 0; v < vpr; v++)
            for (int k = 0; k < K; k++)
                a1[k] = _mm_add_epi32(a1[k], _mm_sad_epu8(sse2_loadu(r + 16 * v + k),
                                                          C[(bh - 1) * vpr + v]));
    }
}

/* Writes the sums of GROUP accumulators: candidates o[k + lane * bw]. */
T_SSE2 INLINE void sse2_store_group(const __m128i *a, uint32_t *o, const int bw)
{
    if (bw == 8) {
        const __m128i u = _mm_or_si128(a[0], _mm_slli_epi64(a[1], 32));
        const __m128i v = _mm_or_si128(a[2], _mm_slli_epi64(a[3], 32));
        _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi64(u, v));
        _mm_storeu_si128((__m128i *)(o + 8), _mm_unpackhi_epi64(u, v));
    } else {
        const __m128i s = _mm_add_epi64(_mm_unpacklo_epi64(a[0], a[2]), _mm_unpackhi_epi64(a[0], a[2]));
        const __m128i t = _mm_add_epi64(_mm_unpacklo_epi64(a[1], a[3]), _mm_unpackhi_epi64(a[1], a[3]));
        _mm_storeu_si128((__m128i *)o, _mm_or_si128(s, _mm_slli_epi64(t, 32)));
    }
}

T_SSE2 INLINE void sse2_grid(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                             ptrdiff_t rs, int nx, int ny, uint32_t *out,
                             ptrdiff_t os, const int bw)
{
    const int vpr = bw > 16 ? bw / 16 : 1;
    const int lanes = bw < 16 ? 16 / bw : 1;
    const int span = lanes > 1 ? 16 : GROUP;   /* candidates per chunk */
    const int done = nx / span * span;
    __m128i C[64];
    for (int j = 0; j < bw; j++)
        for (int v = 0; v < vpr; v++)
            C[j * vpr + v] = bw == 8 ? _mm_set1_epi64x(load64(cur + j * cs))
                                     : sse2_loadu(cur + j * cs + 16 * v);

    for (int y = 0; y < ny; y += 2) {
        const int dual = y + 1 < ny;
        const uint8_t *r = ref + y * rs;
        uint32_t *o0 = out + y * os, *o1 = o0 + os;
        __m128i a0[GROUP], a1[GROUP];
        for (int base = 0; base < done; base += span)
            for (int c = base; c < base + span / lanes; c += GROUP) {
                if (dual) {
                    sse2_cols(C, r + c, rs, bw, vpr, 1, GROUP, a0, a1);
                    sse2_store_group(a0, o0 + c, bw);
                    sse2_store_group(a1, o1 + c, bw);
                } else {
                    sse2_cols(C, r + c, rs, bw, vpr, 0, GROUP, a0, a1);
                    sse2_store_group(a0, o0 + c, bw);
                }
            }
        /* The last columns, one candidate at a time. */
        for (int c = done; c < nx; c++) {
            if (bw == 8) {
                o0[c] = sad_8x8_sse2(cur, cs, r + c, rs);
                if (dual)
                    o1[c] = sad_8x8_sse2(cur, cs, r + rs + c, rs);
            } else {
                sse2_cols(C, r + c, rs, bw, vpr, dual, 1, a0, a1);
                o0[c] = sse2_hsum(a0[0]);
                if (dual)
                    o1[c] = sse2_hsum(a1[0]);
            }
        }
    }
}

T_SSE2 static void grid_8x8_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                 ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    sse2_grid(cur, cs, ref, rs, nx, ny, out, os, 8);
}

T_SSE2 static void grid_16x16_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                   ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    sse2_grid(cur, cs, ref, rs, nx, ny, out, os, 16);
}

T_SSE2 static void grid_32x32_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                   ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    sse2_grid(cur, cs, ref, rs, nx, ny, out, os, 32);
}

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
T_AVX2 static uint32_t sad_16x16_avx2(const uint8_t *a, ptrdiff_t as,
                                      const uint8_t *b, ptrdiff_t bs)
{
    __m256i acc = _mm256_setzero_si256();
    for (int y = 0; y < 16; y += 2)
        acc = _mm256_add_epi32(acc, _mm256_sad_epu8(avx2_load_2x16(a + y * as, a + (y + 1) * as),
                                                    avx2_load_2x16(b + y * bs, b + (y + 1) * bs)));
    return avx2_hsum(acc);
}

T_AVX2 static uint32_t sad_32x32_avx2(const uint8_t *a, ptrdiff_t as,
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

T_AVX2 static void x4_16x16_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                 ptrdiff_t rs, const ptrdiff_t off[4], uint32_t out[4])
{
    avx2_x4(cur, cs, ref, rs, off, out, 16);
}

T_AVX2 static void x4_32x32_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
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

T_AVX2 static void grid_8x8_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                 ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx2_grid(cur, cs, ref, rs, nx, ny, out, os, 8, grid_8x8_sse2);
}

T_AVX2 static void grid_16x16_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                   ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx2_grid(cur, cs, ref, rs, nx, ny, out, os, 16, grid_16x16_sse2);
}

T_AVX2 static void grid_32x32_avx2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
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

T_AVX512 static void grid_8x8_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                     ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx512_grid(cur, cs, ref, rs, nx, ny, out, os, 8, grid_8x8_sse2);
}

T_AVX512 static void grid_16x16_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                       ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx512_grid(cur, cs, ref, rs, nx, ny, out, os, 16, grid_16x16_sse2);
}

T_AVX512 static void grid_32x32_avx512(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                                       ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    avx512_grid(cur, cs, ref, rs, nx, ny, out, os, 32, grid_32x32_sse2);
}

static SAD_DEFINE_PICK_BEST(pick_best_avx2, __attribute__((target("avx2"))))
static SAD_DEFINE_PICK_BEST(pick_best_avx512, __attribute__((target("avx512f,avx512bw"))))

/* ------------------------------------------------------------- dispatch */

void sad_dsp_init_x86(SadDSP *d, int level)
{
    if (level >= CPU_LEVEL_SSE2) {
        d->sad[0] = sad_8x8_sse2;
        d->sad[1] = sad_16x16_sse2;
        d->sad[2] = sad_32x32_sse2;
        d->x4[0] = x4_8x8_sse2;
        d->x4[1] = x4_16x16_sse2;
        d->x4[2] = x4_32x32_sse2;
        d->grid[0] = grid_8x8_sse2;
        d->grid[1] = grid_16x16_sse2;
        d->grid[2] = grid_32x32_sse2;
        d->rect = rect_sse2;
        d->down2 = down2_sse2;
        d->level = CPU_LEVEL_SSE2;
    }
    if (level >= CPU_LEVEL_AVX2) {
        d->sad[1] = sad_16x16_avx2;
        d->sad[2] = sad_32x32_avx2;
        d->x4[1] = x4_16x16_avx2;
        d->x4[2] = x4_32x32_avx2;
        d->grid[0] = grid_8x8_avx2;
        d->grid[1] = grid_16x16_avx2;
        d->grid[2] = grid_32x32_avx2;
        d->pick = pick_best_avx2;
        d->level = CPU_LEVEL_AVX2;
    }
    if (level >= CPU_LEVEL_AVX512) {
        d->grid[0] = grid_8x8_avx512;
        d->grid[1] = grid_16x16_avx512;
        d->grid[2] = grid_32x32_avx512;
        d->pick = pick_best_avx512;
        d->level = CPU_LEVEL_AVX512;
    }
}

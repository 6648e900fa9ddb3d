/* SSE2, AVX2 and AVX-512 SADs (this file: SSE2 and the dispatch,
 * sad_dsp_init_x86(); sad_avx.c: AVX2 and AVX-512; sad_x86.h: what they
 * share), compiled with per-function target attributes so that the build
 * needs no -m flags; sad_dsp_init() picks them at run time.
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
#include "src/motion/sad_x86.h"

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

T_SSE2 void grid_8x8_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    sse2_grid(cur, cs, ref, rs, nx, ny, out, os, 8);
}

T_SSE2 void grid_16x16_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    sse2_grid(cur, cs, ref, rs, nx, ny, out, os, 16);
}

T_SSE2 void grid_32x32_sse2(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                            ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    sse2_grid(cur, cs, ref, rs, nx, ny, out, os, 32);
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

/* The AVX2 building blocks that both x86 files of the filter DSP table
 * use (mc_dsp_x86.c: AVX2; mc_dsp_avx512.c: AVX-512, whose 8-wide
 * bicubic path is the AVX2 one below): target attributes, loads, tap
 * pairs, the kinds of a sub-pel sample, the one-pass bicubic sample, the
 * bidirectional average and the 8-wide bicubic prediction. The layout and
 * the exactness arguments are in mc_dsp_x86.c's first comment. */
#ifndef OMCTI_MC_DSP_X86_H
#define OMCTI_MC_DSP_X86_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "filters/mc_dsp.h"

#define INLINE static inline __attribute__((always_inline))
#define T_AVX2 __attribute__((target("avx2")))
#define T_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))

/* ------------------------------------------------------------- helpers */

T_AVX2 INLINE __m256i load2x128(const uint8_t *lo, const uint8_t *hi)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                   _mm_loadu_si128((const __m128i *)hi), 1);
}

/* (c_a, c_b) as repeated signed byte pairs for vpmaddubsw. */
T_AVX2 INLINE __m256i tap_pair8(int a, int b)
{
    return _mm256_set1_epi16((int16_t)((a & 0xff) | ((b & 0xff) << 8)));
}

/* (c_a, c_b) as repeated int16 pairs for vpmaddwd. */
T_AVX2 INLINE __m256i tap_pair16(int a, int b)
{
    return _mm256_set1_epi32((int32_t)((uint32_t)(a & 0xffff) | ((uint32_t)b << 16)));
}

/* Which passes a sub-pel sample needs: a pass whose fraction is 0 is a
 * copy (bicubic: cubic_one_pass(); bilinear: 16 q, or h0 exactly). At the
 * phases of a 2x conversion both sides of a vector have the same kind. */
enum { SUBPEL_INTEGER, SUBPEL_H, SUBPEL_V, SUBPEL_BOTH };

T_AVX2 INLINE int subpel_kind(int fx, int fy)
{
    return !fx ? (!fy ? SUBPEL_INTEGER : SUBPEL_V) : !fy ? SUBPEL_H : SUBPEL_BOTH;
}

/* The loop LOOP(KA, KB) with both sides' kinds known to the compiler where
 * they are the same, with the kinds tested per row else. */
#define SUBPEL_DISPATCH(LOOP, ka, kb)                                                         \
    do {                                                                                      \
        if ((ka) != (kb)) {                                                                   \
            LOOP((ka), (kb));                                                                 \
        } else if ((ka) == SUBPEL_INTEGER) {                                                  \
            LOOP(SUBPEL_INTEGER, SUBPEL_INTEGER);                                             \
        } else if ((ka) == SUBPEL_H) {                                                        \
            LOOP(SUBPEL_H, SUBPEL_H);                                                         \
        } else if ((ka) == SUBPEL_V) {                                                        \
            LOOP(SUBPEL_V, SUBPEL_V);                                                         \
        } else {                                                                              \
            LOOP(SUBPEL_BOTH, SUBPEL_BOTH);                                                   \
        }                                                                                     \
    } while (0)

/* ------------------------------------------------------ bicubic, AVX2 */

/* A bicubic pass with fraction 0 has the taps (0, 64, 0, 0): with fy == 0
 * the sample is (64 t + 128) >> 8 = (t + 2) >> 2 of the horizontal sum t,
 * and with fx == 0 it is (s + 2) >> 2 of the vertical sum s over the bytes
 * themselves (one vpmaddubsw per pair of rows, no 32-bit pass), clamped to
 * 0..4080 as the full filter is: clamp((t + 2) >> 2, 0, 4080). */
T_AVX2 INLINE __m256i cubic_one_pass(__m256i t)
{
    const __m256i v = _mm256_srai_epi16(_mm256_add_epi16(t, _mm256_set1_epi16(2)), 2);
    return _mm256_min_epi16(_mm256_max_epi16(v, _mm256_setzero_si256()), _mm256_set1_epi16(4080));
}

/* The bicubic vertical pass: rows (y, y+1) interleaved in u0 (low and high
 * halves of the lanes) times the taps (c0, c1) in va, rows (y+2, y+3) in u2
 * times (c2, c3) in vb, in 32 bits, + 128 >> 8, clamped to 0..4080. */
T_AVX2 INLINE __m256i cubic_v_pass(__m256i u0l, __m256i u0h, __m256i u2l, __m256i u2h,
                                   __m256i va, __m256i vb)
{
    const __m256i r = _mm256_set1_epi32(128);
    __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(u0l, va), _mm256_madd_epi16(u2l, vb));
    __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(u0h, va), _mm256_madd_epi16(u2h, vb));
    lo = _mm256_srai_epi32(_mm256_add_epi32(lo, r), 8);
    hi = _mm256_srai_epi32(_mm256_add_epi32(hi, r), 8);
    const __m256i v = _mm256_packs_epi32(lo, hi);
    return _mm256_min_epi16(_mm256_max_epi16(v, _mm256_setzero_si256()), _mm256_set1_epi16(4080));
}

/* ((256-wt)*a + wt*b + 128) >> 8 on 16 samples. */
T_AVX2 INLINE __m256i avg16(__m256i a, __m256i b, __m256i w)
{
    const __m256i r = _mm256_set1_epi32(128);
    const __m256i lo = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), w), r), 8);
    const __m256i hi = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), w), r), 8);
    return _mm256_packus_epi32(lo, hi);
}

/* 8 columns, two rows per ymm: T_k = (t_k | t_{k+1}) holds the horizontal
 * passes of tap rows k and k+1 (tap row k = source row k - 1) in its two
 * lanes; the odd T_{k+1} is taken from T_k and T_{k+2} (vperm2i128), so one
 * horizontal pass per two output rows, and every lane does useful work. */
typedef struct Cubic8State {
    __m256i ca, cb, va, vb;
    __m256i u0l, u0h;     /* T_y, T_{y+1} interleaved                 */
    __m256i t2;           /* T_{y+2}                                  */
    const uint8_t *q;     /* source row 0, column 0                   */
    ptrdiff_t qs;
    int h, y, kind;       /* kind: subpel_kind()                      */
} Cubic8State;

/* Source row r, clamped to the last row the arithmetic may read (h + 1):
 * the lanes that would need more are not stored. */
T_AVX2 INLINE const uint8_t *c8_row(const Cubic8State *s, int r)
{
    return s->q + (r > s->h + 1 ? s->h + 1 : r) * s->qs;
}

T_AVX2 INLINE __m256i cubic_h8x2(const uint8_t *r0, const uint8_t *r1, __m256i ca, __m256i cb)
{
    const __m256i sha = _mm256_setr_epi8(0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8,
                                         0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8);
    const __m256i shb = _mm256_setr_epi8(2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10,
                                         2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10);
    const __m256i v = load2x128(r0 - 1, r1 - 1);
    return _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_shuffle_epi8(v, sha), ca),
                            _mm256_maddubs_epi16(_mm256_shuffle_epi8(v, shb), cb));
}

T_AVX2 INLINE void cubic8_init(Cubic8State *s, const uint8_t *q, ptrdiff_t qs, int fx, int fy,
                               int h)
{
    s->q = q;
    s->qs = qs;
    s->h = h;
    s->y = 0;
    s->kind = subpel_kind(fx, fy);
    const int8_t *cx = mc_cubic_taps[fx], *cy = mc_cubic_taps[fy];
    if (s->kind != SUBPEL_BOTH) {
        s->va = s->vb = s->u0l = s->u0h = s->t2 = _mm256_setzero_si256();
        s->ca = tap_pair8(cx[0], cx[1]);
        s->cb = tap_pair8(cx[2], cx[3]);
        if (s->kind == SUBPEL_V) {
            s->va = tap_pair8(cy[0], cy[1]);
            s->vb = tap_pair8(cy[2], cy[3]);
            /* u0l: rows (y-1, y) | (y, y+1) byte-interleaved; t2 (low
             * half): row y+1 */
            const __m128i r0 = _mm_loadl_epi64((const __m128i *)c8_row(s, -1));
            const __m128i r1 = _mm_loadl_epi64((const __m128i *)c8_row(s, 0));
            const __m128i r2 = _mm_loadl_epi64((const __m128i *)c8_row(s, 1));
            s->u0l = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(r0, r1)),
                                             _mm_unpacklo_epi8(r1, r2), 1);
            s->t2 = _mm256_castsi128_si256(r2);
        }
        return;
    }
    s->ca = tap_pair8(cx[0], cx[1]);
    s->cb = tap_pair8(cx[2], cx[3]);
    s->va = tap_pair16(cy[0], cy[1]);
    s->vb = tap_pair16(cy[2], cy[3]);
    const __m256i t0 = cubic_h8x2(c8_row(s, -1), c8_row(s, 0), s->ca, s->cb);
    const __m256i t2 = cubic_h8x2(c8_row(s, 1), c8_row(s, 2), s->ca, s->cb);
    const __m256i t1 = _mm256_permute2x128_si256(t0, t2, 0x21);
    s->u0l = _mm256_unpacklo_epi16(t0, t1);
    s->u0h = _mm256_unpackhi_epi16(t0, t1);
    s->t2 = t2;
}

/* Output rows y (lane 0) and y + 1 (lane 1), 0..4080. */
T_AVX2 INLINE __m256i cubic8_rows(Cubic8State *s, const int kind)
{
    const int y = s->y;
    s->y += 2;
    if (kind == SUBPEL_INTEGER) {
        const __m128i a = _mm_loadl_epi64((const __m128i *)c8_row(s, y));
        const __m128i b = _mm_loadl_epi64((const __m128i *)c8_row(s, y + 1));
        return _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi64(a, b)), 4);
    }
    if (kind == SUBPEL_H)
        return cubic_one_pass(cubic_h8x2(c8_row(s, y), c8_row(s, y + 1), s->ca, s->cb));
    if (kind == SUBPEL_V) {
        /* rows (y+1, y+2) | (y+2, y+3): the second pairs of these rows,
         * the first of the next two */
        const __m128i r1 = _mm256_castsi256_si128(s->t2);
        const __m128i r2 = _mm_loadl_epi64((const __m128i *)c8_row(s, y + 2));
        const __m128i r3 = _mm_loadl_epi64((const __m128i *)c8_row(s, y + 3));
        const __m256i u2 = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_unpacklo_epi8(r1, r2)), _mm_unpacklo_epi8(r2, r3), 1);
        const __m256i t = _mm256_add_epi16(_mm256_maddubs_epi16(s->u0l, s->va),
                                           _mm256_maddubs_epi16(u2, s->vb));
        s->u0l = u2;
        s->t2 = _mm256_castsi128_si256(r3);
        return cubic_one_pass(t);
    }
    const __m256i t4 = cubic_h8x2(c8_row(s, y + 3), c8_row(s, y + 4), s->ca, s->cb);
    const __m256i t3 = _mm256_permute2x128_si256(s->t2, t4, 0x21);
    const __m256i u2l = _mm256_unpacklo_epi16(s->t2, t3);
    const __m256i u2h = _mm256_unpackhi_epi16(s->t2, t3);
    const __m256i v = cubic_v_pass(s->u0l, s->u0h, u2l, u2h, s->va, s->vb);
    s->u0l = u2l;
    s->u0h = u2h;
    s->t2 = t4;
    return v;
}

T_AVX2 INLINE void pred2_w8_avx2(uint16_t *dst, ptrdiff_t ds, const uint8_t *p, ptrdiff_t ps,
                                 int pfx, int pfy, const uint8_t *n, ptrdiff_t ns, int nfx,
                                 int nfy, int h, __m256i wv)
{
    Cubic8State a, b;
    cubic8_init(&a, p, ps, pfx, pfy, h);
    cubic8_init(&b, n, ns, nfx, nfy, h);
#define W8_LOOP(KA, KB)                                                                       \
    for (int y = 0; y < h; y += 2, dst += 2 * ds) {                                           \
        const __m256i v = avg16(cubic8_rows(&a, KA), cubic8_rows(&b, KB), wv);                \
        _mm_storeu_si128((__m128i *)dst, _mm256_castsi256_si128(v));                          \
        if (y + 1 < h)                                                                        \
            _mm_storeu_si128((__m128i *)(dst + ds), _mm256_extracti128_si256(v, 1));          \
    }
    SUBPEL_DISPATCH(W8_LOOP, a.kind, b.kind);
#undef W8_LOOP
}

/* mc_dsp_avx512.c: the AVX-512 (VBMI) entries of the table. */
void mc_dsp_init_avx512(McDSP *d);

#endif

/* The AVX2 variants of the filter DSP table (mc_dsp.h) and the x86 init
 * (the AVX-512 ones: mc_dsp_avx512.c), compiled with per-function target
 * attributes like src/motion/sad_x86.c; shared blocks in mc_dsp_x86.h.
 *
 * Layout shared by the kernels: 16 samples per ymm in 16-bit lanes.
 * - Horizontal filter passes load 16 bytes for each 128-bit lane (lane 0 at
 *   column c, lane 1 at column c + 8) and pair neighbouring pixels with one
 *   vpshufb, so vpmaddubsw applies two taps (u8 pixel x s8 tap) at once.
 *   Bicubic: taps (c0,c1) on pairs (x-1,x) plus taps (c2,c3) on pairs
 *   (x+1,x+2); every partial sum stays below 2^15, so nothing saturates.
 *   Bilinear: weights (16-fx, fx) on pairs (x, x+1).
 * - The bicubic vertical pass runs down the block with the rows in
 *   registers: each new horizontal row is interleaved once with the previous
 *   one (vpunpck*wd), and vpmaddwd applies (c0,c1) to the pair of rows y and
 *   (c2,c3) to rows y+2, in 32 bits, as the C reference does.
 * - The bilinear vertical pass (16-fy)*h0 + fy*h1 + 8 >> 4 is h0 plus a
 *   rounded high product (vpmulhrsw, bilin_v16(); AVX-512: bilin_v32()).
 * - A pass whose fraction is 0 is a copy and is skipped (subpel_kind(); in
 *   both ISAs):
 *   in the 2x conversions of flower, sintel_fast and football_kick 43-51 %
 *   of the predicted samples have a fraction 0 (at t = 1/2, a vector
 *   component of an even number of whole pixels), and both sides of a
 *   vector have the same kind, which the loops know at compile time
 *   (SUBPEL_DISPATCH).
 * No variant reads before the first sample the arithmetic uses or after the
 * last row; rows are read up to 32 bytes past their last used sample. */
#include <immintrin.h>
#include <string.h>

#include "filters/mc_dsp_x86.h"
#include "src/cpu.h"

/* ------------------------------------------------------ bicubic, AVX2 */

typedef struct CubicState {
    __m256i ca, cb;       /* horizontal (c0,c1), (c2,c3) byte pairs  */
    __m256i va, vb;       /* vertical (c0,c1), (c2,c3) int16 pairs   */
    __m256i u0l, u0h;     /* rows y, y+1 interleaved                 */
    __m256i u1l, u1h;     /* rows y+1, y+2 interleaved               */
    __m256i t2;           /* row y+2 after the horizontal pass       */
    const uint8_t *q;     /* source row y+3 (tap row), column 0      */
    ptrdiff_t qs;
    int kind;             /* subpel_kind()                           */
} CubicState;

T_AVX2 INLINE __m256i cubic_h16(const uint8_t *q, __m256i ca, __m256i cb)
{
    const __m256i sha = _mm256_setr_epi8(0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8,
                                         0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8);
    const __m256i shb = _mm256_setr_epi8(2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10,
                                         2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10);
    const __m256i v = load2x128(q - 1, q + 7);
    return _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_shuffle_epi8(v, sha), ca),
                            _mm256_maddubs_epi16(_mm256_shuffle_epi8(v, shb), cb));
}

/* q: integer sample (0, 0) of the block, column offset already applied. */
T_AVX2 INLINE void cubic_init16(CubicState *s, const uint8_t *q, ptrdiff_t qs, int fx, int fy)
{
    s->kind = subpel_kind(fx, fy);
    s->q = q;
    s->qs = qs;
    const int8_t *cx = mc_cubic_taps[fx], *cy = mc_cubic_taps[fy];
    if (s->kind != SUBPEL_BOTH) {
        s->u0l = s->u0h = s->u1l = s->u1h = s->t2 = _mm256_setzero_si256();
        s->ca = tap_pair8(cx[0], cx[1]);
        s->cb = tap_pair8(cx[2], cx[3]);
        s->va = tap_pair8(cy[0], cy[1]);   /* byte pairs: the vertical pass on bytes */
        s->vb = tap_pair8(cy[2], cy[3]);
        if (s->kind == SUBPEL_V) {
            /* u0l: rows (y-1, y) byte-interleaved, u1l: rows (y, y+1),
             * t2: row y+1; q: row y+2 */
            const __m256i r0 = load2x128(q - qs, q - qs + 8), r1 = load2x128(q, q + 8);
            s->t2 = load2x128(q + qs, q + qs + 8);
            s->u0l = _mm256_unpacklo_epi8(r0, r1);
            s->u1l = _mm256_unpacklo_epi8(r1, s->t2);
            s->q = q + 2 * qs;
        }
        return;
    }
    s->ca = tap_pair8(cx[0], cx[1]);
    s->cb = tap_pair8(cx[2], cx[3]);
    s->va = tap_pair16(cy[0], cy[1]);
    s->vb = tap_pair16(cy[2], cy[3]);
    const __m256i t0 = cubic_h16(q - qs, s->ca, s->cb);
    const __m256i t1 = cubic_h16(q, s->ca, s->cb);
    const __m256i t2 = cubic_h16(q + qs, s->ca, s->cb);
    s->u0l = _mm256_unpacklo_epi16(t0, t1);
    s->u0h = _mm256_unpackhi_epi16(t0, t1);
    s->u1l = _mm256_unpacklo_epi16(t1, t2);
    s->u1h = _mm256_unpackhi_epi16(t1, t2);
    s->t2 = t2;
    s->q = q + 2 * qs;
}

/* The next output row (16 samples, 0..4080, in order). */
T_AVX2 INLINE __m256i cubic_row16(CubicState *s, const int kind)
{
    if (kind == SUBPEL_INTEGER) {
        const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)s->q));
        s->q += s->qs;
        return _mm256_slli_epi16(v, 4);
    }
    if (kind == SUBPEL_H) {
        const __m256i t = cubic_h16(s->q, s->ca, s->cb);
        s->q += s->qs;
        return cubic_one_pass(t);
    }
    if (kind == SUBPEL_V) {
        /* rows (y+1, y+2) interleaved: the second pair of this row, the
         * first of the row after next */
        const __m256i r3 = load2x128(s->q, s->q + 8);
        s->q += s->qs;
        const __m256i u2 = _mm256_unpacklo_epi8(s->t2, r3);
        const __m256i t = _mm256_add_epi16(_mm256_maddubs_epi16(s->u0l, s->va),
                                           _mm256_maddubs_epi16(u2, s->vb));
        s->u0l = s->u1l;
        s->u1l = u2;
        s->t2 = r3;
        return cubic_one_pass(t);
    }
    const __m256i t3 = cubic_h16(s->q, s->ca, s->cb);
    s->q += s->qs;
    const __m256i u2l = _mm256_unpacklo_epi16(s->t2, t3);
    const __m256i u2h = _mm256_unpackhi_epi16(s->t2, t3);
    const __m256i v = cubic_v_pass(s->u0l, s->u0h, u2l, u2h, s->va, s->vb);
    s->u0l = s->u1l;
    s->u0h = s->u1h;
    s->u1l = u2l;
    s->u1h = u2h;
    s->t2 = t3;
    return v;
}

T_AVX2 static void pred2_avx2(uint16_t *dst, ptrdiff_t ds, const uint8_t *p, ptrdiff_t ps,
                              int pfx, int pfy, const uint8_t *n, ptrdiff_t ns, int nfx,
                              int nfy, int w, int h, int wt)
{
    const __m256i wv = tap_pair16(256 - wt, wt);
    if (w == 8) {
        pred2_w8_avx2(dst, ds, p, ps, pfx, pfy, n, ns, nfx, nfy, h, wv);
        return;
    }
    for (int c = 0; c < w; c += 16) {
        CubicState a, b;
        cubic_init16(&a, p + c, ps, pfx, pfy);
        cubic_init16(&b, n + c, ns, nfx, nfy);
        uint16_t *d = dst + c;
        if (w - c >= 16) {
#define W16_LOOP(KA, KB)                                                                      \
            for (int y = 0; y < h; y++, d += ds)                                              \
                _mm256_storeu_si256((__m256i *)d,                                             \
                                    avg16(cubic_row16(&a, KA), cubic_row16(&b, KB), wv))
            SUBPEL_DISPATCH(W16_LOOP, a.kind, b.kind);
#undef W16_LOOP
        } else { /* w == 8 */
            for (int y = 0; y < h; y++, d += ds)
                _mm_storeu_si128((__m128i *)d,
                                 _mm256_castsi256_si128(avg16(cubic_row16(&a, a.kind),
                                                              cubic_row16(&b, b.kind), wv)));
        }
    }
}

/* ----------------------------------------------------- bilinear, AVX2 */

T_AVX2 INLINE __m256i bilin_h16(const uint8_t *q, __m256i wx)
{
    const __m256i sh = _mm256_setr_epi8(0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8,
                                        0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8);
    return _mm256_maddubs_epi16(_mm256_shuffle_epi8(load2x128(q, q + 8), sh), wx);
}

/* ((16-fy)*h0 + fy*h1 + 8) >> 4 as h0 + ((fy*(h1-h0) + 8) >> 4), the
 * second term by vpmulhrsw with wy = fy << 11: (d*wy + 2^14) >> 15 in 32
 * bits is floor((d*fy + 8) / 16) exactly (|d| <= 4080, fy <= 15), and 16*h0
 * is a multiple of 16, so the floor moves out of the sum; one multiply. */
T_AVX2 INLINE __m256i bilin_v16(__m256i h0, __m256i h1, __m256i wy)
{
    return _mm256_add_epi16(h0, _mm256_mulhrs_epi16(_mm256_sub_epi16(h1, h0), wy));
}

/* The passes of a side of kind `kind` (subpel_kind()): with fx == 0 the
 * horizontal pass is 16 q (the weights (16, 0)), with fy == 0 the vertical
 * pass is h0 (vpmulhrsw by 0). */
T_AVX2 INLINE __m256i bilin_h16k(const uint8_t *q, __m256i wx, const int kind)
{
    if (kind == SUBPEL_INTEGER || kind == SUBPEL_V)
        return _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)q)), 4);
    return bilin_h16(q, wx);
}

T_AVX2 INLINE __m256i bilin_v16k(__m256i h0, __m256i h1, __m256i wy, const int kind)
{
    if (kind == SUBPEL_INTEGER || kind == SUBPEL_H)
        return h0;
    return bilin_v16(h0, h1, wy);
}

/* The sum of the eight 32-bit lanes. */
T_AVX2 INLINE uint32_t hsum_epi32(__m256i acc)
{
    const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    return (uint32_t)_mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1)));
}

typedef struct BilinWeights {
    __m256i pwx, nwx, pwy, nwy;
} BilinWeights;

T_AVX2 INLINE BilinWeights bilin_weights(int pfx, int pfy, int nfx, int nfy)
{
    return (BilinWeights){
        tap_pair8(16 - pfx, pfx), tap_pair8(16 - nfx, nfx),
        _mm256_set1_epi16((int16_t)(pfy << 11)), _mm256_set1_epi16((int16_t)(nfy << 11)),
    };
}

/* One row of 16 columns: the horizontal passes of the row below it (p1,
 * n1; they replace *hp, *hn, the row's own) and the row's |differences|
 * under mask, added to acc16: at most 4080 a lane and row, so a strip's
 * rows add up in 16 bits (widened once per strip, widen_add()). */
_Static_assert(MC_SAD_STRIP * 4080 <= 32767, "a strip's bilinear differences fit int16");
T_AVX2 INLINE __m256i sad_bilin_row(__m256i acc16, const uint8_t *p1, const uint8_t *n1,
                                    const BilinWeights *k, __m256i mask, __m256i *hp, __m256i *hn,
                                    const int kp, const int kn)
{
    const __m256i hp1 = bilin_h16k(p1, k->pwx, kp), hn1 = bilin_h16k(n1, k->nwx, kn);
    const __m256i a = bilin_v16k(*hp, hp1, k->pwy, kp);
    const __m256i b = bilin_v16k(*hn, hn1, k->nwy, kn);
    const __m256i d = _mm256_and_si256(_mm256_abs_epi16(_mm256_sub_epi16(a, b)), mask);
    *hp = hp1;
    *hn = hn1;
    return _mm256_add_epi16(acc16, d);
}

/* acc + the 16-bit lanes of acc16, in 32 bits. */
T_AVX2 INLINE __m256i widen_add(__m256i acc, __m256i acc16)
{
    return _mm256_add_epi32(acc, _mm256_madd_epi16(acc16, _mm256_set1_epi16(1)));
}

/* Rows y0 .. y1 - 1 (one strip, at most MC_SAD_STRIP rows) of the 16
 * columns at p, n (lanes under mask), added to acc; the horizontal pass
 * starts at row y0. */
T_AVX2 INLINE __m256i sad_bilin_rows16(__m256i acc, const uint8_t *p, ptrdiff_t ps,
                                       const uint8_t *n, ptrdiff_t ns, const BilinWeights *k,
                                       __m256i mask, int y0, int y1, int kp, int kn)
{
    p += y0 * ps;
    n += y0 * ns;
    __m256i hp = bilin_h16k(p, k->pwx, kp), hn = bilin_h16k(n, k->nwx, kn);
    __m256i acc16 = _mm256_setzero_si256();
    for (int y = y0; y < y1; y++) {
        p += ps;
        n += ns;
        acc16 = sad_bilin_row(acc16, p, n, k, mask, &hp, &hn, kp, kn);
    }
    return widen_add(acc, acc16);
}

/* Windows up to 16 wide, in one pass down the rows; a check of the bound
 * after every strip (mc_dsp.h). */
T_AVX2 INLINE uint32_t sad_bilin_narrow(const uint8_t *p, ptrdiff_t ps, const uint8_t *n,
                                        ptrdiff_t ns, const BilinWeights *k, int w, int h,
                                        uint32_t bound, const int kp, const int kn)
{
    const __m256i idx = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i mask = _mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)w), idx);
    __m256i acc = _mm256_setzero_si256();
    __m256i hp = bilin_h16k(p, k->pwx, kp), hn = bilin_h16k(n, k->nwx, kn);
    for (int y0 = 0; y0 < h; y0 += MC_SAD_STRIP) {
        /* a strip's rows unrolled where h is known (16x16, 8x8) */
        const int rows = h - y0 < MC_SAD_STRIP ? h - y0 : MC_SAD_STRIP;
        __m256i acc16 = _mm256_setzero_si256();
        for (int y = 0; y < rows; y++) {
            p += ps;
            n += ns;
            acc16 = sad_bilin_row(acc16, p, n, k, mask, &hp, &hn, kp, kn);
        }
        acc = widen_add(acc, acc16);
        if (y0 + rows < h) {
            const uint32_t sum = hsum_epi32(acc);
            if (sum >= bound)
                return sum;
        }
    }
    return hsum_epi32(acc);
}

T_AVX2 static uint32_t sad_bilin_avx2(const uint8_t *p, ptrdiff_t ps, int pfx, int pfy,
                                      const uint8_t *n, ptrdiff_t ns, int nfx, int nfy, int w,
                                      int h, uint32_t bound)
{
    const BilinWeights k = bilin_weights(pfx, pfy, nfx, nfy);
    const int kp = subpel_kind(pfx, pfy), kn = subpel_kind(nfx, nfy);
    /* the refinement's block (16x16) and the quarters' (8x8) with their
     * sizes and kinds known to the compiler */
#define NARROW(W, H, KP, KN) return sad_bilin_narrow(p, ps, n, ns, &k, W, H, bound, KP, KN)
#define NARROW16(KP, KN) NARROW(16, 16, KP, KN)
#define NARROW8(KP, KN) NARROW(8, 8, KP, KN)
    if (w == 16 && h == 16)
        SUBPEL_DISPATCH(NARROW16, kp, kn);
    if (w == 8 && h == 8)
        SUBPEL_DISPATCH(NARROW8, kp, kn);
    if (w <= 16)
        NARROW(w, h, kp, kn);
#undef NARROW8
#undef NARROW16
#undef NARROW
    /* wider: strip by strip, each 16-column part's horizontal pass
     * restarted at the strip's first row (one row more per strip) */
    const __m256i idx = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m256i acc = _mm256_setzero_si256();
    for (int y = 0; y < h; y += MC_SAD_STRIP) {
        const int y1 = y + MC_SAD_STRIP < h ? y + MC_SAD_STRIP : h;
        for (int c = 0; c < w; c += 16) {
            const __m256i mask = _mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)(w - c)), idx);
            acc = sad_bilin_rows16(acc, p + c, ps, n + c, ns, &k, mask, y, y1, kp, kn);
        }
        const uint32_t sum = hsum_epi32(acc);
        if (y1 < h && sum >= bound)
            return sum;
    }
    return hsum_epi32(acc);
}

/* ---------------------------------------------------------- SAD, AVX2 */

T_AVX2 INLINE uint32_t hsum_epi64(__m256i acc)
{
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    return (uint32_t)_mm_cvtsi128_si32(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s)));
}

/* Rows y0 .. y1 - 1 of the window (w <= 64: at most two 32-byte parts a
 * row), added to acc. */
T_AVX2 INLINE __m256i sad_rows(__m256i acc, const uint8_t *p, ptrdiff_t ps, const uint8_t *n,
                               ptrdiff_t ns, __m256i m0, __m256i m1, int w, int y0, int y1)
{
    p += y0 * ps;
    n += y0 * ns;
    for (int y = y0; y < y1; y++, p += ps, n += ns) {
        acc = _mm256_add_epi64(acc, _mm256_sad_epu8(
                  _mm256_and_si256(_mm256_loadu_si256((const __m256i *)p), m0),
                  _mm256_and_si256(_mm256_loadu_si256((const __m256i *)n), m0)));
        if (w > 32)
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(
                      _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p + 32)), m1),
                      _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(n + 32)), m1)));
    }
    return acc;
}

/* Row by row, a check of the bound after every strip (mc_dsp.h). */
T_AVX2 INLINE uint32_t sad_256(const uint8_t *p, ptrdiff_t ps, const uint8_t *n, ptrdiff_t ns,
                               int w, int h, uint32_t bound)
{
    const __m256i idx = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                         16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                                         29, 30, 31);
    const __m256i m0 = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(w > 32 ? 32 : w)), idx);
    const __m256i m1 = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(w > 32 ? w - 32 : 0)), idx);
    __m256i acc = _mm256_setzero_si256();
    int y = 0;
    for (; y + MC_SAD_STRIP < h; y += MC_SAD_STRIP) {
        acc = sad_rows(acc, p, ps, n, ns, m0, m1, w, y, y + MC_SAD_STRIP);
        const uint32_t sum = hsum_epi64(acc);
        if (sum >= bound)
            return sum;
    }
    return hsum_epi64(sad_rows(acc, p, ps, n, ns, m0, m1, w, y, h));
}

/* Stage A's window (a 16x16 block grown by 2 on every side) with the
 * sizes known to the compiler. */
T_AVX2 static uint32_t sad_avx2(const uint8_t *p, ptrdiff_t ps, const uint8_t *n, ptrdiff_t ns,
                                int w, int h, uint32_t bound)
{
    if (w == 20 && h == 20)
        return sad_256(p, ps, n, ns, 20, 20, bound);
    return sad_256(p, ps, n, ns, w, h, bound);
}

/* --------------------------------------------------- OBMC / put, AVX2 */

/* Stores the low n (1..16) bytes of v. */
T_AVX2 INLINE void store_bytes(uint8_t *d, __m128i v, int n)
{
    if (n >= 16) {
        _mm_storeu_si128((__m128i *)d, v);
    } else if (n == 8) {
        _mm_storel_epi64((__m128i *)d, v);
    } else {
        uint8_t tmp[16];
        _mm_storeu_si128((__m128i *)tmp, v);
        memcpy(d, tmp, (size_t)n);
    }
}

T_AVX2 INLINE __m128i pack16(__m256i v)
{
    return _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

T_AVX2 static void obmc_avx2(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, const uint16_t *hp,
                             const uint16_t *vp, ptrdiff_t ps, const int16_t *k0,
                             const int16_t *k1, const int16_t *k2, ptrdiff_t ks, int w, int h)
{
    const __m256i r = _mm256_set1_epi16(64);
    for (int y = 0; y < h; y++, dst += ds, o += ps, hp += ps, vp += ps, k0 += ks, k1 += ks, k2 += ks) {
        for (int c = 0; c < w; c += 16) {
            __m256i s;
            if (w - c > 8) {
#define LD(a) _mm256_loadu_si256((const __m256i *)((a) + c))
                s = _mm256_add_epi16(_mm256_mullo_epi16(LD(k0), LD(o)),
                                     _mm256_mullo_epi16(LD(k1), LD(hp)));
                s = _mm256_add_epi16(s, _mm256_add_epi16(_mm256_mullo_epi16(LD(k2), LD(vp)), r));
#undef LD
            } else {
#define LD(a) _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)((a) + c)))
                s = _mm256_add_epi16(_mm256_mullo_epi16(LD(k0), LD(o)),
                                     _mm256_mullo_epi16(LD(k1), LD(hp)));
                s = _mm256_add_epi16(s, _mm256_add_epi16(_mm256_mullo_epi16(LD(k2), LD(vp)), r));
#undef LD
            }
            store_bytes(dst + c, pack16(_mm256_srli_epi16(s, 7)), w - c);
        }
    }
}

T_AVX2 static void put_avx2(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, ptrdiff_t ps, int w,
                            int h)
{
    const __m256i r = _mm256_set1_epi16(8);
    for (int y = 0; y < h; y++, dst += ds, o += ps)
        for (int c = 0; c < w; c += 16) {
            const __m256i v = w - c > 8 ? _mm256_loadu_si256((const __m256i *)(o + c))
                                        : _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(o + c)));
            store_bytes(dst + c, pack16(_mm256_srli_epi16(_mm256_add_epi16(v, r), 4)), w - c);
        }
}

/* ------------------------------------------------------------- init */

void mc_dsp_init_x86(McDSP *d, unsigned flags)
{
    const int level = cpu_level_of(flags);
    if (level >= CPU_LEVEL_AVX2) {
        d->pred2 = pred2_avx2;
        d->sad_bilin = sad_bilin_avx2;
        d->sad = sad_avx2;
        d->obmc = obmc_avx2;
        d->put = put_avx2;
        d->level = CPU_LEVEL_AVX2;
    }
    /* vpermb (AVX-512 VBMI) pairs the pixels of two rows in one step */
    if (level >= CPU_LEVEL_AVX512 && (flags & OMCTI_CPU_FLAG_AVX512VBMI))
        mc_dsp_init_avx512(d);
}

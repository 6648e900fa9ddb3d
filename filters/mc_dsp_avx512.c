/* The AVX-512 (VBMI) variants of the filter DSP table (mc_dsp.h): the
 * bicubic prediction and the bilinear SAD, two rows of 16 columns per zmm.
 * Compiled with per-function target attributes; mc_dsp_init_x86() installs
 * them where the CPU has AVX-512 VBMI (mc_dsp_init_avx512()). As in AVX2
 * (mc_dsp_x86.c's first comment), a pass whose fraction is 0 is skipped
 * (subpel_kind(), SUBPEL_DISPATCH), and the bilinear vertical pass is one
 * vpmulhrsw. */
#include <immintrin.h>

#include "filters/mc_dsp_x86.h"
#include "src/cpu.h"

/* ---------------------------------------------------- AVX-512 (+VBMI) */

/* Two rows of 16 columns per zmm: the 32 bytes at column c - 1 (bicubic) or
 * c (bilinear) of row r in the low half, of row r + 1 in the high half, and
 * one vpermb pairs the neighbouring pixels of both rows at once. T_k holds
 * the horizontal passes of tap rows k and k + 1; the odd T_{k+1} is taken
 * from T_k and T_{k+2} (vshufi64x2), one horizontal pass per 2 rows. */

T_AVX512 INLINE __m512i load2x256(const uint8_t *lo, const uint8_t *hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo)),
                              _mm256_loadu_si256((const __m256i *)hi), 1);
}

/* vpermt2b indices: pairs (x + o, x + o + 1) for x = 0..15 of the first
 * source in the low half, of the second source (index + 64) in the high. */
T_AVX512 INLINE __m512i pair_idx(int o)
{
    uint8_t b[64];
    for (int i = 0; i < 64; i++)
        b[i] = (uint8_t)((i & 32) * 2 + (i & 31) / 2 + (i & 1) + o);
    return _mm512_loadu_si512(b);
}

/* T_{k+1} = (high half of T_k | low half of T_{k+2}). */
T_AVX512 INLINE __m512i mid_rows(__m512i a, __m512i b)
{
    return _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(1, 0, 3, 2));
}

typedef struct Cubic16x2 {
    __m512i ia, ib, ca, cb, va, vb;
    __m512i u0l, u0h, t2; /* BOTH: T_y, T_{y+1} interleaved, T_{y+2};
                             V: u0l the byte pairs of rows (y-1, y) |
                             (y, y+1), t2 (low 128 bits) row y+1      */
    const uint8_t *q;
    ptrdiff_t qs;
    int h, y, kind;       /* kind: subpel_kind()                      */
} Cubic16x2;

T_AVX512 INLINE const uint8_t *c16_row(const Cubic16x2 *s, int r)
{
    return s->q + (r > s->h + 1 ? s->h + 1 : r) * s->qs;
}

T_AVX512 INLINE __m512i load256z(const uint8_t *p)
{
    return _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)p));
}

T_AVX512 INLINE __m512i cubic_h16x2(const Cubic16x2 *s, int r)
{
    /* vpermt2b picks row r from a, row r + 1 from b (indices 64 + i) */
    const __m512i a = load256z(c16_row(s, r) - 1), b = load256z(c16_row(s, r + 1) - 1);
    return _mm512_add_epi16(
        _mm512_maddubs_epi16(_mm512_permutex2var_epi8(a, s->ia, b), s->ca),
        _mm512_maddubs_epi16(_mm512_permutex2var_epi8(a, s->ib, b), s->cb));
}

/* mc_dsp_x86.h cubic_one_pass() on 32 samples: clamp((t + 2) >> 2, 0, 4080). */
T_AVX512 INLINE __m512i cubic_one_pass32(__m512i t)
{
    const __m512i v = _mm512_srai_epi16(_mm512_add_epi16(t, _mm512_set1_epi16(2)), 2);
    return _mm512_min_epi16(_mm512_max_epi16(v, _mm512_setzero_si512()), _mm512_set1_epi16(4080));
}

/* The 16 bytes of rows a and b interleaved (a0 b0 a1 b1 ...), 32 bytes. */
T_AVX512 INLINE __m256i interleave16(__m128i a, __m128i b)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)),
                                   _mm_unpackhi_epi8(a, b), 1);
}

T_AVX512 INLINE __m128i c16_load(const Cubic16x2 *s, int r)
{
    return _mm_loadu_si128((const __m128i *)c16_row(s, r));
}

T_AVX512 INLINE void cubic16x2_init(Cubic16x2 *s, const uint8_t *q, ptrdiff_t qs, int fx,
                                    int fy, int h)
{
    s->q = q;
    s->qs = qs;
    s->h = h;
    s->y = 0;
    s->kind = subpel_kind(fx, fy);
    const int8_t *cx = mc_cubic_taps[fx], *cy = mc_cubic_taps[fy];
    s->ia = pair_idx(0);
    s->ib = pair_idx(2);
    s->ca = _mm512_set1_epi16((int16_t)((cx[0] & 0xff) | ((cx[1] & 0xff) << 8)));
    s->cb = _mm512_set1_epi16((int16_t)((cx[2] & 0xff) | ((cx[3] & 0xff) << 8)));
    s->u0l = s->u0h = s->t2 = _mm512_setzero_si512();
    if (s->kind != SUBPEL_BOTH) {
        /* V: vertical taps on the bytes (vpmaddubsw), as cubic8_rows() */
        s->va = _mm512_set1_epi16((int16_t)((cy[0] & 0xff) | ((cy[1] & 0xff) << 8)));
        s->vb = _mm512_set1_epi16((int16_t)((cy[2] & 0xff) | ((cy[3] & 0xff) << 8)));
        if (s->kind == SUBPEL_V) {
            const __m128i r0 = c16_load(s, -1), r1 = c16_load(s, 0), r2 = c16_load(s, 1);
            s->u0l = _mm512_inserti64x4(_mm512_castsi256_si512(interleave16(r0, r1)),
                                        interleave16(r1, r2), 1);
            s->t2 = _mm512_castsi128_si512(r2);
        }
        return;
    }
    s->va = _mm512_set1_epi32((int32_t)((uint32_t)(cy[0] & 0xffff) | ((uint32_t)cy[1] << 16)));
    s->vb = _mm512_set1_epi32((int32_t)((uint32_t)(cy[2] & 0xffff) | ((uint32_t)cy[3] << 16)));
    const __m512i t0 = cubic_h16x2(s, -1), t2 = cubic_h16x2(s, 1);
    const __m512i t1 = mid_rows(t0, t2);
    s->u0l = _mm512_unpacklo_epi16(t0, t1);
    s->u0h = _mm512_unpackhi_epi16(t0, t1);
    s->t2 = t2;
}

/* Output rows y (low half) and y + 1 (high half), 0..4080; kind is
 * s->kind, known to the compiler (SUBPEL_DISPATCH). */
T_AVX512 INLINE __m512i cubic16x2_rows(Cubic16x2 *s, const int kind)
{
    const int y = s->y;
    s->y += 2;
    if (kind == SUBPEL_INTEGER) {
        const __m256i v = load2x128(c16_row(s, y), c16_row(s, y + 1));
        return _mm512_slli_epi16(_mm512_cvtepu8_epi16(v), 4);
    }
    if (kind == SUBPEL_H)
        return cubic_one_pass32(cubic_h16x2(s, y));
    if (kind == SUBPEL_V) {
        /* rows (y+1, y+2) | (y+2, y+3): the second pairs of these rows,
         * the first of the next two */
        const __m128i r1 = _mm512_castsi512_si128(s->t2);
        const __m128i r2 = c16_load(s, y + 2), r3 = c16_load(s, y + 3);
        const __m512i u2 = _mm512_inserti64x4(_mm512_castsi256_si512(interleave16(r1, r2)),
                                              interleave16(r2, r3), 1);
        const __m512i t = _mm512_add_epi16(_mm512_maddubs_epi16(s->u0l, s->va),
                                           _mm512_maddubs_epi16(u2, s->vb));
        s->u0l = u2;
        s->t2 = _mm512_castsi128_si512(r3);
        return cubic_one_pass32(t);
    }
    const __m512i t4 = cubic_h16x2(s, y + 3);
    const __m512i t3 = mid_rows(s->t2, t4);
    const __m512i u2l = _mm512_unpacklo_epi16(s->t2, t3);
    const __m512i u2h = _mm512_unpackhi_epi16(s->t2, t3);
    const __m512i r = _mm512_set1_epi32(128);
    __m512i lo = _mm512_add_epi32(_mm512_madd_epi16(s->u0l, s->va), _mm512_madd_epi16(u2l, s->vb));
    __m512i hi = _mm512_add_epi32(_mm512_madd_epi16(s->u0h, s->va), _mm512_madd_epi16(u2h, s->vb));
    lo = _mm512_srai_epi32(_mm512_add_epi32(lo, r), 8);
    hi = _mm512_srai_epi32(_mm512_add_epi32(hi, r), 8);
    s->u0l = u2l;
    s->u0h = u2h;
    s->t2 = t4;
    const __m512i v = _mm512_packs_epi32(lo, hi);
    return _mm512_min_epi16(_mm512_max_epi16(v, _mm512_setzero_si512()), _mm512_set1_epi16(4080));
}

T_AVX512 INLINE __m512i avg32(__m512i a, __m512i b, __m512i w)
{
    const __m512i r = _mm512_set1_epi32(128);
    const __m512i lo = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), w), r), 8);
    const __m512i hi = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), w), r), 8);
    return _mm512_packus_epi32(lo, hi);
}

T_AVX512 INLINE void pred2_512(uint16_t *dst, ptrdiff_t ds, const uint8_t *p, ptrdiff_t ps,
                               int pfx, int pfy, const uint8_t *n, ptrdiff_t ns, int nfx,
                               int nfy, int w, int h, int wt)
{
    if (w == 8) {
        pred2_w8_avx2(dst, ds, p, ps, pfx, pfy, n, ns, nfx, nfy, h, tap_pair16(256 - wt, wt));
        return;
    }
    const __m512i wv = _mm512_set1_epi32((int32_t)((uint32_t)(256 - wt) | ((uint32_t)wt << 16)));
    for (int c = 0; c < w; c += 16) {
        Cubic16x2 a, b;
        cubic16x2_init(&a, p + c, ps, pfx, pfy, h);
        cubic16x2_init(&b, n + c, ns, nfx, nfy, h);
        uint16_t *d = dst + c;
#define W16_LOOP(KA, KB)                                                                      \
        for (int y = 0; y < h; y += 2, d += 2 * ds) {                                         \
            const __m512i v = avg32(cubic16x2_rows(&a, KA), cubic16x2_rows(&b, KB), wv);      \
            _mm256_storeu_si256((__m256i *)d, _mm512_castsi512_si256(v));                     \
            if (y + 1 < h)                                                                    \
                _mm256_storeu_si256((__m256i *)(d + ds), _mm512_extracti64x4_epi64(v, 1));    \
        }
        SUBPEL_DISPATCH(W16_LOOP, a.kind, b.kind);
#undef W16_LOOP
    }
}

/* The sizes of the rendering (a 16x16 luma block, its 16x8 and 8x16
 * halves, the 8x8 chroma blocks and their 8x4 and 4x8 halves, computed 8
 * wide) known to the compiler: loops unrolled, row clamps folded. */
T_AVX512 static void pred2_avx512(uint16_t *dst, ptrdiff_t ds, const uint8_t *p, ptrdiff_t ps,
                                  int pfx, int pfy, const uint8_t *n, ptrdiff_t ns, int nfx,
                                  int nfy, int w, int h, int wt)
{
#define P2(W, H) pred2_512(dst, ds, p, ps, pfx, pfy, n, ns, nfx, nfy, W, H, wt)
    if (w == 16) {
        if (h == 16) { P2(16, 16); return; }
        if (h == 8) { P2(16, 8); return; }
    } else if (w == 8) {
        if (h == 16) { P2(8, 16); return; }
        if (h == 8) { P2(8, 8); return; }
        if (h == 4) { P2(8, 4); return; }
    }
    P2(w, h);
#undef P2
}

/* ----------------------------------------------- bilinear, AVX-512 */

/* Rows r (low half) and r + 1 (high half) of a 16-column part, horizontal
 * pass (16 q where fx == 0). */
T_AVX512 INLINE __m512i bilin_h16x2(const uint8_t *r0, const uint8_t *r1, __m512i idx,
                                    __m512i wx, const int kind)
{
    if (kind == SUBPEL_INTEGER || kind == SUBPEL_V)
        return _mm512_slli_epi16(_mm512_cvtepu8_epi16(load2x128(r0, r1)), 4);
    return _mm512_maddubs_epi16(_mm512_permutex2var_epi8(load256z(r0), idx, load256z(r1)), wx);
}

/* mc_dsp_x86.c bilin_v16() on 32 lanes: h0 + ((fy*(h1-h0) + 8) >> 4) as
 * one vpmulhrsw by wy = fy << 11 (h0 itself where fy == 0). */
T_AVX512 INLINE __m512i bilin_v32(__m512i h0, __m512i h1, __m512i wy, const int kind)
{
    if (kind == SUBPEL_INTEGER || kind == SUBPEL_H)
        return h0;
    return _mm512_add_epi16(h0, _mm512_mulhrs_epi16(_mm512_sub_epi16(h1, h0), wy));
}

/* Strip by strip (mc_dsp.h), each strip's row pairs part by part (16
 * columns), each part's horizontal pass carried on from the strip above. */
_Static_assert(MC_SAD_STRIP % 2 == 0, "the AVX-512 kernel sums rows in pairs");
T_AVX512 INLINE uint32_t sad_bilin512(const uint8_t *p, ptrdiff_t ps, int pfx, int pfy,
                                      const uint8_t *n, ptrdiff_t ns, int nfx, int nfy,
                                      int w, int h, uint32_t bound, const int kp, const int kn)
{
    const __m512i idx = pair_idx(0);
    const __m512i pwx = _mm512_set1_epi16((int16_t)((16 - pfx) | (pfx << 8)));
    const __m512i nwx = _mm512_set1_epi16((int16_t)((16 - nfx) | (nfx << 8)));
    const __m512i pwy = _mm512_set1_epi16((int16_t)(pfy << 11));
    const __m512i nwy = _mm512_set1_epi16((int16_t)(nfy << 11));
    const __m512i ones = _mm512_set1_epi16(1);
#define ROW(q, qs, r) ((q) + (ptrdiff_t)((r) > h ? h : (r)) * (qs))
#define HP(q, qs, r, wx, k) bilin_h16x2(ROW(q, qs, r), ROW(q, qs, (r) + 1), idx, wx, k)
    const int parts = (w + 15) >> 4;   /* w <= 64 */
    __m512i hp[4], hn[4];
    for (int c = 0; c < parts; c++) {
        hp[c] = HP(p + 16 * c, ps, 0, pwx, kp);
        hn[c] = HP(n + 16 * c, ns, 0, nwx, kn);
    }
    __m512i acc = _mm512_setzero_si512();
    for (int y0 = 0; y0 < h; y0 += MC_SAD_STRIP) {
        const int y1 = y0 + MC_SAD_STRIP < h ? y0 + MC_SAD_STRIP : h;
        for (int c = 0; c < parts; c++) {
            /* lanes x < w - 16c of row y (low half) and of row y + 1 (high half) */
            const int cols = w - 16 * c >= 16 ? 16 : w - 16 * c;
            const __mmask32 m16 = (__mmask32)((1u << cols) - 1u);
            const __mmask32 both = m16 | (m16 << 16);
            const uint8_t *pq = p + 16 * c, *nq = n + 16 * c;
            /* |differences| of a strip's rows in 16 bits (at most 2 * 4080 a lane) */
            __m512i acc16 = _mm512_setzero_si512();
            for (int y = y0; y < y1; y += 2) {
                const __m512i hp2 = HP(pq, ps, y + 2, pwx, kp), hn2 = HP(nq, ns, y + 2, nwx, kn);
                const __m512i a = bilin_v32(hp[c], mid_rows(hp[c], hp2), pwy, kp);
                const __m512i b = bilin_v32(hn[c], mid_rows(hn[c], hn2), nwy, kn);
                acc16 = _mm512_add_epi16(acc16, _mm512_maskz_abs_epi16(y + 1 < h ? both : m16,
                                                                       _mm512_sub_epi16(a, b)));
                hp[c] = hp2;
                hn[c] = hn2;
            }
            acc = _mm512_add_epi32(acc, _mm512_madd_epi16(acc16, ones));
        }
        if (y1 < h) {
            const uint32_t sum = (uint32_t)_mm512_reduce_add_epi32(acc);
            if (sum >= bound)
                return sum;
        }
    }
#undef HP
#undef ROW
    return (uint32_t)_mm512_reduce_add_epi32(acc);
}

/* The block sizes of the refinement (16x16, 16 of every 17 calls) and of
 * the quarters (8x8) with their sizes and kinds known to the compiler: the
 * loops unrolled, the row clamps folded, the passes with fraction 0 gone;
 * the median's window (20x20) with its size. */
T_AVX512 static uint32_t sad_bilin_avx512(const uint8_t *p, ptrdiff_t ps, int pfx, int pfy,
                                          const uint8_t *n, ptrdiff_t ns, int nfx, int nfy,
                                          int w, int h, uint32_t bound)
{
    const int kp = subpel_kind(pfx, pfy), kn = subpel_kind(nfx, nfy);
#define S512(W, H, KP, KN) return sad_bilin512(p, ps, pfx, pfy, n, ns, nfx, nfy, W, H, bound, KP, KN)
#define S512_16(KP, KN) S512(16, 16, KP, KN)
#define S512_8(KP, KN) S512(8, 8, KP, KN)
    if (w == 16 && h == 16)
        SUBPEL_DISPATCH(S512_16, kp, kn);
    if (w == 8 && h == 8)
        SUBPEL_DISPATCH(S512_8, kp, kn);
    if (w == 20 && h == 20)
        S512(20, 20, kp, kn);
    S512(w, h, kp, kn);
#undef S512_8
#undef S512_16
#undef S512
}

void mc_dsp_init_avx512(McDSP *d)
{
    d->pred2 = pred2_avx512;
    d->sad_bilin = sad_bilin_avx512;
    d->level = CPU_LEVEL_AVX512;
}

/* Brightness compensation of a pair for the motion search (fade.h). */
#include "src/fade.h"

#include "src/common.h"

#define FADE_REGIONS 4   /* regions per row and per column                 */
#define FADE_ROW_STEP 4  /* one row in 4: a level over a sixteenth of the
                            picture needs no more                          */

static inline int64_t abs_i64(int64_t a) { return a < 0 ? -a : a; }

/* Sum of (p - 16) over row y of p, columns x0 .. x1-1. */
static int64_t row_level(const OmctiPlane *p, int y, int x0, int x1)
{
    const uint8_t *r = p->data + y * p->stride;
    uint32_t s = 0;
    for (int x = x0; x < x1; x++)
        s += r[x];
    return (int64_t)s - 16 * (int64_t)(x1 - x0);
}

FadeGain fade_measure(const OmctiFrame *prev, const OmctiFrame *next, int gx, int gy,
                      const ActiveArea *area)
{
    const int top = area->top, bottom = area->bottom, left = area->left, right = area->right;
    FadeGain g = { 0, 0, 0, 0 };
    const OmctiPlane *P = &prev->p[0], *N = &next->p[0];
    /* the rectangle of prev whose content next still shows at + g */
    const int x0 = max_i(left, left - gx), x1 = min_i(P->w - right, P->w - right - gx);
    const int y0 = max_i(top, top - gy), y1 = min_i(P->h - bottom, P->h - bottom - gy);
    if (x1 - x0 < 4 * FADE_REGIONS || y1 - y0 < 4 * FADE_REGIONS * FADE_ROW_STEP)
        return g;
    enum { NR = FADE_REGIONS * FADE_REGIONS };
    int64_t sp[NR] = { 0 }, sn[NR] = { 0 }, np[NR] = { 0 };
    for (int y = y0; y < y1; y += FADE_ROW_STEP) {
        const int ry = (y - y0) * FADE_REGIONS / (y1 - y0);
        for (int rx = 0; rx < FADE_REGIONS; rx++) {
            const int a = x0 + (x1 - x0) * rx / FADE_REGIONS;
            const int b = x0 + (x1 - x0) * (rx + 1) / FADE_REGIONS;
            const int k = ry * FADE_REGIONS + rx;
            sp[k] += row_level(P, y, a, b);
            sn[k] += row_level(N, y + gy, a + gx, b + gx);
            np[k] += b - a;
        }
    }
    int64_t lp = 0, ln = 0, n = 0;
    for (int k = 0; k < NR; k++) {
        lp += sp[k];
        ln += sn[k];
        n += np[k];
    }
    const int64_t lo = lp < ln ? lp : ln, hi = lp < ln ? ln : lp;
    if (lo < 2 * n || 32 * (hi - lo) < lo || hi > 8 * lo)
        return g;
    /* sum over the lit regions of |rk - r| * lp, rk = sn/sp, r = ln/lp;
     * the sums shifted below 2^31 first (16384^2 pictures reach 2^34) */
    int sh = 0;
    while (hi >> sh >= (int64_t)1 << 31)
        sh++;
    int lit = 0;
    int64_t dev = 0;
    for (int k = 0; k < NR; k++) {
        if (sp[k] < 2 * np[k] || sn[k] < 2 * np[k] || sp[k] >> sh == 0)
            continue;
        lit++;
        dev += abs_i64((sn[k] >> sh) * (lp >> sh) - (ln >> sh) * (sp[k] >> sh)) / (sp[k] >> sh);
    }
    const int64_t allowed = lit * ((hi - lo) >> sh);   /* > 0: hi - lo >= hi / 33 */
    if (lit < 4 || 4 * dev > allowed)
        return g;
    return (FadeGain){ 1, lp, ln, 4 * dev * 1024 / allowed };
}

FadeGain fade_measure_pair(const OmctiFrame *prev, const OmctiFrame *next, int gx, int gy,
                           const ActiveArea *area)
{
    const FadeGain at_g = fade_measure(prev, next, gx, gy, area);
    if (!gx && !gy)
        return at_g;
    const FadeGain still = fade_measure(prev, next, 0, 0, area);
    return still.active && (!at_g.active || still.spread < at_g.spread) ? still : at_g;
}

/* lut[v] = zero + (v - zero) * num / den, rounded half away from zero. */
static void scale_lut(uint8_t lut[256], int zero, int64_t num, int64_t den)
{
    for (int v = 0; v < 256; v++) {
        const int64_t d = (v - zero) * num;
        const int64_t r = d >= 0 ? (d + den / 2) / den : -((-d + den / 2) / den);
        const int64_t o = zero + r;
        lut[v] = (uint8_t)(o < 0 ? 0 : o > 255 ? 255 : o);
    }
}

void fade_scale_frame(const FadeGain *g, int side, OmctiFrame *dst, const OmctiFrame *src)
{
    /* to the mean level (lp + ln) / 2 from side's level */
    const int64_t from = side ? g->ln : g->lp;
    uint8_t lut[2][256];
    scale_lut(lut[0], 16, g->lp + g->ln, 2 * from);
    scale_lut(lut[1], 128, g->lp + g->ln, 2 * from);
    for (int k = 0; k < 3; k++) {
        const OmctiPlane *s = &src->p[k], *d = &dst->p[k];
        const uint8_t *t = lut[k > 0];
        for (int y = -s->pad; y < s->h + s->pad; y++) {
            const uint8_t *a = s->data + y * s->stride;
            uint8_t *b = d->data + y * d->stride;
            for (int x = -s->pad; x < s->w + s->pad; x++)
                b[x] = t[a[x]];
        }
    }
}

void fade_to_phase(const FadeGain *g, int64_t num, int64_t den, OmctiPicture *pic)
{
    if (!g->active || num == den - num) /* t = 1/2, without overflow */
        return;
    /* from (lp + ln) / 2 to lp + (ln - lp) * t: the factor
     * (lp (den - num) + ln num) / den over (lp + ln) / 2, with the sums
     * below 2^30 and den below 2^20 so that lut's products stay in 64 bits */
    int64_t lp = g->lp, ln = g->ln;
    while (lp >= (int64_t)1 << 30 || ln >= (int64_t)1 << 30) {
        lp >>= 1;
        ln >>= 1;
    }
    while (den >= (int64_t)1 << 20) {
        num >>= 1;
        den >>= 1;
    }
    const int64_t want = lp * (den - num) + ln * num, mid = (lp + ln) * den;
    uint8_t lut[2][256];
    scale_lut(lut[0], 16, 2 * want, mid);
    scale_lut(lut[1], 128, 2 * want, mid);
    for (int k = 0; k < 3; k++) {
        const int w = k ? chroma_size(pic->width) : pic->width;
        const int h = k ? chroma_size(pic->height) : pic->height;
        const uint8_t *t = lut[k > 0];
        for (int y = 0; y < h; y++) {
            uint8_t *r = pic->data[k] + y * pic->stride[k];
            for (int x = 0; x < w; x++)
                r[x] = t[r[x]];
        }
    }
}

int fade_linear_mix(const OmctiPlane *p0, const OmctiPlane *p1, const uint8_t *p2,
                    ptrdiff_t p2_stride, const ActiveArea *a)
{
    /* off2: sum |2 p1 - p0 - p2|, twice p1's distance from the mean of its
     * neighbours; step: sum |p2 - p0|, twice the change per frame */
    const int x0 = a->left, x1 = p1->w - a->right, y1 = p1->h - a->bottom;
    uint64_t off2 = 0, step = 0, n = 0;
    for (int y = a->top; y < y1 && x0 < x1; y += 8) {
        const uint8_t *pa = p0->data + (ptrdiff_t)y * p0->stride;
        const uint8_t *pb = p1->data + (ptrdiff_t)y * p1->stride;
        const uint8_t *pc = p2 + (ptrdiff_t)y * p2_stride;
        /* a row's sums in int (at most 510 a pixel, widths below 2^22):
         * a loop the compiler vectorises */
        int ro = 0, rs = 0;
        for (int x = x0; x < x1; x++) {
            const int d = 2 * pb[x] - pa[x] - pc[x], e = pc[x] - pa[x];
            ro += d < 0 ? -d : d;
            rs += e < 0 ? -e : e;
        }
        off2 += (uint64_t)ro;
        step += (uint64_t)rs;
        n += (uint64_t)(x1 - x0);
    }
    /* |p1 - mean| < step / 4 per frame, i.e. off2 / 2 < step / 2 / 2; the
     * change per frame, step / 2 / n, at least 1.5 */
    return n && step >= 3 * n && 2 * off2 < step;
}

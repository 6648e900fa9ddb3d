/* Rendering of the motion-compensated filters (mc.h): the bidirectional
 * bicubic prediction of each vector and the OBMC sum, one block at a time. */
#include <string.h>

#include "src/common.h"
#include "filters/mc_priv.h"

/* Whether the bicubic footprint of a w x h region whose integer sample
 * (0, 0) is (x0, y0) lies inside the padded plane (rows y0-1 .. y0+h+1,
 * columns x0-1 .. x0+w+1): then no coordinate needs clamping. */
static inline int cubic_inside(const OmctiPlane *p, int x0, int y0, int w, int h)
{
    return x0 - 1 >= -p->pad && y0 - 1 >= -p->pad && x0 + w + 1 <= p->w - 1 + p->pad &&
           y0 + h + 1 <= p->h - 1 + p->pad;
}

/* The C reference's prediction with clamped samples and the one-sided
 * weights (mc_block.h mc_pred_px()), for the rare footprints past the
 * padding; out of line, so that the fast path stays lean. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void predict_clamped(uint16_t *dst, const OmctiPlane *P, const OmctiPlane *N, int ix,
                            int iy, int fx, int fy, int jx, int jy, int gx, int gy, int w, int h,
                            int wt)
{
    const McPlaneView pv = { P->data, (int)P->stride, P->w, P->h };
    const McPlaneView nv = { N->data, (int)N->stride, N->w, N->h };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[y * 32 + x] = (uint16_t)mc_pred_mix(
                mc_cubic_px(&pv, ix + x, iy + y, fx, fy), mc_cubic_px(&nv, jx + x, jy + y, gx, gy),
                mc_one_sided_wt(&pv, &nv, ix + x, iy + y, jx + x, jy + y, wt));
}

/* The pixels of a prediction that one side only sees (mc_block.h
 * mc_one_sided_wt() != wt) take that side alone: the DSP prediction with
 * weight 0 (prev) or 256 (next), bit-exact like every weight, computed
 * only when such pixels exist. Per row, the columns whose prev / next
 * sample lies inside the picture are an interval each. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void one_sided_fixup(const Mc *s, uint16_t *dst, const OmctiPlane *P,
                            const OmctiPlane *N, const uint8_t *p, int fx, int fy,
                            const uint8_t *n, int gx, int gy, int ix, int iy, int jx, int jy,
                            int kw, int w, int h)
{
    uint16_t side[2][32 * 32];
    int have[2] = { 0, 0 };
    const int pxa = max_i(-ix, 0), pxb = min_i(P->w - ix, w);  /* prev inside: [pxa, pxb) */
    const int nxa = max_i(-jx, 0), nxb = min_i(N->w - jx, w);
    for (int y = 0; y < h; y++) {
        const int pyin = iy + y >= 0 && iy + y < P->h, nyin = jy + y >= 0 && jy + y < N->h;
        for (int x = 0; x < w; x++) {
            const int pin = pyin && x >= pxa && x < pxb, nin = nyin && x >= nxa && x < nxb;
            if (pin == nin)
                continue;
            /* side 0: prev alone (wn = 0), side 1: next alone (wn = 256) */
            const int k = nin;
            if (!have[k]) {
                s->dsp.pred2(side[k], 32, p, P->stride, fx, fy, n, N->stride, gx, gy, kw, h,
                             k ? 256 : 0);
                have[k] = 1;
            }
            dst[y * 32 + x] = side[k][y * 32 + x];
        }
    }
}

/* Prediction of a w x h region at (x0, y0) of plane c for one vector, in
 * 1/16 units, into dst (stride 32): through the DSP table when both
 * footprints are inside the padded planes (then the pixels one side only
 * sees are redone, one_sided_fixup()), else with the C reference's clamped
 * samples and one-sided weights (mc_block.h; the rare vectors past the
 * padding). The
 * kernel computes 8, 16 or 32 columns; columns past w are scratch (dst has
 * room for them), and a sample's value does not depend on the region it is
 * computed in, so predicting a whole block at once equals predicting its
 * sub-blocks one by one. */
static void predict(const Mc *s, uint16_t *dst, const FilterPair *pr, int c, McVec v, int x0,
                    int y0, int w, int h, int wt)
{
    const OmctiPlane *P = &pr->prev->p[c], *N = &pr->next->p[c];
    const int scale = c ? 2 : 4;
    int ax, ay, bx, by, ix, fx, iy, fy, jx, gx, jy, gy;
    mc_phase_split(v.x, scale, &s->ph, &ax, &bx);
    mc_phase_split(v.y, scale, &s->ph, &ay, &by);
    split16(x0 * 16 - ax, &ix, &fx);
    split16(y0 * 16 - ay, &iy, &fy);
    split16(x0 * 16 + bx, &jx, &gx);
    split16(y0 * 16 + by, &jy, &gy);
    const int kw = w <= 8 ? 8 : w <= 16 ? 16 : 32;
    /* Both footprints' integer samples inside the picture (nearly always):
     * the bicubic taps reach one sample before and two after, which the
     * padding holds (2 or more), so cubic_inside() holds too. */
    const int in_p = mc_in_picture(P->w, P->h, ix, iy, w, h);
    const int in_n = mc_in_picture(N->w, N->h, jx, jy, w, h);
    if ((in_p && in_n && P->pad >= 2 && N->pad >= 2) ||
        (cubic_inside(P, ix, iy, w, h) && cubic_inside(N, jx, jy, w, h))) {
        const uint8_t *p = P->data + (ptrdiff_t)iy * P->stride + ix;
        const uint8_t *n = N->data + (ptrdiff_t)jy * N->stride + jx;
        s->dsp.pred2(dst, 32, p, P->stride, fx, fy, n, N->stride, gx, gy, kw, h, wt);
        /* Where a footprint leaves the picture, the pixels that only one
         * side sees take that side alone (the others keep wt). */
        if (!in_p || !in_n)
            one_sided_fixup(s, dst, P, N, p, fx, fy, n, gx, gy, ix, iy, jx, jy, kw, w, h);
        return;
    }
    predict_clamped(dst, P, N, ix, iy, fx, fy, jx, jy, gx, gy, w, h, wt);
}

/* Rows of w samples (buffers of stride 32). The widths of half blocks and
 * quarters (4, 8, 16) as fixed-size copies, which the compiler turns into
 * a load and a store: a call of memcpy() per row of 8 to 32 bytes cost
 * more than the copy, and most blocks copy some halves (docs/benchmarks.md). */
static void copy_cols(uint16_t *dst, const uint16_t *src, int w, int h)
{
    const size_t row = (size_t)w * sizeof *dst;
    if (w == 4)
        for (int y = 0; y < h; y++) memcpy(dst + y * 32, src + y * 32, 4 * sizeof *dst);
    else if (w == 8)
        for (int y = 0; y < h; y++) memcpy(dst + y * 32, src + y * 32, 8 * sizeof *dst);
    else if (w == 16)
        for (int y = 0; y < h; y++) memcpy(dst + y * 32, src + y * 32, 16 * sizeof *dst);
    else
        for (int y = 0; y < h; y++) memcpy(dst + y * 32, src + y * 32, row);
}

/* Per block rather than per sub-block: the own vector's prediction over the
 * whole block, each neighbour's over the half block it weighs on (only
 * where its vector differs from the own one: else the own prediction is
 * that neighbour's prediction too), then one OBMC pass. The masks are
 * multiples of 32/256, so the sum (w_own*p_own + w_h*p_h + w_v*p_v + 2048)
 * >> 12 equals (k0*p0 + k1*ph + k2*pv + 64) >> 7 with k = w/32, which for
 * ph == pv == p0 is (p0 + 8) >> 4, the one-vector picture. */
/* halves: 1 the block's top half is kept (it reads the block above), 2 its
 * bottom half (the block below); a half not kept is computed with the own
 * vector for that neighbour, whose row the caller may not have computed. */
static void render_block(const Mc *s, const McGrid *g, const McVec *vec, const FilterPair *pr,
                         int bx, int by, int wt, int halves, uint8_t *const dst[3],
                         const ptrdiff_t dstride[3], uint16_t *buf)
{
    const size_t k = (size_t)by * g->nbx + bx;
    const McVec own = vec[k];
    McVec vl = own, vr = own, vt = own, vb = own;
    if (s->overlap) {
        if (bx > 0) vl = vec[k - 1];
        if (bx + 1 < g->nbx) vr = vec[k + 1];
        if (by > 0 && (halves & 1)) vt = vec[k - g->nbx];
        if (by + 1 < g->nby && (halves & 2)) vb = vec[k + g->nbx];
    }
    const int same = mc_vec_eq(vl, own) && mc_vec_eq(vr, own) && mc_vec_eq(vt, own) && mc_vec_eq(vb, own);
    uint16_t *O = buf, *H = buf + 32 * 32, *V = buf + 2 * 32 * 32;
    for (int c = 0; c < 3; c++) {
        const int pw = c ? chroma_size(s->w) : s->w, ph = c ? chroma_size(s->h) : s->h;
        const int bs = c ? s->block / 2 : s->block, hb = bs / 2;
        const int x0 = (c ? g->ox >> 1 : g->ox) + bx * bs, y0 = (c ? g->oy >> 1 : g->oy) + by * bs;
        if (x0 >= pw || y0 >= ph) continue;
        const int w = min_i(bs, pw - x0), h = min_i(bs, ph - y0);
        const ptrdiff_t ds = dstride[c];
        uint8_t *d = dst[c];
        predict(s, O, pr, c, own, x0, y0, w, h, wt);
        if (same) {
            s->dsp.put(d, ds, O, 32, w, h);
            continue;
        }
        /* columns [0, hb) weigh the left neighbour, [hb, bs) the right one;
         * rows [0, hb) the one above, [hb, bs) the one below */
        const int wl = min_i(hb, w), wr = w - hb, ht = min_i(hb, h), hbot = h - hb;
        if (!mc_vec_eq(vl, own)) predict(s, H, pr, c, vl, x0, y0, wl, h, wt);
        else copy_cols(H, O, wl, h);
        if (wr > 0) {
            if (!mc_vec_eq(vr, own))
                predict(s, H + hb, pr, c, vr, x0 + hb, y0, wr, h, wt);
            else
                copy_cols(H + hb, O + hb, wr, h);
        }
        if (!mc_vec_eq(vt, own)) predict(s, V, pr, c, vt, x0, y0, w, ht, wt);
        else copy_cols(V, O, w, ht);
        if (hbot > 0) {
            if (!mc_vec_eq(vb, own))
                predict(s, V + hb * 32, pr, c, vb, x0, y0 + hb, w, hbot, wt);
            else
                copy_cols(V + hb * 32, O + hb * 32, w, hbot);
        }
        const int mi = c ? 1 : 0;
        s->dsp.obmc(d, ds, O, H, V, 32, s->mask8[mi][0], s->mask8[mi][1], s->mask8[mi][2], bs,
                    w, h);
    }
}

/* The three planes' pointers and strides of block (bx, by) of the first
 * grid in out. */
static void first_grid_dst(const Mc *s, OmctiPicture *out, int bx, int by, uint8_t *dst[3],
                           ptrdiff_t ds[3])
{
    for (int c = 0; c < 3; c++) {
        const int bs = c ? s->block / 2 : s->block;
        ds[c] = out->stride[c];
        dst[c] = out->data[c] + (ptrdiff_t)by * bs * ds[c] + bx * bs;
    }
}

/* Block (bx, by) of the first grid, into out. */
void mc_render_block(const Mc *s, const McVec *vec, const FilterPair *pr, int bx, int by,
                     int wt, OmctiPicture *out, uint16_t *buf)
{
    uint8_t *dst[3];
    ptrdiff_t ds[3];
    first_grid_dst(s, out, bx, by, dst, ds);
    render_block(s, &s->grid, vec, pr, bx, by, wt, 3, dst, ds, buf);
}

/* dst = the prediction of v over a quarter, or a copy of the own vector's
 * (own_pred) where v is the own vector. */
static void predict_quarter(const Mc *s, uint16_t *dst, const uint16_t *own_pred, McVec v,
                            McVec own, const FilterPair *pr, int c, int x0, int y0, int qs,
                            int wt)
{
    if (mc_vec_eq(v, own))
        copy_cols(dst, own_pred, qs, qs);
    else
        predict(s, dst, pr, c, v, x0, y0, qs, qs, wt);
}

/* mc_block.h mc_render_quad_px() a block at a time: per quarter the own,
 * outward (H, V) and inward (HI, VI) predictions, the own term blended
 * across the inner seams (the masks of mask_in, an auto-vectorised loop),
 * then the block's OBMC through the DSP table as in mc_render_block(). The
 * block is an inner one (mc_quad()), whole inside every plane. The
 * quarters go in raster order: a prediction kernel writes 8 columns or
 * more, past a quarter narrower than that (2 or 4 columns) into the next
 * quarter's columns, which that quarter then overwrites. halves as for
 * render_block(): a half not kept takes the own quarter's vector for the
 * quarters above (below) it. */
static void render_block_quad(const Mc *s, const McGrid *g, const McVec *vq, const FilterPair *pr,
                              int bx, int by, int wt, int halves, uint8_t *const dst[3],
                              const ptrdiff_t dstride[3], uint16_t *buf)
{
    const size_t n8x = 2 * (size_t)g->nbx;
    uint16_t *O = buf, *H = buf + 32 * 32, *V = buf + 2 * 32 * 32, *HI = buf + 3 * 32 * 32,
             *VI = buf + 4 * 32 * 32, *M = buf + 5 * 32 * 32;
    for (int c = 0; c < 3; c++) {
        const int bs = c ? s->block / 2 : s->block, qs = bs / 2, mi = c ? 1 : 0;
        const int x0 = (c ? g->ox >> 1 : g->ox) + bx * bs, y0 = (c ? g->oy >> 1 : g->oy) + by * bs;
        for (int i = 0; i < 4; i++) {
            const int qx = i & 1, qy = i >> 1, xq = x0 + qx * qs, yq = y0 + qy * qs;
            const size_t k = (2 * (size_t)by + qy) * n8x + 2 * (size_t)bx + qx;
            const McVec own = vq[k];
            const McVec ho = vq[qx ? k + 1 : k - 1];
            const McVec vo = (halves >> qy) & 1 ? vq[qy ? k + n8x : k - n8x] : own;
            const McVec hi = vq[qx ? k - 1 : k + 1], vi = vq[qy ? k - n8x : k + n8x];
            const int o = qy * qs * 32 + qx * qs;
            predict(s, O + o, pr, c, own, xq, yq, qs, qs, wt);
            predict_quarter(s, H + o, O + o, ho, own, pr, c, xq, yq, qs, wt);
            if (mc_vec_eq(vo, ho))
                copy_cols(V + o, H + o, qs, qs);
            else
                predict_quarter(s, V + o, O + o, vo, own, pr, c, xq, yq, qs, wt);
            predict_quarter(s, HI + o, O + o, hi, own, pr, c, xq, yq, qs, wt);
            predict_quarter(s, VI + o, O + o, vi, own, pr, c, xq, yq, qs, wt);
        }
        const int16_t *m1 = s->mask_in[mi][0], *m2 = s->mask_in[mi][1];
        for (int y = 0; y < bs; y++)
            for (int x = 0; x < bs; x++) {
                const int p0 = O[y * 32 + x];
                M[y * 32 + x] = (uint16_t)((8 * p0 + m1[y * bs + x] * (HI[y * 32 + x] - p0) +
                                            m2[y * bs + x] * (VI[y * 32 + x] - p0) + 4) >> 3);
            }
        s->dsp.obmc(dst[c], dstride[c], M, H, V, 32, s->mask8[mi][0], s->mask8[mi][1],
                    s->mask8[mi][2], bs, bs, bs);
    }
}

void mc_render_block_quad(const Mc *s, const McVec *vq, const FilterPair *pr, int bx, int by,
                          int wt, OmctiPicture *out, uint16_t *buf)
{
    uint8_t *dst[3];
    ptrdiff_t ds[3];
    first_grid_dst(s, out, bx, by, dst, ds);
    render_block_quad(s, &s->grid, vq, pr, bx, by, wt, 3, dst, ds, buf);
}

/* A block of the shifted or a half-shifted grid is rendered whole into
 * tmp (a band's edge may cut it: each band adds its own rows), then added
 * into s->acc and counted. A half of the block outside [ya, yb) is
 * discarded, so it is rendered without the neighbours on its side
 * (render_block()'s halves): the band's wavefront need not compute the
 * grid's row above its first row's block, nor the one below its last
 * (mc_cpu.c band_run()). */
void mc_render_block_acc(const Mc *s, const McGrid *g, const McVec *vec, const McVec *vq,
                         int split, const FilterPair *pr, int bx, int by, int wt, int ya, int yb,
                         uint16_t *buf, uint8_t *tmp)
{
    uint8_t *dst[3] = { tmp, tmp + 32 * 32, tmp + 2 * 32 * 32 };
    const ptrdiff_t ts[3] = { 32, 32, 32 };
    const int ym = g->oy + by * s->block + s->block / 2; /* luma row of the halves' seam */
    const int halves = (ya < ym) | (yb > ym) << 1;
    if (split)
        render_block_quad(s, g, vq, pr, bx, by, wt, halves, dst, ts, buf);
    else
        render_block(s, g, vec, pr, bx, by, wt, halves, dst, ts, buf);
    for (int c = 0; c < 3; c++) {
        const int pw = c ? chroma_size(s->w) : s->w, ph = c ? chroma_size(s->h) : s->h;
        const int bs = c ? s->block / 2 : s->block;
        const int x0 = (c ? g->ox >> 1 : g->ox) + bx * bs, y0 = (c ? g->oy >> 1 : g->oy) + by * bs;
        const int w = min_i(bs, pw - x0);
        const int r0 = max_i(y0, c ? ya >> 1 : ya), r1 = min_i(min_i(y0 + bs, ph), c ? yb >> 1 : yb);
        for (int y = r0; y < r1; y++) {
            uint16_t *a = s->acc[c] + (size_t)y * pw + x0;
            uint8_t *n = s->cnt[c] + (size_t)y * pw + x0;
            const uint8_t *t = dst[c] + (y - y0) * 32;
            for (int x = 0; x < w; x++) {
                a[x] = (uint16_t)(a[x] + t[x]);
                n[x]++;
            }
        }
    }
}

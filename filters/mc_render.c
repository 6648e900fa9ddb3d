/* Rendering of the motion-compensated filters (mc.h): the bidirectional
 * bicubic prediction of each vector and the OBMC sum, one block at a time. */
#include <string.h>

#include "src/common.h"
#include "filters/mc_priv.h"

/* Bicubic samples (separable Catmull-Rom taps mc_cubic_taps), the same
 * interface and units as mc_sample_bilinear(), clamped to the padded plane
 * where the footprint leaves it. The horizontal pass keeps 1/64 in int16,
 * the vertical pass rounds once to 1/16 and clamps to 0..4080. tmp holds
 * (h + 3) * w values. */
static void sample_cubic(uint16_t *dst, int ds, const OmctiPlane *p, int x0, int y0, int fx,
                         int fy, int w, int h, int16_t *tmp)
{
    if (!fx && !fy) {
        mc_sample_bilinear(dst, ds, p, x0, y0, 0, 0, w, h);
        return;
    }
    const int8_t *cx = mc_cubic_taps[fx], *cy = mc_cubic_taps[fy];
    const int lo = -p->pad, hix = p->w - 1 + p->pad, hiy = p->h - 1 + p->pad;
    const int fast = x0 - 1 >= lo && x0 + w + 1 <= hix && y0 - 1 >= lo && y0 + h + 1 <= hiy;
    for (int r = 0; r < h + 3; r++) {
        const uint8_t *row = p->data + (ptrdiff_t)clampc(y0 - 1 + r, lo, hiy) * p->stride;
        int16_t *t = tmp + r * w;
        if (fast) {
            const uint8_t *q = row + x0;
            for (int x = 0; x < w; x++)
                t[x] = (int16_t)(cx[0] * q[x - 1] + cx[1] * q[x] + cx[2] * q[x + 1] +
                                 cx[3] * q[x + 2]);
        } else {
            for (int x = 0; x < w; x++)
                t[x] = (int16_t)(cx[0] * row[clampc(x0 + x - 1, lo, hix)] +
                                 cx[1] * row[clampc(x0 + x, lo, hix)] +
                                 cx[2] * row[clampc(x0 + x + 1, lo, hix)] +
                                 cx[3] * row[clampc(x0 + x + 2, lo, hix)]);
        }
    }
    for (int y = 0; y < h; y++, dst += ds) {
        const int16_t *t0 = tmp + y * w, *t1 = t0 + w, *t2 = t1 + w, *t3 = t2 + w;
        for (int x = 0; x < w; x++) {
            int v = cy[0] * t0[x] + cy[1] * t1[x] + cy[2] * t2[x] + cy[3] * t3[x] + 128;
            v = v < 0 ? 0 : v >> 8;
            dst[x] = (uint16_t)(v > 4080 ? 4080 : v);
        }
    }
}

/* Whether the bicubic footprint of a w x h region whose integer sample
 * (0, 0) is (x0, y0) lies inside the padded plane (rows y0-1 .. y0+h+1,
 * columns x0-1 .. x0+w+1): then no coordinate needs clamping. */
static inline int cubic_inside(const OmctiPlane *p, int x0, int y0, int w, int h)
{
    return x0 - 1 >= -p->pad && y0 - 1 >= -p->pad && x0 + w + 1 <= p->w - 1 + p->pad &&
           y0 + h + 1 <= p->h - 1 + p->pad;
}

/* Prediction of a w x h region at (x0, y0) of plane c for one vector, in
 * 1/16 units, into dst (stride 32): through the DSP table when both
 * footprints are inside the padded planes, else from clamped samples. The
 * kernel computes 8, 16 or 32 columns; columns past w are scratch (dst has
 * room for them), and a sample's value does not depend on the region it is
 * computed in, so predicting a whole block at once equals predicting its
 * sub-blocks one by one. */
static void predict(const Mc *s, uint16_t *dst, const FilterPair *pr, int c, McVec v, int x0,
                    int y0, int w, int h, int wt, uint16_t *tmp, int16_t *tmp2)
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
    if (cubic_inside(P, ix, iy, w, h) && cubic_inside(N, jx, jy, w, h)) {
        const int kw = w <= 8 ? 8 : w <= 16 ? 16 : 32;
        s->dsp.pred2(dst, 32, P->data + (ptrdiff_t)iy * P->stride + ix, P->stride, fx, fy,
                     N->data + (ptrdiff_t)jy * N->stride + jx, N->stride, gx, gy, kw, h, wt);
        return;
    }
    sample_cubic(dst, 32, P, ix, iy, fx, fy, w, h, tmp2);
    sample_cubic(tmp, w, N, jx, jy, gx, gy, w, h, tmp2);
    const int wp = 256 - wt;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[y * 32 + x] = (uint16_t)((wp * dst[y * 32 + x] + wt * tmp[y * w + x] + 128) >> 8);
}

static void copy_cols(uint16_t *dst, const uint16_t *src, int w, int h)
{
    for (int y = 0; y < h; y++)
        memcpy(dst + y * 32, src + y * 32, (size_t)w * sizeof *dst);
}

/* Per block rather than per sub-block: the own vector's prediction over the
 * whole block, each neighbour's over the half block it weighs on (only
 * where its vector differs from the own one: else the own prediction is
 * that neighbour's prediction too), then one OBMC pass. The masks are
 * multiples of 32/256, so the sum (w_own*p_own + w_h*p_h + w_v*p_v + 2048)
 * >> 12 equals (k0*p0 + k1*ph + k2*pv + 64) >> 7 with k = w/32, which for
 * ph == pv == p0 is (p0 + 8) >> 4, the one-vector picture. */
void mc_render_block(const Mc *s, const McVec *vec, const FilterPair *pr, int bx, int by,
                     int wt, OmctiPicture *out, uint16_t *buf, int16_t *tmp2)
{
    const size_t k = (size_t)by * s->nbx + bx;
    const McVec own = vec[k];
    McVec vl = own, vr = own, vt = own, vb = own;
    if (s->overlap) {
        if (bx > 0) vl = vec[k - 1];
        if (bx + 1 < s->nbx) vr = vec[k + 1];
        if (by > 0) vt = vec[k - s->nbx];
        if (by + 1 < s->nby) vb = vec[k + s->nbx];
    }
    const int same = mc_vec_eq(vl, own) && mc_vec_eq(vr, own) && mc_vec_eq(vt, own) && mc_vec_eq(vb, own);
    uint16_t *O = buf, *H = buf + 32 * 32, *V = buf + 2 * 32 * 32, *tmp = buf + 3 * 32 * 32;
    for (int c = 0; c < 3; c++) {
        const int pw = c ? chroma_size(s->w) : s->w, ph = c ? chroma_size(s->h) : s->h;
        const int bs = c ? s->block / 2 : s->block, hb = bs / 2;
        const int x0 = bx * bs, y0 = by * bs;
        if (x0 >= pw || y0 >= ph) continue;
        const int w = min_i(bs, pw - x0), h = min_i(bs, ph - y0);
        const ptrdiff_t ds = out->stride[c];
        uint8_t *d = out->data[c] + (ptrdiff_t)y0 * ds + x0;
        predict(s, O, pr, c, own, x0, y0, w, h, wt, tmp, tmp2);
        if (same) {
            s->dsp.put(d, ds, O, 32, w, h);
            continue;
        }
        /* columns [0, hb) weigh the left neighbour, [hb, bs) the right one;
         * rows [0, hb) the one above, [hb, bs) the one below */
        const int wl = min_i(hb, w), wr = w - hb, ht = min_i(hb, h), hbot = h - hb;
        if (!mc_vec_eq(vl, own)) predict(s, H, pr, c, vl, x0, y0, wl, h, wt, tmp, tmp2);
        else copy_cols(H, O, wl, h);
        if (wr > 0) {
            if (!mc_vec_eq(vr, own))
                predict(s, H + hb, pr, c, vr, x0 + hb, y0, wr, h, wt, tmp, tmp2);
            else
                copy_cols(H + hb, O + hb, wr, h);
        }
        if (!mc_vec_eq(vt, own)) predict(s, V, pr, c, vt, x0, y0, w, ht, wt, tmp, tmp2);
        else copy_cols(V, O, w, ht);
        if (hbot > 0) {
            if (!mc_vec_eq(vb, own))
                predict(s, V + hb * 32, pr, c, vb, x0, y0 + hb, w, hbot, wt, tmp, tmp2);
            else
                copy_cols(V + hb * 32, O + hb * 32, w, hbot);
        }
        const int mi = c ? 1 : 0;
        s->dsp.obmc(d, ds, O, H, V, 32, s->mask8[mi][0], s->mask8[mi][1], s->mask8[mi][2], bs,
                    w, h);
    }
}

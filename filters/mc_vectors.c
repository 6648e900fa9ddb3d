/* Vector choice of the motion-compensated filters (mc.h): candidates from
 * both fields, their bilateral costs, the median of outliers and the
 * sub-pel refinement, one block at a time. */
#include <stdlib.h>

#include "src/common.h"
#include "filters/mc_priv.h"

#define MAX_CAND 40

void mc_sample_bilinear(uint16_t *dst, int ds, const OmctiPlane *p, int x0, int y0, int fx,
                        int fy, int w, int h)
{
    const uint16_t w00 = (uint16_t)((16 - fx) * (16 - fy)), w01 = (uint16_t)(fx * (16 - fy));
    const uint16_t w10 = (uint16_t)((16 - fx) * fy), w11 = (uint16_t)(fx * fy);
    if (inside(p, x0, y0, w, h)) {
        const uint8_t *src = p->data + y0 * p->stride + x0;
        if (!fx && !fy) {
            for (int y = 0; y < h; y++, src += p->stride, dst += ds)
                for (int x = 0; x < w; x++)
                    dst[x] = (uint16_t)(src[x] << 4);
            return;
        }
        for (int y = 0; y < h; y++, src += p->stride, dst += ds) {
            const uint8_t *r0 = src, *r1 = src + p->stride;
            for (int x = 0; x < w; x++)
                dst[x] = (uint16_t)((uint16_t)(w00 * r0[x] + w01 * r0[x + 1] +
                                               w10 * r1[x] + w11 * r1[x + 1] + 8) >> 4);
        }
        return;
    }
    /* Outside the padded plane coordinates are clamped, which equals
     * infinite edge replication because the padding replicates the edge. */
    const int lo = -p->pad, hix = p->w - 1 + p->pad, hiy = p->h - 1 + p->pad;
    for (int y = 0; y < h; y++, dst += ds) {
        const uint8_t *r0 = p->data + clampc(y0 + y, lo, hiy) * p->stride;
        const uint8_t *r1 = p->data + clampc(y0 + y + 1, lo, hiy) * p->stride;
        for (int x = 0; x < w; x++) {
            const int xa = clampc(x0 + x, lo, hix), xb = clampc(x0 + x + 1, lo, hix);
            dst[x] = (uint16_t)((w00 * r0[xa] + w01 * r0[xb] + w10 * r1[xa] + w11 * r1[xb] + 8) >> 4);
        }
    }
}

/* SAD between prev at (x - ax, y - ay) and next at (x + bx, y + by), full
 * pel, over the window [x0, x0+w) x [y0, y0+h). */
static uint32_t cost_int(const McDSP *dsp, const OmctiPlane *P, const OmctiPlane *N, int x0,
                         int y0, int w, int h, int ax, int ay, int bx, int by)
{
    uint32_t sad = 0;
    if (inside(P, x0 - ax, y0 - ay, w, h) && inside(N, x0 + bx, y0 + by, w, h))
        return dsp->sad(P->data + (ptrdiff_t)(y0 - ay) * P->stride + x0 - ax, P->stride,
                        N->data + (ptrdiff_t)(y0 + by) * N->stride + x0 + bx, N->stride, w, h);
    for (int y = 0; y < h; y++) {
        const uint8_t *p = P->data + clampc(y0 + y - ay, -P->pad, P->h - 1 + P->pad) * P->stride;
        const uint8_t *n = N->data + clampc(y0 + y + by, -N->pad, N->h - 1 + N->pad) * N->stride;
        for (int x = 0; x < w; x++)
            sad += (uint32_t)abs(p[clampc(x0 + x - ax, -P->pad, P->w - 1 + P->pad)] -
                                 n[clampc(x0 + x + bx, -N->pad, N->w - 1 + N->pad)]);
    }
    return sad;
}

/* Exact bilateral cost of a quarter-pel vector at the phase over the
 * window, in 1/16 units (bilinear samples). tmp holds 2*w*h samples. */
static uint32_t cost_sub(const McDSP *dsp, const OmctiPlane *P, const OmctiPlane *N, int x0,
                         int y0, int w, int h, int vx, int vy, const McPhase *ph, uint16_t *tmp)
{
    int ax, ay, bx, by, ix, fx, iy, fy, jx, gx, jy, gy;
    phase_split(vx, 4, ph, &ax, &bx);
    phase_split(vy, 4, ph, &ay, &by);
    split16(x0 * 16 - ax, &ix, &fx);
    split16(y0 * 16 - ay, &iy, &fy);
    split16(x0 * 16 + bx, &jx, &gx);
    split16(y0 * 16 + by, &jy, &gy);
    /* Both footprints inside the padded planes (nearly always): the fused
     * bilinear SAD kernel; else the clamped per-pixel samples. */
    if (inside(P, ix, iy, w, h) && inside(N, jx, jy, w, h))
        return dsp->sad_bilin(P->data + (ptrdiff_t)iy * P->stride + ix, P->stride, fx, fy,
                              N->data + (ptrdiff_t)jy * N->stride + jx, N->stride, gx, gy, w, h);
    uint16_t *tp = tmp, *tn = tmp + w * h;
    mc_sample_bilinear(tp, w, P, ix, iy, fx, fy, w, h);
    mc_sample_bilinear(tn, w, N, jx, jy, gx, gy, w, h);
    uint32_t sad = 0;
    for (int i = 0; i < w * h; i++)
        sad += (uint32_t)abs(tp[i] - tn[i]);
    return sad;
}

/* The bilateral window of block (bx, by): the block grown by a margin on
 * every side, clipped to the picture so that padding never votes. */
static void block_window(const Mc *s, int bx, int by, int *x0, int *y0, int *w, int *h)
{
    const int m = s->block / MC_MARGIN_DIV;
    const int xa = max_i(bx * s->block - m, 0), ya = max_i(by * s->block - m, 0);
    const int xb = min_i((bx + 1) * s->block + m, s->w), yb = min_i((by + 1) * s->block + m, s->h);
    *x0 = xa;
    *y0 = ya;
    *w = xb - xa;
    *h = yb - ya;
}

/* Candidate order decides ties: the zero vector, then the block's own
 * forward and backward vectors, then the neighbours' in raster order. */
static int gather_candidates(const MotionFields *f, int bx, int by,
                             int cx[MAX_CAND], int cy[MAX_CAND])
{
    uint32_t keys[MAX_CAND];
    int n = 0;
    keys[n] = 0; cx[n] = 0; cy[n] = 0; n++;
    static const int order[9][2] = {
        {0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
    };
    for (int k = 0; k < 9; k++) {
        const int x = bx + order[k][0], y = by + order[k][1];
        if (x < 0 || y < 0 || x >= f->fwd.bw || y >= f->fwd.bh) continue;
        const MotionVector vf = f->fwd.mv[y * f->fwd.bw + x];
        const MotionVector vb = f->bwd.mv[y * f->bwd.bw + x];
        const int vx[2] = {vf.x, -vb.x}, vy[2] = {vf.y, -vb.y};
        for (int j = 0; j < 2; j++) {
            /* branch-free duplicate test on packed (x, y) keys; the slot
             * at n is overwritten when the candidate was a duplicate */
            const uint32_t key = (uint32_t)(uint16_t)vx[j] | (uint32_t)vy[j] << 16;
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= keys[i] == key;
            keys[n] = key;
            cx[n] = vx[j];
            cy[n] = vy[j];
            n += !dup;
        }
    }
    return n;
}

void mc_choose_block(const Mc *s, const FilterPair *pr, int bx, int by, McVec *vec,
                     uint32_t *cost, uint16_t *tmp)
{
    const OmctiPlane *P = &pr->prev->p[0], *N = &pr->next->p[0];
    int cx[MAX_CAND], cy[MAX_CAND];
    const int n = gather_candidates(pr->fields, bx, by, cx, cy);
    int x0, y0, w, h;
    block_window(s, bx, by, &x0, &y0, &w, &h);
    uint32_t best = UINT32_MAX;
    int bi = 0;
    for (int i = 0; i < n; i++) {
        const int ax = phase_disp(&s->ph, cx[i]), ay = phase_disp(&s->ph, cy[i]);
        const uint32_t c = cost_int(&s->dsp, P, N, x0, y0, w, h, ax, ay, cx[i] - ax, cy[i] - ay);
        if (c < best) {
            best = c;
            bi = i;
        }
    }
    const size_t k = (size_t)by * s->nbx + bx;
    vec[k] = (McVec){ (int16_t)(cx[bi] * 4), (int16_t)(cy[bi] * 4), 0 };
    /* The screening above reads whole pixels (the window shifted by at most
     * half a pixel); what the later stages compare is the exact cost. */
    cost[k] = cost_sub(&s->dsp, P, N, x0, y0, w, h, cx[bi] * 4, cy[bi] * 4, &s->ph, tmp);
}

/* Vector median of the 3x3 neighbourhood: the member with the smallest sum
 * of L1 distances to the others (first in raster order on a tie). */
static McVec vector_median(const Mc *s, const McVec *v, int bx, int by)
{
    McVec m[9];
    int n = 0;
    for (int y = by - 1; y <= by + 1; y++)
        for (int x = bx - 1; x <= bx + 1; x++)
            if (x >= 0 && y >= 0 && x < s->nbx && y < s->nby)
                m[n++] = v[(size_t)y * s->nbx + x];
    int best = 0;
    int64_t bd = INT64_MAX;
    for (int i = 0; i < n; i++) {
        int64_t d = 0;
        for (int j = 0; j < n; j++)
            d += abs(m[i].x - m[j].x) + abs(m[i].y - m[j].y);
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return m[best];
}

McVec mc_refine_block(const Mc *s, const FilterPair *pr, int bx, int by, const McVec *vec_a,
                      const uint32_t *cost_a, uint16_t *tmp)
{
    const OmctiPlane *P = &pr->prev->p[0], *N = &pr->next->p[0];
    const size_t k = (size_t)by * s->nbx + bx;
    McVec v = vec_a[k];
    uint32_t c = cost_a[k];
    int x0, y0, w, h;
    block_window(s, bx, by, &x0, &y0, &w, &h);
    /* Median of outliers: a vector unlike its neighbours is replaced by
     * their median when that costs at most a little more here. */
    const McVec m = vector_median(s, vec_a, bx, by);
    if (m.x != v.x || m.y != v.y) {
        const uint32_t cm = cost_sub(&s->dsp, P, N, x0, y0, w, h, m.x, m.y, &s->ph, tmp);
        if ((uint64_t)cm * 16 <= (uint64_t)c * (16 + MC_MEDIAN_TOL)) {
            v = m;
            c = cm;
        }
    }
    /* Sub-pel refinement: half then quarter pel around the choice, the
     * bilateral cost measured on bilinear samples. The refinement compares
     * vectors that differ by a fraction of a pixel: the block itself decides
     * (no margin), over the 8 points of the square around the vector per
     * step (docs/quality.md, "8 points per step"). */
    const int sx0 = bx * s->block, sy0 = by * s->block;
    const int sw = min_i(s->block, s->w - sx0), sh = min_i(s->block, s->h - sy0);
    c = cost_sub(&s->dsp, P, N, sx0, sy0, sw, sh, v.x, v.y, &s->ph, tmp);
    static const int d8[8][2] = {
        {0, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
    };
    for (int step = 2; step >= 1; step--) {
        McVec best = v;
        for (int i = 0; i < 8; i++) {
            const int vx = v.x + d8[i][0] * step, vy = v.y + d8[i][1] * step;
            const uint32_t cc = cost_sub(&s->dsp, P, N, sx0, sy0, sw, sh, vx, vy, &s->ph, tmp);
            if (cc < c) {
                c = cc;
                best.x = (int16_t)vx;
                best.y = (int16_t)vy;
            }
        }
        v = best;
    }
    /* No per-block hold: holding blocks whose best vector barely beats the
     * zero vector cost 0.06-0.09 dB on every camera clip; the stepwise-source
     * rule (scenecut.h) is what fixes screen content (docs/quality.md). */
    return v;
}

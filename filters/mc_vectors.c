/* Vector choice of the motion-compensated filters (mc.h): candidates from
 * both fields, their bilateral costs, the median of outliers and the
 * sub-pel refinement, one block at a time. */
#include <stdlib.h>

#include "src/common.h"
#include "filters/mc_priv.h"

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
static inline uint32_t cost_int(const McDSP *dsp, const OmctiPlane *P, const OmctiPlane *N, int x0,
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
    mc_phase_split(vx, 4, ph, &ax, &bx);
    mc_phase_split(vy, 4, ph, &ay, &by);
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

/* The CPU's costs for the decisions of filters/mc_stages.h: the DSP table
 * on footprints inside the padded planes, clamped samples elsewhere. */
typedef struct McCostCtx {
    const McDSP *dsp;
    const OmctiPlane *P, *N;
    const McPhase *ph;
    uint16_t *tmp;
} McCostCtx;

#define MC_STAGE_CTX const McCostCtx *

static inline uint32_t mc_cost_int(const McCostCtx *c, int x0, int y0, int w, int h, int ax,
                                   int ay, int bx, int by)
{
    return cost_int(c->dsp, c->P, c->N, x0, y0, w, h, ax, ay, bx, by);
}

static inline uint32_t mc_cost_sub(const McCostCtx *c, int x0, int y0, int w, int h, int vx,
                                   int vy)
{
    return cost_sub(c->dsp, c->P, c->N, x0, y0, w, h, vx, vy, c->ph, c->tmp);
}

#include "filters/mc_stages.h"

void mc_choose_block(const Mc *s, const FilterPair *pr, int bx, int by, McVec *vec,
                     uint32_t *cost, uint16_t *tmp)
{
    const McCostCtx c = { &s->dsp, &pr->prev->p[0], &pr->next->p[0], &s->ph, tmp };
    const MotionFields *f = pr->fields;
    const size_t k = (size_t)by * s->nbx + bx;
    /* MotionVector is McVec's layout (int16 x, y) */
    vec[k] = mc_choose(&c, &s->grid, &s->ph, (const McVec *)f->fwd.mv, (const McVec *)f->bwd.mv,
                       bx, by, &cost[k]);
}

McVec mc_refine_block(const Mc *s, const FilterPair *pr, int bx, int by, const McVec *vec_a,
                      const uint32_t *cost_a, uint16_t *tmp)
{
    const McCostCtx c = { &s->dsp, &pr->prev->p[0], &pr->next->p[0], &s->ph, tmp };
    return mc_refine(&c, &s->grid, vec_a, cost_a, bx, by);
}

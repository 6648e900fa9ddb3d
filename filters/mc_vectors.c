/* Vector choice of the motion-compensated filters (mc.h): candidates from
 * both fields, their bilateral costs, the median of outliers and the
 * sub-pel refinement, one block at a time. */
#include "src/common.h"
#include "filters/mc_priv.h"

/* The C reference with clamped reads on the visible planes (equal to the
 * padded planes' reads: the padding replicates the edge), for footprints
 * that leave the padding; out of line, so that the fast paths stay lean. */
#if defined(__GNUC__)
#define COLD __attribute__((noinline, cold))
#else
#define COLD
#endif

static COLD uint32_t cost_int_clamped(const OmctiPlane *P, const OmctiPlane *N, int x0, int y0,
                                      int w, int h, int ax, int ay, int bx, int by)
{
    const McPlaneView p = { P->data, (int)P->stride, P->w, P->h };
    const McPlaneView n = { N->data, (int)N->stride, N->w, N->h };
    return mc_cost_int_part(&p, &n, x0, y0, w, h, ax, ay, bx, by, 0, 1);
}

static COLD uint32_t cost_sub_clamped(const OmctiPlane *P, const OmctiPlane *N,
                                      const McPhase *ph, int x0, int y0, int w, int h, int vx,
                                      int vy)
{
    const McPlaneView p = { P->data, (int)P->stride, P->w, P->h };
    const McPlaneView n = { N->data, (int)N->stride, N->w, N->h };
    return mc_cost_sub_part(&p, &n, ph, x0, y0, w, h, vx, vy, 0, 1);
}

/* SAD between prev at (x - ax, y - ay) and next at (x + bx, y + by), full
 * pel, over the window [x0, x0+w) x [y0, y0+h): the DSP table when both
 * footprints are inside the padded planes (nearly always), else the C
 * reference with clamped reads. */
static inline uint32_t cost_int(const McDSP *dsp, const OmctiPlane *P, const OmctiPlane *N,
                                int x0, int y0, int w, int h, int ax, int ay, int bx, int by,
                                uint32_t bound)
{
    if (inside(P, x0 - ax, y0 - ay, w, h) && inside(N, x0 + bx, y0 + by, w, h))
        return dsp->sad(P->data + (ptrdiff_t)(y0 - ay) * P->stride + x0 - ax, P->stride,
                        N->data + (ptrdiff_t)(y0 + by) * N->stride + x0 + bx, N->stride, w, h,
                        bound);
    return cost_int_clamped(P, N, x0, y0, w, h, ax, ay, bx, by);
}

/* Bilateral cost of a quarter-pel vector at the phase over the window, in
 * 1/16 units (bilinear samples): the fused DSP kernel (which may stop once
 * the sum reaches bound, mc_dsp.h), or the C reference where a footprint
 * leaves the padded planes. */
/* cost_sub() with the displacements (1/16 pel) split already; `in`: the
 * caller knows both footprints lie inside the padded planes. */
static inline uint32_t cost_sub_split(const McDSP *dsp, const OmctiPlane *P, const OmctiPlane *N,
                                      int x0, int y0, int w, int h, int ax, int ay, int bx,
                                      int by, int vx, int vy, const McPhase *ph, uint32_t bound,
                                      int in)
{
    int ix, fx, iy, fy, jx, gx, jy, gy;
    split16(x0 * 16 - ax, &ix, &fx);
    split16(y0 * 16 - ay, &iy, &fy);
    split16(x0 * 16 + bx, &jx, &gx);
    split16(y0 * 16 + by, &jy, &gy);
    if (in || (inside(P, ix, iy, w, h) && inside(N, jx, jy, w, h)))
        return dsp->sad_bilin(P->data + (ptrdiff_t)iy * P->stride + ix, P->stride, fx, fy,
                              N->data + (ptrdiff_t)jy * N->stride + jx, N->stride, gx, gy, w, h,
                              bound);
    return cost_sub_clamped(P, N, ph, x0, y0, w, h, vx, vy);
}

static inline uint32_t cost_sub(const McDSP *dsp, const OmctiPlane *P, const OmctiPlane *N,
                                int x0, int y0, int w, int h, int vx, int vy, const McPhase *ph,
                                uint32_t bound)
{
    int ax, ay, bx, by;
    mc_phase_split(vx, 4, ph, &ax, &bx);
    mc_phase_split(vy, 4, ph, &ay, &by);
    return cost_sub_split(dsp, P, N, x0, y0, w, h, ax, ay, bx, by, vx, vy, ph, bound, 0);
}

/* The CPU's costs for the decisions of filters/mc_stages.h: the DSP table
 * on footprints inside the padded planes, clamped samples elsewhere. */
typedef struct McCostCtx {
    const McDSP *dsp;
    const OmctiPlane *P, *N;        /* luma                              */
    const McPhase *ph;
    const OmctiPlane *PU, *NU, *PV, *NV; /* chroma (stage A's colour term) */
} McCostCtx;

/* Whether the luma planes have the padding that a footprint inside the
 * picture reads past its last column and row (the bilinear neighbour):
 * then such a footprint needs no inside() test (mc_cost_sub_os_below()). */
static inline int padded(const McCostCtx *c)
{
    return c->P->pad >= 1 && c->N->pad >= 1;
}

#define MC_STAGE_CTX const McCostCtx *

static inline uint32_t mc_cost_int(const McCostCtx *c, int x0, int y0, int w, int h, int ax,
                                   int ay, int bx, int by)
{
    return cost_int(c->dsp, c->P, c->N, x0, y0, w, h, ax, ay, bx, by, UINT32_MAX);
}

static inline uint32_t mc_cost_sub(const McCostCtx *c, int x0, int y0, int w, int h, int vx,
                                   int vy)
{
    return cost_sub(c->dsp, c->P, c->N, x0, y0, w, h, vx, vy, c->ph, UINT32_MAX);
}

/* The one-sided costs (mc_block.h mc_one_sided_cost()) from rectangles:
 * the pixels whose two integer samples lie inside the picture form a
 * rectangle (mc_valid_rect()), and a sample's position does not depend on
 * the window it is summed in, so the SAD over them is the DSP cost over
 * that rectangle; the two-sided SAD is needed only where the rule does not
 * apply. Windows whose samples are all inside (nearly all) take one call. */
static inline uint32_t mc_cost_int_os_below(const McCostCtx *c, const McGrid *g, int x0, int y0,
                                            int w, int h, int ax, int ay, int bx, int by,
                                            uint32_t bound)
{
    if (mc_in_picture(g->width, g->height, x0 - ax, y0 - ay, w, h) &&
        mc_in_picture(g->width, g->height, x0 + bx, y0 + by, w, h))
        return cost_int(c->dsp, c->P, c->N, x0, y0, w, h, ax, ay, bx, by, bound);
    int rx, ry, rw, rh;
    mc_valid_rect(g->width, g->height, x0, y0, w, h, -ax, -ay, bx, by, &rx, &ry, &rw, &rh);
    const int valid = rw > 0 && rh > 0 ? rw * rh : 0;
    const uint32_t missed = (uint32_t)(w * h - valid);
    if (!mc_one_sided_applies(w * h, missed))
        return mc_cost_int(c, x0, y0, w, h, ax, ay, bx, by);
    const uint32_t sad = valid ? mc_cost_int(c, rx, ry, rw, rh, ax, ay, bx, by) : 0;
    return mc_one_sided_cost(w * h, 0, sad, missed, MC_OCC_T);
}

/* The refinement calls this 17 times a block or more: inlined, and a
 * footprint inside the picture goes straight to the DSP kernel. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t mc_cost_sub_os_below(const McCostCtx *c, const McGrid *g,
                                            const McPhase *ph, int x0, int y0, int w, int h,
                                            int vx, int vy, uint32_t bound)
{
    /* |a|, |b| <= 4 |v| (1/16 pel): the integer sample positions lie
     * within (|v| + 3) / 4 pixels of the window */
    const int mx = (mc_abs(vx) + 3) >> 2, my = (mc_abs(vy) + 3) >> 2;
    int ax, ay, bx, by, rx, ry, rw, rh;
    mc_phase_split(vx, 4, ph, &ax, &bx);
    mc_phase_split(vy, 4, ph, &ay, &by);
    /* inside the picture, the samples (ix .. ix + w) x (iy .. iy + h) are
     * too but for the last column and row, which the padding holds */
    if (mc_in_picture(g->width, g->height, x0 - mx, y0 - my, w + 2 * mx, h + 2 * my))
        return cost_sub_split(c->dsp, c->P, c->N, x0, y0, w, h, ax, ay, bx, by, vx, vy, ph,
                              bound, padded(c));
    mc_valid_rect(g->width, g->height, x0, y0, w, h, (-ax) >> 4, (-ay) >> 4, bx >> 4, by >> 4,
                  &rx, &ry, &rw, &rh);
    const int valid = rw > 0 && rh > 0 ? rw * rh : 0;
    const uint32_t missed = (uint32_t)(w * h - valid);
    if (!mc_one_sided_applies(w * h, missed))
        return mc_cost_sub(c, x0, y0, w, h, vx, vy);
    const uint32_t sad = valid ? mc_cost_sub(c, rx, ry, rw, rh, vx, vy) : 0;
    return mc_one_sided_cost(w * h, 0, sad, missed, 16 * MC_OCC_T);
}

static inline uint32_t mc_cost_int_os(const McCostCtx *c, const McGrid *g, int x0, int y0, int w,
                                      int h, int ax, int ay, int bx, int by)
{
    return mc_cost_int_os_below(c, g, x0, y0, w, h, ax, ay, bx, by, UINT32_MAX);
}

static inline uint32_t mc_cost_sub_os(const McCostCtx *c, const McGrid *g, const McPhase *ph,
                                      int x0, int y0, int w, int h, int vx, int vy)
{
    return mc_cost_sub_os_below(c, g, ph, x0, y0, w, h, vx, vy, UINT32_MAX);
}

/* The colour term's sums from rectangles, as mc_cost_int_os(): the pixels
 * both sides see form one rectangle of the chroma plane. */
static inline void mc_chroma_os(const McCostCtx *c, int x0, int y0, int w, int h, int ax, int ay,
                                int bx, int by, uint32_t *sad, uint32_t *missed)
{
    int rx, ry, rw, rh;
    mc_valid_rect(c->PU->w, c->PU->h, x0, y0, w, h, -ax, -ay, bx, by, &rx, &ry, &rw, &rh);
    const int valid = rw > 0 && rh > 0 ? rw * rh : 0;
    *missed = (uint32_t)(w * h - valid);
    *sad = valid ? cost_int(c->dsp, c->PU, c->NU, rx, ry, rw, rh, ax, ay, bx, by, UINT32_MAX) +
                       cost_int(c->dsp, c->PV, c->NV, rx, ry, rw, rh, ax, ay, bx, by, UINT32_MAX)
                 : 0;
}

#include "filters/mc_stages.h"

void mc_choose_block(const Mc *s, const McGrid *g, const FilterPair *pr, const McVec *more,
                     int nmore, int bx, int by, McVec *vec)
{
    const McCostCtx c = { &s->dsp,         &pr->prev->p[0], &pr->next->p[0], &s->ph,
                          &pr->prev->p[1], &pr->next->p[1], &pr->prev->p[2], &pr->next->p[2] };
    const MotionFields *f = pr->fields;
    const size_t k = (size_t)by * g->nbx + bx;
    /* MotionVector is McVec's layout (int16 x, y) */
    vec[k] = mc_choose(&c, g, &s->ph, (const McVec *)f->fwd.mv, (const McVec *)f->bwd.mv,
                       &s->cam_model, s->cam, more, nmore, bx, by);
}

McVec mc_refine_block(const Mc *s, const McGrid *g, const FilterPair *pr, int bx, int by,
                      const McVec *vec_a)
{
    const McCostCtx c = { &s->dsp, &pr->prev->p[0], &pr->next->p[0], &s->ph, NULL, NULL, NULL,
                          NULL };   /* (stage C counts no colour) */
    return mc_refine(&c, g, &s->ph, vec_a, bx, by);
}

int mc_quad_block(const Mc *s, const McGrid *g, const FilterPair *pr, int bx, int by,
                  const McVec *vec_c, McVec *vec_q)
{
    const McCostCtx c = { &s->dsp, &pr->prev->p[0], &pr->next->p[0], &s->ph, NULL, NULL, NULL,
                          NULL };
    McVec q[4];
    const MotionFields *f = pr->fields;
    const int any = mc_quad(&c, g, &s->ph, vec_c, (const McVec *)f->fwd.mv,
                            (const McVec *)f->bwd.mv, bx, by, q);
    mc_quad_store(vec_q, g->nbx, bx, by, q);
    return any;
}

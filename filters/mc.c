/* The motion-compensated interpolator shared by omcti and mcti (mc.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if OMCTI_HAVE_OPENMP
#include <omp.h>
#endif

#include "src/common.h"
#include "filters/mc.h"
#include "filters/mc_dsp.h"
#include "filters/scenecut.h"

#define MAX_CAND 40

/* The phase t = num/den with its displacement table: tab[k + K] is
 * mc_rdiv(num * k, den) for |k| <= K, which saves a 64-bit division per
 * displacement (several per candidate and per prediction). */
typedef struct McPhase {
    int64_t num, den;
    int32_t *tab;
    int K;
} McPhase;

/* mc_rdiv(num * k, den) */
static inline int phase_disp(const McPhase *ph, int k)
{
    if (k >= -ph->K && k <= ph->K)
        return ph->tab[k + ph->K];
    return (int)mc_rdiv(ph->num * k, ph->den);
}

/* A chosen vector of one block of the in-between picture. */
typedef struct McVec {
    int16_t x, y;  /* quarter luma pel, prev -> next                       */
    int32_t pad_;
} McVec;

/* Knobs measured in docs/quality.md; fixed at their chosen values. */
typedef struct McTuning {
    int margin_div;     /* bilateral window = block + 2*block/margin_div     */
    int median;         /* 3x3 vector median of outliers                     */
    int median_tol;     /* accept the median if its cost <= own*(16+tol)/16  */
    int subpel;         /* 0 integer, 1 half, 2 quarter pel refinement       */
    int zero_bias;      /* zero vector cost * (16 - zero_bias) / 16          */
    McMask mask;
    int cubic;          /* render with bicubic (1) or bilinear (0) samples   */
    int cost_cubic;     /* the same for the bilateral costs                  */
    int refine_block_only; /* sub-pel refinement on the block, no margin     */
    int refine_points;  /* 4 (cross) or 8 (square) per sub-pel step         */
} McTuning;

typedef struct Mc {
    int w, h, block, overlap, threads;
    int nbx, nby;
    McTuning tun;
    int16_t mask[2][3][32 * 32]; /* [luma/chroma][own,h,v][y*bs+x], 1/256 */
    int16_t mask8[2][3][32 * 32]; /* the same in 1/8 when mask_fast         */
    int mask_fast;               /* every weight a multiple of 32/256      */
    McDSP dsp;
    /* per thread, nbx*nby each: the screened vectors and their exact
     * bilateral cost (1/16 units), and the final (median, refined) vectors,
     * for the thread's band of block rows plus its halo */
    McVec *vec_a, *vec_c;
    uint32_t *cost_a;
    uint16_t *scratch;           /* per thread, scratch_len samples        */
    size_t scratch_len;
    int bmax;                    /* largest bilateral window side          */
    SceneCut scd;
    int cut;
    uint32_t static_share;       /* scenecut_static_share() of the pair    */
    int stepwise;                /* hold: the source changes in steps      */
    McPhase ph;                  /* the phase of the picture being built   */
} Mc;

/* ------------------------------------------------------------------ masks */

/* Own-block window, 1-D, in 1/64 at distance d (pixel centre d + 1/2) from
 * the nearest block edge, for half-block size hb: sin^2 over a window of two
 * blocks, so own + neighbour = 1 and own > 1/2 everywhere inside the block. */
static int rc_window64(int d, int hb)
{
    const double b = 2.0 * hb;
    const double s = sin(M_PI * (d + hb + 0.5) / (2.0 * b));
    return (int)lrint(64.0 * s * s);
}

static const uint8_t h263_own[8][8] = {
    {4, 5, 5, 5, 5, 5, 5, 4}, {5, 5, 5, 5, 5, 5, 5, 5},
    {5, 5, 6, 6, 6, 6, 5, 5}, {5, 5, 6, 6, 6, 6, 5, 5},
    {5, 5, 6, 6, 6, 6, 5, 5}, {5, 5, 6, 6, 6, 6, 5, 5},
    {5, 5, 5, 5, 5, 5, 5, 5}, {4, 5, 5, 5, 5, 5, 5, 4},
};
static const uint8_t h263_lr[8][8] = {
    {2, 1, 1, 1, 1, 1, 1, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
    {2, 2, 1, 1, 1, 1, 2, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
    {2, 2, 1, 1, 1, 1, 2, 2}, {2, 2, 1, 1, 1, 1, 2, 2},
    {2, 2, 1, 1, 1, 1, 2, 2}, {2, 1, 1, 1, 1, 1, 1, 2},
};
static const uint8_t h263_tb[8][8] = {
    {2, 2, 2, 2, 2, 2, 2, 2}, {1, 1, 2, 2, 2, 2, 1, 1},
    {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 2, 2, 2, 2, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2},
};

void mc_mask_weights(McMask type, int block, int x, int y, int w[3])
{
    if (type == MC_MASK_H263) {
        const int i = y * 8 / block, j = x * 8 / block;
        w[0] = h263_own[i][j] * 32; /* the three tables sum to 8 everywhere */
        w[1] = h263_lr[i][j] * 32;
        w[2] = h263_tb[i][j] * 32;
        return;
    }
    const int hb = block / 2;
    const int dx = x < hb ? x : block - 1 - x;
    const int dy = y < hb ? y : block - 1 - y;
    const int wx = rc_window64(dx, hb), wy = rc_window64(dy, hb);
    /* Separable OBMC with four vectors, the diagonal neighbour's share
     * folded into the own vector (OMCTI uses three vectors per sub-block). */
    w[1] = ((64 - wx) * wy + 8) >> 4;
    w[2] = (wx * (64 - wy) + 8) >> 4;
    w[0] = 256 - w[1] - w[2];
}

/* ----------------------------------------------------------- sampling */

static inline int thread_index(void)
{
#if OMCTI_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static inline int clampc(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Whether rows y0..y0+h and columns x0..x0+w (inclusive of the bilinear
 * neighbour) stay inside the padded plane. */
static inline int inside(const OmctiPlane *p, int x0, int y0, int w, int h)
{
    return x0 >= -p->pad && y0 >= -p->pad && x0 + w < p->w + p->pad &&
           y0 + h < p->h + p->pad;
}

/* Bilinear samples of a w x h region whose top-left sample lies at
 * (x0*16 + fx, y0*16 + fy) in 1/16 pel, into dst (1/16 units, 0..4080).
 * Outside the padded plane coordinates are clamped, which equals infinite
 * edge replication because the padding replicates the edge. */
static void sample_bilinear(uint16_t *dst, int ds, const OmctiPlane *p, int x0, int y0,
                            int fx, int fy, int w, int h)
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

/* Catmull-Rom taps: mc_cubic_taps (mc_dsp.c), rounded and mirrored so that
 * f and 16 - f are symmetric and every row sums to 64. */
#define cubic_taps mc_cubic_taps

/* Bicubic samples (separable Catmull-Rom), same interface and units as
 * sample_bilinear; sharper at half pel, where bilinear averages two pixels
 * and blurs fine texture. The horizontal pass keeps 1/64 in int16, the
 * vertical pass rounds once to 1/16 and clamps to 0..4080. tmp holds
 * (h + 3) * w values. */
static void sample_cubic(uint16_t *dst, int ds, const OmctiPlane *p, int x0, int y0, int fx,
                         int fy, int w, int h, int16_t *tmp)
{
    if (!fx && !fy) {
        sample_bilinear(dst, ds, p, x0, y0, 0, 0, w, h);
        return;
    }
    const int8_t *cx = cubic_taps[fx], *cy = cubic_taps[fy];
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

static inline void sample(int cubic, uint16_t *dst, int ds, const OmctiPlane *p, int x0, int y0,
                          int fx, int fy, int w, int h, int16_t *tmp)
{
    if (cubic)
        sample_cubic(dst, ds, p, x0, y0, fx, fy, w, h, tmp);
    else
        sample_bilinear(dst, ds, p, x0, y0, fx, fy, w, h);
}

/* Splits a displacement in 1/16 pel into integer and fraction. */
static inline void split16(int d, int *i, int *f)
{
    *i = d >> 4; /* arithmetic shift: floor */
    *f = d & 15;
}

/* The prev and next displacements (1/16 pel of the plane) of a vector v in
 * quarter luma pel at phase num/den: prev is read at x - a, next at x + b,
 * with b - a... b + a == v exactly, so the trajectory is never broken. */
static inline void phase_split(int v, int scale, const McPhase *ph, int *a, int *b)
{
    const int v16 = v * scale;
    *a = phase_disp(ph, v16);
    *b = v16 - *a;
}

/* --------------------------------------------------------- bilateral cost */

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

/* Exact bilateral cost of a quarter-pel vector at phase num/den over the
 * window, in 1/16 units (bilinear samples). tmp holds 2*w*h samples. */
static uint32_t cost_sub(const McDSP *dsp, int cubic, const OmctiPlane *P, const OmctiPlane *N,
                         int x0, int y0, int w, int h, int vx, int vy, const McPhase *ph,
                         uint16_t *tmp, int16_t *tmp2)
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
    if (!cubic && inside(P, ix, iy, w, h) && inside(N, jx, jy, w, h))
        return dsp->sad_bilin(P->data + (ptrdiff_t)iy * P->stride + ix, P->stride, fx, fy,
                              N->data + (ptrdiff_t)jy * N->stride + jx, N->stride, gx, gy, w, h);
    uint16_t *tp = tmp, *tn = tmp + w * h;
    sample(cubic, tp, w, P, ix, iy, fx, fy, w, h, tmp2);
    sample(cubic, tn, w, N, jx, jy, gx, gy, w, h, tmp2);
    uint32_t sad = 0;
    for (int i = 0; i < w * h; i++)
        sad += (uint32_t)abs(tp[i] - tn[i]);
    return sad;
}

/* ------------------------------------------------------------ tuning */

static void default_tuning(McTuning *t)
{
    t->margin_div = 4;
    t->median = 1;
    t->median_tol = 6;
    t->subpel = 2;
    t->zero_bias = 0;
    t->mask = MC_MASK_H263;
    t->cubic = 1;
    t->cost_cubic = 0;
    t->refine_block_only = 1;
    t->refine_points = 8;
#ifdef OMCTI_DEV_TUNING
    const char *e = getenv("OMCTI_TUNE");
    if (e) {
        int v[13];
        if (sscanf(e, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12]) == 13) {
            t->cubic = v[9]; t->cost_cubic = v[10];
            t->refine_block_only = v[11]; t->refine_points = v[12];
            /* v[4..6] were the per-block hold knobs (removed, see mc.c) */
            t->margin_div = v[0]; t->median = v[1]; t->median_tol = v[2]; t->subpel = v[3];
            t->zero_bias = v[7];
            t->mask = (McMask)v[8];
        }
    }
#endif
}

/* ------------------------------------------------------------ init */

int mc_init(void **priv, const FilterParams *p, int overlap, char *err, size_t errlen)
{
    if (p->block != 8 && p->block != 16 && p->block != 32)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "block size %d is not supported",
                         p->block);
    Mc *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->w = p->width;
    s->h = p->height;
    s->block = p->block;
    s->overlap = overlap;
    s->threads = p->threads > 0 ? p->threads : 1;
    s->nbx = (p->width + p->block - 1) / p->block;
    s->nby = (p->height + p->block - 1) / p->block;
    default_tuning(&s->tun);
    mc_dsp_init(&s->dsp, mc_dsp_default_level());
    s->mask_fast = 1;
    for (int c = 0; c < 2; c++) {
        const int bs = c ? p->block / 2 : p->block;
        for (int y = 0; y < bs; y++)
            for (int x = 0; x < bs; x++) {
                int w[3];
                mc_mask_weights(s->tun.mask, bs, x, y, w);
                for (int k = 0; k < 3; k++) {
                    s->mask[c][k][y * bs + x] = (int16_t)w[k];
                    s->mask8[c][k][y * bs + x] = (int16_t)(w[k] / 32);
                    s->mask_fast &= w[k] % 32 == 0;
                }
            }
    }
    const size_t n = (size_t)s->nbx * s->nby;
    s->vec_a = aligned_calloc(n * s->threads * sizeof *s->vec_a);
    s->vec_c = aligned_calloc(n * s->threads * sizeof *s->vec_c);
    s->cost_a = aligned_calloc(n * s->threads * sizeof *s->cost_a);
    const int bmax = p->block + 2 * (s->tun.margin_div ? p->block / s->tun.margin_div : 0);
    s->bmax = bmax;
    s->scratch_len = ALIGN_UP(2 * (size_t)bmax * bmax + (size_t)(bmax + 3) * bmax, 32);
    s->scratch = aligned_calloc(s->scratch_len * s->threads * sizeof *s->scratch);
    s->ph.K = 16 * (p->range + 2);
    s->ph.tab = aligned_calloc((2 * (size_t)s->ph.K + 1) * sizeof *s->ph.tab);
    s->ph.den = 0; /* no phase yet */
    if (!s->vec_a || !s->vec_c || !s->cost_a || !s->scratch || !s->ph.tab) {
        mc_uninit((void **)&s);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    scenecut_init(&s->scd, p);
    *priv = s;
    return 0;
}

void mc_uninit(void **priv)
{
    Mc *s = *priv;
    if (!s) return;
    aligned_free(s->vec_a);
    aligned_free(s->vec_c);
    aligned_free(s->cost_a);
    aligned_free(s->scratch);
    aligned_free(s->ph.tab);
    free(s);
    *priv = NULL;
}

int mc_new_pair(void *priv, const FilterPair *pair)
{
    Mc *s = priv;
    const uint32_t cost = scenecut_pair_cost(pair, s->threads);
    s->static_share = scenecut_static_share(pair, s->block, s->threads);
    s->cut = scenecut_decide(&s->scd, cost, s->static_share, pair->prev->serial,
                             pair->next->serial);
    s->stepwise = s->scd.stepwise && s->scd.enabled;
#ifdef OMCTI_DEV_TUNING
    if (getenv("OMCTI_SCD_DUMP"))
        fprintf(stderr, "static share %.3f\n", s->static_share / 256.0);
#endif
    return 0;
}

int mc_pair_is_cut(void *priv)
{
    const Mc *s = priv;
    return s->cut;
}

int mc_pair_holds(void *priv)
{
    const Mc *s = priv;
    return s->cut || s->stepwise;
}

/* ------------------------------------------------------- vector choice */

/* The bilateral window of block (bx, by): the block grown by a margin on
 * every side, clipped to the picture so that padding never votes. */
static void block_window(const Mc *s, int bx, int by, int *x0, int *y0, int *w, int *h)
{
    const int m = s->tun.margin_div ? s->block / s->tun.margin_div : 0;
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

static void choose_block(const Mc *s, const FilterPair *pr, int bx, int by, McVec *vec,
                         uint32_t *cost, uint16_t *tmp, int16_t *tmp2)
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
        uint32_t c = cost_int(&s->dsp, P, N, x0, y0, w, h, ax, ay, cx[i] - ax, cy[i] - ay);
        if (i == 0)
            c = c * (uint32_t)(16 - s->tun.zero_bias) / 16;
        if (c < best) {
            best = c;
            bi = i;
        }
    }
    const size_t k = (size_t)by * s->nbx + bx;
    vec[k] = (McVec){ (int16_t)(cx[bi] * 4), (int16_t)(cy[bi] * 4), 0 };
    /* The screening above reads whole pixels (the window shifted by at most
     * half a pixel); what the later stages compare is the exact cost. */
    cost[k] = cost_sub(&s->dsp, s->tun.cost_cubic, P, N, x0, y0, w, h, cx[bi] * 4, cy[bi] * 4,
                       &s->ph, tmp, tmp2);
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

/* Median of outliers, then sub-pel refinement, of block (bx, by): from the
 * screened vectors of the block and its 8 neighbours (vec_a, cost_a) to the
 * final vector. */
static McVec refine_block(const Mc *s, const FilterPair *pr, int bx, int by, const McVec *vec_a,
                          const uint32_t *cost_a, uint16_t *tmp, int16_t *tmp2)
{
    const OmctiPlane *P = &pr->prev->p[0], *N = &pr->next->p[0];
    const int subpel = s->tun.subpel;
    const size_t k = (size_t)by * s->nbx + bx;
    McVec v = vec_a[k];
    uint32_t c = cost_a[k];
    int x0, y0, w, h;
    block_window(s, bx, by, &x0, &y0, &w, &h);
    /* Median of outliers: a vector unlike its neighbours is replaced by
     * their median when that costs at most a little more here. */
    if (s->tun.median) {
        const McVec m = vector_median(s, vec_a, bx, by);
        if (m.x != v.x || m.y != v.y) {
            const uint32_t cm = cost_sub(&s->dsp, s->tun.cost_cubic, P, N, x0, y0, w, h, m.x, m.y,
                                         &s->ph, tmp, tmp2);
            if ((uint64_t)cm * 16 <= (uint64_t)c * (16 + s->tun.median_tol)) {
                v = m;
                c = cm;
            }
        }
    }
    /* Sub-pel refinement: half then quarter pel around the choice, the
     * bilateral cost measured on bilinear samples. The refinement compares
     * vectors that differ by a fraction of a pixel: the block itself decides
     * (no margin), and a cross of 4 per step is as good as 8 at half the
     * cost (docs/quality.md). */
    int sx0 = x0, sy0 = y0, sw = w, sh = h;
    if (s->tun.refine_block_only) {
        sx0 = bx * s->block;
        sy0 = by * s->block;
        sw = min_i(s->block, s->w - sx0);
        sh = min_i(s->block, s->h - sy0);
        if (subpel)
            c = cost_sub(&s->dsp, s->tun.cost_cubic, P, N, sx0, sy0, sw, sh, v.x, v.y, &s->ph, tmp,
                         tmp2);
    }
    const int npts = s->tun.refine_points;
    for (int step = 2; step >= 1 && subpel >= 3 - step; step--) {
        static const int d8[8][2] = {
            {0, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
        };
        McVec best = v;
        for (int i = 0; i < npts; i++) {
            const int vx = v.x + d8[i][0] * step, vy = v.y + d8[i][1] * step;
            const uint32_t cc = cost_sub(&s->dsp, s->tun.cost_cubic, P, N, sx0, sy0, sw, sh, vx,
                                         vy, &s->ph, tmp, tmp2);
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

/* ------------------------------------------------------------ render */

/* Prediction of a w x h region at (x0, y0) of plane c for one vector, in
 * 1/16 units. */
static void predict(const Mc *s, uint16_t *dst, int ds, const FilterPair *pr, int c, McVec v,
                    int x0, int y0, int w, int h, int wt,
                    uint16_t *tmp, int16_t *tmp2)
{
    const OmctiPlane *P = &pr->prev->p[c], *N = &pr->next->p[c];
    const int scale = c ? 2 : 4;
    int ax, ay, bx, by, ix, fx, iy, fy;
    phase_split(v.x, scale, &s->ph, &ax, &bx);
    phase_split(v.y, scale, &s->ph, &ay, &by);
    split16(x0 * 16 - ax, &ix, &fx);
    split16(y0 * 16 - ay, &iy, &fy);
    sample(s->tun.cubic, dst, ds, P, ix, iy, fx, fy, w, h, tmp2);
    split16(x0 * 16 + bx, &ix, &fx);
    split16(y0 * 16 + by, &iy, &fy);
    sample(s->tun.cubic, tmp, w, N, ix, iy, fx, fy, w, h, tmp2);
    const int wp = 256 - wt;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[y * ds + x] = (uint16_t)((wp * dst[y * ds + x] + wt * tmp[y * w + x] + 128) >> 8);
}

static inline int vec_eq(McVec a, McVec b)
{
    return a.x == b.x && a.y == b.y;
}

static void render_block(const Mc *s, const McVec *vec, const FilterPair *pr, int bx, int by,
                         int wt, OmctiPicture *out, uint16_t *buf, int16_t *tmp2)
{
    const McVec own = vec[(size_t)by * s->nbx + bx];
    for (int c = 0; c < 3; c++) {
        const int pw = c ? chroma_size(s->w) : s->w, ph = c ? chroma_size(s->h) : s->h;
        const int bs = c ? s->block / 2 : s->block, hb = bs / 2;
        uint16_t *p0 = buf, *p1 = buf + 32 * 32, *p2 = buf + 2 * 32 * 32, *tmp = buf + 3 * 32 * 32;
        for (int q = 0; q < (s->overlap ? 4 : 1); q++) {
            const int qx = q & 1, qy = q >> 1;
            /* mcti: the whole block; omcti: one quadrant (sub-block). */
            const int ox = s->overlap ? qx * hb : 0, oy = s->overlap ? qy * hb : 0;
            const int sz = s->overlap ? hb : bs;
            const int x0 = bx * bs + ox, y0 = by * bs + oy;
            if (x0 >= pw || y0 >= ph) continue;
            const int w = min_i(sz, pw - x0), h = min_i(sz, ph - y0);
            McVec vh = own, vv = own;
            if (s->overlap) {
                const int nx = bx + (qx ? 1 : -1), ny = by + (qy ? 1 : -1);
                if (nx >= 0 && nx < s->nbx) vh = vec[(size_t)by * s->nbx + nx];
                if (ny >= 0 && ny < s->nby) vv = vec[(size_t)ny * s->nbx + bx];
            }
            predict(s, p0, w, pr, c, own, x0, y0, w, h, wt, tmp, tmp2);
            uint8_t *d = out->data[c] + (ptrdiff_t)y0 * out->stride[c] + x0;
            if (vec_eq(vh, own) && vec_eq(vv, own)) {
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        d[y * out->stride[c] + x] = (uint8_t)((p0[y * w + x] + 8) >> 4);
                continue;
            }
            const uint16_t *ph_ = p0, *pv_ = p0;
            if (!vec_eq(vh, own)) {
                predict(s, p1, w, pr, c, vh, x0, y0, w, h, wt, tmp, tmp2);
                ph_ = p1;
            }
            if (!vec_eq(vv, own)) {
                if (vec_eq(vv, vh)) {
                    pv_ = ph_;
                } else {
                    predict(s, p2, w, pr, c, vv, x0, y0, w, h, wt, tmp, tmp2);
                    pv_ = p2;
                }
            }
            const int16_t *m0 = s->mask[c ? 1 : 0][0], *m1 = s->mask[c ? 1 : 0][1];
            const int16_t *m2 = s->mask[c ? 1 : 0][2];
            for (int y = 0; y < h; y++) {
                const int mo = (oy + y) * bs + ox;
                for (int x = 0; x < w; x++) {
                    const int i = y * w + x;
                    const uint32_t acc = (uint32_t)(m0[mo + x] * p0[i] + m1[mo + x] * ph_[i] +
                                                    m2[mo + x] * pv_[i]) + 2048;
                    d[y * out->stride[c] + x] = (uint8_t)(acc >> 12);
                }
            }
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

/* predict() into dst (stride 32) through the DSP table when both footprints
 * are inside the padded planes. The kernel computes 8, 16 or 32 columns;
 * columns past w are scratch (dst has room for them), and a sample's value
 * does not depend on the region it is computed in, so predicting a whole
 * block at once equals predicting its sub-blocks one by one. */
static void predict_fast(const Mc *s, uint16_t *dst, const FilterPair *pr, int c, McVec v,
                         int x0, int y0, int w, int h, int wt,
                         uint16_t *tmp, int16_t *tmp2)
{
    const OmctiPlane *P = &pr->prev->p[c], *N = &pr->next->p[c];
    const int scale = c ? 2 : 4;
    int ax, ay, bx, by, ix, fx, iy, fy, jx, gx, jy, gy;
    phase_split(v.x, scale, &s->ph, &ax, &bx);
    phase_split(v.y, scale, &s->ph, &ay, &by);
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
    predict(s, dst, 32, pr, c, v, x0, y0, w, h, wt, tmp, tmp2);
}

static void copy_cols(uint16_t *dst, const uint16_t *src, int w, int h)
{
    for (int y = 0; y < h; y++)
        memcpy(dst + y * 32, src + y * 32, (size_t)w * sizeof *dst);
}

/* render_block() for bicubic samples and masks in 1/8 (the defaults), per
 * block instead of per sub-block: the own vector's prediction over the
 * whole block, each neighbour's over the half block it weighs on (only
 * where its vector differs from the own one: else the own prediction is
 * that neighbour's prediction too), then one OBMC pass. Bit-exact with
 * render_block(): the same samples, and the OBMC sum of render_block() with
 * weights 32*k equals (k0*p0 + k1*ph + k2*pv + 64) >> 7, which for
 * ph == pv == p0 is its (p0 + 8) >> 4. */
static void render_block_fast(const Mc *s, const McVec *vec, const FilterPair *pr, int bx,
                              int by, int wt, OmctiPicture *out, uint16_t *buf, int16_t *tmp2)
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
    const int same = vec_eq(vl, own) && vec_eq(vr, own) && vec_eq(vt, own) && vec_eq(vb, own);
    uint16_t *O = buf, *H = buf + 32 * 32, *V = buf + 2 * 32 * 32, *tmp = buf + 3 * 32 * 32;
    for (int c = 0; c < 3; c++) {
        const int pw = c ? chroma_size(s->w) : s->w, ph = c ? chroma_size(s->h) : s->h;
        const int bs = c ? s->block / 2 : s->block, hb = bs / 2;
        const int x0 = bx * bs, y0 = by * bs;
        if (x0 >= pw || y0 >= ph) continue;
        const int w = min_i(bs, pw - x0), h = min_i(bs, ph - y0);
        const ptrdiff_t ds = out->stride[c];
        uint8_t *d = out->data[c] + (ptrdiff_t)y0 * ds + x0;
        predict_fast(s, O, pr, c, own, x0, y0, w, h, wt, tmp, tmp2);
        if (same) {
            s->dsp.put(d, ds, O, 32, w, h);
            continue;
        }
        /* columns [0, hb) weigh the left neighbour, [hb, bs) the right one;
         * rows [0, hb) the one above, [hb, bs) the one below */
        const int wl = min_i(hb, w), wr = w - hb, ht = min_i(hb, h), hbot = h - hb;
        if (!vec_eq(vl, own)) predict_fast(s, H, pr, c, vl, x0, y0, wl, h, wt, tmp, tmp2);
        else copy_cols(H, O, wl, h);
        if (wr > 0) {
            if (!vec_eq(vr, own))
                predict_fast(s, H + hb, pr, c, vr, x0 + hb, y0, wr, h, wt, tmp, tmp2);
            else
                copy_cols(H + hb, O + hb, wr, h);
        }
        if (!vec_eq(vt, own)) predict_fast(s, V, pr, c, vt, x0, y0, w, ht, wt, tmp, tmp2);
        else copy_cols(V, O, w, ht);
        if (hbot > 0) {
            if (!vec_eq(vb, own))
                predict_fast(s, V + hb * 32, pr, c, vb, x0, y0 + hb, w, hbot, wt, tmp, tmp2);
            else
                copy_cols(V + hb * 32, O + hb * 32, w, hbot);
        }
        const int mi = c ? 1 : 0;
        s->dsp.obmc(d, ds, O, H, V, 32, s->mask8[mi][0], s->mask8[mi][1], s->mask8[mi][2], bs,
                    w, h);
    }
}

int mc_picture(void *priv, const FilterPair *pr, int64_t num, int64_t den, OmctiPicture *out)
{
    Mc *s = priv;
    const int wt = phase_weight256(num, den);
    if (s->cut || s->stepwise) {
        /* A scene cut: no vector relates the two pictures; the in-between
         * picture belongs to one of the two scenes, so hold the nearer.
         * A stepwise source (duplicates seen recently): the in-between
         * picture is one of the originals, and the nearer is the best guess;
         * unchanged areas are identical in both anyway. */
        const OmctiFrame *src = 2 * num <= den ? pr->prev : pr->next;
        OmctiPicture pic;
        frame_as_picture(src, &pic);
        picture_copy(out, &pic);
        return 0;
    }
    if (s->ph.num != num || s->ph.den != den) {
        /* displacements k = v * scale of every vector the fields can hold
         * (|v| <= range pel, quarter pel, refined by up to 3/4) */
        for (int k = -s->ph.K; k <= s->ph.K; k++)
            s->ph.tab[k + s->ph.K] = (int32_t)mc_rdiv(num * k, den);
        s->ph.num = num;
        s->ph.den = den;
    }
    const int nbx = s->nbx, nby = s->nby;
    const size_t nb = (size_t)nbx * nby;
    const int fast = s->tun.cubic && (s->mask_fast || !s->overlap);
    /* Each thread takes a band of block rows and runs every stage on it as a
     * wavefront, row by row: screening (stage A) of row i, median and
     * refinement (stage C) of row i - 1, which needs A of rows i-2..i, and
     * rendering of row i - 2, which needs C of rows i-3..i-1. The rows that
     * a band needs from its neighbours' bands (2 rows of A, 1 row of C on
     * each side) it computes itself, into its own arrays: every value is a
     * deterministic function of the pair and the phase, so the picture is
     * the same for every thread count, no thread ever waits for another
     * (no barrier inside the picture), and the rows a stage reads are still
     * in the core's cache from the stage before. */
#pragma omp parallel num_threads(s->threads) if (s->threads > 1)
    {
#if OMCTI_HAVE_OPENMP
        const int nt = omp_get_num_threads();
#else
        const int nt = 1;
#endif
        const int tid = thread_index();
        const int r0 = (int)((int64_t)nby * tid / nt), r1 = (int)((int64_t)nby * (tid + 1) / nt);
        McVec *vec_a = s->vec_a + nb * (size_t)tid, *vec_c = s->vec_c + nb * (size_t)tid;
        uint32_t *cost_a = s->cost_a + nb * (size_t)tid;
        uint16_t *tmp = s->scratch + s->scratch_len * (size_t)tid;
        int16_t *tmp2 = (int16_t *)(tmp + 2 * s->bmax * s->bmax);
        uint16_t buf[4 * 32 * 32];
        int16_t rtmp2[35 * 32];
        const int a0 = max_i(r0 - 2, 0), a1 = min_i(r1 + 2, nby);
        const int c0 = max_i(r0 - 1, 0), c1 = min_i(r1 + 1, nby);
        for (int i = a0; r0 < r1 && i < a1 + 2; i++) {
            if (i < a1)
                for (int bx = 0; bx < nbx; bx++)
                    choose_block(s, pr, bx, i, vec_a, cost_a, tmp, tmp2);
            const int j = i - 1;
            if (j >= c0 && j < c1)
                for (int bx = 0; bx < nbx; bx++)
                    vec_c[(size_t)j * nbx + bx] = refine_block(s, pr, bx, j, vec_a, cost_a, tmp, tmp2);
            const int r = i - 2;
            if (r >= r0 && r < r1)
                for (int bx = 0; bx < nbx; bx++) {
                    if (fast)
                        render_block_fast(s, vec_c, pr, bx, r, wt, out, buf, rtmp2);
                    else
                        render_block(s, vec_c, pr, bx, r, wt, out, buf, rtmp2);
                }
        }
    }
    return 0;
}

/* Inactive edge lines of a frame: detection, re-padding, and the lines of
 * the in-between pictures (active_area.h). */
#include <string.h>

#include "src/active_area.h"

static inline int max_i(int a, int b) { return a > b ? a : b; }
static inline int min_i(int a, int b) { return a < b ? a : b; }

/* How many lines a bar may differ between two edges or two frames and
 * still be one bar: the encoder's alignment, ACTIVE_BAR_SLACK lines or
 * 1/64 of the picture, whichever is more. */
static int bar_allowance(int len)
{
    return max_i(ACTIVE_BAR_SLACK, len / 64);
}

/* One edge seen as a stack of lines: line k starts at base + k * inward and
 * has len samples spaced by along. */
typedef struct EdgeLines {
    const uint8_t *base;
    ptrdiff_t along, inward;
    int len, depth;
} EdgeLines;

static int line_is_bar(const EdgeLines *e, int k)
{
    const uint8_t *p = e->base + k * e->inward;
    int lo = 255, hi = 0;
    uint64_t sum = 0;
    for (int i = 0; i < e->len; i++) {
        const int v = p[i * e->along];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (hi - lo > ACTIVE_FLAT_RANGE)
            return 0;
        sum += (uint64_t)v;
    }
    return sum <= (uint64_t)ACTIVE_DARK_MEAN * (uint64_t)e->len;
}

/* Sum of |line k - line k+1|. */
static uint64_t line_diff(const EdgeLines *e, int k)
{
    const uint8_t *p = e->base + k * e->inward, *q = p + e->inward;
    uint64_t sum = 0;
    for (int i = 0; i < e->len; i++) {
        const int d = p[i * e->along] - q[i * e->along];
        sum += (uint64_t)(d < 0 ? -d : d);
    }
    return sum;
}

static int edge_bars(const EdgeLines *e)
{
    int n = 0;
    while (n < e->depth / 4 && line_is_bar(e, n))
        n++;
    return n;
}

/* Letterbox and pillarbox bars come in pairs: the picture is centred
 * between them, give or take the encoder's alignment. Dark flat content
 * that reaches one edge (a night sky, a dark stage, the black between lines
 * of rolling credits) is no bar; each edge keeps at most the bar of its
 * opposite edge plus a few lines. */
static void pair_bars(int *a, int *b, int len)
{
    const int lim = min_i(*a, *b) + bar_allowance(len);
    *a = min_i(*a, lim);
    *b = min_i(*b, lim);
}

static int edge_damaged(const EdgeLines *e, int n)
{
    /* A damaged line stands out from the picture behind it: the step from
     * it to its neighbour is well above the picture's own line-to-line
     * change there. Ordinary content rarely puts a step along a whole
     * edge, and where it does the line is only blended, not lost. */
    for (int j = 0; j < 2 && n + 3 <= e->depth / 2; j++) {
        const uint64_t step = line_diff(e, n), inner = line_diff(e, n + 1);
        if (step <= 2 * inner + 4 * (uint64_t)e->len)
            break;
        n++;
    }
    return n;
}

void active_area_detect(const OmctiPlane *y, ActiveArea *a)
{
    const ptrdiff_t s = y->stride;
    const uint8_t *d = y->data;
    const EdgeLines top = { d, 1, s, y->w, y->h };
    const EdgeLines bottom = { d + (ptrdiff_t)(y->h - 1) * s, 1, -s, y->w, y->h };
    const EdgeLines left = { d, s, 1, y->h, y->w };
    const EdgeLines right = { d + y->w - 1, s, -1, y->h, y->w };
    int t = edge_bars(&top), b = edge_bars(&bottom), l = edge_bars(&left), r = edge_bars(&right);
    pair_bars(&t, &b, y->h);
    pair_bars(&l, &r, y->w);
    a->top = edge_damaged(&top, t);
    a->bottom = edge_damaged(&bottom, b);
    a->left = edge_damaged(&left, l);
    a->right = edge_damaged(&right, r);
    if (y->h - a->top - a->bottom < ACTIVE_MIN_SIZE || y->w - a->left - a->right < ACTIVE_MIN_SIZE)
        *a = (ActiveArea){ 0, 0, 0, 0 };
}

/* Chroma lines (of n2 = ceil(n / 2)) that cover one of the first k luma
 * lines from the near edge, or one of the last k from the far edge. */
static int chroma_near(int k) { return (k + 1) >> 1; }
static int chroma_far(int k, int n) { return k ? chroma_size(n) - (n - k) / 2 : 0; }

void active_area_for_plane(const ActiveArea *a, int plane, int luma_w, int luma_h,
                           ActiveArea *out)
{
    if (!plane) {
        *out = *a;
        return;
    }
    out->top = chroma_near(a->top);
    out->bottom = chroma_far(a->bottom, luma_h);
    out->left = chroma_near(a->left);
    out->right = chroma_far(a->right, luma_w);
}

void active_area_repad(OmctiFrame *f, const ActiveArea *a)
{
    for (int i = 0; i < 3; i++) {
        OmctiPlane *p = &f->p[i];
        ActiveArea pa;
        active_area_for_plane(a, i, f->width, f->height, &pa);
        const int x0 = pa.left, x1 = p->w - pa.right, y0 = pa.top, y1 = p->h - pa.bottom;
        for (int y = y0; y < y1; y++) {
            uint8_t *row = p->data + (ptrdiff_t)y * p->stride;
            if (x0)
                memset(row, row[x0], (size_t)x0);
            if (x1 < p->w)
                memset(row + x1, row[x1 - 1], (size_t)(p->w - x1));
        }
        for (int y = 0; y < y0; y++)
            memcpy(p->data + (ptrdiff_t)y * p->stride, p->data + (ptrdiff_t)y0 * p->stride,
                   (size_t)p->w);
        for (int y = y1; y < p->h; y++)
            memcpy(p->data + (ptrdiff_t)y * p->stride, p->data + (ptrdiff_t)(y1 - 1) * p->stride,
                   (size_t)p->w);
    }
    frame_pad_edges(f);
}

static int edge_for_pair(int own, int pair, int slack)
{
    return own > slack && pair - own <= slack ? pair : own;
}

void active_area_for_pair(const ActiveArea *own, const ActiveArea *pair, int luma_w, int luma_h,
                          ActiveArea *out)
{
    const int sv = bar_allowance(luma_h), sh = bar_allowance(luma_w);
    out->top = edge_for_pair(own->top, pair->top, sv);
    out->bottom = edge_for_pair(own->bottom, pair->bottom, sv);
    out->left = edge_for_pair(own->left, pair->left, sh);
    out->right = edge_for_pair(own->right, pair->right, sh);
}

static void blend_span(uint8_t *d, const uint8_t *a, const uint8_t *b, int n, int wt)
{
    const int wa = 256 - wt;
    for (int x = 0; x < n; x++)
        d[x] = (uint8_t)((a[x] * wa + b[x] * wt + 128) >> 8);
}

void active_area_fill(OmctiPicture *out, const OmctiPicture *prev, const ActiveArea *ap,
                      const OmctiPicture *next, const ActiveArea *an, int wt)
{
    const ActiveArea both = {
        max_i(ap->top, an->top), max_i(ap->bottom, an->bottom),
        max_i(ap->left, an->left), max_i(ap->right, an->right),
    };
    if (active_area_is_full(&both))
        return;
    for (int i = 0; i < 3; i++) {
        ActiveArea pa;
        active_area_for_plane(&both, i, out->width, out->height, &pa);
        const int w = i ? chroma_size(out->width) : out->width;
        const int h = i ? chroma_size(out->height) : out->height;
        for (int y = 0; y < h; y++) {
            uint8_t *d = out->data[i] + (ptrdiff_t)y * out->stride[i];
            const uint8_t *a = prev->data[i] + (ptrdiff_t)y * prev->stride[i];
            const uint8_t *b = next->data[i] + (ptrdiff_t)y * next->stride[i];
            if (y < pa.top || y >= h - pa.bottom) {
                blend_span(d, a, b, w, wt);
                continue;
            }
            blend_span(d, a, b, pa.left, wt);
            blend_span(d + w - pa.right, a + w - pa.right, b + w - pa.right, pa.right, wt);
        }
    }
}

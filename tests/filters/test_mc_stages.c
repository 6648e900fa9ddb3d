/* The vector choice's local smoothness (filters/mc_stages.h: mc_middle(),
 * mc_local_motion() and its term in mc_choose()), its colour term
 * (mc_chroma_cost()) and the quadrant split (mc_quad(), with the split
 * render mc_block.h mc_render_quad_px()) and the shifted grid's geometry and
 * candidates (mc_grid_shifted()), through the shared template as both engines build it
 * (kernels/mc_gpu.h, one lane here). */
#include <stdlib.h>
#include <string.h>

#include "kernels/mc_gpu.h"
#include "tests/check.h"

static void test_middle(TestState *ts)
{
    int a[] = { 3, -1, 2 };
    CHECK(ts, mc_middle(a, 3) == 2, "odd count: %d", mc_middle(a, 3));
    int b[] = { 5, 1, 4, 2 };
    CHECK(ts, mc_middle(b, 4) == 3, "even count: the mean of 2 and 4, %d", mc_middle(b, 4));
    int c[] = { -3, -2 };
    CHECK(ts, mc_middle(c, 2) == -2, "rounded towards zero: %d", mc_middle(c, 2));
    int d[] = { 7, -7, 7, -7, 7, 7 };
    CHECK(ts, mc_middle(d, 6) == 7, "repeated values: %d", mc_middle(d, 6));
}

/* A 3x3 grid of fields: forward (k, -k) at block k, backward (k, 2k). */
static void test_local_motion(TestState *ts)
{
    const McGrid g = mc_grid_make(48, 48, 16);
    McVec fwd[9], bwd[9];
    for (int k = 0; k < 9; k++) {
        fwd[k] = (McVec){ (int16_t)k, (int16_t)-k };
        bwd[k] = (McVec){ (int16_t)k, (int16_t)(2 * k) };
    }
    /* centre (block 4, neighbours 3, 5, 1, 7): x from fwd {4,3,5,1,7} and
     * -bwd {-4,-3,-5,-1,-7}: middle (-1 + 1) / 2 = 0; y from fwd
     * {-4,-3,-5,-1,-7} and -bwd {-8,-6,-10,-2,-14}: (-6 + -5) / 2 = -5 */
    McVec v = mc_local_motion(&g, fwd, bwd, 1, 1);
    CHECK(ts, v.x == 0 && v.y == -5, "centre: (%d, %d), want (0, -5)", v.x, v.y);
    /* corner (block 0 and 1, 3): x {0,1,3, 0,-1,-3} -> (0 + 0) / 2; y {0,-1,-3,
     * 0,-2,-6} -> sorted -6,-3,-2,-1,0,0: (-2 + -1) / 2 = -1 (towards zero) */
    v = mc_local_motion(&g, fwd, bwd, 0, 0);
    CHECK(ts, v.x == 0 && v.y == -1, "corner: (%d, %d), want (0, -1)", v.x, v.y);
    /* all alike: that vector */
    for (int k = 0; k < 9; k++) {
        fwd[k] = (McVec){ 6, -2 };
        bwd[k] = (McVec){ -6, 2 };
    }
    v = mc_local_motion(&g, fwd, bwd, 2, 1);
    CHECK(ts, v.x == 6 && v.y == -2, "uniform field: (%d, %d), want (6, -2)", v.x, v.y);
}

/* mc_median() against the rule written out (the smallest sum of L1
 * distances to all nine, or six, or four, the first in raster order on a
 * tie) on random 5x4 grids of few distinct vectors: uniform neighbourhoods,
 * ones that differ in x only or in y only, and ties. */
static void test_vector_median(TestState *ts)
{
    const McGrid g = mc_grid_make(80, 64, 16);
    McVec v[20];
    unsigned seed = 12345;
    int bad = 0, uniform = 0;
    for (int iter = 0; iter < 2000; iter++) {
        const int kinds = 1 + iter % 4;
        for (int k = 0; k < 20; k++) {
            seed = seed * 1103515245u + 12345u;
            const int r = (int)(seed >> 16) % kinds;
            /* x only, y only, both: vectors that one component alone does
             * not tell apart */
            v[k] = (McVec){ (int16_t)(r & 1 ? 4 : 0), (int16_t)(r & 2 ? -4 : 0) };
        }
        for (int by = 0; by < g.nby; by++)
            for (int bx = 0; bx < g.nbx; bx++) {
                McVec m[9];
                int n = 0, best = 0;
                long bd = -1;
                for (int y = by - 1; y <= by + 1; y++)
                    for (int x = bx - 1; x <= bx + 1; x++)
                        if (x >= 0 && y >= 0 && x < g.nbx && y < g.nby)
                            m[n++] = v[y * g.nbx + x];
                for (int i = 0; i < n; i++) {
                    long d = 0;
                    for (int j = 0; j < n; j++)
                        d += abs(m[i].x - m[j].x) + abs(m[i].y - m[j].y);
                    if (bd < 0 || d < bd) {
                        bd = d;
                        best = i;
                    }
                }
                uniform += bd == 0;
                const McVec got = mc_median(&g, v, bx, by);
                bad += !mc_vec_eq(got, m[best]);
            }
    }
    CHECK(ts, bad == 0, "%d of 40000 medians differ from the rule", bad);
    CHECK(ts, uniform > 1000 && uniform < 39000, "%d uniform neighbourhoods", uniform);
}

/* Fields of nb blocks, all f forward and b backward, the camera vector
 * cam, and the vector arrays of stages A and C (vec: 2 nb). */
static void set_fields(CudaMcArgs *a, McVec *fwd, McVec *bwd, McVec *vec, int nb, McVec f,
                       McVec b, McVec cam)
{
    for (int k = 0; k < nb; k++) {
        fwd[k] = f;
        bwd[k] = b;
    }
    a->fwd = fwd;
    a->bwd = bwd;
    a->cam = cam;
    a->vec_a = vec;
    a->vec_c = vec + nb;
}

/* The phase t = 1/2 with its displacement table (free the result). */
static int32_t *set_half_phase(CudaMcArgs *a)
{
    const int K = 16 * 34;
    int32_t *tab = malloc((2 * (size_t)K + 1) * sizeof *tab);
    if (!tab)
        return NULL;
    for (int k = -K; k <= K; k++)
        tab[k + K] = (int32_t)mc_rdiv(k, 2);
    a->ph = (McPhase){ tab, K, 1, 2 };
    return tab;
}

/* Vertical bars of period 8 px, standing still: the zero vector and (8, 0)
 * match equally well, and the camera vector (4, 0), half a period, sits at
 * the same distance from both. Only the local motion (every block's fields
 * say (8, 0)) separates them; without its term the tie goes to the first
 * candidate, the zero vector. */
static void test_choice_follows_neighbours(TestState *ts)
{
    enum { W = 64, H = 48, B = 16 };
    static uint8_t luma[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            luma[y * W + x] = (uint8_t)(x % 8 < 4 ? 200 : 40);
    static uint8_t grey[(W / 2) * (H / 2)];
    memset(grey, 128, sizeof grey);
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.prev[0] = a.next[0] = (McPlaneView){ luma, W, W, H };
    for (int c = 1; c < 3; c++)   /* colourless: the colour term is 0 */
        a.prev[c] = a.next[c] = (McPlaneView){ grey, W / 2, W / 2, H / 2 };
    a.g = mc_grid_make(W, H, B);
    McVec fwd[12], bwd[12], vec[24];
    set_fields(&a, fwd, bwd, vec, 12, (McVec){ 8, 0 }, (McVec){ -8, 0 }, (McVec){ 4, 0 });
    int32_t *tab = set_half_phase(&a);
    if (!tab) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    const int k = 1 * a.g.nbx + 1; /* an inner block: no one-sided cost */
    mc_choose_block(&a, k);
    CHECK(ts, vec[k].x == 32 && vec[k].y == 0,
          "inner block: (%d, %d) quarter pel, want (32, 0): the neighbours' motion", vec[k].x,
          vec[k].y);
    int x0, y0, w, h;
    mc_window(&a.g, 1, 1, &x0, &y0, &w, &h);
    const uint32_t cost = mc_cost_sub_os(&a, &a.g, &a.ph, x0, y0, w, h, vec[k].x, vec[k].y);
    CHECK(ts, cost == 0, "its bilateral cost: %u, want 0", cost);
    free(tab);
}

/* Grey luma, the same in both pictures, and a colour pattern (U: bars of
 * 16 chroma pixels) that moves 4 chroma pixels (8 luma pixels) right. The
 * fields say (8, 0) forward and (0, 0) backward, so the local motion is
 * (4, 0), and so is the camera vector: the zero vector and (8, 0) cost the
 * same in luma and in smoothness, and the camera vector itself costs least
 * in smoothness. Only colour tells that (8, 0) is the motion; without the
 * colour term the camera vector wins ((16, 0) in quarter pel). */
static void test_choice_sees_colour(TestState *ts)
{
    enum { W = 64, H = 48, B = 16, CW = W / 2, CH = H / 2 };
    static uint8_t luma[W * H], up[CW * CH], un[CW * CH], v[CW * CH];
    memset(luma, 128, sizeof luma);
    memset(v, 128, sizeof v);
    for (int y = 0; y < CH; y++)
        for (int x = 0; x < CW; x++) {
            up[y * CW + x] = (uint8_t)(x % 16 < 8 ? 200 : 40);
            un[y * CW + x] = (uint8_t)((x + 12) % 16 < 8 ? 200 : 40);   /* x - 4 */
        }
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.prev[0] = a.next[0] = (McPlaneView){ luma, W, W, H };
    a.prev[1] = (McPlaneView){ up, CW, CW, CH };
    a.next[1] = (McPlaneView){ un, CW, CW, CH };
    a.prev[2] = a.next[2] = (McPlaneView){ v, CW, CW, CH };
    a.g = mc_grid_make(W, H, B);
    McVec fwd[12], bwd[12], vec[24];
    set_fields(&a, fwd, bwd, vec, 12, (McVec){ 8, 0 }, (McVec){ 0, 0 }, (McVec){ 4, 0 });
    int32_t *tab = set_half_phase(&a);
    if (!tab) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    const McVec loc = mc_local_motion(&a.g, fwd, bwd, 1, 1);
    CHECK(ts, loc.x == 4 && loc.y == 0, "local motion (%d, %d), want (4, 0)", loc.x, loc.y);
    const int k = 1 * a.g.nbx + 1;
    mc_choose_block(&a, k);
    CHECK(ts, vec[k].x == 32 && vec[k].y == 0,
          "inner block: (%d, %d) quarter pel, want (32, 0): the colour's motion", vec[k].x,
          vec[k].y);
    int x0, y0, w, h;
    mc_window(&a.g, 1, 1, &x0, &y0, &w, &h);
    CHECK(ts, mc_chroma_cost(&a, &a.g, &a.ph, x0, y0, w, h, 8, 0) == 0 &&
                  mc_chroma_cost(&a, &a.g, &a.ph, x0, y0, w, h, 0, 0) > 0,
          "colour costs: (8, 0) %u, (0, 0) %u", mc_chroma_cost(&a, &a.g, &a.ph, x0, y0, w, h, 8, 0),
          mc_chroma_cost(&a, &a.g, &a.ph, x0, y0, w, h, 0, 0));
    /* a corner block: its window leaves the picture, the term is scaled */
    mc_choose_block(&a, 0);
    CHECK(ts, vec[0].x == 32 && vec[0].y == 0, "corner block: (%d, %d) quarter pel, want (32, 0)",
          vec[0].x, vec[0].y);
    free(tab);
}

/* The quadrant split on a textured still background with a textured object
 * that moves 8 px right: at t = 1/2 the object covers x in [8, 24), y in
 * [16, 24) (64 x 64, blocks of 16: block (1, 1)'s upper left quarter is
 * inside it, the rest of the block is background). With every final vector
 * zero but the object's block (0, 1), the quarter takes (32, 0) quarter pel
 * and the other three keep zero; the split picture is nearer the true one
 * than the block's one vector. The mirror case, a border block whose quarter
 * the inner neighbour's vector would fit, is left whole; and a flat picture
 * (every cost 0) splits nothing. A quarter also takes a vector of the
 * fields that no final vector holds, under its penalty. */
enum { QW = 64, QH = 64, QB = 16, QNB = (QW / QB) * (QH / QB) };

static int quad_texture(int x, int y, int seed)
{
    uint32_t h = (uint32_t)(x + 1000) * 73856093u ^ (uint32_t)(y + 1000) * 19349663u ^
                 (uint32_t)seed * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    return 30 + (int)((h ^ (h >> 15)) % 196);
}

/* The picture at time t (0 prev, 1 next, 2 the true middle) */
static int quad_scene(int x, int y, int t)
{
    const int sx = t == 0 ? -4 : t == 1 ? 4 : 0;   /* the object's shift */
    if (x >= 8 + sx && x < 24 + sx && y >= 16 && y < 24)
        return quad_texture(x - sx, y, 2);
    return quad_texture(x, y, 1);
}

static void quad_setup(CudaMcArgs *a, uint8_t *pv, uint8_t *nx, uint8_t *grey, int flat)
{
    for (int y = 0; y < QH; y++)
        for (int x = 0; x < QW; x++) {
            pv[y * QW + x] = (uint8_t)(flat ? 90 : quad_scene(x, y, 0));
            nx[y * QW + x] = (uint8_t)(flat ? 90 : quad_scene(x, y, 1));
        }
    memset(grey, 128, (QW / 2) * (QH / 2));
    memset(a, 0, sizeof *a);
    a->prev[0] = (McPlaneView){ pv, QW, QW, QH };
    a->next[0] = (McPlaneView){ nx, QW, QW, QH };
    for (int c = 1; c < 3; c++)
        a->prev[c] = a->next[c] = (McPlaneView){ grey, QW / 2, QW / 2, QH / 2 };
    a->g = mc_grid_make(QW, QH, QB);
    a->overlap = 1;
    a->wt = 128;
    /* zero fields: their candidates are the zero vector (none where the
     * own vector is zero) */
    static McVec zero_fields[2 * QNB];
    memset(zero_fields, 0, sizeof zero_fields);
    a->fwd = zero_fields;
    a->bwd = zero_fields + QNB;
}

/* The guard's picture: prev 100 everywhere, next 100 + 20 at columns
 * 16..19, 100 at 20..23, 100 + d3 at 24..27 and 100 beyond. */
static void guard_picture(uint8_t *pv, uint8_t *nx, int d3)
{
    for (int y = 0; y < QH; y++)
        for (int x = 0; x < QW; x++) {
            pv[y * QW + x] = 100;
            nx[y * QW + x] =
                (uint8_t)(100 + (x >= 16 && x < 20 ? 20 : x >= 24 && x < 28 ? d3 : 0));
        }
}

static void test_quad_split(TestState *ts)
{
    static uint8_t pv[QW * QH], nx[QW * QH], grey[(QW / 2) * (QH / 2)];
    McVec vec[6 * QNB];
    uint8_t split_flag[QNB];
    CudaMcArgs a;
    quad_setup(&a, pv, nx, grey, 0);
    int32_t *tab = set_half_phase(&a);
    if (!tab) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    a.vec_c = vec + QNB;
    a.vec_q = vec + 2 * QNB;
    a.split = split_flag;
    const int nbx = a.g.nbx;
    const McVec obj = { 32, 0 }, zero = { 0, 0 };
    for (int k = 0; k < QNB; k++)
        a.vec_c[k] = zero;
    a.vec_c[1 * nbx + 0] = obj;
    for (int k = 0; k < QNB; k++)
        mc_quad_block(&a, k);
    const int k11 = 1 * nbx + 1, q0 = 2 * 2 * nbx + 2;   /* block (1, 1), its first quarter */
    CHECK(ts, split_flag[k11] == 1, "block (1, 1) not split");
    CHECK(ts, mc_vec_eq(a.vec_q[q0], obj) && mc_vec_eq(a.vec_q[q0 + 1], zero) &&
                  mc_vec_eq(a.vec_q[q0 + 2 * nbx], zero) &&
                  mc_vec_eq(a.vec_q[q0 + 2 * nbx + 1], zero),
          "quarters of block (1, 1): (%d, %d) (%d, %d) (%d, %d) (%d, %d), want (32, 0) then zero",
          a.vec_q[q0].x, a.vec_q[q0].y, a.vec_q[q0 + 1].x, a.vec_q[q0 + 1].y,
          a.vec_q[q0 + 2 * nbx].x, a.vec_q[q0 + 2 * nbx].y, a.vec_q[q0 + 2 * nbx + 1].x,
          a.vec_q[q0 + 2 * nbx + 1].y);
    int split = 0;
    for (int k = 0; k < QNB; k++)
        split += split_flag[k];
    CHECK(ts, split == 1, "%d blocks split, want 1", split);
    /* the split quarter rebuilt nearer the true middle picture (the masks
     * still mix a quarter of the block's neighbours in at its seams) */
    long err_split = 0, err_whole = 0;
    for (int y = QB; y < QB + QB / 2; y++)
        for (int x = QB; x < QB + QB / 2; x++) {
            const int t = quad_scene(x, y, 2);
            err_split += mc_abs(mc_render_pixel(&a, 0, x, y) - t);
            err_whole += mc_abs(mc_render_px(&a.prev[0], &a.next[0], &a.ph, a.wt, &a.g, a.vec_c,
                                             1, 0, x, y) - t);
        }
    CHECK(ts, 2 * err_split < err_whole, "quarter (0, 0) of block (1, 1) error: split %ld, whole %ld",
          err_split, err_whole);
    /* a border block: its quarter over the object would fit the inner
     * neighbour's vector (cost 0, against the own vector's), but stays whole */
    for (int k = 0; k < QNB; k++)
        a.vec_c[k] = zero;
    a.vec_c[k11] = obj;
    const uint32_t c_obj = mc_cost_sub_os(&a, &a.g, &a.ph, 8, 16, 8, 8, obj.x, obj.y);
    const uint32_t c_own = mc_cost_sub_os(&a, &a.g, &a.ph, 8, 16, 8, 8, 0, 0);
    CHECK(ts, c_obj * 4 < c_own, "the border quarter's costs: object %u, own %u", c_obj, c_own);
    mc_quad_block(&a, 1 * nbx + 0);
    CHECK(ts, split_flag[1 * nbx + 0] == 0, "border block (0, 1) split");
    /* flat: every cost 0, nothing beats the own vector */
    quad_setup(&a, pv, nx, grey, 1);
    a.ph = (McPhase){ tab, 16 * 34, 1, 2 };
    a.vec_c = vec + QNB;
    a.vec_q = vec + 2 * QNB;
    a.split = split_flag;
    for (int k = 0; k < QNB; k++)
        a.vec_c[k] = (McVec){ (int16_t)(4 * (k % 3)), (int16_t)(-4 * (k % 2)) };
    split = 0;
    for (int k = 0; k < QNB; k++) {
        mc_quad_block(&a, k);
        split += split_flag[k];
    }
    CHECK(ts, split == 0, "flat picture: %d blocks split", split);
    /* the guard, exactly: prev is 100 everywhere, next 100 + d1 at columns
     * 16..19, 100 at 20..23 and 100 + d3 at 24..27. Over quarter (0, 0) of
     * block (1, 1) (columns 16..23) the zero vector compares next's columns
     * 16..23 with prev (cost 4 d1 per row), the left neighbour's (32, 0)
     * next's 20..27 (4 d3): a ratio d3/d1 of 14/20 switches, 16/20 does not */
    const int d3s[2] = { 14, 16 };
    for (int t = 0; t < 2; t++) {
        guard_picture(pv, nx, d3s[t]);
        for (int k = 0; k < QNB; k++)
            a.vec_c[k] = zero;
        a.vec_c[1 * nbx + 0] = obj;
        mc_quad_block(&a, k11);
        const McVec want = t ? zero : obj;
        CHECK(ts, mc_vec_eq(a.vec_q[q0], want),
              "guard, cost ratio %d/20: quarter (%d, %d), want (%d, %d)", d3s[t], a.vec_q[q0].x,
              a.vec_q[q0].y, want.x, want.y);
    }
    /* the 1-pel rule: a neighbour 3/4 pel from the own vector is not tried,
     * however much less it costs (the scene again, the block's vector 3/4
     * pel short of the object's motion) */
    quad_setup(&a, pv, nx, grey, 0);
    a.ph = (McPhase){ tab, 16 * 34, 1, 2 };
    a.vec_c = vec + QNB;
    a.vec_q = vec + 2 * QNB;
    a.split = split_flag;
    const McVec near = { 29, 0 };
    for (int k = 0; k < QNB; k++)
        a.vec_c[k] = zero;
    a.vec_c[1 * nbx + 0] = obj;
    a.vec_c[k11] = near;
    const uint32_t c_near = mc_cost_sub_os(&a, &a.g, &a.ph, 16, 16, 8, 8, near.x, near.y);
    const uint32_t c_far = mc_cost_sub_os(&a, &a.g, &a.ph, 16, 16, 8, 8, obj.x, obj.y);
    CHECK(ts, (uint64_t)c_far * 16 < (uint64_t)MC_QUAD_GUARD * c_near,
          "1-pel rule: the neighbour's cost %u is not below the guard of the own %u", c_far,
          c_near);
    mc_quad_block(&a, k11);
    CHECK(ts, mc_vec_eq(a.vec_q[q0], near), "1-pel rule: quarter (%d, %d), want (29, 0)",
          a.vec_q[q0].x, a.vec_q[q0].y);
    /* a field vector: every final vector zero, the object's motion only in
     * block (1, 1)'s forward field: its quarter over the object takes it */
    for (int k = 0; k < QNB; k++)
        a.vec_c[k] = zero;
    McVec fields[2 * QNB];
    memset(fields, 0, sizeof fields);
    fields[k11] = (McVec){ 8, 0 };   /* full pel */
    a.fwd = fields;
    a.bwd = fields + QNB;
    mc_quad_block(&a, k11);
    CHECK(ts, split_flag[k11] == 1 && mc_vec_eq(a.vec_q[q0], obj),
          "field vector: quarter (%d, %d), want (32, 0)", a.vec_q[q0].x, a.vec_q[q0].y);
    /* the same motion only in the block's backward field (negated), or only
     * in a field of the horizontal (0, 1) or vertical (1, 0) neighbour that
     * touches the quarter */
    const struct { int k, bwd; const char *what; } only[3] = {
        { k11, 1, "the block's backward field" },
        { 1 * nbx + 0, 0, "the horizontal neighbour's forward field" },
        { 0 * nbx + 1, 1, "the vertical neighbour's backward field" },
    };
    for (int t = 0; t < 3; t++) {
        memset(fields, 0, sizeof fields);
        fields[only[t].bwd ? QNB + only[t].k : only[t].k] =
            only[t].bwd ? (McVec){ -8, 0 } : (McVec){ 8, 0 };
        mc_quad_block(&a, k11);
        CHECK(ts, mc_vec_eq(a.vec_q[q0], obj), "%s: quarter (%d, %d), want (32, 0)",
              only[t].what, a.vec_q[q0].x, a.vec_q[q0].y);
    }
    memset(fields, 0, sizeof fields);
    fields[k11] = (McVec){ 8, 0 };
    /* its penalty, exactly (the guard's picture: own cost 4 * 20 grey
     * levels per row, the vector's 4 d3 plus 64 px * 32 quarter pel *
     * MC_QUAD_FIELD_PEN / 16 = 256 over the quarter's 8 rows, 32 per row):
     * it switches while 4 d3 + 32 < 12/16 * 80, d3 + 8 < 15, so at d3 = 6
     * and not at 10, where the same vector as a neighbour's final vector
     * (no penalty: d3 < 15) does */
    const int d3f[3] = { 6, 10, 10 };
    for (int t = 0; t < 3; t++) {
        guard_picture(pv, nx, d3f[t]);
        for (int k = 0; k < QNB; k++)
            a.vec_c[k] = zero;
        if (t == 2)
            a.vec_c[1 * nbx + 0] = obj;
        mc_quad_block(&a, k11);
        const McVec want = t == 1 ? zero : obj;
        CHECK(ts, mc_vec_eq(a.vec_q[q0], want),
              "field penalty, d3 = %d%s: quarter (%d, %d), want (%d, %d)", d3f[t],
              t == 2 ? " (a neighbour's final vector)" : "", a.vec_q[q0].x, a.vec_q[q0].y,
              want.x, want.y);
    }
    free(tab);
}

/* The refinement (mc_refine()) on a smooth texture moving by (1/2, 1/2)
 * px, (2, 2) in quarter pel: every vector of stage A zero. The half-pel
 * step's cross finds (2, 0) and (0, 2) cheaper than the centre, so its
 * diagonals are tried and (2, 2) wins; the quarter-pel step keeps it. A
 * refinement without the diagonals ends at (2, 1); one that skipped them
 * even where the cross improved would too. Started at the true vector, the
 * cross cannot improve and the vector stays. The texture: random bytes
 * box-blurred twice on a grid of quarter pixels, prev reading it 1/4 px to
 * the right and below, next 1/4 px to the left and above. */
enum { RW = 64, RH = 48, RB = 16, RF = 4 * RW + 40, RFH = 4 * RH + 40 };

static void blur_fine(int *f, int *t)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int y = 0; y < RFH; y++)          /* rows: 17 taps */
            for (int x = 0; x < RF; x++) {
                int s = 0;
                for (int d = -8; d <= 8; d++)
                    s += f[y * RF + (x + d < 0 ? 0 : x + d >= RF ? RF - 1 : x + d)];
                t[y * RF + x] = s / 17;
            }
        for (int y = 0; y < RFH; y++)          /* columns */
            for (int x = 0; x < RF; x++) {
                int s = 0;
                for (int d = -8; d <= 8; d++)
                    s += t[(y + d < 0 ? 0 : y + d >= RFH ? RFH - 1 : y + d) * RF + x];
                f[y * RF + x] = s / 17;
            }
    }
}

static void test_refine_diagonal(TestState *ts)
{
    static int fine[RF * RFH], tmp[RF * RFH];
    static uint8_t pv[RW * RH], nx[RW * RH], grey[(RW / 2) * (RH / 2)];
    uint32_t h = 12345;
    for (int i = 0; i < RF * RFH; i++) {
        h = h * 1103515245u + 12345u;
        fine[i] = (int)((h >> 16) & 255);
    }
    blur_fine(fine, tmp);
    /* stretch the blurred texture's contrast around its mean */
    long sum = 0;
    for (int i = 0; i < RF * RFH; i++)
        sum += fine[i];
    const int mean = (int)(sum / (RF * RFH));
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++) {
            const int fy = 4 * y + 20, fx = 4 * x + 20;
            const int a = 128 + 8 * (fine[(fy + 1) * RF + fx + 1] - mean);
            const int b = 128 + 8 * (fine[(fy - 1) * RF + fx - 1] - mean);
            pv[y * RW + x] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a);
            nx[y * RW + x] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
        }
    memset(grey, 128, sizeof grey);
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.prev[0] = (McPlaneView){ pv, RW, RW, RH };
    a.next[0] = (McPlaneView){ nx, RW, RW, RH };
    for (int c = 1; c < 3; c++)
        a.prev[c] = a.next[c] = (McPlaneView){ grey, RW / 2, RW / 2, RH / 2 };
    a.g = mc_grid_make(RW, RH, RB);
    int32_t *tab = set_half_phase(&a);
    if (!tab) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    enum { NB = (RW / RB) * (RH / RB) };
    McVec vec[NB];
    for (int k = 0; k < NB; k++)
        vec[k] = (McVec){ 0, 0 };
    McVec v = mc_refine(&a, &a.g, &a.ph, vec, 1, 1);
    CHECK(ts, v.x == 2 && v.y == 2, "from zero: (%d, %d), want (2, 2)", v.x, v.y);
    for (int k = 0; k < NB; k++)
        vec[k] = (McVec){ 2, 2 };
    v = mc_refine(&a, &a.g, &a.ph, vec, 1, 1);
    CHECK(ts, v.x == 2 && v.y == 2, "from the true vector: (%d, %d), want (2, 2)", v.x, v.y);
    free(tab);
}


/* The shifted grid (mc_block.h mc_grid_shifted()): its blocks start half a
 * block right and down, the last ones partial, none where the picture is
 * half a block or less; its windows and areas are clipped to the
 * picture's real edges; its candidates come from the first grid's fields
 * (their own stride and size), the last column included. */
static void test_shifted_grid(TestState *ts)
{
    McGrid g = mc_grid_make(1920, 1080, 16), s = mc_grid_shifted(&g);
    CHECK(ts, g.nbx == 120 && g.nby == 68 && g.ox == 0 && g.oy == 0,
          "1080p first grid: %dx%d from (%d, %d)", g.nbx, g.nby, g.ox, g.oy);
    CHECK(ts, s.nbx == 120 && s.nby == 67 && s.ox == 8 && s.oy == 8 && s.fnbx == 120 &&
              s.fnby == 68,
          "1080p shifted grid: %dx%d from (%d, %d), fields %dx%d", s.nbx, s.nby, s.ox, s.oy,
          s.fnbx, s.fnby);
    g = mc_grid_make(100, 40, 16);
    s = mc_grid_shifted(&g);
    CHECK(ts, g.nbx == 7 && g.nby == 3 && s.nbx == 6 && s.nby == 2,
          "100x40: first %dx%d, shifted %dx%d, want 7x3 and 6x2", g.nbx, g.nby, s.nbx, s.nby);
    int x0, y0, w, h;
    mc_block_area(&s, 5, 1, &x0, &y0, &w, &h);
    CHECK(ts, x0 == 88 && y0 == 24 && w == 12 && h == 16,
          "shifted block (5, 1): (%d, %d) %dx%d, want (88, 24) 12x16", x0, y0, w, h);
    mc_window(&s, 0, 0, &x0, &y0, &w, &h);
    CHECK(ts, x0 == 6 && y0 == 6 && w == 20 && h == 20,
          "shifted window (0, 0): (%d, %d) %dx%d, want (6, 6) 20x20", x0, y0, w, h);
    mc_window(&s, 5, 1, &x0, &y0, &w, &h);
    CHECK(ts, x0 == 86 && y0 == 22 && w == 14 && h == 18,
          "shifted window (5, 1): (%d, %d) %dx%d, want (86, 22) 14x18", x0, y0, w, h);
    for (int n = 1; n <= 8; n++) {
        g = mc_grid_make(n, 3 * n, 16);
        s = mc_grid_shifted(&g);
        CHECK(ts, s.nbx == 0, "%dx%d: %d shifted columns, want none", n, 3 * n, s.nbx);
    }
    g = mc_grid_make(9, 25, 16);
    s = mc_grid_shifted(&g);
    CHECK(ts, s.nbx == 1 && s.nby == 2, "9x25: shifted %dx%d, want 1x2", s.nbx, s.nby);
    /* candidates: the fields are the first grid's, 7x3 blocks */
    g = mc_grid_make(100, 40, 16);
    s = mc_grid_shifted(&g);
    McVec fwd[21], bwd[21];
    memset(fwd, 0, sizeof fwd);
    memset(bwd, 0, sizeof bwd);
    fwd[6] = (McVec){ 3, 1 };        /* field block (6, 0): right of shifted (5, 0) */
    fwd[1 * 7 + 2] = (McVec){ -2, 5 }; /* field block (2, 1): below shifted (2, 0) */
    fwd[1 * 6 + 2] = (McVec){ 9, 9 };  /* (2, 1) had the stride been the shifted nbx */
    int cx[MC_MAX_CAND], cy[MC_MAX_CAND];
    int n = mc_gather(&s, fwd, bwd, (McVec){ 0, 0 }, NULL, 0, 5, 0, cx, cy);
    int found = 0;
    for (int i = 0; i < n; i++)
        found |= cx[i] == 3 && cy[i] == 1;
    CHECK(ts, found, "shifted block (5, 0) lacks the fields' last column (%d candidates)", n);
    n = mc_gather(&s, fwd, bwd, (McVec){ 0, 0 }, NULL, 0, 2, 0, cx, cy);
    int below = 0, wrong = 0;
    for (int i = 0; i < n; i++) {
        below |= cx[i] == -2 && cy[i] == 5;
        wrong |= cx[i] == 9 && cy[i] == 9;
    }
    CHECK(ts, below && !wrong, "shifted block (2, 0): fields read with the wrong stride");
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_middle(&ts);
    test_local_motion(&ts);
    test_vector_median(&ts);
    test_choice_follows_neighbours(&ts);
    test_choice_sees_colour(&ts);
    test_quad_split(&ts);
    test_refine_diagonal(&ts);
    test_shifted_grid(&ts);
    return test_finish(&ts, "test_mc_stages");
}

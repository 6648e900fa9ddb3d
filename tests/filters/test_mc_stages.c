/* The vector choice's local smoothness (filters/mc_stages.h: mc_middle(),
 * mc_local_motion() and its term in mc_choose()) and its colour term
 * (mc_chroma_cost()), through the shared template as both engines build it
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
    const McGrid g = { 48, 48, 16, 3, 3 };
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
    a.g = (McGrid){ W, H, B, W / B, H / B };
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
    a.g = (McGrid){ W, H, B, W / B, H / B };
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

int main(void)
{
    TestState ts = { 0, 0 };
    test_middle(&ts);
    test_local_motion(&ts);
    test_choice_follows_neighbours(&ts);
    test_choice_sees_colour(&ts);
    return test_finish(&ts, "test_mc_stages");
}

/* The half-shifted grids (filters/mc_block.h mc_grid_half()) and the
 * average of the grids (mc_grid_average()), as both engines build them
 * (kernels/mc_gpu.h, one lane here): their geometry, none where the
 * shifted grid has no block (mc_other_grids()), the indices that CUDA's
 * launches walk (mc_other(), mc_split_count()), and the average's rounding. The pictures
 * they make are compared between the engines by cuda-mc-emul. */
#include <stdlib.h>
#include <string.h>

#include "kernels/mc_gpu.h"
#include "tests/check.h"

static void test_geometry(TestState *ts)
{
    McGrid g = mc_grid_make(1920, 1080, 16);
    McGrid r = mc_grid_half(&g, 0), d = mc_grid_half(&g, 1);
    CHECK(ts, r.ox == 8 && r.oy == 0 && r.nbx == 120 && r.nby == 68,
          "1080p right-shifted grid: %dx%d from (%d, %d), want 120x68 from (8, 0)", r.nbx,
          r.nby, r.ox, r.oy);
    CHECK(ts, d.ox == 0 && d.oy == 8 && d.nbx == 120 && d.nby == 67,
          "1080p down-shifted grid: %dx%d from (%d, %d), want 120x67 from (0, 8)", d.nbx,
          d.nby, d.ox, d.oy);
    g = mc_grid_make(100, 40, 16); /* 7x3 blocks, the last column 4 wide */
    r = mc_grid_half(&g, 0);
    d = mc_grid_half(&g, 1);
    CHECK(ts, r.nbx == 6 && r.nby == 3 && d.nbx == 7 && d.nby == 2,
          "100x40: right %dx%d, down %dx%d, want 6x3 and 7x2", r.nbx, r.nby, d.nbx, d.nby);
    int x0, y0, w, h;
    mc_block_area(&r, 5, 2, &x0, &y0, &w, &h);
    CHECK(ts, x0 == 88 && y0 == 32 && w == 12 && h == 8,
          "right-shifted block (5, 2): (%d, %d) %dx%d, want (88, 32) 12x8", x0, y0, w, h);
    mc_block_area(&d, 6, 1, &x0, &y0, &w, &h);
    CHECK(ts, x0 == 96 && y0 == 24 && w == 4 && h == 16,
          "down-shifted block (6, 1): (%d, %d) %dx%d, want (96, 24) 4x16", x0, y0, w, h);
    g = mc_grid_make(64, 48, 8);
    const McGrid s = mc_grid_shifted(&g), o = mc_grid_offset(&g, 4, 4);
    CHECK(ts, s.ox == o.ox && s.oy == o.oy && s.nbx == o.nbx && s.nby == o.nby,
          "blocks of 8: the shifted grid is the offset (4, 4)");
}

/* No half-shifted grid where the shifted grid has none (a picture half a
 * block wide or high), as on the CPU; and CUDA's index of the other
 * grids' blocks: the shifted grid's, then the right's, then the down's. */
static void test_other_grids(TestState *ts)
{
    static McVec vec[20 * 21];
    static uint8_t split[4 * 21];
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.g = mc_grid_make(100, 40, 16);
    a.gs = mc_grid_shifted(&a.g);
    a.vec_sa = vec;
    a.vec_sc = vec + 21;
    const size_t nb = 21;
    mc_other_grids(&a, vec + 12 * nb, split + 2 * nb, nb);
    const int ns = a.gs.nbx * a.gs.nby, n0 = a.gh[0].nbx * a.gh[0].nby,
              n1 = a.gh[1].nbx * a.gh[1].nby;
    CHECK(ts, ns == 12 && n0 == 18 && n1 == 14 && mc_other_count(&a) == 44,
          "100x40: %d + %d + %d other blocks, want 12 + 18 + 14", ns, n0, n1);
    CHECK(ts, mc_split_count(&a) == 26 && a.vec_hq == vec + 16 * nb && a.split_h == split + 2 * nb &&
                  a.acts == split + 3 * nb,
          "100x40: %d blocks to split (the shifted and the down-shifted grid's), want 26",
          mc_split_count(&a));
    McVec *va, *vc;
    int kk;
    const McGrid *gg = mc_other(&a, 11, &va, &vc, &kk);
    CHECK(ts, gg == &a.gs && kk == 11 && va == a.vec_sa && vc == a.vec_sc,
          "index 11: the shifted grid's last block");
    gg = mc_other(&a, 12, &va, &vc, &kk);
    CHECK(ts, gg == &a.gh[0] && kk == 0 && va == vec + 12 * nb && vc == vec + 14 * nb,
          "index 12: the right-shifted grid's first block");
    gg = mc_other(&a, 30, &va, &vc, &kk);
    CHECK(ts, gg == &a.gh[1] && kk == 0 && va == vec + 13 * nb && vc == vec + 15 * nb,
          "index 30: the down-shifted grid's first block");
    gg = mc_other(&a, 43, &va, &vc, &kk);
    CHECK(ts, gg == &a.gh[1] && kk == 13, "index 43: the down-shifted grid's last block");
    for (int n = 1; n <= 8; n++) {   /* 8 or fewer columns: no shifted block */
        memset(&a, 0, sizeof a);
        a.g = mc_grid_make(n, 40, 16);
        a.gs = mc_grid_shifted(&a.g);
        mc_other_grids(&a, vec, split, 3);
        CHECK(ts, mc_other_count(&a) == 0 && mc_split_count(&a) == 0,
              "%dx40: %d other blocks, want none", n, mc_other_count(&a));
    }
    memset(&a, 0, sizeof a);
    a.g = mc_grid_make(40, 6, 16); /* one row of 6: no shifted row */
    a.gs = mc_grid_shifted(&a.g);
    mc_other_grids(&a, vec, split, 3);
    CHECK(ts, mc_other_count(&a) == 0, "40x6: %d other blocks, want none", mc_other_count(&a));
}

/* The average: with one other grid (a + b + 1) >> 1, as before the
 * half-shifted grids; with more, the mean rounded half up; never outside
 * the samples' range. */
static void test_average(TestState *ts)
{
    int bad = 0;
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++) {
            bad += mc_grid_average(a, b, 1) != ((a + b + 1) >> 1);
            bad += mc_grid_average(a, 0, 0) != a;
        }
    CHECK(ts, bad == 0, "%d pairs differ from (a + b + 1) >> 1", bad);
    CHECK(ts, mc_grid_average(10, 11 + 11, 2) == 11, "(10 + 11 + 11) / 3: %d",
          mc_grid_average(10, 22, 2));
    CHECK(ts, mc_grid_average(10, 10 + 11, 2) == 10, "(10 + 10 + 11) / 3: %d",
          mc_grid_average(10, 21, 2));
    CHECK(ts, mc_grid_average(10, 11 + 11 + 10, 3) == 11, "(10 + 11 + 11 + 10) / 4: %d",
          mc_grid_average(10, 32, 3));
    CHECK(ts, mc_grid_average(10, 10 + 10 + 11, 3) == 10, "(10 + 10 + 10 + 11) / 4: %d",
          mc_grid_average(10, 31, 3));
    CHECK(ts, mc_grid_average(255, 3 * 255, 3) == 255 && mc_grid_average(0, 0, 3) == 0,
          "the range's ends");
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_geometry(&ts);
    test_other_grids(&ts);
    test_average(&ts);
    return test_finish(&ts, "test_mc_grids");
}

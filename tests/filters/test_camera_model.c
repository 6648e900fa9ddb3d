/* The pair's camera model (filters/mc_camera.c mc_camera_model(), the
 * model's motion mc_block.h mc_cam_at()) and its use by stage A
 * (filters/mc_stages.h mc_choose(), through the template as both engines
 * build it): a zoom and a rotation are found under outliers and bars, a pan
 * and a still camera keep the camera vector, and a block takes the model's
 * motion where the camera vector would pull it elsewhere. */
#include <stdlib.h>
#include <string.h>

#include "filters/mc.h"
#include "kernels/mc_gpu.h"
#include "tests/check.h"

enum { W = 640, H = 480, B = 16, BW = W / B, BH = H / B, NB = BW * BH };

static uint32_t rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Forward field of the similarity t + (z dx - r dy, r dx + z dy) about the
 * picture's centre (z, r in 1/1000), rounded; outliers per mille of the
 * blocks get random vectors of up to 40 pel. */
static void make_field(MotionVector *mv, uint8_t *outlier, int tx, int ty, int z, int r,
                       int outliers, uint32_t seed)
{
    for (int by = 0; by < BH; by++)
        for (int bx = 0; bx < BW; bx++) {
            const int k = by * BW + bx;
            const double dx = bx * B + B / 2 - W / 2, dy = by * B + B / 2 - H / 2;
            const double vx = tx + (z * dx - r * dy) / 1000.0, vy = ty + (r * dx + z * dy) / 1000.0;
            mv[k].x = (int16_t)(vx < 0 ? -(int)(-vx + 0.5) : (int)(vx + 0.5));
            mv[k].y = (int16_t)(vy < 0 ? -(int)(-vy + 0.5) : (int)(vy + 0.5));
            outlier[k] = (int)(rng(&seed) % 1000) < outliers;
            if (outlier[k]) {
                mv[k].x = (int16_t)((int)(rng(&seed) % 81) - 40);
                mv[k].y = (int16_t)((int)(rng(&seed) % 81) - 40);
            }
        }
}

/* The model of the field (the camera vector: the field's most frequent
 * vector, as the context computes it). */
static McCamModel fit(MotionVector *mv, const ActiveArea *area, MotionVector *cam)
{
    static MotionVector bwd[NB];
    static uint32_t sad[NB], keys[MOTION_CAMERA_KEYS(NB)];
    MotionFields f = { .fwd = { .mv = mv, .sad = sad, .bw = BW, .bh = BH, .block = B },
                       .bwd = { .mv = bwd, .sad = sad, .bw = BW, .bh = BH, .block = B } };
    *cam = motion_camera_vector(&f, area, W, H, NB, keys);
    const FilterPair pr = { NULL, NULL, &f, *area, 0, { 0, 0 }, 0, 0 };
    McCamModel m;
    mc_camera_model(&pr, W, H, *cam, &m);
    return m;
}

/* Blocks inside the area that are no outliers and whose model motion is
 * more than 1 pel from the field's in a component (both are rounded). */
static int misfits(const McCamModel *m, const MotionVector *mv, const uint8_t *outlier,
                   const ActiveArea *a, MotionVector cam)
{
    int bad = 0;
    for (int by = 0; by < BH; by++)
        for (int bx = 0; bx < BW; bx++) {
            const int k = by * BW + bx;
            if (outlier[k] || by * B < a->top)
                continue;
            const McVec e = mc_cam_at(m, (McVec){ cam.x, cam.y }, bx * B + B / 2, by * B + B / 2);
            bad += abs(e.x - mv[k].x) > 1 || abs(e.y - mv[k].y) > 1;
        }
    return bad;
}

static void test_fit(TestState *ts)
{
    static MotionVector mv[NB];
    static uint8_t outlier[NB];
    const ActiveArea full = { 0, 0, 0, 0 };
    MotionVector cam;
    /* a zoom in of 3 % a pair with a drift, 15 % outliers */
    make_field(mv, outlier, 2, -1, 30, 0, 150, 1);
    McCamModel m = fit(mv, &full, &cam);
    CHECK(ts, m.on, "zoom 3 %%: no model");
    CHECK(ts, misfits(&m, mv, outlier, &full, cam) == 0, "zoom: %d blocks off by more than 1 pel",
          misfits(&m, mv, outlier, &full, cam));
    CHECK(ts, m.z > 0 && labs((long)(m.r)) < m.z / 20, "zoom: z %lld r %lld (1/65536)",
          (long long)m.z, (long long)m.r);
    /* a rotation of 1/50 radian, 10 % outliers */
    make_field(mv, outlier, -3, 4, 0, 20, 100, 2);
    m = fit(mv, &full, &cam);
    CHECK(ts, m.on && m.r > 0, "rotation: on %d r %lld", m.on, (long long)m.r);
    CHECK(ts, misfits(&m, mv, outlier, &full, cam) == 0, "rotation: %d blocks off",
          misfits(&m, mv, outlier, &full, cam));
    /* a zoom out under a bar of 96 lines whose blocks stand still */
    make_field(mv, outlier, 0, 0, -25, 0, 50, 3);
    const ActiveArea bar = { 96, 0, 0, 0 };
    for (int k = 0; k < 96 / B * BW; k++)
        mv[k] = (MotionVector){ 0, 0 };
    m = fit(mv, &bar, &cam);
    CHECK(ts, m.on && m.z < 0, "zoom out under a bar: on %d z %lld", m.on, (long long)m.z);
    CHECK(ts, misfits(&m, mv, outlier, &bar, cam) == 0, "zoom out under a bar: %d blocks off",
          misfits(&m, mv, outlier, &bar, cam));
    /* a pan, a still camera and a zoom too small to move a corner by a
     * pixel: the camera vector alone */
    const int off[3][5] = { { 7, -5, 0, 0, 200 }, { 0, 0, 0, 0, 300 }, { 1, 1, 1, 0, 100 } };
    const char *what[3] = { "pan", "still camera", "zoom of 0.1 %" };
    for (int i = 0; i < 3; i++) {
        make_field(mv, outlier, off[i][0], off[i][1], off[i][2], off[i][3], off[i][4],
                   4 + (uint32_t)i);
        m = fit(mv, &full, &cam);
        CHECK(ts, !m.on, "%s: a model (z %lld, r %lld)", what[i], (long long)m.z,
              (long long)m.r);
        const McVec e = mc_cam_at(&m, (McVec){ cam.x, cam.y }, 5, 7);
        CHECK(ts, e.x == cam.x && e.y == cam.y, "%s: the camera's motion is not the vector",
              what[i]);
    }
    /* two halves that move apart (a cut between two pans, a split
     * screen): a zoom fits them worse than the camera vector (one half) */
    for (int k = 0; k < NB; k++)
        mv[k] = (MotionVector){ (int16_t)(k % BW < BW / 2 ? -6 : 6), 0 };
    m = fit(mv, &full, &cam);
    CHECK(ts, !m.on, "two halves: a model (z %lld, r %lld)", (long long)m.z, (long long)m.r);
    /* random fields: no model */
    make_field(mv, outlier, 0, 0, 0, 0, 1000, 9);
    m = fit(mv, &full, &cam);
    CHECK(ts, !m.on, "random field: a model (z %lld, r %lld)", (long long)m.z, (long long)m.r);
}

/* mc_cam_at(): rounding of halves upwards, and the limit. */
static void test_cam_at(TestState *ts)
{
    McCamModel m = { 1, 100, 50, 20, 3 * 32768, -32768, 65536 / 8, 0 };
    McVec v = mc_cam_at(&m, (McVec){ 9, 9 }, 100, 50);
    CHECK(ts, v.x == 2 && v.y == 0, "at the origin: (%d, %d), want (2, 0)", v.x, v.y);
    v = mc_cam_at(&m, (McVec){ 9, 9 }, 108, 50);   /* 1.5 + 1 */
    CHECK(ts, v.x == 3 && v.y == 0, "8 px right: (%d, %d), want (3, 0)", v.x, v.y);
    v = mc_cam_at(&m, (McVec){ 9, 9 }, 100 + 8 * 100, 50 - 8 * 100);
    CHECK(ts, v.x == 20 && v.y == -20, "far: (%d, %d), want the limit (20, -20)", v.x, v.y);
    m.on = 0;
    v = mc_cam_at(&m, (McVec){ 9, -4 }, 500, 50);
    CHECK(ts, v.x == 9 && v.y == -4, "no model: (%d, %d), want the vector (9, -4)", v.x, v.y);
}

/* A flat picture, fields that all hold the zoom's motion at each block:
 * every candidate costs 0 in SAD, so the smoothness terms decide. With the
 * camera vector (0, 0) the zero vector wins (its camera term is 0); with
 * the model, a block takes its own motion. */
static void test_choice(TestState *ts)
{
    enum { SW = 128, SH = 96, SB = 16, SBW = SW / SB, SBH = SH / SB, SNB = SBW * SBH };
    static uint8_t luma[SW * SH], grey[(SW / 2) * (SH / 2)];
    memset(luma, 90, sizeof luma);
    memset(grey, 128, sizeof grey);
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    a.prev[0] = a.next[0] = (McPlaneView){ luma, SW, SW, SH };
    for (int c = 1; c < 3; c++)
        a.prev[c] = a.next[c] = (McPlaneView){ grey, SW / 2, SW / 2, SH / 2 };
    a.g = mc_grid_make(SW, SH, SB);
    const McCamModel zoom = { 1, SW / 2, SH / 2, SW, 0, 0, 65536 / 10, 0 };
    static McVec fwd[SNB], bwd[SNB], vec[2 * SNB];
    for (int by = 0; by < SBH; by++)
        for (int bx = 0; bx < SBW; bx++) {
            const McVec e = mc_cam_at(&zoom, (McVec){ 0, 0 }, bx * SB + SB / 2, by * SB + SB / 2);
            fwd[by * SBW + bx] = e;
            bwd[by * SBW + bx] = (McVec){ (int16_t)-e.x, (int16_t)-e.y };
        }
    a.fwd = fwd;
    a.bwd = bwd;
    a.vec_a = vec;
    a.vec_c = vec + SNB;
    const int K = 16 * 34;
    int32_t *tab = malloc((2 * (size_t)K + 1) * sizeof *tab);
    if (!tab) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    for (int k = -K; k <= K; k++)
        tab[k + K] = (int32_t)mc_rdiv(k, 2);
    a.ph = (McPhase){ tab, K, 1, 2 };
    const int k = 1 * SBW + 6; /* an inner block right of the centre: (4, -2) */
    const McVec e = fwd[k];
    for (int on = 0; on < 2; on++) {
        a.cam_model = zoom;
        a.cam_model.on = on;
        mc_choose_block(&a, k);
        const McVec want = on ? (McVec){ (int16_t)(4 * e.x), (int16_t)(4 * e.y) } : (McVec){ 0, 0 };
        CHECK(ts, e.x != 0 && vec[k].x == want.x && vec[k].y == want.y,
              "%s: (%d, %d) quarter pel, want (%d, %d)", on ? "with the model" : "camera vector",
              vec[k].x, vec[k].y, want.x, want.y);
    }
    free(tab);
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_cam_at(&ts);
    test_fit(&ts);
    test_choice(&ts);
    return test_finish(&ts, "test_camera_model");
}

/* The pair's camera model for the vector choice (mc_block.h McCamModel):
 * host code that every backend runs, in integers, so that every backend
 * and every machine gets the same model. */
#include "filters/mc.h"
#include "src/common.h"

enum {
    CAM_ROUNDS = 4,      /* fits, each over the blocks the last one explains */
    CAM_MIN_BLOCKS = 16, /* fewer inliers: no model                          */
    /* The largest model vector component: a chosen vector is stored in
     * quarter pel as int16 (mc_choose()). */
    CAM_LIM = 8191,
};
/* The inliers of the rounds after the first (which takes every voting
 * block): |v - model|_1 <= this (full pel). */
static const int cam_inlier_l1[CAM_ROUNDS - 1] = { 6, 3, 2 };

/* The blocks that vote: every second block of every second row (the fit
 * has 4 unknowns; a quarter of the blocks keeps it at 0.1 % of a 1080p
 * pair's instructions), inside the pair's active area (as for the camera
 * vector) and not on the picture's outer ring, where the fields hold the
 * content that enters or leaves. */
static int cam_block_votes(const MotionField *f, const ActiveArea *a, int width, int height,
                           int bx, int by)
{
    return !(bx & 1) && !(by & 1) && bx > 0 && by > 0 && bx < f->bw - 1 && by < f->bh - 1 &&
           motion_block_active(a, width, height, f->block, bx, by);
}

/* Block b's centre along one axis, in luma pixels. */
static int cam_centre(const MotionField *f, int b)
{
    return b * f->block + f->block / 2;
}

/* n/d rounded to nearest, halves away from zero (d > 0): mc_rdiv() without
 * its 2n, which the sums below could not afford. */
static int64_t div_round(int64_t n, int64_t d)
{
    return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d);
}

/* num * 65536 / den, rounded (den > 0): num and den halved together while
 * the product would leave int64 (the sums of 16384x16384 pictures in
 * blocks of 8 come within a factor 2 of it). */
static int64_t div_fixed16(int64_t num, int64_t den)
{
    while (num > INT64_MAX / 65536 || num < -(INT64_MAX / 65536)) {
        num /= 2;
        den = den / 2 > 0 ? den / 2 : 1;
    }
    return div_round(num * 65536, den);
}

/* One least-squares fit of t, z, r over the voting blocks within l1 of the
 * model m (every voting block in the first round): with dx, dy from the
 * inliers' centroid, t is their mean vector, z = sum(dx vx + dy vy) /
 * sum(dx^2 + dy^2) and r = sum(dx vy - dy vx) / the same. The vectors are
 * limited to +-m->lim first. Returns 0 with too few inliers or a
 * degenerate spread. */
static int cam_fit(const MotionField *f, const ActiveArea *a, int width, int height, int first,
                   int l1, McCamModel *m)
{
    int64_t n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, svx = 0, svy = 0;
    int64_t sxvx = 0, syvy = 0, sxvy = 0, syvx = 0;
    const McVec none = { 0, 0 };
    for (int by = 0; by < f->bh; by++)
        for (int bx = 0; bx < f->bw; bx++) {
            if (!cam_block_votes(f, a, width, height, bx, by))
                continue;
            const MotionVector mv = f->mv[by * f->bw + bx];
            const int vx = mc_clamp(mv.x, -m->lim, m->lim), vy = mc_clamp(mv.y, -m->lim, m->lim);
            const int x = cam_centre(f, bx), y = cam_centre(f, by);
            if (!first) {
                const McVec e = mc_cam_at(m, none, x, y);
                if (mc_abs(vx - e.x) + mc_abs(vy - e.y) > l1)
                    continue;
            }
            n++;
            sx += x;
            sy += y;
            sxx += (int64_t)x * x;
            syy += (int64_t)y * y;
            svx += vx;
            svy += vy;
            sxvx += (int64_t)x * vx;
            syvy += (int64_t)y * vy;
            sxvy += (int64_t)x * vy;
            syvx += (int64_t)y * vx;
        }
    if (n < CAM_MIN_BLOCKS)
        return 0;
    const int64_t ox = div_round(sx, n), oy = div_round(sy, n);
    /* the sums about (ox, oy) */
    const int64_t dd = sxx - 2 * ox * sx + n * ox * ox + syy - 2 * oy * sy + n * oy * oy;
    const int64_t dxvx = sxvx - ox * svx, dyvy = syvy - oy * svy;
    const int64_t dxvy = sxvy - ox * svy, dyvx = syvx - oy * svx;
    if (dd <= 0)
        return 0;
    m->ox = (int)ox;
    m->oy = (int)oy;
    m->tx = div_fixed16(svx, n);
    m->ty = div_fixed16(svy, n);
    m->z = div_fixed16(dxvx + dyvy, dd);
    m->r = div_fixed16(dxvy - dyvx, dd);
    m->on = 1;
    return 1;
}

void mc_camera_model(const FilterPair *pr, int width, int height, MotionVector cam,
                     McCamModel *m)
{
    const int64_t side = width > height ? width : height;
    *m = (McCamModel){ 0, 0, 0, side < CAM_LIM ? (int)side : CAM_LIM, 0, 0, 0, 0 };
    if (!pr->fields)
        return;
    const MotionField *f = &pr->fields->fwd;
    /* Kept where it matters and where it explains the field better than
     * the camera vector: the model moves the picture's farthest corner by
     * a pixel or more against its translation (half a pixel at the first
     * round, where every voting block counts: most pairs stop there), and
     * 10 % more of the voting blocks lie within 1 pel of it than of the
     * camera vector (CAM_MIN_BLOCKS of them at least). Else the camera
     * vector alone (a pan or a still camera: the vector choice of before,
     * bit for bit). */
    McCamModel fit = *m;
    for (int k = 0; k < CAM_ROUNDS; k++) {
        if (!cam_fit(f, &pr->area, width, height, k == 0, k ? cam_inlier_l1[k - 1] : 0, &fit))
            return;
        const int64_t reach = (fit.z < 0 ? -fit.z : fit.z) + (fit.r < 0 ? -fit.r : fit.r);
        if (reach * side < (k ? 2 : 1) * 65536)
            return;
    }
    int in_cam = 0, in_model = 0;
    const McVec none = { 0, 0 };
    for (int by = 0; by < f->bh; by++)
        for (int bx = 0; bx < f->bw; bx++) {
            if (!cam_block_votes(f, &pr->area, width, height, bx, by))
                continue;
            const MotionVector v = f->mv[by * f->bw + bx];
            const McVec e = mc_cam_at(&fit, none, cam_centre(f, bx), cam_centre(f, by));
            in_cam += mc_abs(v.x - cam.x) + mc_abs(v.y - cam.y) <= 1;
            in_model += mc_abs(v.x - e.x) + mc_abs(v.y - e.y) <= 1;
        }
    if (in_model >= CAM_MIN_BLOCKS && 10 * in_model > 11 * in_cam)
        *m = fit;
}

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/timeline.h"

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

int timeline_init(Timeline *tl, Rational in_fps, RateMode mode, int factor, Rational fps)
{
    if (in_fps.num <= 0 || in_fps.den <= 0) return -1;
    tl->in_fps = rational_make(in_fps.num, in_fps.den);
    switch (mode) {
    case RATE_FACTOR:
        tl->out_fps = rational_mul(tl->in_fps, rational_make(factor, 1));
        tl->step = rational_make(1, factor);
        break;
    case RATE_SLOWMO:
        tl->out_fps = tl->in_fps;
        tl->step = rational_make(1, factor);
        break;
    case RATE_FPS:
        if (fps.num <= 0 || fps.den <= 0) return -1;
        tl->out_fps = rational_make(fps.num, fps.den);
        tl->step = rational_div(tl->in_fps, tl->out_fps);
        break;
    default:
        return -1;
    }
    return tl->step.num > 0 && tl->step.den > 0 ? 0 : -1;
}

TimelinePoint timeline_point(const Timeline *tl, int64_t i)
{
    TimelinePoint p;
    p.frame = muldiv_floor(i, tl->step.num, tl->step.den);
    /* Remainder of i*num/den, exact in 128 bits. */
    __int128 rem = (__int128)i * tl->step.num - (__int128)p.frame * tl->step.den;
    Rational t = rational_make((int64_t)rem, tl->step.den);
    p.num = t.num;
    p.den = t.den ? t.den : 1;
    return p;
}

int64_t timeline_output_count(const Timeline *tl, int64_t n)
{
    /* Smallest i with i*step >= n, i.e. ceil(n * den / num). */
    int64_t q = muldiv_floor(n, tl->step.den, tl->step.num);
    return ((__int128)q * tl->step.num < (__int128)n * tl->step.den) ? q + 1 : q;
}

Rational timeline_vfr_rate(Rational average)
{
    static const Rational common[] = {
        { 24, 1 }, { 25, 1 }, { 30, 1 }, { 48, 1 }, { 50, 1 }, { 60, 1 }, { 90, 1 },
        { 100, 1 }, { 120, 1 }, { 144, 1 }, { 240, 1 },
    };
    if (average.num <= 0 || average.den <= 0) return average;
    /* up to 2% above a common rate is that rate: a phone's timestamps
     * jitter, and an average over n pictures whose last one has no
     * duration is n / (n - 1) too high (30.23 fps for 90 pictures at 30);
     * rounded up, such a clip became 48 and 96 fps at 2x */
    for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
        if (rational_cmp(average, (Rational){ common[k].num * 51, common[k].den * 50 }) <= 0)
            return (Rational){ common[k].num, common[k].den };
    return (Rational){ (average.num + average.den - 1) / average.den, 1 };
}

int timed_init(TimedInput *ti, Rational in_fps, Rational time_base, int64_t pts0)
{
    memset(ti, 0, sizeof *ti);
    ti->pts0 = pts0;
    ti->have_pts0 = pts0 != INT64_MIN;
    if (in_fps.num <= 0 || in_fps.den <= 0 || time_base.num <= 0 || time_base.den <= 0 ||
        in_fps.num > INT32_MAX || in_fps.den > INT32_MAX || time_base.num > INT32_MAX ||
        time_base.den > INT32_MAX)
        return -1;
    /* P = dt * tb * fps = dt * tick / unit */
    int64_t tick = time_base.num * in_fps.num, unit = time_base.den * in_fps.den;
    const int64_t g = gcd64(tick, unit);
    ti->tick = tick / g;
    ti->unit = unit / g;
    const int64_t per_s = (in_fps.num + in_fps.den - 1) / in_fps.den;   /* frames, >= 1 */
    ti->jump_max = ti->unit > INT64_MAX / TIMED_JUMP_SECONDS / per_s
                 ? INT64_MAX : ti->unit * TIMED_JUMP_SECONDS * per_s;
    return 0;
}

void timed_set_origin(TimedInput *ti, int64_t pts0)
{
    if (ti->n == 0 && pts0 != INT64_MIN) {
        ti->pts0 = pts0;
        ti->have_pts0 = 1;
    }
}

void timed_add(TimedInput *ti, int64_t pts)
{
    const int64_t k = ti->n;
    const int64_t prev = k ? ti->pos[1] : 0;
    int64_t a;
    if (k == 0 && !ti->have_pts0 && pts != INT64_MIN) {
        ti->pts0 = pts;
        ti->have_pts0 = 1;
        a = 0;
    } else if (pts == INT64_MIN || !ti->have_pts0 || (k && pts <= ti->last_pts) ||
               pts < ti->pts0 ||
               (uint64_t)pts - (uint64_t)ti->pts0 > (uint64_t)(INT64_MAX / 4 / ti->tick)) {
        /* (the distance in uint64: pts0 near INT64_MIN, pts near INT64_MAX) */
        a = k ? prev + ti->unit : 0;      /* no usable time: one frame on */
        pts = k ? ti->last_pts : pts;
    } else {
        a = (pts - ti->pts0) * ti->tick - ti->shift;
        if (k && a - prev > ti->jump_max) {
            if (!ti->jumps++) {
                ti->jump_frames = (a - prev) / ti->unit;
                ti->jump_after = k - 1;
            }
            ti->shift += a - prev - ti->unit;
            a = prev + ti->unit;
        }
    }
    /* On the grid when within a tick of a slot (timestamps are rounded to
     * the time base), but never more than a quarter frame. The slot is the
     * nearest one, not the k-th: a picture lost before does not move the
     * later ones off the grid, and a segment that starts mid-file places
     * its pictures as the whole run does. */
    const int64_t slot = (a + ti->unit / 2) / ti->unit * ti->unit;
    const int64_t tol = ti->tick < ti->unit / 4 ? ti->tick : ti->unit / 4;
    const int on = llabs(a - slot) <= tol;
    if (on)
        a = slot;
    else
        ti->off_grid++;
    if (k && a <= prev) a = prev + 1;     /* positions strictly increase */
    ti->pos[0] = ti->pos[1];
    ti->on_grid[0] = ti->on_grid[1];
    ti->pos[1] = a;
    ti->on_grid[1] = on;
    ti->last_pts = pts;
    ti->n++;
}

int64_t timed_last_frame(const TimedInput *ti)
{
    return ti->pos[1] > 0 ? ti->pos[1] / ti->unit : 0;
}

/* x = i * step in position units, times step.den: i * step.num * unit. */
static __int128 scaled_x(const TimedInput *ti, const Timeline *tl, int64_t i)
{
    return (__int128)i * tl->step.num * ti->unit;
}

int timed_needs_more(const TimedInput *ti, const Timeline *tl, int64_t i)
{
    return ti->n < 2 || (__int128)ti->pos[1] * tl->step.den <= scaled_x(ti, tl, i);
}

int timed_point(const TimedInput *ti, const Timeline *tl, int64_t i, TimelinePoint *p)
{
    const __int128 x = scaled_x(ti, tl, i), sd = tl->step.den;
    const int64_t last = ti->n - 1;
    if ((__int128)ti->pos[0] * sd > x) {
        /* before the first picture read (a segment's overlap starts at
         * a picture, the whole run at the first): that picture */
        *p = (TimelinePoint){ .frame = last - 1, .num = 0, .den = 1 };
        return 1;
    }
    if ((__int128)ti->pos[1] * sd <= x) {
        const int64_t dur = ti->on_grid[1] || ti->n < 2 ? ti->unit : ti->pos[1] - ti->pos[0];
        if ((__int128)(ti->pos[1] + dur) * sd <= x)
            return 0;                               /* past the input's end */
        *p = (TimelinePoint){ .frame = last, .num = 0, .den = 1 };   /* hold */
        return 1;
    }
    if (ti->on_grid[0] && ti->on_grid[1] && ti->pos[1] - ti->pos[0] == ti->unit) {
        *p = timeline_point(tl, i);                 /* constant rate: exact */
        p->frame = last - 1;
        return 1;
    }
    __int128 num = x - (__int128)ti->pos[0] * sd;
    __int128 den = sd * (ti->pos[1] - ti->pos[0]);
    /* Exact when it fits; else to 2^-30, far finer than a pixel's motion. */
    while (den > INT64_MAX / 2 || num > INT64_MAX / 2) {
        num >>= 1;
        den >>= 1;
    }
    if (den <= 0) den = 1;
    const Rational t = rational_make((int64_t)num, (int64_t)den);
    *p = (TimelinePoint){ .frame = last - 1, .num = t.num, .den = t.den };
    return 1;
}

#include "src/cli/timeline.h"

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

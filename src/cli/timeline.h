/* Where each output frame falls on the input: output frame i sits at input
 * position i * step (in input frames); its integer part names the previous
 * original, its fraction the phase t between that original and the next.
 *
 *   --factor N : out rate = N * in rate, step = 1/N
 *   --slowmo N : out rate = in rate,     step = 1/N
 *   --fps R    : out rate = R,           step = in rate / R
 *
 * An n-frame input gives ceil(n / step) output frames (n*N for --factor and
 * --slowmo): every output frame whose time lies before the input's end. The
 * last original is held for the slots after it, because there is no next
 * frame to move towards; so the duration is exactly n / in rate (x N for
 * slow motion). */
#ifndef OMCTI_CLI_TIMELINE_H
#define OMCTI_CLI_TIMELINE_H

#include <stdint.h>

#include "src/cli/options.h"
#include "src/rational.h"

typedef struct Timeline {
    Rational in_fps, out_fps;
    Rational step;          /* input frames per output frame */
} Timeline;

typedef struct TimelinePoint {
    int64_t frame;          /* the original before (or at) the point     */
    int64_t num, den;       /* phase t = num/den in [0, 1)               */
} TimelinePoint;

int timeline_init(Timeline *tl, Rational in_fps, RateMode mode, int factor, Rational fps);
TimelinePoint timeline_point(const Timeline *tl, int64_t i);
/* Output frames for an n-frame input. */
int64_t timeline_output_count(const Timeline *tl, int64_t n);

#endif

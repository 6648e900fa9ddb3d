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

/* Input pictures placed by their timestamps (variable frame rate). Picture
 * k sits at position P_k = (pts_k - pts_0) * in_fps, in input frames, kept
 * exactly as a / unit. A picture within a tick (at most a quarter frame) of
 * the nominal grid point k is put on it, so a constant-rate file gives the
 * positions 0, 1, 2, ... and exactly the output of timeline_point(). Output
 * frame i (position i * step) lies between the two pictures around it, at
 * its phase between their real times; after the last picture it holds that
 * one for the last picture's duration (the interval before it, or one
 * nominal frame when on the grid). */
typedef struct TimedInput {
    int64_t unit;           /* one nominal frame, in position units       */
    int64_t tick;           /* one time-base unit, in position units      */
    int64_t pts0, last_pts;
    int have_pts0;          /* pts0 set (segments: the file's first)       */
    int64_t n;              /* pictures placed                             */
    int64_t pos[2];         /* positions of pictures n - 2 and n - 1       */
    int on_grid[2];
    int64_t off_grid;       /* pictures placed by a timestamp off the grid */
    int64_t jump_max;       /* TIMED_JUMP_SECONDS, in position units       */
    int64_t shift;          /* the gaps closed so far, in position units   */
    int64_t jumps;          /* gaps closed                                 */
    int64_t jump_frames;    /* the first one's length, in nominal frames   */
    int64_t jump_after;     /* the picture before it (0-based)             */
} TimedInput;

/* A picture more than this many seconds after the one before (forward; a
 * step back is placed a frame on anyway) is taken for a timestamp jump, as
 * FFmpeg's CLI takes one in MPEG-TS (its dts_delta_threshold): the gap is
 * closed to one nominal frame and the later pictures keep their distances
 * to it. Else one damaged timestamp in a 6-picture file asked for hours of
 * held frames (a bit flipped in a TS: 2 252 frames; 5 hours: 900 000). */
#define TIMED_JUMP_SECONDS 10

/* 0, or -1 when the time base cannot be used (then go by frame numbers).
 * pts0: the time of position 0 (a segment: the file's first picture), or
 * INT64_MIN for the first picture placed. */
int  timed_init(TimedInput *ti, Rational in_fps, Rational time_base, int64_t pts0);
/* Sets the time of position 0 before the first picture is placed (a whole
 * run: the reader's origin, video_reader_origin()); INT64_MIN leaves it to
 * the first picture. */
void timed_set_origin(TimedInput *ti, int64_t pts0);
/* Places the next picture (pts: VIDEO_NO_PTS-style INT64_MIN when none;
 * a missing or non-increasing one is put a nominal frame after the last,
 * one after a jump (TIMED_JUMP_SECONDS) too). */
void timed_add(TimedInput *ti, int64_t pts);
/* The frame slot of the last picture placed: its position in whole input
 * frames, rounded down (>= 0). */
int64_t timed_last_frame(const TimedInput *ti);
/* Whether output frame i lies at or after the last picture placed (read
 * on, unless the input has ended). */
int  timed_needs_more(const TimedInput *ti, const Timeline *tl, int64_t i);
/* Output frame i on pictures 0 .. n-1 (counted from the first placed): 1
 * with the point (frame n-2 and its phase, or frame n-1 to hold the last),
 * 0 past the input's end. */
int  timed_point(const TimedInput *ti, const Timeline *tl, int64_t i, TimelinePoint *p);

int timeline_init(Timeline *tl, Rational in_fps, RateMode mode, int factor, Rational fps);
/* The nominal rate of a variable-rate input, which --factor multiplies:
 * its average rate rounded up to the next common rate (24, 25, 30, 48, 50,
 * 60, 90, 100, 120, 144, 240), or to the next integer above 240: a phone clip of 24 then 30 fps (average
 * 27.1) is 30, so 2x gives 60 fps, a frame slot for every picture. An
 * average up to 2% above a common rate is that rate (timestamp jitter). */
Rational timeline_vfr_rate(Rational average);
TimelinePoint timeline_point(const Timeline *tl, int64_t i);
/* Output frames for an n-frame input. */
int64_t timeline_output_count(const Timeline *tl, int64_t n);

#endif

/* Brightness compensation of a pair for the motion search. Where the whole
 * picture gets brighter or darker between prev and next (a fade, an
 * exposure change), a SAD prefers the vectors that match brightness over
 * those that match content: a fade step was rebuilt worse than the blend.
 * Such a pair is searched and built from copies of both pictures scaled
 * about black to the pair's mean level (the same on every engine: host
 * code); the picture built at phase t is scaled back to t's level. */
#ifndef OMCTI_FADE_H
#define OMCTI_FADE_H

#include <stdint.h>

#include "src/active_area.h"
#include "src/frame.h"

typedef struct FadeGain {
    int active;            /* 0: the pair is searched as it is              */
    int64_t lp, ln;        /* luma levels (sums of Y - 16) of the content
                              both pictures show, prev and next             */
    int64_t spread;        /* how far the regions' own gains stray from the
                              whole's, in 1/1024 of what a fade may (0..1024;
                              lower: the alignment fits better)             */
} FadeGain;

/* Whether the pair (prev, next) is a brightness change of the whole
 * picture. Content is matched by the vector (gx, gy): prev at B shows what
 * next shows at B + g; inside the pair's active area. The levels must
 * differ by 1/32 or more (at most 8x), both at least 2 grey levels above
 * black per pixel; and the matched
 * picture is cut into 4x4 regions whose own ratios next/prev may deviate
 * from the whole's by a quarter of its change on average: a pan that
 * uncovers brighter content, a light switched on in one corner or a
 * misaligned g is no fade. Reads one row in four. */
FadeGain fade_measure(const OmctiFrame *prev, const OmctiFrame *next, int gx, int gy,
                      const ActiveArea *area);

/* The pair's fade for its motion search: fade_measure() at the camera's
 * vector g of the first search and, g being nonzero, at the zero vector
 * too; of the two that find a fade, the one whose regions agree better
 * with one gain (g's on a tie). A fade's first search chases brightness as
 * well as content, so g may be far from the camera's motion: a still shot
 * fading to black gave (-64, -64), the rectangles compared at g then hold
 * different content, their levels a wrong gain, and the pair scaled by it
 * was searched at two brightnesses again (docs/quality.md, "a fade measured
 * where the picture is"). */
FadeGain fade_measure_pair(const OmctiFrame *prev, const OmctiFrame *next, int gx, int gy,
                           const ActiveArea *area);

/* dst (same geometry, padding included) = src scaled to the pair's mean
 * level: luma about 16, chroma about 128; side 0 is prev, 1 next. */
void fade_scale_frame(const FadeGain *g, int side, OmctiFrame *dst, const OmctiFrame *src);

/* Scales a picture built from the scaled pair to the level of phase
 * num/den (nothing to do at 1/2). */
void fade_to_phase(const FadeGain *g, int64_t num, int64_t den, OmctiPicture *pic);

/* Whether three consecutive pictures change linearly: the middle one (p1)
 * lies halfway between the one before (p0) and the one after (p2, a
 * picture still to be copied in), to within a quarter of the change
 * between those two, and the change is 1.5 grey levels a pixel and frame
 * or more (sums over the picture, not per pixel). A
 * cross-dissolve is that (each picture a mix of two shots whose share moves
 * by a step per frame), so is a fade (which fade_measure() takes instead);
 * motion is not (a moving edge is not the mean of its two positions), nor
 * a still picture (no change). Luma, one row in eight, inside the active
 * area a of p0 and p1 (both pictures' lines outside it: bars, which the
 * context's working copies have re-padded while p2 still holds them, and
 * which neither change nor say anything of the content). */
int fade_linear_mix(const OmctiPlane *p0, const OmctiPlane *p1, const uint8_t *p2,
                    ptrdiff_t p2_stride, const ActiveArea *a);

#endif

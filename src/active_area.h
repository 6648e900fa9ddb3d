/* The active picture area: lines at the edges of a frame that do not take
 * part in the motion.
 *
 * Two kinds are common in real video and both hurt motion compensation:
 * letterbox and pillarbox bars (flat dark lines, up to a quarter of the
 * picture on an edge), and the damaged outermost lines of analogue
 * captures (a dimmed last row, a half-black first column: foreman's last
 * row is half as bright as the row above it). Both stay where they are
 * while the picture inside moves, so a vector that carries the picture
 * carries them into it, and the search matches them as if they moved.
 *
 * So each frame's inactive lines are found when it arrives (from that frame
 * alone, which keeps segments exact); the working copy that the search, the
 * filters and the GPU see is re-padded from the active area (the inactive
 * lines replaced by the active edge, as if they were outside the picture;
 * for a pair whose frames found one bar a few lines apart, a copy of the
 * shallower re-padded to the deeper: src/context.c repad_pair()), and
 * the original is kept for the pass-through and for the inactive lines of
 * the in-between pictures: the lines inactive in either frame of a pair are
 * the blend of the two originals at the phase (bars stay bars; a line found
 * in one frame only is not taken from the other's re-padded copy). */
#ifndef OMCTI_ACTIVE_AREA_H
#define OMCTI_ACTIVE_AREA_H

#include <stdint.h>

#include "omcti.h"
#include "src/frame.h"

/* Inactive lines on each edge, in luma lines. All zero: the whole picture
 * is active (most video), and nothing below changes anything. */
typedef struct ActiveArea {
    int top, bottom, left, right;
} ActiveArea;

/* Finds the inactive lines of a frame from its luma plane:
 *   - bars: from the edge inwards, lines whose samples all lie within
 *     ACTIVE_FLAT_RANGE of each other and whose mean is at most
 *     ACTIVE_DARK_MEAN, up to a quarter of the picture; bars come in pairs,
 *     so an edge keeps at most the bar of its opposite edge plus
 *     ACTIVE_BAR_SLACK lines or 1/64 of the picture (the encoder's
 *     alignment), whichever is more;
 *   - then up to two damaged lines: a line differs from its inner
 *     neighbour by more than twice (plus 4 levels per pixel) as much as
 *     that neighbour differs from the next line in.
 * An area that would leave less than ACTIVE_MIN_SIZE active luma lines
 * either way counts as wholly active. */
void active_area_detect(const OmctiPlane *luma, ActiveArea *a);

static inline int active_area_is_full(const ActiveArea *a)
{
    return !(a->top | a->bottom | a->left | a->right);
}

/* The inactive lines of plane `plane` (0 luma, 1-2 chroma of 4:2:0): a
 * chroma line is inactive when it covers an inactive luma line. */
void active_area_for_plane(const ActiveArea *a, int plane, int luma_w, int luma_h,
                           ActiveArea *out);

/* Replaces every inactive line of every plane of f by the nearest active
 * line (columns first, then rows, so corners take the active corner), then
 * re-pads the frame. */
void active_area_repad(OmctiFrame *f, const ActiveArea *a);

/* The lines of frame area `own` as the pair (area `pair`, the lines
 * inactive in either frame) sees them: a bar the other frame found a few
 * lines deeper (at most ACTIVE_BAR_SLACK or 1/64 of the picture, like the
 * pairing of the bars) is the same bar, and the frame is seen re-padded to
 * the deeper one (the encoder's ringing next to a bar's edge moves where
 * the flat lines end: sintel's letterbox is found 56 to 61 lines deep).
 * Only a bar deeper than that allowance moves: a depth within it may be
 * the allowance itself (dark content at one edge, active_area_detect()),
 * and a larger difference is content of one picture only (the black
 * between lines of rolling credits, a fade); there each frame keeps its
 * own lines. */
void active_area_for_pair(const ActiveArea *own, const ActiveArea *pair, int luma_w, int luma_h,
                          ActiveArea *out);

/* In-between picture at weight wt (1/256, filter.h phase_weight256()):
 * the lines inactive in either picture (per edge, the more of the two) are
 * set to ((256 - wt) * prev + wt * next + 128) >> 8 of the originals, the
 * blend filter's arithmetic. */
void active_area_fill(OmctiPicture *out, const OmctiPicture *prev, const ActiveArea *ap,
                      const OmctiPicture *next, const ActiveArea *an, int wt);

#define ACTIVE_FLAT_RANGE 24
#define ACTIVE_DARK_MEAN  40
#define ACTIVE_MIN_SIZE   32
#define ACTIVE_BAR_SLACK  8

#endif

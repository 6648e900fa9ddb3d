/* Repeated pictures in a regular pattern: a film at 24 fps stored at 30 fps
 * repeats every 5th picture, an animation drawn "on twos" every 2nd. omcti
 * builds the in-between frames of such a pair from two equal pictures, so
 * the output holds still there as the input does; the cure is to drop the
 * repeats before the conversion (FFmpeg's decimate filter), which the
 * whole run suggests in a note (docs/cli.md, "Repeated pictures").
 *
 * The scan compares each of the first REPEATS_PAIRS + 1 pictures with the
 * one before on a sample grid (every 2nd row and column of the luma):
 * the mean absolute difference in 1/256 grey level. */
#ifndef OMCTI_CLI_REPEATS_H
#define OMCTI_CLI_REPEATS_H

#include <stdint.h>

#include "omcti.h"
#include "src/rational.h"

#define REPEATS_PAIRS 30

typedef struct RepeatScan {
    uint8_t *prev;                 /* the last picture's samples          */
    int sw, sh;                    /* sample grid size                     */
    int pictures;                  /* pictures seen (at most PAIRS + 1)    */
    uint32_t diff[REPEATS_PAIRS];  /* per pair, mean |difference| x 256   */
} RepeatScan;

/* Adds the next picture (only the first REPEATS_PAIRS + 1 are looked at;
 * later calls return at once). Returns 0, or -1 if memory ran out (the
 * scan then stops; nothing else depends on it). */
int repeats_add(RepeatScan *s, const OmctiPicture *pic);

/* The period P (2..10) with which pairs of equal pictures recur among the
 * n pair differences d, or 0: most pairs differ (the median difference is
 * a grey level or more), the repeats (at most 1/16 of the median and 2
 * grey levels) follow each other P pairs apart, for three quarters of the
 * gaps or more, and nearly every period has one. Needs 10 pairs. */
int repeats_period(const uint32_t *d, int n);

/* The note for a whole run's input (name as shown), or nothing. */
void repeats_note(const RepeatScan *s, const char *name, Rational fps);

void repeats_free(RepeatScan *s);

#endif

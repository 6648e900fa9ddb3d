/* Repeated pictures in a regular pattern: a film at 24 fps stored at 30 fps
 * repeats every 5th picture, an animation drawn "on twos" every 2nd. omcti
 * builds the in-between frames of such a pair from two equal pictures, so
 * the output holds still there as the input does; the cure is to drop the
 * repeats before the conversion (FFmpeg's decimate filter), which the
 * whole run suggests in a note (docs/cli.md, "Repeated pictures").
 *
 * The scan compares each picture with the one before on a sample grid of
 * the luma (every 2nd row and column, coarser above 1920 wide; rows of
 * both fields, so that a telecined picture, one field old and one new, is
 * no repeat): the mean
 * absolute difference in 1/256 grey level, for REPEATS_PAIRS pairs (about
 * four seconds) from the first that moves, within the first
 * REPEATS_LEAD_MAX pictures. */
#ifndef OMCTI_CLI_REPEATS_H
#define OMCTI_CLI_REPEATS_H

#include <stddef.h>
#include <stdint.h>

#include "omcti.h"
#include "src/rational.h"

#define REPEATS_PAIRS 96
#define REPEATS_LEAD_MAX 200

typedef struct RepeatScan {
    uint8_t *prev;                 /* the last picture's samples          */
    int step, sw, sh;              /* sample spacing and grid size         */
    int pictures;                  /* pictures seen                        */
    int n;                         /* pairs in the window                  */
    int done;                      /* the window is full (or no memory)    */
    uint32_t diff[REPEATS_PAIRS];  /* per pair, mean |difference| x 256   */
    uint32_t field[2][REPEATS_PAIRS]; /* the same over the sampled rows of
                                         each field (even rows, odd rows)  */
} RepeatScan;

/* Adds the next picture (once the window is full, calls return at once).
 * Returns 0, or -1 if memory ran out (the scan then stops; nothing else
 * depends on it). */
int repeats_add(RepeatScan *s, const OmctiPicture *pic);

/* The period P (2..10) with which pairs of equal pictures recur among the
 * n pair differences d, or 0: most pairs differ (the median difference is
 * a grey level or more), the repeats (at most 1/3 of the median of the
 * 11 pairs around them, and 2 grey levels) follow each other P pairs apart
 * (or 2P, 3P: a repeat hidden by noise) for 7/8 of the gaps or more, at
 * least every other period has one, and they span the window. Needs 10
 * pairs. */
int repeats_period(const uint32_t *d, int n);

/* Whether the n pairs look telecined (3:2 pulldown: a 24 fps film at 30
 * fps as fields, two pictures in every five made of the fields of two film
 * pictures): no picture repeats, but at two pairs in every five one field
 * does (its difference, f0 or f1, at most 1/3 of the median of the 11
 * pairs around and 2 grey levels, while the whole pair's is more than
 * that), the two 2 pairs apart in the cycle of 5 (7/8 of such pairs or
 * more fall there), each in at least half the cycles, spanning the
 * window. Needs 20 pairs. */
int repeats_telecine(const uint32_t *d, const uint32_t *f0, const uint32_t *f1, int n);

/* The note's line for an input (name as shown) of rate fps that repeats
 * every p-th picture, into buf. */
void repeats_note_text(char *buf, size_t size, const char *name, Rational fps, int p);

/* The note's line for a telecined input (repeats_telecine()), into buf. */
void repeats_telecine_text(char *buf, size_t size, const char *name);

/* Prints the note for a whole run's input, if its scan found a period (or
 * else a telecined film). */
void repeats_note(const RepeatScan *s, const char *name, Rational fps);

void repeats_free(RepeatScan *s);

#endif

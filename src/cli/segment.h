/* Segments of the output timeline (docs/scale.md).
 *
 * The n input frames are split into N near-equal ranges of originals:
 * segment I covers input positions [floor(I*n/N), floor((I+1)*n/N)), and
 * outputs every output frame whose position i*step falls in that range
 * (timeline.h). Consecutive segments share their boundary, so every output
 * frame belongs to exactly one segment, and the pieces, in order, are the
 * whole output.
 *
 * A segment reads from SEGMENT_OVERLAP frames before its range (the
 * scene-cut detector's history, filters/scenecut.h, plus one), so that its
 * decisions, and so its pictures, are those of the single run bit for bit;
 * and up to the first original after its range (the next frame of its last
 * pair). */
#ifndef OMCTI_CLI_SEGMENT_H
#define OMCTI_CLI_SEGMENT_H

#include <stdint.h>

#include "src/cli/options.h"
#include "src/cli/timeline.h"

/* The scene-cut history (SCD_HISTORY pairs) + 1 frame. */
int segment_overlap(void);

typedef struct SegmentRange {
    int64_t first, end;        /* input positions [first, end)              */
    int64_t out_first, out_end;/* output frames [out_first, out_end)        */
    int64_t read_from, read_to;/* input frames to decode [read_from, read_to)*/
} SegmentRange;

/* Segment i of count over an n-frame input; 0, or -1 for bad arguments.
 * An empty segment (out_first == out_end) is possible when the output rate
 * is below the input's or count is close to n: see segment_check(). */
int segment_range(const Timeline *tl, int64_t n, int i, int count, SegmentRange *r);
/* The sub-range k of K of a range (for in-process workers). */
void segment_split(const Timeline *tl, int64_t n, const SegmentRange *whole, int k, int K,
                   SegmentRange *r);
/* 0 when all count segments hold output frames, else -1 with a message
 * naming the first empty one and the largest count that works. */
int segment_check(const Timeline *tl, int64_t n, int count, const char *input, char *err,
                  size_t errlen);

/* The options that decide a piece's bytes (not threads, engine, device:
 * those give the same bytes), as one line, for the checksum file. */
void segment_options_key(const CliOptions *o, int64_t n, char *buf, size_t len);

/* The checksum file beside a piece, PIECE.sum:
 *   omcti-piece 1
 *   size BYTES
 *   fnv1a64 HEX
 *   key OPTIONS-KEY
 * written after the piece is in place (temporary file + rename). */
int piece_sum_write(const char *piece, const char *key, char *err, size_t errlen);
/* 1 when PIECE.sum exists, names key, and the piece has that size and
 * hash (full_check) or that size (!full_check); 0 otherwise. */
int piece_sum_check(const char *piece, const char *key, int full_check);
/* "PIECE.sum" into buf. */
void piece_sum_path(const char *piece, char *buf, size_t len);

#endif

/* Segments of the output timeline (docs/scale.md).
 *
 * The n input frame slots (the index's entries; over the slots of its
 * timestamps where it has holes, segment_index_slots()) are split into N
 * near-equal ranges: segment I covers input positions [floor(I*n/N),
 * floor((I+1)*n/N)), and
 * outputs every output frame whose position i*step falls in that range
 * (timeline.h). Consecutive segments share their boundary, so every output
 * frame belongs to exactly one segment, and the pieces, in order, are the
 * whole output.
 *
 * A segment reads from segment_overlap() frames before its range (the
 * library's omcti_segment_lead_in(): the scene-cut detector's history plus
 * one, plus the motion search's chain of at most PYR_CHAIN pictures),
 * sending each picture with its number in the whole video (its frame slot,
 * convert.c), so that its decisions, and so its pictures, are those of the
 * single run bit for bit; and up to the first original after its range (the next frame of its
 * last pair). */
#ifndef OMCTI_CLI_SEGMENT_H
#define OMCTI_CLI_SEGMENT_H

#include <stdint.h>

#include "src/cli/options.h"
#include "src/cli/timeline.h"
#include "src/io/io.h"

/* The frames a segment reads before its range: omcti_segment_lead_in(). */
int segment_overlap(void);

/* The frame slot of every entry of an index with timestamps (FRAME_INDEX_PTS
 * with keys), counted from its first as the whole run places its pictures
 * (timeline.h, timed_add()): slot[k] for entry k (malloc'd, count entries;
 * the caller frees it), and *n the slots (the last one's + 1). Returns 0, 1
 * when some slots have no entry (holes: pictures missing from the file), 2
 * when an entry lies off the nominal grid (a variable rate), 3 when two
 * pictures share a timestamp (no key to seek to: the whole run places the
 * second a frame after the first) and slots have no picture, -1 when the
 * index has no timestamps to place or, sharing some, has no hole (the
 * pieces then go by picture numbers, as the whole run places them) (2, 3
 * and -1: *slot NULL), or OMCTI_ERR_NOMEM. */
int segment_index_slots(const FrameIndex *ix, Rational in_fps, Rational time_base,
                        int64_t **slot, int64_t *n);
/* What the pieces of a conversion of that index plan over, decided once
 * for the program's runs and for farm: *n input frame slots (the index's
 * entries; its frame slots where it has holes, with *slot as above; at most
 * max_frames (>= 0) where that is below its count, a count of pictures that
 * then goes by frame numbers), and *timed: whether pictures are placed by
 * their timestamps. Returns segment_index_slots()'s code (2: a variable
 * rate, 3: repeated timestamps, which the program refuses) or OMCTI_ERR_NOMEM; *slot is NULL
 * unless the slots are planned over. */
int segment_plan_frames(const FrameIndex *ix, Rational in_fps, Rational time_base,
                        int64_t max_frames, int64_t **slot, int64_t *n, int *timed);
/* The refusal of a plan whose frames slots cannot follow (holes 2: a
 * variable rate, 3: repeated timestamps) into err, OMCTI_ERR_FORMAT; 0
 * for any other code. */
int segment_plan_refusal(int holes, const char *input, Rational in_fps, char *err,
                         size_t errlen);
/* The video's start by the index (its first timestamp; unknown without
 * timestamps): the time of frame slot 0 of the pieces and of a whole run in
 * parts, where their audio is placed (the plain run's video_reader_origin()
 * wherever the packets before the first picture hold the smallest
 * timestamp). */
VideoOrigin segment_index_origin(const FrameIndex *ix, Rational time_base);

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
/* A range over n frame slots (segment_index_slots()) turned into the index
 * entries to decode: from segment_overlap() pictures before the first one
 * at or after slot r->first (the lead-in is history in pictures, which a
 * hole does not shorten), up to the first one at or after slot r->end. */
void segment_range_to_index(SegmentRange *r, int64_t n, const int64_t *slot, int64_t count);
/* 0 when all count segments hold output frames, else -1 with a message
 * naming the first empty one and the largest count that works. */
int segment_check(const Timeline *tl, int64_t n, int count, const char *input, char *err,
                  size_t errlen);

/* What identifies piece o->seg_index of o->seg_count of the conversion of
 * an n-frame input with options o, as the lines of its checksum file:
 *   piece I N
 *   source SIZE MTIME_NS FRAMES      the input (frames: n)
 *   options HEX                      FNV-1a of the options that decide the
 *                                    bytes (not threads, engine, device)
 *   range FIRST END                  its input frames [FIRST, END)
 *   origin PTS NUM DEN               the input's time of frame slot 0
 *                                    (segment_index_origin(); no line
 *                                    when unknown), where join places the
 *                                    audio
 *   key segment=I/N OPTIONS input=PATH:SIZE:MTIME_NS
 * (farm compares the whole, PATH included; join the first five lines). */
void segment_options_key(const CliOptions *o, int64_t n, VideoOrigin origin, char *buf,
                         size_t len);

/* The checksum file beside a piece, PIECE.sum:
 *   omcti-piece 3
 *   frames COUNT                     the frames in the piece
 *   size BYTES
 *   fnv1a64 HEX
 *   the lines of segment_options_key()
 * written after the piece is in place (temporary file + rename), over the
 * old one only then: with overwrite (-y) whatever file is there, else only
 * a checksum file of ours. */
int piece_sum_write(const char *piece, const char *key, int overwrite, char *err,
                    size_t errlen);

typedef struct PieceSum {
    const char *name;            /* the piece (piece_set_check)            */
    int index, count;
    int64_t src_size, src_mtime, src_frames;
    uint64_t options;
    int64_t first, end;          /* input frames                           */
    int64_t frames, size;        /* of the piece                           */
    uint64_t hash;
    VideoOrigin origin;          /* time_base.den 0: no origin line        */
    char key[16384];             /* the segment_options_key() lines        */
} PieceSum;
/* Reads and checks PIECE.sum (every field, as an input); 0 or < 0 with one
 * line naming the file. */
int piece_sum_read(const char *piece, PieceSum *ps, char *err, size_t errlen);
/* 1 when PIECE.sum exists, holds key, and the piece has that size and
 * hash (full_check) or that size (!full_check); 0 otherwise. */
int piece_sum_check(const char *piece, const char *key, int full_check);
/* "PIECE.sum" into buf; -1 when it does not fit. */
int piece_sum_path(const char *piece, char *buf, size_t len);
/* Before --segment writes o->output: checks that OUTPUT.sum may be
 * replaced once the piece is complete (-y, or it is one of ours) and by
 * the rules of -o; an error or 0. It changes nothing: a run that fails
 * keeps the old OUTPUT.sum (piece_sum_write() replaces it). */
int piece_sum_prepare(const CliOptions *o, char *err, size_t errlen);
/* For join: the n pieces, in any order, must be exactly the pieces 0..N-1
 * of one conversion (same input, options and N; none missing or twice),
 * each unchanged since its checksum file was written. Fills sorted[] in
 * piece order, *frames (may be NULL) with their frame count and *origin
 * (may be NULL) with the input's time of their frame slot 0. source (may
 * be NULL: join --audio-from) must be the input they were made from, by its
 * size (the source line; a copy's time may differ). */
int piece_set_check(const char *const *pieces, int n, const char **sorted, int64_t *frames,
                    VideoOrigin *origin, const char *source, char *err, size_t errlen);

#endif

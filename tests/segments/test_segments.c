/* Segment boundaries (src/cli/segment.c): for N = 1, 2, 3, 7 (and more) and
 * many input lengths and rates, the segments' output ranges cover every
 * output frame exactly once, in order; each reads what its frames need
 * (its pairs and the scene-cut overlap); and the options parse. */
#include <stdlib.h>
#include <string.h>

#include "src/cli/options.h"
#include "src/cli/segment.h"
#include "src/cli/timeline.h"
#include "src/motion/pyramid_block.h"
#include "filters/scenecut.h"
#include "tests/check.h"


int main(void)
{
    TestState ts = { 0, 0 };
    const struct { RateMode mode; int factor; Rational fps; } rates[] = {
        { RATE_FACTOR, 2, { 0, 1 } }, { RATE_FACTOR, 3, { 0, 1 } }, { RATE_SLOWMO, 4, { 0, 1 } },
        { RATE_FPS, 0, { 60000, 1001 } }, { RATE_FPS, 0, { 60, 1 } }, { RATE_FPS, 0, { 12, 1 } },
    };
    const int counts[] = { 1, 2, 3, 4, 7, 16 };
    const int overlap = segment_overlap();
    CHECK(&ts, overlap >= SCD_HISTORY + 1 + PYR_CHAIN,
          "overlap %d covers the scene-cut history and its first pair's motion history "
          "(a chain of %d pictures)", overlap, PYR_CHAIN);
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        Timeline tl;
        CHECK(&ts, timeline_init(&tl, (Rational){ 25, 1 }, rates[r].mode, rates[r].factor,
                                 rates[r].fps) == 0, "timeline %zu", r);
        for (int64_t n = 2; n <= 400; n += (n < 40 ? 1 : 37)) {
            const int64_t total = timeline_output_count(&tl, n);
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                const int N = counts[c];
                int64_t next = 0;
                int empty = 0;
                for (int i = 0; i < N; i++) {
                    SegmentRange s;
                    CHECK(&ts, segment_range(&tl, n, i, N, &s) == 0, "range");
                    CHECK(&ts, s.out_first == next, "rate %zu n=%lld N=%d seg %d starts at %lld, "
                          "not %lld", r, (long long)n, N, i, (long long)s.out_first,
                          (long long)next);
                    CHECK(&ts, s.out_end >= s.out_first, "order");
                    empty |= s.out_end == s.out_first;
                    next = s.out_end;
                    /* Every output frame of the segment lies in its range
                     * and its pair is read; the overlap precedes it. */
                    for (int64_t o = s.out_first; o < s.out_end; o++) {
                        TimelinePoint p = timeline_point(&tl, o);
                        CHECK(&ts, p.frame >= s.first && p.frame < s.end, "position in range");
                        CHECK(&ts, p.frame >= s.read_from &&
                                   (p.frame + 1 < s.read_to || s.read_to == n),
                              "pair read");
                    }
                    CHECK(&ts, s.read_from == (s.first > overlap ? s.first - overlap : 0),
                          "overlap");
                    CHECK(&ts, s.read_to <= n, "reads past the end");
                }
                CHECK(&ts, next == total, "rate %zu n=%lld N=%d: covers %lld of %lld", r,
                      (long long)n, N, (long long)next, (long long)total);
                char err[256];
                CHECK(&ts, (segment_check(&tl, n, N, "x", err, sizeof err) == 0) == !empty,
                      "segment_check agrees (%s)", err);
            }
        }
    }
    /* Sub-ranges of a segment (workers) tile it too. */
    Timeline tl;
    timeline_init(&tl, (Rational){ 24, 1 }, RATE_FPS, 0, (Rational){ 60, 1 });
    SegmentRange whole, part;
    segment_range(&tl, 1000, 3, 7, &whole);
    int64_t next = whole.out_first;
    for (int k = 0; k < 5; k++) {
        segment_split(&tl, 1000, &whole, k, 5, &part);
        CHECK(&ts, part.out_first == next, "split %d", k);
        next = part.out_end;
    }
    CHECK(&ts, next == whole.out_end, "split covers the segment");

    /* An index with holes (slots 3..9 and 30 missing), 25 fps in 1/1000 s:
     * its slots, and ranges over them read as the entries in them. */
    {
        int64_t key[40], *slot = NULL, ns = 0, want[40];
        int m = 0;
        for (int64_t t = 0; t < 42; t++)
            if ((t < 3 || t > 9) && t != 30) {
                want[m] = t;
                key[m++] = 1000 + t * 40;          /* a stream that starts at 1 s */
            }
        FrameIndex ix = { .kind = FRAME_INDEX_PTS, .key = key, .count = m };
        const int h = segment_index_slots(&ix, (Rational){ 25, 1 }, (Rational){ 1, 1000 },
                                          &slot, &ns);
        CHECK(&ts, h == 1 && ns == 42, "holes %d, %lld slots (wanted 1, 42)", h, (long long)ns);
        for (int k = 0; h == 1 && k < m; k++)
            CHECK(&ts, slot[k] == want[k], "entry %d at slot %lld (wanted %lld)", k,
                  (long long)slot[k], (long long)want[k]);
        /* every range reads overlap pictures before its first slot's picture
         * and up to the picture at or after its end */
        for (int N = 1; h == 1 && N <= 7; N++)
            for (int i = 0; i < N; i++) {
                SegmentRange r;
                segment_range(&tl, ns, i, N, &r);
                segment_range_to_index(&r, ns, slot, m);
                int64_t first = 0, last = 0;
                while (first < m && slot[first] < r.first) first++;
                while (last < m - 1 && slot[last] < r.end) last++;
                const int64_t from = first - overlap > 0 ? first - overlap : 0;
                CHECK(&ts, r.read_from == from && r.read_to == (r.end < ns ? last + 1 : m),
                      "N=%d seg %d: reads [%lld, %lld), wanted [%lld, %lld)", N, i,
                      (long long)r.read_from, (long long)r.read_to, (long long)from,
                      (long long)(r.end < ns ? last + 1 : m));
            }
        free(slot);
        key[5] += 7;                               /* off the grid: a variable rate */
        CHECK(&ts, segment_index_slots(&ix, (Rational){ 25, 1 }, (Rational){ 1, 1000 }, &slot,
                                       &ns) == 2 && !slot, "off the grid");
        key[5] -= 7;
        ix.key = NULL;
        CHECK(&ts, segment_index_slots(&ix, (Rational){ 25, 1 }, (Rational){ 1, 1000 }, &slot,
                                       &ns) == -1 && !slot, "no timestamps");
    }

    /* Options. */
    CliOptions o;
    char err[512];
    CHECK(&ts, parse_command_line("-i a.mkv -o p.mkv --segment 2/7", &o, err, sizeof err) == 0 &&
               o.seg_index == 2 && o.seg_count == 7, "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --segment 7/7", &o, err, sizeof err) < 0 &&
               strstr(err, "does not exist"), "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --segment 3", &o, err, sizeof err) < 0 && strstr(err, "I/N"),
          "%s", err);
    CHECK(&ts, parse_command_line("-i - -o b --segment 0/2", &o, err, sizeof err) < 0 &&
               strstr(err, "pipe"), "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --engine cpu --devices 0,1", &o, err, sizeof err) < 0 &&
               strstr(err, "--devices needs --engine cuda"), "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --devices all", &o, err, sizeof err) < 0, "auto engine");
    CHECK(&ts, parse_command_line("-i a -o b --engine cuda --devices all", &o, err, sizeof err) == 0 &&
               o.devices_all, "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --engine cuda --devices 0,2-3", &o, err, sizeof err) == 0 &&
               o.n_devices == 3 && o.devices[2] == 3, "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --engine cuda --devices 1,1", &o, err, sizeof err) < 0 &&
               strstr(err, "twice"), "%s", err);
    CHECK(&ts, parse_command_line("-i a -o - --workers 2", &o, err, sizeof err) < 0, "workers to a pipe");
    CHECK(&ts, parse_command_line("-i a -o b --workers 3", &o, err, sizeof err) == 0 && o.workers == 3,
          "%s", err);
    CHECK(&ts, parse_command_line("-i a -o b --index f.idx", &o, err, sizeof err) < 0, "index alone");
    return test_finish(&ts, "segments");
}

/* Segments of the output timeline: the pieces' plan over the input's frame
 * slots, their ranges and the check that every one holds output frames
 * (segment.h). A piece's checksum file is piece_sum.c's, the check of a
 * whole set of pieces for join piece_set.c's. */
#include <stdlib.h>

#include "omcti.h"
#include "src/common.h"
#include "src/cli/segment.h"
#include "src/cli/segment_internal.h"

int segment_overlap(void)
{
    return omcti_segment_lead_in();
}

static void fill(const Timeline *tl, int64_t n, SegmentRange *r)
{
    r->out_first = timeline_output_count(tl, r->first);
    r->out_end = timeline_output_count(tl, r->end);
    const int64_t from = r->first - segment_overlap();
    r->read_from = from > 0 ? from : 0;
    r->read_to = r->end < n ? r->end + 1 : n;
}

int segment_index_slots(const FrameIndex *ix, Rational in_fps, Rational time_base,
                        int64_t **slot, int64_t *n)
{
    *slot = NULL;
    TimedInput ti;
    /* Pictures that share a time have no key to seek to, but their times
     * place them as in the whole run (the second a frame after the first):
     * evenly, and the pieces go by picture numbers; else refused. */
    const int64_t *t = ix->key ? ix->key : ix->repeated ? ix->times : NULL;
    if (ix->kind != FRAME_INDEX_PTS || !t || ix->count < 1 ||
        timed_init(&ti, in_fps, time_base, t[0]) < 0)
        return -1;
    int64_t *s = malloc(sizeof *s * (size_t)ix->count);
    if (!s) return OMCTI_ERR_NOMEM;
    int holes = 0;
    for (int64_t k = 0; k < ix->count; k++) {
        timed_add(&ti, t[k]);
        if (ti.off_grid) {
            free(s);
            return 2;
        }
        s[k] = timed_last_frame(&ti);
        holes |= s[k] != k;
    }
    if (!ix->key) {
        free(s);
        return holes ? 3 : -1;
    }
    *n = s[ix->count - 1] + 1;
    *slot = s;
    return holes;
}

int segment_plan_frames(const FrameIndex *ix, Rational in_fps, Rational time_base,
                        int64_t max_frames, int64_t **slot, int64_t *n, int *timed)
{
    int64_t slots = 0;
    const int holes = segment_index_slots(ix, in_fps, time_base, slot, &slots);
    const int limited = max_frames >= 0 && max_frames < ix->count;
    *timed = holes == 0 || (holes == 1 && !limited);
    if (holes != 1 || limited) {
        free(*slot);
        *slot = NULL;
    }
    *n = limited ? max_frames : *slot ? slots : ix->count;
    return holes;
}

int segment_plan_refusal(int holes, const char *input, Rational in_fps, char *err,
                         size_t errlen)
{
    if (holes == 2)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' has a variable frame rate (its "
                         "pictures are off the %.3f fps grid); --segment, --workers and farm "
                         "need a constant one (convert it in one run)", input,
                         rational_to_double(in_fps));
    if (holes == 3)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' has pictures that share a "
                         "timestamp, and its timestamps do not give one picture per frame; "
                         "--segment, --workers and farm cannot place its pictures (convert it "
                         "in one run)", input);
    return 0;
}

VideoOrigin segment_index_origin(const FrameIndex *ix, Rational time_base)
{
    VideoOrigin o = { 0 };
    if (ix->kind == FRAME_INDEX_PTS && ix->key && ix->count > 0) {
        o.pts = ix->key[0];      /* the keys are sorted */
        o.time_base = time_base;
    }
    return o;
}

/* The first entry whose slot is >= x (count when none). */
static int64_t first_at(const int64_t *slot, int64_t count, int64_t x)
{
    int64_t lo = 0, hi = count;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (slot[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void segment_range_to_index(SegmentRange *r, int64_t n, const int64_t *slot, int64_t count)
{
    const int64_t from = first_at(slot, count, r->first) - segment_overlap();
    r->read_from = from > 0 ? from : 0;
    const int64_t to = first_at(slot, count, r->end) + 1;
    r->read_to = r->end < n && to < count ? to : count;
}

int segment_range(const Timeline *tl, int64_t n, int i, int count, SegmentRange *r)
{
    if (n < 1 || count < 1 || i < 0 || i >= count) return -1;
    r->first = split_point(n, i, count);
    r->end = split_point(n, (int64_t)i + 1, count);
    fill(tl, n, r);
    return 0;
}

void segment_split(const Timeline *tl, int64_t n, const SegmentRange *whole, int k, int K,
                   SegmentRange *r)
{
    const int64_t len = whole->end - whole->first;
    r->first = whole->first + split_point(len, k, K);
    r->end = whole->first + split_point(len, (int64_t)k + 1, K);
    fill(tl, n, r);
}

int segment_check(const Timeline *tl, int64_t n, int count, const char *input, char *err,
                  size_t errlen)
{
    SegmentRange r;
    for (int i = 0; i < count; i++) {
        if (segment_range(tl, n, i, count, &r) < 0 || r.out_first == r.out_end) {
            /* The largest count that works: counting down from below count
             * (and the input's frames), 64 tries at most, then halving
             * (which finds one that works, not always the largest). */
            int ok = (int64_t)count - 1 < n ? count - 1 : (int)n, tries = 0;
            for (;;) {
                int good = ok > 0;
                for (int j = 0; good && j < ok; j++)
                    good = segment_range(tl, n, j, ok, &r) == 0 && r.out_first < r.out_end;
                if (good || ok <= 1) break;
                ok = ++tries < 64 ? ok - 1 : ok / 2;
            }
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': %d segments of %lld input frames leave segment %d without "
                             "output frames; use at most %d segment%s", input, count,
                             (long long)n, i, ok > 0 ? ok : 1, ok > 1 ? "s" : "");
        }
    }
    return 0;
}

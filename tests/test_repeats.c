/* The scan for repeated pictures (src/cli/repeats.h): the rule that finds
 * their period, on made-up pair differences, and the scan itself on
 * pictures. */
#include <stdlib.h>
#include <string.h>

#include "src/cli/repeats.h"
#include "tests/check.h"

/* n pair differences of `moving` (1/256 grey level) with `rep` at pairs
 * first, first + p, ... (p = 0: none). */
static void pattern(uint32_t *d, int n, uint32_t moving, uint32_t rep, int first, int p)
{
    for (int i = 0; i < n; i++)
        d[i] = moving + (uint32_t)(i % 7) * 40;   /* some spread */
    if (p)
        for (int i = first; i < n; i += p)
            d[i] = rep;
}

static void test_period(TestState *ts)
{
    uint32_t d[REPEATS_PAIRS];
    /* a film at 24 fps in a 30 fps file: every 5th pair repeats, with the
     * coding noise of a compressed file (0.3 grey level; the others 8) */
    pattern(d, 30, 8 * 256, 77, 3, 5);
    CHECK(ts, repeats_period(d, 30) == 5, "24 in 30: %d", repeats_period(d, 30));
    pattern(d, 30, 8 * 256, 0, 1, 6);
    CHECK(ts, repeats_period(d, 30) == 6, "25 in 30: %d", repeats_period(d, 30));
    pattern(d, 30, 3 * 256, 0, 0, 2);
    CHECK(ts, repeats_period(d, 30) == 2, "on twos: %d", repeats_period(d, 30));
    pattern(d, 12, 8 * 256, 0, 2, 5);
    CHECK(ts, repeats_period(d, 12) == 0, "two repeats are not a pattern");
    pattern(d, 15, 8 * 256, 0, 2, 5);
    CHECK(ts, repeats_period(d, 15) == 5, "three in 15 pairs: %d", repeats_period(d, 15));
    CHECK(ts, repeats_period(d, 9) == 0, "fewer than 10 pairs say nothing");
    /* no repeats; a still picture (everything repeats) */
    pattern(d, 30, 8 * 256, 0, 0, 0);
    CHECK(ts, repeats_period(d, 30) == 0, "none: %d", repeats_period(d, 30));
    pattern(d, 30, 0, 0, 0, 0);
    CHECK(ts, repeats_period(d, 30) == 0, "still: %d", repeats_period(d, 30));
    /* a nearly still scene (median under a grey level): its small pairs
     * are no sign of repeats */
    pattern(d, 30, 100, 2, 3, 5);
    CHECK(ts, repeats_period(d, 30) == 0, "nearly still: %d", repeats_period(d, 30));
    /* repeats too different from each other: not repeats (above 2 grey
     * levels, or above 1/8 of the median) */
    pattern(d, 30, 40 * 256, 3 * 256, 3, 5);
    CHECK(ts, repeats_period(d, 30) == 0, "3 grey levels apart: %d", repeats_period(d, 30));
    pattern(d, 30, 8 * 256, 300, 3, 5);
    CHECK(ts, repeats_period(d, 30) == 0, "1/7 of the median: %d", repeats_period(d, 30));
    /* irregular repeats (a stalling capture): no period */
    pattern(d, 30, 8 * 256, 0, 0, 0);
    d[2] = d[5] = d[13] = d[14] = d[22] = 0;
    CHECK(ts, repeats_period(d, 30) == 0, "irregular: %d", repeats_period(d, 30));
    /* a pattern that only holds at the start (one cycle in five keeps it) */
    pattern(d, 30, 8 * 256, 0, 3, 5);
    d[18] = d[23] = d[28] = 8 * 256;
    CHECK(ts, repeats_period(d, 30) == 0, "half the cycles: %d", repeats_period(d, 30));
    /* one cycle missing its repeat (a cut, an edit) still counts */
    pattern(d, 30, 8 * 256, 0, 3, 5);
    d[18] = 8 * 256;
    CHECK(ts, repeats_period(d, 30) == 5, "one cycle off: %d", repeats_period(d, 30));
}

/* A textured picture shifted by s pixels (luma only matters). */
static void picture(OmctiPicture *p, uint8_t *buf, int w, int h, int s)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            buf[y * w + x] = (uint8_t)(((x + s) * 37) ^ (y * 11));
    memset(p, 0, sizeof *p);
    p->data[0] = buf;
    p->stride[0] = w;
    p->width = w;
    p->height = h;
}

static void test_scan(TestState *ts)
{
    enum { W = 33, H = 17 };   /* odd: the sample grid's last row and column */
    uint8_t buf[W * H];
    RepeatScan s;
    memset(&s, 0, sizeof s);
    /* 24 pictures of motion shown at 30: each 4th picture shown twice */
    int shown = 0;
    for (int k = 0; shown < REPEATS_PAIRS + 5; k++) {
        for (int r = 0; r < (k % 4 == 3 ? 2 : 1); r++) {
            OmctiPicture p;
            picture(&p, buf, W, H, 3 * k);
            CHECK(ts, repeats_add(&s, &p) == 0, "add");
            shown++;
        }
    }
    CHECK(ts, s.pictures == REPEATS_PAIRS + 1, "only the first pairs: %d", s.pictures);
    CHECK(ts, s.diff[3] == 0 && s.diff[8] == 0 && s.diff[2] > 256, "diffs %u %u %u", s.diff[3],
          s.diff[8], s.diff[2]);
    CHECK(ts, repeats_period(s.diff, s.pictures - 1) == 5, "scan: %d",
          repeats_period(s.diff, s.pictures - 1));
    repeats_free(&s);
    CHECK(ts, s.prev == NULL, "freed");
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_period(&ts);
    test_scan(&ts);
    return test_finish(&ts, "repeats");
}

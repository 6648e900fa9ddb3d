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
    /* the four seconds a scan looks at */
    pattern(d, REPEATS_PAIRS, 8 * 256, 0, 4, 5);
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 5, "96 pairs: %d",
          repeats_period(d, REPEATS_PAIRS));
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
    pattern(d, 30, 8 * 256, 1100, 3, 5);
    CHECK(ts, repeats_period(d, 30) == 0, "1/2 of the median: %d", repeats_period(d, 30));
    /* the pairs around a repeat are what it is measured against: slow
     * motion first (repeats 20 against 300), fast later (50 against 3000) */
    pattern(d, REPEATS_PAIRS, 300, 20, 2, 5);
    for (int i = 40; i < REPEATS_PAIRS; i++)
        d[i] = i % 5 == 2 ? 50 : 3000 + (uint32_t)(i % 7) * 40;
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 5, "slow, then fast: %d",
          repeats_period(d, REPEATS_PAIRS));
    /* coding noise: a repeat a fifth of the other pairs (a 360p interview) */
    pattern(d, 30, 8 * 256, 400, 3, 5);
    CHECK(ts, repeats_period(d, 30) == 5, "1/5 of the median: %d", repeats_period(d, 30));
    /* irregular repeats (a stalling capture): no period */
    pattern(d, 30, 8 * 256, 0, 0, 0);
    d[2] = d[5] = d[13] = d[14] = d[22] = 0;
    CHECK(ts, repeats_period(d, 30) == 0, "irregular: %d", repeats_period(d, 30));
    /* a pattern that only holds at the start (one cycle in five keeps it) */
    pattern(d, 30, 8 * 256, 0, 3, 5);
    d[18] = d[23] = d[28] = 8 * 256;
    CHECK(ts, repeats_period(d, 30) == 0, "half the cycles: %d", repeats_period(d, 30));
    /* one cycle in 19 missing its repeat (a cut, an edit) still counts */
    pattern(d, REPEATS_PAIRS, 8 * 256, 0, 3, 5);
    d[48] = 8 * 256;
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 5, "one cycle off: %d",
          repeats_period(d, REPEATS_PAIRS));
    /* two repeats of 19 hidden by coding noise (two gaps of 10) */
    pattern(d, REPEATS_PAIRS, 8 * 256, 0, 3, 5);
    d[28] = d[73] = 8 * 256;
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 5, "two hidden: %d",
          repeats_period(d, REPEATS_PAIRS));
    /* repeats 5 and 6 pictures apart in turn (an uneven capture): no period */
    pattern(d, REPEATS_PAIRS, 8 * 256, 0, 0, 0);
    for (int i = 2, k = 0; i < REPEATS_PAIRS; i += 5 + (k++ & 1))
        d[i] = 0;
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 0, "5 and 6 apart: %d",
          repeats_period(d, REPEATS_PAIRS));
    /* ... and one gap in five off the period: no period either */
    pattern(d, REPEATS_PAIRS, 8 * 256, 0, 0, 0);
    for (int i = 1, k = 0; i < REPEATS_PAIRS; i += k++ % 5 == 4 ? 4 : 5)
        d[i] = 0;
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 0, "a gap in five off: %d",
          repeats_period(d, REPEATS_PAIRS));
    /* a film whose shot holds still for 30 pairs a third of the way in:
     * the still pairs are no repeats (their neighbours do not move
     * either), the film around them has its period */
    pattern(d, REPEATS_PAIRS, 8 * 256, 0, 2, 5);
    for (int i = 30; i < 60; i++)
        d[i] = 0;
    CHECK(ts, repeats_period(d, REPEATS_PAIRS) == 5, "a still shot inside: %d",
          repeats_period(d, REPEATS_PAIRS));
}

/* The note's words for the periods a scan finds. */
static void test_note(TestState *ts)
{
    char line[512];
    static const struct {
        int p;
        Rational fps;
        const char *want;
    } cases[] = {
        { 2, { 60, 1 }, "repeats every 2nd picture (30.000 fps of motion in a 60.000 fps file)" },
        { 3, { 30, 1 }, "repeats every 3rd picture (20.000 fps of motion in a 30.000 fps file)" },
        { 5, { 30000, 1001 }, "repeats every 5th picture (23.976 fps of motion in a 29.970 fps file)" },
        { 6, { 30, 1 }, "repeats every 6th picture (25.000 fps of motion in a 30.000 fps file)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        repeats_note_text(line, sizeof line, "a.mp4", cases[i].fps, cases[i].p);
        CHECK(ts, strstr(line, cases[i].want) != NULL, "p %d: %s", cases[i].p, line);
        char cure[64];
        snprintf(cure, sizeof cure, "decimate=cycle=%d)", cases[i].p);
        CHECK(ts, strstr(line, cure) != NULL && !strncmp(line, "omcti: note: 'a.mp4'", 20),
              "p %d: %s", cases[i].p, line);
    }
}

/* The telecine rule on made-up differences: whole pairs d, fields f0, f1. */
static void test_telecine(TestState *ts)
{
    uint32_t d[REPEATS_PAIRS], f0[REPEATS_PAIRS], f1[REPEATS_PAIRS];
    const int n = REPEATS_PAIRS;
    /* 3:2 pulldown: in every 5 pairs, pair 1 keeps the top field and pair
     * 3 the bottom one (coding noise 0.3 grey level), the whole pair about
     * half the others' */
    pattern(d, n, 8 * 256, 0, 0, 0);
    for (int i = 0; i < n; i++)
        f0[i] = f1[i] = d[i];
    for (int i = 0; i < n; i++)
        if (i % 5 == 1 || i % 5 == 3) {
            d[i] /= 2;
            (i % 5 == 1 ? f0 : f1)[i] = 77;
        }
    CHECK(ts, repeats_telecine(d, f0, f1, n) == 1, "3:2 pulldown not found");
    CHECK(ts, repeats_telecine(d, f0, f1, 30) == 1, "3:2 pulldown in 30 pairs not found");
    CHECK(ts, repeats_telecine(d, f0, f1, 19) == 0, "19 pairs say nothing");
    /* the same field repeats one pair off in every other cycle: no cycle */
    uint32_t g0[REPEATS_PAIRS], g1[REPEATS_PAIRS], e[REPEATS_PAIRS];
    memcpy(e, d, sizeof e);
    memcpy(g0, f0, sizeof g0);
    memcpy(g1, f1, sizeof g1);
    for (int c = 1; c < n / 5; c += 2) {
        const int i = 5 * c + 3;
        g1[i + 1] = g1[i];
        e[i + 1] = e[i];
        g1[i] = e[i] = 8 * 256;
    }
    CHECK(ts, repeats_telecine(e, g0, g1, n) == 0, "uneven field repeats taken for telecine");
    /* interlaced video: both fields move at every pair */
    pattern(d, n, 8 * 256, 0, 0, 0);
    for (int i = 0; i < n; i++)
        f0[i] = f1[i] = d[i];
    CHECK(ts, repeats_telecine(d, f0, f1, n) == 0, "interlaced motion taken for telecine");
    /* whole repeats (a film at 24 in 30 progressive) are no field repeats */
    pattern(d, n, 8 * 256, 0, 2, 5);
    for (int i = 0; i < n; i++)
        f0[i] = f1[i] = d[i];
    CHECK(ts, repeats_telecine(d, f0, f1, n) == 0, "whole repeats taken for telecine");
    /* a still shot: nothing */
    pattern(d, n, 0, 0, 0, 0);
    for (int i = 0; i < n; i++)
        f0[i] = f1[i] = d[i] = 20;
    CHECK(ts, repeats_telecine(d, f0, f1, n) == 0, "a still shot taken for telecine");

    char line[512];
    repeats_telecine_text(line, sizeof line, "a.mp4");
    CHECK(ts, !strncmp(line, "omcti: note: 'a.mp4' looks telecined", 36) &&
                  strstr(line, "fieldmatch,decimate") != NULL, "telecine note: %s", line);
}

/* A textured picture shifted by s pixels (luma only matters), rows
 * `stride` apart; the bytes between rows differ from picture to picture,
 * so that a scan reading them would see no repeats. */
static void picture(OmctiPicture *p, uint8_t *buf, int w, int h, int stride, int s)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < stride; x++)
            buf[y * stride + x] = x < w ? (uint8_t)(((x + s) * 37) ^ (y * 11))
                                        : (uint8_t)(rand() & 255);
    memset(p, 0, sizeof *p);
    p->data[0] = buf;
    p->stride[0] = stride;
    p->width = w;
    p->height = h;
}

static void test_scan(TestState *ts)
{
    enum { W = 33, H = 17, S = 48 };   /* odd: the grid's last row and column */
    uint8_t buf[S * H];
    RepeatScan s;
    memset(&s, 0, sizeof s);
    /* a still opening of 5 pictures (not in the window), then 24 pictures
     * of motion shown at 30: each 4th picture shown twice */
    for (int k = 0; k < 5; k++) {
        OmctiPicture p;
        picture(&p, buf, W, H, S, 0);
        CHECK(ts, repeats_add(&s, &p) == 0, "add");
    }
    int shown = 0;
    for (int k = 1; shown < REPEATS_PAIRS + 5; k++) {
        for (int r = 0; r < (k % 4 == 3 ? 2 : 1); r++) {
            OmctiPicture p;
            picture(&p, buf, W, H, S, 3 * k);
            CHECK(ts, repeats_add(&s, &p) == 0, "add");
            shown++;
        }
    }
    CHECK(ts, s.pictures == 1 + 4 + REPEATS_PAIRS && s.n == REPEATS_PAIRS && s.done,
          "the window after the still opening: %d pictures, %d pairs", s.pictures, s.n);
    CHECK(ts, s.diff[3] == 0 && s.diff[8] == 0 && s.diff[2] > 256, "diffs %u %u %u (the "
          "bytes past the width are no part of a picture)", s.diff[3], s.diff[8], s.diff[2]);
    CHECK(ts, repeats_period(s.diff, s.n) == 5, "scan: %d", repeats_period(s.diff, s.n));
    repeats_free(&s);
    CHECK(ts, s.prev == NULL, "freed");

    /* a telecined film, 3:2 pulldown of film pictures A B C D ...: AA BB
     * BC CD DD (top field, bottom field): no picture repeats, two fields
     * in five do */
    memset(&s, 0, sizeof s);
    uint8_t tf[S * H], bf[S * H], tb[S * H];
    for (int k = 0; k < REPEATS_PAIRS + 1; k++) {
        static const int top[5] = { 0, 1, 1, 2, 3 }, bot[5] = { 0, 1, 2, 3, 3 };
        const int c = k / 5, j = k % 5;
        OmctiPicture pt, pb, p;
        picture(&pt, tf, W, H, S, 3 * (4 * c + top[j]));
        picture(&pb, bf, W, H, S, 3 * (4 * c + bot[j]));
        for (int y = 0; y < H; y++)
            memcpy(tb + y * S, (y & 1 ? bf : tf) + y * S, S);
        picture(&p, tb, W, H, S, 0);
        for (int y = 0; y < H; y++)   /* (picture() refilled tb: again) */
            memcpy(tb + y * S, (y & 1 ? bf : tf) + y * S, W);
        CHECK(ts, repeats_add(&s, &p) == 0, "add");
    }
    CHECK(ts, repeats_period(s.diff, s.n) == 0 &&
                  repeats_telecine(s.diff, s.field[0], s.field[1], s.n) == 1,
          "telecined scan: period %d, telecine %d", repeats_period(s.diff, s.n),
          repeats_telecine(s.diff, s.field[0], s.field[1], s.n));
    repeats_free(&s);

    /* a telecined film: a picture that repeats the even rows (one field)
     * of the one before and brings the odd rows new is no repeat */
    uint8_t a[S * H], b[S * H];
    memset(&s, 0, sizeof s);
    for (int k = 0; k < 3; k++) {
        OmctiPicture p, q;
        picture(&p, a, W, H, S, 3 * k);
        picture(&q, b, W, H, S, 3 * k + 3);
        for (int y = 0; y < H; y += 2)   /* the old field */
            memcpy(b + y * S, a + y * S, W);
        CHECK(ts, repeats_add(&s, &p) == 0 && repeats_add(&s, &q) == 0, "add");
    }
    CHECK(ts, s.n == 5 && s.diff[0] > 256 && s.diff[2] > 256 && s.diff[4] > 256,
          "one field new: diffs %u %u %u of %d pairs (a scan of one field takes them for "
          "repeats)", s.diff[0], s.diff[2], s.diff[4], s.n);
    repeats_free(&s);
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_period(&ts);
    test_telecine(&ts);
    test_scan(&ts);
    test_note(&ts);
    return test_finish(&ts, "repeats");
}

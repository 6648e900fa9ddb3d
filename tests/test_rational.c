/* Rational arithmetic and the output timeline (frame counts, phases). */
#include <string.h>

#include "src/cli/timeline.h"
#include "src/rational.h"
#include "tests/check.h"

static void test_parse(TestState *ts)
{
    Rational r;
    CHECK(ts, rational_parse("60", &r) == 0 && r.num == 60 && r.den == 1, "%lld/%lld", (long long)r.num, (long long)r.den);
    CHECK(ts, rational_parse("60000/1001", &r) == 0 && r.num == 60000 && r.den == 1001, "60000/1001");
    CHECK(ts, rational_parse("30000:1001", &r) == 0 && r.num == 30000 && r.den == 1001, "30000:1001");
    CHECK(ts, rational_parse("59.94", &r) == 0 && r.num == 60000 && r.den == 1001, "59.94 -> %lld/%lld", (long long)r.num, (long long)r.den);
    CHECK(ts, rational_parse("23.976", &r) == 0 && r.num == 24000 && r.den == 1001, "23.976");
    CHECK(ts, rational_parse("12.5", &r) == 0 && r.num == 25 && r.den == 2, "12.5");
    CHECK(ts, rational_parse("50/2", &r) == 0 && r.num == 25 && r.den == 1, "reduced");
    const char *bad[] = { "", "0", "-5", "abc", "1/0", "0/5", "5/", "/5", "60fps", "1e3", "nan", "inf" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(ts, rational_parse(bad[i], &r) < 0, "'%s' must be rejected", bad[i]);
}

static void test_arith(TestState *ts)
{
    Rational a = rational_mul(rational_make(30000, 1001), rational_make(2, 1));
    CHECK(ts, a.num == 60000 && a.den == 1001, "30000/1001 * 2 = %lld/%lld", (long long)a.num, (long long)a.den);
    Rational b = rational_div(rational_make(24000, 1001), rational_make(60000, 1001));
    CHECK(ts, b.num == 2 && b.den == 5, "24000/1001 / 60000/1001 = %lld/%lld", (long long)b.num, (long long)b.den);
    CHECK(ts, rational_cmp(rational_make(1, 3), rational_make(2, 6)) == 0, "1/3 == 2/6");
    CHECK(ts, rational_cmp(rational_make(1, 3), rational_make(1, 2)) < 0, "1/3 < 1/2");
    CHECK(ts, muldiv_floor(-7, 1, 2) == -4, "floor(-3.5) = -4");
    CHECK(ts, muldiv_floor(INT64_MAX / 2, 4, 4) == INT64_MAX / 2, "no overflow");
}

static void test_timeline(TestState *ts)
{
    Timeline tl;
    /* --factor 2 at 30000/1001: 60000/1001, 2n frames, phases 0 and 1/2. */
    CHECK(ts, timeline_init(&tl, rational_make(30000, 1001), RATE_FACTOR, 2, (Rational){ 0, 1 }) == 0, "init");
    CHECK(ts, tl.out_fps.num == 60000 && tl.out_fps.den == 1001, "out fps");
    CHECK(ts, timeline_output_count(&tl, 100) == 200, "2n frames");
    TimelinePoint p = timeline_point(&tl, 7);
    CHECK(ts, p.frame == 3 && p.num == 1 && p.den == 2, "point 7 = 3 + 1/2 (%lld %lld/%lld)", (long long)p.frame, (long long)p.num, (long long)p.den);
    p = timeline_point(&tl, 8);
    CHECK(ts, p.frame == 4 && p.num == 0, "point 8 = original 4");

    /* --slowmo 4 at 25: same rate, 4n frames, phases k/4. */
    CHECK(ts, timeline_init(&tl, rational_make(25, 1), RATE_SLOWMO, 4, (Rational){ 0, 1 }) == 0, "init");
    CHECK(ts, tl.out_fps.num == 25 && tl.out_fps.den == 1, "slowmo keeps the rate");
    CHECK(ts, timeline_output_count(&tl, 10) == 40, "4n frames");
    p = timeline_point(&tl, 6);
    CHECK(ts, p.frame == 1 && p.num == 1 && p.den == 2, "6/4 = 1 + 1/2");

    /* 24000/1001 -> 60000/1001: step 2/5; phases 0, 2/5, 4/5, 1/5, 3/5. */
    CHECK(ts, timeline_init(&tl, rational_make(24000, 1001), RATE_FPS, 0, rational_make(60000, 1001)) == 0, "init");
    const int64_t frames[] = { 0, 0, 0, 1, 1, 2 }, nums[] = { 0, 2, 4, 1, 3, 0 };
    for (int i = 0; i < 6; i++) {
        p = timeline_point(&tl, i);
        CHECK(ts, p.frame == frames[i] && p.num == nums[i] && (p.num == 0 || p.den == 5),
              "point %d: %lld + %lld/%lld", i, (long long)p.frame, (long long)p.num, (long long)p.den);
    }
    /* Duration preserved: 48 frames at 24000/1001 last 2.002 s = 120 frames at 60000/1001. */
    CHECK(ts, timeline_output_count(&tl, 48) == 120, "count %lld", (long long)timeline_output_count(&tl, 48));
    CHECK(ts, timeline_output_count(&tl, 1) == 3, "ceil(2.5) = 3");

    /* 25 -> 60: output i at 25i/60 input frames. */
    CHECK(ts, timeline_init(&tl, rational_make(25, 1), RATE_FPS, 0, rational_make(60, 1)) == 0, "init");
    CHECK(ts, timeline_output_count(&tl, 100) == 240, "100 frames at 25 = 4 s = 240 at 60");
    /* Down-conversion 60 -> 24 also works (step 5/2). */
    CHECK(ts, timeline_init(&tl, rational_make(60, 1), RATE_FPS, 0, rational_make(24, 1)) == 0, "init");
    p = timeline_point(&tl, 3);
    CHECK(ts, p.frame == 7 && p.num == 1 && p.den == 2, "3*5/2 = 7.5");
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_parse(&ts);
    test_arith(&ts);
    test_timeline(&ts);
    return test_finish(&ts, "rational");
}

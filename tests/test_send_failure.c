/* A send that fails part way leaves no pair: omcti_has_pair() is 0 and
 * omcti_interpolate() refuses (OMCTI_ERR_STATE) until the next picture is
 * sent, and that picture pairs with the failed one as a fresh context
 * pairs the two. Without this, the context built pictures from the new
 * frames with the fields and the decisions of the pair before.
 *
 * The failure: tests/meson.build links this test with frame_alloc
 * wrapped (the linker's --wrap), and the wrapper fails every unpadded
 * frame. The library allocates one only for the original of a picture
 * with letterbox bars (orig[] in src/context.c), after the picture is in
 * the ring: the send fails there as it would when memory runs out. */
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "src/frame.h"
#include "tests/check.h"
#include "tests/context_util.h"
#include "tests/texture.h"

int __real_frame_alloc(OmctiFrame *f, int width, int height, int pad_luma);
int __wrap_frame_alloc(OmctiFrame *f, int width, int height, int pad_luma);

int __wrap_frame_alloc(OmctiFrame *f, int width, int height, int pad_luma)
{
    if (pad_luma == 0) {
        memset(f, 0, sizeof *f); /* as a failed frame_alloc() leaves it */
        return -1;
    }
    return __real_frame_alloc(f, width, height, pad_luma);
}

enum { W = 256, H = 224, BAR = 24 };

typedef struct Pic {
    OmctiPicture pic;
    uint8_t *mem;
} Pic;

static void pic_alloc(Pic *p, int w, int h)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    p->mem = malloc((size_t)w * h + 2 * (size_t)cw * ch);
    if (!p->mem)
        exit(1);
    p->pic = (OmctiPicture){ .data = { p->mem, p->mem + w * h, p->mem + w * h + cw * ch },
                             .stride = { w, cw, cw }, .width = w, .height = h };
}

/* The texture moved by (ox, oy) >= 0 (a pan); bar > 0: black bars of that
 * many lines at the top and the bottom (a letterbox). */
static void pic_fill(Pic *p, int ox, int oy, int bar)
{
    const OmctiPicture *q = &p->pic;
    for (int y = 0; y < q->height; y++)
        for (int x = 0; x < q->width; x++)
            q->data[0][y * q->stride[0] + x] = y < bar || y >= q->height - bar
                                                   ? 16
                                                   : smooth_texture(x + ox, y + oy);
    for (int c = 1; c < 3; c++)
        for (int y = 0; y < (q->height + 1) / 2; y++)
            for (int x = 0; x < (q->width + 1) / 2; x++)
                q->data[c][y * q->stride[c] + x] = 128;
}

static int pic_equal(const Pic *a, const Pic *b)
{
    return test_pictures_equal(&a->pic, &b->pic);
}

static OmctiContext *open_context(TestState *ts)
{
    return test_open_cpu(ts, W, H, 1);
}

/* Every phase is refused, with the reason. */
static void check_no_pair(TestState *ts, OmctiContext *c, Pic *out, const char *after)
{
    CHECK(ts, !omcti_has_pair(c), "a pair after %s", after);
    CHECK(ts, !omcti_pair_is_cut(c), "a scene cut after %s", after);
    static const int phases[3][2] = { { 0, 1 }, { 1, 2 }, { 1, 1 } };
    for (int i = 0; i < 3; i++) {
        const int ret = omcti_interpolate(c, phases[i][0], phases[i][1], &out->pic);
        CHECK(ts, ret == OMCTI_ERR_STATE, "interpolate %d/%d after %s returned %d", phases[i][0],
              phases[i][1], after, ret);
        CHECK(ts, strstr(omcti_last_error(c), "no pair"), "interpolate %d/%d after %s: '%s'",
              phases[i][0], phases[i][1], after, omcti_last_error(c));
    }
}

/* A letterboxed picture fails after it entered the ring; the next picture
 * pairs with it. */
static void test_failed_pair(TestState *ts)
{
    Pic a, b, bars, d, out, ref;
    Pic *all[] = { &a, &b, &bars, &d, &out, &ref };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        pic_alloc(all[i], W, H);
    pic_fill(&a, 40, 40, 0);
    pic_fill(&b, 44, 38, 0);
    pic_fill(&bars, 48, 36, BAR);
    pic_fill(&d, 52, 34, 0);

    OmctiContext *c = open_context(ts), *r = open_context(ts);
    if (c && r) {
        CHECK(ts, omcti_send_picture(c, &a.pic) == 0, "send a: %s", omcti_last_error(c));
        CHECK(ts, omcti_send_picture(c, &b.pic) == 0, "send b: %s", omcti_last_error(c));
        CHECK(ts, omcti_has_pair(c), "no pair after two pictures");
        CHECK(ts, omcti_interpolate(c, 1, 2, &out.pic) == 0, "interpolate a-b: %s",
              omcti_last_error(c));

        const int ret = omcti_send_picture(c, &bars.pic);
        CHECK(ts, ret == OMCTI_ERR_NOMEM,
              "the letterboxed picture's send returned %d (is frame_alloc wrapped?)", ret);
        check_no_pair(ts, c, &out, "a failed send");

        CHECK(ts, omcti_send_picture(c, &d.pic) == 0, "send d: %s", omcti_last_error(c));
        CHECK(ts, omcti_has_pair(c), "no pair after the picture after the failed one");
        CHECK(ts, omcti_interpolate(c, 0, 1, &out.pic) == 0 && pic_equal(&out, &bars),
              "t = 0 is not the failed picture");
        CHECK(ts, omcti_interpolate(c, 1, 1, &out.pic) == 0 && pic_equal(&out, &d),
              "t = 1 is not the next picture");

        /* the same two pictures with their numbers, in a context with no
         * pair before them (its first send fails the same way) */
        CHECK(ts, omcti_send_picture_at(r, &bars.pic, 2) == OMCTI_ERR_NOMEM, "reference: send");
        CHECK(ts, omcti_send_picture_at(r, &d.pic, 3) == 0, "reference: %s", omcti_last_error(r));
        CHECK(ts, omcti_interpolate(c, 1, 2, &out.pic) == 0, "interpolate: %s",
              omcti_last_error(c));
        CHECK(ts, omcti_interpolate(r, 1, 2, &ref.pic) == 0, "reference: %s",
              omcti_last_error(r));
        CHECK(ts, pic_equal(&out, &ref),
              "the pair after a failed send differs from the same pair in a fresh context");
    }
    omcti_close(&c);
    omcti_close(&r);
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]->mem);
}

/* A picture refused for its size changes nothing: the pair stays, and
 * the next picture pairs with the one before the refused one. */
static void test_refused_picture(TestState *ts)
{
    Pic a, b, small, d, out;
    pic_alloc(&a, W, H);
    pic_alloc(&b, W, H);
    pic_alloc(&small, W / 2, H);
    pic_alloc(&d, W, H);
    pic_alloc(&out, W, H);
    pic_fill(&a, 40, 40, 0);
    pic_fill(&b, 44, 38, 0);
    pic_fill(&small, 0, 0, 0);
    pic_fill(&d, 48, 36, 0);
    OmctiContext *c = open_context(ts);
    if (c) {
        CHECK(ts, omcti_send_picture(c, &a.pic) == 0, "send a: %s", omcti_last_error(c));
        CHECK(ts, omcti_send_picture(c, &b.pic) == 0, "send b: %s", omcti_last_error(c));
        CHECK(ts, omcti_send_picture(c, &small.pic) == OMCTI_ERR_INVALID,
              "a picture of another size was taken");
        CHECK(ts, omcti_has_pair(c), "no pair after a refused picture");
        CHECK(ts, omcti_interpolate(c, 1, 1, &out.pic) == 0 && pic_equal(&out, &b),
              "t = 1 after a refused picture is not the picture before it");
        CHECK(ts, omcti_send_picture(c, &d.pic) == 0, "send d: %s", omcti_last_error(c));
        CHECK(ts, omcti_interpolate(c, 0, 1, &out.pic) == 0 && pic_equal(&out, &b),
              "t = 0 is not the picture before the refused one");
    }
    omcti_close(&c);
    free(a.mem);
    free(b.mem);
    free(small.mem);
    free(d.mem);
    free(out.mem);
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_failed_pair(&ts);
    test_refused_picture(&ts);
    return test_finish(&ts, "test_send_failure");
}

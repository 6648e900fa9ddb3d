/* The library's side of the Segments contract (omcti_segment_lead_in(),
 * omcti_send_picture_at()): a conversion that starts lead_in pictures
 * before a picture, sending each with its number in the whole video,
 * builds every in-between picture from there on as the whole run does, bit
 * for bit, for every start around the motion search's restarts (PYR_CHAIN),
 * also when a picture is missing (one that did not decode: its number is
 * skipped in both runs). The pictures are ones where the search's history
 * changes the output: small textured objects moving fast over a textured
 * background, which the coarse levels of the pyramid miss. And the check
 * can fail: a lead-in PYR_CHAIN pictures shorter differs for some start, as
 * do parts whose pictures are not numbered as in the whole video. (With the
 * missing picture it checks exactness only: these pictures' chain does not
 * reach across it, so the restart rule at a missing multiple of PYR_CHAIN is
 * checked in tests/motion/test_pyramid.c, and the program's numbering of
 * damaged input in tests/io/hostile_io_test.sh, which fails on numbers
 * counted from the first picture sent.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "src/motion/pyramid_block.h"
#include "tests/check.h"
#include "tests/texture.h"

enum { W = 480, H = 272, N = 36, S = 32, DX = 24, FADE = 8, LAP = 18 };

static uint8_t *pictures[N][3];

/* Picture k: a textured background, and a square of pixel noise (levels
 * 68..188) moving (-DX, 1) per picture, FADE * (8 - k) levels brighter
 * than that in the first 8 pictures: the coarse levels of the pyramid see
 * it only while it is brighter, and the motion search's chain follows it
 * after that. It starts again from the right every LAP pictures. */
static void make_pictures(void)
{
    const int cw = (W + 1) / 2, ch = (H + 1) / 2;
    uint8_t *bg = value_noise_texture(W, H, 77);
    for (int k = 0; k < N; k++) {
        uint8_t *y = malloc((size_t)W * H), *u = malloc((size_t)cw * ch),
                *v = malloc((size_t)cw * ch);
        if (!y || !u || !v)
            exit(1);
        memcpy(y, bg, (size_t)W * H);
        const int x0 = W - S - 8 - DX * (k % LAP), y0 = H / 3 + k % LAP;
        const int brighter = k < 8 ? FADE * (8 - k) : 0;
        for (int j = 0; j < S; j++)
            for (int i = 0; i < S; i++) {
                uint32_t h = (uint32_t)i * 2654435761u ^ ((uint32_t)j * 40503u + 7u);
                h ^= h >> 13;
                h *= 0x5bd1e995u;
                h ^= h >> 15;
                y[(y0 + j) * W + x0 + i] = (uint8_t)(68 + (int)(h % 121) + brighter);
            }
        memset(u, 128, (size_t)cw * ch);
        memset(v, 128, (size_t)cw * ch);
        pictures[k][0] = y;
        pictures[k][1] = u;
        pictures[k][2] = v;
    }
    free(bg);
}

static OmctiPicture picture(int k)
{
    OmctiPicture p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 3; i++) {
        p.data[i] = pictures[k][i];
        p.stride[i] = i ? (W + 1) / 2 : W;
    }
    p.width = W;
    p.height = H;
    return p;
}

/* Converts pictures from .. N - 1 but `missing` (a number, or -1), each
 * sent with its number; out[k]: the Y plane of the in-between picture of
 * the pair whose prev is picture k (NULL where none was built). 0 or -1. */
static int run(int from, int missing, uint8_t *out[N])
{
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    s.threads = 2;
    char err[256];
    OmctiContext *c = NULL;
    if (omcti_open(&c, &s, W, H, err, sizeof err) < 0) {
        fprintf(stderr, "omcti_open: %s\n", err);
        return -1;
    }
    const int cw = (W + 1) / 2, ch = (H + 1) / 2;
    uint8_t *mid[3] = { malloc((size_t)W * H), malloc((size_t)cw * ch), malloc((size_t)cw * ch) };
    OmctiPicture o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < 3; i++) {
        o.data[i] = mid[i];
        o.stride[i] = i ? cw : W;
    }
    o.width = W;
    o.height = H;
    int ret = mid[0] && mid[1] && mid[2] ? 0 : -1, prev = -1;
    for (int k = 0; k < N; k++)
        out[k] = NULL;
    for (int k = from; k < N && !ret; k++) {
        if (k == missing)
            continue;
        const OmctiPicture p = picture(k);
        if ((ret = omcti_send_picture_at(c, &p, k)) < 0)
            break;
        if (prev >= 0) {
            if ((ret = omcti_interpolate(c, 1, 2, &o)) < 0)
                break;
            if (!(out[prev] = malloc((size_t)W * H))) {
                ret = -1;
                break;
            }
            memcpy(out[prev], mid[0], (size_t)W * H);
        }
        prev = k;
    }
    if (ret < 0)
        fprintf(stderr, "run from %d: %s\n", from, omcti_last_error(c));
    omcti_close(&c);
    for (int i = 0; i < 3; i++)
        free(mid[i]);
    return ret < 0 ? -1 : 0;
}

static void drop(uint8_t *out[N])
{
    for (int k = 0; k < N; k++) {
        free(out[k]);
        out[k] = NULL;
    }
}

/* Parts that start at first - lead_in for first = lead_in + 1 .. lead_in +
 * PYR_CHAIN + 2 (every place in the chain's period): the number of those
 * whose pictures from `first` on differ from the whole run's. report: a
 * failure for each; else stop at the first one. */
static int differing_starts(TestState *ts, int lead_in, int missing, uint8_t *whole[N],
                            int report)
{
    int bad = 0;
    for (int first = lead_in + 1; first <= lead_in + PYR_CHAIN + 2 && first < N - 2 &&
                                  (report || !bad); first++) {
        uint8_t *part[N];
        if (run(first - lead_in, missing, part) < 0) {
            CHECK(ts, 0, "run from %d", first - lead_in);
            continue;
        }
        int same = 1;
        for (int k = first; k < N; k++)
            if (whole[k] && (!part[k] || memcmp(whole[k], part[k], (size_t)W * H)))
                same = 0;
        if (report)
            CHECK(ts, same, "lead-in %d, picture %d missing: the pictures from %d on differ from "
                  "the whole run's", lead_in, missing, first);
        bad += !same;
        drop(part);
    }
    return bad;
}

int main(void)
{
    TestState ts = { 0, 0 };
    make_pictures();
    const int lead_in = omcti_segment_lead_in();
    const int missing[2] = { -1, PYR_CHAIN * 2 };
    for (int m = 0; m < 2; m++) {
        uint8_t *whole[N];
        if (run(0, missing[m], whole) < 0) {
            CHECK(&ts, 0, "whole run");
            continue;
        }
        differing_starts(&ts, lead_in, missing[m], whole, 1);
        if (m == 0) {
            /* without the chain's pictures the history differs somewhere */
            const int bad = differing_starts(&ts, lead_in - PYR_CHAIN, missing[m], whole, 0);
            CHECK(&ts, bad > 0, "a lead-in of %d pictures (the chain left out) changed no "
                  "picture: these pictures do not test the chain", lead_in - PYR_CHAIN);
        }
        drop(whole);
    }
    /* numbers out of range are refused with a message */
    {
        OmctiSettings s;
        omcti_default_settings(&s);
        s.engine = "cpu";
        char err[256];
        OmctiContext *c = NULL;
        if (omcti_open(&c, &s, W, H, err, sizeof err) == 0) {
            const OmctiPicture p = picture(0);
            CHECK(&ts, omcti_send_picture_at(c, &p, -1) == OMCTI_ERR_INVALID,
                  "a negative picture number was accepted");
            CHECK(&ts, strstr(omcti_last_error(c), "picture number") != NULL,
                  "message: %s", omcti_last_error(c));
            omcti_close(&c);
        }
    }
    for (int k = 0; k < N; k++)
        for (int i = 0; i < 3; i++)
            free(pictures[k][i]);
    return test_finish(&ts, "lead_in");
}

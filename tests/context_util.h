/* Helpers of the tests that drive a context through the public API
 * (tests/test_api_args.c, tests/test_send_failure.c, tests/test_fade.c). */
#ifndef OMCTI_TESTS_CONTEXT_UTIL_H
#define OMCTI_TESTS_CONTEXT_UTIL_H

#include <string.h>

#include "omcti.h"
#include "tests/check.h"

/* Whether the visible planes of p and q (p's size) are equal. */
static inline int test_pictures_equal(const OmctiPicture *p, const OmctiPicture *q)
{
    for (int c = 0; c < 3; c++) {
        const int w = c ? (p->width + 1) / 2 : p->width, h = c ? (p->height + 1) / 2 : p->height;
        for (int y = 0; y < h; y++)
            if (memcmp(p->data[c] + y * p->stride[c], q->data[c] + y * q->stride[c], (size_t)w))
                return 0;
    }
    return 1;
}

/* A context of the default settings on the CPU with `threads` threads
 * (its outputs are those of any thread count), for w x h pictures; NULL
 * (a failed check) if it cannot open. */
static inline OmctiContext *test_open_cpu(TestState *ts, int w, int h, int threads)
{
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    s.threads = threads;
    char err[256];
    OmctiContext *c = NULL;
    CHECK(ts, omcti_open(&c, &s, w, h, err, sizeof err) == 0, "open: %s", err);
    return c;
}

#endif

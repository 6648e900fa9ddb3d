/* No allocation per picture in steady state: after a first pass over a
 * short video (a moving texture, a fade, a scene cut), a second pass over
 * the same video through the same context allocates nothing, for every
 * motion method at 1 and 2 threads, at 1/2 and at 1/4, 2/4, 3/4. Counted by
 * this program's own malloc family (glibc's __libc_ functions underneath),
 * which the library and the OpenMP runtime it calls (a parallel region on
 * one thread allocates a team there) reach too. glibc only; not built under
 * sanitizers (tests/meson.build). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "tests/check.h"
#include "tests/texture.h"

#ifdef __GLIBC__
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_long allocations;

void *malloc(size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_memalign(align, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    void *q = __libc_memalign(align, n);
    if (!q) return ENOMEM;
    *p = q;
    return 0;
}

enum { W = 320, H = 192, FRAMES = 12 };

/* Frame i: the texture moving 3 pixels right and 1 down a frame; frames
 * 4..7 fade to black; frames 8.. are another texture (a cut). */
static void fill(OmctiPicture *p, int i)
{
    const int other = i >= 8, level = i >= 4 && i < 8 ? 8 - (i - 4) * 2 : 8;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int v = smooth_texture(x + 512 - 3 * i + 777 * other, y + 512 - i);
            p->data[0][y * p->stride[0] + x] = (uint8_t)(16 + (v - 16) * level / 8);
        }
    for (int c = 1; c < 3; c++)
        for (int y = 0; y < H / 2; y++)
            for (int x = 0; x < W / 2; x++)
                p->data[c][y * p->stride[c] + x] =
                    (uint8_t)(128 + (smooth_texture(x + 99 * c + 300 * other, y) - 104) / 4);
}

/* One pass: every picture sent, and the in-between pictures of each pair. */
static int pass(OmctiContext *ctx, OmctiPicture *in, OmctiPicture *out, int quarters)
{
    for (int i = 0; i < FRAMES; i++) {
        int ret = omcti_send_picture(ctx, &in[i]);
        if (ret < 0) return ret;
        if (!omcti_has_pair(ctx)) continue;
        for (int k = 1; k < (quarters ? 4 : 2); k++)
            if ((ret = omcti_interpolate(ctx, k, quarters ? 4 : 2, out)) < 0) return ret;
    }
    return 0;
}

int main(void)
{
    TestState ts = { 0, 0 };
    static uint8_t planes[FRAMES + 1][W * H * 3 / 2];
    OmctiPicture pics[FRAMES + 1];
    for (int i = 0; i <= FRAMES; i++) {
        uint8_t *b = planes[i];
        pics[i] = (OmctiPicture){ { b, b + W * H, b + W * H + W * H / 4 },
                                  { W, W / 2, W / 2 }, W, H };
        if (i < FRAMES) fill(&pics[i], i);
    }
    const OmctiMethod methods[] = { OMCTI_METHOD_OMCTI, OMCTI_METHOD_MCTI, OMCTI_METHOD_BLEND };
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
        for (int threads = 1; threads <= 2; threads++)
            for (int quarters = 0; quarters <= 1; quarters++) {
                OmctiSettings s;
                omcti_default_settings(&s);
                s.method = methods[m];
                s.engine = "cpu";
                s.threads = threads;
                OmctiContext *ctx = NULL;
                char err[256] = "";
                int ret = omcti_open(&ctx, &s, W, H, err, sizeof err);
                CHECK(&ts, ret == 0, "open: %s", err);
                if (ret < 0) continue;
                ret = pass(ctx, pics, &pics[FRAMES], quarters);
                const long before = atomic_load(&allocations);
                if (ret == 0) ret = pass(ctx, pics, &pics[FRAMES], quarters);
                const long n = atomic_load(&allocations) - before;
                CHECK(&ts, ret == 0, "%s", omcti_last_error(ctx));
                CHECK(&ts, n == 0, "%s, %d thread(s), %s: %ld allocations in the second pass",
                      omcti_method_name(s.method), threads, quarters ? "1/4..3/4" : "1/2", n);
                OmctiStats st;
                omcti_get_stats(ctx, &st);
                CHECK(&ts, st.scene_cuts > 0 || s.method == OMCTI_METHOD_BLEND,
                      "the cut was not seen (%s)", omcti_method_name(s.method));
                omcti_close(&ctx);
            }
    return test_finish(&ts, "steady_allocs");
}
#else
int main(void)
{
    return 77; /* the counting needs glibc's __libc_ functions */
}
#endif

/* The filters without motion, the floors every motion-compensated method
 * must beat. blend: (1-t)*prev + t*next per pixel, the cross-fade; on the
 * CPU, or on the context's device when it has a backend for it. repeat:
 * the nearer original (prev on a tie). */
#include <stdlib.h>

#include "src/common.h"
#include "filters/filter.h"

typedef struct BlendContext {
    int threads;
} BlendContext;

typedef struct Blend {
    const FilterBackend *be;
    void *b;
} Blend;

static int blend_cpu_init(void **priv, const FilterParams *p, OmctiMethod method, char *err,
                          size_t errlen)
{
    (void)method;
    BlendContext *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->threads = p->threads > 0 ? p->threads : 1;
    *priv = s;
    return 0;
}

static void blend_row(uint8_t *d, const uint8_t *pa, const uint8_t *pb, int w, int wt)
{
    for (int x = 0; x < w; x++)
        d[x] = (uint8_t)mc_blend_px(pa[x], pb[x], wt);
}

static void blend_rows(uint8_t *dst, ptrdiff_t ds, const uint8_t *a, ptrdiff_t as,
                       const uint8_t *b, ptrdiff_t bs, int w, int h, int wt, int threads)
{
    /* One thread: not through a region (libgomp allocates a team of one
     * at each). */
    if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int y = 0; y < h; y++)
            blend_row(dst + y * ds, a + y * as, b + y * bs, w, wt);
    } else {
        for (int y = 0; y < h; y++)
            blend_row(dst + y * ds, a + y * as, b + y * bs, w, wt);
    }
}

void blend_frames(const OmctiFrame *prev, const OmctiFrame *next, int64_t num, int64_t den,
                  OmctiPicture *out, int threads)
{
    const int wt = phase_weight256(num, den);
    for (int i = 0; i < 3; i++) {
        const OmctiPlane *a = &prev->p[i], *b = &next->p[i];
        blend_rows(out->data[i], out->stride[i], a->data, a->stride, b->data, b->stride,
                   a->w, a->h, wt, threads);
    }
}

static int blend_cpu_picture(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                             OmctiPicture *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const BlendContext *s = priv;
    blend_frames(pair->prev, pair->next, num, den, out, s->threads);
    return 0;
}

static void blend_cpu_uninit(void **priv)
{
    free(*priv);
    *priv = NULL;
}

static const FilterBackend blend_backend_cpu = {
    .device = NULL,
    .init = blend_cpu_init,
    .picture = blend_cpu_picture,
    .uninit = blend_cpu_uninit,
};

static int blend_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    Blend *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    const int ret = filter_backend_open(&s->be, &s->b, &blend_backend_cpu, p, OMCTI_METHOD_BLEND,
                                        err, errlen);
    if (ret < 0) {
        free(s);
        return ret;
    }
    *priv = s;
    return 0;
}

static int blend_picture(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                         OmctiPicture *out, char *err, size_t errlen)
{
    const Blend *s = priv;
    return s->be->picture(s->b, pair, num, den, out, err, errlen);
}

static void blend_uninit(void **priv)
{
    Blend *s = *priv;
    if (!s) return;
    s->be->uninit(&s->b);
    free(s);
    *priv = NULL;
}

static int repeat_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    (void)p;
    (void)err;
    (void)errlen;
    *priv = NULL;
    return 0;
}

static int repeat_picture(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                          OmctiPicture *out, char *err, size_t errlen)
{
    (void)priv;
    (void)err;
    (void)errlen;
    OmctiPicture src;
    frame_as_picture(2 * num <= den ? pair->prev : pair->next, &src);
    picture_copy(out, &src);
    return 0;
}

static void repeat_uninit(void **priv)
{
    *priv = NULL;
}

#define STILL_FILTER(filter_name, prefix)                                               \
    {                                                                                   \
        .name = filter_name, .needs_motion = 0, .init = prefix##_init,                  \
        .picture = prefix##_picture, .uninit = prefix##_uninit,                         \
    }

const OmctiFilter filter_blend = STILL_FILTER("blend", blend);
const OmctiFilter filter_repeat = STILL_FILTER("repeat", repeat);

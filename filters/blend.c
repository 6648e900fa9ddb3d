/* blend: (1-t)*prev + t*next per pixel, the cross-fade baseline. */
#include <stdlib.h>

#include "src/common.h"
#include "filters/filter.h"

typedef struct BlendContext {
    int threads;
} BlendContext;

static int blend_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    BlendContext *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->threads = p->threads > 0 ? p->threads : 1;
    *priv = s;
    return 0;
}

static void blend_rows(uint8_t *dst, ptrdiff_t ds, const uint8_t *a, ptrdiff_t as,
                       const uint8_t *b, ptrdiff_t bs, int w, int h, int wt, int threads)
{
    const int wa = 256 - wt;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int y = 0; y < h; y++) {
        const uint8_t *pa = a + y * as, *pb = b + y * bs;
        uint8_t *d = dst + y * ds;
        for (int x = 0; x < w; x++)
            d[x] = (uint8_t)((pa[x] * wa + pb[x] * wt + 128) >> 8);
    }
}

static int blend_picture(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                         OmctiPicture *out)
{
    const BlendContext *s = priv;
    const int wt = phase_weight256(num, den);
    for (int i = 0; i < 3; i++) {
        const OmctiPlane *a = &pair->prev->p[i], *b = &pair->next->p[i];
        blend_rows(out->data[i], out->stride[i], a->data, a->stride, b->data, b->stride,
                   a->w, a->h, wt, s->threads);
    }
    return 0;
}

static void blend_uninit(void **priv)
{
    free(*priv);
    *priv = NULL;
}

const OmctiFilter filter_blend = {
    .name = "blend",
    .needs_motion = 0,
    .init = blend_init,
    .picture = blend_picture,
    .uninit = blend_uninit,
};

/* The motion-compensated interpolator shared by omcti and mcti (mc.h): the
 * per-pair decisions and holding, once for every backend; the vectors and
 * the rendering run on the backend (the CPU's, or a device's). */
#include <stdlib.h>

#include "src/common.h"
#include "filters/mc.h"
#include "filters/scenecut.h"

typedef struct McFilter {
    int width, height, block;
    const FilterBackend *be;
    void *b;
    SceneCut scd;
    int cut;
    int stepwise;                /* hold: the source changes in steps      */
    int mix;                     /* blend: a cross-dissolve (FilterPair)   */
    int threads;
} McFilter;

void mc_mask_weights(int block, int x, int y, int w[3])
{
    for (int k = 0; k < 3; k++)
        w[k] = mc_mask8(k, block, x, y) * 32;
}

int mc_init(void **priv, const FilterParams *p, OmctiMethod method, char *err, size_t errlen)
{
    if (p->block != 8 && p->block != 16 && p->block != 32)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "block size %d is not supported",
                         p->block);
    McFilter *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->width = p->width;
    s->height = p->height;
    s->block = p->block;
    s->threads = p->threads > 0 ? p->threads : 1;
    scenecut_init(&s->scd, p);
    const int ret = filter_backend_open(&s->be, &s->b, &mc_backend_cpu, p, method, err, errlen);
    if (ret < 0) {
        free(s);
        return ret;
    }
    *priv = s;
    return 0;
}

void mc_uninit(void **priv)
{
    McFilter *s = *priv;
    if (!s) return;
    s->be->uninit(&s->b);
    free(s);
    *priv = NULL;
}

int mc_new_pair(void *priv, const FilterPair *pair, char *err, size_t errlen)
{
    McFilter *s = priv;
    McSceneStats st;
    const int ret = s->be->stats(s->b, pair, &st, err, errlen);
    if (ret < 0)
        return ret;
    const uint32_t cost = scenecut_cost(pair->fields, &st, s->width, s->height);
    /* the spread is a pass or two over the picture: only where the cost jumps */
    const uint32_t spread = scenecut_jump(&s->scd, cost, pair->prev->serial)
                                ? scenecut_change(pair, &st, s->width, s->height)
                                : 0;
    s->cut = scenecut_decide(&s->scd, cost, spread, scenecut_share(&st),
                             scenecut_flat(&st, s->width, s->height), pair->prev->serial,
                             pair->next->serial);
    s->stepwise = s->scd.stepwise && s->scd.enabled;
    /* a cross-dissolve (the context's test), or a fade's step from or to
     * a flat picture: the blend is the in-between picture (of the pictures
     * as sent: not where the pair is searched on scaled copies, a fade
     * from a grey card, which stays as it was) */
    s->mix = pair->mixing || (!s->cut && !pair->scaled &&
                              scenecut_fade_edge(pair, &st, s->width, s->height));
    return 0;
}

int mc_pair_is_cut(void *priv)
{
    const McFilter *s = priv;
    return s->cut;
}

int mc_pair_holds(void *priv)
{
    const McFilter *s = priv;
    return s->cut || s->stepwise;
}

int mc_picture(void *priv, const FilterPair *pr, int64_t num, int64_t den, OmctiPicture *out,
               char *err, size_t errlen)
{
    McFilter *s = priv;
    if (s->cut || s->stepwise) {
        /* A scene cut: no vector relates the two pictures; the in-between
         * picture belongs to one of the two scenes, so hold the nearer.
         * A stepwise source (duplicates seen recently): the in-between
         * picture is one of the originals, and the nearer is the best guess;
         * unchanged areas are identical in both anyway. The original is in
         * the host's memory on every backend: a copy. */
        OmctiPicture pic;
        frame_as_picture(2 * num <= den ? pr->prev : pr->next, &pic);
        picture_copy(out, &pic);
        return 0;
    }
    if (s->mix) {
        /* A cross-dissolve: every picture is a mix of two shots, and the
         * share of the second grows by a step per frame. The blend is the
         * in-between mix; vectors matched between two mixes warp the shot
         * that does not move (docs/quality.md, "dissolves"). On the host,
         * as the holds: the same on every backend. */
        blend_frames(pr->prev, pr->next, num, den, out, s->threads);
        return 0;
    }
    return s->be->picture(s->b, pr, num, den, out, err, errlen);
}

/* omcti: overlapped motion-compensated temporal interpolation. Vectors per
 * block, compensation per sub-block (block/2) with the block's own vector
 * and the vectors of the horizontal and vertical neighbours touching the
 * sub-block, under per-pixel masks. */
static int omcti_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    return mc_init(priv, p, OMCTI_METHOD_OMCTI, err, errlen);
}

/* mcti: motion-compensated temporal interpolation, one vector per block and
 * no overlap (the paper's baseline; blocky where vectors differ). Vector
 * choice, fallback and scene cuts are those of omcti. */
static int mcti_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    return mc_init(priv, p, OMCTI_METHOD_MCTI, err, errlen);
}

#define MC_FILTER(filter_name, init_fn)                                                   \
    {                                                                                     \
        .name = filter_name, .needs_motion = 1, .init = init_fn, .new_pair = mc_new_pair, \
        .picture = mc_picture, .pair_is_cut = mc_pair_is_cut,                             \
        .pair_holds = mc_pair_holds, .uninit = mc_uninit,                                 \
    }

const OmctiFilter filter_omcti = MC_FILTER("omcti", omcti_init);
const OmctiFilter filter_mcti = MC_FILTER("mcti", mcti_init);

/* Interpolation filters: each one file in filters/, like libavfilter's vf_*.c:
 * an options/params struct, init, a per-picture function and uninit.
 *
 * A filter builds the picture at phase t = num/den (0 < t < 1) between prev
 * and next, from the pair's motion fields (NULL for filters that need none).
 * All arithmetic is integer/fixed-point so that a GPU port can reproduce it
 * bit for bit. */
#ifndef OMCTI_FILTER_H
#define OMCTI_FILTER_H

#include <stdint.h>

#include "omcti.h"
#include "src/active_area.h"
#include "src/device.h"
#include "src/frame.h"
#include "filters/mc_block.h"
#include "src/motion/engine.h"

typedef struct FilterParams {
    int width, height;
    int block;          /* motion block size                             */
    int range;          /* search range the fields come from             */
    int threads;        /* OpenMP threads for the per-picture work       */
    OmctiSceneCut scd;
    double scd_threshold;
    /* The context's device (NULL: none): the filter runs its heavy stages
     * there when it has a backend for the device's type. dev_fallback: a
     * backend that fails to start leaves the work to the CPU backend
     * (engine auto) instead of failing. */
    Device *dev;
    int dev_fallback;
} FilterParams;

typedef struct FilterPair {
    const OmctiFrame *prev, *next;   /* padded frames                    */
    const MotionFields *fields;      /* NULL when !needs_motion          */
    ActiveArea area;                 /* lines inactive in either frame   */
    /* have_cam: cam is motion_camera_vector() of these fields and area at
     * the stream's size over the fields' grid, computed already by the
     * context (estimate_pair()); 0: the filter computes it. */
    int have_cam;
    MotionVector cam;
    /* mixing: prev lies halfway between the picture before it and next
     * (fade_linear_mix()) and the pair is no fade (src/fade.h): a
     * cross-dissolve, whose in-between picture is the blend of the two
     * (set by the context; 0 elsewhere). */
    int mixing;
    /* scaled: prev and next are the copies scaled to one brightness that
     * a fade is searched and built from (src/fade.h; set by the context) */
    int scaled;
} FilterPair;

typedef struct OmctiFilter {
    const char *name;
    int needs_motion;
    int  (*init)(void **priv, const FilterParams *p, char *err, size_t errlen);
    /* Called once per new pair, before any picture of it (vector choice,
     * scene-cut decision). May be NULL. */
    int  (*new_pair)(void *priv, const FilterPair *pair, char *err, size_t errlen);
    /* Builds the picture at t = num/den into out (visible area only). */
    int  (*picture)(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                    OmctiPicture *out, char *err, size_t errlen);
    /* 1 when the last pair was handled by a fallback (scene cut). */
    int  (*pair_is_cut)(void *priv);
    /* 1 when the last pair's pictures are the nearer original (a scene cut
     * or a stepwise source). May be NULL: pair_is_cut then tells. */
    int  (*pair_holds)(void *priv);
    void (*uninit)(void **priv);
} OmctiFilter;

/* The heavy stages of a filter on one kind of hardware, like libavfilter's
 * per-backend filters: the CPU's DSP tables and band wavefront
 * (filters/mc_cpu.c), or GPU kernels (kernels/cuda_filter.c). Every backend
 * gives the same pictures bit for bit; the decisions around them (hold,
 * cut, which vector) are the filter's, made once (filters/mc.c,
 * filters/mc_stages.h). */
typedef struct FilterBackend {
    const char *device;   /* device type it runs on; NULL: the CPU        */
    /* method: OMCTI_METHOD_OMCTI, _MCTI or _BLEND */
    int  (*init)(void **b, const FilterParams *p, OmctiMethod method, char *err,
                 size_t errlen);
    /* The pair's scene-cut statistics (motion methods). */
    int  (*stats)(void *b, const FilterPair *pair, McSceneStats *st, char *err, size_t errlen);
    /* The picture at num/den (0 < num < den) into out. */
    int  (*picture)(void *b, const FilterPair *pair, int64_t num, int64_t den,
                    OmctiPicture *out, char *err, size_t errlen);
    void (*uninit)(void **b);
} FilterBackend;

/* The pair's camera vector for a backend's stats() (host code on every
 * backend, so all take the same vector): the context's, pr->cam, where it
 * was computed over these fields on a grid of nb blocks, else
 * motion_camera_vector() of width x height with keys
 * (MOTION_CAMERA_KEYS(nb)) as scratch. */
MotionVector filter_pair_camera(const FilterPair *pr, int width, int height, int nb,
                                uint32_t *keys);

/* Starts the backend for p->dev's type, or cpu when there is none (or it
 * fails and p->dev_fallback allows the CPU). */
int filter_backend_open(const FilterBackend **be, void **b, const FilterBackend *cpu,
                        const FilterParams *p, OmctiMethod method, char *err, size_t errlen);

#if OMCTI_HAVE_CUDA
extern const FilterBackend filter_backend_cuda;
#endif

extern const OmctiFilter filter_omcti;
extern const OmctiFilter filter_mcti;
extern const OmctiFilter filter_blend;
extern const OmctiFilter filter_repeat;

/* The blend filter's picture on the CPU: (1-t)*prev + t*next per pixel
 * (blend.c; mc.c blends a cross-dissolve with it). */
void blend_frames(const OmctiFrame *prev, const OmctiFrame *next, int64_t num, int64_t den,
                  OmctiPicture *out, int threads);

const OmctiFilter *filter_for_method(OmctiMethod m);

/* t = num/den as a weight in 1/256 (0..256), rounded; shared by filters so
 * that every method and engine uses the same temporal weights. */
static inline int phase_weight256(int64_t num, int64_t den)
{
    return (int)((num * 512 + den) / (2 * den));
}

#endif

/* The library context: settings, the two-picture ring, the motion engine
 * and the interpolation filter. Everything the library keeps lives here. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if OMCTI_HAVE_OPENMP
#include <omp.h>
#endif

#include "omcti.h"
#include "src/active_area.h"
#include "src/common.h"
#include "src/device.h"
#include "src/fade.h"
#include "src/frame.h"
#include "src/motion/engine.h"
#include "src/motion/pyramid_block.h"
#include "filters/filter.h"
#include "filters/scenecut.h"

struct OmctiContext {
    OmctiSettings s;
    int width, height;

    OmctiFrame frames[2];      /* ring: frames[cur] is the current picture */
    int cur;
    /* Motion methods: each frame's inactive edge lines (active_area.h).
     * A frame with some is re-padded in frames[] and its original kept in
     * orig[] (allocated the first time it is needed). */
    ActiveArea area[2];
    OmctiFrame orig[2];
    /* The pictures of the pair as the search and the filter see them: the
     * frames, or copies in repad[] re-padded to a bar the other frame found
     * a few lines deeper (the scene-cut decision and a held pair use the
     * frames). */
    const OmctiFrame *pair_frame[2];
    OmctiFrame repad[2];
    uint64_t sent;             /* pictures sent so far                     */

    const MotionEngineVTable *engine;
    MotionEngine *eng;
    MotionFields fields;
    uint32_t *keys;            /* motion_camera_vector()'s scratch         */
    MotionVector cam;          /* estimate_pair()'s camera vector          */
    /* A pair that changes brightness as a whole (src/fade.h) is searched
     * and built from norm[], its pictures scaled to one level (allocated
     * the first time one is met). */
    FadeGain fade;
    OmctiFrame norm[2];

    /* The device of the engine (src/device.h), shared by the engine and
     * the filter; type NULL: none (the CPU). */
    Device dev;

    const OmctiFilter *filter;
    void *filter_priv;
    /* The pair's fields, decision and filter state belong to the pictures
     * in the ring: set by a send that succeeds, cleared by one that fails
     * (omcti_send_picture_at()). */
    int pair_ready;
    int pair_cut;
    int pair_holds;            /* the pair's pictures hold the nearer original */
    int mixing;                /* the pair continues a linear mix (a dissolve;
                                  fade_linear_mix()), and is no fade       */

    OmctiStats stats;
    char err[512];
};

int omcti_cpu_count(void)
{
    /* The CPUs this process may run on (taskset, a Slurm or container
     * cpuset), not all of the host's. libgomp counts them at start-up,
     * before OMP_PROC_BIND pins the main thread to one of them. */
#if OMCTI_HAVE_OPENMP
    return omp_get_num_procs();
#else
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

static int default_threads(void)
{
#if OMCTI_HAVE_OPENMP
    return omcti_cpu_count();
#else
    return 1;
#endif
}

static int auto_engine(const OmctiContext *c)
{
    return !c->s.engine || !strcmp(c->s.engine, "auto");
}

/* Opens the device of engine type v, pins the context's frames for it. */
static int open_device(OmctiContext *c, const MotionEngineVTable *v, char *err, size_t errlen)
{
    if (!v->device || c->dev.type)
        return 0;
    const int ret = device_open(&c->dev, v->device, c->s.device, err, errlen);
    if (ret < 0)
        return ret;
    if (c->dev.type->register_frame)
        for (int i = 0; i < 2; i++)
            c->dev.type->register_frame(c->dev.priv, &c->frames[i]);
    return 0;
}

static int try_engine(OmctiContext *c, const MotionEngineVTable *v, MotionParams *mp, char *err,
                      size_t errlen)
{
    int ret = open_device(c, v, err, errlen);
    if (ret < 0)
        return ret;
    mp->dev = c->dev.type ? &c->dev : NULL;
    c->engine = v;
    if ((ret = v->create(&c->eng, mp, err, errlen)) < 0) {
        c->engine = NULL;
        device_close(&c->dev);
        mp->dev = NULL;
    }
    return ret;
}

static int open_engine(OmctiContext *c, MotionParams *mp, char *err, size_t errlen)
{
    const MotionEngineVTable *v = motion_engine_find(c->s.engine ? c->s.engine : "auto", err,
                                                     errlen);
    if (!v)
        return OMCTI_ERR_ENGINE;
    int ret = try_engine(c, v, mp, err, errlen);
    if (ret < 0 && auto_engine(c) && v != &motion_engine_cpu)
        /* auto means "the best that works": a GPU that fails to start is
         * not an error when the CPU can do the job. */
        ret = try_engine(c, &motion_engine_cpu, mp, err, errlen);
    return ret;
}

int omcti_open(OmctiContext **out, const OmctiSettings *s, int width, int height,
               char *err, size_t errlen)
{
    if (!out)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "no place for the context");
    *out = NULL;
    int ret = omcti_validate_settings(s, err, errlen);
    if (ret < 0) return ret;
    if (width < 1 || height < 1 || width > OMCTI_MAX_DIMENSION || height > OMCTI_MAX_DIMENSION)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "picture size %dx%d is out of range (1x1 .. %dx%d)",
                         width, height, OMCTI_MAX_DIMENSION, OMCTI_MAX_DIMENSION);

    OmctiContext *c = calloc(1, sizeof *c);
    if (!c) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    c->s = *s;
    c->width = width;
    c->height = height;
    if (!c->s.threads) c->s.threads = default_threads();
    if (!c->s.range) c->s.range = omcti_auto_range(c->s.search, width);

    /* Search and compensation read up to range + block outside the picture;
     * the extra 32 leave room for sub-pixel filter taps. */
    const int pad = motion_required_pad(s->block, c->s.range) + 32;
    for (int i = 0; i < 2; i++)
        if (frame_alloc(&c->frames[i], width, height, pad) < 0) {
            ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory for %dx%d frames",
                            width, height);
            goto fail;
        }

    c->filter = filter_for_method(s->method);
    MotionParams mp = {
        .width = width, .height = height, .block = s->block, .range = c->s.range,
        .search = s->search, .threads = c->s.threads, .device = s->device,
    };
    if (c->filter->needs_motion) {
        if ((ret = open_engine(c, &mp, err, errlen)) < 0)
            goto fail;
        if (motion_fields_alloc(&c->fields, width, height, s->block) < 0 ||
            !(c->keys = malloc(sizeof *c->keys *
                                  MOTION_CAMERA_KEYS(c->fields.fwd.bw * c->fields.fwd.bh)))) {
            ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
            goto fail;
        }
    } else if (!auto_engine(c)) {
        /* An engine the user names must exist even for methods that need
         * no motion, so that `--engine cuda` fails the same way for every
         * method; its device then runs what the filter can run there. */
        const MotionEngineVTable *v = motion_engine_find(s->engine, err, errlen);
        if (!v) {
            ret = OMCTI_ERR_ENGINE;
            goto fail;
        }
        if ((ret = open_device(c, v, err, errlen)) < 0)
            goto fail;
    }
    const FilterParams fp = {
        .width = width, .height = height, .block = s->block, .range = c->s.range,
        .threads = c->s.threads, .scd = s->scd, .scd_threshold = s->scd_threshold,
        .dev = c->dev.type ? &c->dev : NULL, .dev_fallback = auto_engine(c),
    };
    if ((ret = c->filter->init(&c->filter_priv, &fp, err, errlen)) < 0)
        goto fail;
    *out = c;
    return 0;

fail:
    omcti_close(&c);
    return ret;
}

/* The lines inactive in either frame of the pair (ip, in). */
static ActiveArea pair_area(const OmctiContext *c, int ip, int in)
{
    const ActiveArea *p = &c->area[ip], *n = &c->area[in];
    return (ActiveArea){ max_i(p->top, n->top), max_i(p->bottom, n->bottom),
                         max_i(p->left, n->left), max_i(p->right, n->right) };
}

static int fail(OmctiContext *c, int code, const char *msg)
{
    snprintf(c->err, sizeof c->err, "%s", msg);
    return code;
}

static int area_equal(const ActiveArea *a, const ActiveArea *b)
{
    return a->top == b->top && a->bottom == b->bottom && a->left == b->left &&
           a->right == b->right;
}

/* The pictures of the pair: a frame whose bar the other frame found a few
 * lines deeper (active_area_for_pair()) is copied into repad[] and
 * re-padded there, for this pair only (segments stay exact); the copies
 * get serials of their own (bit 62) for the engines' caches. */
static int repad_pair(OmctiContext *c, int ip, int in, const ActiveArea *a)
{
    const int slot[2] = { ip, in };
    for (int k = 0; k < 2; k++) {
        const int i = slot[k];
        c->pair_frame[k] = &c->frames[i];
        ActiveArea t;
        active_area_for_pair(&c->area[i], a, c->width, c->height, &t);
        if (area_equal(&c->area[i], &t))
            continue;
        OmctiFrame *r = &c->repad[k];
        if (!r->p[0].buf && frame_alloc(r, c->width, c->height, c->frames[0].p[0].pad) < 0)
            return fail(c, OMCTI_ERR_NOMEM, "out of memory");
        OmctiPicture pic;
        frame_as_picture(&c->frames[i], &pic);
        frame_copy_in_threads(r, &pic, c->dev.type ? 1 : c->s.threads);
        active_area_repad(r, &t);
        r->serial = (1ull << 62) | (2 * c->sent + (uint64_t)k);
        r->number = c->frames[i].number;
        c->pair_frame[k] = r;
    }
    return 0;
}

/* The pair's fields; a pair that changes brightness as a whole is
 * searched again on norm[] (fade.h). Its camera vector comes from the
 * first search; a fade's fields may have chased brightness instead of
 * content, so a still camera is measured as well (fade_measure_pair()).
 * The copies get serials of
 * their own (the top bit set): engines cache device copies by serial.
 * The scene-cut decision (the filter's new_pair) reads the original
 * pictures with these fields: the lower residual of a fade searched at one
 * brightness is part of what says that it is no cut. */
static int estimate_pair(OmctiContext *c, const OmctiFrame *prev, const OmctiFrame *next,
                         const ActiveArea *a)
{
    c->fade.active = 0;
    int ret = c->engine->estimate(c->eng, prev, next, &c->fields, c->err, sizeof c->err);
    if (ret < 0)
        return ret;
    const MotionField *f = &c->fields.fwd;
    const MotionVector g =
        motion_camera_vector(&c->fields, a, c->width, c->height, f->bw * f->bh, c->keys);
    c->cam = g;
    c->fade = fade_measure_pair(prev, next, g.x, g.y, a);
    if (!c->fade.active)
        return 0;
    const int pad = c->frames[0].p[0].pad;
    for (int i = 0; i < 2; i++)
        if (!c->norm[i].p[0].buf && frame_alloc(&c->norm[i], c->width, c->height, pad) < 0) {
            c->fade.active = 0;
            return fail(c, OMCTI_ERR_NOMEM, "out of memory");
        }
    fade_scale_frame(&c->fade, 0, &c->norm[0], prev);
    fade_scale_frame(&c->fade, 1, &c->norm[1], next);
    c->norm[0].serial = (1ull << 63) | (2 * c->sent);
    c->norm[1].serial = (1ull << 63) | (2 * c->sent + 1);
    c->norm[0].number = prev->number;
    c->norm[1].number = next->number;
    c->stats.abs_diffs += c->fields.abs_diffs;
    ret = c->engine->estimate(c->eng, &c->norm[0], &c->norm[1], &c->fields, c->err, sizeof c->err);
    if (ret < 0)
        c->fade.active = 0;
    return ret;
}

int omcti_send_picture(OmctiContext *c, const OmctiPicture *pic)
{
    if (!c)
        return OMCTI_ERR_INVALID;
    return omcti_send_picture_at(c, pic, c->sent ? c->frames[c->cur].number + 1 : 0);
}

/* Puts the picture in the ring and prepares the pair it ends (its
 * arguments checked). */
static int send_picture(OmctiContext *c, const OmctiPicture *pic, int64_t number)
{
    double t0 = now_seconds();
    /* Before the new picture replaces the older of the two: whether the
     * newer (prev of the coming pair) lies halfway between it and the new
     * one. Three consecutive pictures only (a segment's lead-in gives its
     * first pair the one before). Inside the active area of the two: there
     * frames[] hold the pictures as sent (re-padding changes only the lines
     * outside a frame's own area, repad_pair() works on copies). */
    const OmctiFrame *p0 = &c->frames[c->cur ^ 1], *p1 = &c->frames[c->cur];
    const ActiveArea a01 = pair_area(c, c->cur ^ 1, c->cur);
    const int linear = c->filter->needs_motion && c->sent >= 2 &&
                       p0->number + 1 == p1->number && p1->number + 1 == number &&
                       fade_linear_mix(&p0->p[0], &p1->p[0], pic->data[0], pic->stride[0], &a01);
    c->cur ^= 1;
    /* valid whatever fails below */
    c->pair_frame[0] = &c->frames[c->cur ^ 1];
    c->pair_frame[1] = &c->frames[c->cur];
    OmctiFrame *f = &c->frames[c->cur];
    frame_copy_in_threads(f, pic, c->dev.type ? 1 : c->s.threads);
    f->number = number;
    f->serial = ++c->sent;
    if (c->filter->needs_motion) {
        ActiveArea *a = &c->area[c->cur];
        active_area_detect(&f->p[0], a);
        if (!active_area_is_full(a)) {
            OmctiFrame *o = &c->orig[c->cur];
            if (!o->p[0].buf && frame_alloc(o, c->width, c->height, 0) < 0) {
                *a = (ActiveArea){ 0, 0, 0, 0 }; /* frames[] still holds the original */
                return fail(c, OMCTI_ERR_NOMEM, "out of memory");
            }
            OmctiPicture keep;
            frame_as_picture(o, &keep);
            picture_copy(&keep, pic);
            active_area_repad(f, a);
        }
    }
    c->stats.upload_seconds += now_seconds() - t0;
    if (c->sent < 2)
        return 0;

    const OmctiFrame *prev = &c->frames[c->cur ^ 1], *next = f;
    FilterPair pair = { prev, next, NULL, pair_area(c, c->cur ^ 1, c->cur), 0, { 0, 0 }, 0, 0 };
    if (c->filter->needs_motion) {
        t0 = now_seconds();
        int ret = repad_pair(c, c->cur ^ 1, c->cur, &pair.area);
        if (ret < 0)
            return ret;
        ret = estimate_pair(c, c->pair_frame[0], c->pair_frame[1], &pair.area);
        if (ret < 0)
            return ret;
        c->stats.me_seconds += now_seconds() - t0;
        c->stats.abs_diffs += c->fields.abs_diffs;
        pair.fields = &c->fields;
        /* the fields the camera vector came from, unless a fade searched
         * them again: the filter need not compute it a second time */
        if (!c->fade.active) {
            pair.have_cam = 1;
            pair.cam = c->cam;
        }
        pair.mixing = linear && !c->fade.active;
        pair.scaled = c->fade.active;
    }
    c->mixing = pair.mixing;
    c->stats.pairs++;
    if (c->filter->new_pair) {
        t0 = now_seconds();
        c->err[0] = 0;
        int ret = c->filter->new_pair(c->filter_priv, &pair, c->err, sizeof c->err);
        c->stats.interp_seconds += now_seconds() - t0;
        if (ret < 0)
            return c->err[0] ? ret : fail(c, ret, "interpolation filter failed on a new pair");
    }
    c->pair_cut = c->filter->pair_is_cut ? c->filter->pair_is_cut(c->filter_priv) : 0;
    c->pair_holds = c->filter->pair_holds ? c->filter->pair_holds(c->filter_priv) : c->pair_cut;
    c->stats.scene_cuts += c->pair_cut;
    return 0;
}

int omcti_send_picture_at(OmctiContext *c, const OmctiPicture *pic, int64_t number)
{
    if (!c)
        return OMCTI_ERR_INVALID;
    /* A refused picture changes nothing: the pair stays. */
    const int bad = picture_check(pic, c->width, c->height, "input", c->err, sizeof c->err);
    if (bad < 0)
        return bad;
    if (number < 0 || number > ((int64_t)1 << 62)) {
        snprintf(c->err, sizeof c->err, "picture number %lld is out of range (0..2^62)",
                 (long long)number);
        return OMCTI_ERR_INVALID;
    }
    /* A send that fails part way may have put the picture in the ring and
     * left the fields, the scene-cut decision and the filter's state of
     * the pair before: a picture built from those would be wrong without
     * a word. So no pair until a send succeeds; the next one pairs the
     * failed picture (in the ring as sent) with its own. */
    c->pair_ready = 0;
    const int ret = send_picture(c, pic, number);
    c->pair_ready = ret >= 0 && c->sent >= 2;
    return ret;
}

int omcti_has_pair(const OmctiContext *c)
{
    return c && c->pair_ready;
}

/* Slot i's picture as it was sent. */
static void original_picture(const OmctiContext *c, int i, OmctiPicture *pic)
{
    frame_as_picture(active_area_is_full(&c->area[i]) ? &c->frames[i] : &c->orig[i], pic);
}

/* The filters and engines built `out` from the re-padded frames; the
 * inactive lines come from the originals: the nearer one where the pair
 * holds it, else the blend of both where both are inactive. */
static void restore_inactive_lines(const OmctiContext *c, int ip, int in, int64_t num,
                                   int64_t den, OmctiPicture *out)
{
    if (active_area_is_full(&c->area[ip]) && active_area_is_full(&c->area[in]))
        return;
    OmctiPicture p, n;
    original_picture(c, ip, &p);
    original_picture(c, in, &n);
    if (c->pair_holds) {
        const int near = 2 * num <= den ? ip : in;
        if (!active_area_is_full(&c->area[near]))
            picture_copy(out, near == ip ? &p : &n);
        return;
    }
    active_area_fill(out, &p, &c->area[ip], &n, &c->area[in], phase_weight256(num, den));
}

/* num/den (0 <= num <= den) rounded to a phase in 1/2^30 when den is
 * larger: the filters multiply num by picture coordinates and weights,
 * which any int64 phase would overflow; 2^-31 of a frame is below anything
 * a picture shows. Exact binary long division, no floating point. */
#define PHASE_MAX_DEN ((int64_t)1 << 30)
static void phase_reduce(int64_t *num, int64_t *den)
{
    if (*den <= PHASE_MAX_DEN)
        return;
    const uint64_t d = (uint64_t)*den;
    uint64_t r = (uint64_t)*num, q = 0;
    if (r == d) {
        *num = *den = PHASE_MAX_DEN;
        return;
    }
    for (int i = 0; i < 31; i++) { /* 30 bits of r/d and one to round */
        r <<= 1;                   /* r < d < 2^63: no overflow        */
        q <<= 1;
        if (r >= d) {
            r -= d;
            q |= 1;
        }
    }
    *num = (int64_t)((q + 1) >> 1);
    *den = PHASE_MAX_DEN;
}

int omcti_interpolate(OmctiContext *c, int64_t num, int64_t den, OmctiPicture *out)
{
    if (!c)
        return OMCTI_ERR_INVALID;
    if (c->sent < 2)
        return fail(c, OMCTI_ERR_STATE, "interpolation needs two pictures");
    if (!c->pair_ready)
        return fail(c, OMCTI_ERR_STATE,
                    "the last picture's send failed: no pair until the next picture is sent");
    if (den <= 0 || num < 0 || num > den)
        return fail(c, OMCTI_ERR_INVALID, "phase must be num/den with 0 <= num <= den");
    const int bad = picture_check(out, c->width, c->height, "output", c->err, sizeof c->err);
    if (bad < 0)
        return bad;
    phase_reduce(&num, &den);
    const int ip = c->cur ^ 1, in = c->cur;
    /* a held original is the frame, not the pair's re-padded copy */
    const OmctiFrame *prev = c->pair_holds ? &c->frames[ip] : c->pair_frame[0];
    const OmctiFrame *next = c->pair_holds ? &c->frames[in] : c->pair_frame[1];
    OmctiPicture src;
    if (num == 0 || num == den) {
        /* The originals pass through untouched. */
        original_picture(c, num == 0 ? ip : in, &src);
        picture_copy(out, &src);
        return 0;
    }
    /* a held original is the original, not its scaled copy */
    const int fade = c->filter->needs_motion && c->fade.active && !c->pair_holds;
    const FilterPair pair = { fade ? &c->norm[0] : prev, fade ? &c->norm[1] : next,
                              c->filter->needs_motion ? &c->fields : NULL, pair_area(c, ip, in), 0,
                              { 0, 0 }, c->mixing, fade };
    double t0 = now_seconds();
    c->err[0] = 0;
    int ret = c->filter->picture(c->filter_priv, &pair, num, den, out, c->err, sizeof c->err);
    if (ret < 0)
        return c->err[0] ? ret : fail(c, ret, "interpolation failed");
    if (fade)
        fade_to_phase(&c->fade, num, den, out);
    restore_inactive_lines(c, ip, in, num, den, out);
    c->stats.interp_seconds += now_seconds() - t0;
    c->stats.interpolated++;
    return 0;
}

const char *omcti_engine_name(const OmctiContext *c)
{
    /* Methods without motion open no engine, but a named device (--engine
     * cuda) still runs their pictures: report it. */
    if (!c) return "none";
    if (c->engine) return c->engine->name;
    return c->dev.type ? c->dev.type->name : "none";
}

int omcti_pair_is_cut(const OmctiContext *c)
{
    /* after a failed send, pair_cut is the decision of the pair before */
    return c && c->pair_ready && c->pair_cut;
}

void omcti_get_stats(const OmctiContext *c, OmctiStats *st)
{
    if (!st) return;
    if (!c) {
        memset(st, 0, sizeof *st);
        return;
    }
    *st = c->stats;
}

const char *omcti_last_error(const OmctiContext *c)
{
    return c ? c->err : "no context";
}

void omcti_close(OmctiContext **pc)
{
    if (!pc) return;
    OmctiContext *c = *pc;
    if (!c) return;
    if (c->eng) c->engine->destroy(&c->eng);
    if (c->filter && c->filter->uninit) c->filter->uninit(&c->filter_priv);
    /* after its users, before the frames it may have pinned are freed */
    device_close(&c->dev);
    motion_fields_free(&c->fields);
    free(c->keys);
    for (int i = 0; i < 2; i++) {
        frame_free(&c->frames[i]);
        frame_free(&c->orig[i]);
        frame_free(&c->norm[i]);
        frame_free(&c->repad[i]);
    }
    free(c);
    *pc = NULL;
}

int omcti_engine_available(const char *name, char *err, size_t errlen)
{
    const MotionEngineVTable *e = motion_engine_find(name, err, errlen);
    if (!e) return 0;
    return e->devices ? e->devices() : 1;
}

int omcti_segment_lead_in(void)
{
    /* the scene-cut detector's pairs and one picture more, and the pairs
     * the first of them depends on: the pyramid search's level-0 history
     * goes back at most PYR_CHAIN pictures (pyramid_level0.h) */
    return SCD_HISTORY + 1 + PYR_CHAIN;
}

/* The CPU motion engine: full or diamond search per block, both fields,
 * OpenMP over block rows.
 *
 * Work unit: one row of blocks of one field. Units are independent (each
 * block reads only the two frames and writes only its own vector), so no
 * thread ever waits on another inside a frame, and the fields are the same
 * for every thread count and schedule. Rows of the two fields alternate so
 * that a thread works on nearby rows of both frames (cache), and each
 * thread starts on a contiguous share of the picture (estimate_shared). */
#include <stdlib.h>
#include <string.h>

#if OMCTI_HAVE_OPENMP
#include <omp.h>
#include <stdatomic.h>
#endif

#include "src/common.h"
#include "src/motion/engine.h"
#include "src/motion/pyramid.h"
#include "src/motion/search.h"

#if OMCTI_HAVE_OPENMP
/* One thread's share of a picture's units: the next one to take, and the
 * end. On a cache line of its own: its owner takes units from it all the
 * time, the others only once they have finished theirs. */
typedef struct ShareCursor {
    _Alignas(64) atomic_int next;
    int end;
} ShareCursor;
#endif

struct MotionEngine {
    MotionParams p;
    SadDSP dsp;
    int threads;
    MeSearch *search;   /* one per thread, allocated at create, each on its own lines */
    PyramidSearch *pyramid; /* OMCTI_SEARCH_PYRAMID only */
#if OMCTI_HAVE_OPENMP
    ShareCursor *cursor; /* one per thread */
#endif
};

static int cpu_available(char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return 1;
}

static void cpu_destroy(MotionEngine **pe)
{
    MotionEngine *e = pe ? *pe : NULL;
    if (!e)
        return;
    if (e->search)
        for (int t = 0; t < e->threads; t++)
            me_search_free(&e->search[t]);
    aligned_free(e->search);
    pyramid_search_free(&e->pyramid);
#if OMCTI_HAVE_OPENMP
    aligned_free(e->cursor);
#endif
    free(e);
    *pe = NULL;
}

static int cpu_create(MotionEngine **pe, const MotionParams *p, char *err, size_t errlen)
{
    *pe = NULL;
    if (sad_size_index(p->block) < 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cpu engine: block size %d is not 8, 16 or 32", p->block);
    if (p->range < 1 || p->range > 64)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cpu engine: search range %d is outside 1..64", p->range);
    if (p->width < 1 || p->height < 1)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cpu engine: picture size %dx%d is invalid", p->width, p->height);
    if (p->search != OMCTI_SEARCH_FULL && p->search != OMCTI_SEARCH_DIAMOND &&
        p->search != OMCTI_SEARCH_PYRAMID)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "cpu engine: unknown search %d",
                         (int)p->search);

    MotionEngine *e = calloc(1, sizeof *e);
    if (!e)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cpu engine: out of memory");
    e->p = *p;
    e->threads = p->threads < 1 ? 1 : p->threads;
#if !OMCTI_HAVE_OPENMP
    e->threads = 1;
#endif
    sad_dsp_init(&e->dsp);
    e->search = aligned_calloc((size_t)e->threads * sizeof *e->search);
#if OMCTI_HAVE_OPENMP
    e->cursor = aligned_calloc((size_t)e->threads * sizeof *e->cursor);
    if (!e->cursor) {
        cpu_destroy(&e);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cpu engine: out of memory");
    }
#endif
    if (!e->search) {
        cpu_destroy(&e);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cpu engine: out of memory");
    }
    for (int t = 0; t < e->threads; t++)
        if (me_search_init(&e->search[t], &e->dsp, p->block, p->range) < 0) {
            cpu_destroy(&e);
            return set_error(err, errlen, OMCTI_ERR_NOMEM, "cpu engine: out of memory");
        }
    if (p->search == OMCTI_SEARCH_PYRAMID &&
        pyramid_search_create(&e->pyramid, &e->dsp, p->width, p->height, p->block,
                              e->threads) < 0) {
        cpu_destroy(&e);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "cpu engine: out of memory");
    }
    *pe = e;
    return 0;
}

int cpu_engine_sad_level(const MotionEngine *e)
{
    return e->dsp.level;
}


/* Searches one row of blocks of cur in ref; returns candidates evaluated.
 * Results are gathered on the stack and stored a run of blocks at a time:
 * rows at a share's edge, or taken by a thread helping another, belong to
 * different threads and share cache lines of the field (a CIF row is 88
 * bytes); a store per block made the threads take those lines from each
 * other block by block. */
enum { ROW_RUN = 64 };

static uint64_t search_block_row(MeSearch *s, OmctiSearch method, const OmctiPlane *cur,
                                 const OmctiPlane *ref, MotionField *field, int by)
{
    const int b = field->block;
    uint64_t evaluated = 0;
    MotionVector mv[ROW_RUN];
    uint32_t sad[ROW_RUN];
    for (int x0 = 0; x0 < field->bw; x0 += ROW_RUN) {
        const int n = field->bw - x0 < ROW_RUN ? field->bw - x0 : ROW_RUN;
        for (int k = 0; k < n; k++) {
            const int bx = x0 + k;
            const uint8_t *c = cur->data + (ptrdiff_t)by * b * cur->stride + bx * b;
            const uint8_t *r = ref->data + (ptrdiff_t)by * b * ref->stride + bx * b;
            MeResult res;
            if (method == OMCTI_SEARCH_FULL)
                me_full_search(s, c, cur->stride, r, ref->stride, &res);
            else
                me_diamond_search(s, c, cur->stride, r, ref->stride, &res);
            mv[k] = res.mv;
            sad[k] = res.sad;
            evaluated += res.evaluated;
        }
        const int i = by * field->bw + x0;
        memcpy(field->mv + i, mv, (size_t)n * sizeof *mv);
        memcpy(field->sad + i, sad, (size_t)n * sizeof *sad);
    }
    return evaluated;
}

/* Unit u: block row u / 2 of the forward (u even) or backward field. */
static uint64_t search_unit(MeSearch *s, OmctiSearch method, const OmctiPlane *a,
                            const OmctiPlane *b, MotionFields *out, int u)
{
    const int by = u >> 1;
    return (u & 1) ? search_block_row(s, method, b, a, &out->bwd, by)
                   : search_block_row(s, method, a, b, &out->fwd, by);
}

#if OMCTI_HAVE_OPENMP
/* Threads split the units in contiguous shares in frame order, the same
 * split as the copy-in (context.c) and the filters' bands, so each core
 * searches rows it already holds in cache; one that finishes early takes
 * units from the others' shares (uneven motion: a static sky above a
 * moving crowd). Measured at CIF diamond search on 2 threads: one row per
 * grab 0.095 ms per pair, these shares 0.085, with the copy-in split the
 * same way 0.071-0.078. Which thread searches a unit does not change its
 * result. */
static uint64_t estimate_shared(MotionEngine *e, OmctiSearch method, const OmctiPlane *a,
                                const OmctiPlane *b, MotionFields *out, int units)
{
    uint64_t evaluated = 0;
    const int nt = e->threads;
    ShareCursor *cur = e->cursor;
    for (int t = 0; t < nt; t++) {
        atomic_store_explicit(&cur[t].next, (int)((int64_t)units * t / nt), memory_order_relaxed);
        cur[t].end = (int)((int64_t)units * (t + 1) / nt);
    }
    /* Every share is visited by every thread, its own first: shares of
     * threads the runtime did not start are taken by the others. */
#pragma omp parallel num_threads(nt) reduction(+ : evaluated)
    {
        const int t = omp_get_thread_num();
        MeSearch *s = &e->search[t];
        for (int k = 0; k < nt; k++) {
            ShareCursor *c = &cur[(t + k) % nt];
            for (int u; (u = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed)) < c->end;)
                evaluated += search_unit(s, method, a, b, out, u);
        }
    }
    return evaluated;
}
#endif

static int cpu_estimate(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                        MotionFields *out, char *err, size_t errlen)
{
    const MotionParams *p = &e->p;
    const OmctiPlane *a = &prev->p[0], *b = &next->p[0];
    const int need_pad = p->range + p->block;
    if (a->w != p->width || a->h != p->height || b->w != p->width || b->h != p->height)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cpu engine: frames are %dx%d and %dx%d, engine made for %dx%d",
                         a->w, a->h, b->w, b->h, p->width, p->height);
    if (a->pad < need_pad || b->pad < need_pad)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cpu engine: frame padding %d is less than range + block = %d",
                         a->pad < b->pad ? a->pad : b->pad, need_pad);
    const int bw = (p->width + p->block - 1) / p->block;
    const int bh = (p->height + p->block - 1) / p->block;
    if (out->fwd.block != p->block || out->fwd.bw != bw || out->fwd.bh != bh ||
        out->bwd.block != p->block || out->bwd.bw != bw || out->bwd.bh != bh)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "cpu engine: motion fields do not match the picture and block size");

    const OmctiSearch method = p->search;
    if (method == OMCTI_SEARCH_PYRAMID) {
        /* Reads outside the padding are clamped (pyramid.c): vectors are
         * not bounded by the padding. */
        out->abs_diffs = pyramid_search_estimate(e->pyramid, prev, next, out);
        return 0;
    }
    const int units = 2 * bh;
    uint64_t evaluated = 0;
#if OMCTI_HAVE_OPENMP
    if (e->threads > 1)
        evaluated = estimate_shared(e, method, a, b, out, units);
    else
#endif
        for (int u = 0; u < units; u++)
            evaluated += search_unit(&e->search[0], method, a, b, out, u);
    out->abs_diffs = evaluated * (uint64_t)p->block * (uint64_t)p->block;
    return 0;
}

const MotionEngineVTable motion_engine_cpu = {
    .name = "cpu",
    .available = cpu_available,
    .create = cpu_create,
    .estimate = cpu_estimate,
    .destroy = cpu_destroy,
};

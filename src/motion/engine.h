/* Motion-estimation engines.
 *
 * An engine is a table of functions (like dav1d's DSP tables): it estimates,
 * for a pair of padded frames, a forward field (blocks of prev matched in
 * next) and a backward field (blocks of next matched in prev). Nothing
 * outside src/motion/ and kernels/ knows which engine runs.
 *
 * Contract (shared/DESIGN.md):
 * - Blocks of `block` x `block` luma pixels on a grid from (0,0); the grid
 *   has ceil(w/block) x ceil(h/block) blocks; blocks on the right and bottom
 *   edge overhang into the replicated padding and are matched as they are.
 * - Candidates: every integer displacement (dx, dy) with |dx|,|dy| <= range
 *   (full search), or those the diamond search visits. The cost is the SAD
 *   over the whole block. The pyramid search (pyramid.c) is not bounded by
 *   the range: its candidates come from the coarser levels (and, at level
 *   0, from the previous pair's vectors when that pair ended at this pair's
 *   prev: frame serials; pyramid_level0.h), its costs add a
 *   smoothness penalty, and the SAD it stores is the plain SAD of the chosen
 *   vector over the block clipped to the picture (reads outside it clamped:
 *   the same values as the replicated padding, wherever the vector points).
 * - Ties: a candidate replaces the best only if it is strictly better under
 *   mv_better(): smaller SAD, then smaller |dx|+|dy|, then smaller dy, then
 *   smaller dx. Same rule in C, SIMD and CUDA, so every engine and thread
 *   count gives the same fields bit for bit.
 */
#ifndef OMCTI_MOTION_ENGINE_H
#define OMCTI_MOTION_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "omcti.h"
#include "src/active_area.h"
#include "src/common.h"
#include "src/device.h"
#include "src/frame.h"

typedef struct MotionVector {
    int16_t x, y;      /* full-pel displacement                          */
} MotionVector;

typedef struct MotionField {
    int bw, bh;        /* blocks per row and column                      */
    int block;         /* block size in luma pixels                      */
    MotionVector *mv;  /* bw*bh, raster order                            */
    uint32_t *sad;     /* bw*bh, SAD of the chosen vector                */
} MotionField;

typedef struct MotionFields {
    MotionField fwd;   /* block of prev at B matches next at B+mv        */
    MotionField bwd;   /* block of next at B matches prev at B+mv        */
    uint64_t abs_diffs;/* absolute differences computed for this pair    */
} MotionFields;

typedef struct MotionParams {
    int width, height; /* luma size                                      */
    int block;         /* 8, 16, 32                                      */
    int range;         /* 1..64                                          */
    OmctiSearch search;
    int threads;       /* CPU threads, >= 1                              */
    int device;        /* device index (an engine with a device type)    */
    /* The context's open device of the engine's type, shared with the
     * filter; NULL: an engine with a device type opens its own. */
    Device *dev;
} MotionParams;

typedef struct MotionEngine MotionEngine; /* engine-private state */

typedef struct MotionEngineVTable {
    const char *name;
    /* The device the engine runs on (NULL: the CPU): the context opens it
     * and hands it to the engine and to the filter (src/device.h). */
    const DeviceType *device;
    int (*available)(char *err, size_t errlen);
    /* Optional: how many devices it can use (NULL: one). */
    int (*devices)(void);
    int (*create)(MotionEngine **e, const MotionParams *p, char *err, size_t errlen);
    /* prev and next are padded by at least range + block pixels. */
    int (*estimate)(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                    MotionFields *out, char *err, size_t errlen);
    void (*destroy)(MotionEngine **e);
} MotionEngineVTable;

static inline int mv_better(uint32_t sad, int dx, int dy,
                            uint32_t best_sad, int bdx, int bdy)
{
    if (sad != best_sad) return sad < best_sad;
    int n = abs_i(dx) + abs_i(dy), bn = abs_i(bdx) + abs_i(bdy);
    if (n != bn) return n < bn;
    if (dy != bdy) return dy < bdy;
    return dx < bdx;
}

int  motion_fields_alloc(MotionFields *f, int width, int height, int block);
void motion_fields_free(MotionFields *f);

/* Whether block (bx, by) of size bs lies inside the active area a of a
 * width x height picture (the blocks that vote for the camera vector, and
 * for the filters' camera model). */
int motion_block_active(const ActiveArea *a, int width, int height, int bs, int bx, int by);

/* The pair's camera vector (full pel; docs/quality.md, issue 16, step 4):
 * the most frequent vector of the forward field among the blocks that lie
 * inside the pair's active area (letterbox bars do not move with the
 * camera; all blocks when none lies inside), a tie to the smaller packed
 * key (y + 32768) << 16 | (x + 32768); zero where fewer than 1/8 of those
 * blocks lie within a pel of it (docs/quality.md, "a camera vector few
 * blocks agree on"). keys: scratch for
 * MOTION_CAMERA_KEYS(nb) keys; fields without nb blocks (or none): zero. */
#define MOTION_CAMERA_KEYS(nb) (2 * (size_t)(nb))
MotionVector motion_camera_vector(const MotionFields *fields, const ActiveArea *area, int width,
                                  int height, int nb, uint32_t *keys);

/* Engine registry: "cpu", "cuda"; "auto" picks cuda when usable. */
const MotionEngineVTable *motion_engine_find(const char *name, char *err, size_t errlen);

extern const MotionEngineVTable motion_engine_cpu;
#if OMCTI_HAVE_CUDA
extern const MotionEngineVTable motion_engine_cuda;
#endif

/* Padding a frame needs for this search (range + block, rounded). */
int motion_required_pad(int block, int range);

#endif

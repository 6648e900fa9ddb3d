/* Block-matching search steps (x264 style: small named steps over one
 * shared cost function), used by the CPU engine.
 *
 * Every step picks its result with mv_better() (engine.h), a total order on
 * (SAD, |dx|+|dy|, dy, dx), so the result depends neither on the order in
 * which candidates are evaluated nor on the SIMD level or thread count. */
#ifndef OMCTI_MOTION_SEARCH_H
#define OMCTI_MOTION_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "src/motion/engine.h"
#include "src/motion/sad.h"

/* Per-thread search state: allocated once (me_search_init), reused for
 * every block, never allocated per block or per frame. Aligned to a cache
 * line: diamond search bumps `stamp` per block, and with two threads' states
 * sharing a line that write made both threads run at half speed. */
typedef struct MeSearch {
    _Alignas(64) const SadDSP *dsp;
    int block;            /* 8, 16, 32                                    */
    int size_index;       /* sad_size_index(block)                        */
    int range;            /* +-range                                      */
    int side;             /* 2 * range + 1                                */
    uint32_t *costs;      /* side^2 SADs of the window (full search)      */
    uint32_t *visited;    /* side^2 stamps: == stamp when evaluated for
                             the current block (diamond search); a stamp
                             per block avoids clearing a bitmap per block */
    uint32_t stamp;
    uint32_t *tie_rank;   /* side^2: rank of each candidate under the tie
                             rule of mv_better() at equal SAD (0 first)   */
    uint32_t *rank_pos;   /* side^2: the window index of each rank        */
} MeSearch;

typedef struct MeResult {
    MotionVector mv;
    uint32_t sad;
    uint32_t evaluated;   /* candidates whose SAD was computed            */
} MeResult;

int  me_search_init(MeSearch *s, const SadDSP *dsp, int block, int range);
void me_search_free(MeSearch *s);

/* cur: top-left pixel of the block; ref: the same position in the other
 * frame. Candidates ref + dy * rs + dx must be readable (padded frames). */

/* Every integer displacement with |dx|, |dy| <= range. */
void me_full_search(MeSearch *s, const uint8_t *cur, ptrdiff_t cs,
                    const uint8_t *ref, ptrdiff_t rs, MeResult *res);

/* Zhu & Ma diamond search from (0,0): the large diamond (LDSP, 9 points)
 * until its best point is the centre, then the small diamond (SDSP, 5
 * points) once; points outside the window are skipped, and no point is
 * evaluated twice for a block. */
void me_diamond_search(MeSearch *s, const uint8_t *cur, ptrdiff_t cs,
                       const uint8_t *ref, ptrdiff_t rs, MeResult *res);

/* The SAD level a CPU engine runs with (the CPU flags mask, src/cpu.h,
 * caps it). */
int cpu_engine_sad_level(const MotionEngine *e);

#endif

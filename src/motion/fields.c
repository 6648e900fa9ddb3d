#include <string.h>

#include "src/common.h"
#include "src/motion/engine.h"

static int field_alloc(MotionField *f, int width, int height, int block)
{
    f->block = block;
    f->bw = (width + block - 1) / block;
    f->bh = (height + block - 1) / block;
    size_t n = (size_t)f->bw * f->bh;
    f->mv = aligned_calloc(n * sizeof *f->mv);
    f->sad = aligned_calloc(n * sizeof *f->sad);
    return f->mv && f->sad ? 0 : -1;
}

int motion_fields_alloc(MotionFields *f, int width, int height, int block)
{
    memset(f, 0, sizeof *f);
    if (field_alloc(&f->fwd, width, height, block) < 0 ||
        field_alloc(&f->bwd, width, height, block) < 0) {
        motion_fields_free(f);
        return -1;
    }
    return 0;
}

void motion_fields_free(MotionFields *f)
{
    aligned_free(f->fwd.mv);
    aligned_free(f->fwd.sad);
    aligned_free(f->bwd.mv);
    aligned_free(f->bwd.sad);
    memset(f, 0, sizeof *f);
}

int motion_required_pad(int block, int range)
{
    /* A block on the last grid column starts at most at width-1 and spans
     * block pixels; its candidates reach range further. */
    return ALIGN_UP(range + block, 32);
}

#include <stdlib.h>
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

/* a[0..n) in ascending order (n >= 1), a least-significant-byte-first radix sort
 * through b (n entries); returns the one of the two that holds the result.
 * A byte that every key shares is skipped: the keys of small vectors agree
 * in their high bytes. Linear, and no allocation per pair: qsort() here
 * took 0.7 ms of a 1080p pair's serial part (docs/benchmarks.md). */
static uint32_t *radix_sort(uint32_t *a, uint32_t *b, int n)
{
    for (int shift = 0; shift < 32; shift += 8) {
        uint32_t at[256] = { 0 };
        for (int i = 0; i < n; i++)
            at[a[i] >> shift & 255]++;
        if (at[a[0] >> shift & 255] == (uint32_t)n)
            continue;
        uint32_t sum = 0;
        for (int d = 0; d < 256; d++) {
            const uint32_t c = at[d];
            at[d] = sum;
            sum += c;
        }
        for (int i = 0; i < n; i++)
            b[at[a[i] >> shift & 255]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    return a;
}

int motion_block_active(const ActiveArea *a, int width, int height, int bs, int bx, int by)
{
    return bx * bs >= a->left && (bx + 1) * bs <= width - a->right && by * bs >= a->top &&
           (by + 1) * bs <= height - a->bottom;
}

MotionVector motion_camera_vector(const MotionFields *fields, const ActiveArea *area, int width,
                                  int height, int nb, uint32_t *keys)
{
    MotionVector g = { 0, 0 };
    if (!fields || nb <= 0 || fields->fwd.bw * fields->fwd.bh != nb)
        return g;
    const MotionField *f = &fields->fwd;
    const MotionVector *mv = f->mv;
    int n = 0;
    for (int pass = 0; pass < 2 && !n; pass++)
        for (int k = 0; k < nb; k++)
            if (pass || motion_block_active(area, width, height, f->block, k % f->bw, k / f->bw))
                keys[n++] = (uint32_t)(uint16_t)(mv[k].y + 32768) << 16 |
                            (uint16_t)(mv[k].x + 32768);
    const uint32_t *sorted = radix_sort(keys, keys + nb, n);
    /* the longest run of equal keys; the first (smallest) on a tie */
    int best = 0, run = 0;
    uint32_t bk = sorted[0];
    for (int k = 0; k < n; k++) {
        run = k && sorted[k] == sorted[k - 1] ? run + 1 : 1;
        if (run > best) {
            best = run;
            bk = sorted[k];
        }
    }
    const int mx = (int)(bk & 0xffff) - 32768, my = (int)(bk >> 16) - 32768;
    /* A mode that few blocks agree on is no motion of the camera: where
     * most of the picture is flat or noisy (a plain wall, a dark scene),
     * the field's vectors there are what the coarse levels' noise left,
     * and the most frequent of them (under a tenth of the blocks) steered the
     * vector choice towards it (a signer's head drawn again 30 pixels
     * above itself at the picture's top: docs/quality.md, "a camera
     * vector few blocks agree on"). Fewer than 1/8 of the voting blocks
     * within a pel of the mode: a still camera. */
    int near = 0;
    for (int k = 0; k < n; k++) {
        const int x = (int)(sorted[k] & 0xffff) - 32768, y = (int)(sorted[k] >> 16) - 32768;
        near += x - mx <= 1 && mx - x <= 1 && y - my <= 1 && my - y <= 1;
    }
    if (8 * near < n)
        return g;
    g.x = (int16_t)mx;
    g.y = (int16_t)my;
    return g;
}

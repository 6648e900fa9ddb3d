/* checkasm-style test: every SAD variant the CPU supports against the C
 * reference, on random blocks, strides, grid shapes and offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpu.h"
#include "src/motion/sad.h"

/* Small deterministic generator (xorshift), so failures reproduce. */
static uint32_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static void fill(uint8_t *p, size_t n, uint64_t *s, int mode)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rng_next(s);
        /* mode 0: uniform noise; 1: extremes 0/255 (max SAD, overflow of
         * narrow sums); 2: a smooth ramp with small noise (realistic). */
        p[i] = mode == 0 ? (uint8_t)r : mode == 1 ? ((r & 1) ? 255 : 0)
                                                  : (uint8_t)((i * 7 / 64 + (r & 7)) & 255);
    }
}

int main(void)
{
    const int cpu = cpu_level_of(cpu_detect_flags());
    const int sizes[3] = { 8, 16, 32 };
    SadDSP ref_dsp;
    omcti_set_cpu_flags_mask(cpu_level_flags(CPU_LEVEL_C));
        sad_dsp_init(&ref_dsp);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int failures = 0;

    /* Buffers: the reference area is allocated exactly to the bytes a
     * grid may read, at the end of the allocation, so that an over-read
     * shows up under valgrind/ASan. */
    const size_t cur_size = 32 * 200;
    uint8_t *cur = malloc(cur_size);
    uint32_t *out_ref = malloc(sizeof(uint32_t) * 160 * 160);
    uint32_t *out_opt = malloc(sizeof(uint32_t) * 160 * 160);
    if (!cur || !out_ref || !out_opt)
        return 1;

    for (int level = CPU_LEVEL_SSE2; level <= CPU_LEVEL_MAX; level++) {
        if (level > cpu) {
            printf("SKIP sad %-6s (not supported by this CPU)\n", cpu_level_name(level));
            continue;
        }
        SadDSP dsp;
        omcti_set_cpu_flags_mask(cpu_level_flags(level));
        sad_dsp_init(&dsp);
        if (dsp.level != level) {
            printf("FAIL sad %-6s: init gave level %d\n", cpu_level_name(level), dsp.level);
            failures++;
            continue;
        }
        for (int si = 0; si < 3; si++) {
            const int bw = sizes[si];
            int bad_single = 0, bad_x4 = 0, bad_grid = 0, checks = 0;
            for (int iter = 0; iter < 300; iter++) {
                const int mode = iter % 3;
                /* Strides: small odd ones, and frame-like ones. */
                const ptrdiff_t cs = bw + (ptrdiff_t)(rng_next(&seed) % 70);
                const int nx = 1 + (int)(rng_next(&seed) % (iter < 150 ? 40 : 140));
                const int ny = 1 + (int)(rng_next(&seed) % (iter < 150 ? 12 : 140));
                const ptrdiff_t rs = nx + bw - 1 + (ptrdiff_t)(rng_next(&seed) % 50);
                const size_t ref_bytes = (size_t)(ny + bw - 2) * rs + (size_t)(nx + bw - 1);
                uint8_t *ref = malloc(ref_bytes);
                if (!ref)
                    return 1;
                fill(cur, cur_size, &seed, mode);
                fill(ref, ref_bytes, &seed, mode);

                /* Single-block SAD at a few random positions. */
                for (int k = 0; k < 8; k++) {
                    const int x = (int)(rng_next(&seed) % (uint32_t)nx);
                    const int y = (int)(rng_next(&seed) % (uint32_t)ny);
                    const uint8_t *b = ref + y * rs + x;
                    if (dsp.sad[si](cur, cs, b, rs) != ref_dsp.sad[si](cur, cs, b, rs))
                        bad_single++;
                }
                /* Four candidates at once, against the reference one by one. */
                for (int k = 0; k < 4; k++) {
                    ptrdiff_t off[4];
                    uint32_t got[4], want[4];
                    for (int q = 0; q < 4; q++)
                        off[q] = (ptrdiff_t)(rng_next(&seed) % (uint32_t)ny) * rs +
                                 (ptrdiff_t)(rng_next(&seed) % (uint32_t)nx);
                    dsp.x4[si](cur, cs, ref, rs, off, got);
                    ref_dsp.x4[si](cur, cs, ref, rs, off, want);
                    for (int q = 0; q < 4; q++)
                        bad_x4 += got[q] != want[q] ||
                                  want[q] != ref_dsp.sad[si](cur, cs, ref + off[q], rs);
                }
                ref_dsp.grid[si](cur, cs, ref, rs, nx, ny, out_ref, nx + 3);
                dsp.grid[si](cur, cs, ref, rs, nx, ny, out_opt, nx + 3);
                for (int y = 0; y < ny; y++)
                    for (int x = 0; x < nx; x++)
                        if (out_ref[y * (nx + 3) + x] != out_opt[y * (nx + 3) + x]) {
                            if (!bad_grid)
                                printf("  mismatch %dx%d level %s nx=%d ny=%d at (%d,%d): %u != %u\n",
                                       bw, bw, cpu_level_name(level), nx, ny, x, y,
                                       out_opt[y * (nx + 3) + x], out_ref[y * (nx + 3) + x]);
                            bad_grid++;
                        }
                checks++;
                free(ref);
            }
            const int ok = !bad_single && !bad_x4 && !bad_grid;
            printf("%s sad %-6s %2dx%-2d single+x4+grid, %d random cases (%d single, %d x4, %d grid "
                   "mismatches)\n", ok ? "PASS" : "FAIL", cpu_level_name(level), bw, bw, checks,
                   bad_single, bad_x4, bad_grid);
            failures += !ok;
        }
    }

    /* The check itself must be able to fail: a corrupted output is caught. */
    {
        SadDSP dsp;
        omcti_set_cpu_flags_mask(cpu_level_flags(CPU_LEVEL_MAX));
        sad_dsp_init(&dsp);
        uint8_t blk[64 * 64];
        fill(blk, sizeof blk, &seed, 0);
        dsp.grid[1](blk, 64, blk, 64, 5, 5, out_opt, 5);
        ref_dsp.grid[1](blk, 64, blk, 64, 5, 5, out_ref, 5);
        out_opt[7] ^= 1;
        const int caught = memcmp(out_opt, out_ref, 25 * sizeof(uint32_t)) != 0 && out_ref[0] == 0;
        printf("%s sad self-check (a flipped result is detected, zero SAD at offset 0)\n",
               caught ? "PASS" : "FAIL");
        failures += !caught;
    }

    free(cur);
    free(out_ref);
    free(out_opt);
    printf("%s: %d failure(s); cpu level %s\n", failures ? "FAIL" : "PASS", failures,
           cpu_level_name(cpu));
    return failures ? 1 : 0;
}

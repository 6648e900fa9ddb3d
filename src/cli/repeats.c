/* Repeated pictures in a regular pattern (repeats.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/repeats.h"

int repeats_add(RepeatScan *s, const OmctiPicture *pic)
{
    if (s->pictures > REPEATS_PAIRS || s->pictures < 0)
        return 0;
    const int sw = (pic->width + 1) / 2, sh = (pic->height + 1) / 2;
    if (!s->prev) {
        if (!(s->prev = malloc((size_t)sw * (size_t)sh))) {
            s->pictures = -1;
            return -1;
        }
        s->sw = sw;
        s->sh = sh;
    }
    uint64_t sum = 0;
    for (int y = 0; y < sh; y++) {
        const uint8_t *p = pic->data[0] + (ptrdiff_t)(2 * y) * pic->stride[0];
        uint8_t *q = s->prev + (size_t)y * (size_t)sw;
        uint32_t row = 0;   /* 255 x sw < 2^32 for any width */
        for (int x = 0; x < sw; x++) {
            const int v = p[2 * x];
            row += (uint32_t)abs(v - q[x]);
            q[x] = (uint8_t)v;
        }
        sum += row;
    }
    if (s->pictures > 0)
        s->diff[s->pictures - 1] = (uint32_t)(sum * 256 / ((uint64_t)sw * (uint64_t)sh));
    s->pictures++;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int repeats_period(const uint32_t *d, int n)
{
    if (n < 10 || n > REPEATS_PAIRS)
        return 0;
    uint32_t sorted[REPEATS_PAIRS];
    memcpy(sorted, d, (size_t)n * sizeof *d);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_u32);
    const uint32_t med = sorted[n / 2];
    if (med < 256)                  /* little changes: repeats say nothing */
        return 0;
    /* The repeats of a compressed file differ by its coding noise: 0.1 to
     * 0.6 grey level where the other pairs differ by 6 to 12 (a film at
     * 24 fps stored at 30, docs/quality.md). */
    int at[REPEATS_PAIRS], r = 0;
    for (int i = 0; i < n; i++)
        if ((uint64_t)d[i] * 8 <= med && d[i] <= 512)
            at[r++] = i;
    if (r < 3)
        return 0;
    int count[REPEATS_PAIRS + 1] = { 0 };
    for (int j = 1; j < r; j++)
        count[at[j] - at[j - 1]]++;
    int p = 0;
    for (int g = 2; g <= 10; g++)
        if (count[g] > count[p])
            p = g;
    if (!p || count[p] < 2 || 4 * count[p] < 3 * (r - 1) || r < n / p - 1)
        return 0;
    return p;
}

void repeats_note(const RepeatScan *s, const char *name, Rational fps)
{
    const int p = repeats_period(s->diff, s->pictures - 1);
    if (!p)
        return;
    const double in = rational_to_double(fps), motion = in * (p - 1) / p;
    fprintf(stderr, "omcti: note: '%s' repeats every %d%s picture (%.3f fps of motion in "
            "a %.3f fps file), so the output holds still there too; for smooth motion drop "
            "the repeats first (e.g. ffmpeg -vf decimate=cycle=%d) and convert that\n",
            name, p, p == 2 ? "nd" : p == 3 ? "rd" : "th", motion, in, p);
}

void repeats_free(RepeatScan *s)
{
    free(s->prev);
    s->prev = NULL;
}

/* Repeated pictures in a regular pattern (repeats.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/repeats.h"

int repeats_add(RepeatScan *s, const OmctiPicture *pic)
{
    if (s->done)
        return 0;
    if (!s->prev) {
        /* every step-th sample of every step-th row, a grid at most about
         * 960 wide: the same work per picture at any size */
        s->step = pic->width > 1920 ? (pic->width + 959) / 960 : 2;
        s->sw = (pic->width + s->step - 1) / s->step;
        s->sh = (pic->height + s->step - 1) / s->step;
        if (!(s->prev = malloc((size_t)s->sw * (size_t)s->sh))) {
            s->done = 1;
            return -1;
        }
    }
    uint64_t sum = 0, fsum[2] = { 0, 0 };
    int frows[2] = { 0, 0 };
    for (int y = 0; y < s->sh; y++) {
        /* rows of both fields (an even step: every other sampled row one
         * further down; an odd one alternates already): a telecined film's
         * picture that repeats one field of the one before and brings the
         * other new is no repeat */
        const int shift = !(s->step & 1) && (y & 1) && s->step * y + 1 < pic->height;
        const int line = s->step * y + shift;
        const uint8_t *p = pic->data[0] + (ptrdiff_t)line * pic->stride[0];
        uint8_t *q = s->prev + (size_t)y * (size_t)s->sw;
        uint32_t row = 0;   /* 255 x sw < 2^32 for any width */
        for (int x = 0; x < s->sw; x++) {
            const int v = p[s->step * x];
            row += (uint32_t)abs(v - q[x]);
            q[x] = (uint8_t)v;
        }
        sum += row;
        fsum[line & 1] += row;
        frows[line & 1]++;
    }
    if (!s->pictures++)
        return 0;
    const uint32_t d = (uint32_t)(sum * 256 / ((uint64_t)s->sw * (uint64_t)s->sh));
    for (int k = 0; k < 2; k++)   /* (a picture of one row has one field) */
        s->field[k][s->n] = frows[k] ? (uint32_t)(fsum[k] * 256 / ((uint64_t)s->sw *
                                                                  (uint64_t)frows[k]))
                                     : d;
    /* A still opening (a title, black) says nothing: the window starts at
     * the first pair that moves by a grey level. */
    if (!s->n && d < 256 && s->pictures <= REPEATS_LEAD_MAX)
        return 0;
    s->diff[s->n++] = d;
    s->done = s->n == REPEATS_PAIRS || s->pictures > REPEATS_LEAD_MAX + REPEATS_PAIRS;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The median of d[a, b). */
static uint32_t median(const uint32_t *d, int a, int b)
{
    uint32_t v[REPEATS_PAIRS];
    memcpy(v, d + a, (size_t)(b - a) * sizeof *d);
    qsort(v, (size_t)(b - a), sizeof *v, cmp_u32);
    return v[(b - a) / 2];
}

/* The median of the 11 pairs around pair i of d[0, n): a repeat's coding
 * noise is measured against the motion near it, which speeds up and slows
 * down within a few seconds. */
static uint32_t around(const uint32_t *d, int n, int i)
{
    return median(d, i < 5 ? 0 : i - 5, i + 6 > n ? n : i + 6);
}

int repeats_period(const uint32_t *d, int n)
{
    if (n < 10 || n > REPEATS_PAIRS)
        return 0;
    if (median(d, 0, n) < 256)      /* little changes: repeats say nothing */
        return 0;
    /* A repeat differs from its picture by the file's coding noise: from
     * 1/30 to 1/4 of the pairs around it in the clips measured (docs/cli.md,
     * "Repeated pictures"); around it, because motion speeds up and slows
     * down within a few seconds. */
    int at[REPEATS_PAIRS], r = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t m = around(d, n, i);
        /* (a still shot's pairs, whose neighbours do not move either, are
         * no repeats: a third of nothing) */
        if (m >= 256 && (uint64_t)d[i] * 3 <= m && d[i] <= 512)
            at[r++] = i;
    }
    if (r < 3)
        return 0;
    int count[REPEATS_PAIRS + 1] = { 0 };
    for (int j = 1; j < r; j++)
        count[at[j] - at[j - 1]]++;
    int p = 0;
    for (int g = 2; g <= 10; g++)
        if (count[g] > count[p])
            p = g;
    /* A telecined film is regular but for its edits, and a repeat that
     * its noise hides leaves a gap of 2P; repeats at uneven distances (a
     * capture that stalls now and then) are not a period, nor are a few
     * at one end of the window. */
    int regular = 0;
    for (int j = 1; p && j < r; j++) {
        const int g = at[j] - at[j - 1];
        regular += g % p == 0 && g <= 3 * p;
    }
    if (!p || count[p] < 2 || 8 * regular < 7 * (r - 1) || 2 * p * r < n || at[0] >= 2 * p ||
        n - 1 - at[r - 1] >= 2 * p)
        return 0;
    return p;
}

int repeats_telecine(const uint32_t *d, const uint32_t *f0, const uint32_t *f1, int n)
{
    if (n < 20 || n > REPEATS_PAIRS || median(d, 0, n) < 256)
        return 0;
    int at[REPEATS_PAIRS], r = 0, count[5] = { 0 };
    for (int i = 0; i < n; i++) {
        const uint32_t m = around(d, n, i), f = f0[i] < f1[i] ? f0[i] : f1[i];
        if (m >= 256 && (uint64_t)f * 3 <= m && f <= 512 && (uint64_t)d[i] * 3 > m) {
            at[r++] = i;
            count[i % 5]++;
        }
    }
    /* the cycle's two field repeats: pairs k and k + 2 of each 5 (AA BB BC
     * CD DD: BB-BC repeats the top field, CD-DD the bottom one) */
    int best = 0, k = 0;
    for (int j = 0; j < 5; j++)
        if (count[j] + count[(j + 2) % 5] > best) {
            best = count[j] + count[(j + 2) % 5];
            k = j;
        }
    const int cycles = n / 5;
    return r >= 4 && 8 * best >= 7 * r && 2 * count[k] >= cycles &&
           2 * count[(k + 2) % 5] >= cycles && at[0] < 10 && at[r - 1] >= n - 10;
}

void repeats_telecine_text(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "omcti: note: '%s' looks telecined (3:2 pulldown: a film at 24 fps "
             "stored as fields, two pictures in every five mixing two of its pictures), so "
             "its mixed pictures and its judder carry into the output; for smooth motion "
             "rebuild the film first (e.g. ffmpeg -vf fieldmatch,decimate) and convert that",
             name);
}

void repeats_note_text(char *buf, size_t size, const char *name, Rational fps, int p)
{
    const double in = rational_to_double(fps), motion = in * (p - 1) / p;
    snprintf(buf, size, "omcti: note: '%s' repeats every %d%s picture (%.3f fps of motion in "
             "a %.3f fps file), so the output holds still there too; for smooth motion drop "
             "the repeats first (e.g. ffmpeg -vf decimate=cycle=%d) and convert that",
             name, p, p == 2 ? "nd" : p == 3 ? "rd" : "th", motion, in, p);
}

void repeats_note(const RepeatScan *s, const char *name, Rational fps)
{
    const int p = repeats_period(s->diff, s->n);
    char line[2048];
    if (p)
        repeats_note_text(line, sizeof line, name, fps, p);
    else if (repeats_telecine(s->diff, s->field[0], s->field[1], s->n))
        repeats_telecine_text(line, sizeof line, name);
    else
        return;
    fprintf(stderr, "%s\n", line);
}

void repeats_free(RepeatScan *s)
{
    free(s->prev);
    s->prev = NULL;
}

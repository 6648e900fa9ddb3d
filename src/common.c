#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common.h"

void str_elide_middle(char *dst, size_t size, const char *src, size_t n)
{
    if (!size)
        return;
    if (n < size || size < 64) {
        const size_t m = n < size ? n : size - 1;
        memmove(dst, src, m);
        dst[m] = 0;
        return;
    }
    /* The cuts fall between characters: a UTF-8 continuation byte (10xxxxxx)
     * belongs to the character before it. */
    size_t head = size - 1 - size / 2 - 3, tail = n - size / 2;
    while (head > 0 && ((unsigned char)src[head] & 0xc0) == 0x80)
        head--;
    while (tail < n && ((unsigned char)src[tail] & 0xc0) == 0x80)
        tail++;
    memmove(dst, src, head);
    memcpy(dst + head, "...", 3);
    memmove(dst + head + 3, src + tail, n - tail);
    dst[head + 3 + n - tail] = 0;
}

int set_error(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (!err || !errlen)
        return code;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const int n = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* Too long (a path of thousands of bytes): the middle gives way, so
     * that the end, which says why, is kept. */
    char *full = n > 0 && (size_t)n >= errlen && errlen >= 64 ? malloc((size_t)n + 1) : NULL;
    if (full && vsnprintf(full, (size_t)n + 1, fmt, again) == n)
        str_elide_middle(err, errlen, full, (size_t)n);
    free(full);
    va_end(again);
    return code;
}

void *aligned_calloc(size_t size)
{
    void *p = NULL;
    if (!size) size = 1;
    if (posix_memalign(&p, 64, ALIGN_UP(size, 64)))
        return NULL;
    memset(p, 0, ALIGN_UP(size, 64));
    return p;
}

void aligned_free(void *p)
{
    free(p);
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

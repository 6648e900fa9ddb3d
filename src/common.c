#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common.h"

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
    if (full && vsnprintf(full, (size_t)n + 1, fmt, again) == n) {
        const size_t tail = errlen / 2, head = errlen - 1 - tail - 3;
        memcpy(err + head, "...", 3);
        memcpy(err + head + 3, full + (size_t)n - tail, tail);
        err[errlen - 1] = 0;
    }
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

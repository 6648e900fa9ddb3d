#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common.h"

int set_error(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
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

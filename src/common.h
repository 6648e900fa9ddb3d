/* Small helpers shared by every part of the library. */
#ifndef OMCTI_COMMON_H
#define OMCTI_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static inline int abs_i(int v) { return v < 0 ? -v : v; }
static inline int min_i(int a, int b) { return a < b ? a : b; }
static inline int max_i(int a, int b) { return a > b ? a : b; }
static inline int clamp_i(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* src (n bytes) into dst (size bytes, terminated): whole when it fits,
 * else its start and its end with "..." between, cut between UTF-8
 * characters (dst may be src). */
void str_elide_middle(char *dst, size_t size, const char *src, size_t n);

/* Writes a formatted one-line message into err (if err != NULL) and
 * returns code, so that `return set_error(err, n, OMCTI_ERR_X, "...")`. */
int set_error(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Aligned allocation (64 bytes); free with aligned_free. Zeroed. */
void *aligned_calloc(size_t size);
void  aligned_free(void *p);

/* Monotonic clock in seconds. */
double now_seconds(void);

#endif

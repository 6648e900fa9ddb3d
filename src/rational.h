/* Exact rational arithmetic for frame rates and timestamps. */
#ifndef OMCTI_RATIONAL_H
#define OMCTI_RATIONAL_H

#include <stdint.h>

typedef struct Rational {
    int64_t num, den;
} Rational;

Rational rational_make(int64_t num, int64_t den);   /* reduced, den > 0 */
Rational rational_mul(Rational a, Rational b);
Rational rational_div(Rational a, Rational b);
int      rational_cmp(Rational a, Rational b);
double   rational_to_double(Rational a);
/* A rate as messages give it: "24", "29.970". Returns buf. */
const char *rational_text(Rational a, char *buf, unsigned size);

/* Parses "60", "59.94", "60000/1001", "30000:1001". Returns 0 on success,
 * -1 when the text is not a positive finite rate. */
int rational_parse(const char *s, Rational *out);

/* floor(a * b / c) without overflow for the ranges used (|a*b| < 2^126). */
int64_t muldiv_floor(int64_t a, int64_t b, int64_t c);

#endif

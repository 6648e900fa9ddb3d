#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/rational.h"

static int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

Rational rational_make(int64_t num, int64_t den)
{
    Rational r = { num, den };
    if (den == 0) return (Rational){ 0, 0 };
    if (den < 0) { r.num = -num; r.den = -den; }
    int64_t g = gcd64(r.num, r.den);
    if (g > 1) { r.num /= g; r.den /= g; }
    return r;
}

Rational rational_mul(Rational a, Rational b)
{
    /* Cross-reduce first so 60000/1001 * 2/1 style products never overflow. */
    int64_t g1 = gcd64(a.num, b.den), g2 = gcd64(b.num, a.den);
    if (!g1) g1 = 1;
    if (!g2) g2 = 1;
    return rational_make((a.num / g1) * (b.num / g2), (a.den / g2) * (b.den / g1));
}

Rational rational_div(Rational a, Rational b)
{
    return rational_mul(a, (Rational){ b.den, b.num });
}

int rational_cmp(Rational a, Rational b)
{
    __int128 l = (__int128)a.num * b.den, r = (__int128)b.num * a.den;
    return (l > r) - (l < r);
}

double rational_to_double(Rational a)
{
    return a.den ? (double)a.num / (double)a.den : 0.0;
}

const char *rational_text(Rational a, char *buf, unsigned size)
{
    if (a.den == 1)
        snprintf(buf, size, "%lld", (long long)a.num);
    else
        snprintf(buf, size, "%.3f", rational_to_double(a));
    return buf;
}

int64_t muldiv_floor(int64_t a, int64_t b, int64_t c)
{
    __int128 p = (__int128)a * b;
    __int128 q = p / c;
    if ((p % c != 0) && ((p < 0) != (c < 0))) q -= 1;
    return (int64_t)q;
}

int rational_parse(const char *s, Rational *out)
{
    if (!s || !*s) return -1;
    const char *sep = strpbrk(s, "/:");
    char *end;
    if (sep) {
        errno = 0;
        long long n = strtoll(s, &end, 10);
        if (end != sep || errno) return -1;
        long long d = strtoll(sep + 1, &end, 10);
        if (*end || errno || end == sep + 1) return -1;
        if (n <= 0 || d <= 0 || n > 1000000000LL || d > 1000000000LL) return -1;
        *out = rational_make(n, d);
        return 0;
    }
    /* Decimal: exact as a fraction of a power of ten, except the NTSC
     * family (23.976, 29.97, 59.94, 119.88), which everyone means as
     * N*1000/1001. */
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.') return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !(v > 0) || !isfinite(v) || v > 1e6) return -1;
    static const int ntsc[] = { 24, 30, 48, 60, 120, 240 };
    for (size_t i = 0; i < sizeof ntsc / sizeof ntsc[0]; i++) {
        double x = ntsc[i] * 1000.0 / 1001.0;
        if (fabs(v - x) < 0.006 && fabs(v - ntsc[i]) > 0.006 && strchr(s, '.')) {
            *out = rational_make(ntsc[i] * 1000LL, 1001);
            return 0;
        }
    }
    const char *dot = strchr(s, '.');
    int64_t den = 1;
    if (dot) {
        size_t decimals = strlen(dot + 1);
        if (decimals > 6) decimals = 6;
        for (size_t i = 0; i < decimals; i++) den *= 10;
    }
    *out = rational_make(llround(v * (double)den), den);
    return out->num > 0 ? 0 : -1;
}

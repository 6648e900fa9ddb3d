/* Settings: defaults, names and validation. Kept apart from the context so
 * the command-line parser (and its fuzzer) needs nothing else. */
#include <string.h>

#include "omcti.h"
#include "src/common.h"

static const char *const method_names[OMCTI_METHOD_COUNT] = {
    "omcti", "mcti", "blend", "repeat",
};
static const char *const search_names[OMCTI_SEARCH_COUNT] = {
    "full", "diamond", "pyramid",
};

const char *omcti_version(void)
{
    return OMCTI_VERSION_STRING;
}

void omcti_default_settings(OmctiSettings *s)
{
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->method = OMCTI_METHOD_OMCTI;
    /* Pyramid: finds motion of any size (a +-8 search at a top level at
     * most 128 wide reaches +-128 px at 1080p) where the windowed searches
     * find nothing beyond their range (docs/quality.md, issue 16). Full
     * search stays the exact reference and the benchmark's subject. */
    s->search = OMCTI_SEARCH_PYRAMID;
    s->engine = "auto";
    s->threads = 0;
    s->block = 16;
    s->range = 0;   /* auto: omcti_auto_range() */
    s->scd = OMCTI_SCD_AUTO;
    s->scd_threshold = 1.0;
    s->device = 0;
}

int omcti_method_from_name(const char *name)
{
    for (int i = 0; i < OMCTI_METHOD_COUNT; i++)
        if (name && !strcmp(name, method_names[i])) return i;
    return -1;
}

int omcti_search_from_name(const char *name)
{
    for (int i = 0; i < OMCTI_SEARCH_COUNT; i++)
        if (name && !strcmp(name, search_names[i])) return i;
    return -1;
}

const char *omcti_method_name(OmctiMethod m)
{
    return (unsigned)m < OMCTI_METHOD_COUNT ? method_names[m] : "?";
}

const char *omcti_search_name(OmctiSearch s)
{
    return (unsigned)s < OMCTI_SEARCH_COUNT ? search_names[s] : "?";
}

int omcti_auto_range(OmctiSearch search, int width)
{
    /* Motion in pixels grows with the picture: a pan of 24 pixels a frame,
     * ordinary in HD, is out of reach of +-16 (28.0 against 40.5 dB at +-32
     * on a 720p pan, docs/quality.md). Diamond search costs about the same
     * in a wider window; full search costs its square, and up to SD sizes
     * the wider window only adds outliers (signing 640x480: -0.14 dB). */
    return search == OMCTI_SEARCH_DIAMOND && width > 1024 ? 32 : 16;
}

int omcti_validate_settings(const OmctiSettings *s, char *err, size_t errlen)
{
    if (!s)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "no settings");
    if ((unsigned)s->method >= OMCTI_METHOD_COUNT)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "invalid method %d", (int)s->method);
    if ((unsigned)s->search >= OMCTI_SEARCH_COUNT)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "invalid search %d", (int)s->search);
    if (s->block != 8 && s->block != 16 && s->block != 32)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "block size %d is not supported (use 8, 16 or 32)", s->block);
    if (s->range < 0 || s->range > 64)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "search range %d is out of range (0 = auto, 1..64)", s->range);
    if (s->threads < 0 || s->threads > 1024)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "thread count %d is out of range (0 = all cores, up to 1024)", s->threads);
    if ((unsigned)s->scd > OMCTI_SCD_AUTO)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "invalid scene-cut mode %d", (int)s->scd);
    if (!(s->scd_threshold > 0) || s->scd_threshold > 1000)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "scene-cut threshold %g is out of range (> 0)", s->scd_threshold);
    const char *e = s->engine ? s->engine : "auto";
    if (strcmp(e, "auto") && strcmp(e, "cpu") && strcmp(e, "cuda"))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "unknown engine '%s' (choose auto, cpu or cuda)", e);
    if (s->device < 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "invalid device index %d", s->device);
    return 0;
}


/*
 * omcti — motion-compensated frame-rate up-conversion.
 *
 * The one public header. A context takes decoded 8-bit 4:2:0 pictures one at a
 * time; after the second, every new picture forms a pair (previous, current)
 * for which the motion engine has estimated bidirectional motion fields, and
 * omcti_interpolate() builds the picture at any phase between the two.
 *
 *     OmctiSettings s;
 *     omcti_default_settings(&s);
 *     OmctiContext *c;
 *     if (omcti_open(&c, &s, w, h, err, sizeof err) < 0) ...
 *     for each input picture p:
 *         omcti_send_picture(c, &p);               // runs motion estimation
 *         if (omcti_has_pair(c))
 *             omcti_interpolate(c, 1, 2, &mid);      // t = 1/2
 *     omcti_close(&c);
 */
#ifndef OMCTI_H
#define OMCTI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's exported functions (the shared library exports nothing
 * else). */
#if defined(OMCTI_BUILDING_LIB) && defined(__GNUC__)
#define OMCTI_API __attribute__((visibility("default")))
#else
#define OMCTI_API
#endif

#define OMCTI_VERSION_MAJOR 0
#define OMCTI_VERSION_MINOR 1
#define OMCTI_VERSION_PATCH 0

/* Error codes: every failing call returns one of these (negative). A
 * NULL context, settings, picture or context pointer is an argument like
 * any other: OMCTI_ERR_INVALID, never a crash (omcti_has_pair() and
 * omcti_pair_is_cut() give 0, omcti_engine_name() "none",
 * omcti_last_error() "no context", omcti_get_stats() zeroes *st;
 * omcti_close() and omcti_default_settings() do nothing). */
enum {
    OMCTI_OK            = 0,
    OMCTI_ERR_INVALID   = -1, /* invalid argument or setting            */
    OMCTI_ERR_NOMEM     = -2, /* allocation failed                      */
    OMCTI_ERR_ENGINE    = -3, /* motion engine unavailable or failed    */
    OMCTI_ERR_STATE     = -4, /* call out of order (e.g. no pair yet)   */
    OMCTI_ERR_IO        = -5, /* reading or writing a file failed       */
    OMCTI_ERR_FORMAT    = -6, /* unsupported or corrupt input           */
    OMCTI_ERR_INTERRUPT = -7, /* interrupted by the user                */
};

typedef enum OmctiMethod {
    OMCTI_METHOD_OMCTI = 0, /* overlapped 8x8 sub-block compensation    */
    OMCTI_METHOD_MCTI,      /* one vector per block, no overlap         */
    OMCTI_METHOD_BLEND,     /* (1-t)*prev + t*next                      */
    OMCTI_METHOD_REPEAT,    /* nearest original                         */
    OMCTI_METHOD_COUNT
} OmctiMethod;

typedef enum OmctiSearch {
    OMCTI_SEARCH_FULL = 0,  /* every integer displacement in the window */
    OMCTI_SEARCH_DIAMOND,   /* Zhu & Ma large/small diamond             */
    OMCTI_SEARCH_PYRAMID,   /* coarse to fine on a picture pyramid: any
                               motion size; range does not bound it     */
    OMCTI_SEARCH_COUNT
} OmctiSearch;

typedef enum OmctiSceneCut {
    OMCTI_SCD_NONE = 0,
    OMCTI_SCD_AUTO,
} OmctiSceneCut;

typedef struct OmctiSettings {
    OmctiMethod method;
    OmctiSearch search;
    const char *engine;     /* "auto", "cpu" or "cuda"                  */
    int threads;            /* CPU threads; 0 = all cores               */
    int block;              /* motion block size: 8, 16 or 32           */
    int range;              /* search range +-range, 1..64; 0 = auto    */
    OmctiSceneCut scd;      /* scene-cut fallback                       */
    double scd_threshold;   /* sensitivity of the scene-cut detector    */
    int device;             /* CUDA device index (cuda engine)          */
} OmctiSettings;

/* A picture in the working format: 8-bit 4:2:0, planes Y, U, V.
 * Chroma planes are ((width+1)/2) x ((height+1)/2). Each plane has data,
 * and its rows lie at least the plane's width apart (a negative stride:
 * data points at the top row of a picture stored bottom up). */
typedef struct OmctiPicture {
    uint8_t *data[3];
    ptrdiff_t stride[3];
    int width, height;
} OmctiPicture;

/* Accumulated counters of one context (for `omcti bench`). */
typedef struct OmctiStats {
    uint64_t pairs;          /* frame pairs estimated                   */
    uint64_t interpolated;   /* pictures built by omcti_interpolate()   */
    double me_seconds;       /* wall time in motion estimation          */
    double interp_seconds;   /* wall time in interpolation              */
    double upload_seconds;   /* wall time copying pictures in           */
    uint64_t abs_diffs;      /* absolute differences computed by search */
    uint64_t scene_cuts;     /* pairs handled by the scene-cut fallback */
} OmctiStats;

typedef struct OmctiContext OmctiContext;

OMCTI_API const char *omcti_version(void);

OMCTI_API void omcti_default_settings(OmctiSettings *s);

/* Names <-> enums; return -1 for an unknown name. */
OMCTI_API int omcti_method_from_name(const char *name);
OMCTI_API int omcti_search_from_name(const char *name);
OMCTI_API const char *omcti_method_name(OmctiMethod m);
OMCTI_API const char *omcti_search_name(OmctiSearch s);

/* The range that range = 0 stands for: 32 for diamond search on pictures
 * wider than 1024 pixels (HD motion), else 16. */
OMCTI_API int omcti_auto_range(OmctiSearch search, int width);

/* Checks settings without opening anything; on error writes a one-line
 * message into err. */
OMCTI_API int omcti_validate_settings(const OmctiSettings *s, char *err, size_t errlen);

/* The largest width and height omcti_open() takes. */
#define OMCTI_MAX_DIMENSION 16384

/* Creates a context for pictures of width x height, 1 to OMCTI_MAX_DIMENSION
 * each (OMCTI_ERR_INVALID otherwise). */
OMCTI_API int omcti_open(OmctiContext **ctx, const OmctiSettings *s, int width, int height,
               char *err, size_t errlen);

/* Copies the picture in; it becomes the current picture and the former
 * current becomes the previous one. Runs motion estimation for the pair.
 * The picture is numbered one after the previous one (the first: 0).
 * A picture refused for its size, its planes or its number changes
 * nothing. On any other
 * failure there is no pair (omcti_has_pair() returns 0) until a later
 * send succeeds; a picture whose pair failed may still be in the context,
 * and the next picture sent pairs with it. */
OMCTI_API int omcti_send_picture(OmctiContext *ctx, const OmctiPicture *pic);

/* omcti_send_picture() for a picture numbered by the caller: its position
 * in the whole video, in frames (0 .. 2^62). The motion search follows
 * objects from pair to pair and starts afresh whenever a pair's numbers
 * enclose a multiple of 8, so a conversion of part of a video (a segment)
 * that sends its first pictures with their numbers in the whole video
 * makes that part as the whole run does (omcti_segment_lead_in()). Numbers
 * should not decrease (equal numbers are allowed; a decrease restarts the
 * chain); a gap (a picture that did not decode) is allowed. */
OMCTI_API int omcti_send_picture_at(OmctiContext *ctx, const OmctiPicture *pic, int64_t number);

/* 1 when two pictures have been sent and the last send succeeded (a pair
 * exists), else 0. */
OMCTI_API int omcti_has_pair(const OmctiContext *ctx);

/* Builds the picture at phase t = num/den (0 <= t <= 1) between the
 * previous and the current picture into out (caller-owned planes of the
 * context's size). t = 0 and t = 1 return the originals bit-exactly.
 * OMCTI_ERR_STATE while there is no pair (omcti_has_pair()). */
OMCTI_API int omcti_interpolate(OmctiContext *ctx, int64_t num, int64_t den, OmctiPicture *out);

/* The engine that runs ("cpu", "cuda"), once open. */
OMCTI_API const char *omcti_engine_name(const OmctiContext *ctx);

/* Whether the pair was judged a scene cut (fallback used); 0 while there
 * is no pair. */
OMCTI_API int omcti_pair_is_cut(const OmctiContext *ctx);

OMCTI_API void omcti_get_stats(const OmctiContext *ctx, OmctiStats *st);

/* The message of the last failing call on this context. */
OMCTI_API const char *omcti_last_error(const OmctiContext *ctx);

OMCTI_API void omcti_close(OmctiContext **ctx);

/* CPUs this process may run on (its affinity mask: taskset, a Slurm or
 * container cpuset); what threads = 0 uses. */
OMCTI_API int omcti_cpu_count(void);

/* CPU features the optimised (SIMD) functions may use. */
enum {
    OMCTI_CPU_FLAG_SSE2       = 1 << 0,
    OMCTI_CPU_FLAG_AVX2       = 1 << 1,
    OMCTI_CPU_FLAG_AVX512     = 1 << 2, /* AVX-512 F, BW and VL          */
    OMCTI_CPU_FLAG_AVX512VBMI = 1 << 3,
};

/* Lets the library use only the CPU features in mask (default: all the
 * CPU has) in contexts opened afterwards. Process-wide, like dav1d's
 * dav1d_set_cpu_flags_mask(): for tests and benchmarks; every variant
 * gives the same output, so only the speed changes. */
OMCTI_API void omcti_set_cpu_flags_mask(unsigned mask);

/* Pictures before a frame range that a conversion of only that range must
 * send first (with omcti_send_picture_at() and their numbers in the whole
 * video), so that its output equals the whole video's there: the scene-cut
 * detector's bounded history, plus one, plus the motion search's history,
 * which goes back at most one period of its chain (docs/scale.md). The
 * "plus one" also absorbs one picture of the lead-in that did not decode;
 * with more lost there, the part may differ. */
OMCTI_API int omcti_segment_lead_in(void);

/* Whether an engine of that name can run here ("cpu", "cuda"): the number
 * of its devices (CUDA GPUs; 1 for cpu), 0 when it cannot; why not goes to
 * err. */
OMCTI_API int omcti_engine_available(const char *name, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* OMCTI_H */

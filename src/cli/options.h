/* Command-line parsing for `omcti [convert]`, shared number/list parsers for
 * the other subcommands. No globals: everything goes into CliOptions, so the
 * parser can be fuzzed and unit-tested. */
#ifndef OMCTI_CLI_OPTIONS_H
#define OMCTI_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "omcti.h"
#include "src/rational.h"

typedef enum RateMode {
    RATE_FACTOR = 0,   /* --factor N: N x the input rate                   */
    RATE_FPS,          /* --fps R: any output rate, same duration          */
    RATE_SLOWMO,       /* --slowmo N: N x the frames at the input rate     */
} RateMode;

/* The most in-process workers (--workers) and devices (--devices) of one
 * run: the size of the per-worker tables of convert.c. */
#define CLI_MAX_WORKERS 64

/* The most output frames per input frame: --factor and --slowmo go up to
 * it, and --fps may ask for at most this multiple of the input's rate
 * (checked once the input is open). More in-between pictures than this
 * from one pair is no longer interpolation, and a typo such as --fps
 * 999999999 would otherwise fill the disk. */
#define CLI_MAX_FACTOR 64
/* --fps may always reach this rate, whatever the input's (a slideshow) */
#define CLI_MIN_FPS_CAP 240

typedef struct CliOptions {
    const char *input, *output;
    RateMode mode;
    int factor;        /* RATE_FACTOR and RATE_SLOWMO                       */
    Rational fps;      /* RATE_FPS                                          */
    OmctiSettings settings;
    const char *codec;
    int crf;           /* -1 = default                                      */
    int lossless;
    int odd_size;      /* ODD_SIZE_* (src/io/io.h): pad, crop or fail       */
    int overwrite;
    int never_overwrite; /* -n (FFmpeg's): the default, said outright       */
    int quiet;
    double stats_period; /* --stats-period S: progress lines into a log    */
    int ffmpeg_log;    /* --ffmpeg-log: let FFmpeg's warnings through       */
    int64_t max_frames;/* input frames to read, -1 = all                    */
    int seg_index;     /* --segment I/N: I (0-based) ...                    */
    int seg_count;     /* ... and N; 0 = the whole video                    */
    const char *index_path; /* --index FILE: a saved frame index (farm)     */
    int workers;       /* --workers N: in-process segment workers, 0 = 1    */
    int devices[CLI_MAX_WORKERS]; /* --devices LIST                         */
    int n_devices;     /* 0 = not given                                     */
    int devices_all;   /* --devices all                                     */
    int help, version;
} CliOptions;

/* Parses argv[first..argc-1]. Returns 0, or a negative value with a one-line
 * message in err. */
int cli_parse_convert(int argc, char **argv, int first, CliOptions *o, char *err, size_t errlen);
/* The option that splits the run into pieces: "--segment", "--devices" or
 * "--workers" (the names messages give), or NULL for a single run. */
const char *cli_split_option(const CliOptions *o);

/* The value of -i or -o (opt), given once: a second one is refused, not
 * taken silently over the first (prev: the first, or NULL). omcti converts
 * one input into one output, where FFmpeg's CLI takes several. */
int cli_option_once(const char *opt, const char *prev, const char *v, char *err, size_t errlen);

/* "opt" names the option in messages. */
int parse_int(const char *opt, const char *val, int lo, int hi, int *out, char *err, size_t errlen);
int parse_int64(const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out,
                char *err, size_t errlen);
int parse_double(const char *opt, const char *val, double lo, double hi, double *out,
                 char *err, size_t errlen);
/* Comma-separated integers, e.g. "1,2,4" or a range "1-16"; at most max. */
int parse_int_list(const char *opt, const char *val, int lo, int hi, int *out, int max,
                   char *err, size_t errlen);

/* For option loops: matches "--name VALUE" and "--name=VALUE"; advances *i
 * past the value. Returns 1 on a match (with *val set), 0 when argv[*i] is
 * another option, -1 when the value is missing (message in err). */
int option_value(int argc, char **argv, int *i, const char *name, const char **val,
                 char *err, size_t errlen);

/* A missing input or output, in the one wording of every subcommand (sub:
 * "eval", "farm", ...; NULL for the conversion): "[SUB: ]no input given
 * (use -i INPUT)", "... no output given (use -o OUTPUT)". An empty name
 * (-i "") is none. Returns OMCTI_ERR_INVALID (exit 2). */
int cli_no_file(const char *sub, int output, char *err, size_t errlen);

/* Parses "I/N" (0 <= I < N <= 100000). */
int parse_segment(const char *opt, const char *val, int *i, int *n, char *err, size_t errlen);

extern const char cli_convert_usage[];
/* Every option cli_parse_convert() takes, NULL-terminated. */
extern const char *const cli_convert_options[];

/* Whether arg (its "=VALUE" left out) is one of names (NULL-terminated). */
int cli_option_known(const char *arg, const char *const *names);
/* For an unknown option: the one of names it was likely meant to be (a typo
 * within an edit or two, another case, the start of one name only, or
 * FFmpeg's spelling: "-r" for "--fps"), or NULL. */
const char *cli_suggest_option(const char *arg, const char *const *names);
/* "; did you mean 'NAME'?" in buf for the suggestion, or "" without one. */
const char *cli_did_you_mean(const char *arg, const char *const *names, char *buf, size_t len);

#endif

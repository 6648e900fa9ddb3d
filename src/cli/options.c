#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/common.h"
#include "src/cli/options.h"
#include "src/io/io.h"

const char cli_convert_usage[] =
"usage: omcti -i INPUT -o OUTPUT [options]\n"
"       omcti bench -i INPUT [options]     time motion estimation (omcti bench --help)\n"
"       omcti eval -i INPUT [options]      drop-and-rebuild quality test (omcti eval --help)\n"
"       omcti join -o OUTPUT PIECE...      join --segment pieces (omcti join --help)\n"
"       omcti farm -i IN -o OUT --segments N [options]   convert on a Slurm cluster\n"
"                                          (omcti farm --help)\n"
"\n"
"Motion-compensated frame-rate up-conversion. INPUT/OUTPUT: any file FFmpeg\n"
"reads/writes, a .y4m file, or '-' for a y4m stream on stdin/stdout.\n"
"\n"
"Rate (one of):\n"
"  --factor N          N x the frame rate, same duration (default 2)\n"
"  --fps RATE          any output rate, e.g. 60, 59.94, 60000/1001; at most\n"
"                      64 x the input's rate (as --factor and --slowmo), or\n"
"                      240 where that is more\n"
"  --slowmo N          N x the frames at the input's own rate (N x longer)\n"
"Interpolation:\n"
"  --method M          omcti (default) | mcti | blend | repeat\n"
"  --search S          pyramid (default: any motion size) | diamond | full\n"
"  --engine E          auto (default) | cpu | cuda\n"
"  --device N          CUDA device index (default 0)\n"
"  --devices all|LIST  spread the video over these CUDA devices of this host\n"
"                      (one worker per device, each its share; needs --engine cuda)\n"
"  --workers N         spread the video over N in-process workers (a share each),\n"
"                      1..64\n"
"  --threads N         CPU threads (default: the CPUs omcti may run on)\n"
"  --block N           motion block size: 8, 16 (default) or 32\n"
"  --range N           search range +-N pixels, 1..64 (default 16; 32 for\n"
"                      diamond search on pictures wider than 1024 pixels)\n"
"  --scd MODE          scene-cut fallback: auto (default) | none\n"
"  --scd-threshold X   scene-cut sensitivity (default 1.0; higher = fewer cuts)\n"
"Output:\n"
"  --codec NAME        encoder (default from the extension: libx264 for .mp4/.mkv/.mov)\n"
"  --crf N             encoder quality, 0..51, lower = better and larger\n"
"                      (default 23, x264's own default)\n"
"  --lossless          lossless output (FFV1 in .mkv/.avi/.nut, x264 qp 0 in .mp4)\n"
"  --odd-size pad|crop|fail\n"
"                      an odd width or height for H.264/H.265 (4:2:0 needs even):\n"
"                      pad (default) repeats the last column/row, crop removes it,\n"
"                      fail refuses; other codecs and y4m keep odd sizes\n"
"  --frames N          read at most N input frames (N >= 2)\n"
"Segments (docs/scale.md):\n"
"  --segment I/N       convert only segment I (0-based) of N of the output;\n"
"                      writes OUTPUT and OUTPUT.sum (its checksum)\n"
"  --index FILE        use a frame index saved by omcti farm (skips counting)\n"
"General:\n"
"  -y                  overwrite OUTPUT if it exists\n"
"  -n                  never overwrite OUTPUT (the default; as FFmpeg's -n)\n"
"  -q, --quiet         no progress line or notices\n"
"  --stats-period S    when stderr is not a terminal (a log), a progress line\n"
"                      every S seconds (default 10; 0 none)\n"
"  --ffmpeg-log        also print FFmpeg's own warnings (hidden by default)\n"
"  -h, --help          this help\n"
"  --version           version and build features\n";

int parse_int64(const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out,
                char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long v = strtoll(val, &end, 10);
    if (!*val || *end || errno)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: '%s' is not a whole number", opt, val);
    if (v < lo || v > hi)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: %lld is out of range (%lld..%lld)",
                         opt, v, (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

int parse_int(const char *opt, const char *val, int lo, int hi, int *out, char *err, size_t errlen)
{
    int64_t v = 0;
    int ret = parse_int64(opt, val, lo, hi, &v, err, errlen);
    if (ret == 0) *out = (int)v;
    return ret;
}

int parse_double(const char *opt, const char *val, double lo, double hi, double *out,
                 char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    /* decimal only: strtod also reads C's hexadecimal floats ("0x10" is
     * 16), which no other option value takes (parse_int() refuses them) */
    if (!*val || *end || errno || !isfinite(v) || strpbrk(val, "xX"))
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: '%s' is not a number", opt, val);
    if (v < lo || v > hi)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: %g is out of range (%g..%g)",
                         opt, v, lo, hi);
    *out = v;
    return 0;
}

int parse_int_list(const char *opt, const char *val, int lo, int hi, int *out, int max,
                   char *err, size_t errlen)
{
    int n = 0;
    const char *p = val;
    char item[32];
    while (*p) {
        size_t len = strcspn(p, ",");
        if (!len || len >= sizeof item)
            return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: malformed list '%s'", opt, val);
        memcpy(item, p, len);
        item[len] = 0;
        int a = 0, b = 0;
        char *dash = strchr(item + 1, '-');
        if (dash) {
            *dash = 0;
            if (parse_int(opt, item, lo, hi, &a, err, errlen) < 0 ||
                parse_int(opt, dash + 1, lo, hi, &b, err, errlen) < 0)
                return OMCTI_ERR_INVALID;
            if (b < a)
                return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: empty range '%s'", opt, val);
        } else {
            if (parse_int(opt, item, lo, hi, &a, err, errlen) < 0)
                return OMCTI_ERR_INVALID;
            b = a;
        }
        for (int v = a; v <= b; v++) {
            if (n >= max)
                return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: more than %d values", opt, max);
            out[n++] = v;
        }
        p += len;
        if (*p == ',') {
            p++;
            if (!*p)
                return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: malformed list '%s'", opt, val);
        }
    }
    if (!n)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: empty list", opt);
    return n;
}

int parse_segment(const char *opt, const char *val, int *i, int *n, char *err, size_t errlen)
{
    const char *slash = strchr(val, '/');
    char a[32];
    if (!slash || (size_t)(slash - val) >= sizeof a || slash == val)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: '%s' is not I/N (e.g. 0/8)", opt,
                         val);
    memcpy(a, val, (size_t)(slash - val));
    a[slash - val] = 0;
    if (parse_int(opt, slash + 1, 1, 100000, n, err, errlen) < 0 ||
        parse_int(opt, a, 0, 99999, i, err, errlen) < 0)
        return OMCTI_ERR_INVALID;
    if (*i >= *n)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s: segment %d does not exist in %d "
                         "(segments are numbered 0 to %d)", opt, *i, *n, *n - 1);
    return 0;
}

int cli_no_file(const char *sub, int output, char *err, size_t errlen)
{
    return set_error(err, errlen, OMCTI_ERR_INVALID, "%s%sno %s given (use %s)", sub ? sub : "",
                     sub ? ": " : "", output ? "output" : "input",
                     output ? "-o OUTPUT" : "-i INPUT");
}

int option_value(int argc, char **argv, int *i, const char *name, const char **val,
                 char *err, size_t errlen)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n)) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n]) return 0;
    if (*i + 1 >= argc)
        return set_error(err, errlen, -1, "option %s needs a value", name);
    *val = argv[++*i];
    return 1;
}

/* Every option of the conversion (cli_parse_convert() below), for the
 * suggestions of unknown options and for farm, which passes them on. */
const char *const cli_convert_options[] = {
    "-i", "-o", "--factor", "--fps", "--slowmo", "--method", "--search", "--engine",
    "--device", "--devices", "--workers", "--threads", "--block", "--range", "--scd",
    "--scd-threshold", "--codec", "--crf", "--lossless", "--odd-size", "--frames",
    "--segment", "--index", "-y", "-n", "-q", "--quiet", "--stats-period", "--ffmpeg-log",
    "-h", "--help", "--version", NULL,
};

/* The name of an argument that may carry its value ("--fps=60"): its length
 * up to the '='. */
static size_t option_name_length(const char *arg)
{
    return strcspn(arg, "=");
}

int cli_option_known(const char *arg, const char *const *names)
{
    const size_t n = option_name_length(arg);
    for (int k = 0; names[k]; k++)
        if (strlen(names[k]) == n && !strncmp(arg, names[k], n))
            return 1;
    return 0;
}

/* Optimal string alignment distance (insertions, deletions, substitutions
 * and swaps of two neighbours, one edit each) of two short strings. */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXLEN = 48 };
    int d[MAXLEN + 1][MAXLEN + 1];
    if (la > MAXLEN || lb > MAXLEN) return MAXLEN;
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *cli_suggest_option(const char *arg, const char *const *names)
{
    /* What FFmpeg's users type out of habit */
    static const char *const habits[][2] = {
        { "-r", "--fps" }, { "-c:v", "--codec" }, { "-vcodec", "--codec" },
        { "-codec:v", "--codec" }, { "-vframes", "--frames" }, { "-frames:v", "--frames" },
        { "-stats_period", "--stats-period" },
    };
    const size_t la = option_name_length(arg);
    for (size_t k = 0; k < sizeof habits / sizeof *habits; k++)
        if (strlen(habits[k][0]) == la && !strncmp(arg, habits[k][0], la) &&
            cli_option_known(habits[k][1], names))
            return habits[k][1];
    /* another case ("--FPS", "-Y"), or the start of one name only ("--stats") */
    const char *prefix_of = NULL;
    int prefixes = 0;
    for (int k = 0; names[k]; k++) {
        if (strlen(names[k]) == la && !strncasecmp(arg, names[k], la))
            return names[k];
        if (la >= 4 && strlen(names[k]) > la && !strncmp(arg, names[k], la)) {
            prefix_of = names[k];
            prefixes++;
        }
    }
    if (prefixes == 1)
        return prefix_of;
    /* a typo: the one nearest name, within 1 edit (2 for names of 5 letters
     * or more after the dashes) */
    const char *best = NULL;
    int best_d = 1 << 20, tie = 0;
    for (int k = 0; names[k]; k++) {
        const int d = edit_distance(arg, la, names[k], strlen(names[k]));
        if (d < best_d) { best = names[k]; best_d = d; tie = 0; }
        else if (d == best_d) tie = 1;
    }
    if (!best || tie) return NULL;
    const size_t letters = strlen(best) - strspn(best, "-");
    return best_d <= (letters >= 5 ? 2 : 1) ? best : NULL;
}

const char *cli_did_you_mean(const char *arg, const char *const *names, char *buf, size_t len)
{
    const char *s = cli_suggest_option(arg, names);
    if (!s) return "";
    snprintf(buf, len, "; did you mean '%s'?", s);
    return buf;
}

/* io_path_is_y4m()'s rule ("-" or *.y4m), here because the parser links
 * alone (tests/fuzz builds it without the io library). */
static int output_is_y4m(const char *path)
{
    const size_t n = strlen(path);
    return !strcmp(path, "-") || (n > 4 && !strcasecmp(path + n - 4, ".y4m"));
}

const char *cli_split_option(const CliOptions *o)
{
    const int devices = o->devices_all || o->n_devices > 0;
    return o->seg_count ? "--segment" : devices ? "--devices" : o->workers > 1 ? "--workers" : NULL;
}

int cli_option_once(const char *opt, const char *prev, const char *v, char *err, size_t errlen)
{
    if (!prev)
        return 0;
    char a[512], b[512];
    return set_error(err, errlen, OMCTI_ERR_INVALID, "%s given twice ('%s' and '%s'): omcti "
                     "converts one input into one output", opt,
                     io_printable(prev, a, sizeof a), io_printable(v, b, sizeof b));
}

int cli_parse_convert(int argc, char **argv, int first, CliOptions *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    omcti_default_settings(&o->settings);
    o->mode = RATE_FACTOR;
    o->factor = 2;
    o->crf = -1;
    o->stats_period = 10;
    o->max_frames = -1;
    int rate_options = 0;
    const char *v;
    int r;

#define OPT(name) ((r = option_value(argc, argv, &i, name, &v, err, errlen)) != 0)
#define CHECK(expr) do { if ((expr) < 0) return OMCTI_ERR_INVALID; } while (0)
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            return 0;
        }
        if (!strcmp(a, "--version")) { o->version = 1; return 0; }
        if (!strcmp(a, "-y")) { o->overwrite = 1; continue; }
        if (!strcmp(a, "-n")) { o->never_overwrite = 1; continue; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--ffmpeg-log")) { o->ffmpeg_log = 1; continue; }
        if (!strcmp(a, "--lossless")) { o->lossless = 1; continue; }
        if (OPT("-i")) { CHECK(r); CHECK(cli_option_once("-i", o->input, v, err, errlen)); o->input = v; continue; }
        if (OPT("-o")) { CHECK(r); CHECK(cli_option_once("-o", o->output, v, err, errlen)); o->output = v; continue; }
        if (OPT("--factor")) {
            CHECK(r);
            CHECK(parse_int("--factor", v, 2, CLI_MAX_FACTOR, &o->factor, err, errlen));
            o->mode = RATE_FACTOR;
            rate_options++;
            continue;
        }
        if (OPT("--slowmo")) {
            CHECK(r);
            CHECK(parse_int("--slowmo", v, 2, CLI_MAX_FACTOR, &o->factor, err, errlen));
            o->mode = RATE_SLOWMO;
            rate_options++;
            continue;
        }
        if (OPT("--fps")) {
            CHECK(r);
            if (rational_parse(v, &o->fps) < 0)
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "--fps: '%s' is not a frame rate (e.g. 60, 59.94, 60000/1001)", v);
            o->mode = RATE_FPS;
            rate_options++;
            continue;
        }
        if (OPT("--method")) {
            CHECK(r);
            int m = omcti_method_from_name(v);
            if (m < 0)
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "--method: unknown method '%s' (omcti, mcti, blend, repeat)", v);
            o->settings.method = m;
            continue;
        }
        if (OPT("--search")) {
            CHECK(r);
            int s = omcti_search_from_name(v);
            if (s < 0)
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "--search: unknown search '%s' (pyramid, diamond, full)", v);
            o->settings.search = s;
            continue;
        }
        if (OPT("--engine")) {
            CHECK(r);
            if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "cuda"))
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "--engine: unknown engine '%s' (auto, cpu, cuda)", v);
            o->settings.engine = v;
            continue;
        }
        if (OPT("--device")) { CHECK(r); CHECK(parse_int("--device", v, 0, 63, &o->settings.device, err, errlen)); continue; }
        if (OPT("--threads")) { CHECK(r); CHECK(parse_int("--threads", v, 1, 1024, &o->settings.threads, err, errlen)); continue; }
        if (OPT("--block")) {
            CHECK(r);
            CHECK(parse_int("--block", v, 8, 32, &o->settings.block, err, errlen));
            if (o->settings.block != 8 && o->settings.block != 16 && o->settings.block != 32)
                return set_error(err, errlen, OMCTI_ERR_INVALID, "--block: %d is not 8, 16 or 32",
                                 o->settings.block);
            continue;
        }
        if (OPT("--stats-period")) {
            CHECK(r);
            CHECK(parse_double("--stats-period", v, 0, 86400, &o->stats_period, err, errlen));
            continue;
        }
        if (OPT("--range")) { CHECK(r); CHECK(parse_int("--range", v, 1, 64, &o->settings.range, err, errlen)); continue; }
        if (OPT("--scd")) {
            CHECK(r);
            if (!strcmp(v, "none")) o->settings.scd = OMCTI_SCD_NONE;
            else if (!strcmp(v, "auto")) o->settings.scd = OMCTI_SCD_AUTO;
            else
                return set_error(err, errlen, OMCTI_ERR_INVALID, "--scd: '%s' is not none or auto", v);
            continue;
        }
        if (OPT("--scd-threshold")) {
            CHECK(r);
            CHECK(parse_double("--scd-threshold", v, 0.01, 100, &o->settings.scd_threshold, err, errlen));
            continue;
        }
        if (OPT("--codec")) {
            CHECK(r);
            /* (an empty name used to mean "the default" silently) */
            if (!*v)
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "--codec: empty encoder name (leave --codec out for the "
                                 "container's default)");
            o->codec = v;
            continue;
        }
        if (OPT("--crf")) { CHECK(r); CHECK(parse_int("--crf", v, 0, 51, &o->crf, err, errlen)); continue; }
        if (OPT("--odd-size")) {
            CHECK(r);
            if (!strcmp(v, "pad")) o->odd_size = ODD_SIZE_PAD;
            else if (!strcmp(v, "crop")) o->odd_size = ODD_SIZE_CROP;
            else if (!strcmp(v, "fail")) o->odd_size = ODD_SIZE_FAIL;
            else
                return set_error(err, errlen, OMCTI_ERR_INVALID,
                                 "--odd-size: '%s' is not pad, crop or fail", v);
            continue;
        }
        if (OPT("--segment")) {
            CHECK(r);
            CHECK(parse_segment("--segment", v, &o->seg_index, &o->seg_count, err, errlen));
            continue;
        }
        if (OPT("--index")) { CHECK(r); o->index_path = v; continue; }
        if (OPT("--workers")) { CHECK(r); CHECK(parse_int("--workers", v, 1, CLI_MAX_WORKERS, &o->workers, err, errlen)); continue; }
        if (OPT("--devices")) {
            CHECK(r);
            if (!strcmp(v, "all")) {
                o->devices_all = 1;
                o->n_devices = 0;
                continue;
            }
            int n = parse_int_list("--devices", v, 0, CLI_MAX_WORKERS - 1, o->devices,
                                   CLI_MAX_WORKERS, err, errlen);
            CHECK(n);
            for (int a = 0; a < n; a++)
                for (int b = 0; b < a; b++)
                    if (o->devices[a] == o->devices[b])
                        return set_error(err, errlen, OMCTI_ERR_INVALID,
                                         "--devices: device %d is listed twice", o->devices[a]);
            o->n_devices = n;
            o->devices_all = 0;
            continue;
        }
        if (OPT("--frames")) { CHECK(r); CHECK(parse_int64("--frames", v, 2, INT64_MAX / 1024, &o->max_frames, err, errlen)); continue; }
        if (a[0] == '-' && a[1]) {
            char hint[64];
            return set_error(err, errlen, OMCTI_ERR_INVALID, "unknown option '%s'%s (see omcti "
                             "--help)", a, cli_did_you_mean(a, cli_convert_options, hint,
                                                            sizeof hint));
        }
        /* after -i IN, a bare name is most likely the output, as FFmpeg takes it */
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "unexpected argument '%s' (%s, see omcti --help)", a,
                         o->input && !o->output ? "the output is given with -o OUTPUT"
                                                : "inputs are given with -i");
    }
#undef OPT
#undef CHECK
    if (o->overwrite && o->never_overwrite)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "-y and -n contradict each other");
    if (rate_options > 1)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "--factor, --fps and --slowmo are mutually exclusive");
    if (!o->input || !*o->input)
        return cli_no_file(NULL, 0, err, errlen);
    if (!o->output || !*o->output)
        return cli_no_file(NULL, 1, err, errlen);
    /* y4m is raw pictures: no encoder would run, and a codec asked for
     * must not be dropped without a word. */
    if (o->codec && output_is_y4m(o->output))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "--codec %s: the output '%s' is y4m, raw pictures that are not "
                         "encoded (drop --codec, or write .mkv, .mp4 or .mov)", o->codec,
                         o->output);
    const int devices = o->devices_all || o->n_devices > 0;
    if (devices && strcmp(o->settings.engine ? o->settings.engine : "auto", "cuda"))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "--devices needs --engine cuda (the CPU engine uses --threads; "
                         "--workers N runs N in-process workers)");
    if (devices && o->workers)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "--devices and --workers are mutually exclusive (one worker per device)");
    if (cli_split_option(o) && !strcmp(o->input, "-"))
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s needs an input file it can seek in, "
                         "not a pipe", cli_split_option(o));
    if ((o->workers > 1 || devices) && !strcmp(o->output, "-"))
        return set_error(err, errlen, OMCTI_ERR_INVALID, "%s needs an output file (its pieces "
                         "are joined), not a pipe", devices ? "--devices" : "--workers");
    if (o->index_path && !o->seg_count && o->workers <= 1 && !devices)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "--index is only used with --segment, "
                         "--workers or --devices");
    return 0;
}

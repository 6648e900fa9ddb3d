/* `omcti bench`: times motion estimation alone and the whole 2x conversion
 * for each engine, search and thread count, on frames held in memory
 * (decoding is not timed). Everything goes through the public API, so the
 * numbers are what a library user gets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omcti.h"
#include "src/cli/cli.h"
#include "src/cli/options.h"
#include "src/common.h"
#include "src/frame.h"
#include "src/io/io.h"

#define BENCH_MAX_LIST 64
#define BENCH_MAX_REPEAT 100

static const char bench_usage[] =
    "usage: omcti bench -i INPUT [--threads 1,2,4|1-8] [--search pyramid,full,diamond]\n"
    "                   [--engine cpu[,cuda]] [--frames N] [--block 8|16|32]\n"
    "                   [--range N] [--method NAME] [--repeat N] [--max-spread PCT]\n"
    "                   [--cpu c|sse2|avx2|avx512] [--json] [--ffmpeg-log]\n"
    "Times motion estimation (stats.me_seconds) and the whole 2x conversion per\n"
    "frame pair, for every engine x search x thread count (default searches:\n"
    "pyramid, the conversion's own, then full and diamond, the paper's pair).\n"
    "Frames are decoded into memory first; the first pair of each run is a\n"
    "warm-up, not timed.\n"
    "Each run is repeated --repeat times (default 3; the repetitions of all runs\n"
    "take turns) and the median is shown with the spread, (max - min) / median.\n"
    "A warning says when the machine is busy: a load average above its CPUs\n"
    "before the start, or a spread above --max-spread percent (default 10).\n"
    "--cpu limits the SIMD functions to that level and the ones below it (default:\n"
    "all the CPU has), to compare the levels; the output is the same at every one.\n";

/* The SIMD levels of --cpu, each with the features of those below it
 * (omcti_set_cpu_flags_mask(); a level the CPU lacks falls back to the
 * highest it has). */
static const struct { const char *name; unsigned mask; } bench_cpu_levels[] = {
    { "c",      0 },
    { "sse2",   OMCTI_CPU_FLAG_SSE2 },
    { "avx2",   OMCTI_CPU_FLAG_SSE2 | OMCTI_CPU_FLAG_AVX2 },
    { "avx512", OMCTI_CPU_FLAG_SSE2 | OMCTI_CPU_FLAG_AVX2 | OMCTI_CPU_FLAG_AVX512 |
                OMCTI_CPU_FLAG_AVX512VBMI },
};

typedef struct BenchRow {
    const char *engine;
    OmctiSearch search;
    int threads;
    uint64_t pairs;
    double me_s, total_s, interp_s;   /* of the median repetition (by ME) */
    uint64_t abs_diffs;
    int runs;                         /* repetitions done                  */
    double me_pp[BENCH_MAX_REPEAT];   /* ME seconds per pair, each run     */
    double total_pp[BENCH_MAX_REPEAT];
    double me_med, total_med;         /* medians, seconds per pair         */
    double spread;                    /* (max - min) / median of me_pp, %  */
} BenchRow;

typedef struct BenchFrames {
    OmctiPicture *pics;
    int count, width, height;
} BenchFrames;

static void frames_free(BenchFrames *f)
{
    for (int i = 0; i < f->count; i++)
        free(f->pics[i].data[0]);
    free(f->pics);
    memset(f, 0, sizeof *f);
}

/* Reads up to max pictures into one allocation each (decode not timed). */
static int frames_load(BenchFrames *f, const char *path, int max, char *err, size_t errlen)
{
    VideoReader *r = NULL;
    memset(f, 0, sizeof *f);
    int ret = video_reader_open(&r, path, err, errlen);
    if (ret < 0)
        return ret;
    f->pics = calloc((size_t)max, sizeof *f->pics);
    if (!f->pics) {
        video_reader_close(&r);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "%s: out of memory", path);
    }
    while (f->count < max) {
        OmctiPicture in;
        ret = video_reader_read(r, &in, err, errlen);
        if (ret <= 0)
            break;
        const int cw = (in.width + 1) / 2, ch = (in.height + 1) / 2;
        const size_t ysize = (size_t)in.width * in.height, csize = (size_t)cw * ch;
        uint8_t *buf = malloc(ysize + 2 * csize);
        if (!buf) {
            ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        if (f->count && (in.width != f->width || in.height != f->height)) {
            free(buf);
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the picture size changes "
                            "mid-stream (%dx%d to %dx%d), which omcti does not support", path,
                            f->width, f->height, in.width, in.height);
            break;
        }
        OmctiPicture *p = &f->pics[f->count++];
        *p = (OmctiPicture){ .data = { buf, buf + ysize, buf + ysize + csize },
                             .stride = { in.width, cw, cw },
                             .width = in.width, .height = in.height };
        picture_copy(p, &in);
        f->width = in.width;
        f->height = in.height;
    }
    video_reader_close(&r);
    if (ret < 0) {
        frames_free(f);
        return ret;
    }
    if (f->count < 3) {
        frames_free(f);
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "%s: needs at least 3 frames to benchmark", path);
    }
    return 0;
}

/* One run: a fresh context, a warm-up pair, then every following pair is
 * estimated and its middle picture built. */
static int bench_run(const BenchFrames *fr, const OmctiSettings *s, BenchRow *row,
                     char *err, size_t errlen)
{
    OmctiContext *c = NULL;
    int ret = omcti_open(&c, s, fr->width, fr->height, err, errlen);
    if (ret < 0)
        return ret;
    const int cw = (fr->width + 1) / 2, ch = (fr->height + 1) / 2;
    const size_t ysize = (size_t)fr->width * fr->height, csize = (size_t)cw * ch;
    uint8_t *buf = malloc(ysize + 2 * csize);
    if (!buf) {
        omcti_close(&c);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "bench: out of memory");
    }
    OmctiPicture mid = { .data = { buf, buf + ysize, buf + ysize + csize },
                         .stride = { fr->width, cw, cw },
                         .width = fr->width, .height = fr->height };
    OmctiStats base, end;
    for (int i = 0; i < 2 && ret >= 0; i++)
        ret = omcti_send_picture(c, &fr->pics[i]);
    if (ret >= 0)
        ret = omcti_interpolate(c, 1, 2, &mid);
    omcti_get_stats(c, &base);
    const double t0 = now_seconds();
    for (int i = 2; i < fr->count && ret >= 0 && !cli_interrupted(); i++) {
        ret = omcti_send_picture(c, &fr->pics[i]);
        if (ret >= 0)
            ret = omcti_interpolate(c, 1, 2, &mid);
    }
    row->total_s = now_seconds() - t0;
    omcti_get_stats(c, &end);
    if (ret < 0)
        set_error(err, errlen, ret, "%s", omcti_last_error(c));
    row->pairs = end.pairs - base.pairs;
    row->me_s = end.me_seconds - base.me_seconds;
    row->interp_s = end.interp_seconds - base.interp_seconds;
    row->abs_diffs = end.abs_diffs - base.abs_diffs;
    free(buf);
    omcti_close(&c);
    if (ret >= 0 && cli_interrupted())
        ret = OMCTI_ERR_INTERRUPT;
    return ret;
}

/* The sequential run of the same engine and search, the speedup baseline. */
static const BenchRow *baseline_of(const BenchRow *rows, int n, const BenchRow *r)
{
    const BenchRow *best = NULL;
    for (int i = 0; i < n; i++)
        if (rows[i].search == r->search && !strcmp(rows[i].engine, r->engine) &&
            (!best || rows[i].threads < best->threads))
            best = &rows[i];
    return best;
}

static double per_pair(double s, uint64_t pairs) { return pairs ? s / (double)pairs : 0; }

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double t[BENCH_MAX_REPEAT];
    memcpy(t, v, sizeof *t * (size_t)n);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Adds the repetition just measured in *one to r. */
static void row_add(BenchRow *r, const BenchRow *one)
{
    r->me_pp[r->runs] = per_pair(one->me_s, one->pairs);
    r->total_pp[r->runs] = per_pair(one->total_s, one->pairs);
    r->runs++;
    r->pairs = one->pairs;
    r->abs_diffs = one->abs_diffs;
    r->me_med = median(r->me_pp, r->runs);
    r->total_med = median(r->total_pp, r->runs);
    double lo = r->me_pp[0], hi = r->me_pp[0];
    for (int k = 1; k < r->runs; k++) {
        lo = r->me_pp[k] < lo ? r->me_pp[k] : lo;
        hi = r->me_pp[k] > hi ? r->me_pp[k] : hi;
    }
    r->spread = r->me_med > 0 ? 100.0 * (hi - lo) / r->me_med : 0;
    /* the search's rate from the pair count and the median time */
    r->me_s = r->me_med * (double)r->pairs;
    r->total_s = r->total_med * (double)r->pairs;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* The 1-minute load average, or -1. */
static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

typedef struct BenchLoad {
    int repeat, cpus, busy;
    double load_before, max_spread;
    const char *cpu;   /* --cpu level, "all" when not limited */
} BenchLoad;

static void print_table(const BenchRow *rows, int n, const BenchFrames *fr, const char *input,
                        const OmctiSettings *s, const BenchLoad *ld, int json)
{
    if (json) {
        printf("{\n  \"input\": ");
        json_string(input);
        printf(", \"width\": %d, \"height\": %d, \"frames\": %d,\n"
               "  \"block\": %d, \"range\": %d, \"method\": \"%s\",\n"
               "  \"repeat\": %d, \"statistic\": \"median\", \"load_average_before\": %.2f,"
               " \"cpus_online\": %d, \"busy\": %s, \"cpu\": \"%s\",\n  \"runs\": [\n",
               fr->width, fr->height, fr->count, s->block, s->range,
               omcti_method_name(s->method), ld->repeat, ld->load_before, ld->cpus,
               ld->busy ? "true" : "false", ld->cpu);
        for (int i = 0; i < n; i++) {
            const BenchRow *r = &rows[i], *b = baseline_of(rows, n, r);
            const double me = r->me_med, b_me = b->me_med;
            printf("    {\"engine\": ");
            json_string(r->engine);
            printf(", \"search\": \"%s\", \"threads\": %d, \"pairs\": %llu, "
                   "\"me_ms_per_pair\": %.9g, \"me_spread_pct\": %.4f, \"me_ms_per_pair_each\": [",
                   omcti_search_name(r->search), r->threads, (unsigned long long)r->pairs,
                   me * 1e3, r->spread);
            for (int k = 0; k < r->runs; k++) printf("%s%.9g", k ? ", " : "", r->me_pp[k] * 1e3);
            printf("], \"me_pairs_per_s\": %.3f, \"speedup\": %.4f, "
                   "\"improvement_pct\": %.2f, \"gabsdiff_per_s\": %.3f, "
                   "\"total_ms_per_pair\": %.4f, \"total_pairs_per_s\": %.3f}%s\n",
                   me > 0 ? 1 / me : 0, me > 0 ? b_me / me : 0,
                   b_me > 0 ? 100.0 * (b_me - me) / b_me : 0,
                   r->me_s > 0 ? r->abs_diffs / r->me_s * 1e-9 : 0, r->total_med * 1e3,
                   r->total_med > 0 ? 1 / r->total_med : 0, i + 1 < n ? "," : "");
        }
        printf("  ]\n}\n");
        return;
    }
    char shown[512];
    snprintf(shown, sizeof shown, "%s", input);
    for (char *c = shown; *c; c++)   /* no control bytes to the terminal */
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    printf("omcti bench: %s, %dx%d, %d frames in memory, block %d, range +-%d, method %s, "
           "SIMD %s\n", shown, fr->width, fr->height, fr->count, s->block, s->range,
           omcti_method_name(s->method), ld->cpu);
    printf("motion estimation (both fields) and whole 2x conversion, per frame pair; the median "
           "of %d run%s:\n\n", ld->repeat, ld->repeat == 1 ? "" : "s");
    printf("%-6s %-8s %7s | %10s %7s %9s %8s %8s %10s | %10s %9s\n", "engine", "search",
           "threads", "ME ms/pair", "spread%", "pairs/s", "speedup", "improv%", "Gabsdiff/s",
           "all ms/pr", "pairs/s");
    for (int i = 0; i < n; i++) {
        const BenchRow *r = &rows[i], *b = baseline_of(rows, n, r);
        const double me = r->me_med, b_me = b->me_med, all = r->total_med;
        printf("%-6s %-8s %7d | %10.3f %7.1f %9.1f %8.2f %8.1f %10.1f | %10.3f %9.1f\n",
               r->engine, omcti_search_name(r->search), r->threads, me * 1e3, r->spread,
               me > 0 ? 1 / me : 0, me > 0 ? b_me / me : 0,
               b_me > 0 ? 100.0 * (b_me - me) / b_me : 0,
               r->me_s > 0 ? r->abs_diffs / r->me_s * 1e-9 : 0, all * 1e3,
               all > 0 ? 1 / all : 0);
    }
    /* Diamond vs full at equal engine and threads, measured in this run. */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (rows[i].search == OMCTI_SEARCH_FULL && rows[j].search == OMCTI_SEARCH_DIAMOND &&
                rows[i].threads == rows[j].threads && !strcmp(rows[i].engine, rows[j].engine) &&
                rows[j].me_med > 0)
                printf("%s, %d thread(s): diamond is %.1fx faster than full search\n",
                       rows[i].engine, rows[i].threads, rows[i].me_med / rows[j].me_med);
    printf("\nspeedup = ME time with the fewest threads / ME time; improv%% = time saved "
           "relative to it;\nspread = (slowest - fastest) / median of the runs; "
           "Gabsdiff/s = absolute differences\ncomputed by the search per second.\n");
}

int cli_bench(int argc, char **argv)
{
    char err[512];
    const char *input = NULL;
    int threads[BENCH_MAX_LIST], nthreads = 0;
    int searches[OMCTI_SEARCH_COUNT], nsearches = 0;
    const char *engines[8];
    char engine_buf[256] = "cpu";
    int nengines = 0, max_frames = 30, json = 0;
    BenchLoad ld = { .repeat = 3, .max_spread = 10, .cpu = "all" };
    int cpu_level = -1;
    OmctiSettings s;
    omcti_default_settings(&s);
    s.range = 16;   /* both searches over the same window (the paper's sweeps) */

    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int m;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(bench_usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--ffmpeg-log")) {
            io_show_ffmpeg_log();
        } else if ((m = option_value(argc, argv, &i, "-i", &val, err, sizeof err)) != 0 ||
                   (m = option_value(argc, argv, &i, "--input", &val, err, sizeof err)) != 0) {
            if (m < 0) return cli_usage_error("bench", err);
            input = val;
        } else if ((m = option_value(argc, argv, &i, "--threads", &val, err, sizeof err)) != 0) {
            if (m < 0 || (nthreads = parse_int_list("--threads", val, 1, 1024, threads,
                                                    BENCH_MAX_LIST, err, sizeof err)) < 0)
                return cli_usage_error("bench", err);
        } else if ((m = option_value(argc, argv, &i, "--search", &val, err, sizeof err)) != 0) {
            if (m < 0) return cli_usage_error("bench", err);
            char list[128];
            snprintf(list, sizeof list, "%s", val);
            nsearches = 0;
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                const int sv = omcti_search_from_name(t);
                if (sv < 0)
                    return cli_error(EXIT_USAGE, "bench: --search: unknown search '%s' (pyramid, full, "
                                     "diamond)", t);
                for (int k = 0; k < nsearches; k++)
                    if (searches[k] == sv)
                        return cli_error(EXIT_USAGE, "bench: --search: '%s' is listed twice", t);
                searches[nsearches++] = sv;
            }
        } else if ((m = option_value(argc, argv, &i, "--engine", &val, err, sizeof err)) != 0) {
            if (m < 0) return cli_usage_error("bench", err);
            /* a name no engine has is a usage error before any decoding, as
             * in convert and eval (it was exit 1, "no engine could run") */
            char names[sizeof engine_buf];
            snprintf(names, sizeof names, "%s", val);
            int count = 0;
            for (char *save = NULL, *t = strtok_r(names, ",", &save); t;
                 t = strtok_r(NULL, ",", &save), count++)
                if (strcmp(t, "auto") && strcmp(t, "cpu") && strcmp(t, "cuda"))
                    return cli_error(EXIT_USAGE, "bench: --engine: unknown engine '%s' (auto, cpu, "
                                     "cuda)", t);
            if (!count)
                return cli_error(EXIT_USAGE, "bench: --engine: empty list (cpu, cuda)");
            snprintf(engine_buf, sizeof engine_buf, "%s", val);
        } else if ((m = option_value(argc, argv, &i, "--frames", &val, err, sizeof err)) != 0) {
            if (m < 0 || parse_int("--frames", val, 3, 100000, &max_frames, err, sizeof err) < 0)
                return cli_usage_error("bench", err);
        } else if ((m = option_value(argc, argv, &i, "--repeat", &val, err, sizeof err)) != 0) {
            if (m < 0 || parse_int("--repeat", val, 1, BENCH_MAX_REPEAT, &ld.repeat, err,
                                   sizeof err) < 0)
                return cli_usage_error("bench", err);
        } else if ((m = option_value(argc, argv, &i, "--max-spread", &val, err, sizeof err)) != 0) {
            if (m < 0 || parse_double("--max-spread", val, 0, 1e6, &ld.max_spread, err,
                                      sizeof err) < 0)
                return cli_usage_error("bench", err);
        } else if ((m = option_value(argc, argv, &i, "--cpu", &val, err, sizeof err)) != 0) {
            if (m < 0) return cli_usage_error("bench", err);
            cpu_level = -1;
            for (int k = 0; k < (int)(sizeof bench_cpu_levels / sizeof *bench_cpu_levels); k++)
                if (!strcmp(val, bench_cpu_levels[k].name)) cpu_level = k;
            if (cpu_level < 0)
                return cli_error(EXIT_USAGE, "bench: --cpu: unknown level '%s' (c, sse2, avx2, avx512)",
                                 val);
        } else if ((m = option_value(argc, argv, &i, "--block", &val, err, sizeof err)) != 0) {
            if (m < 0 || parse_int("--block", val, 8, 32, &s.block, err, sizeof err) < 0)
                return cli_usage_error("bench", err);
        } else if ((m = option_value(argc, argv, &i, "--range", &val, err, sizeof err)) != 0) {
            if (m < 0 || parse_int("--range", val, 1, 64, &s.range, err, sizeof err) < 0)
                return cli_usage_error("bench", err);
        } else if ((m = option_value(argc, argv, &i, "--method", &val, err, sizeof err)) != 0) {
            if (m < 0)
                return cli_usage_error("bench", err);
            const int mv = omcti_method_from_name(val);
            if (mv < 0)
                return cli_error(EXIT_USAGE, "bench: --method: unknown method '%s' (omcti, mcti, "
                                 "blend, repeat)", val);
            s.method = (OmctiMethod)mv;
        } else {
            static const char *const all[] = {
                "-h", "--help", "--json", "--ffmpeg-log", "-i", "--input", "--threads",
                "--search", "--engine", "--frames", "--repeat", "--max-spread", "--cpu",
                "--block", "--range", "--method", NULL,
            };
            char hint[64];
            return cli_error(EXIT_USAGE, "bench: unknown option '%s'%s (see omcti bench --help)",
                             argv[i], cli_did_you_mean(argv[i], all, hint, sizeof hint));
        }
    }
    if (!input || !*input) {
        cli_no_file("bench", 0, err, sizeof err);
        return cli_usage_error("bench", err);
    }
    if (!nthreads) {
        const int n = omcti_cpu_count();
        for (nthreads = 0; nthreads < n && nthreads < BENCH_MAX_LIST; nthreads++)
            threads[nthreads] = nthreads + 1;
    }
    if (!nsearches) {   /* what a conversion runs, then the paper's two */
        searches[0] = OMCTI_SEARCH_PYRAMID;
        searches[1] = OMCTI_SEARCH_FULL;
        searches[2] = OMCTI_SEARCH_DIAMOND;
        nsearches = 3;
    }
    for (char *save = NULL, *t = strtok_r(engine_buf, ",", &save); t && nengines < 8;
         t = strtok_r(NULL, ",", &save))
        engines[nengines++] = t;
    if (omcti_validate_settings(&s, err, sizeof err) < 0)
        return cli_usage_error("bench", err);
    if (cpu_level >= 0) {   /* before any context opens: its DSP tables follow the mask */
        omcti_set_cpu_flags_mask(bench_cpu_levels[cpu_level].mask);
        ld.cpu = bench_cpu_levels[cpu_level].name;
    }

    BenchFrames fr;
    int ret = frames_load(&fr, input, max_frames, err, sizeof err);
    if (ret < 0)
        return cli_error(ret == OMCTI_ERR_INTERRUPT ? EXIT_INTERRUPTED : EXIT_FAILURE_RUN, "%s", err);

    cli_install_signal_handlers();
    ld.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    ld.load_before = load_average();
    ld.busy = ld.cpus > 0 && ld.load_before > ld.cpus;
    if (ld.busy)
        fprintf(stderr, "omcti: warning: bench: the machine is busy (load average %.2f on %d "
                "CPUs before the start); the timings are not reliable\n", ld.load_before,
                ld.cpus);

    /* The runs: every engine x search x threads that can run, each
     * repeated; the repetitions take turns, so that a passing load spreads
     * over all runs instead of spoiling one. */
    const int max_rows = nengines * nsearches * nthreads;
    BenchRow *rows = calloc((size_t)max_rows, sizeof *rows);
    int nrows = 0, status = EXIT_OK, nskipped = 0;
    char skipped[8][sizeof err];   /* why an engine cannot run: said below */
    const char *skipped_name[8];
    for (int e = 0; e < nengines && rows; e++) {
        if (!omcti_engine_available(engines[e], err, sizeof err)) {
            skipped_name[nskipped] = engines[e];
            memcpy(skipped[nskipped++], err, sizeof err);
            continue;
        }
        for (int si = 0; si < nsearches; si++)
            for (int ti = 0; ti < nthreads; ti++)
                rows[nrows++] = (BenchRow){ .engine = engines[e],
                                            .search = (OmctiSearch)searches[si],
                                            .threads = threads[ti] };
    }
    /* With an engine that runs, a line for each one skipped; with none,
     * the one error says why (not a skip line and then another). */
    for (int k = 0; k < nskipped && nrows; k++)
        fprintf(stderr, "omcti: note: bench: engine %s skipped: %s\n", skipped_name[k],
                skipped[k]);
    /* the run in progress, redrawn in place: on a terminal only (in a log,
     * carriage returns and spaces) */
    const int show = !json && isatty(STDERR_FILENO);
    for (int rep = 0; rep < ld.repeat && rows && status == EXIT_OK; rep++)
        for (int i = 0; i < nrows && status == EXIT_OK; i++) {
            BenchRow *r = &rows[i], one = *r;
            OmctiSettings run = s;
            run.engine = r->engine;
            run.search = r->search;
            run.threads = r->threads;
            if (show)
                fprintf(stderr, "\rbench: %s %s %d thread(s), run %d of %d...   ", r->engine,
                        omcti_search_name(run.search), run.threads, rep + 1, ld.repeat);
            ret = bench_run(&fr, &run, &one, err, sizeof err);
            if (ret < 0)
                status = cli_error(ret == OMCTI_ERR_INTERRUPT ? EXIT_INTERRUPTED
                                                             : EXIT_FAILURE_RUN, "bench: %s", err);
            else
                row_add(r, &one);
        }
    if (show && nrows)
        fprintf(stderr, "\r%70s\r", "");
    if (!rows) {
        status = cli_error(EXIT_FAILURE_RUN, "bench: out of memory");
    } else if (status == EXIT_OK && nrows) {
        const BenchRow *worst = NULL;
        for (int i = 0; i < nrows; i++)
            if (!worst || rows[i].spread > worst->spread) worst = &rows[i];
        if (ld.repeat > 1 && worst->spread > ld.max_spread) {
            ld.busy = 1;
            fprintf(stderr, "omcti: warning: bench: the %d runs of %s %s %d thread(s) differ by "
                    "%.0f%% of their median (more than %.0f%%): the machine is busy or its clock "
                    "changes; the timings are not reliable\n", ld.repeat, worst->engine,
                    omcti_search_name(worst->search), worst->threads, worst->spread,
                    ld.max_spread);
        }
        print_table(rows, nrows, &fr, input, &s, &ld, json);
    } else if (status == EXIT_OK) {
        status = cli_error(EXIT_FAILURE_RUN, "bench: no engine could run: %s",
                           nskipped ? skipped[0] : "none given");
    }
    free(rows);
    frames_free(&fr);
    return status;
}

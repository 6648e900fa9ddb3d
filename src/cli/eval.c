/* `omcti eval`: the drop-and-reconstruct protocol (shared/DESIGN.md).
 *
 * The input F0, F1, F2, ... is read once. The even pictures are sent to one
 * context per method (and per search for the motion methods), each rebuilds
 * F2k+1 at t = 1/2 from F2k and F2k+2, and the result is compared with the
 * original F2k+1 (src/cli/metrics.h: PSNR-Y, PSNR-YUV, SSIM-Y). Only three
 * input pictures are held at a time, so long clips need no more memory than
 * short ones (apart from the per-frame PSNR kept for the plot).
 *
 * --compare FILE scores another tool's up-conversion of the even pictures
 * (e.g. FFmpeg's minterpolate, docs/minterpolate_eval.sh): its odd pictures
 * are compared with the same originals and the same metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omcti.h"
#include "src/cli/cli.h"
#include "src/cli/metrics.h"
#include "src/cli/options.h"
#include "src/cli/plot.h"
#include "src/common.h"
#include "src/frame.h"
#include "src/io/io.h"

#define EVAL_MAX_RUNS 16

static const char eval_usage[] =
    "usage: omcti eval -i INPUT [--methods omcti,mcti,blend,repeat] [--search pyramid,full,diamond]\n"
    "                  [--frames N] [--json] [--plot FILE.png] [--block N] [--range N]\n"
    "                  [--threads N] [--engine NAME] [--scd none|auto] [--scd-threshold X]\n"
    "                  [--compare FILE[=NAME]] [-y|-n] [--ffmpeg-log]\n"
    "Keeps the even frames F0, F2, ... of the first N frames (default all), rebuilds\n"
    "every odd frame F2k+1 at t=1/2 from F2k and F2k+2 with each method and compares\n"
    "it with the original: mean PSNR-Y, PSNR-YUV (Y, U, V samples pooled), SSIM-Y\n"
    "(8x8 windows every 4 pixels), the worst frame and the time per rebuilt frame\n"
    "(motion estimation included). PSNR is capped at 100 dB for identical frames.\n"
    "--compare scores FILE, another tool's 2x up-conversion of the even frames, on\n"
    "the same odd frames (its frame 2k+1 against the original F2k+1).\n"
    "--plot draws the PSNR-Y of every rebuilt frame into FILE.png with gnuplot, by\n"
    "the rules of the conversion's OUTPUT: an existing file is kept unless -y, a\n"
    "symbolic link is written through, a FIFO or a device is written in place.\n"
    "  -y                  overwrite FILE.png if it exists\n"
    "  -n                  never overwrite FILE.png (the default; as FFmpeg's -n)\n";

typedef struct EvalRun {
    char label[64];
    OmctiMethod method;
    OmctiSearch search;
    int external;             /* --compare: frames come from a reader     */
    OmctiContext *ctx;
    VideoReader *ext;
    int ext_pos;              /* pictures read from ext so far            */
    double psnr_y, psnr_yuv, ssim_y, seconds;
    double worst;
    int worst_frame;
    uint64_t cuts;
    double *per_frame;        /* PSNR-Y of every rebuilt frame            */
} EvalRun;

typedef struct EvalOptions {
    const char *input, *plot, *compare, *engine;
    const char *compare_label;  /* NAME of --compare FILE=NAME, or NULL    */
    size_t compare_len;         /* the length of FILE in compare           */
    char methods[256], searches[64];
    int frames, json, block, range, threads;
    int ffmpeg_log;
    int overwrite, never_overwrite;   /* -y, -n: for the --plot file     */
    OmctiSceneCut scd;
    double scd_threshold;
} EvalOptions;

/* An owned copy of a picture (the reader's planes are only valid until the
 * next read). */
typedef struct PicBuf {
    OmctiPicture pic;
    uint8_t *buf;
} PicBuf;

static int picbuf_alloc(PicBuf *b, int w, int h)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    const size_t ys = (size_t)w * h, cs = (size_t)cw * ch;
    b->buf = malloc(ys + 2 * cs);
    if (!b->buf) return -1;
    b->pic = (OmctiPicture){ .data = { b->buf, b->buf + ys, b->buf + ys + cs },
                             .stride = { w, cw, cw }, .width = w, .height = h };
    return 0;
}

/* 0: run; -1: --help printed; > 0: exit code of a usage error. */
static int parse_args(int argc, char **argv, EvalOptions *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->methods, sizeof o->methods, "omcti,mcti,blend,repeat");
    OmctiSettings def;
    omcti_default_settings(&def);   /* eval scores the conversion's default */
    snprintf(o->searches, sizeof o->searches, "%s", omcti_search_name(def.search));
    o->block = 16;
    o->range = 0;   /* the conversion's default: omcti_auto_range() */
    o->scd = OMCTI_SCD_AUTO;
    o->scd_threshold = 1.0;
    o->engine = "auto";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(eval_usage, stdout);
            return -1;
        }
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(a, "--ffmpeg-log")) {
            o->ffmpeg_log = 1;
            continue;
        }
        if (!strcmp(a, "-y")) {
            o->overwrite = 1;
            continue;
        }
        if (!strcmp(a, "-n")) {
            o->never_overwrite = 1;
            continue;
        }
        static const char *const with_value[] = {
            "-i", "--input", "--methods", "--method", "--search", "--plot", "--compare",
            "--engine", "--frames", "--block", "--range", "--threads", "--scd",
            "--scd-threshold", NULL,
        };
        /* "--frames=20" (and "-i=x") as the conversion takes it (option_value()) */
        const char *eq = a[0] == '-' ? strchr(a, '=') : NULL;
        char name[32];
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            a = name;
        }
        int known = 0;
        for (int k = 0; with_value[k]; k++)
            known |= !strcmp(a, with_value[k]);
        if (!known) {
            /* the suggestions: these and the flags above */
            const char *all[sizeof with_value / sizeof *with_value + 6];
            size_t n = 0;
            for (int k = 0; with_value[k]; k++) all[n++] = with_value[k];
            static const char *const flags[] = { "-h", "--help", "--json", "--ffmpeg-log", "-y",
                                                 "-n" };
            for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) all[n++] = flags[k];
            all[n] = NULL;
            char hint[64];
            return cli_error(EXIT_USAGE, "eval: unknown option '%s'%s (see omcti eval --help)",
                             argv[i], cli_did_you_mean(argv[i], all, hint, sizeof hint));
        }
        if (!eq && i + 1 >= argc)
            return cli_error(EXIT_USAGE, "eval: option %s needs a value", a);
        const char *v = eq ? eq + 1 : argv[++i];
        /* values in the conversion's words (parse_int()), "eval: " before */
        char err[256];
        if (!strcmp(a, "-i") || !strcmp(a, "--input")) o->input = v;
        else if (!strcmp(a, "--methods") || !strcmp(a, "--method"))
            snprintf(o->methods, sizeof o->methods, "%s", v);
        else if (!strcmp(a, "--search")) snprintf(o->searches, sizeof o->searches, "%s", v);
        else if (!strcmp(a, "--plot")) o->plot = v;
        else if (!strcmp(a, "--compare")) o->compare = v;
        else if (!strcmp(a, "--engine")) {
            if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "cuda"))
                return cli_error(EXIT_USAGE, "eval: --engine: unknown engine '%s' (auto, cpu, "
                                 "cuda)", v);
            o->engine = v;
        }
        else if (!strcmp(a, "--frames")) {
            if (parse_int("--frames", v, 3, 1 << 30, &o->frames, err, sizeof err) < 0)
                return cli_usage_error("eval", err);
        } else if (!strcmp(a, "--block")) {
            if (parse_int("--block", v, 8, 32, &o->block, err, sizeof err) < 0)
                return cli_usage_error("eval", err);
            if (o->block != 8 && o->block != 16 && o->block != 32)
                return cli_error(EXIT_USAGE, "eval: --block: %d is not 8, 16 or 32", o->block);
        } else if (!strcmp(a, "--range")) {
            if (parse_int("--range", v, 1, 64, &o->range, err, sizeof err) < 0)
                return cli_usage_error("eval", err);
        } else if (!strcmp(a, "--threads")) {
            if (parse_int("--threads", v, 1, 1024, &o->threads, err, sizeof err) < 0)
                return cli_usage_error("eval", err);
        } else if (!strcmp(a, "--scd")) {
            if (!strcmp(v, "none")) o->scd = OMCTI_SCD_NONE;
            else if (!strcmp(v, "auto")) o->scd = OMCTI_SCD_AUTO;
            else return cli_error(EXIT_USAGE, "eval: --scd: '%s' is not none or auto", v);
        } else if (!strcmp(a, "--scd-threshold")) {
            /* the conversion's range: eval scores what a conversion does */
            if (parse_double("--scd-threshold", v, 0.01, 100, &o->scd_threshold, err,
                             sizeof err) < 0)
                return cli_usage_error("eval", err);
        } else {
            return cli_error(EXIT_USAGE, "eval: unknown option '%s' (see omcti eval --help)", a);
        }
    }
    if (o->overwrite && o->never_overwrite)
        return cli_error(EXIT_USAGE, "eval: -y and -n contradict each other");
    if (!o->input || !*o->input) {
        char err[64];
        cli_no_file("eval", 0, err, sizeof err);
        return cli_error(EXIT_USAGE, "%s", err);
    }
    if (o->compare) {
        /* FILE=NAME: FILE is the whole when that is a file, else the
         * shortest prefix before a '=' that is one (names may hold '='). */
        o->compare_len = strlen(o->compare);
        if (access(o->compare, F_OK) != 0) {
            const char *eq = NULL;
            for (const char *p = strchr(o->compare, '='); p && !eq; p = strchr(p + 1, '=')) {
                char *file = strndup(o->compare, (size_t)(p - o->compare));
                if (!file) return cli_error(EXIT_FAILURE_RUN, "eval: out of memory");
                if (access(file, F_OK) == 0) eq = p;
                free(file);
            }
            if (!eq) eq = strrchr(o->compare, '=');
            if (eq) {
                o->compare_len = (size_t)(eq - o->compare);
                o->compare_label = eq + 1;
            }
        }
        if (!o->compare_len)
            return cli_error(EXIT_USAGE, "eval: --compare needs a file (FILE or FILE=NAME), "
                             "not '%s'", o->compare);
    }
    return 0;
}

static int add_runs(EvalOptions *o, EvalRun *runs, int *nruns)
{
    char methods[256], searches[64];
    snprintf(methods, sizeof methods, "%s", o->methods);
    for (char *sm = NULL, *m = strtok_r(methods, ",", &sm); m; m = strtok_r(NULL, ",", &sm)) {
        const int mi = omcti_method_from_name(m);
        if (mi < 0)
            return cli_error(EXIT_USAGE, "eval: --methods: unknown method '%s' (omcti, mcti, "
                             "blend, repeat)", m);
        const int motion = mi == OMCTI_METHOD_OMCTI || mi == OMCTI_METHOD_MCTI;
        snprintf(searches, sizeof searches, "%s", o->searches);
        for (char *ss = NULL, *s = strtok_r(searches, ",", &ss); s; s = strtok_r(NULL, ",", &ss)) {
            const int si = omcti_search_from_name(s);
            if (si < 0)
                return cli_error(EXIT_USAGE, "eval: --search: unknown search '%s' (pyramid, full, diamond)",
                                 s);
            if (*nruns >= EVAL_MAX_RUNS)
                return cli_error(EXIT_USAGE, "eval: too many method x search combinations");
            EvalRun *r = &runs[(*nruns)++];
            r->method = (OmctiMethod)mi;
            r->search = (OmctiSearch)si;
            if (motion)
                snprintf(r->label, sizeof r->label, "%s/%s", m, s);
            else
                snprintf(r->label, sizeof r->label, "%s", m);
            if (!motion) break; /* the search does not matter */
        }
    }
    if (o->compare) {
        if (*nruns >= EVAL_MAX_RUNS)
            return cli_error(EXIT_USAGE, "eval: too many method x search combinations");
        EvalRun *r = &runs[(*nruns)++];
        r->external = 1;
        snprintf(r->label, sizeof r->label, "%s",
                 o->compare_label && *o->compare_label ? o->compare_label : "compare");
        /* a label is display text: no control bytes into the table */
        for (char *c = r->label; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    }
    if (*nruns == 0)
        return cli_error(EXIT_USAGE, "eval: no method to score (--methods omcti,mcti,blend,repeat "
                         "or --compare FILE)");
    return 0;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

int cli_eval(int argc, char **argv)
{
    EvalOptions o;
    int ret = parse_args(argc, argv, &o);
    if (ret) return ret < 0 ? EXIT_OK : ret; /* -1: --help was printed */
    if (o.ffmpeg_log)
        io_show_ffmpeg_log();

    EvalRun runs[EVAL_MAX_RUNS];
    memset(runs, 0, sizeof runs);
    int nruns = 0;
    if ((ret = add_runs(&o, runs, &nruns)) != 0) return ret;

    cli_install_signal_handlers();
    PlotFile pf = { .fd = -1 };
    if (o.plot && o.compare) {   /* --compare FILE is an input too (-y replaced it) */
        char *path = strndup(o.compare, o.compare_len), cerr[1024];
        if (!path) return cli_error(EXIT_FAILURE_RUN, "out of memory");
        const int same = io_check_output(o.plot, path, o.overwrite, cerr, sizeof cerr);
        free(path);
        /* (the plot onto an input is the command line's error, exit 2, as
         * the conversion's -o onto its input) */
        if (same < 0)
            return cli_error(same == OMCTI_ERR_INVALID ? EXIT_USAGE : EXIT_FAILURE_RUN,
                             "eval: %s", cerr);
    }
    if (o.plot && (ret = plot_open(&pf, o.plot, o.input, o.overwrite)) != 0) return ret;

    char err[512];
    VideoReader *rd = NULL;
    if (video_reader_open(&rd, o.input, err, sizeof err) < 0) {
        plot_discard(&pf);
        return cli_error(EXIT_FAILURE_RUN, "%s", err);
    }
    const VideoInfo *info = video_reader_info(rd);
    const int w = info->width, h = info->height;

    int exit_code = EXIT_OK, nframes = 0, cap = 64;
    PicBuf ring[3], ext;
    memset(ring, 0, sizeof ring);
    memset(&ext, 0, sizeof ext);
    OmctiPicture out = {0};
    PicBuf outb = {0};
    for (int i = 0; i < 3; i++)
        if (picbuf_alloc(&ring[i], w, h) < 0) goto nomem;
    if (picbuf_alloc(&outb, w, h) < 0) goto nomem;
    out = outb.pic;

    for (int r = 0; r < nruns; r++) {
        EvalRun *run = &runs[r];
        run->worst = 1e9;
        run->per_frame = malloc(sizeof *run->per_frame * cap);
        if (!run->per_frame) goto nomem;
        if (run->external) {
            char *path = strndup(o.compare, o.compare_len);
            if (!path) goto nomem;
            if (video_reader_open(&run->ext, path, err, sizeof err) < 0) {
                exit_code = cli_error(EXIT_FAILURE_RUN, "%s", err);
                free(path);
                goto done;
            }
            const VideoInfo *ei = video_reader_info(run->ext);
            if (ei->width != w || ei->height != h) {
                exit_code = cli_error(EXIT_FAILURE_RUN, "eval: '%s' is %dx%d, the input %dx%d",
                                      path, ei->width, ei->height, w, h);
                free(path);
                goto done;
            }
            free(path);
            continue;
        }
        OmctiSettings s;
        omcti_default_settings(&s);
        s.method = run->method;
        s.search = run->search;
        s.engine = o.engine;
        s.threads = o.threads;
        s.block = o.block;
        s.range = o.range;
        s.scd = o.scd;
        s.scd_threshold = o.scd_threshold;
        if (omcti_open(&run->ctx, &s, w, h, err, sizeof err) < 0) {
            exit_code = cli_error(EXIT_FAILURE_RUN, "eval: %s: %s", run->label, err);
            goto done;
        }
    }
    if (!ext.buf && picbuf_alloc(&ext, w, h) < 0) goto nomem;

    /* ring[0] = F2k, ring[1] = F2k+1, ring[2] = F2k+2 */
    int idx = 0;
    for (;;) {
        if (o.frames && idx >= o.frames) break;
        if (cli_interrupted()) {
            exit_code = cli_error(EXIT_INTERRUPTED, "eval: interrupted");
            goto done;
        }
        OmctiPicture in;
        ret = video_reader_read(rd, &in, err, sizeof err);
        if (ret < 0) {
            exit_code = cli_error(EXIT_FAILURE_RUN, "%s", err);
            goto done;
        }
        if (ret == 0) break;
        const int slot = idx == 0 ? 0 : (idx % 2 ? 1 : 2);
        picture_copy(&ring[slot].pic, &in);
        if (idx % 2 == 0) {
            for (int r = 0; r < nruns; r++) {
                EvalRun *run = &runs[r];
                if (run->external) continue;
                const double t0 = now_seconds();
                if (omcti_send_picture(run->ctx, &ring[slot].pic) < 0) {
                    exit_code = cli_error(EXIT_FAILURE_RUN, "eval: %s: %s", run->label,
                                          omcti_last_error(run->ctx));
                    goto done;
                }
                run->seconds += now_seconds() - t0;
            }
            if (idx >= 2) {
                const int k = idx / 2 - 1; /* rebuilding F2k+1 */
                if (k >= cap) {
                    if (cap > (1 << 28)) {   /* an endless stream: the per-frame table */
                        exit_code = cli_error(EXIT_FAILURE_RUN, "eval: '%s': more than %d "
                                              "frames; use --frames N", o.input, cap);
                        goto done;
                    }
                    cap *= 2;
                    for (int r = 0; r < nruns; r++) {
                        double *p = realloc(runs[r].per_frame, sizeof *p * cap);
                        if (!p) goto nomem;
                        runs[r].per_frame = p;
                    }
                }
                /* The external output first: where it ends (minterpolate
                 * drops its last in-between frames) every method stops, so
                 * that all are scored on the same frames. */
                int ext_end = 0;
                for (int r = 0; r < nruns && !ext_end; r++) {
                    EvalRun *run = &runs[r];
                    while (run->external && run->ext_pos <= 2 * k + 1) {
                        OmctiPicture ep;
                        int e = video_reader_read(run->ext, &ep, err, sizeof err);
                        if (e < 0) {
                            exit_code = cli_error(EXIT_FAILURE_RUN, "%s", err);
                            goto done;
                        }
                        if (e == 0) {
                            fprintf(stderr, "omcti: note: eval: '%.*s' ends before frame %d; "
                                    "scoring "
                                    "frames 1..%d only\n", (int)o.compare_len, o.compare, 2 * k + 1, 2 * k - 1);
                            ext_end = 1;
                            break;
                        }
                        if (run->ext_pos == 2 * k + 1) picture_copy(&ext.pic, &ep);
                        run->ext_pos++;
                    }
                }
                if (ext_end) break;
                for (int r = 0; r < nruns; r++) {
                    EvalRun *run = &runs[r];
                    const OmctiPicture *res = &out;
                    if (run->external) {
                        res = &ext.pic;
                    } else {
                        const double t0 = now_seconds();
                        if (omcti_interpolate(run->ctx, 1, 2, &out) < 0) {
                            exit_code = cli_error(EXIT_FAILURE_RUN, "eval: %s: %s", run->label,
                                                  omcti_last_error(run->ctx));
                            goto done;
                        }
                        run->seconds += now_seconds() - t0;
                        run->cuts += (uint64_t)omcti_pair_is_cut(run->ctx);
                    }
                    PictureMetrics m;
                    metrics_picture(&ring[1].pic, res, &m);
                    run->psnr_y += m.psnr_y;
                    run->psnr_yuv += m.psnr_yuv;
                    run->ssim_y += m.ssim_y;
                    run->per_frame[k] = m.psnr_y;
                    if (m.psnr_y < run->worst) {
                        run->worst = m.psnr_y;
                        run->worst_frame = 2 * k + 1;
                    }
                }
                nframes = k + 1;
                /* F2k+2 becomes the next F2k */
                PicBuf t = ring[0];
                ring[0] = ring[2];
                ring[2] = t;
            }
        }
        idx++;
    }
    if (nframes < 1) {
        exit_code = cli_error(EXIT_FAILURE_RUN,
                              "eval: '%s' has %d frame%s; eval needs at least 3", o.input, idx,
                              idx == 1 ? "" : "s");
        goto done;
    }

    if (o.json) {
        printf("{\"input\": ");
        json_string(stdout, o.input);
        printf(", \"width\": %d, \"height\": %d, \"frames_read\": %d, \"frames_rebuilt\": %d,"
               " \"block\": %d, \"range\": %d, \"psnr_cap_db\": %.0f, \"ssim\": \"8x8 windows every 4 px\","
               " \"results\": [",
               w, h, idx, nframes, o.block, o.range, METRICS_PSNR_CAP);
        for (int r = 0; r < nruns; r++) {
            const EvalRun *run = &runs[r];
            printf("%s\n  {\"label\": ", r ? "," : "");
            json_string(stdout, run->label);
            printf(", \"method\": ");
            json_string(stdout, run->external ? "external" : omcti_method_name(run->method));
            printf(", \"search\": ");
            json_string(stdout, run->external ? "" : omcti_search_name(run->search));
            if (!run->external)
                printf(", \"range\": %d", o.range ? o.range : omcti_auto_range(run->search, w));
            printf(", \"psnr_y\": %.4f, \"psnr_yuv\": %.4f, \"ssim_y\": %.6f,"
                   " \"worst_psnr_y\": %.4f, \"worst_frame\": %d, \"seconds_per_frame\": %.6f,"
                   " \"scene_cuts\": %llu, \"per_frame_psnr_y\": [",
                   run->psnr_y / nframes, run->psnr_yuv / nframes, run->ssim_y / nframes,
                   run->worst, run->worst_frame, run->seconds / nframes,
                   (unsigned long long)run->cuts);
            for (int k = 0; k < nframes; k++)
                printf("%s%.4f", k ? ", " : "", run->per_frame[k]);
            printf("]}");
        }
        printf("\n]}\n");
    } else {
        char shown[512];
        snprintf(shown, sizeof shown, "%s", o.input);
        for (char *c = shown; *c; c++)   /* no control bytes to the terminal */
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        printf("%s: %dx%d, %d frames read, %d odd frame%s rebuilt at t=1/2 from their even "
               "neighbours (PSNR capped at %.0f dB)\n",
               shown, w, h, idx, nframes, nframes == 1 ? "" : "s", METRICS_PSNR_CAP);
        printf("%-16s %8s %9s %8s %14s %10s %5s\n", "method", "PSNR-Y", "PSNR-YUV", "SSIM-Y",
               "worst (frame)", "ms/frame", "cuts");
        for (int r = 0; r < nruns; r++) {
            const EvalRun *run = &runs[r];
            char ms[32];
            if (run->external) snprintf(ms, sizeof ms, "-");
            else snprintf(ms, sizeof ms, "%.2f", run->seconds / nframes * 1e3);
            printf("%-16s %8.3f %9.3f %8.5f %8.2f (%3d) %10s %5llu\n", run->label,
                   run->psnr_y / nframes, run->psnr_yuv / nframes, run->ssim_y / nframes,
                   run->worst, run->worst_frame, ms, (unsigned long long)run->cuts);
        }
    }
    if (o.plot) {
        const char *labels[EVAL_MAX_RUNS];
        const double *values[EVAL_MAX_RUNS];
        for (int r = 0; r < nruns; r++) {
            labels[r] = runs[r].label;
            values[r] = runs[r].per_frame;
        }
        if ((ret = plot_write(&pf, o.plot, o.input, labels, values, nruns, nframes)) != 0)
            exit_code = ret;   /* EXIT_INTERRUPTED for a FIFO's wait stopped by Ctrl-C */
    }
    goto done;

nomem:
    exit_code = cli_error(EXIT_FAILURE_RUN, "eval: out of memory");
done:
    for (int r = 0; r < nruns; r++) {
        omcti_close(&runs[r].ctx);
        if (runs[r].ext) video_reader_close(&runs[r].ext);
        free(runs[r].per_frame);
    }
    for (int i = 0; i < 3; i++) free(ring[i].buf);
    free(ext.buf);
    free(outb.buf);
    video_reader_close(&rd);
    plot_discard(&pf);
    return exit_code;
}

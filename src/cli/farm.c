/* `omcti farm`: convert a long video on a Slurm cluster (docs/scale.md).
 *
 *   1. one demux-only pass counts the input's frames (WORKDIR/frames.idx,
 *      shared by the tasks so that none reads the whole file again);
 *   2. a job array of N tasks, task I running `omcti --segment I/N`, writes
 *      WORKDIR/piece-IIII.EXT and its checksum file;
 *   3. a join job, `--dependency=afterok:ARRAY --kill-on-invalid-dep=yes`,
 *      runs `omcti join`: it never runs when a segment failed, so a failure
 *      leaves nothing under OUT.
 * A rerun with the same WORKDIR submits only the segments whose piece does
 * not match its checksum file (missing, failed, cut short, or made with
 * other options). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/common.h"
#include "src/cli/cli.h"
#include "src/cli/convert.h"
#include "src/cli/farm.h"
#include "src/cli/options.h"
#include "src/cli/segment.h"
#include "src/cli/timeline.h"
#include "src/io/io.h"

static const char farm_usage[] =
"usage: omcti farm -i INPUT -o OUTPUT --segments N [farm options] [conversion options]\n"
"\n"
"Converts INPUT on a Slurm cluster: a job array of N tasks (task I runs\n"
"`omcti --segment I/N`), then a job that joins the pieces into OUTPUT once\n"
"every task succeeded. The result is the same, bit for bit, as one\n"
"`omcti -i INPUT -o OUTPUT [conversion options]`.\n"
"\n"
"  --segments N        number of segments (array tasks), 1..1000\n"
"  --scheduler NAME    slurm (the only one)\n"
"  --workdir DIR       pieces, logs, job scripts (default OUTPUT.omcti-farm);\n"
"                      must be on a filesystem every node sees, as must\n"
"                      INPUT, OUTPUT and the omcti program\n"
"  --sbatch \"ARGS\"     extra sbatch options for every job, split at spaces, at\n"
"                      most 64 words (e.g. \"--partition=gpu --time=2:00:00\")\n"
"  --wait              follow the jobs, print \"segments done / N\", exit non-zero\n"
"                      naming the failed segment and its log if one fails\n"
"  --poll SECONDS      how often --wait looks (default 2)\n"
"  -y                  overwrite OUTPUT if it exists\n"
"  -n                  never overwrite OUTPUT (the default; as FFmpeg's -n)\n"
"  -q, --quiet         print only the job ids and errors\n"
"Conversion options (--factor, --fps, --method, --lossless, --threads, ...)\n"
"are those of `omcti --help`; --threads T also asks Slurm for T CPUs per task.\n"
"Rerun the same command to redo only missing or failed segments.\n";


/* ---- small helpers ------------------------------------------------------ */

/* An absolute name for a file that may not exist yet (its folder must). */
static int absolute(const char *path, char *out, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': folder '%s': %s", path,
                         dir, strerror(errno));
    if (snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "",
                 slash ? slash + 1 : path) >= PATH_MAX)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the name is too long", path);
    return 0;
}

void farm_piece_path(const Farm *f, int i, char *buf, size_t len)
{
    snprintf(buf, len, "%s/piece-%04d%s", f->dir_abs, i, f->ext);
}

void farm_piece_key(const Farm *f, int i, char *buf, size_t len)
{
    CliOptions o = f->opt;
    o.seg_index = i;
    o.seg_count = f->segments;
    o.input = f->in_abs;
    segment_options_key(&o, f->n, f->origin, buf, len);
}

/* ---- preparing ---------------------------------------------------------- */

static int parse(Farm *f, int argc, char **argv)
{
    const char *v;
    int r, never = 0;
    f->poll = 2;
    f->scheduler = "slurm";
    f->conv = calloc((size_t)argc + 8, sizeof *f->conv);
    if (!f->conv) return set_error(f->err, sizeof f->err, OMCTI_ERR_NOMEM, "out of memory");
#define OPT(name) ((r = option_value(argc, argv, &i, name, &v, f->err, sizeof f->err)) != 0)
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (!strcmp(a, "--wait")) { f->wait = 1; continue; }
        if (!strcmp(a, "-y")) { f->overwrite = 1; continue; }
        if (!strcmp(a, "-n")) { never = 1; continue; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { f->quiet = 1; continue; }
        if (OPT("-i")) {
            if (r < 0 || (r = cli_option_once("-i", f->input, v, f->err, sizeof f->err)) < 0)
                return r;
            f->input = v;
            continue;
        }
        if (OPT("-o")) {
            if (r < 0 || (r = cli_option_once("-o", f->output, v, f->err, sizeof f->err)) < 0)
                return r;
            f->output = v;
            continue;
        }
        if (OPT("--segments")) {
            if (r < 0 || parse_int("--segments", v, 1, 1000, &f->segments, f->err,
                                   sizeof f->err) < 0)
                return OMCTI_ERR_INVALID;
            continue;
        }
        if (OPT("--scheduler")) { if (r < 0) return r; f->scheduler = v; continue; }
        if (OPT("--workdir")) { if (r < 0) return r; f->workdir = v; continue; }
        if (OPT("--sbatch")) { if (r < 0) return r; f->sbatch = v; continue; }
        if (OPT("--poll")) {
            if (r < 0 || parse_double("--poll", v, 0.1, 600, &f->poll, f->err, sizeof f->err) < 0)
                return OMCTI_ERR_INVALID;
            continue;
        }
        if (!strcmp(a, "--segment") || !strncmp(a, "--segment=", 10) || !strcmp(a, "--index") ||
            !strncmp(a, "--index=", 8))
            return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: %s is set by the "
                             "farm itself (use --segments N)", a);
        /* farm's own options and the conversion's: a typo is named here
         * (a misspelt --segments was "--segments N is required") */
        if (a[0] == '-' && a[1] && !cli_option_known(a, cli_convert_options)) {
            static const char *const own[] = {
                "--segments", "--scheduler", "--workdir", "--sbatch", "--wait", "--poll",
            };
            const char *all[sizeof own / sizeof *own + 64];
            size_t n = 0;
            for (size_t k = 0; k < sizeof own / sizeof *own; k++) all[n++] = own[k];
            /* (not those the farm sets itself: they would be refused) */
            for (size_t k = 0; cli_convert_options[k] && n + 1 < sizeof all / sizeof *all; k++)
                if (strcmp(cli_convert_options[k], "--segment") &&
                    strcmp(cli_convert_options[k], "--index"))
                    all[n++] = cli_convert_options[k];
            all[n] = NULL;
            char hint[64];
            return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: unknown option "
                             "'%s'%s (see omcti farm --help)", a,
                             cli_did_you_mean(a, all, hint, sizeof hint));
        }
        if (!strcmp(a, "--threads") || !strncmp(a, "--threads=", 10)) f->threads_given = 1;
        f->conv[f->n_conv++] = a;
        /* An option's value travels with it. */
        if (a[0] == '-' && !strchr(a, '=') && i + 1 < argc &&
            strcmp(a, "--lossless") && strcmp(a, "--version") && strcmp(a, "--ffmpeg-log"))
            f->conv[f->n_conv++] = argv[++i];
    }
#undef OPT
    if (f->overwrite && never)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: -y and -n contradict "
                         "each other");
    if (strcmp(f->scheduler, "slurm"))
        return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: scheduler '%s' is not "
                         "supported (slurm)", f->scheduler);
    if (f->sbatch) {
        /* farm_submit() splits it at blanks into a fixed argument vector: more
         * would be cut off without a word */
        int words = 0;
        for (const char *p = f->sbatch; *p;) {
            while (*p == ' ' || *p == '\t') p++;
            if (!*p) break;
            words++;
            while (*p && *p != ' ' && *p != '\t') p++;
        }
        if (words > FARM_SBATCH_WORDS || strlen(f->sbatch) > FARM_SBATCH_BYTES)
            return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: --sbatch is too "
                             "long (%d word%s, %zu bytes); at most %d words and %d bytes go to "
                             "sbatch", words, words == 1 ? "" : "s", strlen(f->sbatch),
                             FARM_SBATCH_WORDS, FARM_SBATCH_BYTES);
    }
    if (!f->segments)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: --segments N is "
                         "required");
    if (!f->input || !*f->input || !f->output || !*f->output)
        return cli_no_file("farm", f->input && *f->input, f->err, sizeof f->err);
    if (!strcmp(f->input, "-") || !strcmp(f->output, "-"))
        return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: input and output must "
                         "be files on a shared filesystem, not pipes");
    /* The conversion options, checked by the parser every task uses. */
    char **args = calloc((size_t)f->n_conv + 6, sizeof *args);
    if (!args) return set_error(f->err, sizeof f->err, OMCTI_ERR_NOMEM, "out of memory");
    int n = 0;
    args[n++] = "omcti";
    args[n++] = "-i";
    args[n++] = (char *)f->input;
    args[n++] = "-o";
    args[n++] = (char *)f->output;
    for (int k = 0; k < f->n_conv; k++) args[n++] = (char *)f->conv[k];
    r = cli_parse_convert(n, args, 1, &f->opt, f->err, sizeof f->err);
    free(args);
    if (r < 0) return r;
    if (f->opt.help || f->opt.version)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: see omcti farm --help");
    return 0;
}

static int prepare(Farm *f)
{
    int ret;
    if (!realpath(f->input, f->in_abs))
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "cannot open '%s': %s", f->input,
                         strerror(errno));
    if ((ret = absolute(f->output, f->out_abs, f->err, sizeof f->err)) < 0) return ret;
    /* An output already there (a file, no -y) may be a finished run's of
     * this farm: a rerun then says it is done (cli_farm()), once its
     * workdir's pieces are checked, instead of "already exists". */
    const int out_ret = io_check_output(f->out_abs, f->in_abs, f->overwrite, f->err,
                                        sizeof f->err);
    struct stat ost;
    if (out_ret < 0 && (out_ret == OMCTI_ERR_INVALID || stat(f->out_abs, &ost) < 0 ||
                        !S_ISREG(ost.st_mode)))
        return out_ret;
    ssize_t len = readlink("/proc/self/exe", f->exe, sizeof f->exe - 1);
    if (len <= 0)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot find the omcti "
                         "program's own path");
    f->exe[len] = 0;
    /* The jobs run the launcher beside the program (src/cli/launcher.c),
     * which gives OpenMP its wait policy whatever environment sbatch
     * passes on. */
    char *base = strrchr(f->exe, '/');
    if (base && !strcmp(base + 1, "omcti-bin")) {
        strcpy(base + 1, "omcti");
        if (access(f->exe, X_OK) != 0)
            strcpy(base + 1, "omcti-bin");
    }
    const char *slash = strrchr(f->out_abs, '/');
    const char *dot = strrchr(slash ? slash : f->out_abs, '.');
    f->ext = dot ? dot : ".mkv";

    char wd[PATH_MAX + 16];
    if (f->workdir) snprintf(wd, sizeof wd, "%s", f->workdir);
    else snprintf(wd, sizeof wd, "%s.omcti-farm", f->out_abs);
    /* An existing workdir is checked before its frame index is read; a new
     * one is made only once the input passed every check below, so that a
     * refused input leaves no workdir behind. */
    struct stat st;
    const int wd_exists = stat(wd, &st) == 0;
    if (out_ret < 0 && !wd_exists)
        return out_ret;   /* no workdir: not this farm's output */
    f->out_exists = out_ret < 0;
    /* its refusal, kept for when the output proves not to be this farm's */
    char out_err[sizeof f->err];
    snprintf(out_err, sizeof out_err, "%s", f->err);
    if (wd_exists && (ret = farm_workdir_open(f, wd, 0)) < 0) return ret;
    if (!wd_exists) {
        /* the folder it will be made in: said now, not after the counting
         * pass (minutes on a long film) */
        char parent[PATH_MAX + 16];
        snprintf(parent, sizeof parent, "%s", wd);
        char *slash = strrchr(parent, '/');
        while (slash && slash > parent && slash[1] == 0) {   /* "dir/" */
            *slash = 0;
            slash = strrchr(parent, '/');
        }
        if (!slash) snprintf(parent, sizeof parent, ".");
        else slash[slash == parent] = 0;                      /* "/wd": "/" */
        struct stat pst;
        if (stat(parent, &pst) == 0 && !S_ISDIR(pst.st_mode))
            errno = ENOTDIR;   /* (access() says EACCES of a file) */
        else if (access(parent, W_OK | X_OK) == 0)
            errno = 0;
        if (errno)
            return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot create the "
                             "workdir '%s': %s", wd, strerror(errno));
        /* and a name Slurm cannot take, also said before the counting pass */
        char real[PATH_MAX], named[2 * PATH_MAX + 32];
        snprintf(named, sizeof named, "%s/%s", realpath(parent, real) ? real : parent,
                 slash ? wd + (slash - parent) + 1 : wd);
        if ((ret = farm_workdir_refuse_name(f, named)) < 0)
            return ret;
    }

    /* The frame index: reused when it still describes the input. */
    VideoReader *r = NULL;
    FrameIndex ix = { 0 };
    if ((ret = io_check_rereadable(f->input, "omcti farm", f->err, sizeof f->err)) < 0 ||
        (ret = video_reader_open(&r, f->in_abs, f->err, sizeof f->err)) < 0)
        return ret;
    Timeline tl;
    const VideoInfo *info = video_reader_info(r);
    if (timeline_init(&tl, info->fps, f->opt.mode, f->opt.factor, f->opt.fps) < 0) {
        ret = convert_unusable_rate(f->input, info->fps, f->err, sizeof f->err);
        video_reader_close(&r);   /* (info is the reader's) */
        return ret;
    }
    /* the tasks' own checks, before the counting pass and the queue */
    if ((ret = convert_check_rates(&f->opt, &tl, info, f->err, sizeof f->err)) < 0) {
        video_reader_close(&r);
        return ret;
    }
    char ierr[1024];
    int counted = 0;
    if (!wd_exists || frame_index_load(&ix, f->index, f->in_abs, ierr, sizeof ierr) < 0) {
        /* a finished farm's workdir holds its index: without one the
         * output is not its result, refused before the counting pass and
         * with the workdir as it was */
        if (f->out_exists) {
            video_reader_close(&r);
            snprintf(f->err, sizeof f->err, "%s", out_err);
            return out_ret;
        }
        if (!f->quiet)
            fprintf(stderr, "omcti: counting the frames of '%s' (a demux-only pass)\n",
                    f->input);
        ret = video_reader_index(r, &ix, f->err, sizeof f->err);
        counted = 1;
    }
    if (ret < 0) {
        video_reader_close(&r);
        frame_index_free(&ix);
        return ret;
    }
    /* The tasks' count (convert_cmd.c prepare_index()); what the tasks would
     * refuse (a variable rate, repeated timestamps) is refused here, before
     * any job is submitted */
    int64_t *slot = NULL;
    int timed;
    const Rational in_fps = info->vfr ? timeline_vfr_rate(info->fps) : info->fps;
    ret = segment_plan_frames(&ix, in_fps, info->time_base, f->opt.max_frames, &slot, &f->n,
                              &timed);
    if (ret != OMCTI_ERR_NOMEM)
        ret = segment_plan_refusal(ret, f->input, in_fps, f->err, sizeof f->err);
    f->origin = segment_index_origin(&ix, info->time_base);
    free(slot);
    video_reader_close(&r);
    if (ret == OMCTI_ERR_NOMEM)
        ret = set_error(f->err, sizeof f->err, OMCTI_ERR_NOMEM, "out of memory");
    else if (ret == 0 && f->n < 2)
        ret = convert_too_few_frames(f->input, f->n, f->err, sizeof f->err);
    if (ret == 0)
        ret = segment_check(&tl, f->n, f->segments, f->input, f->err, sizeof f->err);
    /* The input passed: the workdir is made now, and the index saved in it
     * (a workdir beside an existing output is left as it is: cli_farm()
     * decides first whether that output is its result). */
    if (ret == 0 && !f->out_exists)
        ret = farm_workdir_open(f, wd, 1);
    if (ret == 0 && counted)
        ret = frame_index_save(&ix, f->index, f->err, sizeof f->err);
    frame_index_free(&ix);
    return ret;
}


int cli_farm(int argc, char **argv)
{
    Farm *f = calloc(1, sizeof *f);
    if (!f) return cli_error(EXIT_FAILURE_RUN, "out of memory");
    int ret = parse(f, argc, argv);
    int code = EXIT_OK;
    if (ret == 1) {
        fputs(farm_usage, stdout);
        goto out;
    }
    if (ret < 0) {
        code = cli_usage_error("farm", f->err);
        goto out;
    }
    cli_install_signal_handlers();
    if ((ret = prepare(f)) < 0 || (ret = farm_jobs_check(f)) < 0) goto fail;

    /* an output older than a piece (or with a piece missing) is not this
     * farm's result: refused before the pieces are read for their sums */
    if (f->out_exists && !farm_done(f, 0) &&
        (ret = io_check_output(f->out_abs, f->in_abs, 0, f->err, sizeof f->err)) < 0)
        goto fail;
    int *todo = calloc((size_t)f->segments, sizeof *todo), n_todo = 0;
    if (!todo) {
        ret = set_error(f->err, sizeof f->err, OMCTI_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < f->segments; i++) {
        char p[PATH_MAX + 32], key[8192];
        farm_piece_path(f, i, p, sizeof p);
        farm_piece_key(f, i, key, sizeof key);
        if (!piece_sum_check(p, key, 1)) todo[n_todo++] = i;
    }
    if (f->out_exists) {
        /* a rerun of a finished farm is no error; any other file under the
         * output's name is left alone, as a single run leaves it */
        if (farm_done(f, n_todo)) {
            free(todo);
            char out[1024], wd[1024];
            printf("omcti: done already: '%s' (joined from its %d pieces in '%s', whose "
                   "checksums match); nothing submitted (-y makes it again)\n",
                   io_printable(f->out_abs, out, sizeof out), f->segments,
                   io_printable(f->dir_abs, wd, sizeof wd));
            goto out;
        }
        if ((ret = io_check_output(f->out_abs, f->in_abs, 0, f->err, sizeof f->err)) < 0) {
            free(todo);
            goto fail;
        }
    }
    char seg_script[PATH_MAX + 32], join_script[PATH_MAX + 32];
    if ((ret = farm_write_script(f, "segment.sh", 0, seg_script, sizeof seg_script)) < 0 ||
        (ret = farm_write_script(f, "join.sh", 1, join_script, sizeof join_script)) < 0) {
        free(todo);
        goto fail;
    }
    long array_id = -1, join_id = -1;
    char spec[8192], arr[8300], log[2 * PATH_MAX + 64], jlog[2 * PATH_MAX + 64], cpus[32],
        dep[64], dir[2 * PATH_MAX];
    farm_slurm_pattern(dir, sizeof dir, f->dir_abs);
    if (n_todo) {
        farm_array_spec(todo, n_todo, spec, sizeof spec);
        snprintf(arr, sizeof arr, "--array=%s", spec);
        snprintf(log, sizeof log, "--output=%s/logs/seg-%%a.log", dir);
        const char *extra[6] = { arr, log, "--job-name=omcti-seg" };
        int ne = 3;
        if (f->threads_given) {
            snprintf(cpus, sizeof cpus, "--cpus-per-task=%d", f->opt.settings.threads);
            extra[ne++] = cpus;
        }
        if ((ret = farm_submit(f, extra, ne, seg_script, &array_id)) < 0) {
            free(todo);
            goto fail;
        }
    }
    snprintf(jlog, sizeof jlog, "--output=%s/logs/join.log", dir);
    snprintf(dep, sizeof dep, "--dependency=afterok:%ld", array_id);
    const char *jextra[4] = { jlog, "--job-name=omcti-join", dep, "--kill-on-invalid-dep=yes" };
    if ((ret = farm_submit(f, jextra, n_todo ? 4 : 2, join_script, &join_id)) < 0) {
        if (array_id >= 0)
            fprintf(stderr, "omcti: the segments (job %ld) were submitted; scancel %ld stops "
                    "them\n", array_id, array_id);
        free(todo);
        goto fail;
    }
    if ((ret = farm_jobs_write(f, array_id, join_id)) < 0) {
        if (array_id >= 0)
            fprintf(stderr, "omcti: the jobs %ld and %ld were submitted; scancel %ld %ld stops "
                    "them\n", array_id, join_id, array_id, join_id);
        else
            fprintf(stderr, "omcti: the join (job %ld) was submitted; scancel %ld stops it\n",
                    join_id, join_id);
        free(todo);
        goto fail;
    }
    if (n_todo)
        printf("omcti: segments %s of %d submitted as job array %ld; join as job %ld "
               "(after the array succeeds); workdir %s\n", spec, f->segments, array_id, join_id,
               f->dir_abs);
    else
        printf("omcti: all %d pieces are done already (checksums match); join submitted as "
               "job %ld; workdir %s\n", f->segments, join_id, f->dir_abs);
    if (n_todo && n_todo < f->segments)
        printf("omcti: %d of %d segments are done already (checksums match) and not redone\n",
               f->segments - n_todo, f->segments);
    fflush(stdout);
    free(todo);
    if (f->wait && (ret = farm_follow(f, array_id, join_id)) < 0) goto fail;
    goto out;
fail:
    code = cli_error(ret == OMCTI_ERR_INTERRUPT ? EXIT_INTERRUPTED
                     : ret == OMCTI_ERR_INVALID ? EXIT_USAGE : EXIT_FAILURE_RUN, "%s", f->err);
out:
    free(f->conv);
    free(f);
    return code;
}

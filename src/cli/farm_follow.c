/* `omcti farm --wait`: follows the Slurm jobs (scontrol, squeue) and the
 * pieces' checksum files until the join job ended, then names what failed. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common.h"
#include "src/cli/cli.h"
#include "src/cli/farm.h"
#include "src/cli/segment.h"

/* A Slurm command failed because the job is gone, not because Slurm did
 * not answer (a busy slurmctld times out: that is no news about the job). */
static int job_unknown(const char *eout)
{
    return strstr(eout, "Invalid job id") != NULL;
}

/* The JobState of a job ("" when Slurm no longer knows it): 1, or 0 when
 * Slurm did not answer. */
static int job_state(long id, char *state, size_t len)
{
    char idbuf[32], out[8192], eout[1024];
    snprintf(idbuf, sizeof idbuf, "%ld", id);
    char *argv[] = { "scontrol", "-o", "show", "job", idbuf, NULL };
    state[0] = 0;
    if (farm_run_capture(argv, out, sizeof out, eout, sizeof eout) != 0) return job_unknown(eout);
    const char *p = strstr(out, "JobState=");
    if (!p) return 0;
    p += 9;
    size_t n = strcspn(p, " \n");
    snprintf(state, len, "%.*s", (int)(n < len ? n : len - 1), p);
    return 1;
}

/* Whether any task of the array is still queued or running: 1 or 0, -1
 * when Slurm did not answer. */
int farm_job_active(long id)
{
    char idbuf[32], out[8192], eout[1024];
    snprintf(idbuf, sizeof idbuf, "%ld", id);
    char *argv[] = { "squeue", "-h", "-j", idbuf, "-o", "%i", NULL };
    if (farm_run_capture(argv, out, sizeof out, eout, sizeof eout) != 0)
        return job_unknown(eout) ? 0 : -1;
    farm_chomp(out);
    return out[0] != 0;
}

static int final_state(const char *s)
{
    return !s[0] || (strcmp(s, "PENDING") && strcmp(s, "RUNNING") && strcmp(s, "CONFIGURING") &&
                     strcmp(s, "COMPLETING") && strcmp(s, "SUSPENDED") && strcmp(s, "REQUEUED") &&
                     strcmp(s, "RESIZING"));
}

/* The last non-empty line of a log, for the error message. */
static void last_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        farm_chomp(line);
        if (line[0]) {   /* cut to len - 1 bytes: a long log line is fine */
            const size_t n = strnlen(line, len - 1);
            memcpy(buf, line, n);
            buf[n] = 0;
        }
    }
    fclose(f);
}

int farm_follow(Farm *f, long array_id, long join_id)
{
    const struct timespec nap = { (time_t)f->poll,
                                  (long)((f->poll - (double)(time_t)f->poll) * 1e9) };
    char state[64];
    int last_done = -1;
    double silent = 0;   /* seconds without an answer from Slurm */
    for (;;) {
        if (cli_interrupted())
            return set_error(f->err, sizeof f->err, OMCTI_ERR_INTERRUPT, "farm: stopped waiting; "
                             "the jobs keep running (scancel %ld %ld stops them)", array_id,
                             join_id);
        int done = 0;
        for (int i = 0; i < f->segments; i++) {
            char p[PATH_MAX + 32], key[8192];
            farm_piece_path(f, i, p, sizeof p);
            farm_piece_key(f, i, key, sizeof key);
            done += piece_sum_check(p, key, 0);
        }
        if (done != last_done && !f->quiet) {
            fprintf(stderr, "omcti: segments done %d / %d\n", done, f->segments);
            last_done = done;
        }
        const int known = job_state(join_id, state, sizeof state);
        const int active = array_id < 0 ? 0 : farm_job_active(array_id);
        if (known && final_state(state) && active == 0) break;
        if (known && active >= 0) {
            silent = 0;
        } else if ((silent += f->poll) > 300) {
            return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: Slurm has not answered "
                             "(scontrol, squeue) for 5 minutes; the jobs %ld and %ld may still "
                             "run (squeue -u $USER)", array_id, join_id);
        }
        nanosleep(&nap, NULL);
    }
    struct stat st;
    if (!strcmp(state, "COMPLETED") && stat(f->out_abs, &st) == 0) {
        if (!f->quiet)
            fprintf(stderr, "omcti: done: '%s' (pieces in '%s'; delete that folder when no "
                    "longer needed)\n", f->output, f->dir_abs);
        return 0;
    }
    /* Name the failed segments, first with its log's last line. */
    char list[2048] = "", first_log[PATH_MAX + 64] = "", why[512] = "";
    int failed = 0;
    size_t used = 0;
    for (int i = 0; i < f->segments; i++) {
        char p[PATH_MAX + 32], key[8192];
        farm_piece_path(f, i, p, sizeof p);
        farm_piece_key(f, i, key, sizeof key);
        if (piece_sum_check(p, key, 0)) continue;
        if (!failed++) {
            snprintf(first_log, sizeof first_log, "%s/logs/seg-%d.log", f->dir_abs, i);
            last_line(first_log, why, sizeof why);
        }
        used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s%d",
                                 failed > 1 ? "," : "", i);
    }
    if (failed)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: segment%s %s of %d failed "
                         "(%s; log: %s); '%s' was not written; rerun the same command to redo "
                         "only the failed segments", failed > 1 ? "s" : "", list, f->segments,
                         why[0] ? why : "no message", first_log, f->output);
    char jlog[PATH_MAX + 32];
    snprintf(jlog, sizeof jlog, "%s/logs/join.log", f->dir_abs);
    last_line(jlog, why, sizeof why);
    return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: the join job %ld ended %s (%s; "
                     "log: %s); '%s' was not written", join_id, state[0] ? state : "unknown",
                     why[0] ? why : "no message", jlog, f->output);
}

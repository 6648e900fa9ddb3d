/* Slurm's side of `omcti farm` (farm.h): the job scripts, their submission
 * with sbatch, and running Slurm's client commands (sbatch, squeue). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/common.h"
#include "src/cli/farm.h"
#include "src/io/io.h"

/* ---- small helpers ------------------------------------------------------ */

/* path for a Slurm file name pattern (--output): '%' starts a replacement
 * there, so a literal one is doubled. */
void farm_slurm_pattern(char *dst, size_t len, const char *path)
{
    size_t n = 0;
    for (; *path && n + 2 < len; path++) {
        if (*path == '%') dst[n++] = '%';
        dst[n++] = *path;
    }
    dst[n] = 0;
}

/* 'text' for a POSIX shell. */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    fputc('\'', f);
}

/* Reads fd to its end into buf (NUL-terminated; may be NULL: read and
 * dropped), keeping what fits. */
static void read_to_end(int fd, char *buf, size_t len)
{
    size_t n = 0;
    char scratch[4096];
    for (;;) {
        char *dst = buf && n + 1 < len ? buf + n : scratch;
        size_t room = buf && n + 1 < len ? len - 1 - n : sizeof scratch;
        ssize_t got = read(fd, dst, room);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (dst != scratch) n += (size_t)got;
    }
    if (buf && len) buf[n] = 0;
}

/* Runs argv (PATH search); its stdout into out (NUL-terminated, may be
 * NULL), stderr likewise into errout. Returns the exit status, 127 when it
 * cannot be started. */
int farm_run_capture(char *const argv[], char *out, size_t outlen, char *errout, size_t errlen)
{
    int po[2], pe[2];
    if (pipe(po) < 0) return 127;
    if (pipe(pe) < 0) {
        close(po[0]);
        close(po[1]);
        return 127;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        return 127;
    }
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    /* Small outputs: read stdout to its end, then stderr. */
    read_to_end(po[0], out, outlen);
    read_to_end(pe[0], errout, errlen);
    close(po[0]);
    close(pe[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

void farm_chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = 0;
}

/* ---- job scripts and submission ----------------------------------------- */

int farm_write_script(Farm *f, const char *name, int join, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", f->dir_abs, name);
    char tmp[PATH_MAX + 32];
    /* made executable before it is renamed */
    FILE *s = farm_workdir_file_open(f, path, tmp, sizeof tmp);
    if (!s)
        return OMCTI_ERR_IO;
    fputs("#!/bin/bash\n", s);
    if (!join) {
        fprintf(s, "# Written by omcti farm: segment $SLURM_ARRAY_TASK_ID of %d of the input.\n"
                "set -eu\ni=${SLURM_ARRAY_TASK_ID:?submit with sbatch --array}\n"
                "piece=", f->segments);
        sh_quote(s, f->dir_abs);
        fprintf(s, "/piece-$(printf %%04d \"$i\")");
        sh_quote(s, f->ext);
        fputs("\nexec ", s);
        sh_quote(s, f->exe);
        fprintf(s, " --segment \"$i/%d\" -i ", f->segments);
        sh_quote(s, f->in_abs);
        fputs(" -o \"$piece\" -y --index ", s);
        sh_quote(s, f->index);
        for (int k = 0; k < f->n_conv; k++) {
            fputc(' ', s);
            sh_quote(s, f->conv[k]);
        }
        if (!f->threads_given)
            fputs(" --threads \"${SLURM_CPUS_PER_TASK:-$(nproc)}\"", s);
        fputc('\n', s);
    } else {
        fprintf(s, "# Written by omcti farm: joins the %d pieces into the output.\nset -eu\n"
                "exec ", f->segments);
        sh_quote(s, f->exe);
        fputs(" join -q -o ", s);
        sh_quote(s, f->out_abs);
        if (f->overwrite) fputs(" -y", s);
        if (f->opt.mode != RATE_SLOWMO && !io_path_is_y4m(f->out_abs) &&
            !io_input_is_y4m(f->in_abs)) {
            fputs(" --audio-from ", s);
            sh_quote(s, f->in_abs);
        }
        for (int i = 0; i < f->segments; i++) {
            char p[PATH_MAX + 32];
            farm_piece_path(f, i, p, sizeof p);
            fputs(" \\\n  ", s);
            sh_quote(s, p);
        }
        fputc('\n', s);
    }
    return farm_workdir_file_commit(f, s, tmp, path, 0755);
}

/* "0-3,5,7-9" from a sorted list. */
void farm_array_spec(const int *todo, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < n;) {
        int e = k;
        while (e + 1 < n && todo[e + 1] == todo[e] + 1) e++;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%d", k ? "," : "",
                                 todo[k]);
        if (e > k)
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "-%d", todo[e]);
        k = e + 1;
    }
}

/* sbatch ... script; the job id into *id. f->sbatch was checked against
 * FARM_SBATCH_WORDS and FARM_SBATCH_BYTES by parse() (farm.c), so all of
 * it fits beside the farm's own options (at most 6). */
int farm_submit(Farm *f, const char *const *extra, int n_extra, const char *script, long *id)
{
    char *argv[2 + 6 + FARM_SBATCH_WORDS + 2];
    char splitbuf[FARM_SBATCH_BYTES + 1];
    int n = 0;
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    for (int k = 0; k < n_extra && k < 6; k++) argv[n++] = (char *)extra[k];
    if (f->sbatch) {
        snprintf(splitbuf, sizeof splitbuf, "%s", f->sbatch);
        char *save = NULL;
        for (char *t = strtok_r(splitbuf, " \t", &save); t && n < 8 + FARM_SBATCH_WORDS;
             t = strtok_r(NULL, " \t", &save))
            argv[n++] = t;
    }
    argv[n++] = (char *)script;
    argv[n] = NULL;
    char out[256], eout[1024];
    int st = farm_run_capture(argv, out, sizeof out, eout, sizeof eout);
    farm_chomp(eout);
    if (st == 127)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot run sbatch (%s); "
                         "install Slurm's client (slurm-client) or run where Slurm is",
                         eout[0] ? eout : "not found");
    if (st != 0 || sscanf(out, "%ld", id) != 1)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: sbatch failed: %s",
                         eout[0] ? eout : out);
    return 0;
}

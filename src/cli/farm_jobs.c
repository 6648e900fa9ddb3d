/* `omcti farm`'s workdir: the folder itself (made and checked), its files
 * (farm.c writes its job scripts through them) and the record of its last
 * submission (WORKDIR/jobs). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/cli/farm.h"
#include "src/common.h"

/* A file of the workdir is written as a new file of a name nobody could
 * guess beside it (mkstemp: O_EXCL, never through a link someone
 * planted), then renamed over path. farm_workdir_file_open(): the new file, or
 * NULL with the error in f->err; tmp (PATH_MAX + 32) gets its name. */
FILE *farm_workdir_file_open(Farm *f, const char *path, char *tmp, size_t len)
{
    snprintf(tmp, len, "%s.tmp-XXXXXX", path);
    const int fd = mkstemp(tmp);
    FILE *s = fd < 0 ? NULL : fdopen(fd, "w");
    if (!s) {
        const int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot write '%s': %s", path,
                  strerror(e));
    }
    return s;
}

/* Closes s (from farm_workdir_file_open()), gives it mode (0: as made) and
 * renames it over path; on any failure removes it. */
int farm_workdir_file_commit(Farm *f, FILE *s, const char *tmp, const char *path, mode_t mode)
{
    int bad = ferror(s) != 0;
    bad |= fclose(s) != 0;
    if (bad || (mode && chmod(tmp, mode) < 0) || rename(tmp, path) < 0) {
        unlink(tmp);
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot write '%s': %s",
                         path, strerror(errno ? errno : EIO));
    }
    return 0;
}

/* WORKDIR/jobs: the ids of the last submission from this workdir ("array
 * ID" (-1 when every piece was done) and "join ID"), so that a rerun does
 * not submit the segments again while those jobs still run: two tasks
 * converting one piece, and a second join that fails on the output the
 * first one wrote ("already exists"). Written like the scripts (a new file,
 * renamed); a missing or unreadable one means no jobs. */
static void jobs_path(const Farm *f, char *buf, size_t len)
{
    snprintf(buf, len, "%s/jobs", f->dir_abs);
}

int farm_jobs_write(Farm *f, long array_id, long join_id)
{
    char path[PATH_MAX + 16], tmp[PATH_MAX + 32];
    jobs_path(f, path, sizeof path);
    FILE *s = farm_workdir_file_open(f, path, tmp, sizeof tmp);
    if (!s)
        return OMCTI_ERR_IO;
    fprintf(s, "array %ld\njoin %ld\n", array_id, join_id);
    return farm_workdir_file_commit(f, s, tmp, path, 0);
}

/* 0 when no job of the last submission from this workdir is queued or
 * running any more (or none is known), else an error naming them. */
int farm_jobs_check(Farm *f)
{
    char path[PATH_MAX + 16], line[64];
    jobs_path(f, path, sizeof path);
    FILE *s = fopen(path, "r");
    if (!s) return 0;
    long id[2] = { -1, -1 };
    static const char *const word[2] = { "array", "join" };
    for (int k = 0; k < 2 && fgets(line, sizeof line, s); k++) {
        char w[8], end;
        long v;
        if (sscanf(line, "%7s %ld%c", w, &v, &end) == 3 && end == '\n' && !strcmp(w, word[k]) &&
            v > 0)
            id[k] = v;
    }
    fclose(s);
    long active[2];
    int n = 0;
    for (int k = 0; k < 2; k++)
        if (id[k] > 0 && farm_job_active(id[k]) == 1) active[n++] = id[k];
    if (!n) return 0;
    if (n == 1)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: job %ld of the last "
                         "submission from the workdir '%s' is still queued or running; wait for "
                         "it (squeue -j %ld) or stop it (scancel %ld), then run farm again",
                         active[0], f->dir_abs, active[0], active[0]);
    return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: the jobs %ld and %ld of the "
                     "last submission from the workdir '%s' are still queued or running; wait "
                     "for them (squeue -j %ld,%ld) or stop them (scancel %ld %ld), then run "
                     "farm again", active[0], active[1], f->dir_abs, active[0], active[1],
                     active[0], active[1]);
}

/* The output's time against the pieces': the join wrote it after them;
 * a file written there before them, or another one since a piece was
 * remade, is not this farm's result. */
int farm_done(const Farm *f, int n_todo)
{
    struct stat out, st;
    if (n_todo || stat(f->out_abs, &out) < 0)
        return 0;
    for (int i = 0; i < f->segments; i++) {
        char p[PATH_MAX + 32];
        farm_piece_path(f, i, p, sizeof p);
        if (stat(p, &st) < 0 || st.st_mtim.tv_sec > out.st_mtim.tv_sec ||
            (st.st_mtim.tv_sec == out.st_mtim.tv_sec && st.st_mtim.tv_nsec > out.st_mtim.tv_nsec))
            return 0;
    }
    return 1;
}

/* The workdir holds the scripts that Slurm runs as the user, and the logs
 * Slurm writes: a folder another user owns, or one every user may write
 * into (without the sticky bit), lets someone else change what runs or
 * plant links where the logs go. Such a folder is refused, not reused.
 * (A group-writable one is allowed: with a private group per user, the
 * common setting on clusters, it is the user's own.) */
static int check_private_dir(Farm *f, const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) < 0)
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: workdir '%s': %s", dir,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: '%s' is not a folder",
                         dir);
    if (st.st_uid != geteuid())
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: the folder '%s' belongs "
                         "to another user (uid %ld), and its scripts would run as you; choose "
                         "another with --workdir", dir, (long)st.st_uid);
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: every user may write into "
                         "the folder '%s', and so change the scripts that run as you; remove "
                         "that permission (chmod o-w) or choose another with --workdir", dir);
    return 0;
}

int farm_workdir_refuse_name(Farm *f, const char *dir)
{
    if (!strchr(dir, '\\'))
        return 0;
    return set_error(f->err, sizeof f->err, OMCTI_ERR_INVALID, "farm: the workdir '%s' has a "
                     "backslash in its name, which Slurm's log names cannot hold; choose "
                     "another with --workdir", dir);
}

int farm_workdir_open(Farm *f, const char *wd, int create)
{
    int made = 0, made_logs = 0, ret = 0;
    char logs[PATH_MAX + 8] = "";
    if (create) {
        if (mkdir(wd, 0775) == 0)
            made = 1;
        else if (errno != EEXIST)
            return set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot create the "
                             "workdir '%s': %s", wd, strerror(errno));
    }
    if (!realpath(wd, f->dir_abs))
        ret = set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: workdir '%s': %s", wd,
                        strerror(errno));
    else if (check_private_dir(f, f->dir_abs) < 0)
        ret = OMCTI_ERR_IO;
    else
        ret = farm_workdir_refuse_name(f, f->dir_abs);
    if (ret == 0) {
        snprintf(f->index, sizeof f->index, "%s/frames.idx", f->dir_abs);
        if (!create)
            return 0;
        snprintf(logs, sizeof logs, "%s/logs", f->dir_abs);
        if (mkdir(logs, 0775) == 0)
            made_logs = 1;
        else if (errno != EEXIST)
            ret = set_error(f->err, sizeof f->err, OMCTI_ERR_IO, "farm: cannot create '%s': %s",
                            logs, strerror(errno));
        if (ret == 0 && check_private_dir(f, logs) < 0)
            ret = OMCTI_ERR_IO;
    }
    if (ret < 0) {
        if (made_logs) rmdir(logs);
        if (made) rmdir(wd);
    }
    return ret;
}

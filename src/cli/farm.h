/* `omcti farm` (farm.c: the options, planning, the command; farm_slurm.c:
 * the job scripts, their submission and Slurm's client commands;
 * farm_jobs.c: the workdir's files and the record of the jobs;
 * farm_follow.c: following the jobs for --wait). */
#ifndef OMCTI_CLI_FARM_H
#define OMCTI_CLI_FARM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "src/cli/options.h"
#include "src/io/io.h"

typedef struct Farm {
    const char *input, *output, *workdir, *sbatch, *scheduler;
    int segments, wait, overwrite, quiet;
    double poll;
    const char **conv;         /* conversion options, forwarded           */
    int n_conv;
    int threads_given;
    CliOptions opt;
    char in_abs[PATH_MAX], out_abs[PATH_MAX], dir_abs[PATH_MAX], exe[PATH_MAX];
    char index[PATH_MAX + 16];
    const char *ext;
    int64_t n;
    VideoOrigin origin;        /* segment_index_origin()                   */
    int out_exists;            /* the output is there, without -y: maybe
                                  this farm's own, finished (farm_done()) */
    char err[2048];
} Farm;

/* --sbatch: the words and bytes farm_submit() passes on (parse() refuses
 * more) */
enum { FARM_SBATCH_WORDS = 64, FARM_SBATCH_BYTES = 4095 };

/* Runs argv (PATH search); its stdout into out (NUL-terminated, may be
 * NULL), stderr likewise into errout. Returns the exit status, 127 when it
 * cannot be started. */
int farm_run_capture(char *const argv[], char *out, size_t outlen, char *errout, size_t errlen);

/* Removes trailing newlines and spaces. */
void farm_chomp(char *s);

/* The path of piece i in the workdir, and the options key its checksum
 * file must hold (segment_options_key). */
void farm_piece_path(const Farm *f, int i, char *buf, size_t len);
void farm_piece_key(const Farm *f, int i, char *buf, size_t len);

/* farm_slurm.c: path for a Slurm file name pattern (--output): '%' starts
 * a replacement there, so a literal one is doubled. */
void farm_slurm_pattern(char *dst, size_t len, const char *path);
/* The job script WORKDIR/name (path: its name) of the segments (join 0)
 * or of the join (join 1). */
int farm_write_script(Farm *f, const char *name, int join, char *path, size_t len);
/* "0-3,5,7-9" from a sorted list. */
void farm_array_spec(const int *todo, int n, char *buf, size_t len);
/* sbatch ... script; the job id into *id (extra: at most 6 options). */
int farm_submit(Farm *f, const char *const *extra, int n_extra, const char *script, long *id);
/* The workdir wd (farm_jobs.c), made (with its logs/) when create, and
 * refused where another user owns it or every user may write into it
 * (its scripts run as the user) or where Slurm cannot name its logs; sets
 * f->dir_abs and f->index. A folder it made is removed again when
 * refused. _refuse_name(): the name rule alone, for a workdir not made yet
 * (< 0 with the error in f->err). */
int farm_workdir_open(Farm *f, const char *wd, int create);
int farm_workdir_refuse_name(Farm *f, const char *dir);

/* A file of the workdir, written as a new file of a name nobody could
 * guess beside path (mkstemp), then renamed over it (farm_jobs.c):
 * _open() gives the new file (tmp, PATH_MAX + 32 bytes, its name) or NULL
 * with the error in f->err; _commit() closes it, gives it mode (0: as
 * made), renames it; on failure it is removed. */
FILE *farm_workdir_file_open(Farm *f, const char *path, char *tmp, size_t len);
int farm_workdir_file_commit(Farm *f, FILE *s, const char *tmp, const char *path, mode_t mode);

/* WORKDIR/jobs: the ids of the submission's job array (-1: none) and join
 * job are recorded, and a rerun is refused while one of them is still
 * queued or running (an error in f->err naming them). */
int farm_jobs_write(Farm *f, long array_id, long join_id);
int farm_jobs_check(Farm *f);

/* Whether the output that was there without -y (f->out_exists) is this
 * farm's own, finished: every piece's checksum matches (n_todo pieces to
 * convert: none) and the output is not older than any piece. */
int farm_done(const Farm *f, int n_todo);

/* Whether a job (or any task of an array) is still queued or running: 1 or
 * 0, -1 when Slurm did not answer (squeue). */
int farm_job_active(long id);

/* --wait: follows the array and the join job until both ended; 0 when OUT
 * was written, else an error in f->err naming the failed segments (and the
 * first one's log) or the join job's end. */
int farm_follow(Farm *f, long array_id, long join_id);

#endif

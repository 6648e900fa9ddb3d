/* The workers of `--workers N` / `--devices`: each converts its share of
 * the run's range with its own context (and device), straight into the
 * output's frames (y4m) or into parts that are joined in process. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/common.h"
#include "src/cli/cli.h"
#include "src/cli/convert.h"
#include "src/cli/progress.h"

/* The join of the parts stops when a signal asks, as the workers do. */
static const IoCancel workers_cancel = { cli_interrupted, 0 };

static void *worker_main(void *arg)
{
    Converter *c = arg;
    c->status = convert_one(c);
    pthread_mutex_lock(&c->board->lock);
    c->board->finished++;
    pthread_cond_signal(&c->board->cond);
    pthread_mutex_unlock(&c->board->lock);
    return NULL;
}

/* Shows the workers' progress until `started` of them have finished. */
static void follow_workers(WorkerBoard *b, int started, int quiet, double stats_period,
                           int64_t total)
{
    Progress prog;
    progress_init(&prog, quiet, total, stats_period);
    pthread_mutex_lock(&b->lock);
    while (b->finished < started) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 250000000;
        if (t.tv_nsec >= 1000000000) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&b->cond, &b->lock, &t);
        progress_update(&prog, atomic_load(&b->frames));
    }
    pthread_mutex_unlock(&b->lock);
    progress_end(&prog, atomic_load(&b->frames));
}

static void remove_parts(char (*parts)[PATH_MAX], int n, const char *dir)
{
    for (int k = 0; k < n; k++) unlink(parts[k]);
    if (dir[0]) rmdir(dir);
}

/* Whether workers write the output in place (y4m_slots.c) rather than
 * as parts to be joined: raw y4m files. Encoded outputs keep parts, which
 * spreads the encoding over the workers; their join only copies packets.
 * A FIFO or a character device cannot be filled at offsets (nor replaced
 * by a file renamed over it): parts, joined into it as a stream. */
int convert_output_in_place(const char *output)
{
    return strcmp(output, "-") && io_path_is_y4m(output) && !io_output_in_place(output);
}

/* Converts j->range into output with n_workers threads, each its own
 * sub-range, context and device: straight into the output's frames, or
 * into parts joined in process afterwards. */
int convert_workers(Job *j, const char *output, int copy_audio)
{
    CliOptions *o = j->opt;
    const int K = j->n_workers;
    Converter *cs = calloc((size_t)K, sizeof *cs);
    pthread_t *th = calloc((size_t)K, sizeof *th);
    char (*parts)[PATH_MAX] = calloc((size_t)K, sizeof *parts);
    const char **names = calloc((size_t)K, sizeof *names);
    char dir[PATH_MAX] = "";
    Y4mSlots *slots = NULL;
    WorkerBoard board = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
    atomic_init(&board.frames, 0);
    int ret = 0, nparts = 0;
    if (!cs || !th || !parts || !names) {
        ret = set_error(j->err, sizeof j->err, OMCTI_ERR_NOMEM, "out of memory");
        goto out;
    }
    const char *slash = strrchr(output, '/');
    const char *base = slash ? slash + 1 : output;
    const char *dot = strrchr(base, '.');
    if (convert_output_in_place(output)) {
        VideoInfo info = j->info;
        info.fps = j->tl.out_fps;
        const WriterOptions wo = { .overwrite = o->overwrite, .input_path = o->input };
        if ((ret = y4m_slots_open(&slots, output, &info, j->range.out_end - j->range.out_first,
                                  &wo, j->err, sizeof j->err)) < 0)
            goto out;
    } else {
        /* The parts live beside the output (same filesystem, cleaned up);
         * those of a FIFO or a device (/dev/null) in the temporary folder. */
        int named;
        if (io_output_in_place(output)) {
            const char *t = getenv("TMPDIR");
            const int len = snprintf(dir, sizeof dir, "%s/omcti-parts-XXXXXX",
                                     t && t[0] == '/' ? t : "/tmp");
            named = len > 0 && len < (int)sizeof dir;
        } else {
            named = io_sibling_name(dir, sizeof dir, output, "omcti-parts-XXXXXX", "") == 0;
        }
        if (!named || !mkdtemp(dir)) {
            dir[0] = 0;
            ret = set_error(j->err, sizeof j->err, OMCTI_ERR_IO, "cannot write '%s': cannot "
                            "create a folder for its parts", output);
            goto out;
        }
    }
    const int threads = o->settings.threads > 0 ? o->settings.threads : omcti_cpu_count();
    const int per = max_i(1, threads / K);
    int started = 0;
    for (int k = 0; k < K; k++) {
        SegmentRange r;
        segment_split(&j->tl, j->n, &j->range, k, K, &r);
        if (r.out_first == r.out_end) continue;   /* too short to share */
        if (j->ix_slot)
            segment_range_to_index(&r, j->n, j->ix_slot, j->ix.count);
        Converter *c = &cs[nparts];
        if (slots) {
            c->slots = slots;
            c->slot_first = r.out_first - j->range.out_first;
        } else {
            const int len = snprintf(parts[nparts], PATH_MAX, "%s/part-%03d%s", dir, k,
                                     dot ? dot : ".mkv");
            if (len < 0 || len >= PATH_MAX) {   /* a cut name could be another part's */
                ret = set_error(j->err, sizeof j->err, OMCTI_ERR_IO, "cannot write '%s': the "
                                "name is too long for the parts of the workers", output);
                goto out;
            }
            names[nparts] = parts[nparts];
        }
        c->opt = o;
        c->settings = o->settings;
        c->settings.threads = per;
        if (j->devices[k] >= 0) c->settings.device = j->devices[k];
        c->output = parts[nparts];
        c->overwrite = 1;
        c->quiet = 1;
        c->ix = &j->ix;
        c->ix_timed = j->ix_timed;
        c->range = r;
        c->board = &board;
        /* one worker scans, the first: the others may read from the
         * video's start too (a short video's shares overlap) */
        c->scan_repeats = !o->quiet && nparts == 0 && r.read_from == 0;
        nparts++;
    }
    for (; started < nparts; started++)
        if (pthread_create(&th[started], NULL, worker_main, &cs[started])) {
            ret = set_error(j->err, sizeof j->err, OMCTI_ERR_NOMEM, "cannot start a worker");
            break;
        }
    follow_workers(&board, started, o->quiet, o->stats_period, j->range.out_end - j->range.out_first);
    for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
    for (int k = 0; k < started && ret == 0; k++)
        if (cs[k].status < 0) {
            /* a part is an internal file: the message names the output */
            const char *at = cs[k].output && *cs[k].output ? strstr(cs[k].err, cs[k].output)
                                                            : NULL;
            const size_t len = at ? strlen(cs[k].output) : 0;
            const int quoted = at && at > cs[k].err && at[-1] == '\'' && at[len] == '\'';
            if (at)
                snprintf(j->err, sizeof j->err, "%.*s%s%s (worker %d)%s", (int)(at - cs[k].err),
                         cs[k].err, output, quoted ? "'" : "", k, at + len + (size_t)quoted);
            else
                snprintf(j->err, sizeof j->err, "%s", cs[k].err);
            ret = cs[k].status;
        }
    if (ret == 0 && cli_interrupted())
        ret = set_error(j->err, sizeof j->err, OMCTI_ERR_INTERRUPT,
                        "%s; the incomplete output was removed", cli_stop_reason());
    if (ret == 0) {
        /* one warning for the whole file, not one per worker */
        VideoDamage damage = { .pictures = -1 };
        for (int k = 0; k < started; k++)
            video_damage_add(&damage, &cs[k].damage);
        video_damage_warn(o->input, &damage);
        convert_warn_jumps(cs, started, j->tl.in_fps);
        for (int k = 0; k < started; k++)
            if (cs[k].scan_repeats) {
                char name[1024];
                repeats_note(&cs[k].repeats, io_printable(o->input, name, sizeof name),
                             j->tl.in_fps);
            }
        int64_t frames = j->range.out_end - j->range.out_first;
        if (slots)
            ret = y4m_slots_finish(&slots, j->err, sizeof j->err);
        else
            ret = io_join(output, names, nparts, copy_audio ? o->input : NULL, &j->origin,
                          o->overwrite, o->quiet, &workers_cancel, &frames, j->err,
                          sizeof j->err);
        if (ret == OMCTI_ERR_INTERRUPT)
            set_error(j->err, sizeof j->err, ret, "%s; the incomplete output was removed",
                      cli_stop_reason());
        if (ret == 0 && !o->quiet)
            fprintf(stderr, "omcti: %lld frames in, %lld out, %d worker%s (%s)\n",
                    (long long)(j->range.end - j->range.first), (long long)frames, nparts,
                    nparts == 1 ? "" : "s", j->devices[0] >= 0 ? "one per CUDA device" : "CPU");
    }
out:
    y4m_slots_abort(&slots);
    if (parts && dir[0]) remove_parts(parts, nparts, dir);
    free(cs);
    free(th);
    free(parts);
    free(names);
    return ret;
}

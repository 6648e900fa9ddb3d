/* The conversion loop (convert.c) and its workers (workers.c): what they
 * share. */
#ifndef OMCTI_CLI_CONVERT_H
#define OMCTI_CLI_CONVERT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "omcti.h"
#include "src/cli/options.h"
#include "src/cli/repeats.h"
#include "src/cli/segment.h"
#include "src/cli/timeline.h"
#include "src/io/async.h"
#include "src/io/io.h"

/* What the workers of one run share: output frames done (for the one
 * progress line) and how many workers have finished. */
typedef struct WorkerBoard {
    atomic_llong frames;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int finished;
} WorkerBoard;

/* Ctrl-C and SIGTERM stop the conversion's blocked reads and writes
 * (convert.c). */
extern const IoCancel convert_cancel;

typedef struct Converter {
    const CliOptions *opt;
    OmctiSettings settings;    /* opt->settings with this worker's device   */
    const char *output;
    int overwrite, quiet;
    int copy_audio;            /* stream-copy the input's audio              */
    const FrameIndex *ix;      /* NULL: the whole input, no seeking          */
    int ix_timed;              /* ix: its timestamps are one per frame slot  */
    Y4mSlots *slots;           /* workers: the shared y4m output, and where  */
    int64_t slot_first;        /* this worker's first frame goes in it      */
    WorkerBoard *board;        /* workers: shared progress, or NULL         */
    SegmentRange range;        /* with ix: what to read and write            */
    VideoReader *in;
    VideoWriter *out;
    AsyncReader *reader;       /* decodes ahead on its own thread          */
    AsyncWriter *writer;       /* encodes behind on its own thread         */
    OmctiContext *ctx;
    int64_t base;              /* index of the first picture read           */
    int64_t have;              /* input pictures sent to the library       */
    int64_t last_index;        /* index of the last one                    */
    int64_t written;           /* output frames written                     */
    int timed;                 /* output frames placed by timestamps       */
    TimedInput ti;
    int64_t audio_origin;      /* whole run: async_reader_audio_origin()     */
    int status;                /* convert_one()'s result (workers)          */
    VideoDamage damage;        /* a piece's: what its reader met            */
    int scan_repeats;          /* look for repeated pictures (a note): the
                                  whole run, or the worker that reads from
                                  the video's start                         */
    RepeatScan repeats;
    int eof;
    char err[1024];
} Converter;

/* The parts of one run: segment, workers, devices. */
typedef struct Job {
    CliOptions *opt;
    FrameIndex ix;
    int have_ix;
    int ix_timed;              /* see Converter                              */
    int64_t *ix_slot;          /* the index's frame slots where it has holes
                                  (segment_index_slots()), else NULL: then
                                  its entries are the slots                 */
    int64_t n;                 /* input frame slots used (index, --frames)   */
    VideoOrigin origin;        /* segment_index_origin()                     */
    Timeline tl;
    SegmentRange range;        /* this process's share of the output         */
    int devices[CLI_MAX_WORKERS]; /* device per worker (cuda), or -1        */
    int n_workers;
    VideoInfo info;            /* the input's                                */
    char err[1024];
} Job;

/* Runs c and releases everything it opened; 0 or an error in c->err (one
 * line, names escaped). */
int convert_one(Converter *c);
/* The warning about timestamp jumps that the n converters cs closed (the
 * first one's, counted from the input's start), or nothing. */
void convert_warn_jumps(const Converter *cs, int n, Rational in_fps);

/* Whether workers write the output in place (y4m_slots.c) rather than as
 * parts to be joined. */
int convert_output_in_place(const char *output);

/* Converts j->range into output with j->n_workers threads (workers.c). */
int convert_workers(Job *j, const char *output, int copy_audio);

/* The output rate of tl for options o, once the input is open: --fps
 * within its limit (exit 2), a --factor rate that fits 31 bits (the
 * input's error), and one the output container's time unit tells apart
 * (io_check_output_timing(), exit 2: the output's name chose it), unless
 * the input's rate is only a guess (info->untimed: its timestamps do not
 * advance) and not --fps's, which is the input's error (exit 1). The
 * single run, the workers and farm check it before anything is written or
 * queued. */
int convert_check_rates(const CliOptions *o, const Timeline *tl, const VideoInfo *info,
                        char *err, size_t errlen);

/* An input of n < 2 pictures, in the one wording of the single run, the
 * workers, --segment and farm: "'IN' has only one video frame; at least two
 * are needed" or "'IN' has no video frames"; OMCTI_ERR_FORMAT. */
int convert_too_few_frames(const char *input, int64_t n, char *err, size_t errlen);
/* An input rate the timeline cannot take, in the same one wording:
 * "'IN': the frame rate N/D is unusable"; OMCTI_ERR_FORMAT. */
int convert_unusable_rate(const char *input, Rational fps, char *err, size_t errlen);

#endif

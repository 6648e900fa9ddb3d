/* The progress line on stderr: frames written, speed, ETA; none under
 * --quiet. On a terminal one line, redrawn at most 4 times a second. Into a
 * log (stderr a file or a pipe: a Slurm job's output, `2> log`), a line of
 * its own every log_period seconds (--stats-period, default 10; 0 none),
 * and a last one at the end when any was written: a short run writes none,
 * as before, and a long one does not fill the log with redraws. */
#ifndef OMCTI_CLI_PROGRESS_H
#define OMCTI_CLI_PROGRESS_H

#include <stdint.h>

typedef struct Progress {
    int enabled;         /* PROGRESS_OFF, _TERMINAL or _LOG             */
    int64_t total;       /* expected output frames, -1 unknown          */
    double start, last;
    double period;       /* seconds between two lines                   */
    int drawn;           /* a line was written                          */
    int64_t shown;       /* the count of the last line written, or -1   */
} Progress;

enum { PROGRESS_OFF, PROGRESS_TERMINAL, PROGRESS_LOG };

void progress_init(Progress *p, int quiet, int64_t total, double log_period);
void progress_update(Progress *p, int64_t done);
void progress_end(Progress *p, int64_t done);

#endif

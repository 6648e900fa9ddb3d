/* The progress line on stderr: frames written, speed, ETA. Shown only when
 * stderr is a terminal and not --quiet; redrawn at most 4 times a second. */
#ifndef OMCTI_CLI_PROGRESS_H
#define OMCTI_CLI_PROGRESS_H

#include <stdint.h>

typedef struct Progress {
    int enabled;
    int64_t total;       /* expected output frames, -1 unknown */
    double start, last;
    int drawn;
} Progress;

void progress_init(Progress *p, int quiet, int64_t total);
void progress_update(Progress *p, int64_t done);
void progress_end(Progress *p, int64_t done);

#endif

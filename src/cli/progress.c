#include <stdio.h>
#include <unistd.h>

#include "src/common.h"
#include "src/cli/progress.h"

void progress_init(Progress *p, int quiet, int64_t total, double log_period)
{
    p->enabled = quiet ? PROGRESS_OFF
                 : isatty(STDERR_FILENO) ? PROGRESS_TERMINAL
                 : log_period > 0 ? PROGRESS_LOG : PROGRESS_OFF;
    p->period = p->enabled == PROGRESS_TERMINAL ? 0.25 : log_period;
    p->total = total;
    p->start = p->last = now_seconds();
    p->drawn = 0;
    p->shown = -1;
}

/* On a terminal the line starts with a carriage return and is padded, so
 * that the next draw covers it; into a log it ends with a newline. */
static void draw(Progress *p, int64_t done, double now)
{
    const double elapsed = now - p->start;
    const double fps = elapsed > 0 ? done / elapsed : 0;
    const int term = p->enabled == PROGRESS_TERMINAL;
    const char *head = term ? "\r" : "", *tail = term ? "   " : "\n";
    if (p->total > 0) {
        const double eta = fps > 0 ? (p->total - done) / fps : 0;
        fprintf(stderr, "%sframe %lld/%lld (%3.0f%%)  %.1f fps  elapsed %.0fs  ETA %.0fs%s", head,
                (long long)done, (long long)p->total, 100.0 * done / p->total, fps, elapsed,
                eta > 0 ? eta : 0, tail);
    } else {
        fprintf(stderr, "%sframe %lld  %.1f fps  elapsed %.0fs%s", head, (long long)done, fps,
                elapsed, tail);
    }
    p->drawn = 1;
    p->shown = done;
}

void progress_update(Progress *p, int64_t done)
{
    if (!p->enabled) return;
    double now = now_seconds();
    if (now - p->last < p->period) return;
    p->last = now;
    draw(p, done, now);
}

void progress_end(Progress *p, int64_t done)
{
    if (p->enabled == PROGRESS_TERMINAL) {
        draw(p, done, now_seconds());
        fputc('\n', stderr);
    } else if (p->enabled == PROGRESS_LOG && p->drawn && p->shown != done) {
        draw(p, done, now_seconds());   /* unless the last line said it already */
    }
}

#include <stdio.h>
#include <unistd.h>

#include "src/common.h"
#include "src/cli/progress.h"

void progress_init(Progress *p, int quiet, int64_t total)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->total = total;
    p->start = p->last = now_seconds();
    p->drawn = 0;
}

static void draw(Progress *p, int64_t done, double now)
{
    const double elapsed = now - p->start;
    const double fps = elapsed > 0 ? done / elapsed : 0;
    if (p->total > 0) {
        const double eta = fps > 0 ? (p->total - done) / fps : 0;
        fprintf(stderr, "\rframe %lld/%lld (%3.0f%%)  %.1f fps  elapsed %.0fs  ETA %.0fs   ",
                (long long)done, (long long)p->total, 100.0 * done / p->total, fps, elapsed,
                eta > 0 ? eta : 0);
    } else {
        fprintf(stderr, "\rframe %lld  %.1f fps  elapsed %.0fs   ", (long long)done, fps, elapsed);
    }
    p->drawn = 1;
}

void progress_update(Progress *p, int64_t done)
{
    if (!p->enabled) return;
    double now = now_seconds();
    if (now - p->last < 0.25) return;
    p->last = now;
    draw(p, done, now);
}

void progress_end(Progress *p, int64_t done)
{
    if (!p->enabled) return;
    draw(p, done, now_seconds());
    fputc('\n', stderr);
}

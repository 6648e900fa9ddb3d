/* `omcti join -o OUT [--audio-from IN] [-y] [-q] [--] PIECE...`: the pieces
 * of `omcti --segment` (in any order: their .sum files place them) into one
 * file, by stream copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "src/cli/cli.h"
#include "src/cli/options.h"
#include "src/cli/segment.h"
#include "src/io/io.h"

/* The copy stops when a signal asks (its handler only sets the flag). */
static const IoCancel join_cancel = { cli_interrupted, 0 };

static const char join_usage[] =
"usage: omcti join -o OUTPUT [--audio-from INPUT] [-y] [-q] [--ffmpeg-log] [--] PIECE...\n"
"\n"
"Joins the pieces written by `omcti --segment I/N` into OUTPUT without\n"
"re-encoding: packets are copied and their timestamps continued from piece\n"
"to piece. y4m pieces join into .y4m. The pieces may be given in any order:\n"
"each one's checksum file (PIECE.sum) says which piece of which conversion\n"
"it is, and the join is refused unless the pieces are all N pieces of one\n"
"conversion, each unchanged since it was written.\n"
"\n"
"  -o FILE             the joined output (its container from the extension)\n"
"  --audio-from FILE   stream-copy the audio and subtitles of FILE (the original\n"
"                      input) under the video and copy its metadata, chapters and\n"
"                      rotation, as a plain conversion does (not for --slowmo)\n"
"  -y                  overwrite OUTPUT if it exists\n"
"  -n                  never overwrite OUTPUT (the default; as FFmpeg's -n)\n"
"  -q, --quiet         no summary line\n"
"  --ffmpeg-log        also print FFmpeg's own warnings (hidden by default)\n"
"  --                  the rest are pieces, even names that start with '-'\n";

int cli_join(int argc, char **argv)
{
    const char *out = NULL, *audio = NULL, *v;
    int overwrite = 0, never = 0, quiet = 0, n = 0, r;
    char err[1024];
    const char **pieces = calloc((size_t)argc + 1, sizeof *pieces);
    if (!pieces) return cli_error(EXIT_FAILURE_RUN, "out of memory");
    for (int i = 1, options = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options || !strcmp(a, "-")) {
            pieces[n++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {   /* pieces only from here on ("-p1.mkv") */
            options = 0;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(join_usage, stdout);
            free(pieces);
            return EXIT_OK;
        }
        if (!strcmp(a, "-y")) { overwrite = 1; continue; }
        if (!strcmp(a, "-n")) { never = 1; continue; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!strcmp(a, "--ffmpeg-log")) { io_show_ffmpeg_log(); continue; }
        if ((r = option_value(argc, argv, &i, "-o", &v, err, sizeof err)) != 0) {
            if (r < 0) goto usage;
            out = v;
            continue;
        }
        if ((r = option_value(argc, argv, &i, "--audio-from", &v, err, sizeof err)) != 0) {
            if (r < 0) goto usage;
            audio = v;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            static const char *const all[] = {
                "-o", "--audio-from", "-y", "-n", "-q", "--quiet", "--ffmpeg-log", "-h",
                "--help", "--", NULL,
            };
            char hint[64];
            snprintf(err, sizeof err, "join: unknown option '%s'%s (see omcti join --help)", a,
                     cli_did_you_mean(a, all, hint, sizeof hint));
            goto usage;
        }
        pieces[n++] = a;
    }
    if (!out || !*out) {
        cli_no_file("join", 1, err, sizeof err);
        goto usage;
    }
    if (overwrite && never) {
        snprintf(err, sizeof err, "join: -y and -n contradict each other");
        goto usage;
    }
    if (!n) {
        snprintf(err, sizeof err, "join: no pieces given (use omcti join -o OUT PIECE...)");
        goto usage;
    }
    cli_install_signal_handlers();
    int64_t frames = 0;
    const char **sorted = calloc((size_t)n, sizeof *sorted);
    int ret = sorted ? 0 : set_error(err, sizeof err, OMCTI_ERR_NOMEM, "out of memory");
    /* The output first (never over a piece), then the set, then the join. */
    for (int k = 0; k < n && ret == 0; k++)
        ret = io_check_output(out, pieces[k], overwrite, err, sizeof err);
    /* the audio keeps its place against the pictures: the pieces' origin */
    VideoOrigin origin = { 0 };
    if (ret == 0) ret = piece_set_check(pieces, n, sorted, NULL, &origin, audio, err, sizeof err);
    if (ret == 0)
        ret = io_join(out, sorted, n, audio, &origin, overwrite, quiet, &join_cancel, &frames,
                      err, sizeof err);
    free(sorted);
    free(pieces);
    /* A stop asked for (Ctrl-C, SIGTERM) ends the checks and the copy:
     * the copy went on to the end and exited 0 before 2026-11-28. */
    if (ret < 0 && cli_interrupted())
        return cli_error(EXIT_INTERRUPTED, "%s; the incomplete output was removed",
                         cli_stop_reason());
    if (ret < 0)
        return cli_error(ret == OMCTI_ERR_INVALID ? EXIT_USAGE : EXIT_FAILURE_RUN, "%s", err);
    if (!quiet)
        fprintf(stderr, "omcti: joined %d pieces, %lld frames, into '%s'\n", n, (long long)frames,
                out);
    return EXIT_OK;
usage:
    free(pieces);
    return cli_usage_error("join", err);
}

/* `omcti -i IN -o OUT`: read pictures, send each to the library, and write
 * the originals and the in-between pictures in output order. The output is
 * opened only once two input pictures are in hand, so a one-frame or broken
 * input never creates a file.
 *
 * The same loop converts a range of the output (`--segment I/N`, and the
 * workers of `--workers N` / `--devices`): it seeks to segment_overlap()
 * frames before the range and writes only the range's output frames
 * (segment.h), which are then bit for bit those of the whole run. */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "omcti.h"
#include "src/common.h"
#include "src/cli/cli.h"
#include "src/cli/convert.h"
#include "src/cli/notes.h"
#include "src/cli/options.h"
#include "src/cli/progress.h"
#include "src/cli/segment.h"
#include "src/cli/timeline.h"
#include "src/io/async.h"
#include "src/io/io.h"

/* Ctrl-C and SIGTERM stop reads and writes blocked on a pipe (main.c
 * installs their handler without SA_RESTART). */
const IoCancel convert_cancel = { cli_interrupted, SIGINT };

/* Reads the next input picture into the library. 1: sent, 0: end. */
static int feed(Converter *c)
{
    if (c->eof) return 0;
    if ((c->ix && c->base + c->have >= c->range.read_to) ||
        (!c->ix && c->opt->max_frames >= 0 && c->have >= c->opt->max_frames)) {
        c->eof = 1;
        return 0;
    }
    OmctiPicture in;
    int ret = async_reader_next(c->reader, &in, c->err, sizeof c->err);
    if (ret < 0) return ret;
    if (ret == 0) {
        c->eof = 1;
        return 0;
    }
    const VideoInfo *info = video_reader_info(c->in);
    if (in.width != info->width || in.height != info->height)
        return set_error(c->err, sizeof c->err, OMCTI_ERR_FORMAT,
                         "'%s': the picture size changes mid-stream (%dx%d to %dx%d), "
                         "which omcti does not support", c->opt->input, info->width,
                         info->height, in.width, in.height);
    if (!c->ctx) {
        /* Opened once a picture exists: a header that promises a huge
         * size costs nothing until a frame of that size really arrives. */
        char oerr[512];
        if ((ret = omcti_open(&c->ctx, &c->settings, info->width, info->height,
                              oerr, sizeof oerr)) < 0)
            return set_error(c->err, sizeof c->err, ret, "%s", oerr);
    }
    /* The picture's number in the whole video: its frame slot by its
     * timestamp where the input has them (a picture that did not decode
     * leaves its slot empty, in a segment as in the whole run), else its
     * frame number. */
    int64_t number = c->base + c->have;
    if (c->timed) {
        if (!c->ix && !c->have) {
            timed_set_origin(&c->ti, async_reader_origin(c->reader));
            c->audio_origin = async_reader_audio_origin(c->reader);
        }
        timed_add(&c->ti, async_reader_pts(c->reader));
        number = timed_last_frame(&c->ti);
    }
    if ((ret = omcti_send_picture_at(c->ctx, &in, number)) < 0)
        return set_error(c->err, sizeof c->err, ret, "%s", omcti_last_error(c->ctx));
    if (c->scan_repeats)
        (void)repeats_add(&c->repeats, &in);   /* a note's only: may give up */
    c->last_index = c->base + c->have++;
    return 1;
}

/* Builds output picture i (the original or the in-between picture at
 * p) straight into the writer's next buffer. */
static int emit(Converter *c, const TimelinePoint *p)
{
    OmctiPicture out;
    int ret = async_writer_acquire(c->writer, &out, c->err, sizeof c->err);
    if (ret < 0) return ret;
    if (p->frame == c->last_index)               /* hold the last frame */
        ret = omcti_interpolate(c->ctx, 1, 1, &out);
    else
        ret = omcti_interpolate(c->ctx, p->num, p->den, &out);
    if (ret < 0)
        return set_error(c->err, sizeof c->err, ret, "%s", omcti_last_error(c->ctx));
    async_writer_commit(c->writer);
    return 0;
}

/* The input's time at the output's time 0, where the copied audio and
 * chapters are placed: frame slot 0 (the index's first timestamp, or the
 * reader's origin the whole run counts from, where packets say it). */
static VideoOrigin output_origin(const Converter *c, const VideoInfo *info)
{
    if (c->ix) return segment_index_origin(c->ix, info->time_base);
    if (c->timed && c->audio_origin != VIDEO_NO_PTS)
        return (VideoOrigin){ c->audio_origin, info->time_base };
    return (VideoOrigin){ 0 };
}

static int open_output(Converter *c, const Timeline *tl)
{
    if (c->slots)
        return y4m_slots_writer(c->slots, c->slot_first, c->range.out_end - c->range.out_first,
                                &c->out, c->err, sizeof c->err);
    const VideoInfo *in_info = video_reader_info(c->in);
    VideoInfo info = *in_info;
    info.fps = tl->out_fps;
    if (c->ix)
        info.nb_frames = c->range.out_end - c->range.out_first;
    else if (info.nb_frames > 0)
        info.nb_frames = timeline_output_count(tl, info.nb_frames);
    /* The audio is read by a second demuxer: never from a pipe, which
     * cannot be opened twice. */
    const int copy_audio = c->copy_audio && in_info->has_audio &&
                           c->opt->mode != RATE_SLOWMO && io_path_is_regular(c->opt->input);
    if (c->copy_audio && in_info->has_audio && !copy_audio && !c->quiet)
        convert_audio_note(c->opt->input, c->opt->mode == RATE_SLOWMO);
    if (in_info->orientation[0] && io_path_is_y4m(c->output) && !c->quiet) {
        char name[1024];
        fprintf(stderr, "omcti: note: '%s' is shown %s (display matrix); "
                "y4m cannot say so, the pictures are written as stored\n",
                io_printable(c->opt->input, name, sizeof name), in_info->orientation);
    }
    const WriterOptions wo = {
        .codec = c->opt->codec,
        .crf = c->opt->crf,
        .lossless = c->opt->lossless,
        .odd_size = c->opt->odd_size,
        .overwrite = c->overwrite,
        .audio_from = copy_audio ? c->opt->input : NULL,
        .origin = output_origin(c, in_info),
        /* the whole output (not a piece): the input's metadata, chapters,
         * subtitles and display matrix, from a file (a pipe cannot be
         * opened twice) */
        .meta_from = c->copy_audio && io_path_is_regular(c->opt->input) ? c->opt->input : NULL,
        .timed_meta = c->opt->mode != RATE_SLOWMO,
        .input_path = c->opt->input,
        .src_pix_fmt = in_info->pix_fmt,
        .quiet = c->quiet,
        .cancel = &convert_cancel,
    };
    return video_writer_open(&c->out, c->output, &info, &wo, c->err, sizeof c->err);
}

/* The rates of tl, once the input is open: --fps at most CLI_MAX_FACTOR x
 * the input's rate, or CLI_MIN_FPS_CAP fps where that is more (a
 * slideshow of a picture every few seconds made a 30 fps video: 150 x),
 * a command-line error (exit 2); an output rate that
 * --factor makes of the input's rate storable (every container keeps two
 * 31-bit terms): an input whose rate is too high for that is the input's
 * fault (exit 1), and named so, not the output. */
int convert_check_rates(const CliOptions *o, const Timeline *tl, const VideoInfo *info,
                        char *err, size_t errlen)
{
    Rational most = rational_mul(tl->in_fps, rational_make(CLI_MAX_FACTOR, 1));
    const Rational floor_cap = rational_make(CLI_MIN_FPS_CAP, 1);
    if (rational_cmp(most, floor_cap) < 0)
        most = floor_cap;
    char in[32], top[32];
    if (o->mode == RATE_FPS && rational_cmp(tl->out_fps, most) > 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "--fps %lld/%lld: more than %d x the %s fps of '%s' (at most %s fps; "
                         "--factor and --slowmo stop at %d too)", (long long)o->fps.num,
                         (long long)o->fps.den, CLI_MAX_FACTOR,
                         rational_text(tl->in_fps, in, sizeof in), o->input,
                         rational_text(most, top, sizeof top), CLI_MAX_FACTOR);
    if (o->mode == RATE_FACTOR && (tl->out_fps.num > INT_MAX || tl->out_fps.den > INT_MAX)) {
        char how[32];
        if (o->factor == 2)
            snprintf(how, sizeof how, "double");
        else
            snprintf(how, sizeof how, "multiply by %d", o->factor);
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the frame rate %lld/%lld is too high to %s exactly", o->input,
                         (long long)tl->in_fps.num, (long long)tl->in_fps.den, how);
    }
    /* the output container's time unit: refused here, before anything is
     * written (a FIFO's reader would get a header and nothing more) or a
     * counting pass, a farm's jobs are queued, as the writer refuses */
    const int ret = io_check_output_timing(o->output, tl->out_fps, err, errlen);
    if (ret < 0 && info->untimed && o->mode != RATE_FPS) {
        /* Its rate is the time base's guess (1000 fps of Matroska's 1 ms):
         * the output's refusal would blame the container for the input's
         * fault (a rate chosen with --fps is the command line's, exit 2). */
        char name[1024], hint[1200];
        io_printable(o->input, name, sizeof name);
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': its timestamps do not advance and it states no frame rate, so "
                         "its timing is unknown (%s)", name,
                         convert_untimed_hint(o->input, hint, sizeof hint));
    }
    return ret;
}

int convert_unusable_rate(const char *input, Rational fps, char *err, size_t errlen)
{
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the frame rate %lld/%lld is unusable",
                     input, (long long)fps.num, (long long)fps.den);
}

int convert_too_few_frames(const char *input, int64_t n, char *err, size_t errlen)
{
    return set_error(err, errlen, OMCTI_ERR_FORMAT, n ? "'%s' has only one video frame; at "
                     "least two are needed" : "'%s' has no video frames", input);
}

static int run(Converter *c)
{
    int ret = video_reader_open_cancel(&c->in, c->opt->input, &convert_cancel, c->err,
                                       sizeof c->err);
    if (ret < 0) return ret;
    /* A piece reads a part of the file: what it met is reported for the
     * part (a segment) or summed over the workers (convert_workers()). */
    if (c->ix)
        video_reader_defer_damage(c->in);
    const VideoInfo *info = video_reader_info(c->in);

    Timeline tl;
    const Rational in_fps = info->vfr ? timeline_vfr_rate(info->fps) : info->fps;
    if (timeline_init(&tl, in_fps, c->opt->mode, c->opt->factor, c->opt->fps) < 0)
        return convert_unusable_rate(c->opt->input, info->fps, c->err, sizeof c->err);
    if ((ret = convert_check_rates(c->opt, &tl, info, c->err, sizeof c->err)) < 0)
        return ret;
    char name[1024];
    io_printable(c->opt->input, name, sizeof name);
    /* A whole run follows the input's timestamps (variable frame rates);
     * a segment too, over the frame slots of the index, which
     * prepare_index() allows only for inputs on the nominal grid (else by
     * frame numbers). Both count from the video's start: the index's first
     * timestamp, or in a whole run the reader's origin (feed()), not the
     * first picture that decodes: pictures that do not decode at the start
     * (a recording cut inside a GOP, a damaged key frame) are slots held by
     * the first picture that does, and a whole run gives the frames of its
     * pieces. */
    c->audio_origin = VIDEO_NO_PTS;
    c->timed = (!c->ix || c->ix_timed) &&
               timed_init(&c->ti, in_fps, info->time_base,
                          c->ix ? c->ix->key[0] : VIDEO_NO_PTS) == 0;
    if (info->vfr && !c->quiet)
        fprintf(stderr, "omcti: note: '%s' has a variable frame rate; %s at a constant "
                "%.3f fps\n", name, c->timed ? "output frames are placed by its timestamps"
                                             : "its pictures are taken as evenly spaced, output",
                rational_to_double(tl.out_fps));
    if (!c->quiet)
        convert_input_notes(c->opt->input, info);
    if (c->ix && c->range.read_from > 0) {
        if ((ret = video_reader_seek(c->in, c->ix, c->range.read_from, c->err,
                                     sizeof c->err)) < 0)
            return ret;
        c->base = c->range.read_from;
    }

    /* What feed() takes and not a picture more; the last part reads on to
     * the end, where a file cut short says so. */
    const int64_t limit = !c->ix ? c->opt->max_frames
                          : c->range.read_to < c->ix->count ? c->range.read_to - c->base : -1;
    if ((ret = async_reader_start(&c->reader, c->in, 3, limit, &convert_cancel, c->err,
                                  sizeof c->err)) < 0)
        return ret;

    for (int k = 0; k < 2; k++) {
        if ((ret = feed(c)) < 0) return ret;
        if (ret == 0)
            return convert_too_few_frames(c->opt->input, c->have, c->err, sizeof c->err);
    }
    if ((ret = open_output(c, &tl)) < 0) return ret;
    if ((ret = async_writer_start(&c->writer, c->out, info->width, info->height, 4,
                                  &convert_cancel, c->err, sizeof c->err)) < 0)
        return ret;

    Progress prog;
    int64_t total = info->nb_frames > 0 ? timeline_output_count(&tl, info->nb_frames) : -1;
    if (c->opt->max_frames > 0 && (total < 0 || c->opt->max_frames < info->nb_frames))
        total = timeline_output_count(&tl, c->opt->max_frames);
    if (c->ix)
        total = c->range.out_end - c->range.out_first;
    progress_init(&prog, c->quiet, total, c->opt->stats_period);

    const int64_t first = c->ix ? c->range.out_first : 0;
    int64_t i = first;
    for (; !c->ix || i < c->range.out_end; i++) {
        if (cli_interrupted())
            return set_error(c->err, sizeof c->err, OMCTI_ERR_INTERRUPT,
                             "%s; the incomplete output was removed", cli_stop_reason());
        TimelinePoint p;
        if (c->timed) {
            /* Read until a picture lies after the output frame's time. */
            while (!c->eof && timed_needs_more(&c->ti, &tl, i))
                if ((ret = feed(c)) < 0) return ret;
            if (!timed_point(&c->ti, &tl, i, &p)) {
                if (!c->ix)
                    break;                          /* past the input's end */
                /* A segment's range comes from the index, which counts
                 * packets; pictures that did not decode at the end are
                 * the last one held, as the whole run holds it. */
                p = (TimelinePoint){ .frame = c->ti.n - 1, .num = 0, .den = 1 };
            }
            p.frame += c->base;                     /* counted from the seek */
        } else {
            p = timeline_point(&tl, i);
            /* Read until the pair (p.frame, p.frame + 1) is the library's. */
            while (p.frame + 1 > c->last_index && !c->eof)
                if ((ret = feed(c)) < 0) return ret;
            if (p.frame > c->last_index && !c->ix)
                break;                              /* past the input's end */
            if (p.frame > c->last_index)            /* pictures that did not */
                p = (TimelinePoint){ .frame = c->last_index, .num = 0, .den = 1 };   /* decode */
        }
        if ((ret = emit(c, &p)) < 0) return ret;
        progress_update(&prog, i - first + 1);
        if (c->board) atomic_fetch_add_explicit(&c->board->frames, 1, memory_order_relaxed);
    }
    c->written = i - first;
    if ((ret = async_writer_drain(c->writer, c->err, sizeof c->err)) < 0) return ret;
    progress_end(&prog, i - first);
    async_writer_stop(&c->writer);
    if ((ret = video_writer_finish(c->out, c->err, sizeof c->err)) < 0) return ret;

    /* (a worker's jumps are reported by convert_workers(), once) */
    if (c->timed && c->ti.jumps && !c->board)
        convert_warn_jumps(c, 1, tl.in_fps);
    if (c->timed && c->ti.off_grid && !info->vfr && !c->quiet)
        fprintf(stderr, "omcti: note: '%s': %lld %s off the nominal %.3f fps; the "
                "output frames were placed by the timestamps\n", name,
                (long long)c->ti.off_grid, c->ti.off_grid == 1 ? "picture is" : "pictures are",
                rational_to_double(tl.in_fps));
    if (c->scan_repeats && !c->board)        /* (the workers': convert_workers()) */
        repeats_note(&c->repeats, name, in_fps);
    if (!c->quiet) {
        OmctiStats st;
        omcti_get_stats(c->ctx, &st);
        fprintf(stderr, "omcti: %lld frames in, %lld out, %lld/%lld fps, engine %s%s",
                (long long)c->have, (long long)c->written, (long long)tl.out_fps.num,
                (long long)tl.out_fps.den, omcti_engine_name(c->ctx),
                st.scene_cuts ? "" : "\n");
        if (st.scene_cuts)
            fprintf(stderr, ", %llu scene cuts\n", (unsigned long long)st.scene_cuts);
    }
    return 0;
}

void convert_warn_jumps(const Converter *cs, int n, Rational in_fps)
{
    /* Workers' parts overlap by a picture or two: a jump there is seen
     * twice, after the same picture of the input. */
    const Converter *first = NULL;
    int more = 0;
    for (int k = 0; k < n; k++) {
        if (!cs[k].timed || !cs[k].ti.jumps)
            continue;
        more |= cs[k].ti.jumps > 1;
        if (!first)
            first = &cs[k];
        else
            more |= cs[k].base + cs[k].ti.jump_after != first->base + first->ti.jump_after;
    }
    if (!first)
        return;
    char name[1024];
    fprintf(stderr, "omcti: warning: '%s': the timestamps jump %.0f s ahead after picture "
            "%lld%s (damage, or a recording resumed); each jump was closed to one frame, so "
            "copied audio after it may be out of step\n",
            io_printable(first->opt->input, name, sizeof name),
            (double)first->ti.jump_frames / rational_to_double(in_fps),
            (long long)(first->base + first->ti.jump_after), more ? " and more times" : "");
}

/* Runs c and releases everything it opened; returns run()'s code. */
int convert_one(Converter *c)
{
    int ret = run(c);
    /* A signal makes blocked I/O fail (EINTR) with messages of its own:
     * what happened is the interruption. */
    if (ret < 0 && cli_interrupted())
        ret = set_error(c->err, sizeof c->err, OMCTI_ERR_INTERRUPT,
                        "%s; the incomplete output was removed", cli_stop_reason());
    if (ret < 0)
        io_escape_message(c->err, sizeof c->err);   /* names and file content */
    async_writer_stop(&c->writer);
    async_reader_stop(&c->reader);
    /* (read once the read-ahead thread has stopped: it counts) */
    if (ret == 0 && c->ix) {
        video_reader_damage(c->in, &c->damage);
        c->damage.pictures = -1;   /* a part's count is not the file's */
        if (!c->board)
            video_damage_warn(c->opt->input, &c->damage);
    }
    if (ret < 0)
        video_writer_abort(&c->out);
    else
        video_writer_close(&c->out);
    video_reader_close(&c->in);
    omcti_close(&c->ctx);
    repeats_free(&c->repeats);
    return ret;
}

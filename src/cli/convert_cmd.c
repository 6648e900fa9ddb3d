/* The command `omcti -i IN -o OUT` (cli_convert()): its options, then one
 * run (convert.c) or the parts of one run: a --segment piece, --workers,
 * --devices (workers.c), over an exact frame index of the input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omcti.h"
#include "src/common.h"
#include "src/cli/cli.h"
#include "src/cli/convert.h"
#include "src/cli/notes.h"
#include "src/cli/options.h"
#include "src/cli/segment.h"
#include "src/cli/timeline.h"
#include "src/io/io.h"

static void print_version(void)
{
    printf("omcti %s (FFmpeg: %s, CUDA: %s, OpenMP: %s)\n", omcti_version(),
           OMCTI_HAVE_FFMPEG ? "yes" : "no", OMCTI_HAVE_CUDA ? "yes" : "no",
           OMCTI_HAVE_OPENMP ? "yes" : "no");
}

/* Which CUDA devices --devices names; fails where there is none. Each
 * worker opens its own device (in parallel: a CUDA context takes a while),
 * and an error there names the device. */
static int pick_devices(Job *j)
{
    CliOptions *o = j->opt;
    char why[512] = "";
    const int count = omcti_engine_available("cuda", why, sizeof why);
    if (count < 1)
        return set_error(j->err, sizeof j->err, OMCTI_ERR_ENGINE,
                         "--devices: no CUDA device can be used here (%s)", why);
    const int n = o->devices_all ? min_i(count, CLI_MAX_WORKERS) : o->n_devices;
    for (int k = 0; k < n; k++) {
        j->devices[k] = o->devices_all ? k : o->devices[k];
        if (j->devices[k] >= count)
            return set_error(j->err, sizeof j->err, OMCTI_ERR_ENGINE,
                             "--devices: there is no CUDA device %d (this host has %d: 0 to %d)",
                             j->devices[k], count, count - 1);
    }
    j->n_workers = n;
    return 0;
}

/* The exact frame count (and seek table): loaded from --index, or one pass
 * over the input. */
static int prepare_index(Job *j)
{
    CliOptions *o = j->opt;
    VideoReader *r = NULL;
    /* (only pieces need an index) */
    int ret = io_check_rereadable(o->input, cli_split_option(o), j->err, sizeof j->err);
    if (ret == 0)
        ret = video_reader_open_cancel(&r, o->input, &convert_cancel, j->err, sizeof j->err);
    if (ret < 0) return ret;
    const VideoInfo *info = video_reader_info(r);
    j->info = *info;
    if (timeline_init(&j->tl, info->vfr ? timeline_vfr_rate(info->fps) : info->fps, o->mode,
                      o->factor, o->fps) < 0) {
        ret = convert_unusable_rate(o->input, info->fps, j->err, sizeof j->err);
    } else if ((ret = convert_check_rates(o, &j->tl, info, j->err, sizeof j->err)) < 0) {
        /* (refused before the counting pass, as the single run refuses
         * before it writes a frame) */
    } else if (o->index_path) {
        ret = frame_index_load(&j->ix, o->index_path, o->input, j->err, sizeof j->err);
    } else {
        /* (y4m: frame offsets follow from the file size, no pass to announce) */
        if (!o->quiet && !o->seg_count && !io_path_is_y4m(o->input))
        {
            char name[1024];
            fprintf(stderr, "omcti: counting the frames of '%s' (a demux-only pass)\n",
                    io_printable(o->input, name, sizeof name));
        }
        ret = video_reader_index(r, &j->ix, j->err, sizeof j->err);
    }
    /* Segments are planned over frame slots, which is exact only for
     * pictures on the nominal grid: a variable-rate input is converted in
     * one run (where its timestamps place the frames). Pictures are placed
     * by their timestamps as in the whole run, so pictures the decoder
     * drops are bridged alike; where the file itself lacks slots (damage
     * the demuxer skipped, a recording's cut first packet), the ranges are
     * planned over the slots and read as the index entries in them. With
     * --frames below its count (a count of pictures, as the whole run reads
     * them) such a file goes by frame numbers. */
    int holes = -1;
    if (ret == 0 && (holes = segment_plan_frames(&j->ix, j->tl.in_fps, info->time_base,
                                                 o->max_frames, &j->ix_slot, &j->n,
                                                 &j->ix_timed)) == OMCTI_ERR_NOMEM)
        ret = set_error(j->err, sizeof j->err, OMCTI_ERR_NOMEM, "out of memory");
    else if (ret == 0)
        ret = segment_plan_refusal(holes, o->input, j->tl.in_fps, j->err, sizeof j->err);
    if (ret == 0) j->origin = segment_index_origin(&j->ix, info->time_base);
    video_reader_close(&r);
    if (ret < 0) {
        free(j->ix_slot);
        j->ix_slot = NULL;
        frame_index_free(&j->ix);
        return ret;
    }
    j->have_ix = 1;
    if (j->n < 2)
        return convert_too_few_frames(o->input, j->n, j->err, sizeof j->err);
    return 0;
}

static int exit_code(int ret)
{
    if (ret == OMCTI_ERR_INTERRUPT) return EXIT_INTERRUPTED;
    return ret == OMCTI_ERR_INVALID ? EXIT_USAGE : EXIT_FAILURE_RUN;
}

int cli_convert(int argc, char **argv)
{
    CliOptions opt;
    Job *j = NULL;
    char err[1024];
    int ret = cli_parse_convert(argc, argv, 1, &opt, err, sizeof err);
    if (ret < 0) return cli_error(EXIT_USAGE, "%s", err);
    if (opt.help) {
        fputs(cli_convert_usage, stdout);
        return EXIT_OK;
    }
    if (opt.version) {
        print_version();
        return EXIT_OK;
    }
    /* Raw pictures on a terminal are garbage, escape sequences among them
     * (gzip and zstd refuse the same). */
    if (!strcmp(opt.output, "-") && isatty(STDOUT_FILENO))
        return cli_error(EXIT_USAGE, "-o -: stdout is a terminal; the y4m stream is not written "
                         "there (pipe it into a program, or redirect it to a file)");
    if (opt.ffmpeg_log)
        io_show_ffmpeg_log();
    cli_install_signal_handlers();
    const int devices = opt.devices_all || opt.n_devices > 0;
    if (!(j = calloc(1, sizeof *j))) return cli_error(EXIT_FAILURE_RUN, "out of memory");
    j->opt = &opt;
    for (int k = 0; k < CLI_MAX_WORKERS; k++) j->devices[k] = -1;
    j->n_workers = opt.workers > 1 ? opt.workers : 1;
    if (devices) {
        if ((ret = pick_devices(j)) < 0) goto out;
        opt.settings.device = j->devices[0];
    }
    /* One device writing y4m in place takes the workers' path, so that one
     * and several devices are the same code (and compare fairly). */
    const int one_worker = j->n_workers == 1 && !(devices && convert_output_in_place(opt.output));
    if (!opt.seg_count && one_worker) {
        free(j);
        Converter c;
        memset(&c, 0, sizeof c);
        c.opt = &opt;
        c.settings = opt.settings;
        c.output = opt.output;
        c.overwrite = opt.overwrite;
        c.quiet = opt.quiet;
        c.scan_repeats = !opt.quiet;
        c.copy_audio = 1;
        ret = convert_one(&c);
        if (ret < 0) return cli_error(exit_code(ret), "%s", c.err);
        return EXIT_OK;
    }

    /* Workers write parts and join them at the end: an output that may not
     * be written (there without -y, the input itself, in a folder that is
     * not there) is refused before the counting pass and the conversion,
     * as a single run refuses it when it opens the output after the first
     * two pictures. */
    if (!opt.seg_count && !one_worker && strcmp(opt.output, "-") &&
        ((ret = io_check_output(opt.output, opt.input, opt.overwrite, j->err,
                                sizeof j->err)) < 0 ||
         (ret = io_check_output_folder(opt.output, j->err, sizeof j->err)) < 0))
        goto out;
    if ((ret = prepare_index(j)) < 0) goto out;
    if (opt.seg_count) {
        if ((ret = segment_check(&j->tl, j->n, opt.seg_count, opt.input, j->err,
                                 sizeof j->err)) < 0)
            goto out;
        segment_range(&j->tl, j->n, opt.seg_index, opt.seg_count, &j->range);
    } else {
        segment_range(&j->tl, j->n, 0, 1, &j->range);
    }
    if (j->ix_slot)
        segment_range_to_index(&j->range, j->n, j->ix_slot, j->ix.count);
    /* Pieces get no audio (the join adds it); a whole run's parts do, and
     * its join copies the input's subtitles, metadata, chapters and rotation
     * too (from a file: a pipe cannot be read twice; not from a y4m, which
     * has none of it, and whose interlace tag Im FFmpeg's demuxer
     * refuses). */
    const int copy_audio = !opt.seg_count && opt.mode != RATE_SLOWMO &&
                           !io_path_is_y4m(opt.output) && !io_input_is_y4m(opt.input) &&
                           io_path_is_regular(opt.input);
    if (!opt.seg_count && j->info.has_audio && opt.mode == RATE_SLOWMO && !opt.quiet)
        convert_audio_note(opt.input, 1);
    char key[8192] = "";
    if (opt.seg_count) {
        segment_options_key(&opt, j->n, j->origin, key, sizeof key);
        /* An output that may not be written (exists without -y) fails
         * first and keeps its checksum file. */
        if (strcmp(opt.output, "-") &&
            (ret = io_check_output(opt.output, opt.input, opt.overwrite, j->err,
                                   sizeof j->err)) < 0)
            goto out;
        if ((ret = piece_sum_prepare(&opt, j->err, sizeof j->err)) < 0) goto out;
    }
    if (!one_worker) {
        if (!opt.quiet)
            convert_input_notes(opt.input, &j->info);   /* the workers are quiet */
        ret = convert_workers(j, opt.output, copy_audio);
        if (ret == 0 && !opt.quiet)
            convert_size_note(opt.output, &j->info);
    } else {
        Converter *c = calloc(1, sizeof *c);
        if (!c) {
            ret = set_error(j->err, sizeof j->err, OMCTI_ERR_NOMEM, "out of memory");
            goto out;
        }
        c->opt = &opt;
        c->settings = opt.settings;
        c->output = opt.output;
        c->overwrite = opt.overwrite;
        c->quiet = opt.quiet;
        c->copy_audio = copy_audio;
        c->ix = &j->ix;
        c->ix_timed = j->ix_timed;
        c->range = j->range;
        ret = convert_one(c);
        if (ret < 0) snprintf(j->err, sizeof j->err, "%s", c->err);
        free(c);
    }
    if (ret == 0 && opt.seg_count && strcmp(opt.output, "-"))
        ret = piece_sum_write(opt.output, key, opt.overwrite, j->err, sizeof j->err);
out:
    if (j->have_ix) frame_index_free(&j->ix);
    free(j->ix_slot);
    if (ret < 0 && cli_interrupted())
        ret = set_error(j->err, sizeof j->err, OMCTI_ERR_INTERRUPT,
                        "%s; the incomplete output was removed", cli_stop_reason());
    if (ret < 0) {
        io_escape_message(j->err, sizeof j->err);
        int code = exit_code(ret);
        cli_error(code, "%s", j->err);
        free(j);
        return code;
    }
    free(j);
    return EXIT_OK;
}

/* The notes a conversion prints about its input and output, besides its
 * errors (docs/cli.md): what the pictures lose on the way, and the size an
 * encoder changed. */
#include <stdio.h>
#include <string.h>

#include "src/cli/notes.h"

/* What the pictures lose on the way (docs/cli.md, "Bit depth, chroma and
 * HDR"): the pipeline and every output are 8-bit 4:2:0. */
void convert_input_notes(const char *input, const VideoInfo *info)
{
    char fmt[64], name[1024];
    /* which one is converted is FFmpeg's CLI's choice, not the user's */
    if (info->video_streams > 1)
        fprintf(stderr, "omcti: note: '%s' has %d video streams; converting stream #%d "
                "(%dx%d)\n", io_printable(input, name, sizeof name), info->video_streams,
                info->stream, info->width, info->height);
    if (info->converted)
        fprintf(stderr, "omcti: note: %s input is processed as 8-bit 4:2:0 and written so "
                "(converted on input)\n", io_printable(info->pix_fmt, fmt, sizeof fmt));
    /* FFmpeg's AVCOL_TRC_SMPTE2084 (16) and AVCOL_TRC_ARIB_STD_B67 (18). */
    const int pq = info->has_color && info->color_trc == 16;
    const int hlg = info->has_color && info->color_trc == 18;
    if (pq || hlg)
        fprintf(stderr, "omcti: note: '%s' is HDR (%s): processed and written in 8 bits, so "
                "smooth gradients may band; encoded outputs keep its colour tags (the same "
                "transfer, coarser steps), not its mastering display or light level data\n",
                io_printable(input, name, sizeof name), pq ? "PQ" : "HLG");
    /* convert_check_rates() refused such an input where the output's
     * container could not hold the guessed rate; elsewhere it converts,
     * at a rate nobody chose */
    if (info->untimed) {
        char hint[1200];
        fprintf(stderr, "omcti: warning: '%s': its timestamps do not advance and it states no "
                "frame rate; it is read at %.3f fps, its container's guess (%s)\n",
                io_printable(input, name, sizeof name),
                info->fps.den ? (double)info->fps.num / (double)info->fps.den : 0.0,
                convert_untimed_hint(input, hint, sizeof hint));
    }
    /* y4m's and FFmpeg's field flags: t/b top/bottom field first, m mixed */
    if (info->interlace == 't' || info->interlace == 'b' || info->interlace == 'm')
        fprintf(stderr, "omcti: note: '%s' is interlaced (%s); its frames are interpolated "
                "as whole pictures and the output is marked progressive (deinterlace it first, "
                "e.g. ffmpeg -vf bwdif, for clean motion)\n",
                io_printable(input, name, sizeof name),
                info->interlace == 't' ? "top field first" : info->interlace == 'b'
                                                                ? "bottom field first"
                                                                : "mixed fields");
}

void convert_audio_note(const char *input, int slowmo)
{
    char name[1024];
    const char *shown = strcmp(input, "-") ? io_printable(input, name, sizeof name) : "stdin";
    if (slowmo)
        fprintf(stderr, "omcti: note: '%s': its audio is dropped in slow motion (the output "
                "has none)\n", shown);
    else
        fprintf(stderr, "omcti: note: '%s': the audio of a pipe cannot be copied; the output "
                "has none\n", shown);
}

/* The workers' writers are quiet: after the join, the note of a single
 * run's writer when the encoder padded or cropped an odd size (docs/cli.md,
 * "Odd sizes"), from the written file. */
void convert_size_note(const char *output, const VideoInfo *in)
{
    VideoReader *r = NULL;
    char err[256], name[1024];
    if (io_path_is_y4m(output) || video_reader_open(&r, output, err, sizeof err) < 0)
        return;
    const VideoInfo *out = video_reader_info(r);
    if (out->width != in->width || out->height != in->height)
        fprintf(stderr, "omcti: note: '%s': the encoder needs an even size: %dx%d is %s to "
                "%dx%d (--odd-size pad, crop or fail chooses)\n",
                io_printable(output, name, sizeof name), in->width, in->height,
                out->width > in->width || out->height > in->height ? "padded" : "cropped",
                out->width, out->height);
    video_reader_close(&r);
}

const char *convert_untimed_hint(const char *input, char *buf, size_t len)
{
    /* the command quotes the name; one with a quote in it would break
     * that quoting: then the command shows where the name goes */
    char name[1024];
    io_printable(input, name, sizeof name);
    snprintf(buf, len, "give it a rate first, e.g. ffmpeg -r 25 -i '%s' -c:v ffv1 timed.mkv",
             strchr(input, '\'') ? "INPUT" : name);
    return buf;
}

/* The notes a conversion prints about its input and output (notes.c). */
#ifndef OMCTI_CLI_NOTES_H
#define OMCTI_CLI_NOTES_H

#include "src/io/io.h"

/* What the pictures of input lose on the way (docs/cli.md, "Bit depth,
 * chroma and HDR", "Interlaced input"): one line each. */
void convert_input_notes(const char *input, const VideoInfo *info);

/* Why the output has none of the audio of input (which has some): slowmo
 * (slow motion has no audio to match it) or, else, input is a pipe (the
 * audio is read by a second demuxer). Names the file, as the other notes
 * do ("stdin" for -i -). */
void convert_audio_note(const char *input, int slowmo);

/* After the join of the workers' pieces (their writers are quiet): the
 * note of a single run's writer when the encoder padded or cropped an odd
 * size, from the written file output. */
void convert_size_note(const char *output, const VideoInfo *in);

/* How an input whose timestamps do not advance and which states no rate
 * gets one (omcti has no option that sets an input's rate): "give it a
 * rate first, e.g. ffmpeg -r 25 -i 'IN' -c:v ffv1 timed.mkv", into buf. */
const char *convert_untimed_hint(const char *input, char *buf, size_t len);

#endif

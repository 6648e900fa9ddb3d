/* What the files of test_ffmpeg_io share (test_ffmpeg_io.c: main and the
 * helpers below; test_ffmpeg_io_core.c: core; test_ffmpeg_io_inputs.c: cli
 * and samples). */
#ifndef OMCTI_TESTS_IO_TEST_FFMPEG_IO_H
#define OMCTI_TESTS_IO_TEST_FFMPEG_IO_H

#include <stddef.h>
#include <stdint.h>

#include <libavformat/avformat.h>

#include "src/io/io.h"
#include "tests/check.h"

#define SKIP 77

/* NAME in the test's temporary folder. */
void path_in(char *buf, size_t n, const char *name);
/* A moving pattern that differs in every plane and every picture. */
void fill(OmctiPicture *p, uint8_t *buf, int w, int h, int k);
int same_picture(const OmctiPicture *a, const OmctiPicture *b);

/* What libavformat sees in a file. */
typedef struct Probe {
    int ok;
    char vcodec[32], pix_fmt[32];
    AVRational avg, rfr;
    int64_t vpackets, vframes;    /* packets of / pictures decoded from the video */
    int64_t apackets;
    double duration;              /* container duration, seconds            */
    double vend;                  /* end of the last video packet, seconds  */
    double aend;                  /* end of the last audio packet, seconds  */
    int nb_audio;
} Probe;
Probe probe(const char *path);

/* Reads the file with the library's reader; counts pictures and, when
 * compare is set, checks each against the pattern. */
int64_t read_all(TestState *ts, const char *path, VideoInfo *info, int compare,
                 int *exact);
void expect_read_error(TestState *ts, const char *path, const char *needle);
int have_ffmpeg_cli(void);
/* system() of fmt with a in each of its (at most four) %s. */
int run(const char *fmt, const char *a);

/* The modes (test_ffmpeg_io_core.c, test_ffmpeg_io_inputs.c). */
void test_core(TestState *ts);
void test_cli_inputs(TestState *ts);
int test_samples(TestState *ts);

#endif

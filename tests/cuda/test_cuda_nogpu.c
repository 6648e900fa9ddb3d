/* The CUDA engine where no GPU can be used must fail cleanly: a clear
 * one-line reason from available(), an error (not a crash) from create()
 * and from omcti_open(engine = "cuda"), and "auto" falling back to cpu.
 *
 * The GPU is hidden with CUDA_VISIBLE_DEVICES="" before the first CUDA
 * call, so this runs the same on CI (no driver, no GPU) and on a GPU
 * machine. In a build without CUDA it checks the registry's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "src/motion/engine.h"
#include "tests/check.h"

static int one_line(const char *s)
{
    return s[0] != '\0' && !strchr(s, '\n');
}

int main(void)
{
    /* Before any CUDA call: the runtime reads it once, at initialisation. */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    TestState ts = { 0, 0 };
    char err[256];

    err[0] = '\0';
    const MotionEngineVTable *v = motion_engine_find("cuda", err, sizeof err);
    CHECK(&ts, v == NULL, "engine 'cuda' found with the GPU hidden");
    CHECK(&ts, one_line(err) && strstr(err, "cuda"), "message '%s'", err);
    printf("find(\"cuda\"): %s\n", err);

    err[0] = '\0';
    v = motion_engine_find("auto", err, sizeof err);
    CHECK(&ts, v && !strcmp(v->name, "cpu"), "auto picked %s", v ? v->name : "nothing");

    err[0] = '\0';
    CHECK(&ts, omcti_engine_available("cuda", err, sizeof err) == 0, "cuda reported available");
    CHECK(&ts, one_line(err), "message '%s'", err);

#if OMCTI_HAVE_CUDA
    err[0] = '\0';
    CHECK(&ts, motion_engine_cuda.available(err, sizeof err) == 0, "available() said yes");
    CHECK(&ts, one_line(err) && strstr(err, "cudaGetDeviceCount"), "message '%s'", err);
    printf("available(): %s\n", err);

    MotionEngine *e = (MotionEngine *)0x1;
    const MotionParams p = { 176, 144, 16, 16, OMCTI_SEARCH_FULL, 1, 0, NULL };
    err[0] = '\0';
    const int rc = motion_engine_cuda.create(&e, &p, err, sizeof err);
    CHECK(&ts, rc == OMCTI_ERR_ENGINE, "create returned %d", rc);
    CHECK(&ts, e == NULL, "create left an engine");
    CHECK(&ts, one_line(err), "message '%s'", err);
    motion_engine_cuda.destroy(&e); /* NULL: must be harmless */
#endif

    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cuda";
    OmctiContext *c = NULL;
    err[0] = '\0';
    const int orc = omcti_open(&c, &s, 176, 144, err, sizeof err);
    CHECK(&ts, orc < 0 && c == NULL, "omcti_open with engine cuda returned %d", orc);
    CHECK(&ts, one_line(err), "message '%s'", err);
    printf("omcti_open(engine=cuda): %s\n", err);
    omcti_close(&c);

    s.engine = "auto";
    const int arc = omcti_open(&c, &s, 176, 144, err, sizeof err);
    CHECK(&ts, arc == 0 && c, "omcti_open with engine auto: %s", err);
    if (c)
        CHECK(&ts, !strcmp(omcti_engine_name(c), "cpu"), "auto runs %s", omcti_engine_name(c));
    omcti_close(&c);
    return test_finish(&ts, "cuda-nogpu");
}

#include <string.h>

#include "src/common.h"
#include "src/motion/engine.h"

static const MotionEngineVTable *const engines[] = {
#if OMCTI_HAVE_CUDA
    &motion_engine_cuda,
#endif
    &motion_engine_cpu,
};

const MotionEngineVTable *motion_engine_find(const char *name, char *err, size_t errlen)
{
    if (!name || !strcmp(name, "auto")) {
        /* The first engine in the table that can run here; cpu always can. */
        for (size_t i = 0; i < ARRAY_LEN(engines); i++)
            if (!engines[i]->available || engines[i]->available(NULL, 0))
                return engines[i];
        set_error(err, errlen, OMCTI_ERR_ENGINE, "no motion engine can run");
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_LEN(engines); i++) {
        if (strcmp(engines[i]->name, name)) continue;
        if (engines[i]->available && !engines[i]->available(err, errlen))
            return NULL;
        return engines[i];
    }
    if (!strcmp(name, "cuda"))
        set_error(err, errlen, OMCTI_ERR_ENGINE,
                  "engine 'cuda' is not available: omcti was built without CUDA (nvcc not found)");
    else
        set_error(err, errlen, OMCTI_ERR_INVALID,
                  "unknown engine '%s' (choose auto, cpu or cuda)", name);
    return NULL;
}

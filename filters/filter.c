#include <string.h>

#include "filters/filter.h"

const OmctiFilter *filter_for_method(OmctiMethod m)
{
    switch (m) {
    case OMCTI_METHOD_OMCTI:  return &filter_omcti;
    case OMCTI_METHOD_MCTI:   return &filter_mcti;
    case OMCTI_METHOD_BLEND:  return &filter_blend;
    case OMCTI_METHOD_REPEAT: return &filter_repeat;
    default:                  return NULL;
    }
}

static const FilterBackend *const device_backends[] = {
#if OMCTI_HAVE_CUDA
    &filter_backend_cuda,
#endif
    NULL,
};

int filter_backend_open(const FilterBackend **be, void **b, const FilterBackend *cpu,
                        const FilterParams *p, OmctiMethod method, char *err, size_t errlen)
{
    *b = NULL;
    if (p->dev && p->dev->type)
        for (size_t i = 0; device_backends[i]; i++) {
            if (strcmp(device_backends[i]->device, p->dev->type->name))
                continue;
            const int ret = device_backends[i]->init(b, p, method, err, errlen);
            if (ret >= 0) {
                *be = device_backends[i];
                return 0;
            }
            if (!p->dev_fallback)
                return ret;
        }
    *be = cpu;
    return cpu->init(b, p, method, err, errlen);
}

MotionVector filter_pair_camera(const FilterPair *pr, int width, int height, int nb,
                                uint32_t *keys)
{
    if (pr->have_cam && pr->fields && pr->fields->fwd.bw * pr->fields->fwd.bh == nb)
        return pr->cam;
    return motion_camera_vector(pr->fields, &pr->area, width, height, nb, keys);
}

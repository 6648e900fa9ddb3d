/* A compute device (a GPU) shared by the motion engine and the filter of
 * one context, like FFmpeg's hardware device contexts: the context opens
 * the device its engine names (MotionEngineVTable.device), hands it to the
 * engine and to the filter, and closes it after both. The device keeps
 * what both use: its streams and one store of device frames, so a frame
 * goes up once for the search and the rendering. Nothing outside kernels/
 * knows what a device holds. */
#ifndef OMCTI_DEVICE_H
#define OMCTI_DEVICE_H

#include <stddef.h>

#include "src/frame.h"

typedef struct DeviceType {
    const char *name;  /* "cuda"; filters pick their backend by it        */
    int  (*open)(void **priv, int index, char *err, size_t errlen);
    /* Optional: the caller's frame f (allocated until after close) may be
     * pinned for direct DMA; failure is not an error (the device then
     * copies through its own staging). */
    void (*register_frame)(void *priv, const OmctiFrame *f);
    void (*close)(void **priv);
} DeviceType;

typedef struct Device {
    const DeviceType *type;  /* NULL: no device (the CPU)                  */
    void *priv;
} Device;

static inline int device_open(Device *d, const DeviceType *type, int index, char *err,
                              size_t errlen)
{
    d->type = NULL;
    d->priv = NULL;
    const int ret = type->open(&d->priv, index, err, errlen);
    if (ret >= 0)
        d->type = type;
    return ret;
}

static inline void device_close(Device *d)
{
    if (d->type)
        d->type->close(&d->priv);
    d->type = NULL;
}

#endif

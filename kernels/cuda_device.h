/* The CUDA device of a context (src/device.h): its streams and the one
 * store of device frames that the motion search (cuda_engine.c) and the
 * filter backend (cuda_filter.c) both use, so each frame goes up once.
 * Internal to kernels/. */
#ifndef OMCTI_KERNELS_CUDA_DEVICE_H
#define OMCTI_KERNELS_CUDA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "filters/mc_block.h"
#include "src/device.h"
#include "src/frame.h"

#define NSLOTS 3               /* device frames kept (a pair + one spare)  */
#define MAX_REG 8              /* host ranges registered (pinned) at once  */

typedef struct DevFrame {
    uint8_t *buf;              /* device copy of the padded planes          */
    uint64_t serial;           /* frame it holds; 0 = not reusable         */
    uint64_t used;             /* last use (LRU)                           */
    int planes;                /* planes uploaded: 1 (luma) or 3           */
} DevFrame;

/* Where one plane of a context frame lies, host and device. */
typedef struct PlaneLayout {
    ptrdiff_t stride;
    size_t off;                /* plane data - plane buf                   */
    size_t bytes;              /* bytes uploaded (rows above .. pad below) */
    size_t dev_off;            /* offset of the plane in a device slot     */
    int w, h;
    int ylo, yhi, xlo, xhi;    /* readable area relative to (0, 0)         */
} PlaneLayout;

typedef struct HostRange {
    const uint8_t *p;
    size_t n;
} HostRange;

typedef struct CudaDevice {
    int dev;
    char name[320];
    cudaStream_t stream;       /* luma uploads, kernels, results back      */
    cudaStream_t stream2;      /* chroma uploads, pictures back            */
    cudaEvent_t ev_up;         /* the last chroma upload                   */
    /* The frame store. Layout of the cached planes (taken from the first
     * frame; a frame of another layout drops the cache and reallocates). */
    PlaneLayout lay[3];
    size_t slot_bytes;
    int need_planes;           /* 1: search only; 3: the filter renders here */
    DevFrame slot[NSLOTS];
    uint8_t *stage[2];         /* pinned staging, one per frame of a pair  */
    HostRange reg[MAX_REG];    /* context frames pinned in place           */
    int nreg;
    uint64_t tick;
    unsigned long uploads;
    unsigned long direct_uploads; /* planes copied straight from pinned frames */
    /* The fields of the last search, on the device (the engine's output
     * buffer, MotionVector layout), for the filter's vector choice: valid
     * for the pair of serials fields_prev, fields_next (0: none). */
    const McVec *d_fwd, *d_bwd;
    uint64_t fields_prev, fields_next;
} CudaDevice;

extern const DeviceType cuda_device_type;

/* OMCTI_ERR_ENGINE with the call's name and CUDA's message. */
int cuda_fail(char *err, size_t errlen, const char *call, cudaError_t rc);

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        const cudaError_t rc_ = (call);                                                   \
        if (rc_ != cudaSuccess)                                                           \
            return cuda_fail(err, errlen, #call, rc_);                                    \
    } while (0)

/* 1 when a CUDA GPU can run this build's kernels, else 0 with why in err. */
int cuda_available(char *err, size_t errlen);

/* Opens device `index`; the engine's and the filter's tests open one
 * themselves, a context through cuda_device_type. */
int  cuda_device_create(CudaDevice **d, int index, char *err, size_t errlen);
void cuda_device_destroy(CudaDevice **d);

/* Frames uploaded from now on carry `planes` planes (1 or 3); a cached
 * frame with fewer gets the rest when it is next made resident. */
void cuda_device_need_planes(CudaDevice *d, int planes);

/* Waits for both streams (every call that copies from the caller's frames
 * ends with this, so the caller may rewrite them afterwards). */
int cuda_device_sync(CudaDevice *d, char *err, size_t errlen);

/* Makes prev and next resident with need_planes planes (uploading what is
 * missing, luma on stream, chroma on stream2 then ev_up recorded) and
 * returns their slots. The streams must be idle (staging is reused). */
int cuda_frames_resident(CudaDevice *d, const OmctiFrame *prev, const OmctiFrame *next,
                         int *sp, int *sn, char *err, size_t errlen);

/* Device plane c of slot s, for the filter kernels. */
McPlaneView cuda_dev_plane(const CudaDevice *d, int s, int c);

#endif

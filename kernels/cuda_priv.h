/* State of the CUDA engine shared by its two host files: cuda_engine.c
 * (frames, motion search) and cuda_filter.c (interpolation on the GPU).
 * Internal to kernels/. */
#ifndef OMCTI_KERNELS_CUDA_PRIV_H
#define OMCTI_KERNELS_CUDA_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/cuda_mc.h"
#include "kernels/cuda_me.h"
#include "filters/scenecut.h"
#include "src/common.h"
#include "src/motion/engine.h"

#define NSLOTS 3               /* device frames kept (a pair + one spare)  */
#define MAX_REG 8              /* host ranges registered (pinned) at once  */
#define NBANDS 4               /* render/download pipeline depth           */

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

/* Interpolation state (cuda_filter.c); method < 0: the CPU filters run. */
typedef struct CudaInterp {
    int method;                /* OmctiMethod, or -1                       */
    int overlap;
    uint32_t *d_vec;           /* vec_a, cost_a, vec_c: nb each            */
    int32_t *d_tab;
    int K;
    long long tab_num, tab_den;
    int16_t *d_mask;           /* [2][3][1024]                             */
    uint8_t *d_pic, *h_pic;    /* dense Y, U, V of one output picture      */
    size_t pic_bytes;
    cudaEvent_t ev_band[NBANDS], ev_dl[NBANDS];
    SceneCut scd;
    int cut, stepwise;
    uint64_t stats_prev, stats_next; /* pair whose statistics are in h_out */
    int threads;
} CudaInterp;

struct MotionEngine {
    MotionParams p;
    int dev;
    int bw, bh;
    cudaStream_t stream;       /* luma uploads, kernels, fields back       */
    cudaStream_t stream2;      /* chroma uploads, pictures back            */
    cudaEvent_t ev0, ev1, ev_up;
    /* Layout of the cached planes (taken from the first frame; a frame of
     * another layout drops the cache and reallocates). */
    PlaneLayout lay[3];
    size_t slot_bytes;
    int need_planes;           /* 1: motion only; 3: the GPU interpolates  */
    DevFrame slot[NSLOTS];
    uint8_t *stage[2];         /* pinned staging, one per frame of a pair  */
    HostRange reg[MAX_REG];    /* context frames pinned in place           */
    int nreg;
    uint64_t tick;
    unsigned long uploads;
    unsigned long direct_uploads; /* planes copied straight from pinned frames */
    int tile_k;                /* 0, or forced (benchmarks, tests)         */
    void *d_out, *h_out;       /* points (u64), mv/sad fwd, mv/sad bwd, stats */
    size_t out_bytes, stats_off;
    CudaInterp ip;
    char name[320];
};

int cuda_fail(char *err, size_t errlen, const char *call, cudaError_t rc);

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        const cudaError_t rc_ = (call);                                                   \
        if (rc_ != cudaSuccess)                                                           \
            return cuda_fail(err, errlen, #call, rc_);                                    \
    } while (0)

/* Makes prev and next resident with need_planes planes (uploading what is
 * missing, luma on stream, chroma on stream2 then ev_up recorded) and
 * returns their slots. */
int cuda_frames_resident(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                         int *sp, int *sn, char *err, size_t errlen);

/* Device plane of slot s, plane c, for the interpolation kernels. */
CudaMcPlane cuda_dev_plane(const MotionEngine *e, int s, int c);

/* cuda_filter.c, behind MotionEngineVTable's interp_* entries. */
int  cuda_interp_init(MotionEngine *e, const MotionInterpParams *p, char *err, size_t errlen);
int  cuda_interp_pair(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                      const MotionFields *f, int *cut, char *err, size_t errlen);
int  cuda_interp_picture(MotionEngine *e, const OmctiFrame *prev, const OmctiFrame *next,
                         int64_t num, int64_t den, OmctiPicture *out, char *err, size_t errlen);
int  cuda_interp_holds(MotionEngine *e);
void cuda_interp_free(MotionEngine *e);
/* Launches the statistics kernel for the pair (slots sp, sn) on stream. */
int  cuda_interp_stats_launch(MotionEngine *e, int sp, int sn, char *err, size_t errlen);

#endif

/* The CUDA backend's work split (kernels/mc_gpu.h over filters/mc_block.h
 * and mc_stages.h) run sequentially on the CPU, one "warp" at a time with
 * one lane, against the CPU backend of filters/: the OMCTI and MCTI
 * pictures, blend, and the scene-cut statistics must be equal bit for bit, for random and structured
 * content, sizes that are and are not multiples of the block (odd ones
 * too), blocks 8/16/32, both searches and phases 1/2, 1/3, 2/5, 7/8.
 *
 * Needs no GPU and no CUDA: it checks in CI what the device test checks on
 * a GPU, except the thread mapping of the kernels (tests/cuda/
 * test_cuda_equiv.c does that, with the real kernels).
 *
 *   test_cuda_mc_emul [--y4m FILE]     (or OMCTI_TEST_Y4M=FILE) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters/filter.h"
#include "filters/mc.h"
#include "filters/scenecut.h"
#include "kernels/mc_gpu.h"
#include "src/common.h"
#include "src/frame.h"
#include "src/motion/engine.h"
#include "tests/check.h"
#include "tests/cuda/cuda_test_util.h"

static const int64_t phases[][2] = { { 1, 2 }, { 1, 3 }, { 2, 5 }, { 7, 8 } };

static McPlaneView host_plane(const OmctiPlane *p)
{
    const McPlaneView q = { p->data, (int)p->stride, p->w, p->h };
    return q;
}

/* Emulates the kernels' work for one picture of one pair. */
static void emulate(const OmctiFrame *P, const OmctiFrame *N, const MotionFields *f, int block,
                    int range, int method, int64_t num, int64_t den, OmctiPicture *out,
                    long *blocks, long *models)
{
    const int w = P->width, h = P->height;
    const int nbx = (w + block - 1) / block, nby = (h + block - 1) / block, nb = nbx * nby;
    CudaMcArgs a;
    memset(&a, 0, sizeof a);
    for (int c = 0; c < 3; c++) {
        a.prev[c] = host_plane(&P->p[c]);
        a.next[c] = host_plane(&N->p[c]);
        a.out[c] = out->data[c];
        a.out_stride[c] = (int)out->stride[c];
    }
    a.g = mc_grid_make(w, h, block);
    a.overlap = method == OMCTI_METHOD_OMCTI;
    a.wt = phase_weight256(num, den);
    if (method == OMCTI_METHOD_BLEND) {
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < (c ? chroma_size(h) : h); y++)
                for (int x = 0; x < (c ? chroma_size(w) : w); x++)
                    out->data[c][(ptrdiff_t)y * out->stride[c] + x] =
                        (uint8_t)mc_blend_pixel(&a, c, x, y);
        return;
    }
    McVec *vec = malloc(20 * (size_t)nb * sizeof *vec);
    uint8_t *split = malloc(4 * (size_t)nb);
    a.fwd = (const McVec *)f->fwd.mv; /* MotionVector is McVec's layout */
    a.bwd = (const McVec *)f->bwd.mv;
    uint32_t *keys = malloc(MOTION_CAMERA_KEYS(nb) * sizeof *keys);
    const ActiveArea full = { 0, 0, 0, 0 };
    /* host code, as in kernels/cuda_filter.c */
    const MotionVector g = motion_camera_vector(f, &full, w, h, nb, keys);
    a.cam = (McVec){ g.x, g.y };
    const FilterPair pr = { P, N, f, full, 0, { 0, 0 }, 0, 0 };
    mc_camera_model(&pr, w, h, g, &a.cam_model);
    *models += a.cam_model.on;
    free(keys);
    a.vec_a = vec;
    a.vec_c = vec + nb;
    a.vec_q = vec + 2 * nb;
    a.split = split;
    if (a.overlap) {   /* as in kernels/cuda_filter.c */
        a.gs = mc_grid_shifted(&a.g);
        a.vec_sa = vec + 6 * nb;
        a.vec_sc = vec + 7 * nb;
        a.vec_sq = vec + 8 * nb;
        a.split_s = split + nb;
        mc_other_grids(&a, vec + 12 * nb, split + 2 * nb, (size_t)nb);
        /* neither 0 nor 1: a reader of a byte that k_choose_other did not
         * write renders another picture, or fails the check below */
        memset(a.acts, 2, (size_t)nb);
    }
    const int K = 16 * (range + 2);
    int32_t *tab = malloc((2 * (size_t)K + 1) * sizeof *tab);
    for (int k = -K; k <= K; k++)
        tab[k + K] = (int32_t)mc_rdiv(num * k, den);
    a.ph = (McPhase){ tab, K, num, den };
    for (int k = 0; k < nb; k++)
        mc_choose_block(&a, k);
    for (int k = 0; k < nb; k++)
        mc_refine_block(&a, k);
    if (a.overlap)
        for (int k = 0; k < nb; k++) {
            mc_quad_block(&a, k);
            blocks[0] += split[k];
        }
    if (a.overlap) {   /* the shifted grid, as kernels/mc_kernels.cu launches it */
        for (int k = 0; k < mc_other_count(&a); k++)
            mc_choose_other_block(&a, k);
        for (int k = 0; k < a.gs.nbx * a.gs.nby; k++)
            blocks[1] += mc_shifted_active(&a.g, a.vec_a, k % a.gs.nbx, k / a.gs.nbx);
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < a.gh[h].nbx * a.gh[h].nby; k++)
                blocks[3] += mc_shifted_active(&a.g, a.vec_a, k % a.gh[h].nbx, k / a.gh[h].nbx);
        /* the acting indices that the later stages and the render read:
         * every block of every other grid finds its own decision there */
        for (int i = 0; i < 3; i++) {
            const McGrid *gg = i ? &a.gh[i - 1] : &a.gs;
            for (int k = 0; k < gg->nbx * gg->nby; k++) {
                const int bx = k % gg->nbx, by = k / gg->nbx;
                blocks[5] += a.acts[by * a.g.nbx + bx] != mc_shifted_active(&a.g, a.vec_a, bx, by);
            }
        }
        for (int k = 0; k < mc_other_count(&a); k++)
            mc_refine_other_block(&a, k);
        for (int k = 0; k < mc_split_count(&a); k++)
            mc_quad_other_block(&a, k);
        for (int k = 0; k < a.gs.nbx * a.gs.nby; k++)
            blocks[2] += a.split_s[k];
        for (int k = 0; k < a.gh[1].nbx * a.gh[1].nby; k++)
            blocks[4] += a.split_h[k];
    }
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < (c ? chroma_size(h) : h); y++)
            for (int x = 0; x < (c ? chroma_size(w) : w); x++)
                out->data[c][(ptrdiff_t)y * out->stride[c] + x] =
                    (uint8_t)mc_render_pixel(&a, c, x, y);
    free(vec);
    free(split);
    free(tab);
}

/* The scene-cut statistics as the GPU computes them (a lane per row of a
 * block, 32 lanes over the columns of a row), against the CPU backend's. */
static void check_stats(TestState *ts, const char *what, const FilterPair *pr, int block)
{
    const OmctiPlane *N = &pr->next->p[0];
    const McPlaneView p = host_plane(&pr->prev->p[0]), n = host_plane(N);
    unsigned long long act = 0;
    for (int y = 0; y < N->h - 1; y += 2)
        for (int lane = 0; lane < 32; lane++)
            act += mc_activity_part(&n, y, lane, 32);
    uint32_t textured = 0, same = 0;
    for (int by = 0; by < N->h / block; by++)
        for (int bx = 0; bx < N->w / block; bx++) {
            int r = 3;
            for (int y = block - 1; y >= 0; y--) /* any order: an AND */
                r &= mc_static_row(&p, &n, block, bx, by, y);
            if (!(r & 1)) {
                textured++;
                same += (r >> 1) & 1;
            }
        }
    McSceneStats st;
    scenecut_stats(pr, block, 1, &st);
    CHECK(ts, st.activity == act && st.textured == textured && st.same == same,
          "%s: statistics %llu %u %u vs %llu %u %u", what, act, textured, same, st.activity,
          st.textured, st.same);
    /* a cost and a share that move with the statistics */
    CHECK(ts, scenecut_share(&st) == (textured ? (uint32_t)((uint64_t)same * 256 / textured) : 0),
          "%s: share", what);
}

/* The static share's blocks, one kind each (scenecut_stats() decides them
 * 8 pixels at a time and stops at the first row that settles both bits):
 * textured and equal, equal but for one pixel (first, last, or inside a
 * middle row), flat, flat but for one pixel (textured), flat in prev with
 * next differing (not textured), flat in the last row only. */
static void test_static_share(TestState *ts, int block)
{
    const int nbx = 4, nby = 3, w = nbx * block + 3, h = nby * block + 2; /* + partial blocks */
    OmctiFrame fr[2];
    if (frame_alloc(&fr[0], w, h, 32) < 0 || frame_alloc(&fr[1], w, h, 32) < 0) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    OmctiPlane *P = &fr[0].p[0], *N = &fr[1].p[0];
    unsigned seed = 99u + (unsigned)block;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            seed = seed * 1103515245u + 12345u;
            P->data[(ptrdiff_t)y * P->stride + x] = N->data[(ptrdiff_t)y * N->stride + x] =
                (uint8_t)(seed >> 16);
        }
    int textured = 0, same = 0;
    for (int k = 0; k < nbx * nby; k++) {
        uint8_t *p = P->data + (ptrdiff_t)(k / nbx) * block * P->stride + (k % nbx) * block;
        uint8_t *n = N->data + (ptrdiff_t)(k / nbx) * block * N->stride + (k % nbx) * block;
        /* the last pixel, and one inside a middle row, of each plane */
        const ptrdiff_t last = (ptrdiff_t)(block - 1) * P->stride + block - 1;
        const ptrdiff_t nlast = (ptrdiff_t)(block - 1) * N->stride + block - 1;
        const ptrdiff_t nmid = (ptrdiff_t)(block / 2) * N->stride + block / 2 + 1;
        const int kind = k % 8;
        if (kind == 2 || kind == 3 || kind == 4 || kind == 7)   /* flat, equal */
            for (int y = 0; y < block; y++) {
                memset(p + (ptrdiff_t)y * P->stride, 77, (size_t)block);
                memset(n + (ptrdiff_t)y * N->stride, 77, (size_t)block);
            }
        switch (kind) {
        case 0: textured++; same++; break;                    /* textured, equal */
        case 1: n[nlast] ^= 1; textured++; break;             /* the last pixel differs */
        case 2: break;                                        /* flat */
        case 3: p[last] = n[nlast] = 78; textured++; same++; break; /* one pixel off flat */
        case 4: n[nmid] = 5; break;                           /* flat prev, next differs */
        case 5: n[0] ^= 0x80; textured++; break;              /* the first pixel differs */
        case 6: n[nmid] ^= 2; textured++; break;              /* inside a middle row */
        default:                                              /* flat but the last row */
            memset(p + (ptrdiff_t)(block - 1) * P->stride, 0, (size_t)block);
            memset(n + (ptrdiff_t)(block - 1) * N->stride, 0, (size_t)block);
            textured++;
            same++;
            break;
        }
    }
    const FilterPair pr = { &fr[0], &fr[1], NULL, { 0, 0, 0, 0 }, 0, { 0, 0 }, 0, 0 };
    char what[64];
    snprintf(what, sizeof what, "static share, blocks of %d", block);
    check_stats(ts, what, &pr, block);
    McSceneStats st;
    scenecut_stats(&pr, block, 2, &st);
    CHECK(ts, st.textured == (uint32_t)textured && st.same == (uint32_t)same,
          "%s: %u textured, %u same; want %d, %d", what, st.textured, st.same, textured, same);
    frame_free(&fr[0]);
    frame_free(&fr[1]);
}

static long run_clip(TestState *ts, const char *label, const YuvClip *clip, int block, int range,
                     OmctiSearch search, int npairs, long *blocks, long *models)
{
    const int w = clip->w, h = clip->h;
    const int pad = motion_required_pad(block, range) + 32;
    OmctiFrame fr[2];
    MotionFields f;
    MotionEngine *me = NULL;
    char err[256] = "";
    long checked = 0;
    memset(&f, 0, sizeof f);
    MotionParams mp = { w, h, block, range, search, 1, 0, NULL };
    if (frame_alloc(&fr[0], w, h, pad) < 0 || frame_alloc(&fr[1], w, h, pad) < 0 ||
        motion_fields_alloc(&f, w, h, block) < 0 ||
        motion_engine_cpu.create(&me, &mp, err, sizeof err) < 0) {
        CHECK(ts, 0, "%s: setup failed: %s", label, err);
        return 0;
    }
    YuvClip ref, emu;
    yuv_clip_alloc(&ref, w, h, 1);
    yuv_clip_alloc(&emu, w, h, 1);
    const int methods[3] = { OMCTI_METHOD_OMCTI, OMCTI_METHOD_MCTI, OMCTI_METHOD_BLEND };
    for (int i = 0; i + 1 < clip->n && i < npairs; i++) {
        frame_copy_in(&fr[0], &clip->pic[i]);
        frame_copy_in(&fr[1], &clip->pic[i + 1]);
        fr[0].serial = (uint64_t)i + 1;
        fr[1].serial = (uint64_t)i + 2;
        int rc = motion_engine_cpu.estimate(me, &fr[0], &fr[1], &f, err, sizeof err);
        CHECK(ts, rc == 0, "%s: estimate: %s", label, err);
        const FilterPair pr = { &fr[0], &fr[1], &f, { 0, 0, 0, 0 }, 0, { 0, 0 }, 0, 0 };
        char what[200];
        snprintf(what, sizeof what, "%s %dx%d B%d R%d %s pair %d", label, w, h, block, range,
                 search == OMCTI_SEARCH_FULL ? "full" : "diamond", i);
        check_stats(ts, what, &pr, block);
        for (int m = 0; m < 3; m++) {
            const OmctiFilter *flt = filter_for_method((OmctiMethod)methods[m]);
            /* 3 threads: the bands' halos are part of what must match */
            const FilterParams fp = { w, h, block, range, 3, OMCTI_SCD_NONE, 1.0, NULL, 0 };
            void *priv = NULL;
            if (flt->init(&priv, &fp, err, sizeof err) < 0) {
                CHECK(ts, 0, "%s: filter init: %s", what, err);
                continue;
            }
            if (flt->new_pair)
                flt->new_pair(priv, &pr, err, sizeof err);
            for (size_t ph = 0; ph < ARRAY_LEN(phases); ph++) {
                const int64_t num = phases[ph][0], den = phases[ph][1];
                memset(ref.buf[0], 0xa5, (size_t)w * h + 2 * (size_t)chroma_size(w) * chroma_size(h));
                memset(emu.buf[0], 0x5a, (size_t)w * h + 2 * (size_t)chroma_size(w) * chroma_size(h));
                flt->picture(priv, &pr, num, den, &ref.pic[0], err, sizeof err);
                emulate(&fr[0], &fr[1], &f, block, range, methods[m], num, den, &emu.pic[0],
                        blocks, models);
                char w2[260];
                snprintf(w2, sizeof w2, "%s %s t=%lld/%lld", what, flt->name, (long long)num,
                         (long long)den);
                const int bad = yuv_compare(w2, &ref.pic[0], &emu.pic[0]);
                CHECK(ts, bad == 0, "%s: %d pixels differ", w2, bad);
                checked++;
            }
            flt->uninit(&priv);
        }
    }
    yuv_clip_free(&ref);
    yuv_clip_free(&emu);
    motion_engine_cpu.destroy(&me);
    motion_fields_free(&f);
    frame_free(&fr[0]);
    frame_free(&fr[1]);
    return checked;
}

int main(int argc, char **argv)
{
    const char *y4m = getenv("OMCTI_TEST_Y4M");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--y4m") && i + 1 < argc)
            y4m = argv[++i];
    TestState ts = { 0, 0 };
    /* per block size (8, 16, 32): blocks split, shifted-grid blocks that
     * acted, those of them split, and half-shifted grids' blocks that
     * acted, the down-shifted grid's blocks split, and other grids' blocks
     * whose acting index (CudaMcArgs acts) is not their decision */
    long pictures = 0, blocks[3][6] = { { 0 }, { 0 }, { 0 } };
    long models = 0;   /* pictures chosen with a camera model */
    for (int b = 4; b <= 32; b += 4)   /* 8, 16, 32 by words; the others byte by byte */
        test_static_share(&ts, b);
    static const int sizes[][2] = { { 64, 48 }, { 77, 53 }, { 176, 144 }, { 33, 17 }, { 9, 7 } };
    static const char *const names[3] = { "motion", "noise", "ties" };
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++)
        for (int content = 0; content < 3; content++) {
            YuvClip clip;
            if (yuv_clip_make(&clip, sizes[s][0], sizes[s][1], 3, content,
                              0x777u + (uint32_t)s * 13u) < 0) {
                CHECK(&ts, 0, "out of memory");
                yuv_clip_free(&clip);
                continue;
            }
            for (int b = 8; b <= 32; b *= 2)
                for (int search = 0; search < 2; search++)
                    pictures += run_clip(&ts, names[content], &clip, b, b == 16 ? 16 : 7,
                                         (OmctiSearch)search, 2, blocks[b / 16], &models);
            yuv_clip_free(&clip);
        }
    /* a zoom, so that the camera model (filters/mc_camera.c) steers the
     * choice on both sides of the comparison */
    {
        YuvClip clip;
        if (yuv_clip_make(&clip, 320, 240, 3, CONTENT_ZOOM, 0x4321u) < 0)
            CHECK(&ts, 0, "out of memory");
        else
            for (int b = 8; b <= 16; b *= 2)
                pictures += run_clip(&ts, "zoom", &clip, b, 16, OMCTI_SEARCH_FULL, 2,
                                     blocks[b / 16], &models);
        yuv_clip_free(&clip);
    }
    if (y4m) {
        YuvClip clip;
        const int n = yuv_clip_read(&clip, y4m, 3, 0);
        CHECK(&ts, n >= 2, "cannot read 2 pictures of %s", y4m);
        if (n >= 2)
            for (int b = 8; b <= 32; b *= 2)
                pictures += run_clip(&ts, "y4m", &clip, b, 16, OMCTI_SEARCH_FULL, 1,
                                     blocks[b / 16], &models);
        yuv_clip_free(&clip);
    }
    /* the split render must have run at every block size (block 8's chroma
     * quarters are 2x2), or its comparison proved nothing */
    for (int i = 0; i < 3; i++) {
        CHECK(&ts, blocks[i][0] > 0, "blocks of %d: none took the quadrant split", 8 << i);
        CHECK(&ts, blocks[i][1] > 0, "blocks of %d: no block of the shifted grid acted", 8 << i);
        CHECK(&ts, blocks[i][2] > 0, "blocks of %d: no block of the shifted grid split", 8 << i);
        CHECK(&ts, blocks[i][3] > 0, "blocks of %d: no block of the half-shifted grids acted",
              8 << i);
        CHECK(&ts, blocks[i][4] > 0, "blocks of %d: no block of the down-shifted grid split",
              8 << i);
        CHECK(&ts, blocks[i][5] == 0,
              "blocks of %d: %ld blocks of the other grids read another decision at their index",
              8 << i, blocks[i][5]);
    }
    CHECK(&ts, models > 0, "no picture was chosen with a camera model: the zoom proved nothing");
    printf("%ld pictures compared, %ld / %ld / %ld blocks split, %ld / %ld / %ld shifted "
           "blocks acting and %ld / %ld / %ld of them split, %ld / %ld / %ld half-shifted "
           "blocks acting and %ld / %ld / %ld down-shifted blocks split (blocks of 8 / 16 / "
           "32), %ld with a camera model\n",
           pictures, blocks[0][0], blocks[1][0], blocks[2][0], blocks[0][1], blocks[1][1],
           blocks[2][1], blocks[0][2], blocks[1][2], blocks[2][2], blocks[0][3], blocks[1][3],
           blocks[2][3], blocks[0][4], blocks[1][4], blocks[2][4], models);
    return test_finish(&ts, "cuda-mc-emul");
}

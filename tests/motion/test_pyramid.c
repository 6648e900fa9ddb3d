/* The pyramid search (OMCTI_SEARCH_PYRAMID) of the CPU engine:
 * (a) its fields equal an independent plain-C run of the design (levels by
 *     clamped 2x2 means, every SAD by clamped reads, one thread), built from
 *     src/motion/pyramid_block.h's per-block functions, for thread counts
 *     1, 2, 3, 7, blocks 8/16/32 and vectors far outside the padding;
 * (b) a global pan of 100 px at 1920x1080 is found exactly at every
 *     interior block, forward and backward (and at the picture corners the
 *     vectors point far outside the frames: the ASan build checks reads);
 * (c) the pyramid kept for the next pair (frame serials) changes nothing;
 * (d) level 0's temporal candidates (pyramid_level0.h): a pair that follows
 *     its previous pair (serials) equals the reference given the vectors
 *     that pair kept (its final ones, its base ones where its picture
 *     numbers enclose a multiple of PYR_CHAIN), the candidates change the
 *     fields where a small object moves fast, and a pair depends on no pair
 *     before the one that encloses the last multiple of PYR_CHAIN at or
 *     before its prev's number; and the rule itself on numbers with gaps. */
#include "motion_test_util.h"
#include "src/motion/pyramid_block.h"
#include "tests/texture.h"

static int failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL: " __VA_ARGS__);                                      \
            printf("\n");                                                      \
            failures++;                                                        \
        }                                                                      \
    } while (0)


/* prev = the source at (ox, oy), next = the source at (ox - px, oy - py)
 * plus a moving square: content moves by (px, py) from prev to next. */
static void make_pan(MtImage *a, MtImage *b, int w, int h, int px, int py, uint32_t seed)
{
    const int m = 160, tw = w + 2 * m, th = h + 2 * m;
    uint8_t *tex = value_noise_texture(tw, th, seed);
    if (mt_image_alloc(a, w, h) < 0 || mt_image_alloc(b, w, h) < 0)
        exit(1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            a->y[y * w + x] = tex[(size_t)(y + m) * tw + x + m];
            b->y[y * w + x] = tex[(size_t)(y + m - py) * tw + x + m - px];
        }
    free(tex);
}

/* ---- the plain-C run of the design ------------------------------------ */

typedef struct RefPyr {
    int L, w[PYR_MAX_LEVEL + 1], h[PYR_MAX_LEVEL + 1];
    uint8_t *pl[2][PYR_MAX_LEVEL + 1]; /* [prev, next][level], unpadded */
} RefPyr;

static PyrPlane ref_plane(const RefPyr *r, int i, int l)
{
    return (PyrPlane){ r->pl[i][l], r->w[l], r->w[l], r->h[l] };
}

static void ref_build(RefPyr *r, const MtImage *a, const MtImage *b)
{
    r->L = pyr_levels(a->w);
    r->w[0] = a->w;
    r->h[0] = a->h;
    r->pl[0][0] = a->y;
    r->pl[1][0] = b->y;
    for (int l = 1; l <= r->L; l++) {
        r->w[l] = (r->w[l - 1] + 1) / 2;
        r->h[l] = (r->h[l - 1] + 1) / 2;
        for (int i = 0; i < 2; i++) {
            const PyrPlane below = ref_plane(r, i, l - 1);
            r->pl[i][l] = malloc((size_t)r->w[l] * r->h[l]);
            for (int y = 0; y < r->h[l]; y++)
                for (int x = 0; x < r->w[l]; x++)
                    r->pl[i][l][y * r->w[l] + x] = pyr_down_px(&below, x, y);
        }
    }
}

/* The 3x3 vector median written out plainly (today's vector_median()
 * rule: smallest sum of L1 distances to all, first in raster order). */
static PyrVec ref_median3(const PyrVec *v, int nbx, int nby, int bx, int by)
{
    PyrVec m[9];
    int n = 0;
    for (int y = by - 1; y <= by + 1; y++)
        for (int x = bx - 1; x <= bx + 1; x++)
            if (x >= 0 && y >= 0 && x < nbx && y < nby)
                m[n++] = v[y * nbx + x];
    int best = 0;
    long long bd = -1;
    for (int i = 0; i < n; i++) {
        long long d = 0;
        for (int j = 0; j < n; j++)
            d += abs(m[i].x - m[j].x) + abs(m[i].y - m[j].y);
        if (bd < 0 || d < bd) {
            bd = d;
            best = i;
        }
    }
    return m[best];
}

/* One field: cur = pyramid i, ref = the other; hist: the vectors the
 * previous pair kept of this field (NULL: none); kept: what this pair keeps,
 * written (its final vectors when keep_final, else its base vectors). */
static void ref_field(const RefPyr *r, int i, int block, const PyrVec *hist, int keep_final,
                      PyrVec *kept, MotionField *out)
{
    const int L = r->L;
    int nbx[PYR_MAX_LEVEL + 1], nby[PYR_MAX_LEVEL + 1];
    PyrVec *vec[PYR_MAX_LEVEL + 1] = { 0 };
    for (int l = 1; l <= L; l++) {
        nbx[l] = (r->w[l] + PYR_B - 1) / PYR_B;
        nby[l] = (r->h[l] + PYR_B - 1) / PYR_B;
        vec[l] = calloc((size_t)nbx[l] * nby[l], sizeof(PyrVec));
    }
    PyrVec *top1 = calloc((size_t)nbx[L] * nby[L], sizeof *top1);
    PyrPlane cur = ref_plane(r, i, L), ref = ref_plane(r, !i, L);
    for (int pass = 0; pass < 2; pass++)
        for (int by = 0; by < nby[L]; by++)
            for (int bx = 0; bx < nbx[L]; bx++) {
                const PyrWin w = pyr_coarse_win(bx, by, r->w[L], r->h[L]);
                const PyrVec md = ref_median3(top1, nbx[L], nby[L], bx, by);
                uint32_t bc = UINT32_MAX;
                int bdx = 0, bdy = 0;
                for (int dy = -PYR_TOP_R; dy <= PYR_TOP_R; dy++)
                    for (int dx = -PYR_TOP_R; dx <= PYR_TOP_R; dx++) {
                        uint32_t c = pyr_sad_clamped(&cur, &ref, &w, dx, dy);
                        if (pass)
                            c += pyr_penalty(pyr_area(&w), dx - md.x, dy - md.y);
                        if (mt_less(c, dx, dy, bc, bdx, bdy)) {
                            bc = c;
                            bdx = dx;
                            bdy = dy;
                        }
                    }
                (pass ? vec[L] : top1)[by * nbx[L] + bx] = (PyrVec){ (int16_t)bdx, (int16_t)bdy };
            }
    for (int l = L - 1; l >= 1; l--) {
        cur = ref_plane(r, i, l);
        ref = ref_plane(r, !i, l);
        for (int by = 0; by < nby[l]; by++)
            for (int bx = 0; bx < nbx[l]; bx++) {
                const PyrWin w = pyr_coarse_win(bx, by, r->w[l], r->h[l]);
                PyrVec cand[PYR_MAX_CAND], pred;
                const int n = pyr_candidates(vec[l + 1], nbx[l + 1], nby[l + 1], bx, by, cand, &pred);
                uint32_t bc = UINT32_MAX;
                PyrVec b = cand[0];
                for (int k = 0; k < n; k++) {
                    const uint32_t c = pyr_sad_clamped(&cur, &ref, &w, cand[k].x, cand[k].y) +
                                       pyr_penalty(pyr_area(&w), cand[k].x - pred.x, cand[k].y - pred.y);
                    if (mt_less(c, cand[k].x, cand[k].y, bc, b.x, b.y)) {
                        bc = c;
                        b = cand[k];
                    }
                }
                for (int step = 0; step < PYR_WALK; step++) {
                    static const int dd[4][2] = { { 0, -1 }, { -1, 0 }, { 1, 0 }, { 0, 1 } };
                    PyrVec nb = b;
                    uint32_t nc = bc;
                    for (int j = 0; j < 4; j++) {
                        const PyrVec t = { (int16_t)(b.x + dd[j][0]), (int16_t)(b.y + dd[j][1]) };
                        const uint32_t c = pyr_sad_clamped(&cur, &ref, &w, t.x, t.y) +
                                           pyr_penalty(pyr_area(&w), t.x - pred.x, t.y - pred.y);
                        if (mt_less(c, t.x, t.y, nc, nb.x, nb.y)) {
                            nc = c;
                            nb = t;
                        }
                    }
                    if (nb.x == b.x && nb.y == b.y)
                        break;
                    b = nb;
                    bc = nc;
                }
                vec[l][by * nbx[l] + bx] = b;
            }
    }
    cur = ref_plane(r, i, 0);
    ref = ref_plane(r, !i, 0);
    for (int by = 0; by < out->bh; by++)
        for (int bx = 0; bx < out->bw; bx++) {
            const int i1 = pyr_level1_index(bx, block, nbx[1]);
            const int j1 = pyr_level1_index(by, block, nby[1]);
            const PyrVec v = vec[1][j1 * nbx[1] + i1];
            const PyrVec m = ref_median3(vec[1], nbx[1], nby[1], i1, j1);
            const PyrWin w = pyr_block_win(bx, by, block, r->w[0], r->h[0]);
            uint32_t bc = UINT32_MAX, bs = 0;
            int bdx = 0, bdy = 0;
            for (int dy = 2 * v.y - 1; dy <= 2 * v.y + 1; dy++)
                for (int dx = 2 * v.x - 1; dx <= 2 * v.x + 1; dx++) {
                    const uint32_t s = pyr_sad_clamped(&cur, &ref, &w, dx, dy);
                    const uint32_t c = s + pyr_penalty(pyr_area(&w), dx - 2 * m.x, dy - 2 * m.y);
                    if (mt_less(c, dx, dy, bc, bdx, bdy)) {
                        bc = c;
                        bs = s;
                        bdx = dx;
                        bdy = dy;
                    }
                }
            const PyrVec base = { (int16_t)bdx, (int16_t)bdy };
            if (hist) {
                /* the previous pair's 3x3 (duplicates harmless: equal costs) */
                uint32_t tc = UINT32_MAX, ts = 0;
                int tx = 0, ty = 0;
                for (int y = by - 1; y <= by + 1; y++)
                    for (int x = bx - 1; x <= bx + 1; x++) {
                        if (x < 0 || y < 0 || x >= out->bw || y >= out->bh) continue;
                        const PyrVec t = hist[y * out->bw + x];
                        const uint32_t s = pyr_sad_clamped(&cur, &ref, &w, t.x, t.y);
                        const uint32_t c =
                            s + pyr_penalty(pyr_area(&w), t.x - 2 * m.x, t.y - 2 * m.y);
                        if (mt_less(c, t.x, t.y, tc, tx, ty)) {
                            tc = c;
                            ts = s;
                            tx = t.x;
                            ty = t.y;
                        }
                    }
                if ((uint64_t)tc + (uint64_t)pyr_area(&w) * PYR_HIST_MARGIN < bc) {
                    bc = tc;
                    bs = ts;
                    bdx = tx;
                    bdy = ty;
                    for (int step = 0; step < PYR_WALK; step++) {
                        static const int dd[4][2] = { { 0, -1 }, { -1, 0 }, { 1, 0 }, { 0, 1 } };
                        int nx = bdx, ny = bdy;
                        uint32_t nc = bc, ns = bs;
                        for (int j = 0; j < 4; j++) {
                            const int dx = bdx + dd[j][0], dy = bdy + dd[j][1];
                            const uint32_t s = pyr_sad_clamped(&cur, &ref, &w, dx, dy);
                            const uint32_t c =
                                s + pyr_penalty(pyr_area(&w), dx - 2 * m.x, dy - 2 * m.y);
                            if (mt_less(c, dx, dy, nc, nx, ny)) {
                                nc = c;
                                ns = s;
                                nx = dx;
                                ny = dy;
                            }
                        }
                        if (nx == bdx && ny == bdy)
                            break;
                        bdx = nx;
                        bdy = ny;
                        bc = nc;
                        bs = ns;
                    }
                }
            }
            out->mv[by * out->bw + bx] = (MotionVector){ (int16_t)bdx, (int16_t)bdy };
            out->sad[by * out->bw + bx] = bs;
            kept[by * out->bw + bx] = keep_final ? (PyrVec){ (int16_t)bdx, (int16_t)bdy } : base;
        }
    for (int l = 1; l <= L; l++)
        free(vec[l]);
    free(top1);
}

static int field_equal(const MotionField *a, const MotionField *b)
{
    const size_t n = (size_t)a->bw * a->bh;
    return !memcmp(a->mv, b->mv, n * sizeof *a->mv) && !memcmp(a->sad, b->sad, n * sizeof *a->sad);
}

/* A CPU engine with the pyramid search, or NULL (counted as a failure). */
static MotionEngine *make_engine(int w, int h, int block, int threads)
{
    char err[256];
    MotionEngine *e;
    const MotionParams p = { .width = w, .height = h, .block = block, .range = 16,
                             .search = OMCTI_SEARCH_PYRAMID, .threads = threads };
    if (motion_engine_cpu.create(&e, &p, err, sizeof err) < 0) {
        printf("FAIL: create: %s\n", err);
        failures++;
        return NULL;
    }
    return e;
}

static int run_engine(const OmctiFrame *fa, const OmctiFrame *fb, int w, int h, int block,
                      int threads, MotionFields *out, int pairs)
{
    char err[256];
    MotionEngine *e = make_engine(w, h, block, threads);
    if (!e)
        return -1;
    int ret = 0;
    for (int k = 0; k < pairs && !ret; k++)
        ret = motion_engine_cpu.estimate(e, fa, fb, out, err, sizeof err);
    motion_engine_cpu.destroy(&e);
    return ret;
}

static void check_reference(int w, int h, int block, int px, int py, uint32_t seed)
{
    MtImage a, b;
    make_pan(&a, &b, w, h, px, py, seed);
    /* A moving square on top of the pan: a second motion, blocks of both. */
    for (int y = h / 3; y < h / 3 + h / 4; y++)
        for (int x = w / 4; x < w / 4 + w / 5; x++) {
            a.y[y * w + x] = (uint8_t)(40 + (x * 7 + y * 3) % 50);
            b.y[(y + 5) * w + x - 9] = (uint8_t)(40 + (x * 7 + y * 3) % 50);
        }
    OmctiFrame fa, fb;
    const int pad = motion_required_pad(block, 16);
    if (mt_frame_from_image(&fa, &a, pad) < 0 || mt_frame_from_image(&fb, &b, pad) < 0)
        exit(1);
    MotionFields ref, got;
    if (motion_fields_alloc(&ref, w, h, block) < 0 || motion_fields_alloc(&got, w, h, block) < 0)
        exit(1);
    RefPyr rp;
    ref_build(&rp, &a, &b);
    PyrVec *base = malloc((size_t)ref.fwd.bw * ref.fwd.bh * sizeof *base);
    if (!base)
        exit(1);
    ref_field(&rp, 0, block, NULL, 0, base, &ref.fwd);
    ref_field(&rp, 1, block, NULL, 0, base, &ref.bwd);
    free(base);
    int far = 0;
    for (int k = 0; k < ref.fwd.bw * ref.fwd.bh; k++)
        far |= abs(ref.fwd.mv[k].x) > pad || abs(ref.bwd.mv[k].x) > pad;
    static const int threads[4] = { 1, 2, 3, 7 };
    for (int t = 0; t < 4; t++) {
        memset(got.fwd.mv, 0x55, (size_t)got.fwd.bw * got.fwd.bh * sizeof *got.fwd.mv);
        if (run_engine(&fa, &fb, w, h, block, threads[t], &got, 1) < 0)
            continue;
        CHECK(field_equal(&ref.fwd, &got.fwd) && field_equal(&ref.bwd, &got.bwd),
              "%dx%d block %d pan (%d,%d) threads %d: fields differ from the C reference",
              w, h, block, px, py, threads[t]);
    }
    printf("%s: %dx%d block %d pan (%d,%d) vs C reference, threads 1/2/3/7 (vectors beyond "
           "the padding: %s)\n", failures ? "FAIL" : "PASS", w, h, block, px, py,
           far ? "yes" : "no");
    for (int l = 1; l <= rp.L; l++) {
        free(rp.pl[0][l]);
        free(rp.pl[1][l]);
    }
    motion_fields_free(&ref);
    motion_fields_free(&got);
    frame_free(&fa);
    frame_free(&fb);
    free(a.y);
    free(b.y);
}

/* (b) and (c): 1920x1080, pan (100, -36). */
static void check_pan(void)
{
    const int w = 1920, h = 1080, px = 100, py = -36, block = 16;
    MtImage a, b;
    make_pan(&a, &b, w, h, px, py, 4242);
    OmctiFrame fa, fb;
    const int pad = motion_required_pad(block, 16);
    if (mt_frame_from_image(&fa, &a, pad) < 0 || mt_frame_from_image(&fb, &b, pad) < 0)
        exit(1);
    fa.serial = 1;
    fb.serial = 2;
    MotionFields got, again;
    if (motion_fields_alloc(&got, w, h, block) < 0 || motion_fields_alloc(&again, w, h, block) < 0)
        exit(1);
    const int f0 = failures;
    if (run_engine(&fa, &fb, w, h, block, 2, &got, 1) == 0) {
        int interior = 0, wrong_f = 0, wrong_b = 0;
        for (int by = 0; by < got.fwd.bh; by++)
            for (int bx = 0; bx < got.fwd.bw; bx++) {
                const int x = bx * block, y = by * block, k = by * got.fwd.bw + bx;
                /* the block's match lies inside the other picture */
                if (x + px >= 0 && x + block + px <= w && y + py >= 0 && y + block + py <= h &&
                    y + block <= h) {
                    interior++;
                    wrong_f += got.fwd.mv[k].x != px || got.fwd.mv[k].y != py;
                }
                if (x - px >= 0 && x + block - px <= w && y - py >= 0 && y + block - py <= h &&
                    y + block <= h)
                    wrong_b += got.bwd.mv[k].x != -px || got.bwd.mv[k].y != -py;
            }
        CHECK(interior > 6000 && !wrong_f && !wrong_b,
              "pan (%d,%d): %d of %d interior forward blocks wrong, %d backward", px, py,
              wrong_f, interior, wrong_b);
        /* Two pairs on one engine (the second reuses the kept pyramid of
         * the same serials) give the same fields as one. */
        if (run_engine(&fa, &fb, w, h, block, 3, &again, 2) == 0)
            CHECK(field_equal(&got.fwd, &again.fwd) && field_equal(&got.bwd, &again.bwd),
                  "pan: the kept pyramid changed the fields");
    }
    printf("%s: 1920x1080 pan (%d,%d) found at every interior block, kept pyramid exact\n",
           failures == f0 ? "PASS" : "FAIL", px, py);
    motion_fields_free(&got);
    motion_fields_free(&again);
    frame_free(&fa);
    frame_free(&fb);
    free(a.y);
    free(b.y);
}

/* Fields of the pairs (fr[i], fr[i + 1]), i = first .. last - 1, on one
 * engine; out: the last pair's. */
static int run_pairs(OmctiFrame *fr, int first, int last, int w, int h, int block, int threads,
                     MotionFields *out)
{
    char err[256];
    MotionEngine *e = make_engine(w, h, block, threads);
    if (!e)
        return -1;
    int ret = 0;
    for (int i = first; i < last && !ret; i++)
        ret = motion_engine_cpu.estimate(e, &fr[i], &fr[i + 1], out, err, sizeof err);
    motion_engine_cpu.destroy(&e);
    return ret;
}

/* The index of the first pair a run must start at for pair i's fields to
 * equal the whole run's, when fr[k] has the number first + k: the pair
 * ending at the last multiple of PYR_CHAIN at or before pair i's prev
 * (pyr_history_keeps_final()), or the first pair. */
static int chain_start(int first, int i)
{
    const int q = (first + i) / PYR_CHAIN * PYR_CHAIN;
    return q - 1 - first > 0 ? q - 1 - first : 0;
}

/* (d): frames of a still textured background with a small square of fine
 * texture moving (-24, 2) per frame: the coarse levels see only its mean,
 * and the pair (1, 2) alone misses it. The frames are numbered from FIRST,
 * so that the chain restarts in the middle (the pair ending at picture
 * PYR_CHAIN keeps its base vectors). */
static void check_history(int w, int h, int block)
{
    const int f0 = failures;
    enum { N = PYR_CHAIN + 3, FIRST = PYR_CHAIN - 3, S = 32, DX = 24 };
    uint8_t *bg = value_noise_texture(w, h, 77), *fine = value_noise_texture(S * 4, S * 4, 78);
    MtImage im[N];
    OmctiFrame fr[N];
    const int pad = motion_required_pad(block, 16);
    for (int i = 0; i < N; i++) {
        if (mt_image_alloc(&im[i], w, h) < 0)
            exit(1);
        memcpy(im[i].y, bg, (size_t)w * h);
        const int x0 = w * 3 / 4 - DX * i, y0 = h / 3 + 2 * i;
        for (int y = 0; y < S; y++)
            for (int x = 0; x < S; x++)
                im[i].y[(y0 + y) * w + x0 + x] = fine[(y * 2) * S * 4 + x * 2];
        if (mt_frame_from_image(&fr[i], &im[i], pad) < 0)
            exit(1);
        fr[i].serial = (uint64_t)i + 1;
        fr[i].number = FIRST + i;
    }
    MotionFields ref[N - 1], plain, got;
    for (int i = 0; i < N - 1; i++)
        if (motion_fields_alloc(&ref[i], w, h, block) < 0)
            exit(1);
    if (motion_fields_alloc(&plain, w, h, block) < 0 || motion_fields_alloc(&got, w, h, block) < 0)
        exit(1);
    const size_t nb = (size_t)got.fwd.bw * got.fwd.bh;
    /* kept vectors of the previous pair and of this one: with the chain
     * rule, and always the base ones (as without a chain) */
    PyrVec *kept[2][2], *plain_kept[2][2];
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < 2; f++)
            if (!(kept[k][f] = malloc(nb * sizeof(PyrVec))) ||
                !(plain_kept[k][f] = malloc(nb * sizeof(PyrVec))))
                exit(1);
    MotionFields alone;
    if (motion_fields_alloc(&alone, w, h, block) < 0)
        exit(1);
    RefPyr rp;
    static const int threads[3] = { 1, 2, 7 };
    int chain_differs = 0;
    for (int i = 0; i < N - 1; i++) {
        const int r = i & 1, wr = !r; /* read, write */
        /* (consecutive numbers: the pair ending at a multiple restarts) */
        const int keep_final = (FIRST + i + 1) % PYR_CHAIN != 0;
        ref_build(&rp, &im[i], &im[i + 1]);
        if (i == 1) {
            ref_field(&rp, 0, block, NULL, 0, kept[wr][0], &alone.fwd);
            ref_field(&rp, 1, block, NULL, 0, kept[wr][1], &alone.bwd);
        }
        ref_field(&rp, 0, block, i ? kept[r][0] : NULL, keep_final, kept[wr][0], &ref[i].fwd);
        ref_field(&rp, 1, block, i ? kept[r][1] : NULL, keep_final, kept[wr][1], &ref[i].bwd);
        ref_field(&rp, 0, block, i ? plain_kept[r][0] : NULL, 0, plain_kept[wr][0], &plain.fwd);
        ref_field(&rp, 1, block, i ? plain_kept[r][1] : NULL, 0, plain_kept[wr][1], &plain.bwd);
        chain_differs |= !field_equal(&ref[i].fwd, &plain.fwd) ||
                         !field_equal(&ref[i].bwd, &plain.bwd);
        for (int l = 1; l <= rp.L; l++) {
            free(rp.pl[0][l]);
            free(rp.pl[1][l]);
        }
        if (i == 1) {
            /* the object's vector, forward: found only with the candidates */
            int with = 0, without = 0;
            for (size_t k = 0; k < nb; k++) {
                with += abs(ref[i].fwd.mv[k].x + DX) <= 1 && abs(ref[i].fwd.mv[k].y - 2) <= 1;
                without += abs(alone.fwd.mv[k].x + DX) <= 1 && abs(alone.fwd.mv[k].y - 2) <= 1;
            }
            CHECK(with >= 2 && with > without,
                  "history: block %d: the object found at %d blocks with the temporal "
                  "candidates, %d without", block, with, without);
        }
        for (int t = 0; t < 3; t++)
            if (run_pairs(fr, 0, i + 1, w, h, block, threads[t], &got) == 0)
                CHECK(field_equal(&ref[i].fwd, &got.fwd) && field_equal(&ref[i].bwd, &got.bwd),
                      "history: pair %d, block %d, threads %d: fields differ from the C "
                      "reference", i, block, threads[t]);
        /* a run from the chain's start gives the same pair */
        const int c = chain_start(FIRST, i);
        if (c > 0 && run_pairs(fr, c, i + 1, w, h, block, 2, &got) == 0)
            CHECK(field_equal(&ref[i].fwd, &got.fwd) && field_equal(&ref[i].bwd, &got.bwd),
                  "history: pair %d, block %d: a run from pair %d differs from the whole run",
                  i, block, c);
    }
    /* (the reference's chain must matter here, or the checks above could
     * not tell final vectors kept from base ones) */
    CHECK(chain_differs, "history: block %d: keeping the final vectors changed no pair", block);
    /* a second search between two pairs on copies with serials of their own
     * (a fade's) leaves the history alone; after a gap there is none */
    {
        OmctiFrame copy[2];
        if (mt_frame_from_image(&copy[0], &im[1], pad) < 0 ||
            mt_frame_from_image(&copy[1], &im[2], pad) < 0)
            exit(1);
        copy[0].serial = 101;
        copy[1].serial = 102;
        copy[0].number = fr[1].number;
        copy[1].number = fr[2].number;
        char err[256];
        MotionEngine *e = make_engine(w, h, block, 2);
        if (e) {
            int rc = 0;
            for (int i = 0; i < 4; i++) {
                rc |= motion_engine_cpu.estimate(e, &fr[i], &fr[i + 1], &got, err, sizeof err);
                if (i == 1)
                    rc |= motion_engine_cpu.estimate(e, &copy[0], &copy[1], &got, err, sizeof err);
            }
            CHECK(!rc && field_equal(&got.fwd, &ref[3].fwd) && field_equal(&got.bwd, &ref[3].bwd),
                  "history: a second search of a pair on copies changed the pairs after it");
            motion_engine_cpu.destroy(&e);
        }
        /* (0, 1) then (2, 3) on one engine: as (2, 3) on a fresh one */
        MotionFields gap;
        if (motion_fields_alloc(&gap, w, h, block) < 0)
            exit(1);
        if ((e = make_engine(w, h, block, 2))) {
            int rc = motion_engine_cpu.estimate(e, &fr[0], &fr[1], &got, err, sizeof err);
            rc |= motion_engine_cpu.estimate(e, &fr[2], &fr[3], &got, err, sizeof err);
            motion_engine_cpu.destroy(&e);
            if (!rc && run_pairs(fr, 2, 3, w, h, block, 2, &gap) == 0)
                CHECK(field_equal(&got.fwd, &gap.fwd) && field_equal(&got.bwd, &gap.bwd),
                      "history: a pair after a gap took the earlier pair's vectors");
        }
        motion_fields_free(&gap);
        frame_free(&copy[0]);
        frame_free(&copy[1]);
    }
    printf("%s: %dx%d block %d small fast object, temporal candidates vs C reference, chain "
           "of %d pictures\n", failures == f0 ? "PASS" : "FAIL", w, h, block, PYR_CHAIN);
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < 2; f++) {
            free(kept[k][f]);
            free(plain_kept[k][f]);
        }
    for (int i = 0; i < N - 1; i++)
        motion_fields_free(&ref[i]);
    motion_fields_free(&plain);
    motion_fields_free(&got);
    motion_fields_free(&alone);
    for (int i = 0; i < N; i++) {
        frame_free(&fr[i]);
        free(im[i].y);
    }
    free(bg);
    free(fine);
}

int main(void)
{
    check_reference(352, 288, 16, 23, -11, 1);
    check_reference(640, 360, 16, 60, 20, 2);   /* vectors beyond the padding */
    check_reference(360, 200, 8, -30, 17, 3);
    check_reference(300, 170, 32, 41, -33, 4);
    check_reference(97, 45, 16, 5, 3, 5);       /* one level, odd sizes */
    check_pan();
    check_history(480, 272, 16);
    check_history(480, 272, 8);
    /* the chain restarts at every pair whose numbers enclose a multiple of
     * PYR_CHAIN, also where the picture of that number is missing */
    const int64_t P = PYR_CHAIN;
    CHECK(pyr_history_keeps_final(P + 1, P + 2) && pyr_history_keeps_final(P, P + 1) &&
          !pyr_history_keeps_final(P - 1, P) && !pyr_history_keeps_final(2 * P - 1, 2 * P + 1) &&
          !pyr_history_keeps_final(P - 2, P + 3) && pyr_history_keeps_final(0, P - 1),
          "pyr_history_keeps_final(): the chain restarts at the wrong pairs");
    /* a decrease restarts it (omcti.h), also within one period; equal
     * numbers do not */
    CHECK(!pyr_history_keeps_final(P + 5, P + 2) && !pyr_history_keeps_final(P - 1, 0) &&
          !pyr_history_keeps_final(1, 0) && pyr_history_keeps_final(P + 3, P + 3),
          "pyr_history_keeps_final(): a decrease of the numbers keeps the chain");
    return failures ? 1 : 0;
}

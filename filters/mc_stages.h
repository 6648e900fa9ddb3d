/* The decisions of the vector choice, written once for every backend:
 * which candidates a block has, which one wins, when the vector median
 * replaces a vector, and the sub-pel refinement pattern. Compiled by gcc
 * for the CPU backend (filters/mc_vectors.c) and by nvcc for the CUDA
 * backend (kernels/mc_gpu.h); each backend supplies only its costs.
 *
 * A template in dav1d's manner: before including, define
 *   MC_STAGE_CTX   the type of the cost context (a pointer type), and
 *   static inline (or __device__) functions
 *     uint32_t mc_cost_int(MC_STAGE_CTX c, int x0, int y0, int w, int h,
 *                          int ax, int ay, int bx, int by);
 *         SAD of prev at (x - ax, y - ay) against next at (x + bx, y + by),
 *         full pel, over the window [x0, x0 + w) x [y0, y0 + h);
 *     uint32_t mc_cost_sub(MC_STAGE_CTX c, int x0, int y0, int w, int h,
 *                          int vx, int vy);
 *         the bilateral cost (bilinear samples, 1/16 units) of the quarter
 *         pel vector (vx, vy) at the context's phase over the window;
 *     uint32_t mc_cost_int_os(MC_STAGE_CTX c, const McGrid *g, int x0, int y0,
 *                             int w, int h, int ax, int ay, int bx, int by);
 *     uint32_t mc_cost_sub_os(MC_STAGE_CTX c, const McGrid *g,
 *                             const McPhase *ph, int x0, int y0, int w, int h,
 *                             int vx, int vy);
 *         the same costs under the one-sided rule at the picture's edges:
 *         mc_one_sided_cost() of the sums of mc_cost_{int,sub}_os_part()
 *         (mc_block.h), however the backend computes them;
 *     uint32_t mc_cost_int_os_below(..., uint32_t bound);
 *     uint32_t mc_cost_sub_os_below(..., uint32_t bound);
 *         the same with a bound: the cost when it is below bound, else any
 *         value >= bound (a backend may stop summing there, as x264's early
 *         termination does; the CPU's DSP does, the GPU's lanes do not). The
 *         template passes a bound only where a cost at or above it cannot
 *         change a decision, so the decisions are those of the exact costs;
 *     void mc_chroma_os(MC_STAGE_CTX c, int x0, int y0, int w, int h,
 *                       int ax, int ay, int bx, int by, uint32_t *sad,
 *                       uint32_t *missed);
 *         over the window of the chroma planes (full chroma pel): the SAD
 *         of U plus the SAD of V over the pixels whose two integer samples
 *         lie inside the chroma plane (s[1] of mc_cost_int_os_part() on
 *         each), and the count of the window's other pixels (s[2], one
 *         plane's).
 * Every thread of a group (a warp on the GPU) calls these functions with
 * the same arguments and gets the same costs, so all take the same
 * decisions. */
#ifndef MC_STAGE_CTX
#error "define MC_STAGE_CTX and the cost functions before including mc_stages.h"
#endif

#include "filters/mc_block.h"

/* Candidates of block (bx, by) of grid g from the fields fwd, bwd (full
 * pel), in this order (it decides ties): zero; the forward and negated
 * backward vectors of the fields' block (bx, by), then of its left, right,
 * upper and lower neighbours; the camera's motion at the block, cam; the
 * nmore vectors more (full pel; the shifted grid's, mc_shifted_more()).
 * Without duplicates. Returns the count (<= MC_MAX_CAND). */
MCF int mc_gather(const McGrid *g, const McVec *fwd, const McVec *bwd, McVec cam,
                  const McVec *more, int nmore, int bx, int by, int cx[MC_MAX_CAND],
                  int cy[MC_MAX_CAND])
{
    uint32_t keys[MC_MAX_CAND];
    int n = 0;
    keys[n] = 0; cx[n] = 0; cy[n] = 0; n++;
    const int order[5][2] = { {0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1} };
    for (int k = 0; k < 6 + nmore; k++) {
        int vx[2], vy[2], m = 1;
        if (k > 5) {
            vx[0] = more[k - 6].x;
            vy[0] = more[k - 6].y;
        } else if (k < 5) {
            const int x = bx + order[k][0], y = by + order[k][1];
            if (x < 0 || y < 0 || x >= g->fnbx || y >= g->fnby) continue;
            const McVec vf = fwd[y * g->fnbx + x], vb = bwd[y * g->fnbx + x];
            vx[0] = vf.x; vy[0] = vf.y;
            vx[1] = -vb.x; vy[1] = -vb.y;
            m = 2;
        } else {
            vx[0] = cam.x; vy[0] = cam.y;
        }
        for (int j = 0; j < m; j++) {
            /* branch-free duplicate test on packed (x, y) keys; the slot
             * at n is overwritten when the candidate was a duplicate (at
             * most 15 writes after the zero: n <= 15 at a write) */
            const uint32_t key = (uint32_t)(uint16_t)vx[j] | (uint32_t)(uint16_t)vy[j] << 16;
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= keys[i] == key;
            keys[n] = key;
            cx[n] = vx[j];
            cy[n] = vy[j];
            n += !dup;
        }
    }
    return n;
}

/* The middle of n values (n even: the mean of the two middle ones, rounded
 * towards zero); sorts v. */
MCF int mc_middle(int *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            const int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The local motion at block (bx, by), full pel: the component-wise median
 * of the fields' vectors (forward, and backward negated) of the block and
 * its 4 neighbours, the motion predictor of x264 and H.264 made from both
 * fields. */
MCF McVec mc_local_motion(const McGrid *g, const McVec *fwd, const McVec *bwd, int bx, int by)
{
    int mx[10], my[10], m = 0;
    for (int k = 0; k < 5; k++) {   /* the block, left, right, above, below */
        const int x = bx + (k == 1 ? -1 : k == 2), y = by + (k == 3 ? -1 : k == 4);
        if (x < 0 || y < 0 || x >= g->fnbx || y >= g->fnby)
            continue;
        const McVec f = fwd[y * g->fnbx + x], b = bwd[y * g->fnbx + x];
        mx[m] = f.x;
        my[m++] = f.y;
        mx[m] = -b.x;
        my[m++] = -b.y;
    }
    McVec v;
    v.x = (int16_t)mc_middle(mx, m);
    v.y = (int16_t)mc_middle(my, m);
    return v;
}

/* Stage A's colour term for candidate (cx, cy) (full pel) of the luma
 * window [x0, x0 + w) x [y0, y0 + h): MC_CHROMA_W * (SAD_U + SAD_V) over
 * the window's 4:2:0 chroma footprint, whole chroma pixels (each side's
 * luma displacement halved, rounded as mc_rdiv() does), over the pixels
 * both sides see, scaled to the footprint. Colour tells apart candidates
 * that luma cannot (grass and sky of a pan, a shirt against a wall:
 * docs/quality.md, "colour in stage A"). */
MCF uint32_t mc_chroma_cost(MC_STAGE_CTX c, const McGrid *g, const McPhase *ph, int x0, int y0,
                            int w, int h, int cx, int cy)
{
    const int cw = (g->width + 1) >> 1, ch = (g->height + 1) >> 1;
    const int xa = x0 >> 1, ya = y0 >> 1;
    const int xb = mc_min((x0 + w + 1) >> 1, cw), yb = mc_min((y0 + h + 1) >> 1, ch);
    if (xb <= xa || yb <= ya)
        return 0;
    const int ax = mc_disp(ph, cx), ay = mc_disp(ph, cy);
    uint32_t sad = 0, missed = 0;
    mc_chroma_os(c, xa, ya, xb - xa, yb - ya, (int)mc_rdiv(ax, 2), (int)mc_rdiv(ay, 2),
                 (int)mc_rdiv(cx - ax, 2), (int)mc_rdiv(cy - ay, 2), &sad, &missed);
    const uint64_t area = (uint64_t)(xb - xa) * (uint64_t)(yb - ya);
    const uint64_t valid = area - missed;
    return valid ? (uint32_t)((uint64_t)MC_CHROMA_W * sad * area / valid) : 0;
}

/* Stage A of block (bx, by): the candidate with the smallest cost (the
 * first on a tie), in quarter pel. The cost is the whole-pixel bilateral
 * SAD over the window (one-sided at the picture's edges), the colour term
 * (mc_chroma_cost()), and two smoothness terms (A: the window's pixel
 * count): (A * |c - cam|_1) >> 5 towards the camera's motion at the block
 * (mc_cam_at() of the pair's camera model cm and vector cam0: where the
 * camera zooms or turns, the background's motion differs from block to
 * block, docs/quality.md, "the camera model"), and
 * (A * |c - local|_1) >> 6 towards the local motion (mc_local_motion()),
 * which keeps a block with the motion of its neighbourhood where the
 * picture alone cannot tell (flat areas, periodic texture, a pan's sky:
 * docs/quality.md, "local smoothness"). */
MCF McVec mc_choose(MC_STAGE_CTX c, const McGrid *g, const McPhase *ph, const McVec *fwd,
                    const McVec *bwd, const McCamModel *cm, McVec cam0, const McVec *more,
                    int nmore, int bx, int by)
{
    const McVec cam = mc_cam_at(cm, cam0, g->ox + bx * g->block + g->block / 2,
                                g->oy + by * g->block + g->block / 2);
    int cx[MC_MAX_CAND], cy[MC_MAX_CAND];
    const int n = mc_gather(g, fwd, bwd, cam, more, nmore, bx, by, cx, cy);
    int x0, y0, w, h;
    mc_window(g, bx, by, &x0, &y0, &w, &h);
    const McVec loc = mc_local_motion(g, fwd, bwd, bx, by);
    uint32_t best = 0xffffffffu;
    int bi = 0;
    for (int i = 0; i < n; i++) {
        const int ax = mc_disp(ph, cx[i]), ay = mc_disp(ph, cy[i]);
        const uint32_t d1 = (uint32_t)(mc_abs(cx[i] - cam.x) + mc_abs(cy[i] - cam.y));
        const uint32_t dl = (uint32_t)(mc_abs(cx[i] - loc.x) + mc_abs(cy[i] - loc.y));
        const uint32_t smooth = (uint32_t)(((uint64_t)(w * h) * d1) >> MC_SMOOTH_SHIFT) +
                                (uint32_t)(((uint64_t)(w * h) * dl) >> MC_LOCAL_SHIFT);
        /* Every term is >= 0: a candidate whose terms so far reach the best
         * cannot win, and the rest of its cost is not needed (the same
         * choice): its SAD is bounded, its colour not counted. */
        if (smooth >= best)
            continue;
        uint32_t s = mc_cost_int_os_below(c, g, x0, y0, w, h, ax, ay, cx[i] - ax, cy[i] - ay,
                                          best - smooth) +
                     smooth;
        if (s >= best)
            continue;
        s += mc_chroma_cost(c, g, ph, x0, y0, w, h, cx[i], cy[i]);
        if (s < best) {
            best = s;
            bi = i;
        }
    }
    McVec v;
    v.x = (int16_t)(cx[bi] * 4);
    v.y = (int16_t)(cy[bi] * 4);
    return v;
}

/* Vector median of the 3x3 neighbourhood of (bx, by) in v: the member with
 * the smallest sum of L1 distances to the others (first in raster order on
 * a tie). */
MCF McVec mc_median(const McGrid *g, const McVec *v, int bx, int by)
{
    return vec_median3x3(v, g->nbx, g->nby, bx, by);
}

/* Stage C of block (bx, by), from stage A of the block and its neighbours
 * (vec_a): the median of outliers, then the sub-pel refinement. */
MCF McVec mc_refine(MC_STAGE_CTX c, const McGrid *g, const McPhase *ph, const McVec *vec_a,
                    int bx, int by)
{
    McVec v = vec_a[by * g->nbx + bx];
    uint32_t cv;
    int x0, y0, w, h;
    mc_window(g, bx, by, &x0, &y0, &w, &h);
    /* A vector unlike its neighbours is replaced by their median when that
     * costs at most a little more here. Stage A screens at whole pixels
     * (the window shifted by at most half a pixel); the exact costs of the
     * two are compared here, the one place that needs them (a block whose
     * median is its own vector, most of them, needs neither). */
    const McVec m = mc_median(g, vec_a, bx, by);
    if (!mc_vec_eq(m, v)) {
        const uint32_t cm = mc_cost_sub_os(c, g, ph, x0, y0, w, h, m.x, m.y);
        cv = mc_cost_sub_os(c, g, ph, x0, y0, w, h, v.x, v.y);
        if ((uint64_t)cm * 16 <= (uint64_t)cv * (16 + MC_MEDIAN_TOL)) {
            v = m;
            cv = cm;
        }
    }
    /* Half then quarter pel around the choice. The refinement compares
     * vectors that differ by a fraction of a pixel: the block itself
     * decides (no margin), over the 8 points of the square around the
     * vector per step (docs/quality.md, "8 points per step"): the cross
     * first, then the diagonals only where a point of the cross beat the
     * centre. A centre that its 4 neighbours cannot beat is nearly always
     * the minimum of the square too: 8 % fewer instructions per
     * conversion for -0.10 dB summed over 57 clips (-0.02 at most on one;
     * the pans gain) (docs/quality.md, "the cross first"). */
    mc_block_area(g, bx, by, &x0, &y0, &w, &h);
    cv = mc_cost_sub_os(c, g, ph, x0, y0, w, h, v.x, v.y);
    const int d8[8][2] = {
        {0, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
    };
    /* A step must lower the cost by MC_REFINE_MARGIN / 16 grey level per
     * pixel: on noisy still footage the sub-pel shifts otherwise fit the
     * noise (the bilinear samples smooth it) instead of the motion
     * (docs/quality.md, issue 16: night_ir_noisy +0.10 dB, others within
     * 0.01). */
    const uint64_t margin = (uint64_t)(w * h) * MC_REFINE_MARGIN;
    for (int step = 2; step >= 1; step--) {
        McVec best = v;
        for (int i = 0; i < 8; i++) {
            if (i == 4 && mc_vec_eq(best, v))
                break;
            const int vx = v.x + d8[i][0] * step, vy = v.y + d8[i][1] * step;
            /* (a cost at or above cv - margin loses: bounded there) */
            const uint32_t bound = cv > margin ? (uint32_t)(cv - margin) : 0;
            const uint32_t cc = mc_cost_sub_os_below(c, g, ph, x0, y0, w, h, vx, vy, bound);
            if (cc + margin < cv) {
                cv = cc;
                best.x = (int16_t)vx;
                best.y = (int16_t)vy;
            }
        }
        v = best;
    }
    /* No per-block hold: holding blocks whose best vector barely beats the
     * zero vector cost 0.06-0.09 dB on every camera clip; the stepwise-source
     * rule (scenecut.h) is what fixes screen content (docs/quality.md). */
    return v;
}

/* The quadrant split of block (bx, by), after stage C (vec_c: the final
 * vectors; fwd, bwd: the pair's fields, full pel). A block that an object's
 * edge crosses holds two motions, and one vector serves one of them. Each
 * quarter of the block may take one of these vectors, in this order (it
 * decides ties):
 *   the final vectors of the three neighbour blocks that touch it
 *   (horizontal, vertical, diagonal);
 *   the fields' vectors (forward, and backward negated) of the block, then
 *   of those horizontal and vertical neighbours: an object smaller than a
 *   block, whose motion no block took as its final vector, is often what
 *   the motion search of its own block or of a neighbour found.
 * A candidate is tried if it lies MC_QUAD_MIN_L1 or more from the own
 * vector, and taken where its cost is the lowest and below MC_QUAD_GUARD/16
 * of the own vector's. Its cost is its bilateral sub-pel cost over the
 * quarter, plus, for a field vector, MC_QUAD_FIELD_PEN/16 grey level per
 * pixel and quarter pel of its distance from the own vector: the fields
 * also hold vectors that fit a quarter's texture by chance, far from any
 * motion of the picture (without the penalty the pans lost up to 1.9 dB:
 * docs/quality.md, "field vectors for the quarters"). The picture's outer
 * blocks are left whole: there the neighbours' vectors fit the picture's
 * edge by chance (the border blocks of pans lost up to 2 dB: docs/quality.md,
 * "the quadrant split"). The quarter vectors go to q[2 * qy + qx]; returns
 * whether any differs from the block's vector. */
MCF int mc_quad(MC_STAGE_CTX c, const McGrid *g, const McPhase *ph, const McVec *vec_c,
                const McVec *fwd, const McVec *bwd, int bx, int by, McVec q[4])
{
    const int nbx = g->nbx, hb = g->block / 2, kb = by * nbx + bx;
    const uint32_t area = (uint32_t)(hb * hb);
    const McVec own = vec_c[kb];
    for (int i = 0; i < 4; i++)
        q[i] = own;
    if (bx == 0 || by == 0 || bx >= nbx - 1 || by >= g->nby - 1)
        return 0;
    int any = 0;
    for (int i = 0; i < 4; i++) {
        const int qx = i & 1, qy = i >> 1;
        const int nx = bx + (qx ? 1 : -1), ny = by + (qy ? 1 : -1);
        const int kh = by * nbx + nx, kv = ny * nbx + bx, fs = g->fnbx;
        const int fb = by * fs + bx, fh = by * fs + nx, fv = ny * fs + bx;
        const McVec cand[MC_QUAD_CAND] = {
            vec_c[kh], vec_c[kv], vec_c[ny * nbx + nx],
            mc_field_qpel(fwd[fb], 1), mc_field_qpel(bwd[fb], -1),
            mc_field_qpel(fwd[fh], 1), mc_field_qpel(bwd[fh], -1),
            mc_field_qpel(fwd[fv], 1), mc_field_qpel(bwd[fv], -1),
        };
        const int x0 = g->ox + bx * g->block + qx * hb, y0 = g->oy + by * g->block + qy * hb;
        uint32_t co = 0, best = 0;
        int have_co = 0;
        McVec bv = own;
        for (int j = 0; j < MC_QUAD_CAND; j++) {
            const uint32_t l1 = (uint32_t)(mc_abs(cand[j].x - own.x) + mc_abs(cand[j].y - own.y));
            if (l1 < MC_QUAD_MIN_L1)
                continue;
            int dup = 0;   /* each vector once (tested only past the 1-pel rule) */
            for (int k = 0; k < j; k++)
                dup |= mc_vec_eq(cand[k], cand[j]);
            if (dup)
                continue;
            if (!have_co) {  /* the own cost, once, where a candidate differs */
                co = mc_cost_sub_os(c, g, ph, x0, y0, hb, hb, own.x, own.y);
                best = co;
                have_co = 1;
            }
            /* a candidate whose penalty alone (0 for the final vectors)
             * reaches the best cost or the guard cannot win: its cost is
             * not needed */
            const uint32_t pen = j >= MC_QUAD_FINAL ? area * l1 * MC_QUAD_FIELD_PEN : 0;
            if (pen >= best || (uint64_t)pen * 16 >= (uint64_t)MC_QUAD_GUARD * co)
                continue;
            /* A cost at or above the best, or at or above the guard's
             * limit (the smallest cost it refuses), is never taken: it
             * may lower the best only to a value the guard refuses, and a
             * candidate below the limit still gets its exact cost. So the
             * SAD is bounded there (the same choice). */
            const uint64_t limit = ((uint64_t)MC_QUAD_GUARD * co + 15) / 16;
            const uint32_t bound = (uint32_t)(limit < best ? limit : best) - pen;
            const uint32_t cc =
                mc_cost_sub_os_below(c, g, ph, x0, y0, hb, hb, cand[j].x, cand[j].y, bound) + pen;
            if (cc < best) {
                best = cc;
                bv = cand[j];
            }
        }
        if (!mc_vec_eq(bv, own) && (uint64_t)best * 16 < (uint64_t)MC_QUAD_GUARD * co) {
            q[i] = bv;
            any = 1;
        }
    }
    return any;
}

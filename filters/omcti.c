/* omcti: overlapped motion-compensated temporal interpolation. Vectors per
 * block, compensation per sub-block (block/2) with the block's own vector
 * and the vectors of the horizontal and vertical neighbours touching the
 * sub-block, under per-pixel masks (filters/mc.h). */
#include "filters/filter.h"
#include "filters/mc.h"

static int omcti_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    return mc_init(priv, p, OMCTI_METHOD_OMCTI, err, errlen);
}

const OmctiFilter filter_omcti = {
    .name = "omcti",
    .needs_motion = 1,
    .init = omcti_init,
    .new_pair = mc_new_pair,
    .picture = mc_picture,
    .pair_is_cut = mc_pair_is_cut,
    .pair_holds = mc_pair_holds,
    .uninit = mc_uninit,
};

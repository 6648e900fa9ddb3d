/* mcti: motion-compensated temporal interpolation, one vector per block and
 * no overlap (the paper's baseline; blocky where vectors differ). Vector
 * choice, fallback and scene cuts are those of omcti (filters/mc.h). */
#include "filters/filter.h"
#include "filters/mc.h"

static int mcti_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    return mc_init(priv, p, OMCTI_METHOD_MCTI, err, errlen);
}

const OmctiFilter filter_mcti = {
    .name = "mcti",
    .needs_motion = 1,
    .init = mcti_init,
    .new_pair = mc_new_pair,
    .picture = mc_picture,
    .pair_is_cut = mc_pair_is_cut,
    .pair_holds = mc_pair_holds,
    .uninit = mc_uninit,
};

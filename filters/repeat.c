/* repeat: the in-between picture is the nearer original (prev on a tie), the
 * floor every motion-compensated method must beat. */
#include "filters/filter.h"

static int repeat_init(void **priv, const FilterParams *p, char *err, size_t errlen)
{
    (void)p; (void)err; (void)errlen;
    *priv = NULL;
    return 0;
}

static int repeat_picture(void *priv, const FilterPair *pair, int64_t num, int64_t den,
                          OmctiPicture *out, char *err, size_t errlen)
{
    (void)priv;
    (void)err;
    (void)errlen;
    OmctiPicture src;
    frame_as_picture(2 * num <= den ? pair->prev : pair->next, &src);
    picture_copy(out, &src);
    return 0;
}

static void repeat_uninit(void **priv)
{
    *priv = NULL;
}

const OmctiFilter filter_repeat = {
    .name = "repeat",
    .needs_motion = 0,
    .init = repeat_init,
    .picture = repeat_picture,
    .uninit = repeat_uninit,
};

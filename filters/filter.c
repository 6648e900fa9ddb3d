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

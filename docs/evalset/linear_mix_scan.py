#!/usr/bin/env python3
"""Which pairs of a clip's even frames the dissolve rule (src/fade.c
fade_linear_mix()) calls a linear mix, in numpy, over all pixels of the
active area (the C code reads one row in eight): the pair (ev[k], ev[k+1]) is
listed as k(ratio, change) where
  ratio  = mean|ev[k] - (ev[k-1] + ev[k+1]) / 2| / change  (< 0.5 to pass),
  change = mean|ev[k+1] - ev[k-1]| / 2                      (>= 1.5 to pass).
  docs/evalset/linear_mix_scan.py CLIP.mkv ...   (needs ffmpeg and numpy)"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lumaframes import luma_frames  # noqa: E402


def bars(f, flat=24, dark=40):
    """Dark flat lines at each edge (src/active_area.h's ACTIVE_FLAT_RANGE and
    ACTIVE_DARK_MEAN, up to a quarter of the picture): top, bottom, left,
    right. The C detector also pairs the bars and finds damaged edge lines,
    which this does not."""
    def run(lines):
        n = 0
        for ln in lines[:len(lines) // 4]:
            if ln.max() - ln.min() > flat or ln.mean() > dark:
                break
            n += 1
        return n
    return run(f), run(f[::-1]), run(f.T), run(f.T[::-1])


for path in sys.argv[1:]:
    ev = luma_frames(path)[0::2]
    flagged = []
    for k in range(1, len(ev) - 1):
        # inside the active area of ev[k-1] and ev[k] (bars(), the C rule's
        # rectangle: src/context.c pair_area())
        t0, b0, l0, r0 = bars(ev[k - 1])
        t1, b1, l1, r1 = bars(ev[k])
        t, b, l, r = max(t0, t1), max(b0, b1), max(l0, l1), max(r0, r1)
        win = [f[t:f.shape[0] - b, l:f.shape[1] - r] for f in ev[k - 1:k + 2]]
        off = np.abs(win[1] - (win[0] + win[2]) / 2).mean()
        change = np.abs(win[2] - win[0]).mean() / 2
        if change >= 1.5 and off < 0.5 * change:
            flagged.append('%d(%.2f,%.1f)' % (k, off / change, change))
    print(path.split('/')[-1], ' '.join(flagged) if flagged else '-')

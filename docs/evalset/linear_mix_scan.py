#!/usr/bin/env python3
"""Which pairs of a clip's even frames the dissolve rule (src/fade.c
fade_linear_mix()) calls a linear mix, in numpy, over all pixels (the C code
reads one row in eight): the pair (ev[k], ev[k+1]) is
listed as k(ratio, change) where
  ratio  = mean|ev[k] - (ev[k-1] + ev[k+1]) / 2| / change  (< 0.5 to pass),
  change = mean|ev[k+1] - ev[k-1]| / 2                      (>= 1.5 to pass).
  docs/evalset/linear_mix_scan.py CLIP.mkv ...   (needs ffmpeg and numpy)"""
import subprocess
import sys

import numpy as np


def luma_frames(path):
    d = subprocess.run(['ffmpeg', '-v', 'error', '-i', path, '-f', 'yuv4mpegpipe', '-'],
                       capture_output=True, check=True).stdout
    hdr = d[:d.index(b'\n')].split()
    w = int([x for x in hdr if x.startswith(b'W')][0][1:])
    h = int([x for x in hdr if x.startswith(b'H')][0][1:])
    fs, pos, out = w * h * 3 // 2, d.index(b'\n') + 1, []
    while pos < len(d):
        pos = d.index(b'\n', pos) + 1
        out.append(np.frombuffer(d[pos:pos + fs], np.uint8)[:w * h].reshape(h, w).astype(np.float32))
        pos += fs
    return out


for path in sys.argv[1:]:
    ev = luma_frames(path)[0::2]
    flagged = []
    for k in range(1, len(ev) - 1):
        off = np.abs(ev[k] - (ev[k - 1] + ev[k + 1]) / 2).mean()
        change = np.abs(ev[k + 1] - ev[k - 1]).mean() / 2
        if change >= 1.5 and off < 0.5 * change:
            flagged.append('%d(%.2f,%.1f)' % (k, off / change, change))
    print(path.split('/')[-1], ' '.join(flagged) if flagged else '-')

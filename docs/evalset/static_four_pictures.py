#!/usr/bin/env python3
"""How much a four-picture average could add where the picture stands still.

  docs/evalset/static_four_pictures.py FULL OMCTI [FULL OMCTI ...]   (ffmpeg, numpy)

FULL is a clip, OMCTI the 2x conversion of its even frames (as for
frame_oracle.py), so that OMCTI's frame 2k+1 is the rebuilt F(2k+1). On dark,
nearly still, noisy footage the error of any two-picture prediction is mostly
noise: the rebuilt frame's own plus that of the average of its two
neighbours (1.5 times one frame's noise power). Averaging in the outer
neighbours F(i-3) and F(i+3) too, (2 OMCTI + F(i-3) + F(i+3)) / 4, carries
1.25 times (+0.8 dB on pure static noise). It is only right where nothing
moves over the four pictures; here that is decided per pixel from 8x8 block
means: the outer pictures' means within T grey levels of the inner ones', the
inner ones within T of each other, and OMCTI's mean distance from the blend of
the neighbours under T. Prints, per T, the mean per-frame PSNR-Y (as `omcti
eval` scores) of OMCTI and of OMCTI with the static pixels averaged over four
pictures; frames without outer neighbours count unchanged. The last 4 frames
are left out, as `omcti eval` does."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lumaframes import luma_frames  # noqa: E402


def psnr(mse):
    return 10 * np.log10(255.0 ** 2 / max(mse, 1e-10))


def block_mean(a, b=8):
    """a with each whole b x b block replaced by its mean (the rest as is)."""
    h, w = (a.shape[0] // b) * b, (a.shape[1] // b) * b
    m = a[:h, :w].reshape(h // b, b, w // b, b).mean(axis=(1, 3))
    r = a.copy()
    r[:h, :w] = np.repeat(np.repeat(m, b, 0), b, 1)
    return r


for full_path, om_path in zip(sys.argv[1::2], sys.argv[2::2]):
    full, om = luma_frames(full_path, np.float64), luma_frames(om_path, np.float64)
    n = min(len(full), len(om)) - 4
    for t in (1, 2, 3, 4, 6):
        base, four = [], []
        for i in range(1, n, 2):
            f, o = full[i], om[i]
            p = o
            if i >= 3 and i + 3 < len(full):
                blend = (full[i - 1] + full[i + 1]) / 2
                moved = np.maximum.reduce([np.abs(block_mean(full[i - 3] - full[i - 1])),
                                           np.abs(block_mean(full[i + 3] - full[i + 1])),
                                           np.abs(block_mean(full[i - 1] - full[i + 1])),
                                           block_mean(np.abs(o - blend))])
                p = np.where(moved < t, (2 * o + full[i - 3] + full[i + 3]) / 4, o)
            base.append(psnr(((o - f) ** 2).mean()))
            four.append(psnr(((p - f) ** 2).mean()))
        print('%s T=%d: omcti %.2f, static pixels over four pictures %.2f (%+.2f)'
              % (os.path.basename(full_path), t, np.mean(base), np.mean(four),
                 np.mean(four) - np.mean(base)))

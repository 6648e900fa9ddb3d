#!/usr/bin/env python3
"""Where a clip's rebuilt frames lose, per frame and per block, in numpy.

  docs/evalset/frame_oracle.py FULL OMCTI [OTHER]   (needs ffmpeg and numpy)

FULL is the clip (any format ffmpeg reads); OMCTI and OTHER are 2x
conversions of its even frames (e.g. `omcti -i even.y4m -o om.y4m` and
`ffmpeg -i even.y4m -vf minterpolate=fps=2R om_mi.y4m`, where even.y4m is
`ffmpeg -i FULL -vf "select='not(mod(n\\,2))'" -fps_mode passthrough -r R`: every
decoded frame once, as `omcti eval` reads them, also where the timestamps have a gap), so
that their frame 2k+1 is the rebuilt F(2k+1). The last 4 frames are left out,
as `omcti eval` does. Prints, per rebuilt frame, PSNR-Y of OMCTI, OTHER, blend
(the rounded mean of the neighbours) and repeat, and how far the neighbours'
global shifts (phase correlation, pel) are from being halfway; then the
means, and the PSNR an oracle would reach by taking, per 16x16 block, the
better of OMCTI and blend (and of all three): the room that any per-block
choice between motion and blending has on this clip."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lumaframes import luma_frames  # noqa: E402


def psnr(mse):
    return 10 * np.log10(255.0 ** 2 / max(mse, 1e-10))


def shift(a, b):
    """Global translation from a to b (integer pel, phase correlation)."""
    r = np.fft.fft2(b - b.mean()) * np.conj(np.fft.fft2(a - a.mean()))
    c = np.real(np.fft.ifft2(r / (np.abs(r) + 1e-9)))
    y, x = np.unravel_index(c.argmax(), c.shape)
    h, w = c.shape
    return np.array([x if x < w // 2 else x - w, y if y < h // 2 else y - h])


def block_sums(e, b=16):
    h, w = (e.shape[0] // b) * b, (e.shape[1] // b) * b
    return e[:h, :w].reshape(h // b, b, w // b, b).sum(axis=(1, 3)), e.sum() - e[:h, :w].sum()


full, om = luma_frames(sys.argv[1], np.float64), luma_frames(sys.argv[2], np.float64)
other = luma_frames(sys.argv[3], np.float64) if len(sys.argv) > 3 else None
n = min(len(full), len(om)) - 4
if other and len(other) <= n - 1:
    print('note: OTHER has %d frames; scoring the first %d' % (len(other), len(other) - 1))
    n = len(other) - 1
rows = []
for i in range(1, n, 2):
    f, o = full[i], om[i]
    bl = np.floor((full[i - 1] + full[i + 1]) / 2 + 0.5)
    m = other[i] if other else bl
    eo, eb, em = (o - f) ** 2, (bl - f) ** 2, (m - f) ** 2
    so, rest = block_sums(eo)
    sb, sm = block_sums(eb)[0], block_sums(em)[0]
    npx = f.size
    s1, s2 = shift(full[i - 1], f), shift(f, full[i + 1])
    rows.append([psnr(eo.mean()), psnr(em.mean()), psnr(eb.mean()), psnr(((full[i - 1] - f) ** 2).mean()),
                 psnr((np.minimum(so, sb).sum() + rest) / npx),
                 psnr((np.minimum(np.minimum(so, sb), sm).sum() + rest) / npx)])
    print('F%-3d omcti %6.2f  other %6.2f  blend %6.2f  repeat %6.2f   shifts %s %s (off halfway %s)'
          % (i, *rows[-1][:4], tuple(s1), tuple(s2), tuple((s1 - s2) // 2)))
r = np.mean(rows, axis=0)
print('mean: omcti %.2f other %.2f blend %.2f repeat %.2f; per-block oracle omcti|blend %.2f (%+.2f), '
      'omcti|blend|other %.2f (%+.2f)' % (*r[:4], r[4], r[4] - r[0], r[5], r[5] - r[0]))

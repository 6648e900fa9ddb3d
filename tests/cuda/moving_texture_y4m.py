#!/usr/bin/env python3
"""Writes a synthetic y4m for the GPU machine, which has numpy but no FFmpeg.

  tests/cuda/moving_texture_y4m.py W H FRAMES OUT.y4m [SEED]

A blurred random texture with 20 % noise, panned by a drifting whole-pel
vector (3 px right and 2 down a frame, with a sine wobble), a bright
rectangle moving its own way (5, 3) px a frame, chroma planes with a flat
patch and a level that changes every frame, and, in clips of more than six
frames, an inverted picture in the middle (a scene cut). Any size from 1x1
up: odd sizes, one-pixel-high strips and pictures wider than the search's
tiles are what the sizes check (sizes_check.sh) feeds both engines."""
import sys

import numpy as np


def texture(rng, h, w):
    t = rng.integers(0, 256, (h // 8 + 2, w // 8 + 2)).astype(np.float32)
    t = np.kron(t, np.ones((8, 8), np.float32))[:h, :w]
    k = np.ones(5, np.float32) / 5
    t = np.apply_along_axis(lambda r: np.convolve(r, k, 'same'), 1, t)
    t = np.apply_along_axis(lambda c: np.convolve(c, k, 'same'), 0, t)
    return 0.8 * t + 0.2 * rng.integers(0, 256, (h, w)).astype(np.float32)


def main():
    w, h, n, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = np.random.default_rng(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    margin = 400  # room for the pan: 180 px across, 150 down
    base = texture(rng, h + margin, w + margin)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    with open(out, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (w, h))
        for i in range(n):
            dx = int(3 * i + 2 * np.sin(i)) % 180
            dy = (2 * i) % 150
            y = base[dy:dy + h, dx:dx + w].copy()
            if n > 6 and i == n // 2:
                y = 255 - y
            sx, sy = (5 * i) % w, (3 * i) % h
            y[sy:sy + max(1, h // 5), sx:sx + max(1, w // 5)] = 230
            u = np.full((ch, cw), 128 + i % 7, np.uint8)
            u[:ch // 2, :cw // 2] = 90
            v = np.full((ch, cw), 120, np.uint8)
            f.write(b'FRAME\n')
            f.write(np.clip(y, 0, 255).astype(np.uint8).tobytes())
            f.write(u.tobytes())
            f.write(v.tobytes())


if __name__ == '__main__':
    main()

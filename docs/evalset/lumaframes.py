"""The luma planes of a video's frames as numpy arrays, for the scripts beside
this file (ffmpeg decodes the video to 8-bit 4:2:0 y4m)."""
import subprocess

import numpy as np


def luma_frames(path, dtype=np.float32):
    # every decoded frame once, in order, as `omcti eval` reads them: without
    # passthrough, ffmpeg's constant-rate output repeats a frame over a gap in
    # the timestamps, and every frame after it is one off
    d = subprocess.run(['ffmpeg', '-v', 'error', '-i', path, '-fps_mode', 'passthrough',
                        '-f', 'yuv4mpegpipe', '-pix_fmt', 'yuv420p', '-'],
                       capture_output=True, check=True).stdout
    hdr = d[:d.index(b'\n')].split()
    w = int([x for x in hdr if x.startswith(b'W')][0][1:])
    h = int([x for x in hdr if x.startswith(b'H')][0][1:])
    fs, pos, out = w * h * 3 // 2, d.index(b'\n') + 1, []
    while pos < len(d):
        pos = d.index(b'\n', pos) + 1
        out.append(np.frombuffer(d[pos:pos + fs], np.uint8)[:w * h].reshape(h, w).astype(dtype))
        pos += fs
    return out

#!/bin/sh
# Other phases than 1/2: keeps every 3rd frame of CLIP, rebuilds the two
# frames between each kept pair at t = 1/3 and 2/3 with omcti (--fps 3R) and
# FFmpeg's minterpolate (fps=3R), and prints the mean PSNR-Y of omcti,
# minterpolate and blend (weighted at the phase) against the originals at
# each phase, and omcti's margin over the better of the other two.
#   docs/evalset/phase3_eval.sh CLIP.mkv [OMCTI] [WORKDIR]   (needs ffmpeg; numpy in
#   $PYTHON, default python3)
set -eu
c=$1; B=${2:-build/src/cli/omcti}; d=${3:-/tmp/phase3}; n=$(basename "$c" .mkv)
mkdir -p "$d"
ffmpeg -v error -y -i "$c" -vf "select='not(mod(n\,3))',setpts=N/FRAME_RATE/TB" -f yuv4mpegpipe -pix_fmt yuv420p "$d/$n.k3.y4m"
r=$(head -1 "$d/$n.k3.y4m" | tr ' ' '\n' | sed -n 's/^F//p'); fps=$((3 * ${r%:*}))/${r#*:}
"$B" -q -y -i "$d/$n.k3.y4m" -o "$d/$n.om3.y4m" --fps "$fps"
ffmpeg -v error -y -i "$d/$n.k3.y4m" -vf "minterpolate=fps=$fps" -f yuv4mpegpipe "$d/$n.mi3.y4m"
${PYTHON:-python3} - "$c" "$d/$n.om3.y4m" "$d/$n.mi3.y4m" "$n" "$(dirname "$0")" <<'P'
import sys
import numpy as np
sys.path.insert(0, sys.argv[5])
from lumaframes import luma_frames
full, om, mi = (luma_frames(p, np.float64) for p in sys.argv[1:4])
psnr = lambda a, b: 10 * np.log10(255.0 ** 2 / max(((a - b) ** 2).mean(), 1e-10))
n = min(len(full), len(om), len(mi)) - 3    # minterpolate drops its last frames
res = {j: [] for j in (1, 2)}
for k in range(0, n - 3, 3):
    for j in (1, 2):
        f, bl = full[k + j], np.floor(full[k] * (3 - j) / 3 + full[k + 3] * j / 3 + 0.5)
        res[j].append((psnr(om[k + j], f), psnr(mi[k + j], f), psnr(bl, f)))
out = []
for j in (1, 2):
    o, m, b = np.mean(res[j], axis=0)
    out.append('t=%d/3 omcti %.2f minterpolate %.2f blend %.2f (%+.2f)' % (j, o, m, b, o - max(m, b)))
print('%-30s %s  [%d pairs]' % (sys.argv[4], ' | '.join(out), len(res[1])))
P

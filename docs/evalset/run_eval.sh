#!/bin/sh
# Scores the evaluation set (make_evalset.sh) with the drop-odd-frames protocol of
# `omcti eval`: omcti's default (what `omcti -i IN -o OUT` does), FFmpeg's minterpolate
# (its defaults: mi_mode=mci, mc_mode=obmc, me_mode=bilat, me=epzs, search_param=32),
# blending and repetition, all on the same rebuilt frames with the same metrics.
#   docs/evalset/run_eval.sh SETDIR [OMCTI] [RESULTS] [extra omcti eval options]
# Prints a markdown table (PSNR-Y in dB, SSIM-Y in brackets) and keeps every clip's
# JSON in RESULTS (default SETDIR/results). A clip of N frames is scored on its first
# N-4 frames, so that minterpolate (which drops its last in-between frames) covers
# every scored frame. --compare FILE=NAME in the extra options is not allowed (the
# minterpolate run takes it); score other outputs with `omcti eval --compare`.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 SETDIR [OMCTI] [RESULTS] [eval options]" >&2; exit 2; }
set_dir=$1
omcti=${2:-build/src/cli/omcti}
res=${3:-$set_dir/results}
[ $# -ge 3 ] && shift 3 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$res"
for clip in "$set_dir"/*.mkv; do
    name=$(basename "$clip" .mkv)
    n=$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
        -of csv=p=0 "$clip")
    OMP_WAIT_POLICY=passive "$here/../minterpolate_eval.sh" "$clip" $((n - 4)) "$omcti" \
        --methods omcti,blend,repeat --json "$@" > "$res/$name.out" 2>&1 ||
        { echo "run_eval: $name failed, see $res/$name.out" >&2; exit 1; }
    sed -n '/^{/,$p' "$res/$name.out" > "$res/$name.json"
    grep '^minterpolate:' "$res/$name.out" | sed "s/^/$name /" > "$res/$name.mitime"
done
python3 - "$res" <<'EOF'
import json, os, sys
res = sys.argv[1]
names = sorted(f[:-5] for f in os.listdir(res) if f.endswith(".json"))
names = [n for n in names if not n.startswith("pan_")] + [n for n in names if n.startswith("pan_")]
cols = ["repeat", "blend", "minterpolate", "omcti"]
print("| clip | size | rebuilt frames | " + " | ".join(cols) + " | omcti − best other | omcti ms/frame |")
print("|---|---|---:|" + "---:|" * len(cols) + "---:|---:|")
gain, over_rep = [], []
for n in names:
    j = json.load(open(os.path.join(res, n + ".json")))
    r = {}
    for x in j["results"]:
        key = x["method"] if x["method"] != "external" else x["label"]
        r[key] = x
    best = max(r[c]["psnr_y"] for c in cols[:3])
    d = r["omcti"]["psnr_y"] - best
    gain.append(d); over_rep.append(r["omcti"]["psnr_y"] - r["repeat"]["psnr_y"])
    cells = []
    for c in cols:
        v = "%.2f (%.3f)" % (r[c]["psnr_y"], r[c]["ssim_y"])
        if c != "omcti" and r[c]["psnr_y"] == best: v = "**" + v + "**"
        cells.append(v)
    print("| %s | %dx%d | %d | %s | %+.2f | %.1f |" % (n, j["width"], j["height"], j["frames_rebuilt"],
          " | ".join(cells), d, 1000 * r["omcti"]["seconds_per_frame"]))
print()
print("omcti − best other: mean %+.2f dB, worst %+.2f dB; omcti − repeat: mean %+.2f dB; %d clips"
      % (sum(gain) / len(gain), min(gain), sum(over_rep) / len(over_rep), len(names)))
EOF

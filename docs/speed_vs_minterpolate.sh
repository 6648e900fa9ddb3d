#!/usr/bin/env bash
# Whole 2x conversion, omcti (the default search, pyramid, and full) against
# FFmpeg's minterpolate at the same output rate, interleaved, wall clock.
#   docs/speed_vs_minterpolate.sh CLIP.y4m [OMCTI] [ROUNDS]
# CLIP: e.g. 40 frames of flower_720p scaled to 1080p:
#   ffmpeg -i ../shared/samples/flower_720p.mkv -vf scale=1920:1080 -frames:v 40 -f yuv4mpegpipe /tmp/flower_1080p.y4m
set -eu
CLIP=$1 O=${2:-build/src/cli/omcti} ROUNDS=${3:-2}
fps=$(head -1 "$CLIP" | tr ' ' '\n' | sed -n 's/^F//p'); fps=$((2 * ${fps%:*} / ${fps#*:}))
# Both write nothing: minterpolate to FFmpeg's null muxer, omcti its y4m
# stream to /dev/null (-o -). Writing the 245 MB of y4m into a file on the
# 2-core machine's disk added 0.3-0.9 s of writeback to a 1.7 s conversion
# (2026-11-26), a cost of the disk that minterpolate's side never pays.
n=$("$O" -y -i "$CLIP" -o - 2>&1 >/dev/null | sed -n 's/.* frames in, \([0-9]*\) out.*/\1/p')   # output frames
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}'; }
for r in $(seq "$ROUNDS"); do
    a=$(secs "$O" -q -i "$CLIP" -o - --search full)
    b=$(secs "$O" -q -i "$CLIP" -o -)
    c=$(secs ffmpeg -v error -i "$CLIP" -vf minterpolate=fps=$fps -f null -)
    awk -v r="$r" -v a="$a" -v b="$b" -v c="$c" -v n="$n" 'BEGIN{
        printf "round %s: omcti full %.2f s (%.1f fps), omcti default %.2f s (%.1f fps), minterpolate %.2f s (%.2f fps); ratios %.1fx %.1fx\n",
               r, a, n/a, b, n/b, c, n/c, c/a, c/b }'
done

#!/usr/bin/env bash
# Two omcti builds on one clip, interleaved (A, B, A, B ...): medians of the
# wall time and of the CPU time (user + sys) of each, and B/A. The output y4m
# goes to /dev/shm and the last run's file is removed before each run
# (outside the timing: replacing a file frees its pages in the rename).
#   docs/ab_speed.sh CLIP.y4m ROUNDS OMCTI_A OMCTI_B [omcti options...]
# e.g. docs/ab_speed.sh /tmp/flower_1080p.y4m 8 old/build/src/cli/omcti build/src/cli/omcti --threads 2
set -eu
CLIP=$1 N=$2 A=$3 B=$4
shift 4
for i in $(seq "$N"); do
    for k in A B; do
        bin=$A
        [ "$k" = B ] && bin=$B
        rm -f "/dev/shm/ab_speed_$k.y4m"
        /usr/bin/time -f "$k %e %U %S" "$bin" -q -y -i "$CLIP" -o "/dev/shm/ab_speed_$k.y4m" "$@" 2>&1 | tail -1
    done
done | python3 -c '
import collections, statistics as st, sys
d = collections.defaultdict(list)
for line in sys.stdin:
    k, e, u, s = line.split()
    d[k].append((float(e), float(u) + float(s)))
for k in "AB":
    print(k, "wall median %.3f min %.3f s | CPU median %.3f min %.3f s" % (
        st.median(x[0] for x in d[k]), min(x[0] for x in d[k]),
        st.median(x[1] for x in d[k]), min(x[1] for x in d[k])))
print("B/A: wall %.3f, CPU %.3f" % (
    st.median(x[0] for x in d["B"]) / st.median(x[0] for x in d["A"]),
    st.median(x[1] for x in d["B"]) / st.median(x[1] for x in d["A"])))'
if cmp -s /dev/shm/ab_speed_A.y4m /dev/shm/ab_speed_B.y4m; then echo "outputs identical"; else echo "outputs differ"; fi
rm -f /dev/shm/ab_speed_A.y4m /dev/shm/ab_speed_B.y4m

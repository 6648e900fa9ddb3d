#!/usr/bin/env bash
# `omcti --engine cuda` where no GPU can be used: a non-zero exit and one
# line on stderr that names the cause; no output file left behind. The GPU
# is hidden (CUDA_VISIBLE_DEVICES=""), so this holds on CI and on a GPU
# machine, with or without CUDA in the build.
# usage: cli_nogpu.sh OMCTI Y4MTOOL
set -u
OMCTI=$1 Y4M=$2
T=$(mktemp -d /tmp/omcti-cuda-XXXXXX)
trap 'rm -rf "$T"' EXIT
"$Y4M" gen 64 48 3 > "$T/in.y4m" || { echo "y4mtool failed"; exit 1; }
fail=0
for method in omcti blend; do
    CUDA_VISIBLE_DEVICES= "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.y4m" --engine cuda \
        --method $method 2>"$T/err"
    rc=$?
    lines=$(grep -c . "$T/err")
    if [ $rc -eq 0 ] || [ "$lines" -ne 1 ] || ! grep -qi "cuda" "$T/err"; then
        echo "FAIL --engine cuda --method $method: exit $rc, stderr: $(cat "$T/err")"
        fail=1
    else
        echo "ok --method $method: exit $rc: $(cat "$T/err")"
    fi
    if [ -e "$T/out.y4m" ]; then
        echo "FAIL --method $method: output file left behind"
        fail=1
    fi
done
exit $fail

#!/usr/bin/env bash
# The side files the CLI writes besides -o obey the rules of -o
# (src/io/output_path.c): `eval --plot FILE` and the OUT.sum of
# `--segment`. An existing file is kept byte for byte without -y; a link to
# a file is written through with -y (the link kept); a link to nothing is
# refused; a FIFO or a character device is written in place, never replaced
# by a file, and no temporary file is made beside it.
# Device nodes are mknod copies of /dev/null made here (as root only),
# never a real /dev node. Without a working gnuplot the .sum checks still
# run and the test then reports itself skipped (77).
# usage: plot_overwrite_test.sh OMCTI Y4MTOOL HAVE_FFMPEG
set -u
OMCTI=$(realpath "$1") Y4M=$(realpath "$2") HAVE_FFMPEG=${3:-0}
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-plot-XXXXXX")
readers=()
cleanup() {
    for p in "${readers[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# one line on stderr, "omcti: " first, holding $2
one_line() {
    [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "^omcti: .*$2" "$T/err" && ok ||
        bad "$1: stderr '$(head -c 400 "$T/err")' is not one line with '$2'"
}
# no temporary file of ours left in folder $2
no_temp() {
    if ls -A "$2" | grep -q 'omcti-'; then bad "$1: a temporary file was left: $(ls -A "$2" | grep omcti-)"; else ok; fi
}
is_png() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ]; }
# a background reader of FIFO $1 into $2; reaped: waited for a while once
# the writer is done, then stopped (a FIFO replaced by a file would leave
# it blocked for ever)
reader() { cat "$1" > "$2" & readers+=($!); }
reaped() {
    local p=${readers[-1]}
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
}
# mknod's copy of /dev/null at $1: only as root; 1 where it cannot be made
devnode() { [ "$(id -u)" = 0 ] && mknod "$1" c 1 3 2>/dev/null; }
rdev() { stat -c '%F %t:%T' "$1"; }

"$Y4M" gen 32 32 6 > "$T/six.y4m"
P=$T/plot; mkdir "$P"

# --- eval --plot ----------------------------------------------------------
plot() { timeout 60 "$OMCTI" eval -i "$T/six.y4m" --methods blend --plot "$@" >/dev/null 2>"$T/err"; }
have_plot=0
if plot "$P/probe.png" && is_png "$P/probe.png"; then have_plot=1; fi
rm -f "$P/probe.png"

if [ $have_plot = 1 ]; then
    # an existing file: kept without -y (and with -n), replaced with -y
    echo precious > "$P/exist.png"; cp "$P/exist.png" "$T/exist.keep"
    plot "$P/exist.png"; rc=$?
    [ $rc -eq 1 ] && cmp -s "$P/exist.png" "$T/exist.keep" && ok ||
        bad "--plot over an existing file without -y: exit $rc, file $(head -c 20 "$P/exist.png" | od -An -c | head -1)"
    one_line "--plot over an existing file" "eval: output '$P/exist.png' already exists (use -y to overwrite)"
    plot "$P/exist.png" -n; rc=$?
    [ $rc -eq 1 ] && cmp -s "$P/exist.png" "$T/exist.keep" && ok || bad "--plot -n over an existing file: exit $rc"
    plot "$P/exist.png" -y -n; rc=$?
    [ $rc -eq 2 ] && cmp -s "$P/exist.png" "$T/exist.keep" && ok || bad "--plot -y -n: exit $rc"
    one_line "--plot -y -n" "eval: -y and -n contradict each other"
    plot "$P/exist.png" -y; rc=$?
    [ $rc -eq 0 ] && [ -f "$P/exist.png" ] && [ ! -L "$P/exist.png" ] && is_png "$P/exist.png" && ok ||
        bad "--plot -y over an existing file: exit $rc, not replaced by the plot: $(cat "$T/err")"
    no_temp "--plot" "$P"

    # a link to a file: like the file; with -y written through, the link kept
    echo target > "$P/target.txt"; ln -s target.txt "$P/link.png"
    plot "$P/link.png"; rc=$?
    [ $rc -eq 1 ] && [ "$(readlink "$P/link.png")" = target.txt ] && [ "$(cat "$P/target.txt")" = target ] && ok ||
        bad "--plot onto a link without -y: exit $rc, $(ls -l "$P/link.png")"
    one_line "--plot onto a link" "already exists (use -y to overwrite)"
    plot "$P/link.png" -y; rc=$?
    [ $rc -eq 0 ] && [ "$(readlink "$P/link.png")" = target.txt ] && is_png "$P/target.txt" && ok ||
        bad "--plot -y onto a link: exit $rc, $(ls -l "$P/link.png"), target $(head -c 8 "$P/target.txt" | od -An -c | head -1): $(cat "$T/err")"
    # a link to nothing: refused, nothing made where it points
    ln -s "$P/nowhere.png" "$P/dangling.png"
    plot "$P/dangling.png" -y; rc=$?
    [ $rc -eq 1 ] && [ -L "$P/dangling.png" ] && [ ! -e "$P/nowhere.png" ] && ok ||
        bad "--plot -y onto a link to nothing: exit $rc, $(ls -A "$P")"
    one_line "--plot onto a link to nothing" "is a symbolic link to a missing file"
    no_temp "--plot onto links" "$P"

    # a FIFO: refused without -y (and not opened: no reader here), written
    # in place with -y, the FIFO kept
    mkfifo "$P/fifo.png"
    plot "$P/fifo.png"; rc=$?
    [ $rc -eq 1 ] && [ -p "$P/fifo.png" ] && ok || bad "--plot onto a FIFO without -y: exit $rc"
    one_line "--plot onto a FIFO" "already exists (use -y to overwrite)"
    reader "$P/fifo.png" "$T/fifo-got.png"
    plot "$P/fifo.png" -y; rc=$?
    reaped
    [ $rc -eq 0 ] && [ -p "$P/fifo.png" ] && is_png "$T/fifo-got.png" && ok ||
        bad "--plot -y onto a FIFO: exit $rc, $(ls -l "$P/fifo.png"), read $(wc -c <"$T/fifo-got.png") bytes: $(cat "$T/err")"
    no_temp "--plot onto a FIFO" "$P"

    # a character device (a copy of /dev/null): refused without -y, written
    # in place with -y, never replaced by a file; no temporary beside it
    if devnode "$P/dev.png"; then
        before=$(rdev "$P/dev.png")
        plot "$P/dev.png"; rc=$?
        [ $rc -eq 1 ] && [ "$(rdev "$P/dev.png")" = "$before" ] && ok || bad "--plot onto a device without -y: exit $rc, $(ls -l "$P/dev.png")"
        one_line "--plot onto a device" "already exists (use -y to overwrite)"
        plot "$P/dev.png" -y; rc=$?
        [ $rc -eq 0 ] && [ "$(rdev "$P/dev.png")" = "$before" ] && ok ||
            bad "--plot -y onto a device: exit $rc, now $(ls -l "$P/dev.png"): $(cat "$T/err")"
        no_temp "--plot onto a device" "$P"
    else
        echo "SKIP: --plot onto a device node (not root)"
    fi

    # the --compare file is an input too: never replaced by the plot (with -y it was)
    cp "$T/six.y4m" "$P/cmp.y4m"
    for name in "$P/cmp.y4m" "$P/cmp.y4m=theirs"; do
        plot "$P/cmp.y4m" -y --compare "$name"; rc=$?
        [ $rc -eq 2 ] && cmp -s "$T/six.y4m" "$P/cmp.y4m" && ok ||
            bad "--plot onto the --compare file ($name): exit $rc, the file $(head -c 9 "$P/cmp.y4m")"
        one_line "--plot onto the --compare file" "eval: output '$P/cmp.y4m' is also an input ('$P/cmp.y4m')"
    done
    no_temp "--plot onto the --compare file" "$P"
fi

# --- --segment: OUT.sum -----------------------------------------------------
S=$T/seg; mkdir "$S"
seg() { timeout 60 "$OMCTI" -q -i "$T/six.y4m" --segment 0/2 -o "$@" 2>"$T/err"; }

# a FIFO at OUT.sum: refused without -y, written in place with -y
mkfifo "$S/a.y4m.sum"
seg "$S/a.y4m"; rc=$?
[ $rc -eq 1 ] && [ -p "$S/a.y4m.sum" ] && [ ! -e "$S/a.y4m" ] && ok || bad "--segment, OUT.sum a FIFO, without -y: exit $rc, $(ls -l "$S")"
one_line "--segment, OUT.sum a FIFO" "is not an omcti checksum file"
reader "$S/a.y4m.sum" "$T/sum-got"
seg "$S/a.y4m" -y; rc=$?
reaped
[ $rc -eq 0 ] && [ -p "$S/a.y4m.sum" ] && [ "$(head -1 "$T/sum-got")" = "omcti-piece 3" ] && ok ||
    bad "--segment -y, OUT.sum a FIFO: exit $rc, $(ls -l "$S/a.y4m.sum"), read '$(head -1 "$T/sum-got")': $(cat "$T/err")"
no_temp "--segment, OUT.sum a FIFO" "$S"

# a device at OUT.sum: kept, with -y written in place
if devnode "$S/b.y4m.sum"; then
    before=$(rdev "$S/b.y4m.sum")
    seg "$S/b.y4m"; rc=$?
    [ $rc -eq 1 ] && [ "$(rdev "$S/b.y4m.sum")" = "$before" ] && ok || bad "--segment, OUT.sum a device, without -y: exit $rc"
    seg "$S/b.y4m" -y; rc=$?
    [ $rc -eq 0 ] && [ "$(rdev "$S/b.y4m.sum")" = "$before" ] && ok ||
        bad "--segment -y, OUT.sum a device: exit $rc, now $(ls -l "$S/b.y4m.sum"): $(cat "$T/err")"
    no_temp "--segment, OUT.sum a device" "$S"
else
    echo "SKIP: --segment, OUT.sum a device node (not root)"
fi

# a link to a file at OUT.sum: kept without -y; with -y written through,
# the link kept, and the pieces still join
echo keep > "$S/t.txt"; ln -s t.txt "$S/c.y4m.sum"
seg "$S/c.y4m"; rc=$?
[ $rc -eq 1 ] && [ "$(cat "$S/t.txt")" = keep ] && [ -L "$S/c.y4m.sum" ] && ok || bad "--segment, OUT.sum a link, without -y: exit $rc"
seg "$S/c.y4m" -y; rc=$?
[ $rc -eq 0 ] && [ "$(readlink "$S/c.y4m.sum")" = t.txt ] && [ "$(head -1 "$S/t.txt")" = "omcti-piece 3" ] && ok ||
    bad "--segment -y, OUT.sum a link: exit $rc, $(ls -l "$S/c.y4m.sum"), target '$(head -1 "$S/t.txt")': $(cat "$T/err")"
"$OMCTI" -q -i "$T/six.y4m" --segment 1/2 -o "$S/c1.y4m" 2>"$T/err" &&
    "$OMCTI" join -q -o "$S/joined.y4m" "$S/c.y4m" "$S/c1.y4m" 2>>"$T/err" && ok ||
    bad "join of a piece whose .sum is a link: $(cat "$T/err")"
# a link to nothing: refused, nothing made where it points
ln -s "$S/nowhere" "$S/d.y4m.sum"
seg "$S/d.y4m" -y; rc=$?
[ $rc -eq 1 ] && [ -L "$S/d.y4m.sum" ] && [ ! -e "$S/nowhere" ] && ok || bad "--segment -y, OUT.sum a link to nothing: exit $rc"
one_line "--segment, OUT.sum a link to nothing" "is a symbolic link to a missing file"
no_temp "--segment, OUT.sum links" "$S"

# OUT itself a FIFO: the piece goes in place, and no OUT.sum is made
# (there are no bytes to describe, as on stdout)
mkfifo "$S/e.y4m"
reader "$S/e.y4m" "$T/piece-got"
seg "$S/e.y4m" -y; rc=$?
reaped
[ $rc -eq 0 ] && [ -p "$S/e.y4m" ] && [ ! -e "$S/e.y4m.sum" ] && [ -s "$T/piece-got" ] && ok ||
    bad "--segment -y onto a FIFO: exit $rc, $(ls -l "$S" | grep e.y4m): $(cat "$T/err")"
no_temp "--segment onto a FIFO" "$S"

echo "plot_overwrite_test: $pass passed, $fail failed"
[ $fail -eq 0 ] || exit 1
if [ $have_plot = 0 ]; then echo "SKIP: eval --plot checks (gnuplot cannot make a PNG here)"; exit 77; fi
exit 0

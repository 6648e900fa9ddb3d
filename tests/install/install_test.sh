#!/usr/bin/env bash
# `meson install` into a temporary DESTDIR, then docs/example/example.c
# built against the installed library with `pkg-config --cflags --libs
# omcti` (shared, then static) and run. Exit 77 without pkg-config.
#   install_test.sh BUILD_DIR SOURCE_DIR [SANITIZERS]
# (a sanitized library needs a sanitized program: SANITIZERS is meson's
# b_sanitize, e.g. address,undefined, or none)
set -u
B=$1 S=$2 SAN=${3:-none}
san=(); [ "$SAN" != none ] && san=(-fsanitize="$SAN")
command -v pkg-config >/dev/null || { echo "pkg-config not installed: skipped"; exit 77; }
D=$(mktemp -d "${TMPDIR:-/tmp}/omcti-install-XXXXXX")
trap 'rm -rf "$D"' EXIT
meson install -C "$B" --no-rebuild --quiet --destdir "$D" >"$D.log" 2>&1 ||
    { cat "$D.log"; rm -f "$D.log"; echo "meson install failed"; exit 1; }
rm -f "$D.log"
pc=$(find "$D" -name omcti.pc | head -1)
[ -n "$pc" ] || { echo "no omcti.pc installed"; exit 1; }
hdr=$(find "$D" -name omcti.h | head -1)
[ -n "$hdr" ] || { echo "no omcti.h installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$D
libdir=$(pkg-config --variable=libdir omcti)   # the sysroot included
fail=0
for kind in shared static; do
    if [ $kind = shared ]; then
        flags=$(pkg-config --cflags --libs omcti) || exit 1
    else   # the archive itself, with the libraries it needs (Libs.private)
        flags=$(pkg-config --cflags --libs --static omcti | sed 's/-lomcti\b/-l:libomcti.a/') || exit 1
    fi
    if ! cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -o "$D/example-$kind" \
            "$S/docs/example/example.c" $flags; then
        echo "FAIL: example does not build ($kind): cc ... $flags"; fail=1; continue
    fi
    if out=$(LD_LIBRARY_PATH="$libdir" "$D/example-$kind"); then
        echo "PASS ($kind): $out"
    else
        echo "FAIL: example ($kind) exited $?: $out"; fail=1
    fi
done
# The installed command runs the installed program (omcti-bin, beside it).
cmd=$(find "$D" -path '*/bin/omcti' -type f | head -1)
if [ -z "$cmd" ] || [ ! -x "$(dirname "$cmd")/omcti-bin" ]; then
    echo "FAIL: omcti and omcti-bin are not installed side by side: $(find "$D" -path '*/bin/*')"; fail=1
elif ! out=$(LD_LIBRARY_PATH="$libdir" "$cmd" --version 2>&1) || [ "${out#omcti }" = "$out" ]; then
    echo "FAIL: the installed omcti --version: $out"; fail=1
else
    echo "PASS (command): $out"
fi
# The installed library is the core alone: no FFmpeg in it.
so=$(find "$D" -name 'libomcti.so*' -type f | head -1)
if [ -n "$so" ] && { nm -D "$so" | grep -q ' U av' || ldd "$so" | grep -q libav; }; then
    echo "FAIL: libomcti needs FFmpeg"; fail=1
fi
exit $fail

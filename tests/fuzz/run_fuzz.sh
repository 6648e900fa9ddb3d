#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a
# short while from the committed seed corpus (corpus/TARGET, made by
# make_corpus.sh where they are files omcti reads or writes), after
# replaying the inputs that once crashed one (crashes/TARGET-NAME):
#   y4m            the y4m reader on arbitrary bytes
#   options        the command-line parser
#   frame_index    the frame-index loader (--index, farm's frames.idx)
#   ffmpeg_reader  the FFmpeg reader on mutated containers (open, read, index, seek)
#   join           join's checksum-file validation and the join of y4m / mkv pieces
# The FFmpeg-reader target needs FFmpeg's development files (pkg-config);
# without them it is left out and join covers y4m pieces only. Exit 77
# (skip) without clang's libFuzzer.
# usage: run_fuzz.sh SOURCE_ROOT BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
# The seconds per target are capped so that all targets together fuzz for
# at most OMCTI_FUZZ_BUDGET seconds (default 120: the suite's fuzz test
# stays under about 3 minutes with the builds); a long run names its
# targets and sets the budget, e.g.
#   OMCTI_FUZZ_BUDGET=600 nice run_fuzz.sh . build 600 join
set -u
src=$1 out=$2/fuzz secs=${3:-40}
shift $(( $# < 3 ? $# : 3 ))
command -v clang >/dev/null || { echo "clang not installed: fuzzing skipped"; exit 77; }
mkdir -p "$out"
base=(-std=c11 -D_GNU_SOURCE -DOMCTI_HAVE_CUDA=0 -DOMCTI_HAVE_OPENMP=0
      '-DOMCTI_VERSION_STRING="fuzz"' -I"$src" -I"$src/include" -g -O1
      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
flags=("${base[@]}" -DOMCTI_HAVE_FFMPEG=0)
if ! echo 'int LLVMFuzzerTestOneInput(const char*d,long n){(void)d;(void)n;return 0;}' |
        clang -x c - -fsanitize=fuzzer -o "$out/probe" 2>/dev/null; then
    echo "clang has no libFuzzer runtime (libclang-rt-dev): fuzzing skipped"; exit 77
fi
ffmods="libavformat libavcodec libavutil libswscale"
have_ff=0
if pkg-config --exists $ffmods 2>/dev/null; then
    have_ff=1
    # shellcheck disable=SC2207
    ffflags=("${base[@]}" -DOMCTI_HAVE_FFMPEG=1 $(pkg-config --cflags $ffmods))
    # shellcheck disable=SC2207
    fflibs=($(pkg-config --libs $ffmods) -lpthread -lm)
else
    echo "FFmpeg development files not found: fuzz_ffmpeg_reader skipped, join fuzzed on y4m only"
fi
io_noff=("$src"/src/io/{io,output_path,y4m,frame_index,join,async,y4m_slots,mp4_boxes}.c "$src"/src/{common,rational,frame}.c)
io_ff=("${io_noff[@]}" "$src"/src/io/ffmpeg_{audio,dec_errors,decode,encoder,join,meta,mux,probe,seek}.c)
# The program's segment code asks the library for its lead-in
# (omcti_segment_lead_in): the libomcti.so of the build under test.
libdir=$(cd "$out/../.." && pwd)   # (BUILD_DIR is the build's tests/)
cli=("$src"/src/cli/{segment,piece_sum,piece_set,timeline}.c "$src/src/settings.c" "$libdir/libomcti.so"
     -Wl,-rpath,"$libdir")

build() {   # NAME COMPILER-ARGS...
    local name=$1; shift
    clang "$@" -o "$out/fuzz_$name" || { echo "FAIL: cannot build fuzz_$name"; exit 1; }
}
all=(y4m options frame_index join)
build y4m "${flags[@]}" "$src/tests/fuzz/fuzz_y4m.c" "$src"/src/io/{y4m,io,output_path,frame_index}.c \
    "$src"/src/{common,rational}.c
build options "${flags[@]}" "$src/tests/fuzz/fuzz_options.c" "$src"/src/cli/options.c "$src"/src/io/output_path.c \
    "$src"/src/{settings,rational,common}.c
build frame_index "${flags[@]}" "$src/tests/fuzz/fuzz_frame_index.c" "$src"/src/io/{io,output_path,y4m}.c \
    "$src"/src/{common,rational}.c
if [ $have_ff = 1 ]; then
    all+=(ffmpeg_reader)
    build ffmpeg_reader "${ffflags[@]}" "$src/tests/fuzz/fuzz_ffmpeg_reader.c" "${io_ff[@]}" "${fflibs[@]}"
    build join "${ffflags[@]}" "$src/tests/fuzz/fuzz_join.c" "${cli[@]}" "${io_ff[@]}" "${fflibs[@]}"
else
    build join "${flags[@]}" "$src/tests/fuzz/fuzz_join.c" "${cli[@]}" "${io_noff[@]}" -lpthread -lm
fi

targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
budget=${OMCTI_FUZZ_BUDGET:-120}
per=$(( budget / ${#targets[@]} )); [ "$per" -lt "$secs" ] && secs=$per
status=0
# Inputs that once crashed a target (crashes/TARGET-*) are replayed first.
for f in "$src"/tests/fuzz/crashes/*; do
    [ -f "$f" ] || continue
    t=$(basename "$f"); t=${t%%-*}
    [ -x "$out/fuzz_$t" ] || continue
    if ! "$out/fuzz_$t" -runs=1 -rss_limit_mb=4096 -timeout=10 "$f" >"$out/replay.log" 2>&1; then
        echo "FAIL: fuzz_$t crashes again on $f:"; grep -E "ERROR|SUMMARY|^    #[0-4] " "$out/replay.log" | head -12
        status=1
    fi
done
for t in "${targets[@]}"; do
    [ -x "$out/fuzz_$t" ] || { echo "no target $t"; status=1; continue; }
    mkdir -p "$out/corpus-$t"
    if [ "$t" = ffmpeg_reader ]; then
        # A raw y4m seed (4:2:2, colour range tag) is generated, not
        # committed: three 16x16 frames of a ramp.
        { printf 'YUV4MPEG2 W16 H16 F25:1 Ip A1:1 C422 XYSCSS=422 XCOLORRANGE=LIMITED\n'
          for i in 0 1 2; do printf 'FRAME\n'
              python3 -c "import sys; sys.stdout.buffer.write(bytes((16 + 3 * x + 7 * $i) % 236 for x in range(512)))"
          done; } > "$out/corpus-$t/c422.y4m"
    fi
    echo "fuzzing $t for ${secs}s"
    # -close_fd_mask=3: the libraries' own chatter (libav warnings) is not
    # a finding; a crash report still reaches the log.
    if ! "$out/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 \
            -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$out/crash-$t-" \
            "$out/corpus-$t" "$src/tests/fuzz/corpus/$t" >"$out/$t.log" 2>&1; then
        echo "FAIL: fuzz_$t found a crash:"; tail -40 "$out/$t.log"; status=1
    else
        grep -E "stat::number_of_executed_units|Done" "$out/$t.log" | head -2
    fi
done
exit $status

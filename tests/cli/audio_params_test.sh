#!/usr/bin/env bash
# The audio a conversion keeps is decided once (ffmpeg_audio.c), so the
# plain run, --workers (whose parts are joined) and --segment + join
# --audio-from keep the same streams and say the same notes:
#  - an audio stream with no sample rate or channels (an MPEG-TS audio PID
#    that carries no packets) is dropped with a notice, the other streams
#    are kept (the join used to fail at the header: "sample rate not set");
#  - audio the muxer refuses at the header is dropped with the writer's
#    notice (TrueHD into .mp4: the join used to fail), which names the
#    subtitles dropped with it;
#  - join --audio-from of a missing file says why, on one line.
# usage: audio_params_test.sh OMCTI HAVE_FFMPEG
set -u
OMCTI=$1 HAVE_FFMPEG=$2
if [ "$HAVE_FFMPEG" != 1 ]; then echo "omcti built without FFmpeg: skipped"; exit 77; fi
for t in ffmpeg ffprobe od dd; do
    command -v $t >/dev/null || { echo "$t not installed: skipped"; exit 77; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-aparams-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
export LC_ALL=C   # (the reasons of system errors in English)

# ts_drop_pid IN OUT PID: IN without the 188-byte TS packets of PID, as a
# stream whose PID is announced but carries nothing (no python3 needed).
ts_drop_pid() {
    od -v -A n -t u1 -w188 "$1" |
        awk -v pid="$3" '{ p = ($2 % 32) * 256 + $3; k = p != pid
                           if (k && !run) start = NR - 1
                           if (!k && run) print start, NR - 1 - start
                           run = k }
                         END { if (run) print start, NR - start }' |
        while read -r skip count; do
            dd if="$1" bs=188 skip="$skip" count="$count" status=none
        done >"$2"
}

# layout FILE: its streams, one "type:codec" each, on one line
layout() {
    ffprobe -v error -show_entries stream=codec_type,codec_name -of csv=p=0 "$1" 2>/dev/null |
        tr '\n' ' '
}

# same_three NAME IN EXT [LAYOUT]: the plain run, --workers 2 and
# --segment 0/2, 1/2 + join --audio-from of IN into .EXT all succeed, give
# the same streams (LAYOUT, when given) and the same notes.
same_three() {
    local name=$1 in=$2 ext=$3 want=${4:-} o=$T/$1
    "$OMCTI" -y -i "$in" -o "$o-plain.$ext" 2>"$o-plain.err" ||
        { bad "$name: plain: $(cat "$o-plain.err")"; return; }
    "$OMCTI" -y -i "$in" -o "$o-workers.$ext" --workers 2 2>"$o-workers.err" ||
        bad "$name: --workers 2: $(cat "$o-workers.err")"
    "$OMCTI" -q -y -i "$in" -o "$o-p0.$ext" --segment 0/2 2>"$o-seg.err" &&
        "$OMCTI" -q -y -i "$in" -o "$o-p1.$ext" --segment 1/2 2>>"$o-seg.err" ||
        { bad "$name: --segment: $(cat "$o-seg.err")"; return; }
    "$OMCTI" join -y -o "$o-join.$ext" --audio-from "$in" "$o-p0.$ext" "$o-p1.$ext" \
        2>"$o-join.err" || bad "$name: join --audio-from: $(cat "$o-join.err")"
    local plain; plain=$(layout "$o-plain.$ext")
    if [ -n "$want" ]; then
        [ "$plain" = "$want" ] && ok || bad "$name: plain run keeps '$plain', wanted '$want'"
    fi
    for w in workers join; do
        [ -f "$o-$w.$ext" ] || continue   # (its failure is counted above)
        local got; got=$(layout "$o-$w.$ext")
        [ "$got" = "$plain" ] && ok || bad "$name: $w keeps '$got', the plain run '$plain'"
        # the notes on the output's streams (they were "notice:" before
        # 2026-11-28, a word of their own), with the output's name taken out
        local a b
        a=$(grep "^omcti: note: '[^']*': the .*\(audio stream\|container\)" "$o-plain.err" | sed "s|'[^']*-plain\.$ext'|OUT|")
        b=$(grep "^omcti: note: '[^']*': the .*\(audio stream\|container\)" "$o-$w.err" | sed "s|'[^']*-$w\.$ext'|OUT|")
        [ "$a" = "$b" ] && ok || bad "$name: $w notes '$b', the plain run's '$a'"
    done
}

ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=24:duration=1 -f lavfi -i sine=duration=1 \
    -f lavfi -i sine=frequency=880:duration=1 -map 0 -map 1 -map 2 -c:v mpeg2video -c:a mp2 \
    "$T/av.ts" || { bad "ffmpeg cannot write the test input"; exit 1; }
# (FFmpeg's TS muxer numbers the PIDs from 0x100: the first audio is 0x101)
ts_drop_pid "$T/av.ts" "$T/empty.ts" 257
if ffprobe -v error -show_entries stream=index,sample_rate -of csv=p=0 "$T/empty.ts" |
        grep -qx '1,0'; then
    ok
else
    bad "the test input's audio stream 1 still has a sample rate: $(ffprobe -v error \
        -show_entries stream=index,codec_name,sample_rate -of csv=p=0 "$T/empty.ts" | tr '\n' ' ')"
fi

# --- an audio stream without parameters: dropped alone, in every path ---
for ext in mkv mp4; do
    same_three "empty-pid-$ext" "$T/empty.ts" $ext
    v=$(layout "$T/empty-pid-$ext-plain.$ext")
    # the other audio stays (mp2; mp3 to ffprobe in mp4)
    [ "$(echo "$v" | grep -o ',video' | wc -l)" -eq 1 ] &&
        [ "$(echo "$v" | grep -o ',audio' | wc -l)" -eq 1 ] && ok ||
        bad "$ext: wanted the video and one audio stream, got '$v'"
    grep -q "^omcti: note: .*audio stream 1 (mp3) has no sample rate or channel count.*; audio stream 1 dropped" \
        "$T/empty-pid-$ext-plain.err" && ok ||
        bad "$ext: no notice for the empty audio stream: $(cat "$T/empty-pid-$ext-plain.err")"
done

# --- audio the muxer refuses at the header: the writer's retry, also in the join ---
printf '1\n00:00:00,100 --> 00:00:00,900\nhello\n' > "$T/sub.srt"
if ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=24:duration=1 -f lavfi -i sine=duration=1 \
        -c:v mpeg4 -c:a truehd -strict -2 "$T/truehd.mkv" 2>/dev/null; then
    same_three truehd-mp4 "$T/truehd.mkv" mp4
    # (the notes are compared above; that the plain run gives one at all:)
    grep -q "^omcti: note: .*the mp4 container refused the audio; audio dropped" \
        "$T/truehd-mp4-plain.err" && ok ||
        bad "truehd-mp4: no notice of the refused audio: $(cat "$T/truehd-mp4-plain.err")"
    # subtitles in the refused header are dropped with the audio, and the
    # notice names both (it said "the audio" and dropped them unsaid)
    if ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=24:duration=1 -f lavfi -i sine=duration=1 \
            -i "$T/sub.srt" -map 0 -map 1 -map 2 -c:v mpeg4 -c:a truehd -c:s mov_text -strict -2 \
            "$T/truehd-sub.mp4"; then
        same_three truehd-sub-mp4 "$T/truehd-sub.mp4" mp4 "h264,video "
        grep -q "^omcti: note: .*the mp4 container refused the audio and subtitles; audio and subtitles dropped" \
            "$T/truehd-sub-mp4-plain.err" && ok ||
            bad "truehd-sub-mp4: the notice does not name the subtitles: $(cat "$T/truehd-sub-mp4-plain.err")"
    else
        bad "ffmpeg cannot write TrueHD and mov_text into .mp4"
    fi
else
    echo "note: this FFmpeg cannot encode TrueHD: the header refusal check skipped"
fi
# subtitles alone: the PSP muxer refuses a header without one audio stream
# (the run then fails on the video's own header); the notice names them
if ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=24:duration=1 -i "$T/sub.srt" \
        -c:v mpeg4 -c:s mov_text "$T/sub.mov" 2>/dev/null; then
    "$OMCTI" -y -i "$T/sub.mov" -o "$T/sub.psp" 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && grep -q "^omcti: note: .*the psp container refused the subtitles; subtitles dropped" "$T/err" &&
        ok || bad "subtitles into .psp: exit $rc, the notice does not name the subtitles: $(cat "$T/err")"
else
    bad "ffmpeg cannot write mov_text into .mov"
fi

# --- join --audio-from a missing file: one line with the reason ---
"$OMCTI" join -y -o "$T/j.mkv" --audio-from "$T/nope.mkv" "$T/empty-pid-mkv-p0.mkv" \
    "$T/empty-pid-mkv-p1.mkv" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "join --audio-from a missing file: exit $rc, wanted 1"
[ "$(grep -c . "$T/err")" -eq 1 ] &&
    grep -q "^omcti: .*cannot read the audio of '.*nope.mkv': No such file or directory$" "$T/err" &&
    ok || bad "join --audio-from a missing file: '$(cat "$T/err")', wanted one line with the reason"

# --slowmo drops the audio with a note that names the file, as the other
# notes do (it read "note: audio is dropped in slow motion"), in the single
# run and with --workers alike
ffmpeg -v error -y -f lavfi -i "testsrc2=s=64x48:r=25:d=0.4" -f lavfi -i "sine=d=0.4" \
    -c:v ffv1 -c:a flac -shortest "$T/av.mkv"
for w in "" "--workers 2"; do
    "$OMCTI" -y -i "$T/av.mkv" -o "$T/slow.mkv" --slowmo 2 $w 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c "^omcti: note: '$T/av.mkv': its audio is dropped in slow motion (the output has none)$" "$T/err")" -eq 1 ] &&
        ok || bad "--slowmo ${w:-(single run)}: exit $rc, no note naming the file: $(cat "$T/err")"
done

echo "audio_params_test: $pass passed, $fail failed"
[ $fail -eq 0 ]

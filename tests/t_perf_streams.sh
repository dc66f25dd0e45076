#!/bin/sh
# t_perf_streams -- what is said of a perf.data's streams: a full-trace
# recording cut short (the quipper pipe-mode file's first 116,928 bytes:
# cpu0 ends in a gap, cpu3's payload lies past the end) is not "snapshot"
# (info --json, the :streams list, which says its gaps instead).  A stream
# with no bytes (cpu3 there; cpu0 of the 4.14 file with its first AUXTRACE's
# size and offsets zeroed) makes dump, flow and index say why in one line
# naming the file and the offset, not a range or 'not an Intel PT trace'.
# The minor ones: a per-thread stream is listed by its tid, not 'cpu -1';
# a --stream naming none lists the streams; extract says a lost end apart
# from gaps it joins; a byte-swapped perf.data is said to be one.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
unset TERM	# --script needs none
fail=0
bad() { echo "FAIL $*"; fail=1; }

q=$SHARED/traces/quipper-perf-intel-pt
head -c 116928 "$q/perf.data.piped.intel_pt-4.14" >"$tmp/p" || exit 1

# gaps are not snapshot mode
"$PTBROWSE" info --json "$tmp/p" >"$tmp/info.json" 2>"$tmp/err" || bad "info --json exit $?"
grep -q '"snapshot": true' "$tmp/info.json" && bad "info --json: a cut full trace is 'snapshot'"
grep -q '"snapshot_mode": 0' "$tmp/info.json" || bad "info --json: no snapshot_mode 0"
printf 'wait-index\n:streams\n:save-screen %s\nq\n' "$tmp/s.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x24 "$tmp/p" >"$tmp/out" 2>&1 ||
	bad "browser exit $? ($(cat "$tmp/out"))"
grep -q 'snapshot' "$tmp/s.txt" && bad ":streams says snapshot: $(grep cpu "$tmp/s.txt")"
grep -q '^ cpu0  .* 1 gap' "$tmp/s.txt" || bad ":streams does not count cpu0's gap: $(grep cpu "$tmp/s.txt")"

# an empty stream: why, in one line
f=$q/perf.data.intel_pt-4.14
cp "$f" "$tmp/z" && head -c 40 /dev/zero |
	dd of="$tmp/z" bs=1 seek=$((0x29c8)) conv=notrunc 2>/dev/null || exit 1
for c in dump flow index; do
	"$PTBROWSE" $c --stream cpu3 "$tmp/p" >/dev/null 2>"$tmp/err"
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^ptbrowse $c: $tmp/p: stream cpu3 holds no trace data: AUXTRACE payload at 0x1c890 runs past the end" "$tmp/err" ||
		bad "$c on an empty stream (cut off): $(cat "$tmp/err")"
	"$PTBROWSE" $c --stream cpu0 "$tmp/z" >/dev/null 2>"$tmp/err"
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^ptbrowse $c: $tmp/z: stream cpu0 holds no trace data: its AUXTRACE records (the last at 0x29c0) carry none" "$tmp/err" ||
		bad "$c on an empty stream (size 0): $(cat "$tmp/err")"
done

# per-thread (the 4.14 file with per_cpu_mmaps 0 and its AUXTRACE cpus -1)
cp "$f" "$tmp/thr" && printf '\000' | dd of="$tmp/thr" bs=1 seek=864 conv=notrunc 2>/dev/null &&
	printf '\377\377\377\377' | dd of="$tmp/thr" bs=1 seek=$((0x29e8)) conv=notrunc 2>/dev/null &&
	printf '\377\377\377\377' | dd of="$tmp/thr" bs=1 seek=$((0x77b0)) conv=notrunc 2>/dev/null ||
	exit 1
printf 'wait-index\n:streams\n:save-screen %s\nq\n' "$tmp/thr.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x24 "$tmp/thr" >"$tmp/out" 2>&1 ||
	bad "per-thread: browser exit $? ($(cat "$tmp/out"))"
grep -q '^ tid3174 *tid 3174 ' "$tmp/thr.txt" && ! grep -q 'cpu -1' "$tmp/thr.txt" ||
	bad ":streams of a per-thread file: $(grep tid "$tmp/thr.txt")"

# --stream naming none
for c in dump flow index extract calls; do
	o=; [ $c = extract ] && o="-o $tmp"
	# shellcheck disable=SC2086
	"$PTBROWSE" $c --stream 3 $o "$tmp/p" >/dev/null 2>"$tmp/err"
	grep -q "^ptbrowse $c: $tmp/p: no stream '3' (it has cpu0, cpu3)\$" "$tmp/err" ||
		bad "$c --stream 3: $(cat "$tmp/err")"
done
"$PTBROWSE" export --stream 3 "$tmp/p" 0 16 -o "$tmp/x.pt" >/dev/null 2>"$tmp/err"
grep -q "^ptbrowse export: $tmp/p: no stream '3' (it has cpu0, cpu3)\$" "$tmp/err" ||
	bad "export --stream 3: $(cat "$tmp/err")"
XDG_STATE_HOME=$tmp/st "$PTBROWSE" marks --stream 3 "$tmp/p" >/dev/null 2>"$tmp/err"
grep -q "^ptbrowse marks: $tmp/p: no stream '3' (it has cpu0, cpu3)\$" "$tmp/err" ||
	bad "marks --stream 3: $(cat "$tmp/err")"
"$PTBROWSE" --no-state --stream 3 "$tmp/p" >/dev/null 2>"$tmp/err"
grep -q "^ptbrowse: $tmp/p: no stream '3' (it has cpu0, cpu3)\$" "$tmp/err" ||
	bad "the browser's --stream 3: $(cat "$tmp/err")"
printf ':lane 3\n:save-screen %s/ln.txt\n:streams 3\n:save-screen %s/st.txt\n' "$tmp" "$tmp" >"$tmp/lk"
"$PTBROWSE" --no-state --script "$tmp/lk" "$tmp/p" >/dev/null 2>&1
tail -n 1 "$tmp/ln.txt" | grep -q "lane: no stream '3' (it has cpu0, cpu3)" ||
	bad ":lane 3: $(tail -n 1 "$tmp/ln.txt")"
tail -n 1 "$tmp/st.txt" | grep -q "streams: no stream '3' (it has cpu0, cpu3)" ||
	bad ":streams 3: $(tail -n 1 "$tmp/st.txt")"

# extract: an end lost is no gap joined; a gap inside is
mkdir "$tmp/ex" || exit 1
"$PTBROWSE" extract -o "$tmp/ex" "$tmp/p" >/dev/null 2>"$tmp/err" || bad "extract exit $?"
grep -q 'joins' "$tmp/err" && bad "extract joins an end gap: $(cat "$tmp/err")"
grep -q "^ptbrowse extract: $tmp/p: stream cpu0 ends where data was lost: the perf.data file is cut short" "$tmp/err" ||
	bad "extract does not say cpu0's end was lost: $(cat "$tmp/err")"
"$BUILD/tools/ptgen" -S 64K -s 2 -o "$tmp/g.pt" >/dev/null &&
	"$BUILD/tools/pt2perf" --hole 2000:100 "$tmp/g.pt" -o "$tmp/h.data" >/dev/null || exit 1
"$PTBROWSE" extract -o "$tmp/ex" "$tmp/h.data" >/dev/null 2>"$tmp/err" || bad "extract (hole) exit $?"
grep -q "stream cpu0 has 1 gap(s) (lost or overlapping data); .* joins them" "$tmp/err" &&
	! grep -q 'ends where' "$tmp/err" || bad "extract of a hole: $(cat "$tmp/err")"

# byte-swapped
{ printf '2ELIFREP'; tail -c +9 "$f"; } >"$tmp/be" || exit 1
"$PTBROWSE" info "$tmp/be" >/dev/null 2>"$tmp/err" && bad "info on a byte-swapped file: exit 0"
grep -q "^ptbrowse info: $tmp/be: offset 0: byte-swapped perf.data is not supported" "$tmp/err" ||
	bad "info on a byte-swapped file: $(cat "$tmp/err")"

[ $fail = 0 ] && echo "ok   t_perf_streams"
exit $fail

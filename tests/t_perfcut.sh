#!/bin/sh
# A perf.data file cut short says what it lost, in every command (issue 14
# group 3): the cut of the issue (pt2perf --chunk 37 --hole 200:50
# --switches 5 --lost-at 300, then the first 100,000 bytes) and a file
# cut inside a sideband record.  dump ends with a bracketed gap line naming
# the reason, index counts as many gaps as dump prints (text and --json),
# info lists the warning and the gap, the browser's message line says it
# and its last row is marked [gap].  A problem info warns of that loses no
# trace data is said by dump (stderr), index and the browser too.
# test_perfdata checks the rule on every cut of a generated file and on
# thousands of cuts of the shared perf.data files; here dump is checked on
# every cut of a small pt2perf file.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" --seed 3 --size 200KiB -o "$tmp/mid.pt" || exit 1
"$BUILD/tools/pt2perf" --chunk 37 --hole 200:50 --switches 5 --lost-at 300 \
	"$tmp/mid.pt" -o "$tmp/mid.perf" || exit 1
head -c 100000 "$tmp/mid.perf" >"$tmp/cut.perf"

# gaps F: what index --json counts, and dump's gap lines, must agree.
gaps_agree() {
	"$PTBROWSE" dump "$1" >"$tmp/dump" 2>"$tmp/err" || bad "$1: dump exit $?"
	d=$(grep -c '^\[[0-9a-f]*: gap in the trace' "$tmp/dump")
	"$PTBROWSE" index --json --no-cache "$1" >"$tmp/json" 2>"$tmp/err" ||
		bad "$1: index exit $?"
	i=$(sed -n 's/.*"gaps": \([0-9]*\).*/\1/p' "$tmp/json")
	"$PTBROWSE" index --no-cache "$1" >"$tmp/text" 2>&1
	t=$(sed -n 's/^  gaps: *\([0-9]*\)$/\1/p' "$tmp/text")
	[ "$d" = "$i" ] && [ "$i" = "$t" ] ||
		bad "$1: dump prints $d gaps, index --json counts '$i', index '$t'"
}

gaps_agree "$tmp/mid.perf"
gaps_agree "$tmp/cut.perf"
"$PTBROWSE" dump "$tmp/cut.perf" >"$tmp/dump" 2>"$tmp/err"
tail -n 1 "$tmp/dump" | grep -q '^\[[0-9a-f]*: gap in the trace: data lost at the end: AUXTRACE payload at 0x[0-9a-f]* runs past the end of the file (21 of 37 bytes there)' ||
	bad "dump of the cut file ends: $(tail -n 1 "$tmp/dump")"
[ -s "$tmp/err" ] && bad "dump stderr: $(cat "$tmp/err")"
# the complete file's dump, up to the cut, is the same
"$PTBROWSE" dump "$tmp/mid.perf" >"$tmp/full"
n=$(($(wc -l <"$tmp/dump") - 1))
head -n "$n" "$tmp/dump" >"$tmp/dump1"
head -n "$n" "$tmp/full" | cmp -s - "$tmp/dump1" ||
	bad "the cut file's packets differ from the complete file's"
# a range that reaches the end says it too
"$PTBROWSE" dump "$tmp/cut.perf:0x100" | tail -n 1 | grep -q 'data lost at the end' ||
	bad "dump TRACE:FROM of the cut file does not say the loss"

"$PTBROWSE" info "$tmp/cut.perf" >"$tmp/info"
grep -q '^warnings   1; first: offset 0x[0-9a-f]*: AUXTRACE payload of 37 bytes runs past the end; 21 kept' \
	"$tmp/info" || bad "info: $(grep warnings "$tmp/info")"
awk '$2 == "cpu0" && $7 == 2 { ok = 1 } END { exit !ok }' "$tmp/info" ||
	bad "info: cpu0 does not have 2 gaps: $(tail -n 1 "$tmp/info")"

printf ':messages\n:save-screen %s\nq\n' "$tmp/screen.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --no-index --script "$tmp/keys" --size 240x10 \
	"$tmp/cut.perf" >/dev/null 2>&1 || bad "browser exit $?"
grep -q 'W data lost at the end of cpu0: AUXTRACE payload at 0x[0-9a-f]* runs past the end of the file' \
	"$tmp/screen.txt" || bad "browser messages: $(cat "$tmp/screen.txt")"

# The last row says the data after it was lost: [gap] (trouble for e, E).
printf 'G\n:save-screen %s\nq\n' "$tmp/end.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x10 \
	"$tmp/cut.perf" >/dev/null 2>&1 || bad "browser G: exit $?"
grep -q '^>  0x0000a8f3  tnt.8 .*\[gap\]' "$tmp/end.txt" ||
	bad "the last row is not marked [gap]: $(cat "$tmp/end.txt")"

# The timeline (time axis, the default) marks the end: the last row's
# time is the axis's end, and it was dropped from the last column.  The
# sideband's switches long before the trace put all of its rows in the
# last column, with the cursor's '┃' (at 0x0: its PSB+'s time) over the
# '!': zoomed to the trace's rows, the end is the last column still.
printf 'wait-index\n:zoom 0x0 0xa8f3\n:save-screen %s\nq\n' "$tmp/tl.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x10 \
	"$tmp/cut.perf" >/dev/null 2>&1 || bad "browser timeline: exit $?"
tail -n 3 "$tmp/tl.txt" | head -n 1 | sed 's/ *$//' | grep -q '!$' ||
	bad "the timeline does not mark the end: $(tail -n 4 "$tmp/tl.txt")"

# Cut inside the record after the last AUXTRACE payload: no trace byte of
# it is lost, but the file is cut short, so the end is doubtful: said.
end=$(wc -c <"$tmp/mid.perf")
head -c $((end - 3)) "$tmp/mid.perf" >"$tmp/cut3.perf"
gaps_agree "$tmp/cut3.perf"
"$PTBROWSE" dump "$tmp/cut3.perf" | tail -n 1 |
	grep -q 'data lost at the end: a perf.data record at 0x[0-9a-f]* runs past the end of the file' ||
	bad "cut in the last record: $("$PTBROWSE" dump "$tmp/cut3.perf" | tail -n 1)"

# A problem that loses no trace data (a feature section outside the file):
# dump and index say what info says; the browser's message line too.
f=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14
off=$(od -An -t u8 -j 40 -N 8 "$f" | tr -d ' ')
sz=$(od -An -t u8 -j 48 -N 8 "$f" | tr -d ' ')
cp "$f" "$tmp/feat.perf" && chmod u+w "$tmp/feat.perf"
printf '\377\377\377\377\377\377\377\177' |
	dd of="$tmp/feat.perf" bs=1 seek=$((off + sz)) conv=notrunc 2>/dev/null
w='offset 0x293a8: feature 2 outside the file'
"$PTBROWSE" info "$tmp/feat.perf" | grep -q "^warnings   1; first: $w\$" ||
	bad "info: $("$PTBROWSE" info "$tmp/feat.perf" | grep warn)"
"$PTBROWSE" dump --stream cpu3 "$tmp/feat.perf" >"$tmp/dump" 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "ptbrowse dump: $tmp/feat.perf: 1 problem in the perf.data file (ptbrowse info); the first: $w" ] ||
	bad "dump of feat.perf: stderr '$(cat "$tmp/err")'"
"$PTBROWSE" index --no-cache "$tmp/feat.perf" | grep -q "^warnings: 1; first: $w\$" ||
	bad "index does not say the warning"
"$PTBROWSE" index --json --no-cache "$tmp/feat.perf" |
	grep -q "\"warnings\": 1, \"warning\": \"$w\"" || bad "index --json: no warning"
printf ':messages\n:save-screen %s\nq\n' "$tmp/screen.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --no-index --script "$tmp/keys" --size 200x10 \
	"$tmp/feat.perf" >/dev/null 2>&1 || bad "browser exit $?"
grep -q "W 1 problem in the perf.data file (ptbrowse info); the first: $w" \
	"$tmp/screen.txt" || bad "browser messages: $(cat "$tmp/screen.txt")"

# Every cut of a small pt2perf file (1,236 bytes): dump prints what the
# complete prefix (the file cut at the last record boundary at or before
# the cut) holds, or says the loss (a gap line at the end, or an error
# naming the file).  test_perfdata does the same in process on bigger files.
"$BUILD/tools/ptgen" --seed 5 --size 300 -o "$tmp/tiny.pt" || exit 1
"$BUILD/tools/pt2perf" --chunk 37 --hole 60:20 --switches 3 --lost-at 150 \
	"$tmp/tiny.pt" -o "$tmp/tiny.perf" || exit 1
n=$(wc -c <"$tmp/tiny.perf")
u() { od -An -t "u$1" -j "$2" -N "$1" "$tmp/tiny.perf" | tr -d ' '; }
bounds=16 off=16
while [ $((off + 8)) -le "$n" ]; do
	len=$(u 2 $((off + 6)))
	[ "$(u 4 "$off")" = 71 ] && len=$((len + $(u 8 $((off + 8)))))
	off=$((off + len))
	bounds="$bounds $off"
done
prev=0 silent=0
for c in $(seq 1 "$n"); do
	for b in $bounds; do [ "$b" -le "$c" ] && prev=$b; done
	head -c "$c" "$tmp/tiny.perf" >"$tmp/c.perf"
	"$PTBROWSE" dump "$tmp/c.perf" >"$tmp/c.out" 2>"$tmp/c.err" ||
		{ grep -q "c.perf" "$tmp/c.err" && continue; }
	tail -n 1 "$tmp/c.out" | grep -q ': gap in the trace: data lost at the end: ' &&
		continue
	if [ ! -e "$tmp/p$prev.out" ]; then
		head -c "$prev" "$tmp/tiny.perf" >"$tmp/p.perf"
		"$PTBROWSE" dump "$tmp/p.perf" >"$tmp/p$prev.out" 2>/dev/null
	fi
	cmp -s "$tmp/c.out" "$tmp/p$prev.out" && continue
	silent=$((silent + 1))
	[ $silent -le 3 ] && bad "cut at $c: dump differs from the complete prefix at $prev and says no loss"
done
[ $silent = 0 ] || bad "$silent cuts of $n silent"

# Two streams: the cut payload's own stream says how much of it is there,
# the other that the file is cut short after its data; :streams says it
# for the stream it switches to.
head -c 120000 "$SHARED/traces/quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14" >"$tmp/q.perf"
"$PTBROWSE" dump --stream cpu3 "$tmp/q.perf" | tail -n 1 |
	grep -q 'data lost at the end: AUXTRACE payload at 0x1c890 runs past the end of the file (3072 of 68192 bytes there)' ||
	bad "q.perf cpu3: $("$PTBROWSE" dump --stream cpu3 "$tmp/q.perf" | tail -n 1)"
"$PTBROWSE" dump --stream cpu0 "$tmp/q.perf" | tail -n 1 |
	grep -q 'data lost at the end: the perf.data file is cut short (at 0x1c890, in an AUXTRACE payload of another stream)' ||
	bad "q.perf cpu0: $("$PTBROWSE" dump --stream cpu0 "$tmp/q.perf" | tail -n 1)"
printf ':streams cpu3\n:messages\n:save-screen %s\nq\n' "$tmp/screen.txt" >"$tmp/keys"
"$PTBROWSE" --no-state --no-index --script "$tmp/keys" --size 250x10 \
	"$tmp/q.perf" >/dev/null 2>&1 || bad "browser q.perf: exit $?"
grep -q 'W data lost at the end of cpu3: AUXTRACE payload at 0x1c890' "$tmp/screen.txt" ||
	bad ":streams cpu3 does not say the loss: $(cat "$tmp/screen.txt")"

# The intact shared files: no gap, no warning.
for f in perf.data.intel_pt-4.14 perf.data.piped.intel_pt-4.14; do
	"$PTBROWSE" dump --stream cpu3 "$SHARED/traces/quipper-perf-intel-pt/$f" |
		grep -q 'gap in the trace' && bad "$f: a gap in an intact file"
done
[ $fail = 0 ] && echo "ok   t_perfcut"
exit $fail

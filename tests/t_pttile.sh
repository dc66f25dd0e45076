#!/bin/sh
# tools/pttile on a recorded trace (tests/progs/p_sample under ptrecord,
# one CPU's stream): the flow of each copy in the tiled trace is the
# original's, line for line; the TSC packets, and libipt's time estimates
# on every timing packet, only move forward, across the copies too; the
# copies are whole (N * the original from its first PSB); a trace cut in a
# packet tiles before it; bad input and -o over the input are refused with
# one line naming the file.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=1; }
tile=$BUILD/tools/pttile
for f in "$tile" "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" "$BUILD/progs/p_sample" \
	"$BUILD/tools/ptgen"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
tile=$(cd "$(dirname "$tile")" && pwd)/pttile
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
# ptgen's timing configuration, with record.sh's MTC every crystal clock
cfg=$("$BUILD/tools/ptgen" --print-config | sed 's/--mtc-freq [0-9]*/--mtc-freq 0/')
cd "$tmp/rec" || exit 1
raw=$(sed -n 's,^--raw ,--raw=,p' trace.options)
orig=trace.cpu0
len=$(wc -c <"$orig")

"$tile" --tiles 4 -o "$tmp/t.pt" "$orig" >"$tmp/out" 2>"$tmp/err" ||
	bad "pttile: $(cat "$tmp/err")"
read -r n tlen shift <"$tmp/out"
[ "$n" = 4 ] || bad "tiles: $n, want 4"
# p_sample's trace starts at a PSB: a copy is the whole file
[ "$tlen" = "$len" ] || bad "a copy is $tlen bytes, the trace $len"
[ "$(wc -c <"$tmp/t.pt")" = $((4 * len)) ] || bad "the tiled trace is not 4 copies"

# each copy's flow is the original's
"$PTBROWSE" flow $raw "$orig" >"$tmp/f0" 2>&1 || bad "flow of the original"
[ "$(grep -c '^[0-9a-f]\{16\}  ' "$tmp/f0")" -gt 10000 ] || bad "the original's flow is short"
for k in 0 1 2 3; do
	"$PTBROWSE" flow $raw "$tmp/t.pt:$((k * len))-$(((k + 1) * len))" >"$tmp/f" 2>&1
	cmp -s "$tmp/f" "$tmp/f0" || bad "copy $k: its flow differs from the original's"
done
# and the whole tiled trace's flow is the original's four times
"$PTBROWSE" flow $raw "$tmp/t.pt" >"$tmp/fall" 2>&1
cat "$tmp/f0" "$tmp/f0" "$tmp/f0" "$tmp/f0" | cmp -s - "$tmp/fall" ||
	bad "the tiled trace's flow is not the original's four times"

# TSC packets strictly forward, each copy's by the shift
"$PTBROWSE" dump "$tmp/t.pt" | awk '$2 == "tsc" { print $3 }' >"$tmp/tsc"
[ "$(wc -l <"$tmp/tsc")" = $((4 * $("$PTBROWSE" dump "$orig" | grep -c ' tsc '))) ] ||
	bad "TSC packets lost"
# hex to a number in awk (mawk has no strtonum; doubles hold 53 bits)
HEX='function hex(s,  i, v) { s = tolower(s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'
awk "$HEX"' { v = hex($1) } NR > 1 && v <= last { bad = 1 }
	{ last = v } END { exit bad }' "$tmp/tsc" ||
	bad "the TSC packets do not move strictly forward"
first=$(head -n 1 "$tmp/tsc")
second=$("$PTBROWSE" dump "$tmp/t.pt:$len" | awk '$2 == "tsc" { print $3; exit }')
[ $((0x$second - 0x$first)) = "$shift" ] || bad "copy 1 is not shifted by $shift"
# a whole number of 2^16 crystal clock periods (TSC = ART * 100 / 2)
[ $((shift % (65536 * 50))) = 0 ] || bad "shift $shift: not whole CTC wraps"
# libipt's time on every timing packet never goes back, and each copy's
# first TSC is later than everything before it
"$PTBROWSE" dump $cfg --time "$tmp/t.pt" | awk '$(NF-1) == "tsc" { print $1, $2, $NF }' >"$tmp/time"
[ -s "$tmp/time" ] || bad "dump --time gave no times"
awk -v len="$len" "$HEX"' { off = hex($1); t = hex($3) }
	NR > 1 && t < last { print "back at " $1; bad = 1 }
	NR > 1 && off % len == 16 && $2 == "tsc" && t <= last { print "copy at " $1; bad = 1 }
	{ last = t } END { exit bad }' "$tmp/time" >"$tmp/back" ||
	bad "times go back: $(head -n 3 "$tmp/back")"

# a trace cut in a packet: the copies end before it and decode cleanly.
# The cut is in the first TIP with an IP payload past the trace's middle:
# how many bytes each CPU's stream gets depends on ptrecord's scheduling
# (cpu0 has had 11 KiB to 28 KiB), so no fixed offset is always inside.
cut=$("$PTBROWSE" dump "$orig" | awk -v len="$len" "$HEX"' $2 == "tip" && $3 != "0:" &&
	hex($1) > len / 2 { print hex($1) + 2; exit }')
[ -n "$cut" ] || bad "no TIP with an IP in the second half of $orig ($len bytes)"
head -c "${cut:-0}" "$orig" >"$tmp/cut.pt"
"$tile" --tiles 3 -o "$tmp/tc.pt" "$tmp/cut.pt" >"$tmp/out" 2>"$tmp/err" ||
	bad "pttile of a cut trace: $(cat "$tmp/err")"
grep -q 'cut.pt: offset 0x[0-9a-f]*: a truncated packet' "$tmp/err" || bad "no word on the cut packet"
"$PTBROWSE" dump "$tmp/tc.pt" 2>&1 | grep -q 'error' && bad "the cut trace's copies do not decode"
[ "$(wc -c <"$tmp/tc.pt")" = $((3 * $(awk '{ print $2 }' "$tmp/out"))) ] ||
	bad "cut: not 3 copies"

# bad input, and never over the input
head -c 100 /dev/zero >"$tmp/zero.pt"
"$tile" -o "$tmp/z.pt" "$tmp/zero.pt" 2>"$tmp/err" && bad "a trace without PSB tiled"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'zero.pt: offset 0x0: no PSB' "$tmp/err" ||
	bad "no PSB: $(cat "$tmp/err")"
[ -e "$tmp/z.pt" ] && bad "a failed tiling left a file"
cp "$orig" "$tmp/in.pt"
"$tile" -o "$tmp/in.pt" "$tmp/in.pt" 2>"$tmp/err" && bad "pttile wrote over its input"
cmp -s "$tmp/in.pt" "$orig" || bad "the input was changed"
"$tile" --tiles 0 -o "$tmp/x.pt" "$orig" 2>/dev/null; [ $? = 2 ] || bad "--tiles 0 accepted"
"$tile" --size 1KiB -o "$tmp/x.pt" "$orig" 2>"$tmp/err" && bad "--size below a copy accepted"

[ $fail = 0 ] && echo "ok t_pttile"
exit $fail

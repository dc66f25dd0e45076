#!/bin/sh
# t_ui_codeidx -- the function view from the code index (src/ctidx.h), in
# --script mode, on tests/progs/p_sample's CPU 0 stream (rec_lib.sh)
# tiled by tools/pttile to 1 MiB (about 128 chunks of the 8 KiB grid),
# its code as --raw dumps:
#  - before the code index (wait-index only: a script starts it with
#    wait-code-index) the view decodes; its rows are `ptbrowse calls`
#    rows of the same range, in order (calls, instructions, function:
#    calls starts the time model at the range's first PSB, the view at
#    the index's carry, so cycles are left out; the depth's column moves
#    with the cycles' width), and its total of instructions is calls';
#  - after wait-code-index, :info says the index is made, and the same
#    ranges (one starting and ending inside chunks, one on the grid, one
#    inside a chunk, a region summary) give the same screens, byte for
#    byte, cycles and times included;
#  - the code index is saved with the index cache: a second run with the
#    same XDG_CACHE_HOME loads it (:info says so) and gives the same
#    screens; with other --raw dumps (a file's mtime changed) it is made
#    again;
#  - with --no-code-index none is made.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
for f in "$BUILD/tools/pttile" "$BUILD/tools/ptgen"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
"$BUILD/tools/pttile" --size 1MiB -o "$tmp/t.pt" "$tmp/rec/trace.cpu0" >/dev/null ||
	{ echo "FAIL pttile"; exit 1; }
"$BUILD/tools/ptgen" --print-config >"$tmp/t.pt.options" || { echo "FAIL ptgen"; exit 1; }
raw=$(sed -n "s#^--raw #--raw=$tmp/rec/#p" "$tmp/rec/trace.options" | tr '\n' ' ')

ranges="0x5123:0x8f321 0x10000:0x20000 0x30100:0x38000"
{
	echo "wait-index"
	# sorted by instructions (s), as calls --sort insns: the order by
	# cycles may differ where calls' are known later
	for r in $ranges; do
		echo ":funcs ${r%%:*} ${r##*:}"
		echo "s"
		echo ":save-screen $tmp/live.${r%%:*}.txt"
		echo "s s q"
	done
	echo ":region ra 0x6000 0x9a123"
	echo ":regions ra"
	echo ":save-screen $tmp/live.sum.txt"
	echo "q"
	# another range, so that the first is not the tree kept
	echo ":funcs 0 0x1000"
	echo "q"
	echo "wait-code-index"
	echo ":info"
	echo ":save-screen $tmp/info.txt"
	for r in $ranges; do
		echo ":funcs ${r%%:*} ${r##*:}"
		echo "s"
		echo ":save-screen $tmp/idx.${r%%:*}.txt"
		echo "s s q"
	done
	echo ":regions ra"
	echo ":save-screen $tmp/idx.sum.txt"
} >"$tmp/keys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script "$tmp/keys" \
	--size 200x200 $raw "$tmp/t.pt" >"$tmp/out" 2>&1 || bad "exit status $? ($(cat "$tmp/out"))"
grep -q 'code index: made, [0-9]* of [0-9]* chunks' "$tmp/info.txt" ||
	bad "info: $(grep -o 'code index[^;]*' "$tmp/info.txt" || tail -1 "$tmp/info.txt")"

# calls' tree rows as "calls insns function"; the view's likewise (its
# columns move with the width of the cycles: the depth is left out)
calls_rows() {
	awk '/^   calls  instructions/ { on = 1; next } on && NF == 0 { exit }
		on { print $1, $2, $NF }' "$1"
}
# (a row cut at the screen's edge, deep in the tree, is left out: its
# name cut, or not shown at all, where the tree's -/+ is not the field
# before the last; which rows are that deep depends on how the recording
# shared out the threads, and on the build: a sanitizer's nests deeper)
view_rows() {
	awk 'NR > 2 && $1 ~ /^[0-9]+$/ && length($0) < 200 && $(NF - 1) ~ /^[-+]$/ {
		print $1, $2, $NF }' "$1"
}
# a screen without its message line
body() { sed '$d' "$1"; }
in_order() {
	awk 'BEGIN { n = 0; k = 0 } NR == FNR { want[n++] = $0; next }
		k < n && $0 == want[k] { k++ }
		END { exit k == n ? 0 : 1 }' "$1" "$2"
}
for r in $ranges; do
	a=${r%%:*}
	for s in live idx; do
		[ -f "$tmp/$s.$a.txt" ] || { bad "$s $r: no screen"; continue; }
	done
	[ -f "$tmp/idx.$a.txt" ] || continue
	grep -q 'functions of' "$tmp/idx.$a.txt" || bad "$r: not the function view"
	body "$tmp/live.$a.txt" >"$tmp/l.body"
	body "$tmp/idx.$a.txt" >"$tmp/i.body"
	cmp -s "$tmp/l.body" "$tmp/i.body" ||
		{ bad "$r: the code index's view differs from the decode's"
		  diff "$tmp/l.body" "$tmp/i.body" | head -8; }
	"$PTBROWSE" calls --sort insns $raw "$tmp/t.pt:$a-${r##*:}" >"$tmp/c.$a" 2>"$tmp/err" ||
		{ bad "calls $r: $(cat "$tmp/err")"; continue; }
	view_rows "$tmp/idx.$a.txt" >"$tmp/v.rows"
	calls_rows "$tmp/c.$a" >"$tmp/c.rows"
	[ -s "$tmp/v.rows" ] || bad "$r: no rows in the view"
	in_order "$tmp/v.rows" "$tmp/c.rows" ||
		{ bad "$r: the view's rows are not calls' rows"; diff "$tmp/c.rows" "$tmp/v.rows" | head; }
	vn=$(sed -n '1s/.*): \([0-9]*\) insns.*/\1/p' "$tmp/idx.$a.txt")
	cn=$(sed -n '1s/.*): \([0-9]*\) instructions.*/\1/p' "$tmp/c.$a")
	[ -n "$vn" ] && [ "$vn" = "$cn" ] || bad "$r: $vn instructions, calls $cn"
done
grep -q 'functions of' "$tmp/idx.sum.txt" || bad "regions: no functions"
body "$tmp/live.sum.txt" >"$tmp/l.body"
body "$tmp/idx.sum.txt" >"$tmp/i.body"
cmp -s "$tmp/l.body" "$tmp/i.body" ||
	{ bad "regions: the summary differs with the code index"
	  diff "$tmp/l.body" "$tmp/i.body" | head -8; }
# the second run: the code index from the cache, the same screens
mkdir "$tmp/first" && mv "$tmp"/idx.*.txt "$tmp/info.txt" "$tmp/first/" || bad "mv"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script "$tmp/keys" \
	--size 200x200 $raw "$tmp/t.pt" >"$tmp/out" 2>&1 || bad "exit status $? ($(cat "$tmp/out"))"
grep -q 'code index: loaded from cache, [0-9]* of [0-9]* chunks' "$tmp/info.txt" ||
	bad "second run: $(grep -o 'code index[^;]*' "$tmp/info.txt" || tail -1 "$tmp/info.txt")"
grep -q 'code index: made, .*saved to cache' "$tmp/first/info.txt" ||
	bad "first run: $(grep -o 'code index[^;]*' "$tmp/first/info.txt")"
for f in "$tmp"/first/idx.*.txt; do
	body "$f" >"$tmp/l.body"
	body "$tmp/$(basename "$f")" >"$tmp/i.body"
	cmp -s "$tmp/l.body" "$tmp/i.body" ||
		{ bad "$(basename "$f"): differs when loaded from the cache"
		  diff "$tmp/l.body" "$tmp/i.body" | head -8; }
done
# a dump touched: the code could differ, so it is made again
touch -d '2001-01-01' "$(echo "$raw" | sed 's/^--raw=\([^: ]*\).*/\1/')"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script "$tmp/keys" \
	--size 200x200 $raw "$tmp/t.pt" >"$tmp/out" 2>&1 || bad "exit status $? ($(cat "$tmp/out"))"
grep -q 'code index: made, ' "$tmp/info.txt" ||
	bad "touched dump: $(grep -o 'code index[^;]*' "$tmp/info.txt")"
# --no-code-index: none is made
printf 'wait-index\nbench-code-index\n' >"$tmp/keys"
"$PTBROWSE" --no-state --no-code-index --script "$tmp/keys" $raw "$tmp/t.pt" 2>&1 |
	grep -q 'code index  *none' || bad "--no-code-index: a code index was made"
exit $fail

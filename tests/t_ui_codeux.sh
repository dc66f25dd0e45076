#!/bin/sh
# t_ui_codeux -- the code features as a performance engineer meets them
# (--script, no terminal), on tests/progs/p_sample recorded (rec_lib.sh):
#  - the status line's search rank after the code at the cursor: whole or
#    not at all, at widths from 96 to 124 (a negative room left for the
#    source line once cut "/sym add [1130/1130]" to "[1130");
#  - :funcs takes goto targets as :zoom does ('a 'b, 10% 50%, 0x100
#    +4KiB); a failed :funcs says no view opened (the next q would quit);
#  - the region summary box in the code view covers no code: it ends at
#    the screen's right edge, over the cycle pane, and every code row's
#    text left of it is the one shown without the box;
#  - the function view at 80 columns: the order it sorts by shown (the
#    sorted column's heading, the title's end, the message after s), the
#    bar's heading not the cycles column's again, the browser's keys that
#    do nothing there said, F1 its keys; a share below half a cell a thin
#    bar, not a whole cell;
#  - with $SHARED's traces: /sym without code says no code was given, on a
#    raw dump that it has no symbols (not that no function has the name).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
SHARED=${SHARED:-../shared}
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data

# run SIZE KEYS...: the browser on $perf with a script of KEYS (lines).
run() {
	_size=$1
	shift
	printf '%s\n' wait-index "$@" > "$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size "$_size" "$perf" \
		>/dev/null 2>"$tmp/err" || bad "$*: $(cat "$tmp/err")"
}
st() { tail -n 2 "$1" | head -n 1; }
msg() { tail -n 1 "$1"; }

# --- the search rank on the status line, whole or not at all: the next
# tip from a few places (the code there, its source line and the task
# compete for the room)
for p in 20 40 60 80; do
	w=96
	while [ $w -le 124 ]; do
		run ${w}x30 ":goto $p%" "/ t i p Enter" wait-search ":save-screen $tmp/rank"
		s=$(st "$tmp/rank" | sed 's/ *$//')
		printf '%s\n' "$s" | grep -Eq '  /tip \[[0-9]+/[0-9]+\]$' ||
			bad "from $p% at $w columns the rank is cut: $s"
		w=$((w + 4))
	done
done

# --- :funcs with goto targets
run 120x40 ":goto 0x800" "m a" ":goto 0x1400" "m b" ":funcs 'a 'b" \
	":save-screen $tmp/fab" q ":funcs 10% 50%" ":save-screen $tmp/fpct" q \
	":funcs 0x100 +4KiB" ":save-screen $tmp/frel" q ":funcs 'a 'z" \
	":save-screen $tmp/fbad"
head -n 1 "$tmp/fab" | grep -q "functions of 'a to 'b \[0x" ||
	bad ":funcs 'a 'b: $(head -n 1 "$tmp/fab"; msg "$tmp/fab")"
head -n 1 "$tmp/fpct" | grep -q "functions of 10% to 50% \[0x" ||
	bad ":funcs 10% 50%: $(head -n 1 "$tmp/fpct"; msg "$tmp/fpct")"
head -n 1 "$tmp/frel" | grep -q "functions of 0x100 to +4KiB \[0x100, 0x" ||
	bad ":funcs 0x100 +4KiB: $(head -n 1 "$tmp/frel"; msg "$tmp/frel")"
msg "$tmp/fbad" | grep -q "^funcs: .*'z.*(no function view opened)" ||
	bad ":funcs 'a 'z: $(msg "$tmp/fbad")"

# --- the region summary box in the code view hides no code
# (a region around a tip: code under the cursor)
run 120x40 ":goto 40%" "/ t i p Enter" wait-search ":region mm -0x100 +0x300" c \
	wait-index ":save-screen $tmp/box" q ":save-screen $tmp/nobox"
col=$(awk '{ i = index($0, "region mm  0x"); if (i) { print i - 1; exit } }' "$tmp/box")
if [ -z "$col" ]; then
	bad "code view: no region summary box: $(cat "$tmp/box")"
else
	# the box reaches the screen's right edge (over the cycle pane)
	awk 'NR > 2 && index($0, "region mm  0x") { print; exit }' "$tmp/box" |
		grep -q '│' && bad "code view: the box is not over the cycle pane"
	# it takes at most a third of the code pane (where long operands
	# end; the code pane is the screen less the 24 columns of the cycle
	# pane and its separator): the code's left two thirds stay in sight,
	# whatever the names in view make the rows' width
	[ "$col" -ge $(((120 - 25) * 2 / 3)) ] ||
		bad "code view: the box at column $col takes more than a third of the code pane"
fi

# --- the function view at 80 columns
run 80x24 ":funcs 0 0x4000" ":save-screen $tmp/f80" s ":save-screen $tmp/f80s" \
	/ ":save-screen $tmp/f80slash" F1 ":save-screen $tmp/f80help"
head -n 1 "$tmp/f80" | grep -q ' by cycles *$' || bad "80 columns: the title does not end 'by cycles': $(head -n 1 "$tmp/f80")"
sed -n 2p "$tmp/f80" | grep -q '↓cycles' || bad "80 columns: the heading does not mark cycles: $(sed -n 2p "$tmp/f80")"
sed -n 2p "$tmp/f80s" | grep -q '↓insns' || bad "s: the heading does not mark insns: $(sed -n 2p "$tmp/f80s")"
head -n 1 "$tmp/f80s" | grep -q ' by insns *$' || bad "s: the title does not end 'by insns'"
msg "$tmp/f80s" | grep -q 'sorted by insns' || bad "s: the message line says nothing: $(msg "$tmp/f80s")"
sed -n 2p "$tmp/f80" | grep -Eq 'cycles +cycles|insns +insns' && bad "a heading twice: $(sed -n 2p "$tmp/f80")"
msg "$tmp/f80slash" | grep -q "not a key of the function view" || bad "/ in the function view: $(msg "$tmp/f80slash")"
grep -q 'The function view (:funcs' "$tmp/f80help" && grep -q 'sort callees' "$tmp/f80help" ||
	bad "F1 in the function view does not show its keys: $(head -n 3 "$tmp/f80help")"

# --- a tiny share is a thin bar: the rows of under 1% of the
# instructions (their cycles far below the 5% of half a cell)
run 120x40 ":funcs 0 0x100000" O ":save-screen $tmp/fall"
tot=$(head -n 1 "$tmp/fall" | sed -n 's/.*): \([0-9]*\) insns.*/\1/p')
awk -v t="${tot:-0}" 'NR > 2 && $2 ~ /^[0-9]+$/ && $2 * 100 < t' "$tmp/fall" > "$tmp/tiny"
[ -s "$tmp/tiny" ] || bad "no row of a tiny function: $(head -n 12 "$tmp/fall")"
grep -q '█' "$tmp/tiny" && bad "a tiny share draws a whole cell: $(grep '█' "$tmp/tiny" | head -n 2)"
[ "$(grep -c '▏' "$tmp/tiny")" = "$(wc -l < "$tmp/tiny")" ] ||
	bad "a tiny share draws no thin bar: $(grep -v '▏' "$tmp/tiny" | head -n 2)"

# --- code searches without code or without symbols
k=$SHARED/traces/libxdc-kafl-flow
if [ -r "$k/foo_trace.pt" ] && [ -r "$k/unzip.options" ]; then
	printf 'wait-index\n/ s y m Space m a i n Enter\nwait-search\n:save-screen %s\n' \
		"$tmp/nocode" > "$tmp/keys"
	(cd "$k" && "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 foo_trace.pt) \
		>/dev/null 2>&1
	msg "$tmp/nocode" | grep -q 'sym main: no code given (--raw, --elf' ||
		bad "/sym without code: $(msg "$tmp/nocode")"
	sed "s,$tmp/nocode,$tmp/nosym," "$tmp/keys" > "$tmp/keys2"
	(cd "$k" && "$PTBROWSE" --no-state --script "$tmp/keys2" --size 120x30 \
		--options unzip.options unzip_trace.pt) >/dev/null 2>&1
	msg "$tmp/nosym" | grep -q 'sym main: no symbols in the code given' ||
		bad "/sym on a raw dump: $(msg "$tmp/nosym")"
else
	echo "note: no $k traces: the searches without code are not checked"
fi
[ $fail = 0 ] && echo "t_ui_codeux: ok"
exit $fail

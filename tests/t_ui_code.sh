#!/bin/sh
# t_ui_code -- the code view (c, :set view code) on a perf.data of
# tests/progs/p_sample (tools/record.sh): its instructions and events,
# packet rows left out, are `ptbrowse flow`'s for the same range (from the
# first PSB, and after a PSB jump); a cycle pane runs beside it; moving in
# the code view onto an instruction and switching back lands on the packet
# that decided it (flow --offset's); page down continues the rows; a
# program that cannot be found gives rows that say so, and a raw trace
# without --raw says no code was given; the golden screen
# tests/golden/ui_code/code.txt (its code and cycle panes; UPDATE=1
# rewrites it).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
golden=tests/golden/ui_code
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
W=200
PANE=$((W - 24))

# The code rows of screen FILE as `flow --offset` prints them, each with
# the offset of the packet row above it: instructions "OFF  IP  SYM  TEXT"
# (indentation and call/return marks taken off), events "OFF  [...]";
# packet rows left out.
rows() {
	grep "^.\{$PANE\}|" "$1" | cut -c1-$PANE | sed -nE \
		-e 's/^[> ]  0x([0-9a-f]+)  .*/P \1/p' \
		-e 's/^[> ]  ([0-9a-f]{16})  +([<>] )?(.*[^ ]) *$/I \1  \3/p' \
		-e 's/^[> ]  {16}  +(\[.*[^ ]) *$/I \1/p' |
	awk 'BEGIN { off = "0000000000000000" }
		$1 == "P" { off = substr("0000000000000000", 1, 16 - length($2)) $2; next }
		{ print off "  " substr($0, 3) }' | norm
}
# flow --offset's lines (or rows()'s) as compared: the offset, then an
# instruction's IP and disassembly (flow names no code segment without a
# symbol, the view does), an error with its offset in front; 100 columns;
# stably sorted by offset (the view puts a row under the packet that
# decided it; flow prints a PSB+'s status events before the instructions
# the PSB decided).
norm() {
	sed -E -e 's/^([0-9a-f]{16}  )([0-9a-f]{16})  (.*  )?([^ ].*)$/\1\2  \4/' \
		-e 's/^\[([0-9a-f]+): error: /\1  [error: /' |
	awk '/^[0-9a-f]+  \[error/ { o = $1; $1 = ""; sub(/^ /, ""); print substr("0000000000000000", 1, 16 - length(o)) o "  " $0; next } { print }' |
	cut -c1-118 | sort -s -k1,1
}
# The offset of the cursor row of screen FILE (a packet row), or of the
# packet row above it.
cursor_packet() {
	cut -c1-$PANE "$1" | awk '
		/^[> ]  0x[0-9a-f]+  / { last = substr($0, 4, index(substr($0, 4), " ") - 1) }
		/^>/ { print last; exit }'
}
# The number of the cursor's code row (1 the first) in screen FILE.
cursor_row() {
	cut -c1-$PANE "$1" | awk '
		/^[> ]  [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { n++ }
		/^[> ] .                   +\[/ { n++ }
		/^>/ { print n; exit }'
}

cat >"$tmp/keys" <<EOF
wait-index
c
:save-screen $tmp/first.txt
}
:save-screen $tmp/psb.txt
:set view packets
:goto 0
c
2 0 j
:save-screen $tmp/on_insn.txt
c
:save-screen $tmp/back.txt
:set view code
:goto 0
:save-screen $tmp/top.txt
Space
:save-screen $tmp/page.txt
EOF
"$PTBROWSE" --ascii --no-state --size ${W}x300 --script "$tmp/keys" "$perf" \
	>"$tmp/out" 2>&1 || bad "the script failed: $(cat "$tmp/out")"

# 1. the rows equal flow's, from the first PSB and from the next one.
# There the rows decided by packets after the PSB are compared with one
# flow from the start (the instructions the PSB+ itself decided are a
# decode from the PSB's, as `flow TRACE:PSB-` gives them; a decode from
# the start has them under the packet before).
"$PTBROWSE" flow --offset --stream cpu0 "$perf:0-0x1000" 2>/dev/null | norm >"$tmp/flow0"
rows "$tmp/first.txt" >"$tmp/r0"
n=$(wc -l <"$tmp/r0")
if [ "$n" -gt 200 ] && head -n "$n" "$tmp/flow0" | cmp -s - "$tmp/r0"; then
	echo "ok   the code view's first $n rows are flow's"
else
	bad "the code view's rows ($n) differ from flow's"; head -n "$n" "$tmp/flow0" | diff - "$tmp/r0" | head
fi
grep -q '^ *|  insns run cycles' "$tmp/first.txt" || grep -q '|  insns run cycles' "$tmp/first.txt" ||
	bad "no cycle pane beside the code"
psb=$(cursor_packet "$tmp/psb.txt")
# flow from the PSB, as the view decodes: a TIP.PGE soon after a PSB+
# with tracing off (record.sh's MTCs every 100 cycles made one) is
# [resumed] to a decode from the start, which saw where tracing stopped,
# and [enabled] from the PSB, which did not
"$PTBROWSE" flow --offset --stream cpu0 "$perf:$psb-0x2002" 2>/dev/null | norm |
	awk -v p="$(printf '%016x' "$psb")" '$1 "" > p ""' >"$tmp/flow1"
# from the PSB's row on
awk -v p="$psb" 'index($0, p "  psb") { on = 1 } on' "$tmp/psb.txt" >"$tmp/psb.rows"
rows "$tmp/psb.rows" | awk -v p="$(printf '%016x' "$psb")" '$1 "" > p ""' >"$tmp/r1"
n=$(wc -l <"$tmp/r1")
# (50 rows or more: the MTC rows while tracing is off take the rest)
psb2=$("$PTBROWSE" dump --stream cpu0 "$perf" 2>/dev/null |
	awk '$2 == "psb" && ++n == 2 { print $1; exit }')
if [ $((psb)) -eq $((0x$psb2)) ] && [ "$n" -gt 50 ] && head -n "$n" "$tmp/flow1" | cmp -s - "$tmp/r1"; then
	echo "ok   after a PSB jump (}) the rows are flow's from $psb"
else
	bad "after } (at '$psb'): $n rows differ from flow's"; head -n "$n" "$tmp/flow1" | diff - "$tmp/r1" | head
fi

# 2. an instruction at the cursor, then the packet view: its packet
k=$(cursor_row "$tmp/on_insn.txt")
insn=$(cut -c1-$PANE "$tmp/on_insn.txt" | grep '^>' | cut -c4-19)
want=$("$PTBROWSE" flow --offset --stream cpu0 "$perf:0-0x1000" 2>/dev/null | sed -n "${k}p" | cut -c1-16)
above=$(cursor_packet "$tmp/on_insn.txt")
back=$(cursor_packet "$tmp/back.txt")
if [ -n "$k" ] && echo "$insn" | grep -q '^[0-9a-f]\{16\}$' &&
   [ "$(printf '%d' "$above")" = "$(printf '%d' "0x$want")" ] && [ "$back" = "$above" ]; then
	echo "ok   the instruction at the cursor ($insn) switches back to the packet that decided it ($back)"
else
	bad "switching back: row $k ($insn), flow says 0x$want, above '$above', back on '$back'"
fi

# 3. a page down goes on where the page ended (the first rows of a page
# may have their packet on the page before: offsets not compared)
rows "$tmp/top.txt" | cut -c19- >"$tmp/rt"
rows "$tmp/page.txt" | cut -c19- >"$tmp/rp"
n=$(cat "$tmp/rt" "$tmp/rp" | wc -l)
cut -c19- "$tmp/flow0" | head -n "$n" >"$tmp/fp"
if [ -s "$tmp/rp" ] && cat "$tmp/rt" "$tmp/rp" | cmp -s - "$tmp/fp"; then
	echo "ok   a page down shows the next rows"
else
	bad "after a page down the rows are not flow's next ones"
	cat "$tmp/rt" "$tmp/rp" | diff "$tmp/fp" - | head -5
fi

# 4. the golden screen (the first screen of the code view)
mkdir -p "$tmp/g"
cat >"$tmp/gkeys" <<EOF
wait-index
c
1 2 j
:save-screen $tmp/g/code.txt
EOF
"$PTBROWSE" --ascii --no-state --size 120x30 --script "$tmp/gkeys" "$perf" >/dev/null 2>&1 ||
	bad "the golden script failed"
# the code and cycle panes' first 20 rows (the timeline and the status
# line are other tests')
grep '^.\{96\}|' "$tmp/g/code.txt" | head -n 20 >"$tmp/g/code.masked"
if [ "${UPDATE:-}" = 1 ]; then
	mkdir -p "$golden" && cp "$tmp/g/code.masked" "$golden/code.txt"
	echo "ok   golden screen written"
elif cmp -s "$tmp/g/code.masked" "$golden/code.txt"; then
	echo "ok   the code view's screen is the golden one"
else
	bad "the code view's screen differs from $golden/code.txt"
	diff "$golden/code.txt" "$tmp/g/code.masked" | head -20
fi

# 5. missing code: a program not found, and a raw trace without --raw
sed "s#$(pwd)/$BUILD/progs/p_sample#/gone/progs/p_sample#g" "$tmp/rec/trace.sideband" >"$tmp/gone.sb"
"$BUILD/tools/pt2perf" --sideband "$tmp/gone.sb" --cpu 0 "$tmp/rec/trace.cpu0" \
	--cpu 1 "$tmp/rec/trace.cpu1" -o "$tmp/gone.perf" >/dev/null 2>&1 || bad "pt2perf (gone)"
cat >"$tmp/mkeys" <<EOF
c
:save-screen $tmp/gone.txt
EOF
HOME=$tmp/emptyhome PERF_BUILDID_DIR= "$PTBROWSE" --ascii --no-state --size ${W}x40 \
	--script "$tmp/mkeys" "$tmp/gone.perf" >/dev/null 2>&1
grep -q '\[error: no memory mapped at this address: [0-9a-f]*: no code for /gone/progs/p_sample (build ID [0-9a-f]*): its ins' "$tmp/gone.txt" &&
	echo "ok   a program not found: its rows say so, with its build ID" ||
	{ bad "no explained row for the missing program"; grep error "$tmp/gone.txt" | head -3; }
cat >"$tmp/rkeys" <<EOF
c
:save-screen $tmp/raw.txt
EOF
"$PTBROWSE" --ascii --no-state --size ${W}x40 --script "$tmp/rkeys" "$tmp/rec/trace.cpu0" >/dev/null 2>&1
grep -q 'no code given (--raw, --elf or a perf.data.s files): every instruction is unknown' "$tmp/raw.txt" &&
	grep -q '\[error: no memory mapped at this address: [0-9a-f]*: no code given' "$tmp/raw.txt" &&
	echo "ok   a raw trace without --raw: the heading and the rows say no code was given" ||
	bad "a raw trace without code: not explained"
# and with the code given, the same trace decodes
cat >"$tmp/okeys" <<EOF
c
:save-screen $tmp/rawok.txt
EOF
(cd "$tmp/rec" && "$PTBROWSE" --ascii --no-state --size ${W}x300 --script "$tmp/okeys" \
	$(sed 's/^--raw /--raw=/' trace.options) trace.cpu0 >/dev/null 2>&1)
"$PTBROWSE" flow --offset --options "$tmp/rec/trace.options" "$tmp/rec/trace.cpu0:0-0x1000" 2>/dev/null | norm >"$tmp/flowraw"
rows "$tmp/rawok.txt" >"$tmp/rr"
n=$(wc -l <"$tmp/rr")
if [ "$n" -gt 100 ] && head -n "$n" "$tmp/flowraw" | sed -E 's/^([0-9a-f]{16})  /\1  /' >/dev/null &&
   head -n "$n" "$tmp/flowraw" | awk '{ print $1 }' | cmp -s - "$(awk '{ print $1 }' "$tmp/rr" >"$tmp/rr1"; echo "$tmp/rr1")"; then
	echo "ok   --raw FILE:ADDR: the raw trace's instructions are flow's ($n rows)"
else
	bad "--raw: the rows differ from flow --options'"
fi
exit $fail

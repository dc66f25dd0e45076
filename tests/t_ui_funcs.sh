#!/bin/sh
# t_ui_funcs -- the function view (:funcs, F) in --script mode:
#  - on p_loops recorded here by ptrecord (one thread: the same trace every
#    time on one machine) with its code as --raw dumps, the screens in
#    tests/golden/ui_funcs/ (the tree, a subtree opened, sorted by
#    instructions), and in ASCII not one byte outside ASCII; its times
#    are estimates ('~'), unknown ('?') in a PSB segment decoded alone
#    where the estimate holds at its TSC (no timing options);
#  - on p_sample recorded as `make sample-code` records it (four threads on
#    two CPUs, perf.data sideband; not the same twice, so no golden): the
#    rows shown are `ptbrowse calls` rows of the same range, in order
#    (depth, calls, instructions, cycles with callees and own, function;
#    the view's rows are calls' in order, its first level whole), for the whole stream and for a region of the marks (:funcs REGION and
#    calls TRACE:REGION); its title's total is calls' total; a range from
#    the middle has calls' instructions (its cycles may be known from the
#    first packet on, where calls starts the time model at the PSB);
#  - :funcs of the window in the code view covers the packets it shows;
#  - without code it says why, and Enter jumps to the browser; with code
#    the trace never runs, that none was decoded (not an empty range);
#  - region summaries: :regions A B shows A's top functions with B's
#    beside them (A's first by cycles is calls' for A; B's instructions
#    and calls of it are calls' for B, whose cycles may be known from its
#    first packet on), `marks --summary` lists calls' first function, and says why
#    there are none for a raw trace without code.
# UPDATE=1 rewrites the golden screens (look at them before committing).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
golden=tests/golden/ui_funcs
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
for f in "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" "$BUILD/progs/p_sample" \
	"$BUILD/progs/p_loops"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done

# --- golden screens on p_loops
"$BUILD/tools/ptrecord" --psb-period 128 -q -o "$tmp/l.pt" "$BUILD/progs/p_loops" \
	>/dev/null 2>&1 || { echo "FAIL ptrecord p_loops"; exit 1; }
# untimed: without the timing options ptrecord writes first
sed -i '/^--cpu /d' "$tmp/l.pt.options"
raw=$(sed -n 's,^--raw ,--raw=,p' "$tmp/l.pt.options")
cat > "$tmp/keys" <<EOF
wait-index
:funcs 0 0x1000
:save-screen $tmp/tree.txt
j O
:save-screen $tmp/open.txt
s
:save-screen $tmp/insns.txt
q
EOF
(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script keys \
	--size 110x30 $raw l.pt) > "$tmp/out" 2>&1 || bad "p_loops: exit status $? ($(cat "$tmp/out"))"
for s in tree open insns; do
	if [ "${UPDATE:-}" = 1 ]; then
		mkdir -p "$golden" && cp "$tmp/$s.txt" "$golden/$s.txt"
		continue
	fi
	[ -f "$tmp/$s.txt" ] || { bad "no screen $s"; continue; }
	# (the hint's advice names this host's CPU where it is an Intel one)
	hint='s/\(gives no TSC frequency: times are TSC ticks;\).*/\1 .../'
	sed "$hint" "$golden/$s.txt" > "$tmp/$s.golden"
	sed "$hint" "$tmp/$s.txt" > "$tmp/$s.masked"
	diff -u "$tmp/$s.golden" "$tmp/$s.masked" || bad "screen $s differs"
done
(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script keys \
	--size 110x30 $raw l.pt) > "$tmp/out" 2>&1 || bad "--ascii: exit status $?"
LC_ALL=C grep -q '[^ -~]' "$tmp/tree.txt" "$tmp/open.txt" && bad "--ascii screens hold non-ASCII bytes"

# the first PSB segment decoded alone (no index to carry the time model
# in): no timing options, so the estimate holds at its TSC and no time is
# known there, "?" rather than 0 ticks as exact
printf ':funcs 0 0x80\n:save-screen %s/held.txt\n' "$tmp" > "$tmp/keys"
(cd "$tmp" && "$PTBROWSE" --no-state --no-index --script keys --size 110x30 $raw l.pt) \
	>/dev/null 2>&1
sed -n 1p "$tmp/held.txt" | grep -q 'insns, cycles [^,]*, ?  by' ||
	bad "time held: $(sed -n 1p "$tmp/held.txt")"
grep -q '[0-9]tk' "$tmp/held.txt" && bad "time held: $(grep '[0-9]tk' "$tmp/held.txt" | head -1)"
# where it moves, it is an estimate
grep -Eq '^ +[0-9]+ .* [0-9]+tk ' "$tmp/tree.txt" && bad "an unmarked time: $(grep -E '^ +[0-9]+ .* [0-9]+tk ' "$tmp/tree.txt" | head -1)"
sed -n 1p "$tmp/tree.txt" | grep -q ', ~[0-9]*tk  by' || bad "root time: $(sed -n 1p "$tmp/tree.txt")"

# a TSC frequency estimated from P1 (--nom-freq alone, no CPUID.15H): the
# heading says "time≈" (and the title), as the cycle pane's; a time keeps
# one mark ("~4.745 us", not "~≈4.745 us", whose '≈' took 3 bytes of the
# column's 11 and moved the bars and names a column left)
printf 'wait-index\n:funcs 0 0x1000\n:save-screen %s/p1.txt\n' "$tmp" > "$tmp/keys"
(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script keys \
	--size 110x30 --nom-freq 12 $raw l.pt) >/dev/null 2>&1
sed -n 2p "$tmp/p1.txt" | grep -q ' self  *time≈ % cycles ' || bad "P1: heading: $(sed -n 2p "$tmp/p1.txt")"
sed -n 1p "$tmp/p1.txt" | grep -q ', time≈ ~[0-9.]* [mun]*s  by' || bad "P1: title: $(sed -n 1p "$tmp/p1.txt")"
grep -q '~≈' "$tmp/p1.txt" && bad "P1: two marks: $(grep -m 1 '~≈' "$tmp/p1.txt")"
LC_ALL=C.UTF-8 python3 - "$tmp/p1.txt" <<'PY' || bad "P1: the columns do not line up"
import sys
rows = [l for l in open(sys.argv[1], encoding='utf-8').read().split('\n')[2:]
        if l[:7].strip().isdigit()]
# calls insns cycles self time: 7 10 14 14 13 wide, right-aligned, a
# blank between, then the bar
bad = [l for l in rows if any(l[e] == ' ' or l[e + 1] != ' ' for e in (6, 17, 32, 47, 61))]
if not rows or bad:
    print('\n'.join(bad[:3]) or 'no rows')
    sys.exit(1)
PY

# :funcs of the window in the code view: the packets the screen shows,
# most of its rows instructions (not as many packets as it has rows)
printf 'wait-index\n:set view code\n:save-screen %s/cv.txt\n:funcs\n:save-screen %s/cvf.txt\n' \
	"$tmp" "$tmp" > "$tmp/keys"
(cd "$tmp" && "$PTBROWSE" --no-state --script keys --size 110x30 $raw l.pt) >/dev/null 2>&1
last=$(sed -n 's/^.  \(0x[0-9a-f]*\)  .*/\1/p' "$tmp/cv.txt" | tail -1)
end=$(sed -n '1s/.*functions of the window \[0x[0-9a-f]*, \(0x[0-9a-f]*\)).*/\1/p' "$tmp/cvf.txt")
if [ -z "$last" ] || [ -z "$end" ] || [ $((end)) -le $((last)) ] ||
   [ $((end)) -gt $((last + 16)) ]; then
	bad "code view's window: last packet shown ${last:-none}, :funcs to ${end:-none}"
fi

# without code: the reason, on the message line
printf 'wait-index\n:funcs 0 0x1000\n:save-screen %s/nocode.txt\n' "$tmp" > "$tmp/keys"
(cd "$tmp" && "$PTBROWSE" --no-state --script keys --size 110x30 l.pt) >/dev/null 2>&1
grep -q 'funcs: no code given' "$tmp/nocode.txt" || bad "no code: $(tail -1 "$tmp/nocode.txt")"

# code given where the trace never goes: every instruction lost to errors,
# not an empty range of 0 cycles
printf 'wait-index\n:funcs 0 0x1000\n:save-screen %s/lost.txt\n' "$tmp" > "$tmp/keys"
lib=$(sed -n 's,^--raw \(.*libc[^:]*\):.*,\1,p' "$tmp/l.pt.options")
(cd "$tmp" && "$PTBROWSE" --no-state --script keys --size 110x30 --raw="$lib:0x10000" l.pt) \
	>/dev/null 2>&1
sed -n 1p "$tmp/lost.txt" | grep -q 'no code decoded ([0-9]* breaks), cycles ?,' ||
	bad "code lost: $(sed -n 1p "$tmp/lost.txt")"
grep -q 'no instructions decoded: the flow broke' "$tmp/lost.txt" ||
	bad "code lost: $(sed -n 3p "$tmp/lost.txt")"

# --- the sample against calls
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data

# calls' tree rows as "depth calls insns cycles self function"
calls_rows() {
	awk '/^   calls  instructions/ { on = 1; next } on && NF == 0 { exit }
		on { print index($0, $NF) - 72, $1, $2, $3, $4, $NF }' "$1"
}
# the view's rows likewise (after the two title lines; --ascii, so the
# name's column is its depth)
view_rows() {
	awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print index($0, " " $NF) + 1 - 77, $1, $2, $3, $4, $NF }' "$1"
}
# whether the lines of $1 are lines of $2 in the same order (the view
# shows the tree with closed nodes' callees left out)
in_order() {
	awk 'BEGIN { n = 0; k = 0 } NR == FNR { want[n++] = $0; next }
		k < n && $0 == want[k] { k++ }
		END { exit k == n ? 0 : 1 }' "$1" "$2"
}
# the view's total cycles and calls' ("cycles X" in their first lines)
view_total() { sed -n '1s/.*insns, cycles \([^,]*\),.*/\1/p' "$1"; }
calls_total() { sed -n '1s/.*instructions, cycles \([^,]*\),.*/\1/p' "$1"; }

size=$("$PTBROWSE" calls --no-tree --top 1 --stream cpu0 "$perf" 2>/dev/null |
	sed -n '1s/.*0x0, \(0x[0-9a-f]*\)).*/\1/p')
[ -n "$size" ] || bad "no size of cpu0"
half=$(printf '0x%x' $((size / 2)))
third=$(printf '0x%x' $((size / 3)))
cat > "$tmp/keys" <<EOF
wait-index
:funcs 0 $size
:save-screen $tmp/whole.txt
:region rg 0 $half
:funcs rg
:save-screen $tmp/region.txt
:funcs $third $size
:save-screen $tmp/mid.txt
Enter
:save-screen $tmp/jumped.txt
:region rb $half $size
:regions rg rb
:save-screen $tmp/regions.txt
EOF
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --ascii --script "$tmp/keys" --size 200x300 "$perf" \
	> "$tmp/out" 2>&1 || bad "sample: exit status $? ($(cat "$tmp/out"))"
"$PTBROWSE" calls --stream cpu0 "$perf:0-$size" > "$tmp/c.whole" 2>/dev/null ||
	bad "calls whole"
"$PTBROWSE" calls --stream cpu0 "$perf:rg" > "$tmp/c.region" 2>"$tmp/err" ||
	bad "calls region: $(cat "$tmp/err")"
"$PTBROWSE" calls --stream cpu0 "$perf:$third-$size" > "$tmp/c.mid" 2>/dev/null ||
	bad "calls mid"
for s in whole region; do
	view_rows "$tmp/$s.txt" > "$tmp/v.$s.rows"
	calls_rows "$tmp/c.$s" > "$tmp/c.$s.rows"
	[ -s "$tmp/v.$s.rows" ] || bad "$s: no rows in the view"
	in_order "$tmp/v.$s.rows" "$tmp/c.$s.rows" || {
		bad "$s: the view's rows are not calls' rows"
		diff -u "$tmp/c.$s.rows" "$tmp/v.$s.rows"; }
	# the first level whole
	[ "$(grep -c '^0 ' "$tmp/v.$s.rows")" = "$(grep -c '^0 ' "$tmp/c.$s.rows")" ] ||
		bad "$s: not every top-level row is shown"
	[ "$(view_total "$tmp/$s.txt")" = "$(calls_total "$tmp/c.$s")" ] ||
		bad "$s: cycles $(view_total "$tmp/$s.txt"), calls says $(calls_total "$tmp/c.$s")"
done
vn=$(sed -n '1s/.*): \([0-9]*\) insns.*/\1/p' "$tmp/mid.txt")
cn=$(sed -n '1s/.*): \([0-9]*\) instructions.*/\1/p' "$tmp/c.mid")
[ -n "$vn" ] && [ "$vn" = "$cn" ] || bad "mid: $vn instructions, calls $cn"
grep -q 'functions of' "$tmp/jumped.txt" && bad "Enter did not leave the view"
head -1 "$tmp/jumped.txt" | grep -q 'perf.data' || bad "Enter: not the browser: $(head -1 "$tmp/jumped.txt")"

# region summaries: the marks list's functions beside the packets (from
# column 51), A's by cycles first row is calls' of the region; B beside it
# (calls' top functions: "cycles insns calls name")
top1() { awk '/^top functions by cycles:/ { getline; getline; print $1, $2, $3, $NF; exit }' "$1"; }
grep -q 'functions: A rg, B rb' "$tmp/regions.txt" || bad "regions: no functions A rg, B rb"
a1=$(cut -c52- "$tmp/regions.txt" | awk '/A cycles.*by cycles/ { getline; print $1, $3, $5, $NF; exit }')
[ -n "$a1" ] && [ "$a1" = "$(top1 "$tmp/c.region")" ] ||
	bad "regions: A's first function '$a1', calls says '$(top1 "$tmp/c.region")'"
# B's instructions and calls of A's first function are calls' in rb (its
# cycles may be known from its first packet on, as in the function view)
"$PTBROWSE" calls --no-tree --top 0 --stream cpu0 "$perf:rb" > "$tmp/c.rb" 2>/dev/null || bad "calls rb"
fa=${a1##* }
b1=$(awk -v f="$fa" '/^top functions by cycles:/ { on = 1; getline; next } on && NF == 0 { exit }
	on && $NF == f { print $2, $3, $NF }' "$tmp/c.rb")
[ -n "$b1" ] || b1="- - $fa"
v1=$(cut -c52- "$tmp/regions.txt" | awk '/A cycles.*by cycles/ { getline; print $4, $6, $NF; exit }')
[ "$v1" = "$b1" ] || bad "regions: B's $fa '$v1', calls says '$b1'"
# the command line's summary: the same first function
"$PTBROWSE" marks --summary --stream cpu0 "$perf" > "$tmp/marks.txt" 2>"$tmp/err" || bad "marks --summary: $(cat "$tmp/err")"
m1=$(awk '/^region +rg / { on = 1 } on && /^  functions .*by cycles/ { getline; print $2, $3, $4, $NF; exit }' "$tmp/marks.txt")
[ -n "$m1" ] && [ "$m1" = "$(top1 "$tmp/c.region")" ] ||
	bad "marks --summary: first function '$m1', calls says '$(top1 "$tmp/c.region")'"
# a raw trace without code: the summary says why
printf 'wait-index\n:region lr 0 0x400\n' > "$tmp/keys"
(cd "$tmp" && "$PTBROWSE" --script keys l.pt) >/dev/null 2>&1
"$PTBROWSE" marks --summary "$tmp/l.pt" > "$tmp/marks.raw" 2>&1
grep -q '^  functions none: no code' "$tmp/marks.raw" || bad "raw marks --summary: $(grep functions "$tmp/marks.raw")"
exit $fail

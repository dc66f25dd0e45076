#!/bin/sh
# `ptbrowse calls` on a perf.data of tests/progs/p_sample (four threads on
# two CPUs, its shared library, switch sideband; tools/record.sh): per CPU,
# the instructions are the recorder's own log's; per function, `flow`'s
# (counted from its symbol column); the calls into mul and add are the
# calls `flow` shows; the flat profile's cycles add up to the range's;
# --tid splits the instructions between the threads without loss; --comm
# keeps a thread's functions only; a sub-range has `flow`'s instructions
# for that range, and a region of the marks is its range; bad options and
# a raw trace with --pid are refused with one line; dump --tid splits the
# packets between the threads.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data

# The number in the first line's "N instructions".
total() { sed -n '1s/.*): \([0-9]*\) instructions.*/\1/p' "$1"; }

# The rows of table TITLE ("instructions", ...) of calls output FILE.
table() {
	awk -v t="top functions by $2:" '$0 == t { on = 1; getline; next }
		on && NF == 0 { exit } on { print }' "$1"
}

for c in 0 1; do
	"$PTBROWSE" calls --top 0 --stream cpu$c "$perf" >"$tmp/calls" 2>"$tmp/err" ||
		{ bad "calls cpu$c: $(cat "$tmp/err")"; continue; }
	n=$(total "$tmp/calls")
	log=$(wc -l <"$tmp/rec/trace.cpu$c.flow")
	[ "$n" = "$log" ] || bad "cpu$c: $n instructions, the recorder's log has $log"

	# per function: calls' table against flow's symbol column, by name
	table "$tmp/calls" instructions | awk '$NF !~ /^\[/ { n[$NF] += $2 }
		END { for (f in n) print f, n[f] }' | sort >"$tmp/mine"
	"$PTBROWSE" flow --stream cpu$c "$perf" 2>/dev/null >"$tmp/flow"
	awk '$1 !~ /^\[/ && $2 ~ /\+0x/ { sub(/\+0x.*/, "", $2); n[$2]++ }
		END { for (f in n) print f, n[f] }' "$tmp/flow" | sort >"$tmp/theirs"
	cmp -s "$tmp/mine" "$tmp/theirs" ||
		{ bad "cpu$c: instructions per function differ from flow's:"; diff "$tmp/mine" "$tmp/theirs" | head; }

	# calls into mul and add (through pointers): their first instruction
	# right after a call
	for fn in mul add; do
		want=$(awk -v f="$fn+0x0" '$1 ~ /^\[/ { next }
			$2 == f && prev == "call" { n++ } { prev = $3 }
			END { print n + 0 }' "$tmp/flow")
		got=$(table "$tmp/calls" calls | awk -v f="$fn" '$NF == f { print $3 }')
		[ "$want" = 0 ] && want=
		[ "$got" = "$want" ] ||
			bad "cpu$c: $fn called '$got' times, flow has '$want' calls to it"
	done

	# calls through PLT stubs, the first of each lazily bound (the stub
	# jumps to the PLT's start, then to the dynamic linker's resolver,
	# which jumps to the function): each entry of the function is a call
	for fn in pthread_create demo_sort add_total is_sorted; do
		want=$(grep -c " $fn+0x0 " "$tmp/flow")
		got=$(table "$tmp/calls" calls | awk -v f="$fn" '$NF == f { print $3 }')
		[ "${got:-0}" = "$want" ] ||
			bad "cpu$c: $fn called '$got' times, flow enters it $want times"
	done

	# the flat profile's cycles (lower bounds) add up to the range's
	sum=$(table "$tmp/calls" cycles | awk '{ c = $1; gsub(/[~>=]|\+\?/, "", c);
		sub(/-.*/, "", c); s += c } END { print s + 0 }')
	head=$(sed -n '1s/.*cycles \([^,]*\),.*/\1/p' "$tmp/calls" | sed 's/[~>=]//g; s/+?//; s/-.*//')
	[ "$sum" = "$head" ] || bad "cpu$c: the functions' cycles add up to $sum, the range has $head"

	# the range's time is its span (flow's, first to last deciding
	# packet), not its top-level calls' sum: threads overlap
	us=$(sed -n '1s/.*, time \([0-9.]*\)us$/\1/p' "$tmp/calls")
	ms=$("$PTBROWSE" flow --summary --stream cpu$c "$perf" 2>/dev/null |
		sed -n 's/^time: .*, \([0-9.]*\) ms .*/\1/p')
	awk -v us="$us" -v ms="$ms" 'BEGIN { exit !(us != "" && ms != "" &&
		us <= ms * 1000 + 0.01 && us >= ms * 900) }' ||
		bad "cpu$c: the range's time is ${us}us, flow's span ${ms}ms"

	# every instruction ran as one of the four threads
	s=0
	for t in $(awk '$1 == "fork" { print $3 } $1 == "comm" && $2 == $3 { print $3 }' \
			"$tmp/rec/trace.sideband" | sort -u); do
		"$PTBROWSE" calls --no-tree --stream cpu$c --tid "$t" "$perf" >"$tmp/t" 2>/dev/null ||
			bad "calls --tid $t"
		s=$((s + $(total "$tmp/t")))
	done
	[ "$s" = "$n" ] || bad "cpu$c: the threads ran $s instructions, the CPU $n"
done

# dump --tid: the threads' packets add up to the stream's
for c in 0 1; do
	all=$("$PTBROWSE" dump --stream cpu$c "$perf" | wc -l)
	s=0
	for t in $(awk '$1 == "fork" { print $3 } $1 == "comm" && $2 == $3 { print $3 }' \
			"$tmp/rec/trace.sideband" | sort -u); do
		s=$((s + $("$PTBROWSE" dump --stream cpu$c --tid "$t" "$perf" | wc -l)))
	done
	[ "$s" = "$all" ] || bad "dump cpu$c: the threads have $s packets, the CPU $all"
done
"$PTBROWSE" dump --pid 1 "$tmp/rec/trace.cpu0" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'no sideband' "$tmp/err" || bad "dump raw --pid: exit $rc: $(cat "$tmp/err")"

# a thread's functions only (on whichever CPU it ran)
for c in 0 1; do
	"$PTBROWSE" calls --top 0 --comm hasher --stream cpu$c "$perf" 2>/dev/null ||
		bad "calls --comm hasher"
done >"$tmp/h"
grep -q ' hasher$' "$tmp/h" || bad "--comm hasher: no hasher"
grep -Eq ' (matmul|sorter|word_hash)$' "$tmp/h" && bad "--comm hasher: another thread's function"
"$PTBROWSE" calls --comm nosuch --stream cpu0 "$perf" >"$tmp/none" 2>"$tmp/err" ||
	bad "--comm nosuch failed"
[ "$(total "$tmp/none")" = 0 ] || bad "--comm nosuch: instructions"
grep -q 'nothing in stream' "$tmp/err" || bad "--comm nosuch: not said"

# a sub-range of cpu0's raw stream (its code from --raw dumps): flow's
# instructions decided there (calls decodes from the PSB at or before its
# start, flow's range from the PSB after: flow --offset of the range from
# the PSB before is counted).  The range is taken from the recording, whose
# streams' sizes follow ptrecord's scheduling (cpu0 has had 11 to 28 KiB;
# a fixed quarter of it could hold a PSB only at its end, 307
# instructions): from halfway between the first two PSBs (not a packet
# boundary one can count on) to the end of the second PSB's segment, so it
# starts between PSBs and holds a whole segment, thousands of instructions
# (half a one was under 1000 once record.sh put an MTC every 100 cycles).
raw=$tmp/rec/trace.cpu0
size=$(wc -c <"$raw")
range=$("$PTBROWSE" dump "$raw" | awk -v size="$size" '
	function hex(s,  i, v) { s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	$2 == "psb" { p[n++] = hex($1) }
	END { if (n < 2) exit; e = n > 2 ? p[2] : size
		printf "0x%x 0x%x 0x%x\n", p[0], p[0] + int((p[1] - p[0]) / 2), e }')
[ -n "$range" ] || { bad "range: cpu0's stream ($size bytes) has fewer than two PSBs"; range="0x0 0x0 0x0"; }
set -- $range
psb=$1 from=$2 to=$3
set -- $(sed -n "s|^--raw \(.*\)|--raw $tmp/rec/\1|p" "$tmp/rec/trace.options")
"$PTBROWSE" calls "$@" "$raw:$from-$to" >"$tmp/r" 2>"$tmp/err" || bad "calls range: $(cat "$tmp/err")"
want=$("$PTBROWSE" flow --offset --insn-only "$@" "$raw:$psb-$to" 2>/dev/null |
	awk -v a="$(printf '%016x' "$from")" -v b="$(printf '%016x' "$to")" '
	$2 !~ /^\[/ && $1 "" >= a "" && $1 "" < b "" { n++ } END { print n + 0 }')
[ "$want" -gt 1000 ] || bad "range: flow has $want instructions"
[ "$(total "$tmp/r")" = "$want" ] || bad "range: $(total "$tmp/r") instructions, flow has $want"
grep -q "^raw \[$from, $to)" "$tmp/r" || bad "range: header"
grep -q ' \[p_sample\.[0-9a-f]*\.bin\]$' "$tmp/r" || bad "range: no code segment named"

# a region of the trace's marks: the same as its range
mfile=$("$PTBROWSE" marks --json "$raw" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
if [ -n "$mfile" ]; then
	mkdir -p "$(dirname "$mfile")"
	printf '# ptbrowse marks v1\nregion mid %s %s\n' "$from" "$to" >"$mfile"
	"$PTBROWSE" calls "$@" "$raw:mid" >"$tmp/reg" 2>"$tmp/err" || bad "calls raw:mid: $(cat "$tmp/err")"
	cmp -s "$tmp/reg" "$tmp/r" || bad "calls raw:mid differs from raw:$from-$to"
	"$PTBROWSE" calls "$@" "$raw:nosuch" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc = 1 ] && grep -q "no region, mark or bookmark 'nosuch'" "$tmp/err" ||
		bad "calls raw:nosuch: exit $rc: $(cat "$tmp/err")"
else
	bad "marks --json names no file"
fi

# the tree: main at the top, sorted callees, --depth
"$PTBROWSE" calls --depth 1 --stream cpu0 "$perf" >"$tmp/d1" 2>/dev/null || bad "--depth 1"
grep -Eq '^ +0 +[0-9]+ .* main$' "$tmp/d1" || bad "--depth 1: no top-level main"
awk '/^ +calls +instructions/ { on = 1; next } on && NF == 0 { exit } on' "$tmp/d1" >"$tmp/rows"
[ -s "$tmp/rows" ] || bad "--depth 1: no tree"
grep -Eq '(us|tk)    [^ ]' "$tmp/rows" && bad "--depth 1: nested lines"
"$PTBROWSE" calls --stream cpu0 "$perf" >"$tmp/all" 2>/dev/null
grep -Eq '(us|tk)    [^ ]' "$tmp/all" || bad "no nested lines without --depth"

# errors: one line, exit 2 for usage, 1 for trouble
"$PTBROWSE" calls --pid x "$perf" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] || bad "--pid x: exit $rc"
grep -q 'ptbrowse calls: --pid: bad argument' "$tmp/err" || bad "--pid x: $(cat "$tmp/err")"
"$PTBROWSE" calls --sort size "$perf" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] || bad "--sort size: exit $rc"
"$PTBROWSE" calls --pid 1 "$tmp/rec/trace.cpu0" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || bad "raw --pid: exit $rc"
grep -q 'no sideband' "$tmp/err" || bad "raw --pid: $(cat "$tmp/err")"
"$PTBROWSE" calls --stream cpu0 "$perf:0x100000" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || bad "outside: exit $rc"
grep -q 'outside the trace' "$tmp/err" || bad "outside: $(cat "$tmp/err")"
"$PTBROWSE" calls --help | grep -q -- '--comm NAME' || bad "--help: no --comm"

# A thread that runs on the other CPU and comes back: its stack here is
# forgotten, not popped by its returns from what it called over there
# (a 1000-instruction quantum moves them often).  Leaf functions
# (they call nothing) never have callees in the tree.
q=$tmp/quantum
mkdir "$q" &&
"$BUILD/tools/ptrecord" -q --cpus 2 --mtc-freq 0 --quantum 1000 -o "$q/trace" \
	"$BUILD/progs/p_sample" 1 >/dev/null 2>&1 &&
"$BUILD/tools/pt2perf" --mtc-freq 0 --sideband "$q/trace.sideband" \
	--cpu 0 "$q/trace.cpu0" --cpu 1 "$q/trace.cpu1" -o "$q/perf.data" >/dev/null 2>&1 ||
	bad "quantum 1000: recording failed"
for c in 0 1; do
	"$PTBROWSE" calls --stream cpu$c "$q/perf.data" 2>/dev/null
done | awk '/^ +calls +instructions/ { on = 1; next } on && NF == 0 { on = 0 }
	!on { next }
	{ d = match($0, /[^ ]+$/) }
	leaf && d > leaf { print "FAIL quantum 1000: " name " (a leaf) calls " $NF; exit }
	{ leaf = $NF ~ /^(demo_hash|mul|add|is_sorted)$/ ? d : 0; name = $NF }' |
	grep FAIL && fail=1

# longjmp out of a recursion (tests/progs/p_longjmp: main dives 5, 6, 7
# and 8 deep and jumps back each time, then climbs 6 deep): the frames a
# jump skips are closed, so main calls dive 4 times, dive is 8 calls
# below main at most, and climb is main's.
lj=$tmp/lj
mkdir "$lj" && "$BUILD/tools/ptrecord" -q -o "$lj/t" "$BUILD/progs/p_longjmp" >/dev/null 2>&1 &&
"$BUILD/tools/pt2perf" --sideband "$lj/t.sideband" --cpu 0 "$lj/t" -o "$lj/perf.data" >/dev/null 2>&1 ||
	bad "p_longjmp: recording failed"
"$PTBROWSE" calls "$lj/perf.data" 2>/dev/null | awk '
	/^ +calls +instructions/ { on = 1; next } on && NF == 0 { on = 0 } !on { next }
	{ d = match($0, /[^ ]+$/) }
	$NF == "main" && !md { md = d }
	$NF == "dive" && d == md + 2 { top += $1 }
	$NF == "climb" && d == md + 2 { climb = 1 }
	$NF == "dive" && (d - md) / 2 > deep { deep = (d - md) / 2 }
	END { if (top != 4 || deep != 8 || !climb)
		printf "FAIL p_longjmp: main calls dive %d times (4), dive %d calls below main (8), climb %s main'"'"'s\n",
			top, deep, climb ? "is" : "is not" }' | grep FAIL && fail=1

# A signal's handler (tests/progs/p_signal: SIGUSR1 raised 3 times, then
# an illegal instruction's SIGILL) is entered with no call: a frame of
# its own under the function it interrupted, whose return does not pop
# that function's.
sg=$tmp/sig
mkdir "$sg" && "$BUILD/tools/ptrecord" -q -o "$sg/t" "$BUILD/progs/p_signal" >/dev/null 2>&1 &&
"$BUILD/tools/pt2perf" --sideband "$sg/t.sideband" --cpu 0 "$sg/t" -o "$sg/perf.data" >/dev/null 2>&1 ||
	bad "p_signal: recording failed"
"$PTBROWSE" calls "$sg/perf.data" 2>/dev/null | awk '
	/^ +calls +instructions/ { on = 1; next } on && NF == 0 { on = 0 } !on { next }
	{ sig = sub(/ \((signal|signals, calls)\)$/, "") }
	{ d = match($0, /[^ ]+$/) } !md { md = d }
	$NF == "main" && d == md { mains++ }
	$NF == "on_usr1" { usr1 += $1; if (!sig) unmarked++ }
	$NF == "on_ill" { ill += $1; if (fn[d - 2] != "main") illp = fn[d - 2] }
	{ fn[d] = $NF }
	END { if (mains != 1 || usr1 != 3 || ill != 1 || illp != "" || unmarked)
		printf "FAIL p_signal: %d top-level mains (1), on_usr1 entered %d times (3), on_ill %d (1)%s%s\n",
			mains, usr1, ill, illp != "" ? " under " illp : "",
			unmarked ? ", on_usr1 not marked (signal)" : "" }' | grep FAIL && fail=1
exit $fail

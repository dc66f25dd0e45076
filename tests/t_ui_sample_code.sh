#!/bin/sh
# `make run`'s sample (tools/record.sh: tests/progs/p_sample recorded by
# ptrecord, wrapped into a perf.data) as the browser first shows it: the
# code's function names in the packet pane, times in ns, the core:bus ratio
# from the first PSB+, and the CPU lanes with the program's threads.  The
# MHz column is a measurement over a whole MTC period, so it is empty until
# the first one ends (0xa0 in this recording, below the first screen) and
# shows the model's 2400 MHz (CBR 24 x 100 MHz) from there: checked there,
# never made up above it.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
for f in "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" "$BUILD/progs/p_sample"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
sh tools/record.sh "$tmp/rec" "$BUILD" 1 >/dev/null 2>"$tmp/rec.err" ||
	{ echo "FAIL record.sh: $(cat "$tmp/rec.err")"; exit 1; }
perf=$tmp/rec/perf.data

# screen NAME "KEYS": the 120x40 screen after KEYS into $tmp/NAME.
screen() {
	printf 'wait-index\n%s\n:save-screen %s\n' "$2" "$tmp/$1" >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$perf" \
		>/dev/null 2>"$tmp/err" || bad "$1: $(cat "$tmp/err")"
}

screen first ""
f=$tmp/first
grep -q '^> ┌0x00000000  psb' "$f" || bad "first screen: not at the first PSB"
grep -q 'tip.pge    3: main+0x0          main+0x0' "$f" ||
	bad "first screen: no function name in the packet pane"
grep -q 'strtol@plt+0x' "$f" || bad "first screen: no PLT name"
# times in ns (estimates carry ~), not ticks
grep -Eq '  ~?[0-9]+ ns ' "$f" || bad "first screen: no times in ns"
grep -q '+0t' "$f" && bad "first screen: times in ticks"
grep -q 'cbr        18 .* 24$' "$f" || bad "first screen: the PSB+'s CBR is not shown"
grep -q 'cbr MHz$' "$f" || bad "first screen: no MHz column"
# the lanes: the program's threads on two CPUs
grep -q '^cpu0 ' "$f" && grep -q '^cpu1 ' "$f" || bad "first screen: no CPU lanes"
for c in p_sample sorter hasher matrix; do
	grep -q " $c " "$f" || bad "first screen: $c missing from the lanes' legend"
done

# MHz: measured over the first whole MTC period, from its end on.
screen mtc ":goto +0xa0"
grep -q '^>  0x000000a0  mtc .* 24 2400$' "$tmp/mtc" ||
	bad "the first whole MTC period: no 2400 MHz at 0xa0"
# and not before it: nothing made up
screen before ":goto +0x9f"
grep '^>' "$tmp/before" | grep -q ' 24 2400$' && bad "MHz before its first measurement"

[ $fail = 0 ] && echo "ok t_ui_sample_code"
exit $fail

#!/bin/sh
# t_ui_time_start -- a mark and a region at 0x0, the first PSB's rows
# before its TSC, take that PSB+'s TSC as their time (as gotos do): :zoom
# from ^ works (it said "no time known at 0x0"), :marks shows it, and the
# region panel's delta to a mark has a time; the panel's span of TSC
# packets is not labelled as the region's ticks.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data

# run NAME "KEYS": the 120x40 screen after KEYS into $tmp/NAME.
run() {
	printf 'wait-index\n%s\n:save-screen %s\n' "$2" "$tmp/$1" >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$perf" \
		>/dev/null 2>"$tmp/err" || bad "$1: $(cat "$tmp/err")"
}
run zoom ":zoom ^ 0x2014"
grep -q 'timeline: ^ to 0x2014, span [0-9]' "$tmp/zoom" ||
	bad ":zoom ^ 0x2014: $(tail -n 1 "$tmp/zoom")"
run marks ":goto 0x2014
mb
:region hot 0x0 0x2014
:goto 0x0
ma
:marks"
grep -Eq '^ region +hot +0x00000000-0x00002014 +0 ns' "$tmp/marks" ||
	bad ":marks: no time for the region at 0x0: $(grep hot "$tmp/marks")"
grep -Eq '^ mark +a +0x00000000 +0 ns' "$tmp/marks" ||
	bad ":marks: no time for the mark at 0x0: $(grep ' a ' "$tmp/marks")"
run panel ":goto 0x2014
mb
:region hot 0x0 0x2014
:goto 0x0"
grep -q "from 'b: -0x2014 bytes, -[0-9.]* us" "$tmp/panel" ||
	bad "the region panel's delta to 'b has no time: $(grep "from 'b" "$tmp/panel")"
grep -q 'tsc ticks' "$tmp/panel" && bad "the region panel labels its TSC packets' span 'tsc ticks'"
grep -q 'tsc packets span [0-9]* ticks' "$tmp/panel" || bad "the region panel has no TSC packets' span"
echo "ok   a mark and a region at the trace's start have the first PSB+'s time"
exit $fail

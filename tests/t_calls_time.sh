#!/bin/sh
# t_calls_time -- `ptbrowse calls` over a trace without a TSC packet (a
# kAFL trace, libxdc's test data) says its time is unknown, as
# `flow --summary` does: "time unknown (no TSC packet in the range)" on
# the range's line and "?" in the tree's time column (it said "0tk", a
# time measured as nothing).  In a timed range a call whose time did not
# move (0 ticks: its deciding packets' estimate is one TSC) is '?' too, as
# the browser's function view has it (ct_time_mark()), not "0.000us".
# A call still open at the end counts to its thread's last instruction,
# marked ">=".
set -u
: "${BUILD:=build}" "${SHARED:?}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

L=$SHARED/traces/libxdc-kafl-flow
[ -f "$L/unzip_trace.pt" ] || { echo "skip: $L/unzip_trace.pt missing"; exit 0; }
img="--raw $L/unzip.0x400000.bin:0x400000"
# shellcheck disable=SC2086
"$PTBROWSE" flow --summary $img "$L/unzip_trace.pt" >"$tmp/sum" 2>"$tmp/err" ||
	bad "flow --summary: $(cat "$tmp/err")"
grep -q '^time: unknown (no TSC packet' "$tmp/sum" ||
	bad "flow --summary knows a time: $(grep '^time' "$tmp/sum")"
# shellcheck disable=SC2086
"$PTBROWSE" calls $img "$L/unzip_trace.pt" >"$tmp/calls" 2>"$tmp/err" ||
	bad "calls: $(cat "$tmp/err")"
head -n 1 "$tmp/calls" | grep -q ', time unknown (no TSC packet in the range)$' &&
	ok "calls: the range's time is unknown" ||
	bad "calls: the range's line: $(head -n 1 "$tmp/calls")"
# the tree: between the header and the first top list
awk '/^ +calls +instructions/ { on = 1; next } on && NF == 0 { exit } on' \
	"$tmp/calls" >"$tmp/rows"
n=$(wc -l <"$tmp/rows")
bad_rows=$(awk '$5 != "?"' "$tmp/rows" | head -n 3)
[ "$n" -gt 3 ] && [ -z "$bad_rows" ] && ok "calls: ? in each of the tree's $n rows" ||
	bad "calls: tree rows with a time ($n rows): $bad_rows"
# A timed recording (tests/rec_lib.sh): the range's time is measured,
# most rows' too, and the few whose estimate did not move say '?'.
. tests/rec_lib.sh
if rec_sample "$tmp/rec"; then
	qs=0
	for c in 0 1; do
		"$PTBROWSE" calls --stream cpu$c "$tmp/rec/perf.data" >"$tmp/calls" 2>"$tmp/err" ||
			bad "calls cpu$c: $(cat "$tmp/err")"
		awk '/^ +calls +instructions/ { on = 1; next } on && NF == 0 { exit } on' \
			"$tmp/calls" >"$tmp/rows"
		n=$(wc -l <"$tmp/rows")
		q=$(awk '$5 == "?"' "$tmp/rows" | wc -l)
		us=$(awk '$5 ~ /^(>=)?[0-9]+\.[0-9][0-9][0-9]us$/' "$tmp/rows" | wc -l)
		if head -n 1 "$tmp/calls" | grep -q ', time [0-9]*\.[0-9]*us$' &&
		   [ $((q * 4)) -lt "$n" ] && [ $((q + us)) -eq "$n" ]; then
			ok "calls cpu$c: $us of $n rows timed, $q '?'"
		else
			bad "calls cpu$c: $us of $n rows timed, $q '?': $(head -n 1 "$tmp/calls")"
		fi
		qs=$((qs + q))
	done
	# a few calls of a handful of instructions, in each recording so far
	[ "$qs" -gt 0 ] || bad "calls: no row of a call whose time did not move says '?'"
	# The matrix thread is switched out on cpu0 inside its last add,
	# which goes on on cpu1: that call, still open at the end, counts
	# up to the thread's last instruction on cpu0 (as the thread's calls
	# alone, --comm, have it), marked >=, not up to the end of cpu0's
	# stream (add showed 38.559us against 1.411us).
	"$PTBROWSE" calls --stream cpu0 "$tmp/rec/perf.data" >"$tmp/all" 2>"$tmp/err" &&
	"$PTBROWSE" calls --stream cpu0 --comm matrix "$tmp/rec/perf.data" \
		>"$tmp/comm" 2>"$tmp/err" || bad "calls cpu0 --comm: $(cat "$tmp/err")"
	for f in add matmul; do
		a=$(awk -v f=$f '/^ +calls +instructions/ { on = 1; next }
			on && NF == 0 { exit } on && $6 == f { print $5; exit }' "$tmp/all")
		c=$(awk -v f=$f '/^ +calls +instructions/ { on = 1; next }
			on && NF == 0 { exit } on && $6 == f { print $5; exit }' "$tmp/comm")
		# (only where the call is open at the end: otherwise other
		# threads' calls of $f on cpu0, and the matrix thread's
		# switched out inside one (which count, as the man page says),
		# make the two differ, depending on the recording's schedule)
		case $a in
		">=$c") ok "calls cpu0: $f open at the end, $a as its thread alone" ;;
		">="*) bad "calls cpu0: $f open at the end: $a, its thread alone $c" ;;
		*) ok "calls cpu0: $f not open at the end in this recording ($a)" ;;
		esac
	done
else
	echo "skip the timed recording: $rec_err"
fi
exit $fail

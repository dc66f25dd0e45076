#!/bin/sh
# Halted time on a generated trace (tools/ptgen sleeps now and then: PWRE,
# EXSTOP, PWRX, often a TSC right after): `ptbrowse index --time` says
# how many sleeps ended and their halted time, at least and at most, within
# the trace's TSC span and no more sleeps than PWRX packets; the cached
# index says the same; without the time pass nothing is said; a planted
# sleep after cycles the estimate extrapolated is a range that holds it.
set -u
: "${BUILD:=build}"
: "${PTBROWSE:=$BUILD/ptbrowse}"
gen=$BUILD/tools/ptgen
for x in "$gen" "$PTBROWSE"; do
	[ -x "$x" ] || { echo "missing $x (make $x)"; exit 1; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
"$gen" --seed 4 --size 4MiB -o "$tmp/t.pt" >/dev/null || { echo "FAIL: ptgen"; exit 1; }
cfg=$(cat "$tmp/t.pt.options")
# shellcheck disable=SC2086
XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" index --time $cfg "$tmp/t.pt" >"$tmp/a" 2>&1 ||
	{ echo "FAIL: index --time: exit $?"; cat "$tmp/a"; exit 1; }
# shellcheck disable=SC2086
XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" index --time $cfg "$tmp/t.pt" >"$tmp/b" 2>&1
# shellcheck disable=SC2086
"$PTBROWSE" index --no-cache $cfg "$tmp/t.pt" >"$tmp/c" 2>&1
pwrx=$("$PTBROWSE" dump "$tmp/t.pt" | grep -c ' pwrx ')
span=$(sed -n 's/^  tsc: .*(\([0-9]*\) ticks[;)].*/\1/p' "$tmp/a")
line=$(grep '^  halted:' "$tmp/a")
# shellcheck disable=SC2046
set -- $(echo "$line" | sed 's/^  halted: *\([0-9]*\)\( \.\. \([0-9]*\)\)\{0,1\} ticks in \([0-9]*\) sleeps$/\1 \3 \4/')
if [ $# -eq 2 ]; then lo=$1 hi=$1 n=$2; else lo=${1:-} hi=${2:-} n=${3:-}; fi
if [ -z "$n" ] || [ -z "$span" ]; then
	echo "FAIL: no halted line: $line"
	fail=1
elif [ "$n" -lt 1 ] || [ "$n" -gt "$pwrx" ] || [ "$lo" -gt "$hi" ] ||
     [ "$hi" -gt "$span" ] || [ "$lo" -lt 1 ]; then
	echo "FAIL: halted $lo .. $hi ticks in $n sleeps ($pwrx PWRX, span $span)"
	fail=1
else
	echo "ok   halted $lo .. $hi ticks in $n sleeps ($pwrx PWRX, TSC span $span)"
fi
if [ "$(grep '^  halted:' "$tmp/b")" != "$line" ]; then
	echo "FAIL: the cached index says $(grep '^  halted:' "$tmp/b")"
	fail=1
else
	echo "ok   the cached index says the same"
fi
if grep -q '^  halted:' "$tmp/c"; then
	echo "FAIL: halted time without the time pass"
	fail=1
else
	echo "ok   nothing said without the time pass"
fi
# A planted sleep of 500000 ticks, with cycles run before its EXSTOP (so its
# time is an extrapolation from the anchor before): a range holding it,
# not one exact number.
"$gen" --seed 1 --size 512KiB --no-sleep --sleep-at 200000:500000 -o "$tmp/p.pt" >/dev/null ||
	{ echo "FAIL: ptgen --sleep-at"; exit 1; }
# shellcheck disable=SC2046
pl=$("$PTBROWSE" index --no-cache --time $(cat "$tmp/p.pt.options") "$tmp/p.pt" 2>&1 | grep '^  halted:')
# shellcheck disable=SC2046
set -- $(echo "$pl" | sed -n 's/^  halted: *\([0-9]*\) \.\. \([0-9]*\) ticks in [0-9]* sleeps$/\1 \2/p')
if [ $# -eq 2 ] && [ "$1" -lt "$2" ] && [ "$1" -le 500000 ] && [ "$2" -ge 500000 ]; then
	echo "ok   the planted 500000 ticks: $1 .. $2"
else
	echo "FAIL: the planted 500000 ticks: $pl"
	fail=1
fi
# the browser's :info says it too, in time (the trace's TSC frequency)
printf 'wait-index\n:info\n:save-screen %s\n' "$tmp/screen" >"$tmp/keys"
# shellcheck disable=SC2086
XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config \
	"$PTBROWSE" --no-state --script "$tmp/keys" $cfg "$tmp/t.pt" >"$tmp/ui" 2>&1
if grep -q "halted [0-9.]* [a-z]*s\( \.\. [0-9.]* [a-z]*s\)\{0,1\} in $n sleeps" "$tmp/screen"; then
	echo "ok   :info says $(grep -o "halted [^;]*sleeps" "$tmp/screen")"
else
	echo "FAIL: :info says: $(tail -n 1 "$tmp/screen")"
	fail=1
fi
exit $fail

#!/bin/sh
# `ptbrowse extract -o -`: '-' is standard output where that makes sense
# and refused elsewhere (OUTPUT FILES): one line, exit 2, no directory
# named '-'; ./- is a directory called '-'.  A trace that shrinks while
# extract copies it is the trace's fault ("the file shrank"), not the
# output's (write() from the mapping failed with EFAULT: "Bad address").
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
top=$(pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$top/$BUILD/tools/ptgen" --seed 3 --size 16KiB -o "$tmp/k.pt" >/dev/null ||
	{ echo "ptgen failed"; exit 1; }
cd "$tmp" || exit 1
"$PTBROWSE" extract k.pt -o - >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st = 2 ] || bad "extract -o -: exit $st, not 2"
[ "$(cat "$tmp/err")" = "ptbrowse extract: -o -: standard output is not possible here (./- names a directory called -)" ] ||
	bad "extract -o -: '$(cat "$tmp/err")'"
[ -s "$tmp/out" ] && bad "extract -o - wrote to standard output"
[ -e "$tmp/-" ] && bad "extract -o - made '-'"
"$PTBROWSE" extract k.pt -o ./- >/dev/null 2>"$tmp/err" ||
	bad "extract -o ./-: $(cat "$tmp/err")"
[ -f "$tmp/-/k.pt.raw.pt" ] || bad "extract -o ./-: $(ls "$tmp/-" 2>&1)"

# Racy (extract's output is a file, nothing to block it): cut the trace
# while extract runs until it lands mid-copy, or skip.
"$top/$BUILD/tools/ptgen" --seed 7 --size 32MiB -o big.pt >/dev/null ||
	bad "ptgen 32MiB"
hit=
for d in 0.02 0.01 0.03 0.005 0.05 0.02 0.01 0.04; do
	rm -rf xd; cp big.pt s.pt
	"$PTBROWSE" extract s.pt -o xd >/dev/null 2>"$tmp/err" &
	pid=$!
	sleep $d
	truncate -s 1MiB s.pt
	wait $pid
	st=$?
	[ $st = 0 ] && continue
	hit=1
	[ $st = 1 ] && [ "$(cat "$tmp/err")" = "ptbrowse extract: s.pt: the file shrank while being read" ] ||
		bad "extract of a trace shrunk mid-copy: exit $st, '$(cat "$tmp/err")'"
	[ -e xd/s.pt.raw.pt ] && bad "extract of a trace shrunk mid-copy left xd/s.pt.raw.pt"
	break
done
[ -n "$hit" ] && echo "ok   extract of a trace shrunk mid-copy: the file shrank" ||
	echo "skip extract of a trace shrunk mid-copy: the cut never landed mid-copy"

[ $fail = 0 ] && echo "t_extract: ok"
exit $fail

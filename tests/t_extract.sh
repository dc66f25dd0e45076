#!/bin/sh
# `ptbrowse extract -o -`: '-' is standard output where that makes sense
# and refused elsewhere (OUTPUT FILES): one line, exit 2, no directory
# named '-'; ./- is a directory called '-'.
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

[ $fail = 0 ] && echo "t_extract: ok"
exit $fail

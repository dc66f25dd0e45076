#!/bin/sh
# t_calls_nosym -- `ptbrowse calls` over code without symbols (a kAFL
# trace, libxdc's test data, with its raw memory dump only): each callee
# is a line of its own, named by its entry's offset in the file as an IP
# there is written ("[unzip.0x400000.bin+0xccc0]"), not all of them one
# "[unzip.0x400000.bin]" function with their calls summed over unrelated
# code (72 call targets were one line of 219 calls).  The flat profile
# counts the code and its calls in the segment, as the symbol holding
# each instruction (there is none: the segment).
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
"$PTBROWSE" calls --raw "$L/unzip.0x400000.bin:0x400000" "$L/unzip_trace.pt" \
	>"$tmp/calls" 2>"$tmp/err" || bad "calls: $(cat "$tmp/err")"
awk '/^ +calls +instructions/ { on = 1; next } on && NF == 0 { exit } on' \
	"$tmp/calls" >"$tmp/rows"
# the callees: rows called at least once, by name
awk '$1 > 0 { print $NF }' "$tmp/rows" | sort -u >"$tmp/names"
n=$(wc -l <"$tmp/names")
other=$(grep -v '^\[unzip\.0x400000\.bin+0x[0-9a-f]*\]$' "$tmp/names" | head -n 3)
[ "$n" -eq 72 ] && [ -z "$other" ] &&
	ok "calls: 72 callees, each named by its entry" ||
	bad "calls: $n callees, not named by entry: $other"
c=$(awk '$NF == "[unzip.0x400000.bin+0xccc0]" { s += $1 } END { print s + 0 }' "$tmp/rows")
[ "$c" -eq 20 ] && ok "calls: 0x40ccc0 called 20 times" ||
	bad "calls: 0x40ccc0 called $c times, not 20"
all=$(awk '{ s += $1 } END { print s + 0 }' "$tmp/rows")
top=$(sed -n '/^top functions by calls:/,$p' "$tmp/calls" | sed -n 3,4p)
case $top in
*" 219  [unzip.0x400000.bin]")
	[ "$all" -eq 219 ] && ok "calls: the segment's 219 calls, the tree's too" ||
		bad "calls: the tree's calls $all, not 219" ;;
*) bad "calls: top by calls: $top" ;;
esac
exit $fail

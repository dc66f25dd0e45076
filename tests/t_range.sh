#!/bin/sh
# TRACE[:FROM[-TO]] on dump, flow and calls: a file whose own name holds
# the colon is that file, however its suffix reads.
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$BUILD/tools/ptgen" --seed 3 --size 64KiB -o "$tmp/k.pt" >/dev/null ||
	{ echo "ptgen failed"; exit 1; }
"$PTBROWSE" dump "$tmp/k.pt" >"$tmp/k.dump" || bad "dump k.pt"

# The file named a:0x2004 is the file, not a:0x2004 of a.
cp "$tmp/k.pt" "$tmp/a:0x2004"
"$PTBROWSE" dump "$tmp/a:0x2004" >"$tmp/a.dump" 2>"$tmp/err" ||
	bad "dump a:0x2004: $(cat "$tmp/err")"
cmp -s "$tmp/k.dump" "$tmp/a.dump" || bad "dump a:0x2004 is not the whole file"
for c in flow calls; do
	"$PTBROWSE" $c "$tmp/a:0x2004" >/dev/null 2>"$tmp/err" ||
		bad "$c a:0x2004: $(cat "$tmp/err")"
done
# and a range of it still splits
"$PTBROWSE" dump "$tmp/a:0x2004:0x0-0x20" >"$tmp/r.dump" 2>"$tmp/err" ||
	bad "dump a:0x2004:0x0-0x20: $(cat "$tmp/err")"
[ -s "$tmp/r.dump" ] || bad "dump a:0x2004:0x0-0x20 printed nothing"

[ $fail = 0 ] && echo "t_range: ok"
exit $fail

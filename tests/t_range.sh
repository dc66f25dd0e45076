#!/bin/sh
# TRACE[:FROM[-TO]] on dump, flow and calls: a file whose own name holds
# the colon is that file, however its suffix reads; FROM and TO are 0x hex
# or decimal (0020 is twenty, not octal); a suffix after a file that
# starts as a number but is no range is a usage error (exit 2).
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

# 0x hex or decimal, the same range either way
"$PTBROWSE" dump "$tmp/k.pt:0x0-0x64" >"$tmp/h.dump" 2>"$tmp/err" ||
	bad "dump k.pt:0x0-0x64: $(cat "$tmp/err")"
"$PTBROWSE" dump "$tmp/k.pt:0-0100" >"$tmp/d.dump" 2>"$tmp/err" ||
	bad "dump k.pt:0-0100: $(cat "$tmp/err")"
[ -s "$tmp/h.dump" ] && cmp -s "$tmp/h.dump" "$tmp/d.dump" ||
	bad "k.pt:0-0100 is not k.pt:0x0-0x64"
"$PTBROWSE" dump "$tmp/k.pt:08196" >/dev/null 2>"$tmp/err" ||
	bad "dump k.pt:08196: $(cat "$tmp/err")"
for c in dump flow calls; do
	for r in -1 0x10- 8196-0020 99999999999999999999; do
		"$PTBROWSE" $c "$tmp/k.pt:$r" >/dev/null 2>"$tmp/err"
		st=$?
		[ $st = 2 ] || bad "$c k.pt:$r: exit $st, not 2: $(cat "$tmp/err")"
		grep -q 'bad range (FROM-TO: 0x hex or decimal, TO above FROM)' "$tmp/err" ||
			bad "$c k.pt:$r: $(cat "$tmp/err")"
	done
done

[ $fail = 0 ] && echo "t_range: ok"
exit $fail

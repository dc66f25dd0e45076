#!/bin/sh
# tools/pttile on generated traces: a TSC equal to the one before (ptgen
# writes an event's TSC, then a PSB+ whose TSC has not moved) is not "the
# TSC goes back"; --mtc-freq 0 (record.sh's MTC every crystal clock) is
# taken; counts and ratios are plain numbers (--cpuid-0x15.eax 2K is not
# 2048), sizes take K, M ...; a perf.data file is refused as one (its
# AUXTRACE record headers were parsed as packets).
set -u
BUILD=${BUILD:-build}
tile=$BUILD/tools/pttile gen=$BUILD/tools/ptgen
fail=0 f0=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for f in "$tile" "$gen"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done

# seeds 1 and 3 have equal TSCs in a row (seed 1 at 0x1208d, both
# 106d0fd0e46c): refused before; seed 2 last, for the options below
for s in 1 3 2; do
	"$gen" -s $s -S 1M -o "$tmp/g.pt" || bad "ptgen -s $s"
	"$tile" --tiles 2 -o "$tmp/t.pt" "$tmp/g.pt" >"$tmp/out" 2>"$tmp/err" ||
		{ bad "seed $s: $(cat "$tmp/err")"; continue; }
	read -r n tlen shift <"$tmp/out"
	[ "$n" = 2 ] && [ "$(wc -c <"$tmp/t.pt")" = $((2 * tlen)) ] ||
		bad "seed $s: '$(cat "$tmp/out")', $(wc -c <"$tmp/t.pt") bytes"
	# the second copy is the first one's bytes but for its TSCs
	tail -c "$tlen" "$tmp/t.pt" | cmp -s - "$tmp/g.pt" && bad "seed $s: copy 1 unshifted"
	[ "${shift:-0}" -gt 0 ] || bad "seed $s: shift '$shift'"
done
[ $fail = "$f0" ] && echo "ok   traces with equal TSCs in a row tile"
f0=$fail

"$tile" --mtc-freq 0 --tiles 2 -o "$tmp/t.pt" "$tmp/g.pt" >/dev/null 2>"$tmp/err" ||
	bad "--mtc-freq 0: $(cat "$tmp/err")"
for o in "--cpuid-0x15.eax 2K" "--cpuid-0x15.ebx 100k" "--tiles 2K" \
	 "--mtc-freq 1K" "--mtc-freq 16" "--tiles 0" "--cpuid-0x15.eax -1"; do
	# shellcheck disable=SC2086
	"$tile" $o -o "$tmp/x.pt" "$tmp/g.pt" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q "bad value" "$tmp/err" || bad "$o: exit $rc, '$(cat "$tmp/err")'"
done
[ -e "$tmp/x.pt" ] && bad "a refused option left a file"
"$tile" --size 2M -o "$tmp/x.pt" "$tmp/g.pt" >"$tmp/out" 2>"$tmp/err" ||
	bad "--size 2M: $(cat "$tmp/err")"
[ $fail = "$f0" ] && echo "ok   --mtc-freq 0 taken; counts and ratios without suffixes"
f0=$fail

# a perf.data file (pt2perf's): said so; its first PSB lies inside an
# AUXTRACE record, and the record headers were parsed as packets
# ("offset 0x..: reserved IP compression")
if [ -x "$BUILD/tools/pt2perf" ]; then
	"$BUILD/tools/pt2perf" "$tmp/g.pt" -o "$tmp/g.data" || bad "pt2perf"
	out=$("$tile" -o "$tmp/p.pt" "$tmp/g.data" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 1 ] && [ ! -e "$tmp/p.pt" ] &&
	   [ "$out" = "pttile: $tmp/g.data: a perf.data file, not a raw trace: ptbrowse extract a stream of it first" ] ||
		bad "pttile of a perf.data: exit $rc, '$out'"
	[ $fail = "$f0" ] && echo "ok   a perf.data file: said, not tiled"
fi
[ $fail = 0 ]

#!/bin/sh
# t_dump_nosync -- `dump --cycles --no-sync TRACE:FROM-TO` decodes from
# FROM itself, and its rows are the whole dump's: the time model resumes
# at the last PSB at or before FROM and walks up to FROM (it took the
# state of the first PSB after FROM, which may even lie past TO: 125629~
# where the whole dump has 67107=).  Where FROM is inside a packet the
# packets decoded from it are not the trace's: the model starts from
# nothing (relative, flag r) and stderr says so.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

"$gen" --seed 1 --size 64KiB -o "$tmp/g.pt" >/dev/null || { echo "FAIL: ptgen"; exit 1; }
"$PTBROWSE" dump --cycles "$tmp/g.pt" >"$tmp/all" 2>"$tmp/err" ||
	{ echo "FAIL: dump --cycles: $(cat "$tmp/err")"; exit 1; }
# Columns: the offset at 72..87, the packet after it.
cols='function off() { return substr($0, 72, 16) }
function pk() { split(substr($0, 88), a, " "); return a[1] }'
# Rows: 40 packets into the second segment, the second PSB itself, 40
# packets into the first segment, and the offset inside the first
# multi-byte packet after that (a TIP or TSC).
picks=$(awk "$cols"'
	pk() == "psb" { p++; n = 0; if (p == 2) print "psb " off() }
	/^ / { n++ }
	p == 1 && n == 40 { print "row " off() }
	p == 2 && n == 40 { print "row " off() }
	p == 1 && n > 40 && !m && (pk() == "tip" || pk() == "tsc") { m = 1; print "mid " off() }
	' "$tmp/all")
[ "$(echo "$picks" | wc -l)" -eq 4 ] || { echo "FAIL: rows not found: $picks"; exit 1; }
echo "$picks" | while read -r kind o; do
	[ "$kind" = mid ] && from=$(printf '0x%x' $((0x$o + 1)))
	[ "$kind" = mid ] || from=0x$o
	to=$(printf "0x%x" $((from + 0x100)))
	"$PTBROWSE" dump --cycles --no-sync "$tmp/g.pt:$from-$to" >"$tmp/win" 2>"$tmp/err" ||
		{ echo "FAIL --no-sync $from: $(cat "$tmp/err")"; continue; }
	if [ "$kind" = mid ]; then
		grep -v '^\[' "$tmp/win" | head -n 1 |
			awk '{ exit !($1 == "-" && index($0, " r ")) }' &&
			grep -q "no time model state at $from" "$tmp/err" &&
			ok "--no-sync from inside a packet ($from): from nothing, said" ||
			echo "FAIL --no-sync from inside a packet ($from): $(head -n 1 "$tmp/win") / $(cat "$tmp/err")"
		continue
	fi
	# the first rows: the window's end may cut a packet
	head -n 8 "$tmp/win" >"$tmp/head"
	awk -v o="$o" "$cols"'off() == o { on = 1 } on' "$tmp/all" | head -n 8 >"$tmp/same"
	n=$(wc -l <"$tmp/head")
	[ "$n" -eq 8 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/head" "$tmp/same" &&
		ok "--no-sync $kind $from: the whole dump's $n rows" ||
		echo "FAIL --no-sync $kind $from: $(diff "$tmp/head" "$tmp/same" | head -n 3) $(cat "$tmp/err")"
done >"$tmp/out"
cat "$tmp/out"
grep -q FAIL "$tmp/out" && fail=1

# Without --no-sync a window with no PSB decodes nothing, and needs no
# index: nothing on stdout.
o=$(echo "$picks" | sed -n 's/^row //p' | head -n 1)
"$PTBROWSE" dump --cycles "$tmp/g.pt:0x$o-$(printf '0x%x' $((0x$o + 0x28)))" >"$tmp/win" 2>"$tmp/err"
[ ! -s "$tmp/win" ] && grep -q "no PSB in" "$tmp/err" &&
	ok "a window without a PSB: nothing, said" ||
	bad "a window without a PSB: $(head -n 1 "$tmp/win") $(cat "$tmp/err")"
exit $fail

#!/bin/sh
# t_region_time -- a region's duration is the time model's at both edges
# (from the index's state at its first PSB) and says whether it is exact:
# TSC to TSC is exact, from a packet between timing packets an estimate;
# its cycles are exact where both edges are cycle-exact (dump --cycles
# marks them '='), an estimate where one is bounded ('~').  marks --summary
# (text and JSON) and the browser's region summary (:regions A) say so.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
# The summary lines of region $2 in marks --summary output $1.
region() { awk -v r="$2" '$1 == "region" { on = $2 == r; next } on' "$1"; }

# TSCs 1000, 2000, 3000: reg starts at the pad after the first (its time
# is held at 1000, an estimate), r2 at the second TSC; both end at the third.
perl -e '
sub tsc { return "\x19" . substr(pack("Q<", shift), 0, 7) }
print "\x02\x82" x 8, tsc(1000), "\x02\x23", "\x00", tsc(2000), "\x00", tsc(3000), "\x00";
' >"$tmp/r.pt"
printf '# ptbrowse marks v1\nregion reg 0x1a 0x24\nregion r2 0x1b 0x24\n' >"$tmp/r.marks"
"$PTBROWSE" marks --import "$tmp/r.marks" "$tmp/r.pt" >"$tmp/out" 2>&1 || fail "import: $(cat "$tmp/out")"
"$PTBROWSE" marks --summary --tsc-freq 1GHz "$tmp/r.pt" >"$tmp/sum" 2>&1 || fail "summary: exit $?"
region "$tmp/sum" reg | grep -q '^  time estimated from-index$' ||
	fail "reg: $(region "$tmp/sum" reg | grep time)"
region "$tmp/sum" r2 | grep -q '^  time exact from-index$' ||
	fail "r2: $(region "$tmp/sum" r2 | grep time)"
region "$tmp/sum" r2 | grep -q '^  time-ns 1000$' || fail "r2's duration: $(region "$tmp/sum" r2)"
"$PTBROWSE" marks --summary --json --tsc-freq 1GHz "$tmp/r.pt" >"$tmp/json" 2>&1 || fail "json: exit $?"
grep -q '"name": "r2".*"time_ticks": 1000, "time_exact": true, "time_from_index": true' "$tmp/json" ||
	fail "json r2: $(grep r2 "$tmp/json")"
grep -q '"name": "reg".*"time_exact": false' "$tmp/json" || fail "json reg: $(grep reg "$tmp/json")"

# The browser's summary of a region: exact, or marked an estimate.
for r in r2 reg; do
	printf 'wait-index\n:regions %s\n:save-screen %s\nq\n' "$r" "$tmp/$r.txt" >"$tmp/keys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 \
		--tsc-freq 1GHz "$tmp/r.pt" >"$tmp/out" 2>&1 || fail "browser $r: $(cat "$tmp/out")"
done
grep -q 'duration 1\.000 us (exact)' "$tmp/r2.txt" 2>/dev/null ||
	fail "r2 in the browser: $(grep duration "$tmp/r2.txt" 2>/dev/null)"
grep -q 'duration ≈2\.000 us' "$tmp/reg.txt" 2>/dev/null ||
	fail "reg in the browser: $(grep duration "$tmp/reg.txt" 2>/dev/null)"

# Cycles: a generated trace, regions between rows dump --cycles marks.
args="--seed 5 --size 256KiB"
# shellcheck disable=SC2086
"$gen" $args -o "$tmp/g.pt" || { echo "FAIL: ptgen"; exit 1; }
# shellcheck disable=SC2086
opts=$("$gen" $args --print-config)
# shellcheck disable=SC2086
"$PTBROWSE" dump --cycles $opts "$tmp/g.pt" >"$tmp/dump" || fail "dump: exit $?"
# offset, cycles and mark of tnt.8 rows, exact (=) and bounded (~)
awk '{ m = substr($1, length($1)); c = substr($1, 1, length($1) - 1) }
	$7 == "tnt.8" && (m == "=" || m == "~") { print $6, c, m }' "$tmp/dump" >"$tmp/rows"
n=$(grep -c ' =$' "$tmp/rows")
[ "$n" -gt 100 ] || { echo "FAIL: only $n exact tnt.8 rows"; exit 1; }
set -- $(grep ' =$' "$tmp/rows" | sed -n "$((n * 3 / 10))p")
a=$1 ca=$2
set -- $(grep ' =$' "$tmp/rows" | sed -n "$((n * 6 / 10))p")
b=$1 cb=$2
set -- $(awk -v a="$a" '$3 == "~" && $1 < a { r = $1 } END { print r }' "$tmp/rows")
c=${1:-}
[ -n "$c" ] || { echo "FAIL: no bounded tnt.8 row before 0x$a"; exit 1; }
printf '# ptbrowse marks v1\nregion ex 0x%s 0x%s\nregion bd 0x%s 0x%s\n' "$a" "$b" "$c" "$b" >"$tmp/g.marks"
"$PTBROWSE" marks --import "$tmp/g.marks" "$tmp/g.pt" >"$tmp/out" 2>&1 || fail "import g: $(cat "$tmp/out")"
# shellcheck disable=SC2086
"$PTBROWSE" marks --summary $opts "$tmp/g.pt" >"$tmp/gsum" 2>&1 || fail "summary g: exit $?"
region "$tmp/gsum" ex | grep -q "^  cycles $((cb - ca)) exact\$" ||
	fail "ex: $(region "$tmp/gsum" ex | grep cycles), dump says $((cb - ca))"
region "$tmp/gsum" bd | grep -q "^  cycles [0-9]* estimated\$" ||
	fail "bd: $(region "$tmp/gsum" bd | grep cycles)"
[ $status = 0 ] && echo "ok   region durations: exact or estimated, at both edges"
exit $status

#!/bin/sh
# t_marks_summary_range -- `marks --summary`'s function lists of a region
# decode from the PSB at or before its start and count what the packets
# in [FROM, TO) decide, as `calls TRACE:REGION` and the browser's region
# summaries do (9b632b6): its lines are calls' top five by cycles and by
# instructions.  It decoded from the PSB after FROM: a region without a
# PSB had no functions at all, a longer one lost what came before its
# first PSB.  On p_sample recorded as `make sample-code` records it (a
# PSB about every 4 KiB): r1 holds none, r2 starts 3.8 KiB before one.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
psbs=$("$PTBROWSE" dump --stream cpu0 "$perf" | awk '$2 == "psb" { printf "%s ", $1 }')
# r1 inside the second PSB segment, r2 from there past two more PSBs
set -- $psbs
[ $# -ge 5 ] || { echo "FAIL too few PSBs in cpu0: $psbs"; exit 1; }
a=$((0x$2)) b=$((0x$3)) c=$((0x$5))
r1="$(printf '0x%x 0x%x' $((a + 0x80)) $((b - 0x80)))"
r2="$(printf '0x%x 0x%x' $((a + 0x80)) $((c + 0x100)))"
printf '%s\n' wait-index ":region r1 $r1" ":region r2 $r2" >"$tmp/keys"
(cd "$tmp" && "$PTBROWSE" --script keys --stream cpu0 "$perf") >"$tmp/out" 2>&1 ||
	bad "browser: exit $? ($(cat "$tmp/out"))"
"$PTBROWSE" marks --summary --stream cpu0 "$perf" >"$tmp/marks" 2>"$tmp/err" ||
	bad "marks --summary: $(cat "$tmp/err")"
for r in r1 r2; do
	awk -v r="$r" '$1 == "region" { on = $2 == r; next }
		on && $1 == "functions" && $NF != "cycles" && $NF != "instructions" {
			print $2, $3, $4, $NF }' "$tmp/marks" >"$tmp/m.$r"
	"$PTBROWSE" calls --no-tree --top 5 --stream cpu0 "$perf:$r" >"$tmp/c" 2>&1 ||
		{ bad "calls $r: $(cat "$tmp/c")"; continue; }
	awk '/^top functions by (cycles|instructions):/ { on = 1; getline; next }
		/^top functions/ { on = 0 } on && NF { print $1, $2, $3, $NF }' \
		"$tmp/c" >"$tmp/c.$r"
	[ -s "$tmp/c.$r" ] || { bad "$r: calls lists no functions"; continue; }
	if cmp -s "$tmp/m.$r" "$tmp/c.$r"; then
		ok "$r: marks --summary's functions are calls'"
	else
		bad "$r: marks --summary's functions are not calls'"
		diff "$tmp/c.$r" "$tmp/m.$r" | head -12
	fi
done
exit $fail

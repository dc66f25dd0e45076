#!/bin/sh
# t_limits -- no quadratic behaviour and no runaway memory on adversarial
# input: a file of PSB-like false starts ("02 82" x7 then "02 00") and a
# file of PSBs 16 bytes apart.  For each, `ptbrowse index` runs on two
# sizes (1x and 4x) and the ratios of CPU time and peak RSS are checked:
# linear work gives about 4, quadratic 16.  No absolute time is asserted;
# the RSS bound is loose.  The browser stepping through PSBs 16 bytes
# apart, and through one segment of megabytes, is measured the same way.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

TIME=/usr/bin/time
if ! [ -x $TIME ] || ! $TIME -f '%U' true 2>/dev/null >/dev/null; then
	echo "skip: no GNU time (/usr/bin/time -f) to measure CPU time and RSS"
	exit 0
fi

# make FILE UNIT BYTES: UNIT's bytes repeated (by doubling) to BYTES.
make() {
	printf "$2" >"$1"
	while [ "$(wc -c <"$1")" -lt "$3" ]; do
		cat "$1" "$1" >"$1.t" && mv "$1.t" "$1"
	done
}
psb='\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202'
false_start='\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\000'
S=$((2 * 1024 * 1024))

# measure NAME CMD...: "cpu_ms rss_kib" of CMD into $tmp/NAME.
measure() {
	name=$1
	shift
	$TIME -f '%U %S %M' -o "$tmp/$name.time" "$@" >/dev/null 2>"$tmp/$name.err" </dev/null
	rc=$?
	[ $rc -lt 124 ] || fail "$name: status $rc"
	awk '{ printf "%d %d\n", ($1 + $2) * 1000 + 10, $3 }' "$tmp/$name.time" >"$tmp/$name"
}

# ratio NAME: the 4x run's CPU and RSS over the 1x run's, as "cpu rss".
ratio() {
	read c1 r1 <"$tmp/$1.1"
	read c4 r4 <"$tmp/$1.4"
	awk -v a=$c1 -v b=$c4 -v c=$r1 -v d=$r4 'BEGIN { printf "%.1f %.1f\n", b / a, d / c }'
}

# check NAME MAXCPU MAXRSS
check() {
	set -- "$1" "$2" "$3" $(ratio "$1")
	echo "$1: CPU x$4, RSS x$5 for 4x the bytes"
	awk -v r=$4 -v m=$2 'BEGIN { exit !(r < m) }' || fail "$1: CPU grew x$4 for 4x the input (quadratic?)"
	awk -v r=$5 -v m=$3 'BEGIN { exit !(r < m) }' || fail "$1: RSS grew x$5 for 4x the input"
}

for kind in false_start psb; do
	eval unit=\$$kind
	make "$tmp/$kind.1" "$unit" $S
	make "$tmp/$kind.4" "$unit" $((4 * S))
	for n in 1 4; do
		measure idx_$kind.$n "$PTBROWSE" index --no-cache --threads 1 "$tmp/$kind.$n"
	done
done
check idx_false_start 10 6
check idx_psb 10 6
# the index of PSBs 16 bytes apart holds every one of them
"$PTBROWSE" index --no-cache --json "$tmp/psb.1" >"$tmp/j" 2>/dev/null
grep -q "\"psbs\": *$((S / 16))" "$tmp/j" || fail "index: not $((S / 16)) PSBs: $(grep psbs "$tmp/j")"

# The browser on PSBs 16 bytes apart, without an index: the first screen
# (which steps through up to 50000 one-PSB segments looking for a TSC), the
# end, a page back.  Each step must cost O(1): the window cache is hashed
# and the end of a long 02 82 run is remembered.
printf 'G\nb b\ng\nq\n' >"$tmp/keys"
B=$((S / 32))
make "$tmp/bpsb.1" "$psb" $B
make "$tmp/bpsb.4" "$psb" $((4 * B))
for n in 1 4; do
	$TIME -f '%U %S %M' -o "$tmp/ui.time" timeout 60 "$PTBROWSE" --no-state --no-index \
		--script "$tmp/keys" --size 80x24 "$tmp/bpsb.$n" >/dev/null 2>&1 </dev/null
	rc=$?
	[ $rc = 0 ] || [ $rc = 124 ] || fail "browser: status $rc"
	awk -v t=$rc '{ printf "%d %d\n", t == 124 ? 60000 : ($1 + $2) * 1000 + 10, $3 }' \
		"$tmp/ui.time" >"$tmp/ui_psb.$n"
done
check ui_psb 10 6

# The browser on one PSB segment of megabytes (no PSB after the first, as
# with a huge PSB period or a cut trace), without an index: the first
# screen, the end, half way, a page back, the start.  Chunks passed on the
# way are not kept, so memory stays within the window cache's bound (the
# RSS also counts the file's pages); work grows with the bytes decoded.
ptgen=${BUILD:-build}/tools/ptgen
if [ -x "$ptgen" ]; then
	printf 'G
b
:goto 50%%
b
g
q
' >"$tmp/keys"
	for n in 1 4; do
		"$ptgen" --seed 5 --size $((n * 4))MiB --psb-period 1GiB 			-o "$tmp/long.$n" >/dev/null || fail "ptgen failed"
		$TIME -f '%U %S %M' -o "$tmp/ui.time" timeout 120 "$PTBROWSE" --no-state \
			--no-index --script "$tmp/keys" --size 80x24 "$tmp/long.$n" \
			>/dev/null 2>&1 </dev/null
		rc=$?
		[ $rc = 0 ] || fail "browser on one long segment: status $rc"
		awk '{ printf "%d %d\n", ($1 + $2) * 1000 + 10, $3 }' \
			"$tmp/ui.time" >"$tmp/ui_long.$n"
	done
	check ui_long 10 3
	read c r <"$tmp/ui_long.4"
	[ "$r" -lt $((256 * 1024)) ] ||
		fail "browser on a 16 MiB segment: peak RSS $((r / 1024)) MiB (bound 256)"
else
	echo "skip: no $ptgen for the long-segment case"
fi
exit $status

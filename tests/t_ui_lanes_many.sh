#!/bin/sh
# t_ui_lanes_many -- CPU lanes past the letters and past 32 CPUs.  60
# processes run back to back on cpu0: the ones after the 52nd letter are
# drawn '+' (a process without a letter of its own, said in the legend),
# never blank (nothing known).  40 CPU streams: every one has a lane, and
# J from cpu31 goes to cpu32, from cpu38 to cpu39.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM	# --script needs none
status=0
fail() { echo "FAIL: $*"; status=1; }

"$BUILD/tools/ptgen" -S 16K -s 1 -o "$tmp/a.bin" || exit 1
OPTS=$(cat "$tmp/a.bin.options")
# the trace's TSCs run from 0x106d0fc710c5 to 0x106d0fca5c49 (t_ui_lanes)
T=$(printf '%d' 0x106d0fc71000)

# 60 processes on cpu0, 3500 ticks each, up to T + 210000
{
	echo '# ptrecord sideband v1: times in TSC ticks'
	i=0
	while [ $i -lt 60 ]; do
		t=$((T + i * 3500))
		echo "comm $((1000 + i)) $((1000 + i)) $t 0 proc$i"
		echo "switch 0 $((t + 1)) in $((1000 + i)) $((1000 + i)) -1 -1 0"
		echo "switch 0 $((t + 3499)) out $((1000 + i)) $((1000 + i)) -1 -1 0"
		i=$((i + 1))
	done
	echo "switch 1 $T in 2000 2000 -1 -1 0"
} > "$tmp/many.sb"
"$BUILD/tools/pt2perf" --sideband "$tmp/many.sb" --cpu 0 "$tmp/a.bin" \
	--cpu 1 "$tmp/a.bin" -o "$tmp/many.data" >/dev/null || exit 1
printf 'wait-index\n:save-screen %s\nq\n' "$tmp/many.txt" > "$tmp/keys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" \
	--size 200x30 $OPTS "$tmp/many.data" > "$tmp/out" 2>&1 ||
	fail "many: exit status $? ($(cat "$tmp/out"))"
lane=$(grep '^cpu0 ' "$tmp/many.txt")
# proc52-59 ran over the last 8/60 of the lane: '+', no blank before the end
echo "$lane" | grep -q 'z+++' || fail "no '+' after z: $lane"
rest=$(echo "$lane" | sed 's/.*z+//; s/ *$//')
case $rest in *' '*) fail "a blank among the processes without a letter: $lane" ;; esac
grep -q '+ others (no letter left)' "$tmp/many.txt" ||
	fail "the legend does not say what '+' is: $(grep 'proc0' "$tmp/many.txt")"

# 40 CPUs, one process each
{
	echo '# ptrecord sideband v1: times in TSC ticks'
	echo "comm 100 100 $T 1 busy"
	c=0
	while [ $c -lt 40 ]; do
		echo "switch $c $((T + c)) in 100 100 -1 -1 0"
		c=$((c + 1))
	done
} > "$tmp/c40.sb"
args=
c=0
while [ $c -lt 40 ]; do
	args="$args --cpu $c $tmp/a.bin"
	c=$((c + 1))
done
# shellcheck disable=SC2086
"$BUILD/tools/pt2perf" --sideband "$tmp/c40.sb" $args -o "$tmp/c40.data" >/dev/null ||
	exit 1
cat > "$tmp/keys" <<EOF
wait-index
:save-screen $tmp/c40.txt
:lane cpu31
J
:save-screen $tmp/j31.txt
:lane cpu38
J
:save-screen $tmp/j38.txt
J
:save-screen $tmp/j39.txt
q
EOF
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" \
	--size 120x70 $OPTS "$tmp/c40.data" > "$tmp/out" 2>&1 ||
	fail "c40: exit status $? ($(cat "$tmp/out"))"
grep -q '^cpu39 ' "$tmp/c40.txt" || fail "no lane for cpu39"
n=$(grep -c '^cpu[0-9]* ' "$tmp/c40.txt")
[ "$n" = 40 ] || fail "$n lanes for 40 CPUs"
grep -q '^ ptbrowse c40.data:cpu32' "$tmp/j31.txt" ||
	fail "J on cpu31: $(head -n 1 "$tmp/j31.txt"; tail -n 1 "$tmp/j31.txt")"
grep -q '^ ptbrowse c40.data:cpu39' "$tmp/j38.txt" ||
	fail "J on cpu38: $(head -n 1 "$tmp/j38.txt")"
tail -n 1 "$tmp/j39.txt" | grep -q 'no next lane' ||
	fail "J on the last lane: $(tail -n 1 "$tmp/j39.txt")"
[ $status = 0 ] && echo "ok   t_ui_lanes_many"
exit $status

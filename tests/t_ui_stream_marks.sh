#!/bin/sh
# t_ui_stream_marks -- with --no-state a stream's marks live only in
# memory: switching to another stream and back keeps them (the switch
# closed the set, and the marks file it read again never had them, so a
# user's marks were lost).  With state they come back from the file; where
# the file cannot be written, from memory again.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
P=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14
OPTS="--mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 --cpu 6/78/3"
[ -r "$P" ] || { echo "no trace $P"; exit 1; }
tmp=$(mktemp -d)
# (marks a failed save could not keep go to a file in TMPDIR at exit)
export TMPDIR="$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# $1: options; the marks list after a, hot (a region) on cpu0, a trip to
# cpu3 (with its own mark c) and back; then cpu3's list.
run() {
	cat >"$tmp/keys" <<EOF
wait-index
:streams cpu0
j
j
ma
j
v
j
j
Enter h o t Enter
:streams cpu3
mc
:streams cpu0
:marks
:save-screen $tmp/cpu0.txt
q
:streams cpu3
:marks
:save-screen $tmp/cpu3.txt
q
EOF
	rm -f "$tmp/cpu0.txt" "$tmp/cpu3.txt"
	# shellcheck disable=SC2086
	"$PTBROWSE" $1 --script "$tmp/keys" --size 100x12 $OPTS "$P" >"$tmp/out" 2>&1
	st=$?
	# (marks that could not be saved at the end: status 1, said)
	[ $st = 0 ] || { [ $st = 1 ] && grep -q "marks not saved" "$tmp/out" &&
			 [ -f "$XDG_STATE_HOME" ]; } ||
		fail "$1: exit $st ($(cat "$tmp/out"))"
}

# A state directory that cannot be made (a file in its place): every
# save fails, and the switch closed the set, its unsaved changes lost.
: >"$tmp/statefile"
for o in --no-state "" unsaved; do
	if [ "$o" = unsaved ]; then
		XDG_STATE_HOME=$tmp/statefile run ""
	else
		run "$o"
	fi
	grep -q "marks and regions: 2 " "$tmp/cpu0.txt" ||
		fail "${o:-state}: cpu0's marks lost: $(head -4 "$tmp/cpu0.txt")"
	grep -q "mark  *a " "$tmp/cpu0.txt" || fail "${o:-state}: no mark a on cpu0"
	grep -q "region  *hot " "$tmp/cpu0.txt" || fail "${o:-state}: no region hot on cpu0"
	grep -q "marks and regions: 1 " "$tmp/cpu3.txt" && grep -q "mark  *c " "$tmp/cpu3.txt" ||
		fail "${o:-state}: cpu3's mark lost: $(head -3 "$tmp/cpu3.txt")"
done
[ $status = 0 ] && echo "ok   marks of each stream kept across switches, with --no-state and unsaved too"
exit $status

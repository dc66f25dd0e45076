#!/bin/sh
# Run every test: the cmocka binaries in $BUILD/tests and the shell tests
# tests/t_*.sh, JOBS at a time (default: the number of CPUs; every test
# uses its own temporary directory and tmux server, so they can run side
# by side).  Prints one line per test program as it ends, the last lines
# of each failed test's log, and a closing "N passed, N failed" line;
# exits non-zero if anything failed.  The slowest tests of the previous
# run start first, so the last one to end is not a long one started late.
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export PTBROWSE="$top/$BUILD/ptbrowse" SHARED="${SHARED:-$top/../shared}"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
LOG=$BUILD/test-logs
export LOG
mkdir -p "$LOG"
times=$BUILD/test-times
list=$LOG/list
: >"$list"
for t in "$BUILD"/tests/test_*; do
	case $t in *.o|*.d) continue ;; esac
	[ -x "$t" ] || continue
	n=$(basename "$t")
	printf '%s %s %s\n' "$n" "$n" "$t" >>"$list"
done
for t in tests/t_*.sh; do
	[ -f "$t" ] || continue
	n=$(basename "$t" .sh)
	printf '%s %s sh %s\n' "$n" "$n" "$t" >>"$list"
done
rm -f "$LOG"/*.st
# Order: the previous run's seconds, longest first; a test with no record
# (a new one, or the first run) counts as long.
awk -v times="$times" '
	BEGIN { while ((getline l < times) > 0) { split(l, f, " "); s[f[1]] = f[2] } }
	{ k = ($1 in s) ? s[$1] : 1000; $1 = ""; print k "\t" substr($0, 2) }
' "$list" | sort -s -t "$(printf '\t')" -k1,1nr | cut -f2 |
	xargs -P "$JOBS" -L 1 sh tests/run1.sh
pass=0 fail=0 failed=
: >"$times.new"
while read -r n rest; do
	st=FAIL secs=0
	[ -f "$LOG/$n.st" ] && read -r st secs <"$LOG/$n.st"
	echo "$n $secs" >>"$times.new"
	if [ "$st" = ok ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed="$failed $n"
		echo "--- $n (last lines of $LOG/$n.log):"
		tail -n 30 "$LOG/$n.log"
	fi
done <"$list"
mv "$times.new" "$times"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

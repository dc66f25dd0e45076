#!/bin/sh
# Run every test: the cmocka binaries in $BUILD/tests and the shell tests
# tests/t_*.sh.  Prints one line per test program and a closing
# "N passed, N failed" line; exits non-zero if anything failed.
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export PTBROWSE="$top/$BUILD/ptbrowse" SHARED="${SHARED:-$top/../shared}"
pass=0 fail=0 failed=
log=$BUILD/test-logs
mkdir -p "$log"
run() {
	name=$1; shift
	start=$(date +%s)
	if "$@" >"$log/$name.log" 2>&1; then
		pass=$((pass + 1)); st=ok
	else
		fail=$((fail + 1)); st=FAIL; failed="$failed $name"
	fi
	printf '%-40s %s (%ss)\n' "$name" "$st" $(( $(date +%s) - start ))
	[ $st = FAIL ] && tail -n 30 "$log/$name.log"
}
for t in "$BUILD"/tests/test_*; do
	case $t in *.o|*.d) continue ;; esac
	[ -x "$t" ] || continue
	run "$(basename "$t")" "$t"
done
for t in tests/t_*.sh; do
	[ -f "$t" ] || continue
	run "$(basename "$t" .sh)" sh "$t"
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

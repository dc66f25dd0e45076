#!/bin/sh
# Run every benchmark bench/b_*.sh in turn; each prints a titled block.
# Invoked by `make bench` with BUILD set.  Figures are measured in the same
# run as their baselines, so only the ratios carry across machines.
# Exits non-zero if any benchmark failed.
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
case $BUILD in
/*) PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse} ;;
*) PTBROWSE=${PTBROWSE:-$top/$BUILD/ptbrowse} ;;
esac
export PTBROWSE SHARED="${SHARED:-$top/../shared}"
failed=
for b in bench/b_*.sh; do
	[ -f "$b" ] || continue
	name=$(basename "$b" .sh)
	echo "== ${name#b_} =="
	if ! sh "$b"; then
		failed="$failed $name"
		echo "($name failed)"
	fi
	echo
done
if [ -n "$failed" ]; then
	echo "failed:$failed"
	exit 1
fi

#!/bin/sh
# The time model over generated traces (tools/ptgen): the estimated TSC and
# the cycle count never decrease, and resuming from the state carried at
# every PSB gives the same stamps (tools/tmcheck checks both).  One clean
# trace, one with frequent overflows and flipped bytes (TM_GEN_SIZE, 24 MiB
# by default), and a bigger clean one (TM_GEN_BIG).
set -u
: "${BUILD:=build}"
gen=$BUILD/tools/ptgen check=$BUILD/tools/tmcheck
size=${TM_GEN_SIZE:-24MiB}
for x in "$gen" "$check"; do
	[ -x "$x" ] || { echo "missing $x (make $x)"; exit 1; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
cfg=$("$gen" --print-config) || exit 1

run() {
	name=$1; shift
	"$gen" "$@" --size "$size" -o "$tmp/t.pt" || { echo "FAIL $name: ptgen"; fail=1; return; }
	# shellcheck disable=SC2086
	if "$check" $cfg "$tmp/t.pt" >"$tmp/out" 2>&1 &&
	   grep -q "monotonic, PSB carry exact" "$tmp/out"; then
		echo "ok   $name: $(head -n 1 "$tmp/out")"
	else
		echo "FAIL $name"; cat "$tmp/out"; fail=1
	fi
}
run clean --seed 3
run damaged --seed 4 --ovf-rate 0.001 --corrupt-rate 0.000001
run thresholds --seed 6 --cyc-thresh 4 --exstop-rate 0.002 --ovf-rate 0.0005
run no-mtc --seed 7 --no-mtc --cyc-thresh 2
# And a bigger one: 256 MiB in `make test` (which must stay well under ten
# minutes on two cores); `make bench` runs this test with TM_GEN_BIG=4GiB
# (bench/b_tm_big.sh: "time is monotonic over generated multi-GiB
# traces").  TM_GEN_BIG=0 skips it.
big=${TM_GEN_BIG:-256MiB}
if [ "$big" != 0 ]; then
	size=$big
	run "clean $big" --seed 5
fi
exit $fail

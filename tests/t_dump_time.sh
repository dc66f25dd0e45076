#!/bin/sh
# Conformance: `ptbrowse dump --lastip --exec-mode --time <timing options> X`
# equals libipt ptdump's output (expected/X.time.ptdump.gz), and `--tcal`
# the .tcal files, for every trace that has one.  The timing options per
# trace are those of ../shared/traces/README.md.  White space is normalised
# only as a reported fallback.  No deliberate differences: `--time` and
# `--tcal` reproduce libipt's estimate, backward steps included (our own
# monotonic model is `--cycles`, tested in test_tm).
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
fail=0 n=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

quipper="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
dynamorio="--mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"

for exp in "$SHARED"/traces/expected/*.time.ptdump.gz \
	   "$SHARED"/traces/expected/*.tcal.ptdump.gz; do
	[ -f "$exp" ] || continue
	base=$(basename "$exp" .ptdump.gz)
	mode=${base##*.}
	name=${base%.*}
	trace=$(find "$SHARED/traces" -name "$name" -type f | head -n 1)
	if [ -z "$trace" ]; then
		echo "missing trace for $exp"; fail=1; continue
	fi
	case $trace in
	*/quipper-perf-intel-pt/*) opts=$quipper ;;
	*/dynamorio-drpt2trace/hist_2aad718d*) opts="--cpu 6/85/7 $dynamorio" ;;
	*/dynamorio-drpt2trace/*) opts="--cpu 6/85/4 $dynamorio" ;;
	*) echo "no timing configuration known for $trace"; fail=1; continue ;;
	esac
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$PTBROWSE" dump --lastip --exec-mode "--$mode" $opts "$trace" \
		>"$tmp/our" 2>"$tmp/err" || {
		echo "FAIL $name --$mode: dump exited non-zero: $(cat "$tmp/err")"
		fail=1; continue; }
	gzip -dc "$exp" >"$tmp/exp"
	if cmp -s "$tmp/our" "$tmp/exp"; then
		echo "ok   $name --$mode ($(wc -l <"$tmp/exp") lines, byte-exact)"
	else
		tr -s ' ' <"$tmp/our" >"$tmp/o2"
		tr -s ' ' <"$tmp/exp" >"$tmp/e2"
		if cmp -s "$tmp/o2" "$tmp/e2"; then
			echo "ok   $name --$mode (white space differs)"
		else
			echo "FAIL $name --$mode"
			diff "$tmp/e2" "$tmp/o2" | head -20
			fail=1
		fi
	fi
done
[ "$n" -gt 0 ] || { echo "no expected timing files under $SHARED/traces"; exit 1; }

# --time and --tcal exclude each other, as in ptdump.
t=$(find "$SHARED/traces" -name 'head_test_simple.raw.pt.bin' -type f | head -n 1)
if "$PTBROWSE" dump --time --tcal "$t" >/dev/null 2>"$tmp/err"; then
	echo "FAIL --time --tcal accepted"; fail=1
elif ! grep -q "either --time or --tcal" "$tmp/err"; then
	echo "FAIL --time --tcal: unclear error: $(cat "$tmp/err")"; fail=1
fi
# A bad timing value names the option.
if "$PTBROWSE" dump --time --mtc-freq x "$t" >/dev/null 2>"$tmp/err" ||
   ! grep -q -- "--mtc-freq: bad argument: x" "$tmp/err"; then
	echo "FAIL --mtc-freq x: $(cat "$tmp/err")"; fail=1
fi
# --cycles: our model's estimated TSC column (characters 15-33, fixed
# width hex) never decreases, on every trace with timing.
for trace in "$SHARED"/traces/dynamorio-drpt2trace/*.pt.bin \
	     "$SHARED"/traces/quipper-perf-intel-pt/*.pt; do
	case $trace in
	*/quipper-perf-intel-pt/*) opts=$quipper ;;
	*) opts="--cpu 6/85/4 $dynamorio" ;;
	esac
	# shellcheck disable=SC2086
	if ! "$PTBROWSE" dump --cycles $opts "$trace" >"$tmp/cyc" 2>"$tmp/err"; then
		echo "FAIL --cycles $trace: $(cat "$tmp/err")"; fail=1; continue
	fi
	if ! cut -c15-33 "$tmp/cyc" | awk 'NR > 1 && ($0 "") < prev { bad = 1 }
	    { prev = $0 "" } END { exit bad }'; then
		echo "FAIL --cycles $trace: the estimated TSC went backwards"
		fail=1
	else
		echo "ok   --cycles $(basename "$trace"): monotonic"
	fi
done
exit $fail

#!/bin/sh
# The time model against a reference written from the SDM alone
# (tests/tm_ref.py, not decoder/tm.c), on generated traces of every kind
# (cycle thresholds, OVFs, EXSTOP inside execution, PWRE..PWRX sleeps, CBR
# changes, TSCs without a TMA, no MTCs, MTCFreq 0 and 9) and on the shared real
# traces; and `dump --cycles TRACE:FROM` equals the rows of the whole
# decode from FROM on, for windows at PSBs spread over each trace.
set -u
: "${BUILD:=build}"
: "${PTBROWSE:=$BUILD/ptbrowse}"
: "${SHARED:=../shared}"
gen=$BUILD/tools/ptgen
command -v python3 >/dev/null || { echo "python3 is missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
here=$(dirname "$0")

# check NAME SKL168 MTCFREQ NOM EAX EBX TRACE TIMING...
check() {
	name=$1 skl=$2 mf=$3 nom=$4 eax=$5 ebx=$6 trace=$7
	shift 7
	if ! "$PTBROWSE" dump --cycles "$@" "$trace" >"$tmp/full" 2>"$tmp/err"; then
		echo "FAIL $name: dump: $(head -n 3 "$tmp/err")"; fail=1; return
	fi
	s=
	[ "$skl" = 1 ] && s=--skl168
	# shellcheck disable=SC2086
	if python3 "$here/tm_ref.py" --mtc-freq "$mf" --nom-freq "$nom" \
		--eax "$eax" --ebx "$ebx" $s "$tmp/full" >"$tmp/ref"; then
		echo "ok   $name: $(head -n 1 "$tmp/ref")"
	else
		echo "FAIL $name:"; head -n 8 "$tmp/ref"; fail=1
	fi
	# Windows at six PSBs spread over the trace (not the first).
	grep -E ' psb *$' "$tmp/full" | awk '{ o[NR] = $(NF - 1) }
		END { for (i = 1; i <= 6; i++) { k = int(i * NR / 7) + 1
			if (k > 1 && k <= NR && !seen[k]++) print o[k] } }' >"$tmp/psbs"
	nw=0
	while read -r off; do
		nw=$((nw + 1))
		"$PTBROWSE" dump --cycles "$@" "$trace:0x$off" >"$tmp/win" 2>&1
		n=$(wc -l <"$tmp/win")
		if ! tail -n "$n" "$tmp/full" | cmp -s - "$tmp/win"; then
			echo "FAIL $name: dump --cycles from 0x$off differs from the whole decode:"
			tail -n "$n" "$tmp/full" | diff - "$tmp/win" | head -n 6
			fail=1
			return
		fi
	done <"$tmp/psbs"
	echo "ok   $name: $nw windows equal the whole decode"
}

cfg="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
# 256 KiB: 64 PSBs and thousands of MTC periods a kind, in seconds; a quarter
# of that under the sanitizers, which are several times slower.
case $BUILD in *san*) size=${TM_REF_SIZE:-64KiB} ;; *) size=${TM_REF_SIZE:-256KiB} ;; esac
i=0
for k in "" "--cyc-thresh 1" "--cyc-thresh 3" "--cyc-thresh 4 --ovf-rate 0.001" \
	 "--cyc-thresh 7" "--exstop-rate 0.002" "--exstop-rate 0.01 --cyc-thresh 2" \
	 "--no-mtc" "--no-cyc" "--ovf-rate 0.002"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$gen" --seed $((40 + i)) --size "$size" $k -o "$tmp/g.pt" ||
		{ echo "FAIL ptgen $k"; fail=1; continue; }
	# shellcheck disable=SC2086
	check "ptgen ${k:-(defaults)}" 1 3 12 2 100 "$tmp/g.pt" $cfg
done
"$gen" --seed 9 --size "$size" --mtc-freq 0 -o "$tmp/g.pt" || fail=1
check "ptgen --mtc-freq 0" 1 0 12 2 100 "$tmp/g.pt" \
	--cpu 6/78/3 --mtc-freq 0 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100

# MTCFreq 9: payloads are CTC[16:9], one MTC follows the last modulo 2^17
# (seed 5 sleeps across more than 2^16 CTC ticks in the first 256 KiB).
"$gen" --seed 5 --size "$size" --mtc-freq 9 -o "$tmp/g.pt" || fail=1
check "ptgen --mtc-freq 9" 1 9 12 2 100 "$tmp/g.pt" \
	--cpu 6/78/3 --mtc-freq 9 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100

dr="--mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
for f in "$SHARED"/traces/dynamorio-drpt2trace/*.bin; do
	[ -f "$f" ] || continue
	cpu=6/85/4
	case $f in *hist_2aad718d*) cpu=6/85/7 ;; esac
	# shellcheck disable=SC2086
	check "$(basename "$f")" 0 3 37 2 308 "$f" --cpu $cpu $dr
done
for f in "$SHARED"/traces/quipper-perf-intel-pt/*.pt; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC2086
	check "$(basename "$f")" 1 3 12 2 100 "$f" $cfg
done
exit $fail

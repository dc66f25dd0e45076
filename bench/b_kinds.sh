#!/bin/sh
# The index's speed on generated traces of several kinds (issue 18: "on
# every kind"): ptgen's defaults, without CYC (not cycle-accurate), a
# TIP-heavy and a TNT-heavy packet mix.  For each, bench_index's phase 1+2
# (no time) and phase 1+2+3 (with the time pass) as ratios to libipt's
# pt_pkt_next loop over the same file in the same run; goals >= 10x and
# >= 5x.  BENCH_KINDS_SIZE (default 1GiB; 4GiB for the issue's second
# size) sets the size; traces are kept in $BUILD/bench-data/.  The same
# ratios per CPU-second follow (bench_index's cpu lines: all threads' user
# and system time), which a machine shared with other work stretches far
# less than the wall clock; both cores at full use would double them.
BUILD=${BUILD:-build}
size=${BENCH_KINDS_SIZE:-1GiB}
ptgen=$BUILD/tools/ptgen
bench=$BUILD/bench/bench_index
data=$BUILD/bench-data
for f in "$ptgen" "$bench"; do
	[ -x "$f" ] || { echo "b_kinds: $f is missing (make BUILD=$BUILD)" >&2; exit 1; }
done
# `make all` does not relink the benches: an old one measures old code
if [ "$bench" -ot "$BUILD/libptdec.a" ]; then
	echo "b_kinds: $bench is older than $BUILD/libptdec.a (make BUILD=$BUILD $bench)" >&2
	exit 1
fi
mkdir -p "$data" || exit 1
printf '%-10s %10s %10s %10s   %-26s %s\n' kind "1+2 GB/s" "1+2+3" libipt \
	"ratios (goals 10x, 5x)" "per CPU-second 1+2, 1+2+3"
for kind in default no-cyc tip tnt; do
	case $kind in
	default) opt= ;;
	no-cyc) opt=--no-cyc ;;
	*) opt="--mix $kind" ;;
	esac
	trace=$data/ptgen-$kind-$size.pt
	if [ ! -f "$trace" ] || [ -n "$(find "$ptgen" -newer "$trace")" ]; then
		# shellcheck disable=SC2086
		"$ptgen" --seed 1 $opt --size "$size" -o "$trace.tmp" >/dev/null &&
			mv "$trace.tmp" "$trace" || { rm -f "$trace.tmp"; exit 1; }
		rm -f "$trace.tmp.options"
	fi
	cat "$trace" >/dev/null
	# shellcheck disable=SC2046,SC2086
	"$bench" --repeat 1 $("$ptgen" $opt --print-config) "$trace" |
		awk -v k="$kind" '
		/^result phase12_gbps/ { a = $3 } /^result phase123_gbps/ { b = $3 }
		/^result libipt_gbps/ { l = $3 }
		/^cpu .*phase 1\+2 \/ libipt per CPU-second/ { c = $8 }
		/^cpu .*phase 1\+2\+3 .* per CPU-second/ { d = $10 }
		END { if (!l) exit 1
			sub(/;$/, "", c); sub(/;$/, "", d)
			printf "%-10s %10.3f %10.3f %10.3f   %5.1fx %-5s  %5.1fx %-5s   %6s %6s\n", k, a, b, l,
				a / l, (a / l >= 10 ? "ok" : "UNDER"), b / l, (b / l >= 5 ? "ok" : "UNDER"), c, d }' ||
		{ echo "b_kinds: bench_index failed on $kind" >&2; exit 1; }
done

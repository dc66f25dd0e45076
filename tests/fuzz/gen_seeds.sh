#!/bin/sh
# gen_seeds.sh BUILD DIR: small inputs for every fuzz target and for the
# replay in t_fuzz_regress: generated traces of each kind (CYC or not,
# OVFs, corruption, cut short, PSBs close together) and perf.data files
# wrapping one (tiny AUXTRACE records, a hole, sideband), each well under
# the fuzzers' -max_len.  Made once; remade when the tools change.
set -u
build=$1
dir=$2
ptgen=$build/tools/ptgen
pt2perf=$build/tools/pt2perf
for f in "$ptgen" "$pt2perf"; do
	[ -x "$f" ] || { echo "gen_seeds: $f is missing (make all)" >&2; exit 1; }
done
if [ -f "$dir/.done" ] && [ -z "$(find "$ptgen" "$pt2perf" -newer "$dir/.done")" ]; then
	exit 0
fi
mkdir -p "$dir" || exit 1
i=0
for opts in "" "--no-cyc" "--ovf-rate 0.01" "--corrupt-rate 0.001" "--truncate" \
	    "--psb-period 256" "--mtc-freq 0 --psb-period 1024"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$ptgen" --seed $i --size 12KiB $opts -o "$dir/gen$i.pt" >/dev/null || exit 1
done
"$pt2perf" --chunk 37 "$dir/gen1.pt" -o "$dir/gen1-c37.perf" || exit 1
"$pt2perf" --chunk 1000 --hole 5000:700 "$dir/gen3.pt" -o "$dir/gen3-hole.perf" || exit 1
"$pt2perf" --chunk 4000 --switches 20 --lost-at 9000 "$dir/gen2.pt" -o "$dir/gen2-sb.perf" || exit 1
touch "$dir/.done"

#!/bin/sh
# gen_seeds.sh BUILD DIR: small inputs for every fuzz target and for the
# replay in t_fuzz_regress: generated traces of each kind (CYC or not,
# OVFs, corruption, cut short, PSBs close together) and perf.data files
# wrapping one (tiny AUXTRACE records, a hole, sideband), each well under
# the fuzzers' -max_len.  Made once; remade when the tools or this script
# change.
# DIR-idxcache gets the index cache target's inputs (its own format),
# DIR-tskim the time pass target's (a configuration byte, then a trace),
# DIR-iter the iterations target's (that byte, a predicate's, a trace),
# DIR-stall the stalls target's (the same: the second byte is a count).
set -u
build=$1
dir=$2
ptgen=$build/tools/ptgen
pt2perf=$build/tools/pt2perf
ptbrowse=$build/ptbrowse
for f in "$ptgen" "$pt2perf" "$ptbrowse"; do
	[ -x "$f" ] || { echo "gen_seeds: $f is missing (make all)" >&2; exit 1; }
done
if [ -f "$dir/.done" ] && [ -d "$dir-idxcache" ] && [ -d "$dir-tskim" ] && [ -d "$dir-iter" ] && [ -d "$dir-stall" ] && [ -z "$(find "$ptgen" "$pt2perf" "$ptbrowse" "$0" -newer "$dir/.done")" ]; then
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

# fuzz_idxcache's input: a 2-byte little-endian length L, L trace bytes,
# and an index blob of the current format (a cache file's body, after its
# header), so the fuzzer starts past the format checks: the index of a
# whole trace, and that of its first 8 KiB with the whole trace (grown).
idir=$dir-idxcache
cache=$(cd "$dir" && pwd)/.cache	# XDG wants it absolute
rm -rf "$idir" "$cache"
mkdir -p "$idir" || exit 1
le16() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8)))"
}
blob() {	# blob TRACE OUT: the index blob of TRACE (with the time pass)
	rm -rf "$cache"
	XDG_CACHE_HOME=$cache "$ptbrowse" index --time "$1" >/dev/null || return 1
	set -- "$(find "$cache" -type f -name '*.idx' | head -n 1)" "$2"
	[ -f "$1" ] || { echo "gen_seeds: no cache file for $1" >&2; return 1; }
	hs=$(od -An -tu4 -j12 -N4 "$1" | tr -d ' ')
	tail -c +$((hs + 1)) "$1" >"$2"
}
for s in 1 3 4 6; do
	t=$dir/gen$s.pt
	n=$(wc -c <"$t")
	blob "$t" "$dir/.blob" || exit 1
	{ le16 "$n"; cat "$t" "$dir/.blob"; } >"$idir/gen$s" || exit 1
	head -c 8192 "$t" >"$dir/.head.pt"
	blob "$dir/.head.pt" "$dir/.blob" || exit 1
	{ le16 "$n"; cat "$t" "$dir/.blob"; } >"$idir/gen$s-grown" || exit 1
done
rm -rf "$cache" "$dir/.blob" "$dir/.head.pt"

# fuzz_tskim's input: a byte choosing the timing configuration (1:
# ptgen's), then a trace long enough for the time pass's sparse and dense
# loops (they learn which after 4 KiB, and size 128-byte blocks).
tdir=$dir-tskim
rm -rf "$tdir"
mkdir -p "$tdir" || exit 1
i=0
# The configuration byte's bits 7..3 size the parallel build's units
# (64 bytes times one more): 1, 2, 5 and 17 such.  PSBs 512 bytes to 4 KiB
# apart, so carry points (every 16 segments) fall inside units.
for opts in "--mix tip" "--mix tip --cyc-thresh 3 --psb-period 512" \
	    "--mix tip --no-cyc --psb-period 1024" "--mix tnt --psb-period 512" \
	    "--psb-period 768" "--mix tip --psb-period 1024" \
	    "--mix tip --exstop-rate 0.01 --psb-period 512" \
	    "--mix tip --corrupt-rate 0.0005 --psb-period 640"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$ptgen" --seed $((i + 20)) --size 48KiB $opts -o "$tdir/.t.pt" >/dev/null || exit 1
	case $((i % 4)) in 0) c=001 ;; 1) c=011 ;; 2) c=041 ;; *) c=201 ;; esac
	{ printf "\\$c"; cat "$tdir/.t.pt"; } >"$tdir/gen$i" || exit 1
done
rm -f "$tdir/.t.pt" "$tdir/.t.pt.options"

# fuzz_iter's: ptgen's configuration (byte 3) or none (2), a predicate
# (fuzz_iter.c's exprs[], by the second byte's value modulo their number;
# bit 7: few boundaries kept), traces with OVFs, sleeps and PSBs close.
idir2=$dir-iter
rm -rf "$idir2"
mkdir -p "$idir2" || exit 1
i=0
for opts in "--mix tip --psb-period 256" "--ovf-rate 0.01 --psb-period 384" \
	    "--exstop-rate 0.01 --psb-period 256" "--psb-period 512" \
	    "--no-cyc --psb-period 320" "--mix tip --cyc-thresh 3" \
	    "--mix tnt --corrupt-rate 0.0005 --psb-period 256" ""; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$ptgen" --seed $((i + 40)) --size 16KiB $opts -o "$idir2/.t.pt" >/dev/null || exit 1
	# (a predicate, another, and one with bit 7: 1 + (byte >> 4 & 7)
	# boundaries kept, here 4; as counts for the stalls target, 16
	# apart modulo 16 would repeat, so the third is 3 on)
	for e in $((i - 1)) $((i + 7)) $((i + 0xb2)); do
		{ printf "\\$(printf %03o $((2 + i % 2)))\\$(printf %03o $e)"
		  cat "$idir2/.t.pt"; } >"$idir2/gen$i-$e" || exit 1
	done
done
rm -f "$idir2/.t.pt" "$idir2/.t.pt.options"
rm -rf "$dir-stall" && cp -r "$idir2" "$dir-stall" || exit 1
touch "$dir/.done"

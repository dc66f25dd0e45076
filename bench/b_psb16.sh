#!/bin/sh
# Adversarial indexing: a file of PSBs 16 bytes apart (one PSB per 16
# bytes, the densest possible), indexed by `ptbrowse index --no-cache` at
# BENCH_PSB16_SIZE (default 1 GiB) and at a quarter and a half of it.
# Linear work keeps the seconds per GiB (and the peak RSS per PSB) flat
# across the three sizes; the last lines give the ratios.  Files are kept
# in $BUILD/bench-data/.  Needs GNU time (/usr/bin/time) for CPU and RSS.
BUILD=${BUILD:-build}
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
mib=${BENCH_PSB16_MIB:-1024}
data=$BUILD/bench-data
TIME=/usr/bin/time

if ! [ -x $TIME ]; then
	echo "b_psb16: no /usr/bin/time" >&2
	exit 1
fi
mkdir -p "$data" || exit 1

# psb16 FILE MIB: FILE of MIB MiB of PSBs, built by doubling.
psb16() {
	[ -f "$1" ] && [ "$(wc -c <"$1")" -eq $(($2 * 1048576)) ] && return 0
	printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202' >"$1.tmp"
	while [ "$(wc -c <"$1.tmp")" -lt $(($2 * 1048576)) ]; do
		cat "$1.tmp" "$1.tmp" >"$1.tmp2" && mv "$1.tmp2" "$1.tmp" || return 1
	done
	mv "$1.tmp" "$1"
}

printf '%-10s %10s %9s %9s %10s %12s %10s\n' size psbs wall_s cpu_s "s/GiB" peak_rss_mib "B/psb"
for m in $((mib / 4)) $((mib / 2)) $mib; do
	f=$data/psb16-${m}MiB.pt
	psb16 "$f" $m || exit 1
	$TIME -f '%e %U %S %M' -o "$data/psb16.time" "$ptbrowse" index --no-cache --json "$f" \
		>"$data/psb16.json" 2>/dev/null </dev/null || { echo "b_psb16: index failed on $f" >&2; exit 1; }
	n=$(sed -n 's/.*"psbs": *\([0-9]*\).*/\1/p' "$data/psb16.json" | head -n 1)
	read wall u s rss <"$data/psb16.time"
	awk -v m=$m -v n=$n -v w=$wall -v u=$u -v s=$s -v r=$rss 'BEGIN {
		printf "%-10s %10d %9.2f %9.2f %10.2f %12.1f %10.1f\n", m "MiB", n, w, u + s,
			w / (m / 1024), r / 1024, r * 1024 / n
		printf "result psb16-%dMiB-wall-s %.2f\nresult psb16-%dMiB-rss-mib %.1f\n", m, w, m, r / 1024
	}'
	echo "$m $wall $rss $u $s" >>"$data/psb16.rows"
done
awk 'NR == 1 { m0 = $1; w0 = $2; r0 = $3; c0 = $4 + $5 } END {
	printf "wall x%.2f, CPU x%.2f and RSS x%.2f for x%d the bytes (linear: x%d)\n",
		$2 / w0, ($4 + $5) / c0, $3 / r0, $1 / m0, $1 / m0
}' "$data/psb16.rows"
rm -f "$data/psb16.rows" "$data/psb16.time" "$data/psb16.json"

#!/bin/sh
# Browsing a perf.data stream against browsing the same bytes as a raw file
# (issue 8: "as fast").  A generated trace (default 1GiB,
# BENCH_PERF_SIZE) is wrapped by tools/pt2perf into a pipe-mode perf.data
# file of AUXTRACE records (BENCH_PERF_CHUNK bytes each, default 512KiB:
# every packet cut by a record boundary is stitched), then the same keys
# run headless on both: first screen, index, page down, PSB jumps, percent
# jumps, end and back, zoom, jumps to a time.  Each figure is printed as
# perf.data over raw, measured in the same run.
BUILD=${BUILD:-build}
size=${BENCH_PERF_SIZE:-1GiB}
chunk=${BENCH_PERF_CHUNK:-524288}
ptgen=$BUILD/tools/ptgen
pt2perf=$BUILD/tools/pt2perf
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
data=$BUILD/bench-data
raw=$data/ptgen-seed1-$size.pt
perf=$data/ptgen-seed1-$size-chunk$chunk.perf

for f in "$ptgen" "$pt2perf" "$ptbrowse"; do
	if [ ! -x "$f" ]; then
		echo "b_perf: $f is missing (make BUILD=$BUILD)" >&2
		exit 1
	fi
done
mkdir -p "$data" || exit 1
if [ ! -f "$raw" ]; then
	echo "generating $raw ($size, seed 1)"
	"$ptgen" --seed 1 --size "$size" -o "$raw.tmp" && mv "$raw.tmp" "$raw" || exit 1
fi
if [ ! -f "$perf" ] || [ "$raw" -nt "$perf" ]; then
	echo "wrapping it into $perf"
	"$pt2perf" --chunk "$chunk" "$raw" -o "$perf.tmp" && mv "$perf.tmp" "$perf" || exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
cat "$raw" "$perf" > /dev/null

cat > "$tmp/keys" <<EOK
bench-startup
bench-index
bench-rss
bench page-down 300 Space
bench psb 200 }
bench percent 99 :goto {i}%
bench end 50 G g
bench zoom 20 z z z Z Z Z
bench time 50 :goto t {i}00ms
bench-rss
EOK
for kind in raw perf; do
	eval f=\$$kind
	"$ptbrowse" --no-state --script "$tmp/keys" --size 120x40 \
		$("$ptgen" --print-config) "$f" >"$tmp/$kind" || exit 1
	echo "-- $kind: $(basename "$f")"
	cat "$tmp/$kind"
done
# browse  NAME median X ms p99 Y ms ...; first screen; index wait
awk '
	FNR == 1 { k++ }
	/^browse  first screen/ { v[k, "first"] = $4 }
	/^browse  index wait/ { v[k, "index"] = $4 }
	/median/ { v[k, $2 "-median"] = $4; v[k, $2 "-p99"] = $7 }
	END {
		printf "perf.data over raw (1.0 = as fast; below 1.2 counts as the same):\n"
		printf "  first screen %.2fx, index %.2fx\n",
			v[2, "first"] / (v[1, "first"] + 1e-9), v[2, "index"] / (v[1, "index"] + 1e-9)
		split("page-down psb percent end zoom time", n, " ")
		for (i = 1; i <= 6; i++)
			printf "  %-10s median %.2fx, p99 %.2fx\n", n[i],
				v[2, n[i] "-median"] / (v[1, n[i] "-median"] + 1e-9),
				v[2, n[i] "-p99"] / (v[1, n[i] "-p99"] + 1e-9)
	}' "$tmp/raw" "$tmp/perf"

#!/bin/sh
# The browser on a big generated trace (default 4GiB, BENCH_BROWSE_SIZE),
# headless (--script): time to the first screen, then key-to-finished-
# screen times (median, p99) for page down, PSB jump, percent jumps, jumps
# to the end and back, timeline zoom and jumps to a time, while the index
# builds and after; RSS.  Baselines from bench_browse on the
# same file in the same run; the goals of issue 5 are printed alongside.
BUILD=${BUILD:-build}
size=${BENCH_BROWSE_SIZE:-4GiB}
ptgen=$BUILD/tools/ptgen
bench=$BUILD/bench/bench_browse
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
data=$BUILD/bench-data
trace=${BENCH_BROWSE_TRACE:-$data/ptgen-seed1-$size.pt}

for f in "$ptgen" "$bench" "$ptbrowse"; do
	if [ ! -x "$f" ]; then
		echo "b_browse: $f is missing (make BUILD=$BUILD $f)" >&2
		exit 1
	fi
done
mkdir -p "$data" || exit 1
if [ ! -f "$trace" ]; then
	echo "generating $trace ($size, seed 1)"
	"$ptgen" --seed 1 --size "$size" -o "$trace.tmp" && mv "$trace.tmp" "$trace" || exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
# warm the page cache for every reader below
cat "$trace" > /dev/null

"$bench" "$trace" > "$tmp/base" || exit 1
# The keys twice: while the index builds on both cores (the "-busy"
# figures), and once it is done; jumps to a time need the index.
cat > "$tmp/keys" <<EOK
bench-startup
bench page-down-busy 300 Space
bench psb-busy 200 }
bench percent-busy 99 :goto {i}%
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
"$ptbrowse" --no-state --script "$tmp/keys" --size 120x40 $("$ptgen" --print-config) "$trace" \
	> "$tmp/ui" || exit 1
grep -v '^result' "$tmp/base"
grep -v '^result' "$tmp/ui"
# Ratios against the baselines, and the goals.
cat "$tmp/base" "$tmp/ui" | awk '
	/^result/ { r[$2] = $3 }
	END {
		printf "first screen %.1f ms = %.0fx the open baseline (goal < 100 ms)\n",
			r["browse-first-screen-ms"],
			r["browse-first-screen-ms"] / (r["baseline-open-median-ms"] + 1e-9)
		split("page-down psb percent end zoom time", k, " ")
		for (i = 1; i <= 6; i++)
			printf "%-10s median %.1fx decode baseline, p99 %.1fx (goal: median < 10 ms, p99 < 30 ms)\n",
				k[i], r["browse-" k[i] "-median-ms"] / (r["baseline-decode-median-ms"] + 1e-9),
				r["browse-" k[i] "-p99-ms"] / (r["baseline-decode-p99-ms"] + 1e-9)
	}'

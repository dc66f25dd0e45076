#!/bin/sh
# ptbrowse index: summary, JSON, the cache, errors and exit codes.
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
trace=$SHARED/traces/dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin
fail() { echo "t_index: $*"; exit 1; }

"$PTBROWSE" index "$trace" > "$tmp/out" 2> "$tmp/err" || fail "index failed: $(cat "$tmp/err")"
grep -q '^  psbs:     2$' "$tmp/out" || fail "expected 2 PSBs: $(cat "$tmp/out")"
grep -q '^  packets:  ' "$tmp/out" || fail "no packet count"
grep -q 'index built' "$tmp/out" || fail "first run should build"
"$PTBROWSE" index --json "$trace" > "$tmp/json" || fail "index --json failed"
grep -q '"cache": "hit"' "$tmp/json" || fail "second run should hit the cache: $(cat "$tmp/json")"
if command -v python3 > /dev/null; then
	python3 -m json.tool "$tmp/json" > /dev/null || fail "not JSON: $(cat "$tmp/json")"
fi
"$PTBROWSE" index --json --no-cache "$trace" > "$tmp/json2" || fail "--no-cache failed"
grep -q '"cache": "off"' "$tmp/json2" || fail "--no-cache should not use the cache"
# The same packet counts either way.
a=$(sed 's/.*"packets": \([0-9]*\).*/\1/' "$tmp/json")
b=$(sed 's/.*"packets": \([0-9]*\).*/\1/' "$tmp/json2")
[ "$a" = "$b" ] || fail "cached $a packets, fresh $b"

# The time pass extends a cached index; the counts stay.
"$PTBROWSE" index --json --time "$trace" > "$tmp/json3" || fail "--time failed"
grep -q '"cache": "extended"' "$tmp/json3" || fail "--time should add the time pass: $(cat "$tmp/json3")"
"$PTBROWSE" index --json --time "$trace" > "$tmp/json3" || fail "--time failed"
grep -q '"cache": "hit"' "$tmp/json3" || fail "--time again should hit: $(cat "$tmp/json3")"
c=$(sed 's/.*"packets": \([0-9]*\).*/\1/' "$tmp/json3")
[ "$a" = "$c" ] || fail "with the time pass $c packets, without $a"

# perf.data: one stream per CPU.
"$PTBROWSE" index "$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14" > "$tmp/out" ||
	fail "perf.data failed"
grep -q '^stream:   cpu3' "$tmp/out" || fail "no cpu3 stream: $(cat "$tmp/out")"

# The time pass runs the time model to the end of the trace: the span goes
# past the last TSC packet (quipper's cpu0 stream has only one, in its PSB+),
# with the timing options of a raw stream given on the command line.
q=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt
"$PTBROWSE" index --no-cache "$q" | grep -q '^  tsc:      808742735848 \.\. 808742735848 (0 ticks)$' ||
	fail "without --time: $(grep tsc: "$tmp/out")"
"$PTBROWSE" index --no-cache --time --cpu 6/78/3 --mtc-freq 3 --nom-freq 12 \
	--cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 "$q" > "$tmp/out" || fail "--time with options failed"
last=$(sed -n 's/^  tsc:      808742735848 \.\. ~\([0-9]*\) .*/\1/p' "$tmp/out")
# dump --time's last MTC is at 808742861504; CYCs come after it
[ -n "$last" ] && [ "$last" -ge 808742861504 ] || fail "--time: the span ends at '$last'"
grep -q "the end is the time model's estimate)\$" "$tmp/out" ||
	fail "--time: the estimated end is not said: $(grep tsc: "$tmp/out")"
# A cached index with its time pass gives a plain index the same end,
# said to be the estimate (it was shown as a TSC packet's).
q2=$tmp/q2.pt
cp "$q" "$q2"
opts="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
"$PTBROWSE" index $opts --json "$q2" | grep -q '"last_tsc_estimated": false' ||
	fail "plain index: the end is not a TSC packet's"
"$PTBROWSE" index --time $opts "$q2" >/dev/null
"$PTBROWSE" index $opts "$q2" > "$tmp/out2"
grep -q "^  tsc:      808742735848 \.\. ~$last (.*; the end is the time model's estimate)\$" "$tmp/out2" ||
	fail "plain index after --time: $(grep tsc: "$tmp/out2")"
"$PTBROWSE" index $opts --json "$q2" | grep -q "\"last_tsc\": $last, \"last_tsc_estimated\": true" ||
	fail "plain index --json after --time: not the estimate"
"$PTBROWSE" index --mtc-freq x "$q" 2>"$tmp/err" && fail "a bad timing value was accepted"
grep -q 'ptbrowse index: --mtc-freq: bad argument: x' "$tmp/err" || fail "bad value: $(cat "$tmp/err")"

# C-c: a one-line message, exit 1, no half summary; inside one big PSB
# segment too (the builder looks for it every 256 KiB).
if [ -n "${BUILD:-}" ] && [ -x "$BUILD/tools/ptgen" ]; then
	"$BUILD/tools/ptgen" --seed 4 --size 256MiB --psb-period 1GiB -o "$tmp/one.pt" >/dev/null
	"$PTBROWSE" index --no-cache --time "$tmp/one.pt" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 0.3
	kill -INT $pid
	wait $pid
	rc=$?
	if [ $rc = 0 ]; then
		echo "t_index: note: the index finished before C-c; not checked"
	else
		[ $rc = 1 ] || fail "C-c: exit $rc"
		[ "$(cat "$tmp/err")" = "ptbrowse index: $tmp/one.pt: indexing cancelled" ] ||
			fail "C-c: stderr '$(cat "$tmp/err")'"
		[ -s "$tmp/out" ] && fail "C-c: a summary was printed: $(head -n 2 "$tmp/out")"
	fi
	rm -f "$tmp/one.pt"
fi

# No PSB at all: a usable, explained state.
head -c 100000 /dev/zero | tr '\0' '\5' > "$tmp/nopsb.bin"
"$PTBROWSE" index "$tmp/nopsb.bin" > "$tmp/out" 2> "$tmp/err" || fail "no-PSB file should open"
grep -q '^  psbs:     0$' "$tmp/out" || fail "expected 0 PSBs"
grep -q 'no PSB found' "$tmp/err" || fail "no explanation for 0 PSBs: $(cat "$tmp/err")"

# Errors: one line naming the file; exit 1.  Usage: exit 2.
"$PTBROWSE" index "$tmp/missing.pt" 2> "$tmp/err" && fail "missing file accepted"
[ "$(cat "$tmp/err")" = "ptbrowse index: $tmp/missing.pt: No such file or directory" ] ||
	fail "bad message: $(cat "$tmp/err")"
: > "$tmp/empty.pt"
"$PTBROWSE" index "$tmp/empty.pt" 2> "$tmp/err"; [ $? -eq 1 ] || fail "empty file: wrong exit"
grep -q 'empty file' "$tmp/err" || fail "bad message: $(cat "$tmp/err")"
"$PTBROWSE" index "$tmp" 2> "$tmp/err"; [ $? -eq 1 ] || fail "directory: wrong exit"
grep -q 'is a directory' "$tmp/err" || fail "bad message: $(cat "$tmp/err")"
"$PTBROWSE" index 2> /dev/null; [ $? -eq 2 ] || fail "no argument: want exit 2"
"$PTBROWSE" index --bogus "$trace" 2> /dev/null; [ $? -eq 2 ] || fail "bad option: want exit 2"
# Output lost is an error (it exited 0), said once; extract's listing too.
if [ -w /dev/full ]; then
	for j in "" --json; do
		"$PTBROWSE" index $j "$trace" > /dev/full 2> "$tmp/err"; [ $? -eq 1 ] ||
			fail "index $j > /dev/full: want exit 1 ($(cat "$tmp/err"))"
		[ "$(cat "$tmp/err")" = "ptbrowse index: write error: No space left on device" ] ||
			fail "index $j > /dev/full: '$(cat "$tmp/err")'"
	done
	"$PTBROWSE" extract "$trace" -o "$tmp/x" > /dev/full 2> "$tmp/err"; [ $? -eq 1 ] ||
		fail "extract > /dev/full: want exit 1 ($(cat "$tmp/err"))"
	[ "$(cat "$tmp/err")" = "ptbrowse extract: write error: No space left on device" ] ||
		fail "extract > /dev/full: '$(cat "$tmp/err")'"
fi
exit 0

#!/bin/sh
# t_ui_iterations -- :iterations EXPR takes a search's hits as loop iteration
# boundaries: on a cycle-accurate trace with one iteration planted 30 times
# slower than the rest, the view lists it first with its exact cycles, r
# saves it as a region, and Enter jumps to its first boundary; a gap in
# time units without a TSC frequency and an unfinished index are refused.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
command -v python3 >/dev/null || { echo "python3 is missing"; exit 1; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# A loop trace into FILE: N iterations of CYC, TIP 0x401000 (the loop
# head), TNT, CYC 3, TIP 0x402000, a PSB every EVERY iterations; iteration
# SLOW (boundaries SLOW - 1 to SLOW; 0: none) takes 3000 + 3 cycles, the
# others 103..109.
loop_trace() {
	python3 - "$@" <<'PY' || { echo "FAIL: generate"; exit 1; }
import sys
out, n, every, slow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
d = bytearray()
def psb(tsc):
    d.extend(b'\x02\x82' * 8 + b'\x19' + tsc.to_bytes(7, 'little') + b'\x02\x23')
def cyc(v):
    d.extend(bytes([v << 3 | 3]) if v < 32 else bytes([(v & 31) << 3 | 7, ((v >> 5) & 0x7f) << 1]))
def tip(ip):
    d.extend(b'\x6d' + ip.to_bytes(6, 'little'))
psb(0x1000)
for k in range(n + 1):
    if k and k % every == 0:
        psb(0x1000 + k * 400)
    cyc(3000 if slow and k == slow else 100 + k % 7)
    tip(0x401000)
    d.append(6)
    cyc(3)
    tip(0x402000)
open(out, 'wb').write(d)
PY
}

# 300 iterations, a PSB every 50; iteration 222 is the slow one.
loop_trace "$tmp/loop.pt" 300 50 222
start=$(LC_ALL=C "$PTBROWSE" dump "$tmp/loop.pt" | awk '$2 == "tip" && /401000/ { n++; if (n == 222) print $1 }')
cat > "$tmp/keys" <<KEYS
wait-index
:iterations gap > 1us
:save-screen $tmp/nocal.txt
:iterations tip 0x401000
wait-iterations
:save-screen $tmp/it.txt
r
:save-screen $tmp/region.txt
Enter
:save-screen $tmp/jump.txt
q
KEYS
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --script "$tmp/keys" --size 100x24 \
	"$tmp/loop.pt" > "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
if [ ! -f "$tmp/it.txt" ]; then
	fail "no iterations screen ($(cat "$tmp/out"))"
else
	grep -q "300 measured, 0 broken, in cycles, exact" "$tmp/it.txt" ||
		fail "title: $(sed -n 1p "$tmp/it.txt")"
	grep -q "p50 10[3-9] cyc .* max 3003 cyc" "$tmp/it.txt" ||
		fail "stats: $(sed -n 2p "$tmp/it.txt")"
	s=$(printf '0x%08x' "0x$start")
	grep '^ *1  ' "$tmp/it.txt" | grep -q "3003 cyc *#222 *$s-" ||
		fail "the slowest is not iteration 222 at $s: $(grep '^ *1  ' "$tmp/it.txt")"
	grep -q "region iter-222" "$tmp/region.txt" || fail "r: $(tail -1 "$tmp/region.txt")"
	grep "^>" "$tmp/jump.txt" | grep -q "$s " ||
		fail "Enter did not jump to $s: $(grep '^>' "$tmp/jump.txt")"
fi
tail -n 1 "$tmp/nocal.txt" | grep -q "iterations: a gap in time units needs the TSC" ||
	fail "gap in time without a frequency: $(tail -n 1 "$tmp/nocal.txt")"
# An index that is still building is refused, not waited for.
printf ':iterations tip\n:save-screen %s/early.txt\nq\n' "$tmp" > "$tmp/keys2"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --no-index --script "$tmp/keys2" \
	--size 100x24 "$tmp/loop.pt" > "$tmp/out2" 2>&1 || fail "exit status $? (no index)"
grep -q "iterations: the index is not complete" "$tmp/early.txt" 2>/dev/null ||
	fail "no index: $(tail -1 "$tmp/early.txt" 2>/dev/null)"
[ $status = 0 ] && echo "ok   :iterations finds the planted slow iteration first, exact in cycles"

# While the walk runs, the view shows the part walked so far, marked
# partial ("partial: N% of the trace", statistics marked with a tilde or
# its UTF-8 form), then the result.  A walk of this small trace ends at
# once, so PTBROWSE_ITER_PACE_MS (a test-only knob: iter_opts.pace_ms)
# has each worker wait 700 ms after each unit: of the trace's 6 units
# (81 segments, 16 a unit), 2 workers walk 2 and wait while the script
# saves the first picture (with 6 or more workers, all 6, still partial
# until they have waited).  Enter on its list jumps and leaves the walk
# going; :iterations shows it again, and its result.  Enter again just
# after the view asked for a new picture (the one shown is older than a
# tenth of a second: a pipe to sleep waits): the picture is never taken,
# and once the walk has ended the loop must not stay busy (it woke every
# 40 ms for good): bench's "first picture" line is printed only while
# iterations_busy() says so.  No clock is asserted: the knob only makes
# the walk last, the sleeps are longer than it.  400 iterations, a PSB
# every 5, none slow.
loop_trace "$tmp/many.pt" 400 5 0
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$ncpu" -ge 1 ] 2>/dev/null || ncpu=1
walked=$(( (6 + ncpu - 1) / ncpu * 7 + 8 ))	# tenths of a second
cat > "$tmp/keys4" <<KEYS
wait-index
:iterations tip 0x401000
wait-iterations-partial
:save-screen $tmp/partial.txt
Enter
:iterations
:save-screen $tmp/reopen.txt
:pipe rows 1 -- sleep 0.2
Enter
:pipe rows 1 -- sleep $((walked / 10)).$((walked % 10))
bench idle 1 :goto 0
:iterations
wait-iterations
:save-screen $tmp/final.txt
q
KEYS
PTBROWSE_ITER_PACE_MS=700 LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state \
	--script "$tmp/keys4" --size 100x24 "$tmp/many.pt" > "$tmp/out4" 2>&1 ||
	fail "exit status $? (partial: $(cat "$tmp/out4"))"
head -n 1 "$tmp/partial.txt" 2>/dev/null |
	grep -q "iterations of 'tip 0x401000': partial: [0-9.]*% of the trace, [0-9]* iterations so far" ||
	fail "partial title: $(head -n 1 "$tmp/partial.txt" 2>/dev/null)"
sed -n 2p "$tmp/partial.txt" 2>/dev/null | grep -q "^ ≈ p50 .*(so far)" ||
	fail "partial statistics: $(sed -n 2p "$tmp/partial.txt" 2>/dev/null)"
grep -q "#- " "$tmp/partial.txt" 2>/dev/null || fail "partial list: numbered"
head -n 1 "$tmp/reopen.txt" 2>/dev/null | grep -q "iterations of 'tip 0x401000': partial: " ||
	fail "reopened after Enter: $(head -n 1 "$tmp/reopen.txt" 2>/dev/null)"
grep -q "first picture" "$tmp/out4" &&
	fail "busy after the walk ended, the view closed with a picture asked for"
grep -q "browse  idle .*median" "$tmp/out4" || fail "no bench line: $(cat "$tmp/out4")"
head -n 1 "$tmp/final.txt" 2>/dev/null | grep -q "400 measured, 0 broken, in cycles, exact" ||
	fail "final title: $(head -n 1 "$tmp/final.txt" 2>/dev/null)"
sed -n 2p "$tmp/final.txt" 2>/dev/null | grep -q "^ p50 10[3-9] cyc" ||
	fail "final statistics: $(sed -n 2p "$tmp/final.txt" 2>/dev/null)"
[ $status = 0 ] && echo "ok   :iterations shows a partial picture while it walks, then the result"

# No TSC in the trace (PSB+ without one) and a TNT before each boundary
# (bounded cycles: durations in time): the model counts time from 0, so
# every iteration is left out of a measure in time and counted, and the
# title says there is no time (each was measured at 0 ns).
python3 - "$tmp/notsc.pt" <<'PY' || fail "generate notsc"
import sys
d = bytearray(b'\x02\x82' * 8 + b'\x02\x23')
for k in range(10):
    d.extend(bytes([(50 + k) << 3 | 3]) if 50 + k < 32 else bytes([((50 + k) & 31) << 3 | 7, ((50 + k) >> 5) << 1]))
    d.append(6)
    d.extend(b'\x6d' + (0x401000).to_bytes(6, 'little'))
open(sys.argv[1], 'wb').write(d)
PY
printf 'wait-index\n:iterations tip 0x401000\nwait-iterations\n:save-screen %s/notsc.txt\nq\n' \
	"$tmp" > "$tmp/keys5"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys5" --size 100x24 \
	"$tmp/notsc.pt" > "$tmp/out5" 2>&1 || fail "exit status $? (no TSC)"
head -n 1 "$tmp/notsc.txt" 2>/dev/null |
	grep -q "0 measured, 0 broken, 9 left out (no TSC), no time" ||
	fail "no TSC, title: $(head -n 1 "$tmp/notsc.txt" 2>/dev/null)"
sed -n 2p "$tmp/notsc.txt" 2>/dev/null | grep -q "^ no time: " ||
	fail "no TSC, body: $(sed -n 2p "$tmp/notsc.txt" 2>/dev/null)"
[ $status = 0 ] && echo "ok   :iterations without a TSC: left out, no time"

# In time the title says what the durations are: the time model's
# estimates between packets that carry no time of their own (PSBs), exact
# between TSCs the estimate was not ahead of (as a region's duration
# between them is), the estimates marked in the list.
if "$BUILD/tools/ptgen" -S 1MiB -s 5 -o "$tmp/gen.pt" >/dev/null 2>&1; then
	printf 'wait-index\n:iterations psb\nwait-iterations\n:save-screen %s/est.txt\n:iterations tsc\nwait-iterations\n:save-screen %s/exact.txt\nq\n' \
		"$tmp" "$tmp" > "$tmp/keys7"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys7" \
		--size 120x24 "$tmp/gen.pt" > "$tmp/out7" 2>&1 || fail "exit status $? (exact)"
	head -n 1 "$tmp/est.txt" 2>/dev/null | grep -q "measured, .*, in time, estimated " ||
		fail "psb: $(head -n 1 "$tmp/est.txt" 2>/dev/null)"
	head -n 1 "$tmp/exact.txt" 2>/dev/null |
		grep -q "measured, .*, in time, \(exact\|[0-9]* exact, the rest estimated\) " ||
		fail "tsc: $(head -n 1 "$tmp/exact.txt" 2>/dev/null)"
	[ $status = 0 ] && echo "ok   :iterations says its times are estimates, or exact"
else
	echo "skipped: no $BUILD/tools/ptgen"
fi

# A function's entry as the boundary (a code term: its search decodes the
# code, then the walk times its hits): on the recorded sample, as many
# iterations as the search's hits less one; a name that is no function
# says so.
. tests/rec_lib.sh
if rec_sample "$tmp/rec"; then
	cat > "$tmp/keys3" <<EOF
wait-index
:iterations call word_hash
wait-iterations
:save-screen $tmp/code.txt
q
/call Space word_hash Enter
wait-search
:save-screen $tmp/codes.txt
:iterations call no_such_function
:save-screen $tmp/nocode.txt
q
EOF
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys3" \
		--size 150x70 "$tmp/rec/perf.data" > "$tmp/out3" 2>&1 || fail "exit status $? (code)"
	m=$(sed -n "1s/.*': \([0-9]*\) measured, \([0-9]*\) broken.*/\1 \2/p" "$tmp/code.txt" 2>/dev/null)
	nh=$(sed -n 's/.*\/call word_hash \[[0-9-]*\/\([0-9]*\)\].*/\1/p' "$tmp/codes.txt" 2>/dev/null | head -1)
	if [ -z "$m" ] || [ -z "$nh" ] || [ "$nh" -lt 10 ]; then
		fail "call word_hash: '$(head -1 "$tmp/code.txt" 2>/dev/null)', search: '$(grep -o '/call.*' "$tmp/codes.txt" 2>/dev/null)'"
	elif [ $((${m% *} + ${m#* })) -ne $((nh - 1)) ]; then
		fail "call word_hash: $m measured and broken, the search $nh hits"
	fi
	tail -n 1 "$tmp/nocode.txt" | grep -q "iterations: call no_such_function: no function" ||
		fail "no such function: $(tail -n 1 "$tmp/nocode.txt" 2>/dev/null)"
	[ $status = 0 ] && echo "ok   :iterations call word_hash: the search's $nh hits as boundaries"
	# In time the list is slowest first by the time each row shows (the
	# ends' times' difference, as the statistics are: it was ranked by
	# TSC ticks, which perf's conversion turns into a nanosecond more or
	# less from one start to the next: 69 ns listed above 70 ns), and an
	# estimate is marked "~", as the panes mark one, as are statistics
	# of estimates.
	if head -n 1 "$tmp/code.txt" | grep -q ", in time, "; then
		bad=$(LC_ALL=C awk '
			/^  rank  time/ { on = 1; next }
			on && $1 ~ /^[0-9]+$/ {
				t = $2; u = $3; mk = (substr(t, 1, 1) == "~")
				gsub(/[~?]|\342\211\210/, "", t)
				if (t == "") next
				f = u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1
				v = t * f
				if (n++ && v > last) print "rank " $1 " " $2 " " $3 " after " lt
				if (est && !mk) print "rank " $1 " " $2 " " $3 " unmarked"
				last = v; lt = $2 " " $3
			}
			NR == 1 && /in time, estimated/ { est = 1 }
			END { if (n < 10) print "only " n " rows" }' "$tmp/code.txt" | head -n 5)
		[ -z "$bad" ] || fail "call word_hash, list: $bad"
		if head -n 1 "$tmp/code.txt" | grep -q "estimated"; then
			sed -n 2p "$tmp/code.txt" | grep -q "^ p50 ~[0-9].* max ~[0-9]" ||
				fail "call word_hash, statistics unmarked: $(sed -n 2p "$tmp/code.txt")"
		fi
		[ $status = 0 ] && echo "ok   :iterations in time: slowest first as the rows show, estimates marked"
	fi
	# The slowest iteration's time is the one its region's summary
	# gives (both convert with perf's time_mult, not a TSC frequency).
	k=$(sed -n 's/^ *1  .* #\([0-9]*\) .*/\1/p' "$tmp/code.txt" 2>/dev/null | head -1)
	t=$(sed -n 's/^ *1  [^0-9]*\([0-9.]* [mun]*s\) .*/\1/p' "$tmp/code.txt" 2>/dev/null | head -1)
	printf 'wait-index\n:iterations call word_hash\nwait-iterations\nr\n:regions iter-%s\nwait-regions\n:save-screen %s/codereg.txt\nq\n' \
		"$k" "$tmp" > "$tmp/keys6"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys6" \
		--size 150x30 "$tmp/rec/perf.data" > "$tmp/out6" 2>&1 || fail "exit status $? (region)"
	d=$(sed -n 's/^ duration [^0-9]*\([0-9.]* [mun]*s\).*/\1/p' "$tmp/codereg.txt" 2>/dev/null)
	if [ -z "$t" ] || [ "$t" != "$d" ]; then
		fail "iteration #$k: '$t' in the list, its region's duration '$d'"
	else
		echo "ok   :iterations times as its regions' summaries: #$k $t"
	fi
else
	echo "skipped: $rec_err"
fi
exit $status

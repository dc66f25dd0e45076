#!/bin/sh
# t_ui_perf_clock -- a perf.data's TIME_CONV is the one clock: one given to
# pt2perf (time_mult 600, time_shift 10: a tick is 600/1024 ns, 1.7067 GHz;
# its default is CPUID.15H's clock, which would not tell them apart) beside
# the trace's CPUID.15H (2/100 with family 6 model 78's 24 MHz crystal:
# 1.2 GHz).  `:goto t X` lands on a row shown at or after X (not long
# after), and :stalls' gaps and MHz are perf's ticks: N ticks are
# N * 600/1024 ns, C cycles in T ticks are C * 1024 / (T * 600) GHz.
# The times were perf's and the targets and MHz CPUID.15H's: 't 50us'
# landed on a row shown ~35.2 us, 100 cycles in 29 ns read 2400 MHz.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
pt2perf=$BUILD/tools/pt2perf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$gen" -S 1MiB -o "$tmp/a.pt" || { echo "FAIL: ptgen"; exit 1; }
"$pt2perf" --time-mult 600 --time-shift 10 "$tmp/a.pt" -o "$tmp/a.perf" || { echo "FAIL: pt2perf"; exit 1; }
"$PTBROWSE" info "$tmp/a.perf" >"$tmp/info" 2>&1 || fail "info: exit $?"
grep -q "time_shift 10, time_mult 600" "$tmp/info" ||
	{ echo "FAIL: not pt2perf's TIME_CONV: $(grep 'perf time' "$tmp/info")"; exit 1; }
grep -q "cpuid-0x15.eax 2 --cpuid-0x15.ebx 100" "$tmp/info" ||
	{ echo "FAIL: not CPUID.15H 2/100: $(grep timing "$tmp/info")"; exit 1; }

targets="50 300 1200 4000"
echo wait-index >"$tmp/keys"
for t in $targets; do
	printf ':goto t %sus\n:save-screen %s/g%s.txt\n' "$t" "$tmp" "$t" >>"$tmp/keys"
done
printf ':stalls 3\n:save-screen %s/st.txt\nq\nq\n' "$tmp" >>"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 140x20 "$tmp/a.perf" >"$tmp/out" 2>&1 ||
	fail "exit $? ($(cat "$tmp/out"))"

# The status line's time (the last line with a TSC), in ns.
shown() {
	grep ' tsc ' "$1" | tail -n 1 | sed -n 's/.*tsc [^ ]*  *[~≈]*\([0-9.]*\) \([num]*s\)\b.*/\1 \2/p' |
		awk '{ m = $2 == "ns" ? 1 : $2 == "us" ? 1e3 : $2 == "ms" ? 1e6 : 1e9
		       printf "%.0f\n", $1 * m }'
}
for t in $targets; do
	f=$tmp/g$t.txt
	[ -f "$f" ] || { fail "t ${t}us: no screen ($(cat "$tmp/out"))"; continue; }
	ns=$(shown "$f")
	want=$((t * 1000))
	# at or after X, and not past the longest gap (under 50 us here)
	[ -n "$ns" ] && [ "$ns" -ge "$want" ] && [ "$ns" -le $((want + 50000)) ] ||
		fail "t ${t}us: landed on a row shown '$ns' ns: $(grep ' tsc ' "$f" | tail -n 1)"
done

if [ ! -f "$tmp/st.txt" ]; then
	fail "no stalls screen ($(cat "$tmp/out"))"
else
	# gap N ns|us (T ticks): N = T * 600 / 1024 ns, to the digits shown
	grep '  gap ' "$tmp/st.txt" >"$tmp/gaps"
	[ -s "$tmp/gaps" ] || fail "no gaps: $(cat "$tmp/st.txt")"
	awk '{
		for (i = 1; i <= NF; i++) if ($i == "gap") break
		v = $(i + 1); u = $(i + 2); tk = substr($(i + 3), 2)
		m = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9
		want = tk * 600 / 1024
		if ((v * m - want) ^ 2 > (1 + want / 10000) ^ 2) print "FAIL: " $0 ": want " want " ns"
	}' "$tmp/gaps" >"$tmp/bad"
	# slow F MHz (C cycles in T ticks): F = C * 1024 / (T * 600) * 1000
	grep '  slow ' "$tmp/st.txt" >"$tmp/slow"
	[ -s "$tmp/slow" ] || fail "no slow periods: $(cat "$tmp/st.txt")"
	awk '{
		for (i = 1; i <= NF; i++) if ($i == "slow") break
		f = $(i + 1); sub(/^[^0-9]*/, "", f); c = substr($(i + 3), 2); tk = $(i + 6)
		want = c * 1024 / (tk * 600) * 1000
		if ((f - want) ^ 2 > 0.01 + (want / 1000) ^ 2) print "FAIL: " $0 ": want " want " MHz"
	}' "$tmp/slow" >>"$tmp/bad"
	[ -s "$tmp/bad" ] && { cat "$tmp/bad"; status=1; }
fi

[ $status = 0 ] && echo "ok   perf.data: goto t X and :stalls' ns and MHz go by TIME_CONV, not CPUID.15H"
exit $status

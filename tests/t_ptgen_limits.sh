#!/bin/sh
# ptgen refuses what it cannot generate, with a one-line error, instead of
# overrunning its buffer or writing a trace that breaks its promises:
# MTC periods of a few core cycles (an event of thousands of MTCs), a
# TSC:ART ratio TMA cannot hold, --sleep-at past --size; and no sleep is
# so long that the 8-bit MTC payload wraps unseen.
set -u
BUILD=${BUILD:-build}
ptgen=$BUILD/tools/ptgen
fail=0 f0=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

bad() {
	echo "FAIL $*"
	fail=$((fail + 1))
}

[ -x "$ptgen" ] || { echo "FAIL $ptgen is missing"; exit 1; }

# refused: exit 2 (a usage error), one line naming the problem, no output
refused() {
	want=$1
	shift
	"$ptgen" "$@" -o "$tmp/r.pt" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || bad "ptgen $*: exit $rc, not 2 (refused)"
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$want" "$tmp/err" ||
		bad "ptgen $*: '$(cat "$tmp/err")', not one line about $want"
	[ -e "$tmp/r.pt" ] && bad "ptgen $*: wrote $tmp/r.pt"
	rm -f "$tmp/r.pt" "$tmp/r.pt.options"
}

# An MTC period of 1 TSC tick at nominal ratio 255 is 1/32 of a core
# cycle at CBR 8: one event wrote hundreds of KiB past the buffer
# (SIGSEGV, or a heap overflow under ASan).
refused "MTC period.*shorter than 4 core cycles" -s 5 --nom-freq 255 \
	--sleep-at 900K:51199 --mtc-freq 0 --cpuid-0x15.eax 1 \
	--cpuid-0x15.ebx 1 -S 4M
refused "MTC period" --nom-freq 13 --mtc-freq 0 --cpuid-0x15.eax 1 \
	--cpuid-0x15.ebx 6 -S 64K
# the smallest period allowed at --nom-freq 12: 4 cycles at CBR 8
"$ptgen" --nom-freq 12 --mtc-freq 0 --cpuid-0x15.eax 1 --cpuid-0x15.ebx 6 \
	-S 1M -o "$tmp/p.pt" || bad "an MTC period of 4 core cycles refused"
# TMA's FastCounter has 9 bits: at most 512 TSC ticks a crystal tick
refused "above 512" --cpuid-0x15.eax 1 --cpuid-0x15.ebx 2000 -S 64K
"$ptgen" --cpuid-0x15.eax 1 --cpuid-0x15.ebx 512 -S 64K -o "$tmp/p.pt" ||
	bad "--cpuid-0x15.ebx 512 (eax 1) refused"
[ $fail = "$f0" ] && echo "ok   MTC periods under 4 core cycles and TSC:ART above 512 refused"
f0=$fail

# --sleep-at whose sleeps would end past --size: an error, not a trace
# without them (at 40K the same fits: 250 pwrx)
"$ptgen" -S 64K --no-sleep --sleep-at 60K:20000000 -o "$tmp/sa.pt" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "sleep-at 61440: .*do not fit" "$tmp/err" ||
	bad "--sleep-at past --size: exit $rc, '$(cat "$tmp/err")'"
[ -e "$tmp/sa.pt" ] && bad "--sleep-at past --size left a trace"
"$ptgen" -S 64K --no-sleep --sleep-at 40K:20000000 -o "$tmp/sa.pt" ||
	bad "--sleep-at 40K of 64K refused"
[ $fail = "$f0" ] && echo "ok   --sleep-at that does not fit before --size is an error"
f0=$fail

# No sleep lasts 256 MTC periods or more: with one TSC tick a period (the
# MTC payload is the TSC's low byte), from the last MTC before an exstop
# to the TSC after its pwrx stays under 256 ticks.  Random sleeps were
# 100 ticks + up to 200 periods: 299 periods.
if [ -x "${PTBROWSE:-}" ] && "$PTBROWSE" dump --help > /dev/null 2>&1; then
	for s in 1 2 3; do
		"$ptgen" -s $s -S 1M --nom-freq 2 --mtc-freq 0 --cpuid-0x15.eax 1 \
			--cpuid-0x15.ebx 1 --ovf-rate 0.0005 -o "$tmp/w.pt" ||
			bad "ptgen -s $s, MTC period 1 tick"
		"$PTBROWSE" dump --no-cyc "$tmp/w.pt" | awk '
		function hex(s,  i, v) {
			s = substr(s, length(s) - 9)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		$2 == "tsc" && want { g = hex($3) - t0; if (g > max) { max = g; at = $1 } }
		{ want = 0 }
		$2 == "tsc" { cur = hex($3) }
		$2 == "mtc" { cur += (hex($3) - cur % 256 + 256) % 256 }
		$2 == "exstop" { t0 = cur; open_ = 1 }
		$2 == "pwrx" && open_ { want = 1; open_ = 0 }
		END { print max + 0, at }' >"$tmp/gap"
		read -r gap at <"$tmp/gap"
		[ "$gap" -gt 0 ] && [ "$gap" -lt 256 ] ||
			bad "seed $s: a sleep of $gap MTC periods (to the tsc at $at)"
	done
	[ $fail = "$f0" ] && echo "ok   sleeps stay under 256 MTC periods (the last: $gap)"
	f0=$fail
else
	echo "skip ptbrowse dump is not there: sleep lengths not checked"
fi
[ $fail = 0 ]

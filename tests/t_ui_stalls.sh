#!/bin/sh
# t_ui_stalls -- :stalls lists the longest gaps between timing packets and
# the slowest periods from the index's summaries, with the packet that
# ends each: two gaps planted in a generated trace (stalls before TSC
# packets outside PSB+: they and every TSC after them moved forward) come
# first, the longer one first, and Enter jumps to it; a planted slow MTC
# period (its CYCs made 1 cycle each) comes
# first among the periods, and a second one in the same segment second
# (the summaries keep one per segment: the list walks those segments); t
# marks the places on the timeline.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
command -v python3 >/dev/null || { echo "python3 is missing"; exit 1; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

args="--seed 3 --size 2MiB"
# shellcheck disable=SC2086
"$gen" $args -o "$tmp/t.pt" || { echo "FAIL: ptgen"; exit 1; }
# shellcheck disable=SC2086
opts=$("$gen" $args --print-config)
# The TSC packets outside PSB+.
"$PTBROWSE" dump "$tmp/t.pt" | awk '
	$2 == "psb" { in_psb = 1 }
	$2 == "psbend" { in_psb = 0 }
	$2 == "tsc" && !in_psb { print $1 }' > "$tmp/tscs"
n=$(wc -l < "$tmp/tscs")
[ "$n" -gt 20 ] || { echo "FAIL: only $n TSCs outside PSB+"; exit 1; }
a=$(sed -n "$((n * 3 / 10))p" "$tmp/tscs")
b=$(sed -n "$((n * 7 / 10))p" "$tmp/tscs")
# Stalls before A (2^28 ticks) and B (2^30, so a longer gap): every TSC
# from there on moves forward (A alone ahead of the next PSB+ TSC would be
# damage, left out).
"$PTBROWSE" dump "$tmp/t.pt" | awk '$2 == "tsc" { print $1 }' > "$tmp/alltscs"
python3 - "$tmp/t.pt" "$a" "$b" "$tmp/alltscs" <<'PY' || { echo "FAIL: patch"; exit 1; }
import sys
p, a, b = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
tscs = [int(l, 16) for l in open(sys.argv[4])]
d = bytearray(open(p, 'rb').read())
for start, add in ((a, 1 << 28), (b, 1 << 30)):
    for off in tscs:
        if off < start:
            continue
        assert d[off] == 0x19
        v = int.from_bytes(d[off + 1:off + 8], 'little') + add
        d[off + 1:off + 8] = v.to_bytes(7, 'little')
open(p, 'wb').write(d)
PY
# Two slow periods in one segment: every CYC in two MTC periods in a row
# (half-way) becomes a CYC of 1 cycle (the same bytes long), so those run
# a few cycles in an MTC period, slower than any other; the index's
# summaries keep one period per segment, the list must show both.
"$PTBROWSE" dump "$tmp/t.pt" | awk '{ print $1, $2, $3 }' > "$tmp/pkts"
per=$(python3 - "$tmp/t.pt" "$tmp/pkts" <<'PY'
import sys
p, lst = sys.argv[1], sys.argv[2]
pk = []
for l in open(lst):
    f = l.split()
    pk.append((int(f[0], 16), f[1], f[2] if len(f) > 2 else ''))
d = bytearray(open(p, 'rb').read())
mtcs = [i for i, x in enumerate(pk) if x[1] == 'mtc']
bad = ('psb', 'psbend', 'ovf', 'exstop', 'pwre', 'pwrx', 'cbr', 'tsc', 'tma', 'mwait')
def clean(i, j):
    if (int(pk[i][2], 16) + 1) & 0xff != int(pk[j][2], 16):
        return False
    mid = pk[i + 1:j]
    return not any(x[1] in bad for x in mid) and any(x[1] == 'cyc' for x in mid)
for k in range(len(mtcs) // 2, len(mtcs) - 2):
    a, b, c = mtcs[k], mtcs[k + 1], mtcs[k + 2]
    if not clean(a, b) or not clean(b, c):
        continue
    for n in range(a + 1, c):
        if pk[n][1] != 'cyc':
            continue
        o, sz = pk[n][0], pk[n + 1][0] - pk[n][0]
        d[o] = (1 << 3) | (4 if sz > 1 else 0) | 3
        for e in range(1, sz):
            d[o + e] = 1 if e < sz - 1 else 0
    open(p, 'wb').write(d)
    print('%x %x' % (pk[b][0], pk[c][0]))
    break
PY
) || { echo "FAIL: patch a period"; exit 1; }
[ -n "$per" ] || { echo "FAIL: no MTC period to slow down"; exit 1; }
cat > "$tmp/keys" <<KEYS
wait-index
:stalls 3
:save-screen $tmp/stalls.txt
Enter
:save-screen $tmp/jump.txt
:stalls 3
t
q
:save-screen $tmp/tl.txt
q
KEYS
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 140x20 \
	$opts "$tmp/t.pt" > "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
if [ ! -f "$tmp/stalls.txt" ]; then
	fail "no stalls screen ($(cat "$tmp/out"))"
else
	la=$(printf '0x%08x' "0x$a")
	lb=$(printf '0x%08x' "0x$b")
	sed -n 2p "$tmp/stalls.txt" | grep -q "at $lb" ||
		fail "the longest gap is not at $lb: $(sed -n 2p "$tmp/stalls.txt")"
	sed -n 3p "$tmp/stalls.txt" | grep -q "at $la" ||
		fail "the second gap is not at $la: $(sed -n 3p "$tmp/stalls.txt")"
	grep -q "stalls: the 3 longest gaps" "$tmp/stalls.txt" || fail "no title"
	# the planted periods first among the periods (rows 5 and 6: after
	# 3 gaps), both though they share a segment
	for x in $per; do
		lp=$(printf '0x%08x' "0x$x")
		sed -n 5,6p "$tmp/stalls.txt" | grep -q "slow .* at $lp" ||
			fail "no planted slow period at $lp in the first two: $(sed -n 5,6p "$tmp/stalls.txt")"
	done
	[ "$(sed -n 5,6p "$tmp/stalls.txt" | sed 's/.* psb \([0-9]*\).*/\1/' | sort -u | wc -l)" = 1 ] ||
		fail "the two slowest periods are not in one segment: $(sed -n 5,6p "$tmp/stalls.txt")"
	# Enter: the cursor on the packet that ends the longest gap.
	grep "^>" "$tmp/jump.txt" | grep -q "$lb " ||
		fail "Enter did not jump to $lb: $(grep '^>' "$tmp/jump.txt")"
fi
# t in the list: the places marked 's' on the timeline's marker row (the
# same screen as after the jump but for them, and the halted segments'
# 'z'; they outrank an OVF's '!').
python3 - "$tmp/jump.txt" "$tmp/tl.txt" <<'PY' || fail "t did not mark the stalls on the timeline"
import sys
a = open(sys.argv[1], encoding='utf-8').read().splitlines()
b = open(sys.argv[2], encoding='utf-8').read().splitlines()
rows = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
ok = any(b[i].count('s') > a[i].count('s') and
         all(x == y or y in 'sz' for x, y in zip(a[i], b[i]))
         for i in rows)
sys.exit(0 if ok else 1)
PY
[ $status = 0 ] && echo "ok   :stalls finds both planted gaps, the longer first, and both planted slow periods of one segment"

# Halted time: ptgen plants sleeps of 1M ticks in all at 512 KiB and 2M at
# 1.25 MiB (each sleep at most 80000, as ptgen's own); the segments holding
# their PWRXs are the two most halted, the longer first, each at one of
# its PWRXs (its longest sleep's); Enter on the first jumps there; t marks
# it 'z' on the timeline.  A trace without sleeps says so in the title.
hargs="--seed 3 --size 2MiB --sleep-at 0x80000:1000000 --sleep-at 0x140000:2000000"
# shellcheck disable=SC2086
"$gen" $hargs -o "$tmp/h.pt" || { echo "FAIL: ptgen --sleep-at"; exit 1; }
# shellcheck disable=SC2086
"$gen" --seed 3 --size 2MiB --no-sleep -o "$tmp/n.pt" || { echo "FAIL: ptgen --no-sleep"; exit 1; }
# The PWRXs of the segment of the first PWRX at or after each planted
# place, the longer's first: a line each.
"$PTBROWSE" dump "$tmp/h.pt" | awk '{ print $1, $2 }' | python3 -c '
import sys
segs, cur = [], None
for l in sys.stdin:
    f = l.split()
    if len(f) < 2:
        continue
    if f[1] == "psb":
        cur = []
        segs.append(cur)
    elif f[1] == "pwrx" and cur is not None:
        cur.append(int(f[0], 16))
for w in (0x140000, 0x80000):
    first = min(o for x in segs for o in x if o >= w)
    seg = next(x for x in segs if first in x)
    print(" ".join("0x%08x" % o for o in seg))' > "$tmp/hpwrx"
[ "$(wc -l < "$tmp/hpwrx")" = 2 ] || { echo "FAIL: no PWRX after the planted places"; exit 1; }
cat > "$tmp/hkeys" <<KEYS
wait-index
:stalls 3
:save-screen $tmp/halts.txt
jjjjjj
Enter
:save-screen $tmp/hjump.txt
:stalls 3
t
q
:save-screen $tmp/htl.txt
q
KEYS
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/hkeys" --size 140x20 \
	$("$gen" $hargs --print-config) "$tmp/h.pt" > "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
if [ ! -f "$tmp/halts.txt" ]; then
	fail "no stalls screen with sleeps ($(cat "$tmp/out"))"
else
	grep -q "the 3 segments most halted" "$tmp/halts.txt" || fail "no halted section in the title"
	at1=$(sed -n 8p "$tmp/halts.txt" | sed -n 's/^ *1  halt .* in \([0-9]*\) sleeps.* at \(0x[0-9a-f]*\) .*/\1 \2/p')
	at2=$(sed -n 9p "$tmp/halts.txt" | sed -n 's/^ *2  halt .* in \([0-9]*\) sleeps.* at \(0x[0-9a-f]*\) .*/\1 \2/p')
	# 25 and 13 planted sleeps at least, each at a PWRX of its segment
	[ "${at1%% *}" -ge 25 ] 2>/dev/null && sed -n 1p "$tmp/hpwrx" | grep -qw "${at1#* }" ||
		fail "the most halted is not the 2M ticks' segment ($(sed -n 1p "$tmp/hpwrx" | cut -c1-60)...): $(sed -n 8p "$tmp/halts.txt")"
	[ "${at2%% *}" -ge 13 ] 2>/dev/null && sed -n 2p "$tmp/hpwrx" | grep -qw "${at2#* }" ||
		fail "the second most halted is not the 1M ticks' segment ($(sed -n 2p "$tmp/hpwrx" | cut -c1-60)...): $(sed -n 9p "$tmp/halts.txt")"
	a1=${at1#* }
	grep "^>" "$tmp/hjump.txt" | grep -q "${a1#0x00} *pwrx" ||
		fail "Enter did not jump to the PWRX at $a1: $(grep '^>' "$tmp/hjump.txt")"
	# the marker row after t: a 'z' more than before (the screen after
	# the jump is the same but for the marks)
	python3 - "$tmp/hjump.txt" "$tmp/htl.txt" <<'PY' || fail "t did not mark the halted segments 'z' on the timeline"
import sys
a = open(sys.argv[1], encoding='utf-8').read().splitlines()
b = open(sys.argv[2], encoding='utf-8').read().splitlines()
sys.exit(0 if any(y.count('z') > x.count('z') for x, y in zip(a, b)) else 1)
PY
fi
printf 'wait-index\n:stalls 3\n:save-screen %s\nq\nq\n' "$tmp/none.txt" > "$tmp/nkeys"
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/nkeys" --size 140x20 \
	$("$gen" --seed 3 --size 2MiB --no-sleep --print-config) "$tmp/n.pt" > "$tmp/out" 2>&1 ||
	fail "exit status $? ($(cat "$tmp/out"))"
grep -q "slowest periods, no sleeps" "$tmp/none.txt" 2>/dev/null ||
	fail "a trace without sleeps does not say so: $(head -1 "$tmp/none.txt" 2>/dev/null)"
grep -q " halt " "$tmp/none.txt" 2>/dev/null && fail "halted rows without sleeps"
[ $status = 0 ] && echo "ok   :stalls ranks the segments of two planted sleeps first among the most halted, Enter and t go there; none without sleeps"

# A PSB+ TSC far in the future (its top byte 0x7f): the gap into it is the
# jump into damaged time, no stall (it ranked first, 29789435 s, shown as
# exact): the list leaves it out and says so above its rows.
dargs="--seed 5 --size 1MiB"
# shellcheck disable=SC2086
"$gen" $dargs -o "$tmp/d.pt" || { echo "FAIL: ptgen $dargs"; exit 1; }
# shellcheck disable=SC2086
dopts=$("$gen" $dargs --print-config)
# shellcheck disable=SC2086
dtsc=$("$PTBROWSE" dump $dopts "$tmp/d.pt" | awk '
	$2 == "psb" { in_psb = 1; npsb++ }
	$2 == "psbend" { in_psb = 0 }
	$2 == "tsc" && in_psb && npsb == 128 { print $1; exit }')
[ -n "$dtsc" ] || { echo "FAIL: no 128th PSB+ TSC"; exit 1; }
printf '\177' | dd of="$tmp/d.pt" bs=1 seek=$((0x$dtsc + 7)) conv=notrunc 2>/dev/null
printf 'wait-index\n:stalls 5\n:save-screen %s\nq\nq\n' "$tmp/dam.txt" > "$tmp/dkeys"
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/dkeys" --size 140x20 \
	$dopts "$tmp/d.pt" > "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
ld=$(printf '0x%08x' "0x$dtsc")
sed -n 2p "$tmp/dam.txt" 2>/dev/null | grep -q "^ 1 gap left out: the jump into a TSC that contradicts" ||
	fail "the list does not say a damaged TSC's gap was left out: $(sed -n 2p "$tmp/dam.txt" 2>/dev/null)"
grep -q "gap .* at $ld " "$tmp/dam.txt" 2>/dev/null &&
	fail "the jump into the damaged TSC at $ld is listed: $(grep "at $ld " "$tmp/dam.txt")"
[ "$(grep -c '^ *[0-9]*  gap ' "$tmp/dam.txt" 2>/dev/null)" = 5 ] ||
	fail "not 5 gaps: $(cat "$tmp/dam.txt" 2>/dev/null)"
[ $status = 0 ] && echo "ok   :stalls leaves out the jump into a damaged PSB+ TSC and says so"

# A TSC outside PSB+ far in the future (the last of its segment, top byte
# 0x7f): no PSB+ TSC contradicts it, the next one does.  The gap into it
# ranked first as an exact 29789435 s; its time showed as exact, and the
# index report's TSC range ended there.
itsc=$("$PTBROWSE" dump $dopts "$tmp/d.pt" | awk '
	$2 == "psb" { in_psb = 1; npsb++; if (npsb == 129 && last) { print last; exit } }
	$2 == "psbend" { in_psb = 0 }
	$2 == "tsc" && !in_psb && npsb == 128 { last = $1 }')
[ -n "$itsc" ] || { echo "FAIL: no TSC outside PSB+ in the 128th segment"; exit 1; }
"$gen" $dargs -o "$tmp/i.pt" || { echo "FAIL: ptgen $dargs"; exit 1; }
printf '\177' | dd of="$tmp/i.pt" bs=1 seek=$((0x$itsc + 7)) conv=notrunc 2>/dev/null
printf 'wait-index\n:stalls 5\n:save-screen %s\nq\n:goto 0x%s\n:save-screen %s\nq\nq\n' \
	"$tmp/inner.txt" "$itsc" "$tmp/inner_at.txt" > "$tmp/ikeys"
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/ikeys" --size 140x20 \
	$dopts "$tmp/i.pt" > "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
li=$(printf '0x%08x' "0x$itsc")
sed -n 2p "$tmp/inner.txt" 2>/dev/null | grep -q "^ 1 gap left out: the jump into a TSC that contradicts" ||
	fail "the jump into a damaged TSC outside PSB+ is not said left out: $(sed -n 2,3p "$tmp/inner.txt" 2>/dev/null)"
grep -q "gap .* at $li " "$tmp/inner.txt" 2>/dev/null &&
	fail "the jump into the damaged TSC at $li is listed: $(grep "at $li " "$tmp/inner.txt")"
grep -q "^>  0x$(printf '%08x' "0x$itsc")  tsc .* ?29789435" "$tmp/inner_at.txt" 2>/dev/null ||
	fail "its time is not marked ?: $(grep '^>' "$tmp/inner_at.txt" 2>/dev/null)"
grep -q "time disputed: past the next PSB's TSC" "$tmp/inner_at.txt" 2>/dev/null ||
	fail "the status line does not say why: $(tail -n 1 "$tmp/inner_at.txt" 2>/dev/null)"
# shellcheck disable=SC2086
XDG_CACHE_HOME=$tmp/icache "$PTBROWSE" index --no-cache --time $dopts "$tmp/i.pt" > "$tmp/iidx" 2>&1
grep -q "tsc: .*(1[0-9]\{6,7\} ticks[;)]" "$tmp/iidx" ||
	fail "the index's TSC range runs to the damaged TSC: $(grep 'tsc:' "$tmp/iidx")"
[ $status = 0 ] && echo "ok   :stalls leaves out the jump into a damaged TSC outside PSB+, its time is marked ?, the index's range ends before it"

# On a perf.data file the gaps' times are perf's conversion (TIME_CONV),
# as the packet pane's: the recorded sample's crystal and CPUID.15H ratio
# give another frequency (42 ns for 50 ticks where the pane says 29.3).
. tests/rec_lib.sh
if rec_sample "$tmp/rec"; then
	conv=$("$PTBROWSE" info "$tmp/rec/perf.data" | sed -n 's/.*time_shift \([0-9]*\), time_mult \([0-9]*\).*/\1 \2/p')
	printf 'wait-index\n:stalls 3\n:save-screen %s/rec.txt\n' "$tmp" > "$tmp/rkeys"
	"$PTBROWSE" --no-state --script "$tmp/rkeys" --size 150x20 "$tmp/rec/perf.data" >/dev/null 2>&1
	row=$(grep -m1 ' gap ' "$tmp/rec.txt")
	echo "$conv $row" | awk '{ shift = $1; mult = $2
		for (i = 3; i <= NF; i++) if ($i == "gap") { v = $(i + 1); u = $(i + 2); t = $(i + 3) }
		sub(/^\(/, "", t)
		if (u != "ns") exit 1
		want = t * mult / 2 ^ shift
		exit (v - want > 1 || want - v > 1) ? 1 : 0 }' ||
		fail "a gap's time on the sample is not perf's conversion ($conv): $row"
else
	fail "$rec_err"
fi
[ $status = 0 ] && echo "ok   on a perf.data file a gap's time is perf's conversion, as the pane's"

# perf's time_zero near 2^64 (quipper's): a gap's time is the difference
# in integers, not in doubles, whose step there is 2048 ns (43050 ticks
# showed as 36.864 us, 400 as 2.048 us).
Q=${SHARED:-../shared}/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	printf 'wait-index\n:stalls 5\n:save-screen %s/q.txt\nq\nq\n' "$tmp" > "$tmp/qkeys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/qkeys" --size 140x20 \
		--stream cpu3 "$Q" >/dev/null 2>&1
	grep -q 'gap  35\.874 us (43050 ticks) .* at 0x0000df36' "$tmp/q.txt" ||
		fail "quipper cpu3's gap at 0xdf36 is not 35.874 us: $(grep -m1 ' gap ' "$tmp/q.txt")"
	[ $status = 0 ] && echo "ok   quipper's gaps (time_zero near 2^64) are not rounded to 2.048 us"
fi

# In a terminal the list is made off the UI thread and shows once it is
# done (the loop looks for it often); q while it is made stops the walk
# and the browser answers at once, and so does C-c; the same list as the
# script's.
[ $status = 0 ] || exit $status
keep=$status
. tests/tmux_lib.sh
# shellcheck disable=SC2086
tm_start -- --no-state $opts "$tmp/t.pt"
keys : s t a l l s Space 3 Enter
wait_for 'stalls: the 3 longest gaps'
screen | sed -n 2p | grep -q "at $lb" || fail "the terminal's longest gap is not at $lb: $(screen | sed -n 2p)"
keys q
wait_gone 'stalls: the 3 longest gaps'
keys : s t a l l s Space 1 0 0 0 Enter q : i n f o Enter
wait_for 'index'
keys q
wait_gone 'stalls: (the|finding)'
tm_quit
echo "ok   in a terminal: :stalls shows its list once made off the UI thread; q while it is made stops it"

# C-c while it is made stops the walk as q does: it did nothing, and the
# walk ran on under 'finding'.  A 16 MiB trace, whose 1000 longest take
# some 0.4 s to find: the C-c comes while they are looked for.
margs="--seed 3 --size 16MiB"
# shellcheck disable=SC2086
"$gen" $margs -o "$tmp/m.pt" || { echo "FAIL: ptgen $margs"; exit 1; }
# shellcheck disable=SC2086
tm_start -- --no-state $("$gen" $margs --print-config) "$tmp/m.pt"
# (indexed first: a C-c over no walk stops the index; its time pass
# follows the PSBs' within a second)
wait_for ' psb 0/[0-9]+$'
sleep 1
keys : s t a l l s Space 1 0 0 0 Enter C-c
wait_for 'stalls: stopped'
screen | grep -Eq 'stalls: (the|finding)' && fail "C-c left the stalls view: $(screen | head -n 1)"
keys : i n f o Enter
wait_for 'index'
keys q
tm_quit
[ $status = 0 ] && echo "ok   in a terminal: C-c while :stalls is made stops it"
exit $keep

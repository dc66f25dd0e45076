#!/bin/sh
# t_time_digits -- times deep in a trace keep their digits, and an estimated
# TSC frequency is said: the ':regions A B' delta and a sideband event's time
# in the message line show every digit one TSC tick needs (not '2.021 s'
# for 2.02086 s), with '≈' when the frequency is P1's estimate; 'goto t'
# and a '/gap > 1us' search say once that they convert with the estimate.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
BUILD=${BUILD:-build}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
[ -r "$T" ] || { echo "no trace $T"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
run() { "$PTBROWSE" --no-state --script "$tmp/keys" "$@" || fail "--script $*: exit $?"; }
note='times use the TSC frequency estimated from P1 (--nom-freq)'

# The delta of two regions 2.02086 s apart at a 100 kHz TSC.
cat > "$tmp/keys" <<EOF2
wait-index
:region hot psb 1 psb 2
:region cold psb 3 psb 4
:regions cold hot
:save-screen $tmp/rs.txt
EOF2
run --size 160x40 --tsc-freq 100000 "$T"
# (the regions start at PSBs, whose times are estimates: '~')
grep -Eq ' from hot: \+0x[0-9a-f]+ bytes, ~\+[0-9]+\.[0-9]{4,} s' "$tmp/rs.txt" ||
	fail ":regions delta without its digits: $(grep -a ' from hot' "$tmp/rs.txt")"
run --size 160x40 --nom-freq 12 "$T"
grep -q ' from hot: +0x[0-9a-f]* bytes, ~≈+' "$tmp/rs.txt" ||
	fail ":regions delta with P1's frequency not marked: $(grep -a ' from hot' "$tmp/rs.txt")"
[ $status = 0 ] && echo "ok   :regions A B: the delta keeps its digits and marks an estimate"

# A context switch 225.339258 ms into a perf.data (TIME_CONV 600000 >> 10:
# ~1.7 MHz).
e=$(( 0xbc4cbefc32 + (0xbc4cd28bc0 - 0xbc4cbefc32) * 3 / 10 ))
printf 'switch 0 %d in 42 42 -1 -1 0\n' $e > "$tmp/sb.txt"
"$BUILD/tools/pt2perf" --sideband "$tmp/sb.txt" --time-mult 600000 --time-shift 10 \
	"$T" -o "$tmp/sw.perf" ||
	fail "pt2perf"
# the switch is 30% along the timeline's 115 columns after the lane's
# 5-column name: screen column 5 + 34
printf 'wait-index\nclick=39\n:save-screen %s/side.txt\n' "$tmp" > "$tmp/keys"
run "$tmp/sw.perf"
tail -n 1 "$tmp/side.txt" | grep -Eq '^sideband: switch_in pid 42 tid 42 at 225\.339[0-9]+ ms' ||
	fail "sideband time without its digits: $(tail -n 1 "$tmp/side.txt")"
[ $status = 0 ] && echo "ok   a sideband event's time keeps its digits"

# goto t and a gap search with P1's estimate say so, once; exact: silent.
cat > "$tmp/keys" <<EOF2
wait-index
:goto t 100us
:save-screen $tmp/g1.txt
:nosuchcommand
:goto t 200us
:save-screen $tmp/g2.txt
/ g a p Space > Space 1 u s Enter
:save-screen $tmp/s1.txt
EOF2
run --nom-freq 12 "$T"
tail -n 1 "$tmp/g1.txt" | grep -qF "goto: $note" || fail "goto t: no note: $(tail -n 1 "$tmp/g1.txt")"
tail -n 1 "$tmp/g2.txt" | grep -qF "$note" && fail "goto t: the note twice"
tail -n 1 "$tmp/s1.txt" | grep -qF "$note" && fail "/gap: the note after goto said it"
cat > "$tmp/keys" <<EOF2
wait-index
/ g a p Space > Space 1 u s Enter
:save-screen $tmp/s1.txt
:nosuchcommand
:goto t 100us
:save-screen $tmp/g1.txt
EOF2
run --nom-freq 12 "$T"
tail -n 1 "$tmp/s1.txt" | grep -qF "$note" || fail "/gap > 1us: no note: $(tail -n 1 "$tmp/s1.txt")"
tail -n 1 "$tmp/g1.txt" | grep -qF "$note" && fail "goto t after the search: the note twice"
run --tsc-freq 1200000000 "$T"
grep -qF "$note" "$tmp/s1.txt" "$tmp/g1.txt" && fail "the note with an exact frequency"
[ $status = 0 ] && echo "ok   goto t and /gap say once that they use P1's estimate"
exit $status

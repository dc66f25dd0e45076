#!/bin/sh
# t_ui_timeq -- the time questions' commands on a generated trace,
# headless (--script):
#  - :regions A B with no A says so and changes nothing (it opened the
#    list on the cursor's entry, under B's delta, B the reference);
#  - --ascii :stalls with P1's estimate marks a gap's time '~', not the
#    UTF-8 '≈', and the "at" column lines up with or without it;
#  - the :iterations list pages by the rows it shows: G shows the last
#    rank (it lay under the status line), PgDn skips none;
#  - r in it never moves a region iter-K of another range or note (the
#    user's, another expression's): it makes iter-K-2 and says so;
#  - :goto t Ncyc and :goto tsc V where N or V is a segment's first
#    value land on the first packet with it, at the end of the segment
#    before (they went to the segment's PSB);
#  - a region across an OVF: its MHz average is the measurements' mean
#    (cycles over time was below the slowest, "halts included"), its
#    cycles said to miss the lost ones.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
ok() { echo "ok   $*"; }
"$BUILD/tools/ptgen" -S 1M -o "$tmp/a.pt" 2>/dev/null || { echo "FAIL ptgen"; exit 1; }

# run NAME SIZE [OPTION...]: the script $tmp/NAME.keys over a.pt
run() {
	n=$1 size=$2
	shift 2
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/$n.keys" \
		--size "$size" "$@" "$tmp/a.pt" > "$tmp/$n.out" 2>&1 ||
		bad "$n: exit status $? ($(cat "$tmp/$n.out"))"
}

cat > "$tmp/reg.keys" <<EOF2
wait-index
:region hot psb 1 psb 2
:region cold psb 3 psb 4
:goto psb 5
:regions nosuch hot
:save-screen $tmp/reg.txt
EOF2
run reg 160x40
tail -n 1 "$tmp/reg.txt" | grep -q "^regions: no region or mark 'nosuch'" ||
	bad ":regions nosuch hot: $(tail -n 1 "$tmp/reg.txt")"
grep -q 'marks and regions\|from hot' "$tmp/reg.txt" &&
	bad ":regions nosuch hot opened a summary: $(grep 'from hot' "$tmp/reg.txt")"
sed -n 2p "$tmp/reg.txt" | grep -q 'Δhot' && bad ":regions nosuch hot set the reference"
[ $fail = 0 ] && ok ":regions with no such A says so and changes nothing"

# (no .options: only --nom-freq, P1's estimate, gives the frequency)
"$BUILD/tools/ptgen" -S 1M -o - > "$tmp/p1.pt" 2>/dev/null || { echo "FAIL ptgen"; exit 1; }
printf 'wait-index\n:stalls 3\n:save-screen %s/st.txt\n' "$tmp" > "$tmp/st.keys"
for mode in ascii utf8 exact; do
	case $mode in
	ascii) opt='--ascii --nom-freq 12' ;;
	utf8) opt='--nom-freq 12' ;;
	exact) opt='--nom-freq 12 --tsc-freq 1200000000' ;;
	esac
	# shellcheck disable=SC2086
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/st.keys" \
		--size 140x20 $opt "$tmp/p1.pt" > "$tmp/st.out" 2>&1 || bad "stalls $mode: exit status $?"
	grep ' gap ' "$tmp/st.txt" > "$tmp/st.$mode" || bad "stalls $mode: no gap: $(cat "$tmp/st.txt")"
	[ $mode = ascii ] && LC_ALL=C grep -q '[^ -~]' "$tmp/st.$mode" &&
		bad "--ascii :stalls: not ASCII: $(LC_ALL=C grep -m 1 '[^ -~]' "$tmp/st.$mode")"
	[ $mode = ascii ] && { grep -q ' gap  ~[0-9]' "$tmp/st.$mode" ||
		bad "--ascii :stalls: no '~': $(head -n 1 "$tmp/st.$mode")"; }
	# the column "at" starts at, in characters ('≈' one, as '~')
	sed 's/≈/~/g' "$tmp/st.$mode" | awk '{ print index($0, " at 0x") }' | sort -u \
		> "$tmp/at.$mode"
done
for mode in ascii utf8; do
	cmp -s "$tmp/at.$mode" "$tmp/at.exact" ||
		bad ":stalls $mode: 'at' in column $(cat "$tmp/at.$mode"), without a mark $(cat "$tmp/at.exact")"
done
[ $fail = 0 ] && ok ":stalls --ascii marks an estimate '~'; 'at' lines up with a '≈' too"

cat > "$tmp/it.keys" <<EOF2
wait-index
:iterations tsc
wait-iterations
:save-screen $tmp/it0.txt
PgDn
:save-screen $tmp/it1.txt
PgDn
:save-screen $tmp/it2.txt
G
:save-screen $tmp/it3.txt
EOF2
run it 120x40
# ranks shown: the first and the last
for i in 0 1 2 3; do
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[~0-9]/ { print $1 }' "$tmp/it$i.txt" | sed -n '1p;$p' |
		tr '\n' ' ' > "$tmp/r$i"
done
n=$(sed -n 's/.* \([0-9][0-9]*\) measured.*/\1/p' "$tmp/it0.txt")
[ -n "$n" ] && [ "$n" -gt 100 ] || bad ":iterations tsc: $(head -n 1 "$tmp/it0.txt")"
read -r a0 z0 < "$tmp/r0"; read -r a1 z1 < "$tmp/r1"; read -r a2 z2 < "$tmp/r2"
read -r a3 z3 < "$tmp/r3"
[ "$z3" = "$n" ] || bad ":iterations G: the last rank shown is $z3 of $n"
[ "$a1" -le $((z0 + 1)) ] && [ "$z1" -gt "$z0" ] ||
	bad ":iterations PgDn: ranks $a0-$z0 then $a1-$z1"
[ "$a2" -le $((z1 + 1)) ] && [ "$z2" -gt "$z1" ] ||
	bad ":iterations PgDn twice: ranks $a1-$z1 then $a2-$z2"
[ $fail = 0 ] && ok ":iterations: G shows the last rank, PgDn skips none"

k=$(awk '$1 == "1" { for (i = 2; i <= NF; i++) if ($i ~ /^#[0-9]+$/) { print substr($i, 2); exit } }' \
	"$tmp/it0.txt")
[ -n "$k" ] || bad ":iterations tsc: no iteration number for rank 1: $(grep -m 1 '^ *1 ' "$tmp/it0.txt")"
cat > "$tmp/ir.keys" <<EOF2
wait-index
:region iter-$k 0x1000 0x2000 "my hot loop"
:iterations tsc
wait-iterations
r
:save-screen $tmp/ir1.txt
r
:save-screen $tmp/ir2.txt
q
:marks
:save-screen $tmp/ir3.txt
EOF2
run ir 120x40
tail -n 1 "$tmp/ir1.txt" | grep -q "^region iter-$k-2: iteration $k (iter-$k is taken)" ||
	bad "r over the user's iter-$k: $(tail -n 1 "$tmp/ir1.txt")"
# r again: the same region, no -3
tail -n 1 "$tmp/ir2.txt" | grep -q "^region iter-$k-2: iteration $k" ||
	bad "r twice: $(tail -n 1 "$tmp/ir2.txt")"
grep -q "iter-$k  *0x00001000-0x00002000" "$tmp/ir3.txt" ||
	bad "the user's iter-$k moved: $(grep "iter-$k " "$tmp/ir3.txt")"
grep -q "iter-$k-3" "$tmp/ir3.txt" && bad "r twice made iter-$k-3"
[ $fail = 0 ] && ok ":iterations r keeps another iter-K, makes iter-K-2 and says so"

# ptgen -S 1M (its default seed): PSB 18 at 0x12064 starts at 1155485
# cycles and TSC 0x106d0fd0e46c, which the CYC at 0x1205b and the rows
# from 0x12058 on in segment 17 have
cat > "$tmp/go.keys" <<EOF2
wait-index
:goto t 1155485cyc
:save-screen $tmp/go1.txt
:goto tsc 0x106d0fd0e46c
:save-screen $tmp/go2.txt
:goto t 1155484cyc
:save-screen $tmp/go3.txt
:goto 0x12064
:save-screen $tmp/go4.txt
EOF2
run go 160x20
tail -n 2 "$tmp/go4.txt" | grep -q '^ 0x12064/.* psb #.* psb 18/' ||
	bad "the trace changed: 0x12064 is no PSB 18: $(tail -n 2 "$tmp/go4.txt" | head -n 1)"
tail -n 2 "$tmp/go1.txt" | grep -q '^ 0x1205b/' ||
	bad ":goto t 1155485cyc: $(tail -n 2 "$tmp/go1.txt" | head -n 1)"
tail -n 2 "$tmp/go2.txt" | grep -q '^ 0x12058/' ||
	bad ":goto tsc 0x106d0fd0e46c: $(tail -n 2 "$tmp/go2.txt" | head -n 1)"
tail -n 2 "$tmp/go3.txt" | grep -q '^ 0x12058/' ||
	bad ":goto t 1155484cyc: $(tail -n 2 "$tmp/go3.txt" | head -n 1)"
[ $fail = 0 ] && ok ":goto to a segment's first cycle count or TSC: the first packet with it"

"$BUILD/tools/ptgen" --ovf-rate 0.001 -S 1M -o "$tmp/ovf.pt" 2>/dev/null || { echo "FAIL ptgen"; exit 1; }
# TSC to TSC across the OVF at 0x22dc, no PSB, no halt
cat > "$tmp/ovf.keys" <<EOF2
wait-index
:region rovf 0x21e5 0x2432
:regions rovf
:save-screen $tmp/ovf.txt
EOF2
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/ovf.keys" --size 160x40 \
	"$tmp/ovf.pt" > "$tmp/ovf.out" 2>&1 || bad "ovf: exit status $?"
grep -q ' ovf 1 ' "$tmp/ovf.txt" || bad "the trace changed: no OVF in 0x21e5-0x2432: $(grep ' ovf ' "$tmp/ovf.txt")"
mhz=$(grep -m 1 'MHz avg' "$tmp/ovf.txt")
echo "$mhz" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "avg") a = $(i + 1); if ($i == "min") m = $(i + 1) } }
	END { exit !(a >= m) }' || bad "region over an OVF: average below the minimum: $mhz"
echo "$mhz" | grep -q 'halts included' && bad "region over an OVF: $mhz"
grep -q 'cycles ≈[0-9]* (data lost: not all counted)' "$tmp/ovf.txt" ||
	bad "region over an OVF: $(grep -m 1 '^ *cycles' "$tmp/ovf.txt")"
[ $fail = 0 ] && ok "a region over an OVF: MHz the measurements' mean, cycles not all counted"

exit $fail

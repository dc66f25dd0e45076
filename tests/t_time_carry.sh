#!/bin/sh
# t_time_carry -- the browser's rows take the time pass's carries as soon
# as the part of the index holding them is done: on a big generated trace
# a jump deep in shows cycles counted from the segment's PSB (psb+N), and
# once wait-carry says the cursor's segment has its carry, the same rows
# show the cycles since the start, equal to those after the whole index
# (no number changes after that).  Whether the index was still running at
# that point depends on the machine's speed: said, never asserted.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
SIZE=${T_TIME_CARRY_SIZE:-128MiB}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$BUILD/tools/ptgen" --seed 3 --size "$SIZE" -o "$tmp/big.pt" || { echo "FAIL: ptgen"; exit 1; }
cat > "$tmp/keys" <<EOF2
:50%
:save-screen $tmp/before.txt
wait-carry
:save-screen $tmp/carry.txt
wait-index
:save-screen $tmp/done.txt
EOF2
# shellcheck disable=SC2046
XDG_CACHE_HOME="$tmp/cache" "$PTBROWSE" --no-state --ascii --size 160x30 \
	--script "$tmp/keys" $(cat "$tmp/big.pt.options") "$tmp/big.pt" ||
	fail "--script: exit $?"
# The rows: everything but the header, the timeline (its two rows show
# the summaries built so far, which arrive with the time pass's carries)
# and the status lines.
rows() { sed -n '2,25p' "$1"; }
for f in before carry done; do
	[ -s "$tmp/$f.txt" ] || fail "no $f screen"
done
if head -n 1 "$tmp/before.txt" | grep -q 'index '; then
	rows "$tmp/before.txt" | grep -q 'psb+' ||
		fail "a jump before the time pass: cycles not marked as counted from the PSB"
fi
rows "$tmp/carry.txt" | grep -q 'psb+' && fail "wait-carry: rows still without the carry"
rows "$tmp/carry.txt" >"$tmp/r1"
rows "$tmp/done.txt" >"$tmp/r2"
cmp -s "$tmp/r1" "$tmp/r2" || fail "rows with the carry differ from the finished index's: $(diff "$tmp/r1" "$tmp/r2" | head -4)"
[ $status = 0 ] && echo "ok   rows with a published carry equal the finished index's"
if head -n 1 "$tmp/carry.txt" | grep -q 'index [ 0-9]*%'; then
	echo "ok   the carry was used before the whole index finished ($(head -n 1 "$tmp/carry.txt" | grep -o 'index [ 0-9]*%'))"
else
	echo "note: the index finished before wait-carry looked (a fast machine): not shown early"
fi
exit $status

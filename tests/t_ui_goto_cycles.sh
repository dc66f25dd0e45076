#!/bin/sh
# t_ui_goto_cycles -- `:goto t 5000cyc` and `t +1cyc` go to the first packet
# at or after that many core cycles from the start (they said "cycle
# positions not available"); the target is checked against `dump
# --cycles`, whose cycle counts come from the same time model.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
OPTS="--cpu 6/85/7 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$PTBROWSE" dump --cycles $OPTS "$T" >"$tmp/dump" || fail "dump --cycles: exit $?"
# The offset (0x, no leading zeros) of the first packet with >= @1 cycles.
first_at() {
	awk -v n="$1" '$1 ~ /^[0-9]+[=~ ]?$/ {
		c = $1; sub(/[=~]$/, "", c)
		for (i = 2; i <= NF; i++) if (length($i) == 16 && $i ~ /^[0-9a-f]+$/) break
		if (c + 0 >= n + 0) { o = $i; sub(/^0+/, "", o); print "0x" (o == "" ? "0" : o); exit }
	}' "$tmp/dump"
}
# The cycle count of the packet at offset @1.
cycles_at() {
	awk -v off="$1" '{
		for (i = 2; i <= NF; i++) if (length($i) == 16 && $i ~ /^[0-9a-f]+$/) break
		o = $i; sub(/^0+/, "", o)
		if ("0x" o == off) { c = $1; sub(/[=~]$/, "", c); print c; exit }
	}' "$tmp/dump"
}

a=$(first_at 5000)
b=$(first_at $(( $(cycles_at "$a") + 1 )))
c=$(first_at 200000)
d=$(first_at $(( $(cycles_at "$c") - 100000 )))
[ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && [ -n "$d" ] || fail "dump: no targets ($a $b $c $d)"
cat >"$tmp/keys" <<EOF
wait-index
:goto t 5000cyc
:save-screen $tmp/a.txt
:goto t +1cyc
:save-screen $tmp/b.txt
:goto t 200000cyc
:save-screen $tmp/c.txt
:goto t -100000cyc
:save-screen $tmp/d.txt
:goto t 999999999999cyc
:save-screen $tmp/e.txt
q
EOF
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x12 $OPTS "$T" >"$tmp/out" 2>&1 ||
	fail "exit $? ($(cat "$tmp/out"))"
for s in a b c d; do
	eval want=\$$s
	line=$(sed -n 11p "$tmp/$s.txt")
	case $line in
	" $want/"*) ;;
	*) fail "goto $s: want $want, status: $line; message: $(sed -n 12p "$tmp/$s.txt")" ;;
	esac
	grep -q 'not available' "$tmp/$s.txt" && fail "goto $s: $(sed -n 12p "$tmp/$s.txt")"
done
# Past the last cycle: said, the cursor stays.
grep -q 'no packet at or after 999999999999 cycles' "$tmp/e.txt" ||
	fail "goto past the end: $(sed -n 12p "$tmp/e.txt")"
grep -q "^ $d/" "$tmp/e.txt" || fail "goto past the end moved: $(sed -n 11p "$tmp/e.txt")"

# Without CYC packets: a clear message, not "not available".
printf 'wait-index\n:goto t 5000cyc\n:save-screen %s/n.txt\nq\n' "$tmp" >"$tmp/keys2"
"$PTBROWSE" --no-state --script "$tmp/keys2" --size 100x12 \
	"$SHARED/traces/keeper-perf-event-sample/traced_data.bin" >"$tmp/out" 2>&1 ||
	fail "no CYC: exit $?"
grep -q 'no packet at or after 5000 cycles' "$tmp/n.txt" || fail "no CYC: $(sed -n 12p "$tmp/n.txt")"

[ $status = 0 ] && echo ok
exit $status

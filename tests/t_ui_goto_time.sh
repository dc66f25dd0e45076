#!/bin/sh
# t_ui_goto_time -- `:goto t X` (and `export ... 't X'`) land on the first
# packet timed at or after X, checked against `dump --cycles` for targets
# spread over a ptgen trace whose timing (a TSC:ART ratio of 300/2 for a
# trace made at 100/2) makes the estimate run past the next PSB+'s TSC.
# They landed on the next PSB, whose PSB+ rows before its TSC still carry
# the segment before's time (shown up to 15 us past the target).  Also:
# `t +X` from the first PSB, where the browser opens (its PSB+ rows have
# no time yet: "the cursor has no time").  The timeline's jump to a TSC
# (:lane, a click on the time axis) likewise.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
OPTS="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 300"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$PTGEN" -S 1MiB -o "$tmp/a.pt" || { echo "ptgen failed"; exit 1; }
"$PTBROWSE" dump --cycles $OPTS "$tmp/a.pt" >"$tmp/dump" || fail "dump: exit $?"
# One line per packet: offset (0x, no leading zeros), ns, 1 if it is a
# PSB+ row before that PSB+'s TSC (its time is the segment before's), and
# its segment's number.
awk '{
	for (i = 2; i <= NF; i++) if (i > 3 && length($i) == 16 && $i ~ /^[0-9a-f]+$/) break
	ty = $(i + 1)
	if (ty == "psb") { inp = 1; seg++ }
	old = inp
	if (ty == "tsc") { inp = 0; old = 0 }
	if (ty == "psbend") inp = 0
	o = $i; sub(/^0+/, "", o)
	tsc = $2; sub(/[.~=].*/, "", tsc)
	print "0x" (o == "" ? "0" : o), $3, old, seg + 0, tsc
}' "$tmp/dump" >"$tmp/rows"
max=$(awk '$2 ~ /^[0-9]+$/ { m = $2 } END { print m }' "$tmp/rows")
[ -n "$max" ] && [ "$max" -gt 100000 ] || fail "dump: no times (max $max)"
# check T OFF: OFF is a packet timed at or after T ns, not a PSB+ row
# before its TSC, and no packet of its segment before it is (the segment
# is the index's choice: the last whose PSB+ TSC is at or before T).
check() {
	awk -v t="$1" -v o="$2" '
		$1 == o { found = 1
			if ($3 == 1) why = "a PSB+ row before its TSC"
			else if ($2 !~ /^[0-9]+$/ || $2 + 0 < t + 0) why = "shown " $2 " ns"
			else if (seg[$4] != "") why = "not the first: " seg[$4]
			exit }
		$2 ~ /^[0-9]+$/ && $3 == 0 && $2 + 0 >= t + 0 && seg[$4] == "" { seg[$4] = $1 " at " $2 " ns" }
		END { if (!found) why = "no such packet"; if (why != "") print why }' "$tmp/rows"
}
echo wait-index >"$tmp/keys"
i=0
while [ $i -lt 24 ]; do
	i=$((i + 1))
	t=$((max / 25 * i + i * 7919 % 1000))
	echo "$t" >>"$tmp/targets"
	printf ':goto t %dns\n:save-screen %s/%d.txt\n' "$t" "$tmp" $i >>"$tmp/keys"
done
"$PTBROWSE" --no-state --script "$tmp/keys" --size 140x12 $OPTS "$tmp/a.pt" >"$tmp/out" 2>&1 ||
	fail "exit $? ($(cat "$tmp/out"))"
i=0
while read -r t; do
	i=$((i + 1))
	off=$(sed -n 11p "$tmp/$i.txt" | awk '{ print $1 }' | cut -d/ -f1)
	why=$(check "$t" "$off")
	[ -z "$why" ] || fail "t ${t}ns: landed at $off: $why ($(sed -n 12p "$tmp/$i.txt"))"
	# export's TO is the same place (a slice from the start up to it)
	[ $((i % 6)) = 0 ] || continue
	"$PTBROWSE" export $OPTS "$tmp/a.pt" ^ "t ${t}ns" -o "$tmp/x.pt" 2>"$tmp/err" ||
		fail "export ^ 't ${t}ns': $(cat "$tmp/err")"
	grep -q ": 0x0-$off of" "$tmp/err" || fail "export ^ 't ${t}ns': want $off: $(cat "$tmp/err")"
done <"$tmp/targets"

# The timeline's jump to a time (:lane STREAM TSC, a click on the time
# axis) by the same rule: to the TSC of each sixth target's landing, a
# row timed at or after it, not a PSB+ row before its TSC (16-digit hex
# TSCs compare as strings).
echo wait-index >"$tmp/keys"
i=0
while read -r t; do
	i=$((i + 1))
	[ $((i % 6)) = 0 ] || continue
	off=$(sed -n 11p "$tmp/$i.txt" | awk '{ print $1 }' | cut -d/ -f1)
	tsc=$(awk -v o="$off" '$1 == o { print $5; exit }' "$tmp/rows")
	echo "$tsc" >>"$tmp/tscs"
	printf ':lane raw 0x%s\n:save-screen %s/l%d.txt\n' "$tsc" "$tmp" $i >>"$tmp/keys"
done <"$tmp/targets"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 140x12 $OPTS "$tmp/a.pt" >"$tmp/out" 2>&1 ||
	fail "lane: exit $? ($(cat "$tmp/out"))"
i=0
for tsc in $(cat "$tmp/tscs"); do
	i=$((i + 6))
	off=$(sed -n 11p "$tmp/l$i.txt" | awk '{ print $1 }' | cut -d/ -f1)
	why=$(awk -v o="$off" -v t="$tsc" '$1 == o { found = 1
			if ($3 == 1) why = "a PSB+ row before its TSC"
			else if ($5 < t) why = "TSC " $5
			exit }
		END { if (!found) why = "no such packet"; if (why != "") print why }' "$tmp/rows")
	[ -z "$why" ] || fail ":lane raw 0x$tsc: landed at $off: $why ($(sed -n 12p "$tmp/l$i.txt"))"
done

# t +X from where the browser opens (the first PSB, before its TSC).
printf 'wait-index\n:goto t +3us\n:save-screen %s/r.txt\nq\n' "$tmp" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 140x12 $OPTS "$tmp/a.pt" >"$tmp/out" 2>&1 ||
	fail "t +3us: exit $?"
off=$(sed -n 11p "$tmp/r.txt" | awk '{ print $1 }' | cut -d/ -f1)
why=$(check 3000 "$off")
[ -z "$why" ] || fail "t +3us from the start: at $off: $why ($(sed -n 12p "$tmp/r.txt"))"
"$PTBROWSE" export $OPTS "$tmp/a.pt" 0 't +3us' -o "$tmp/y.pt" 2>"$tmp/err" ||
	fail "export 0 't +3us': $(cat "$tmp/err")"

[ $status = 0 ] && echo ok
exit $status

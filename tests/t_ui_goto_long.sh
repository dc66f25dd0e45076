#!/bin/sh
# t_ui_goto_long -- :goto tsc V, :goto t T and :goto t Ncyc land on the
# first packet at or after their time however deep in a long PSB segment
# it lies: the UI looked at 32,768 rows and stopped on whichever it had
# reached (a TSC below V), silently, and a cycle count more than 262,144
# rows on was "no packet at or after N cycles", in the browser and in
# export.  Past those rows the rest is looked for in the
# background (wait-search waits for it).  The targets are checked against
# `dump --cycles`, whose TSCs come from the same time model.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

# The TSC (16 hex digits, its whole part) and the offset (0x, no leading
# zeros) of dump row @2 of file @1: "TSC OFFSET".
row() {
	awk -v n="$2" 'NR == n {
		for (i = 1; i <= NF; i++)
			if (length($i) == 19 && substr($i, 17, 1) == ".") t = substr($i, 1, 16)
			else if (length($i) == 16 && $i ~ /^[0-9a-f]+$/) { o = $i; break }
		sub(/^0+/, "", o); print t, "0x" (o == "" ? "0" : o); exit
	}' "$1"
}
# The offset of the first row of dump @1 whose TSC is at or after @2 (16
# hex digits: they compare as strings).
first_tsc() {
	awk -v v="$2" '{
		t = ""
		for (i = 1; i <= NF; i++)
			if (length($i) == 19 && substr($i, 17, 1) == ".") t = substr($i, 1, 16)
			else if (length($i) == 16 && $i ~ /^[0-9a-f]+$/) { o = $i; break }
		if (t != "" && t >= v) { sub(/^0+/, "", o); print "0x" (o == "" ? "0" : o); exit }
	}' "$1"
}
# The offset of the first row of dump @1 counted at or after @2 cycles.
first_cyc() {
	awk -v n="$2" '$1 ~ /^[0-9]+[=~ ]?$/ {
		c = $1; sub(/[=~]$/, "", c)
		for (i = 2; i <= NF; i++) if (length($i) == 16 && $i ~ /^[0-9a-f]+$/) break
		if (c + 0 >= n + 0) { o = $i; sub(/^0+/, "", o); print "0x" (o == "" ? "0" : o); exit }
	}' "$1"
}
# Goto @2 in trace @1 after the index and its times; the status line's
# offset, and the message line, into $got and $msg.
goto_in() {
	printf 'wait-index\nwait-carry\n:goto %s\nwait-search\n:save-screen %s/s.txt\nq\n' \
		"$2" "$tmp" >"$tmp/keys"
	rm -f "$tmp/s.txt"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x12 "$1" >"$tmp/out" 2>&1 ||
		fail "goto $2: exit $? ($(cat "$tmp/out"))"
	got=$(sed -n 11p "$tmp/s.txt" | awk '{ sub(/\/.*/, "", $1); print $1 }')
	msg=$(sed -n 12p "$tmp/s.txt")
}

# PSB segments of 64 KiB (some 56,000 packets) and of 1 MiB: a target
# 50,000 and 400,000 packets past the PSB.
"$GEN" --seed 4 --size 512K --psb-period 65536 -o "$tmp/a.pt" >/dev/null || fail "ptgen a"
"$GEN" --seed 4 --size 2MiB --psb-period 1048576 -o "$tmp/b.pt" >/dev/null || fail "ptgen b"
for c in "a 4 50000" "b 2 400000"; do
	set -- $c
	"$PTBROWSE" dump --cycles "$tmp/$1.pt" >"$tmp/$1.dump" || fail "dump $1: exit $?"
	psb=$(grep -n ' psb$' "$tmp/$1.dump" | sed -n "${2}p" | cut -d: -f1)
	set -- $(row "$tmp/$1.dump" $((psb + $3))) "$1"
	want=$(first_tsc "$tmp/$3.dump" "$1")
	[ -n "$want" ] || { fail "$3: no target in the dump"; continue; }
	goto_in "$tmp/$3.pt" "tsc 0x$1"
	[ "$got" = "$want" ] || fail "$3: goto tsc 0x$1: at $got, want $want ($msg)"
done

# +tsc V at the start: the same target (it stayed at the start, saying the
# target lay deeper than the first rows).
set -- $(row "$tmp/a.dump" $(($(grep -n ' psb$' "$tmp/a.dump" | sed -n 4p | cut -d: -f1) + 50000)))
want=$(first_tsc "$tmp/a.dump" "$1")
printf 'wait-index\nwait-carry\nwait-search\n:save-screen %s/s.txt\nq\n' "$tmp" >"$tmp/keys"
rm -f "$tmp/s.txt"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x12 "+tsc 0x$1" "$tmp/a.pt" >"$tmp/out" 2>&1 ||
	fail "+tsc 0x$1: exit $? ($(cat "$tmp/out"))"
got=$(sed -n 11p "$tmp/s.txt" | awk '{ sub(/\/.*/, "", $1); print $1 }')
[ "$got" = "$want" ] || fail "a: +tsc 0x$1: at $got, want $want ($(sed -n 12p "$tmp/s.txt"))"

# Cycles 600,000 packets into the 1 MiB segment.
psb=$(grep -n ' psb$' "$tmp/b.dump" | sed -n 2p | cut -d: -f1)
n=$(sed -n "$((psb + 600000))p" "$tmp/b.dump" | awk '{ c = $1; sub(/[=~]$/, "", c); print c }')
want=$(first_cyc "$tmp/b.dump" "$n")
case $n in '' | *[!0-9]*) fail "b: no cycle count in the dump ($n)" ;; esac
goto_in "$tmp/b.pt" "t ${n}cyc"
[ "$got" = "$want" ] || fail "b: goto t ${n}cyc: at $got, want $want ($msg)"
"$PTBROWSE" export "$tmp/b.pt" "t ${n}cyc" '$' -o "$tmp/x.pt" >"$tmp/out" 2>&1 ||
	fail "export 't ${n}cyc': $(cat "$tmp/out")"

[ $status = 0 ] && echo ok
exit $status

#!/bin/sh
# t_ui_time_marks -- a row's time is marked alike wherever it is shown: a
# CYC row's time, estimated between timing packets, is '~T' in the cycle
# pane, and so in the status line (its TSC too), the marks list and a
# region summary's delta from the reference; an MTC row's is plain in all
# of them.  Headless (--script).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" --seed 3 --size 256KiB -o "$tmp/t.pt" >/dev/null || exit 1
# 0x26665 is a CYC, 0x26192 and 0x26710 MTCs (ptgen --seed 3); 'b and 'c
# are the references of the regions hot (from a CYC) and cold (an MTC).
cat >"$tmp/keys" <<EOK
wait-index
:goto 0x26192
:mark c
:save-screen $tmp/mtc.txt
:goto 0x26665
:mark b
:save-screen $tmp/cyc.txt
:region hot 0x26700 0x26800
:region cold 0x26710 0x26800
:ref b
:regions hot
:save-screen $tmp/hot.txt
q
:ref c
:regions cold
:save-screen $tmp/cold.txt
EOK
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "exit status $? ($(cat "$tmp/out"))"

# The time in the cycle pane's cursor row, with its mark.
pane_time() {
	grep '^>' "$1" | grep -o '[~?]*[0-9][0-9.]* [mun]*s' | tail -n 1
}
status() { tail -n 2 "$1" | head -n 1; }

t=$(pane_time "$tmp/cyc.txt")
case $t in
"~"[0-9]*) ;;
*) bad "the pane's time of the CYC row is '$t', not ~T: $(grep '^>' "$tmp/cyc.txt")" ;;
esac
case $(status "$tmp/cyc.txt") in
*"  cyc #"*"  tsc ~0x"*"  $t") ;;
*) bad "status line at the CYC row: '$(status "$tmp/cyc.txt")' (the pane: $t)" ;;
esac
grep -q "^ mark  *b  *0x00026665  *$t *\$" "$tmp/hot.txt" ||
	bad "marks list: $(grep '^ mark  *b ' "$tmp/hot.txt") (the pane: $t)"
grep -q "^ from 'b: +0x[0-9a-f]* bytes, ~+[0-9]" "$tmp/hot.txt" ||
	bad "region hot from 'b: $(grep "^ from" "$tmp/hot.txt")"

t=$(pane_time "$tmp/mtc.txt")
case $t in
[0-9]*) ;;
*) bad "the pane's time of the MTC row is '$t', not plain: $(grep '^>' "$tmp/mtc.txt")" ;;
esac
case $(status "$tmp/mtc.txt") in
*"  mtc #"*"  tsc 0x"*"  $t") ;;
*) bad "status line at the MTC row: '$(status "$tmp/mtc.txt")' (the pane: $t)" ;;
esac
grep -q "^ mark  *c  *0x00026192  *$t *\$" "$tmp/cold.txt" ||
	bad "marks list: $(grep '^ mark  *c ' "$tmp/cold.txt") (the pane: $t)"
grep -q "^ from 'c: +0x[0-9a-f]* bytes, +[0-9]" "$tmp/cold.txt" ||
	bad "region cold from 'c: $(grep "^ from" "$tmp/cold.txt")"

[ $fail = 0 ] && echo "ok   a CYC row's time is ~T in the pane, the status line, the marks list and a delta; an MTC row's plain"

# The cycle pane's tsc column marks an estimated TSC as the time, and its
# delta to the reference is as sure as its less sure end: the MTC row
# from the CYC 'b ~, from the MTC 'c plain; the CYC row from 'c ~.
cat >"$tmp/keys2" <<EOK
wait-index
:set columns tsc,dref
:goto 0x26192
:mark c
:goto 0x26665
:mark b
:goto 0x26710
:ref b
:save-screen $tmp/c1.txt
:ref c
:save-screen $tmp/c2.txt
:goto 0x26665
:save-screen $tmp/c3.txt
EOK
"$PTBROWSE" --no-state --script "$tmp/keys2" --size 120x40 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "columns: exit status $? ($(cat "$tmp/out"))"
cells() { grep '^>' "$1" | sed 's/.*│ *//'; }
echo "$(cells "$tmp/c1.txt")" | grep -q '^[0-9a-f]*  *~+[0-9]' ||
	bad "MTC row from 'b: '$(cells "$tmp/c1.txt")', not a plain TSC and a ~ delta"
echo "$(cells "$tmp/c2.txt")" | grep -q '^[0-9a-f]*  *+[0-9]' ||
	bad "MTC row from 'c: '$(cells "$tmp/c2.txt")', not plain"
echo "$(cells "$tmp/c3.txt")" | grep -q '^~[0-9a-f]*  *~+[0-9]' ||
	bad "CYC row from 'c: '$(cells "$tmp/c3.txt")', not a ~ TSC and a ~ delta"
[ $fail = 0 ] && echo "ok   the tsc column marks an estimated TSC, a delta is as sure as its less sure end"
exit $fail

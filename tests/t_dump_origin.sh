#!/bin/sh
# t_dump_origin -- `dump --cycles` counts its ns column from the browser's
# time origin: with the first PSB+ TSC damaged far into the future, from
# the first segment whose TSC agrees with its neighbours'
# (idx_time_origin()), both from the start (a small index of the first
# segments) and over TRACE:FROM-TO (the whole index), not from the damaged
# TSC (every row showed -29789435025143435); a value too long for the
# column (the damaged segment's own rows) keeps it 14 places wide.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

args="--seed 5 --size 1MiB"
# shellcheck disable=SC2086
"$gen" $args -o "$tmp/good.pt" || { echo "FAIL: ptgen"; exit 1; }
# shellcheck disable=SC2086
opts="$("$gen" $args --print-config) --tsc-freq 1.2GHz"
cp "$tmp/good.pt" "$tmp/bad.pt"
# shellcheck disable=SC2086
"$PTBROWSE" dump --cycles $opts "$tmp/good.pt" >"$tmp/good" || { echo "FAIL: dump"; exit 1; }
# Columns: ns at 35..48 (right-aligned), the offset at 72..87 and the
# packet after it (the flags column may be empty: no fields).
cols='function ns() { v = substr($0, 35, 14); gsub(/ /, "", v); return v }
function off() { return substr($0, 72, 16) }
function pk() { split(substr($0, 88), a, " "); return a[1] }'
# The first two PSB+ TSCs.
tscs=$(awk "$cols"'
	pk() == "psb" { p++ }
	pk() == "tsc" && p <= 2 && !s[p]++ { print off() }' "$tmp/good")
t1=$(echo "$tscs" | sed -n 1p)
t2=$(echo "$tscs" | sed -n 2p)
[ -n "$t1" ] && [ -n "$t2" ] || { echo "FAIL: no two PSB+ TSCs ($tscs)"; exit 1; }
printf '\177' | dd of="$tmp/bad.pt" bs=1 seek=$((0x$t1 + 7)) conv=notrunc 2>/dev/null
cmp -s "$tmp/good.pt" "$tmp/bad.pt" && { echo "FAIL: patch"; exit 1; }
# shellcheck disable=SC2086
"$PTBROWSE" dump --cycles $opts "$tmp/bad.pt" >"$tmp/bad" 2>"$tmp/err" ||
	bad "dump --cycles of the damaged trace: $(cat "$tmp/err")"

# The prefix is 71 places wide on every row: the offset follows at 72.
awk 'substr($0, 72, 16) !~ /^[0-9a-f]+$/ { print NR ": " $0; exit 1 }' "$tmp/bad" >"$tmp/mis" &&
	ok "dump --cycles keeps its columns with a far-future first TSC" ||
	bad "a row out of its columns: $(cat "$tmp/mis")"

# From the second segment on, each row's ns counts from the second PSB+
# TSC's own value: ns is TSC * 10^9 / 1.2 GHz rounded down, TSC * 5 / 6.
python3 - "$tmp/bad" "$t1" "$t2" >"$tmp/diff" <<'PY' &&
import sys
rows = [l.rstrip('\n') for l in open(sys.argv[1])]
t1, t2 = int(sys.argv[2], 16), int(sys.argv[3], 16)
origin = None
n = 0
for l in rows:
    off, pk = int(l[71:87], 16), l[87:].split()
    if off == t2:
        origin = int(pk[1], 16) * 5 // 6
    ns = l[34:48].strip()
    if origin is None or ns == '-':
        continue
    want = int(l[14:30], 16) * 5 // 6 - origin
    if int(ns) != want:
        print('%x: %s, not %d' % (off, ns, want))
        sys.exit(1)
    n += 1
print('%d rows' % n)
sys.exit(0 if n > 1000 else 1)
PY
	ok "dump --cycles counts ns from the first sound segment's TSC, as the browser ($(cat "$tmp/diff"))" ||
	bad "ns not from the first sound segment's TSC: $(cat "$tmp/diff")"

# TRACE:FROM-TO (the index's carry and origin): the same rows.
# shellcheck disable=SC2086
"$PTBROWSE" dump --cycles $opts "$tmp/bad.pt:0x80000-0x81000" >"$tmp/win" 2>"$tmp/err" ||
	bad "dump --cycles T:FROM-TO: $(cat "$tmp/err")"
first=$(awk "$cols"'NR == 1 { print off() }' "$tmp/win")
awk -v o="$first" "$cols"'off() == o { on = 1 } on' "$tmp/bad" |
	head -n "$(wc -l <"$tmp/win")" >"$tmp/same"
[ -s "$tmp/win" ] && cmp -s "$tmp/win" "$tmp/same" &&
	ok "dump --cycles T:FROM-TO has the whole dump's rows ($(wc -l <"$tmp/win"))" ||
	bad "T:FROM-TO differs from the whole dump: $(diff "$tmp/win" "$tmp/same" | head -n 3)"

# Three PSBs only: the small index covers the last segment too (it left it
# out, and with two segments the first could not be told damaged: every
# row counted from it, -2.9789435e+16).
# shellcheck disable=SC2086
"$gen" --seed 5 --size 12KiB -o "$tmp/s.pt" >/dev/null || bad "ptgen 12KiB"
printf '\177' | dd of="$tmp/s.pt" bs=1 seek=$((0x$t1 + 7)) conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
"$PTBROWSE" dump --cycles $opts "$tmp/s.pt" >"$tmp/small" 2>"$tmp/err" ||
	bad "dump --cycles of the 3-PSB trace: $(cat "$tmp/err")"
last=$(tail -n 1 "$tmp/small" | cut -c35-48 | tr -d ' ')
case $last in
''|-*|*e*) bad "the 3-PSB trace's last row counts from the damaged TSC: '$last'" ;;
*) ok "dump --cycles of a trace of three PSBs counts from the sound TSC ($last ns)" ;;
esac
exit $fail

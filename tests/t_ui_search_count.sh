#!/bin/sh
# t_ui_search_count -- n and N past the hits a search keeps (65536, the
# nearest) search again from the cursor knowing the count: N right after
# a forward search with 800000 hits (the previous hit lies before the
# start, across the wrap, and is not kept) lands on the previous hit, and
# the status line keeps the count the first search made, never a partial
# one ('+'); a count past the kept hits goes on to its hit.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

args="--seed 3 --size 2MiB"
# shellcheck disable=SC2086
"$gen" $args -o "$tmp/t.pt" || { echo "FAIL: ptgen"; exit 1; }
# shellcheck disable=SC2086
opts=$("$gen" $args --print-config)
cat > "$tmp/keys" <<KEYS
wait-index
:goto 50%
/ t n t . 8 Enter
wait-search
:save-screen $tmp/n1.txt
N
:save-screen $tmp/n2.txt
N
:save-screen $tmp/n3.txt
q
KEYS
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 140x24 \
	$opts "$tmp/t.pt" >"$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
count() { tail -n 2 "$tmp/$1.txt" | head -n 1 | sed -n 's/.*\/tnt\.8 \[[-0-9]*\/\([0-9+]*\)\].*/\1/p'; }
off() { tail -n 2 "$tmp/$1.txt" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'; }
n1=$(count n1) n2=$(count n2) n3=$(count n3)
[ -n "$n1" ] && [ "$n1" -gt 65536 ] 2>/dev/null || fail "the first search's count: '$n1'"
[ "$n2" = "$n1" ] || fail "N past the kept hits: count '$n2', the search's was '$n1'"
[ "$n3" = "$n1" ] || fail "N again: count '$n3', the search's was '$n1'"
# the hits before the start, one by one, nearest first
"$PTBROWSE" dump "$tmp/t.pt" | awk '$2 == "tnt.8" { print $1 }' > "$tmp/hits"
a=$(($(off n1))) b=$(($(off n2))) c=$(($(off n3)))
# (dump's offsets are 16 hex digits: compared as strings)
prev() {
	p=$(awk -v x="$(printf '%016x' "$1")" '($1 "") < (x "") { p = $1 } END { print p }' "$tmp/hits")
	[ -n "$p" ] && echo $((0x$p))
}
[ "$b" = "$(prev "$a")" ] || fail "N from $a went to $b, not $(prev "$a")"
[ "$c" = "$(prev "$b")" ] || fail "N from $b went to $c, not $(prev "$b")"
# A count past the kept hits goes on (it stopped on the last kept hit,
# the 65536th, with no word): 70000n from the first hit is the 70001st,
# 10n more the 70011th, 70010N back to the first; and a count past every
# hit goes round (785670 + 2)n: two on.
cat > "$tmp/keys" <<KEYS
wait-index
/ t n t . 8 Enter
wait-search
7 0 0 0 0 n
:save-screen $tmp/c1.txt
1 0 n
:save-screen $tmp/c2.txt
7 0 0 1 0 N
:save-screen $tmp/c3.txt
$(echo "$n1" | sed 's/./& /g')
n
:save-screen $tmp/c4.txt
q
KEYS
# shellcheck disable=SC2086
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 140x24 \
	$opts "$tmp/t.pt" >"$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
hit() { echo $((0x$(sed -n "$1p" "$tmp/hits"))); }
[ "$(($(off c1)))" = "$(hit 70001)" ] || fail "70000n: at $(off c1), not hit 70001 $(hit 70001)"
[ "$(($(off c2)))" = "$(hit 70011)" ] || fail "10n: at $(off c2), not hit 70011 $(hit 70011)"
[ "$(($(off c3)))" = "$(hit 1)" ] || fail "70010N: at $(off c3), not hit 1 $(hit 1)"
[ "$(($(off c4)))" = "$(hit 1)" ] || fail "${n1}n from hit 1: at $(off c4), not hit 1 (round)"
[ "$(count c1)" = "$n1" ] || fail "70000n: count $(count c1), not $n1"
[ $status = 0 ] && echo "ok   N past the kept hits keeps the count ($n1) and finds the previous hit; counts past them go on"
exit $status

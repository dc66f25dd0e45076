#!/bin/sh
# The script's bench directive (ui/script.c), as bench/b_*.sh use it: a
# !TOKEN sets the round up untimed (not counted), "{i}" is the round
# number everywhere in the command and in a !TOKEN, and the median, p99
# and CPU median lines come out.  On a generated trace: "!{i}0% :goto +0x{i}0{i}0"
# twice leaves the cursor where 10%, +0x1010, 20%, +0x2020 typed by hand
# do.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
"$BUILD/tools/ptgen" --seed 1 --size 64KiB -o "$tmp/s.pt" >/dev/null || { echo "FAIL ptgen"; exit 1; }
printf 'wait-index\nbench t 2 !{i}0%% :goto +0x{i}0{i}0\n:goto +0\n:save-screen %s\n' \
	"$tmp/screen" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x20 "$tmp/s.pt" >"$tmp/out" 2>&1 ||
	bad "exit status: $(cat "$tmp/out")"
grep -q '^browse  t  .*median .* p99 .*(2 keys)$' "$tmp/out" || bad "not 2 timed keys: $(cat "$tmp/out")"
grep -q '^result browse-t-median-ms [0-9.]*$' "$tmp/out" || bad "no median result"
grep -q '^result browse-t-p99-ms [0-9.]*$' "$tmp/out" || bad "no p99 result"
grep -q '^result browse-t-cpu-median-ms [0-9.]*$' "$tmp/out" || bad "no CPU median result"
# where the two rounds left the cursor, against the same moves by hand
printf 'wait-index\n10%%\n:goto +0x1010\n20%%\n:goto +0x2020\n:goto +0\n:save-screen %s\n' \
	"$tmp/want" >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x20 "$tmp/s.pt" >/dev/null 2>&1
a=$(grep '^>' "$tmp/screen") b=$(grep '^>' "$tmp/want")
[ -n "$a" ] && [ "$a" = "$b" ] || bad "the rounds did not move as {i} says: '$a', want '$b'"
[ $fail = 0 ] && echo "ok t_script_bench"
exit $fail

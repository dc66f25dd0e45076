#!/bin/sh
# t_ui_code_nocode -- the code view's row for code missing from the
# --raw images gives the address that had none (the user looks for it in
# the images given) and why: dyn_test's images leave out the dynamic
# loader at 0x7ffff7fcf000 (the row said only "no memory mapped").
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
K=$SHARED/traces/libxdc-kafl-flow
[ -f "$K/dyn_test_sample_raw_0.pt" ] || { echo "skip: no $K"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
printf 'wait-index\n:goto 0x1ac0\nc\n:save-screen %s/s.txt\nq\n' "$tmp" >"$tmp/keys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 160x30 \
	--options "$K/dyn_test.options" "$K/dyn_test_sample_raw_0.pt" >"$tmp/out" 2>&1 ||
	{ echo "FAIL exit $?: $(cat "$tmp/out")"; exit 1; }
if grep -q '\[error: no memory mapped at this address: 00007ffff7fcf000: not in any image given\]' "$tmp/s.txt"; then
	echo "ok   the missing code's row gives its address and why"
else
	echo "FAIL no address in the missing code's row: $(grep error "$tmp/s.txt")"
	exit 1
fi

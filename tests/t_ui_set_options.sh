#!/bin/sh
# t_ui_set_options -- ':set' with an option it does not have names every
# option it has, view too (it was left out).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM

"$GEN" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || { echo "FAIL: ptgen"; exit 1; }
printf ':set nosuch on\n:save-screen %s\n' "$tmp/s.txt" > "$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$tmp/t.pt" >/dev/null 2>&1
l=$(tail -n 1 "$tmp/s.txt")
for o in raw ip symbols columns axis mouse keymap view; do
	echo "$l" | grep -q "[( ]$o[ )]" || { echo "FAIL: '$o' not in: $l"; exit 1; }
done
echo ok

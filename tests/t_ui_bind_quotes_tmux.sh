#!/bin/sh
# t_ui_bind_quotes_tmux -- in a terminal, a pipe bound in a keymap file
# gets the file's quotes as written: '$HOME' reaches sh literally, "$HOME"
# expanded (the '...' word reached sh in "..." and was expanded too), both
# from keymaps/NAME.keys and from :source FILE.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
mkdir -p "$tmp/config/ptbrowse/keymaps" "$tmp/home"
cat >"$tmp/config/ptbrowse/keymaps/default.keys" <<EOF
bind X pipe rows 1 -- printf '%s\n' '\$HOME' "\$HOME" > $tmp/x.txt
EOF
cat >"$tmp/more.keys" <<EOF
bind Y pipe rows 1 -- awk '{ print \$1 }' > $tmp/y.txt # the offset
EOF

tm_start HOME="$tmp/home" -- --no-state --keymap default "$tmp/t.pt"
wait_for '0x00000000'
keys X
wait_for 'press Enter'
keys Enter
wait_for 'piped 1 rows'
[ "$(sed -n 1p "$tmp/x.txt")" = '$HOME' ] ||
	fail "'\$HOME' reached sh as '$(sed -n 1p "$tmp/x.txt")', not literally"
[ "$(sed -n 2p "$tmp/x.txt")" = "$tmp/home" ] ||
	fail "\"\$HOME\" reached sh as '$(sed -n 2p "$tmp/x.txt")', not expanded"
keys ":source $tmp/more.keys" Enter
keys Y
wait_for 'press Enter'
keys Enter
wait_for 'piped 1 rows'
[ "$(cat "$tmp/y.txt")" = 0x00000000 ] ||
	fail "awk '{ print \$1 }' printed '$(cat "$tmp/y.txt")', not the offset"
tm_quit
echo "ok   a keymap file's '...' reaches pipe's sh literally, \"...\" expanded"

#!/bin/sh
# t_ui_bind_quotes_prompt -- a pipe bound at the prompt (:bind) or by the
# config file's bind line gets its quotes as written, as one bound in a
# keymap file does: '$HOME' reaches sh literally, "$HOME" expanded (the
# prompt's and the config's split said only "quoted", and the '...' word
# reached sh in "..."); a word quoted in part reaches sh as written too
# (x'$HOME', \$HOME and -F'\t' reached it unquoted: $HOME expanded, \t
# read as t), and one that cannot be written so is refused.  Headless
# (--script).
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export HOME=$tmp/home LC_ALL=C.UTF-8
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || exit 1
mkdir -p "$tmp/config/ptbrowse" "$HOME"
cat >"$tmp/config/ptbrowse/config" <<EOF
bind C pipe rows 1 -- printf '%s\n' '\$HOME' "\$HOME" x'\$HOME' > $tmp/c.txt # a note
EOF
cat >"$tmp/k" <<EOF
:bind X pipe rows 1 -- printf '%s\n' '\$HOME' "\$HOME" x'\$HOME' \\\$HOME -F'\t' > $tmp/x.txt
X
Enter
C
Enter
:bind Z pipe rows 1 -- echo x'a'\$1 > $tmp/z.txt
:save-screen $tmp/z.scr
EOF
"$PTBROWSE" --no-state --script "$tmp/k" --size 120x10 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "exit status $? ($(cat "$tmp/out"))"
for f in x c; do
	[ "$(sed -n 1p "$tmp/$f.txt" 2>/dev/null)" = '$HOME' ] ||
		bad "$f: '\$HOME' reached sh as '$(sed -n 1p "$tmp/$f.txt" 2>/dev/null)', not literally"
	[ "$(sed -n 2p "$tmp/$f.txt" 2>/dev/null)" = "$HOME" ] ||
		bad "$f: \"\$HOME\" reached sh as '$(sed -n 2p "$tmp/$f.txt" 2>/dev/null)', not expanded"
	[ "$(sed -n 3p "$tmp/$f.txt" 2>/dev/null)" = 'x$HOME' ] ||
		bad "$f: x'\$HOME' reached sh as '$(sed -n 3p "$tmp/$f.txt" 2>/dev/null)'"
done
[ "$(sed -n 4p "$tmp/x.txt" 2>/dev/null)" = '$HOME' ] ||
	bad "x: \\\$HOME reached sh as '$(sed -n 4p "$tmp/x.txt" 2>/dev/null)'"
[ "$(sed -n 5p "$tmp/x.txt" 2>/dev/null)" = '-F\t' ] ||
	bad "x: -F'\\\\t' reached sh as '$(sed -n 5p "$tmp/x.txt" 2>/dev/null)'"
tail -n 1 "$tmp/z.scr" | grep -q "^bind: pipe: 'xa\$1' is quoted in part" ||
	bad "x'a'\$1 not refused: '$(tail -n 1 "$tmp/z.scr")'"
[ $fail = 0 ] && echo "ok   :bind and the config's bind give pipe's sh the quotes as written"
exit $fail

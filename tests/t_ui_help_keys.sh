#!/bin/sh
# t_ui_help_keys -- help in the keymap's own keys: the count prefixes have
# their rows (0..9; M-0..M-9 and C-u in emacs), the intro's count examples
# are typed as the keymap takes them (3j in the default, M-3 C-n in
# emacs, where 3 is not bound), and an action without a key says so in
# words: '-' is emacs's Zoom out key, not "no key".
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$GEN" --seed 2 --size 1MiB -o "$tmp/t.pt" >/dev/null || { echo "FAIL: ptgen"; exit 1; }
for km in default emacs; do
	printf 'F1\n:save-screen %s\n' "$tmp/$km.txt" > "$tmp/keys.$km"
	"$PTBROWSE" --no-state --keymap $km --script "$tmp/keys.$km" --size 120x250 \
		"$tmp/t.pt" >/dev/null 2>&1 || fail "$km: the script failed"
done
has() { grep -Eq -- "$2" "$tmp/$1.txt" || fail "$1: no line like '$2'"; }

has default '^\(3j, 50%\)\. '
has default '^  0\.\.9 +digit-argument '
has emacs '^\(M-3 C-n, M-5 M-0 M-g %\)\. '
has emacs '^  M-0\.\.M-9 +digit-argument '
has emacs '^  C-u +universal-argument '
has emacs '^  - +timeline-zoom +Zoom out'
has emacs '^  \(no key\) +scroll-down '
[ "$(grep -Ec '^  - ' "$tmp/emacs.txt")" = 1 ] ||
	fail "emacs: '-' stands for something other than its key: $(grep -E '^  - ' "$tmp/emacs.txt")"
[ $status = 0 ] && echo ok
exit $status

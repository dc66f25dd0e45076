#!/bin/sh
# t_ui_bind_args -- a key bound with arguments runs its command as the
# prompt line would: a command taking its text as typed gets it as typed
# (pipe's sh gets echo "x  y" with its quotes, as from the prompt), a quoted
# word stays quoted and a plain one plain (region hot \'a \'b and region
# cold "spin" were usage errors: 'a was quoted for its ', spin not for
# being quoted); a none key with longer sequences is their prefix (w y
# was accepted and could never be typed).  Headless (--script).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || exit 1
cat >"$tmp/k" <<EOK
:bind X pipe rows 3 -- cat > $tmp/p.txt
X
Enter
:save-screen $tmp/s1.txt
m a
j
j
m b
:bind Y region hot \\'a \\'b
Y
:save-screen $tmp/s2.txt
:bind W region cold "spin"
v
j
j
W
:save-screen $tmp/s3.txt
:bind w none
:bind w y goto-end
w
y
:save-screen $tmp/s4.txt
:bind Z pipe rows 1 -- echo "x  y" > $tmp/q.txt
Z
Enter
EOK
"$PTBROWSE" --no-state --script "$tmp/k" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "exit status $?"
[ -f "$tmp/p.txt" ] && [ "$(wc -l <"$tmp/p.txt")" = 3 ] || bad "pipe: $(tail -n 1 "$tmp/s1.txt")"
[ "$(cat "$tmp/q.txt" 2>/dev/null)" = "x  y" ] || bad "pipe's shell quotes: '$(cat "$tmp/q.txt" 2>/dev/null)'"
[ "$(tail -n 1 "$tmp/s2.txt" | sed 's/ *$//')" = "region hot: 0x10-0x14 (4 bytes)" ] ||
	bad "region hot 'a 'b: '$(tail -n 1 "$tmp/s2.txt")'"
[ "$(tail -n 1 "$tmp/s3.txt" | sed 's/ *$//')" = "region cold: 0x14-0x2b (23 bytes)" ] ||
	bad "region cold \"spin\": '$(tail -n 1 "$tmp/s3.txt")'"
grep -q '^ 0x[0-9a-f]*/0x10000 100\.0%' "$tmp/s4.txt" || bad "w y: $(tail -n 2 "$tmp/s4.txt")"
[ $fail = 0 ] && echo "ok   bound arguments reach the command as the prompt gives them"
exit $fail

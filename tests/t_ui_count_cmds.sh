#!/bin/sh
# t_ui_count_cmds -- the count prefixes as commands: ':digit-argument 12'
# then j moves as '1 2 j' does, ':universal-argument' as C-u (4, 16 twice,
# 'universal-argument 7' as C-u 7); they said "not available yet".
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
# The cursor's row after the script lines $1 ('|' between them).
row() {
	printf '%s\n' "$1" | tr '|' '\n' > "$tmp/keys"
	echo ":save-screen $tmp/s.txt" >> "$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$tmp/t.pt" \
		>/dev/null 2>&1 || fail "$1: the script failed"
	grep '^>' "$tmp/s.txt" | cut -c1-30
	tail -n 1 "$tmp/s.txt"
}
same() {
	a=$(row "$1")
	b=$(row "$2")
	[ "$a" = "$b" ] || fail "'$1' gives '$a', '$2' '$b'"
}
same ':digit-argument 12|j' '1|2|j'
same ':universal-argument|j' '4|j'
same ':universal-argument|:universal-argument|j' '1|6|j'
same ':universal-argument 7|j' '7|j'
row ':digit-argument' | grep -q 'digit-argument: which digits' ||
	fail ":digit-argument without digits: $(row ':digit-argument')"
row ':help digit-argument' >/dev/null
head -n 1 "$tmp/s.txt" | grep -q '^  0\.\.9  *digit-argument ' ||
	fail ":help digit-argument: $(head -n 1 "$tmp/s.txt")"
[ $status = 0 ] && echo ok
exit $status

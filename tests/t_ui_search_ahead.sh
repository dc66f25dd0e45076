#!/bin/sh
# t_ui_search_ahead -- n and N typed right after a search's Enter, before
# its first hit is known, go on from that hit (less, vim): '/pwre' Enter n
# lands on the second PWRE, n n on the third, n N N wraps to the last, a
# count '3*' on the fourth after the cursor, '?pwre' Enter n on the one
# before the last.  They were lost: the first hit, when it came, was
# jumped to over them ([1/8], nothing said).  The PWREs lie from 32 MiB
# on, so the search has not found one when the keys come.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=$BUILD/tools/ptgen
[ -x "$PTGEN" ] || { echo "no $PTGEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$PTGEN" -S 64MiB --no-sleep --sleep-at 32MiB:100000 --sleep-at 40MiB:100000 \
	--sleep-at 48MiB:100000 --sleep-at 56MiB:100000 -o "$tmp/p.pt" > /dev/null ||
	fail "ptgen"
# (only where they were planted: a dump of the whole takes seconds)
for at in 32 40 48 56; do
	"$PTBROWSE" dump --no-timing "$tmp/p.pt:$(((at << 20) - 65536))-$(((at << 20) + 65536))"
done | awk '$2 == "pwre" { print "0x" $1 }' > "$tmp/pwre"
[ "$(wc -l < "$tmp/pwre")" -eq 8 ] || fail "ptgen planted $(wc -l < "$tmp/pwre") PWREs, not 8"
pwre() { sed -n "$1p" "$tmp/pwre"; }

st() { screen | tail -n 2 | head -n 1; }
msg() { screen | tail -n 1; }
# top: at the first packet, off any hit (the last search's [K/8] gone)
top() {
	keys g
	wait_off 0
	wait_for '[/?]pwre \[-/'
}
# check WHAT K: the search ends on the K'th PWRE, [K/8] (it may land on
# the first and go on once the next hits are known)
check() {
	i=0
	until st | grep -q "[/?]pwre \[$2/8\]"; do
		[ $i -lt 300 ] || fail "$1: $(st), not [$2/8]: $(msg)"
		sleep 0.1
		i=$((i + 1))
	done
	[ $(($(status_off))) -eq $(($(pwre "$2"))) ] ||
		fail "$1: at $(status_off), not PWRE $2 at $(pwre "$2"): $(st) / $(msg)"
}

tm_start -- --options "$tmp/p.pt.options" "$tmp/p.pt"
# the index done: a search with it from the start
i=0
while screen | grep -Eq 'index [0-9]+%|until indexed' && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done

# a count on '*' (no search for the type yet): 3 from the cursor
keys ":goto $(pwre 1)" Enter
wait_off "$(pwre 1)"
keys 3 '*'
check "3* from the first" 4
top
keys /pwre Enter n
check "/pwre Enter n" 2
top
keys /pwre Enter n n
check "/pwre Enter n n" 3
top
keys /pwre Enter n N N
check "/pwre Enter n N N" 8
msg | grep -q 'search hit TOP' || fail "n N N: the wrap not said: $(msg)"
top
keys '?pwre' Enter n
check "?pwre Enter n" 7
# the steps typed ahead are said while the search looks
top
keys /pwre Enter n
check "/pwre Enter n, again" 2
messages_have 'searching /pwre \(C-c stops\); then 1 n from its first hit'
tm_quit
echo "ok   n, N and a count typed before a search's first hit go on from it"

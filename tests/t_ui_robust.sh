#!/bin/sh
# t_ui_robust -- scripted browser runs that once crashed or misled: a
# resize= out of bounds (SIGSEGV in ncurses at 100000x100000).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0

fail() { echo "FAIL: $*"; status=1; }
[ -r "$T" ] || { echo "no trace $T"; exit 1; }

# resize= takes the bounds of --size and says why it refuses.
for bad in 100000x100000 0x5 5x0 80x24junk -3x4 x; do
	printf 'resize=%s\n:save-screen %s\nresize=60x20\n:save-screen %s\nq\n' \
		"$bad" "$tmp/bad.txt" "$tmp/after.txt" > "$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$T" > "$tmp/out" 2>&1 ||
		fail "resize=$bad: exit status $? ($(cat "$tmp/out"))"
	grep -q "resize=.*want resize=COLSxROWS, each 1 to 1000" "$tmp/bad.txt" ||
		fail "resize=$bad: no message"
	[ "$(wc -l < "$tmp/bad.txt")" -eq 30 ] || fail "resize=$bad changed the screen"
	[ "$(wc -l < "$tmp/after.txt")" -eq 20 ] || fail "resize=60x20 after resize=$bad did not resize"
done

[ $status -eq 0 ] && echo ok
exit $status

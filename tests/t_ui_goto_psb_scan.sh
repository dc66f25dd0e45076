#!/bin/sh
# t_ui_goto_psb_scan -- `:goto psb -1` and `psb +1` right after `:goto 90%`,
# while the index still looks for sync points: they went from the last
# sync point found so far (to 16%, or "no sync point 1 back"), and the
# status line said "psb 8176/8177+" at 90%.  Now they land where they do
# once the index is built, or say the sync points are still being
# indexed; the status line shows the right number or "psb ?/N+".  An index
# stopped by C-c says so, not "still being indexed" for good.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

"$PTGEN" -S 64MiB -o "$tmp/b.pt" || { echo "ptgen failed"; exit 1; }
# The screen's status line, offset and psb N of file $1.
off() { sed -n 9p "$1" | awk '{ print $1 }' | cut -d/ -f1; }
psbn() { sed -n 9p "$1" | sed -n 's/.*  psb \([0-9?]*\)\/.*/\1/p'; }
msg() { sed -n 10p "$1"; }

# Where they land once the index is built.
printf 'wait-index\n:goto 90%%\n:save-screen %s/r0.txt\n:goto psb -1\n:save-screen %s/r1.txt\n:goto 90%%\n:goto psb +1\n:save-screen %s/r2.txt\n' \
	"$tmp" "$tmp" "$tmp" >"$tmp/ref.s"
"$PTBROWSE" --no-state --script "$tmp/ref.s" --size 120x10 "$tmp/b.pt" >"$tmp/out" 2>&1 ||
	fail "ref: exit $? ($(cat "$tmp/out"))"
n0=$(psbn "$tmp/r0.txt") o1=$(off "$tmp/r1.txt") o2=$(off "$tmp/r2.txt")
[ -n "$n0" ] && [ -n "$o1" ] && [ -n "$o2" ] || fail "ref: '$n0' '$o1' '$o2'"

# Without waiting, from a fresh cache: the index is still scanning.
rm -rf "$tmp/cache"
printf ':goto 90%%\n:save-screen %s/a0.txt\n:goto psb -1\n:save-screen %s/a1.txt\n:goto 90%%\n:goto psb +1\n:save-screen %s/a2.txt\n' \
	"$tmp" "$tmp" "$tmp" >"$tmp/now.s"
"$PTBROWSE" --no-state --script "$tmp/now.s" --size 120x10 "$tmp/b.pt" >"$tmp/out" 2>&1 ||
	fail "exit $? ($(cat "$tmp/out"))"
n=$(psbn "$tmp/a0.txt")
case $n in "$n0"|'?'|'') ;; *) fail "status at 90%: psb $n, want $n0 or ?" ;; esac
for k in 1 2; do
	eval want=\$o$k
	got=$(off "$tmp/a$k.txt")
	[ "$got" = "$want" ] || msg "$tmp/a$k.txt" | grep -q "sync points are still being indexed" ||
		fail "psb $([ $k = 1 ] && echo -1 || echo +1) at 90%: at $got, want $want: $(msg "$tmp/a$k.txt")"
done

# The index stopped (C-c) before 90%: no number will come, and neither
# says it is "still being indexed" (wait-index returns at once).
rm -rf "$tmp/cache"
printf 'C-c\n:goto 90%%\n:goto psb -1\n:save-screen %s/c1.txt\nwait-index\n:goto psb +1\n:save-screen %s/c2.txt\n' \
	"$tmp" "$tmp" >"$tmp/stop.s"
"$PTBROWSE" --no-state --script "$tmp/stop.s" --size 120x10 "$tmp/b.pt" >"$tmp/out" 2>&1 ||
	fail "stopped: exit $? ($(cat "$tmp/out"))"
# (right after C-c the builder may not have stopped yet: c1 may still
# say "still being indexed"; after wait-index it has)
got=$(off "$tmp/c2.txt")
[ "$got" = "$o2" ] || msg "$tmp/c2.txt" | grep -q "the index stopped before the cursor" ||
	fail "stopped index, psb +1: at $got: $(msg "$tmp/c2.txt")"
sed -n 9p "$tmp/c2.txt" | grep -q 'psb [0-9?]*/[0-9]*+' &&
	fail "stopped index: the status line still says more are coming: $(sed -n 9p "$tmp/c2.txt")"

[ $status = 0 ] && echo ok
exit $status

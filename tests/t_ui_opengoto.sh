#!/bin/sh
# t_ui_opengoto -- ptbrowse +GOTO TRACE and --goto GOTO open where :goto
# goes, as less +cmd FILE does: a time (which waits for the index's time
# pass, in a terminal and in --script), a percentage, an offset, a PSB, a
# region and a mark by name, less's +G and +/EXPR; a target that does not parse is a
# usage error before the screen (exit 2, one line), one that parses but is
# not there opens at the start and says why (at once if the index cannot
# know it: a mark, a region, an offset).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
OPTS="--mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 --cpu 6/78/3"

[ -r "$T" ] || { echo "no trace $T"; exit 1; }
tmp=$(mktemp -d)
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
. "$(dirname "$0")/tmux_lib.sh"

# The offset on the status line of a --script run's screen (file $1).
shot_off() {
	tail -n 2 "$1" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'
}

# Where :goto $1 lands once the index is done (--script), and where
# +$1 lands (its own script waits for the index too).
ref() {
	printf 'wait-index\n:goto %s\n:save-screen %s/ref.txt\n' "$1" "$tmp" > "$tmp/ref.s"
	"$PTBROWSE" --script "$tmp/ref.s" $OPTS "$T" || fail "--script :goto $1 failed"
	shot_off "$tmp/ref.txt"
}
plus() {
	printf 'wait-index\n:save-screen %s/plus.txt\n' "$tmp" > "$tmp/plus.s"
	"$PTBROWSE" --script "$tmp/plus.s" $OPTS "$@" "$T" || fail "--script $* failed"
	shot_off "$tmp/plus.txt"
}

# A region and a mark for the names (the marks file of this trace).
printf ':region hot 0x4258 0x5000\n:goto 0x8000\nm a\n' > "$tmp/marks.s"
"$PTBROWSE" --script "$tmp/marks.s" $OPTS "$T" || fail "making marks failed"

for target in 't 1ms' 't 500us' 50% 0x1f5c 'psb 7' hot "'a" '$'; do
	want=$(ref "$target")
	[ -n "$want" ] && [ "$want" != 0x0 ] || fail ":goto $target landed at '$want'"
	got=$(plus "+$target")
	[ "$got" = "$want" ] || fail "+$target opened at $got, :goto $target at $want"
	got=$(plus --goto "$target")
	[ "$got" = "$want" ] || fail "--goto $target opened at $got, :goto $target at $want"
done
echo "ok   +GOTO and --goto open where :goto goes (times, %, offsets, psb, names)"
want=$(ref '$')
[ "$(plus +G)" = "$want" ] || fail "+G did not open at the end ($want)"
echo "ok   +G opens at the end, as in less"
printf 'wait-index\n:search tip.pgd\nwait-search\n:save-screen %s/ref.txt\n' "$tmp" > "$tmp/ref.s"
"$PTBROWSE" --script "$tmp/ref.s" $OPTS "$T" || fail "--script :search failed"
want=$(shot_off "$tmp/ref.txt")
printf 'wait-index\nwait-search\n:save-screen %s/plus.txt\n' "$tmp" > "$tmp/plus.s"
"$PTBROWSE" --script "$tmp/plus.s" $OPTS +/tip.pgd "$T" || fail "--script +/tip.pgd failed"
got=$(shot_off "$tmp/plus.txt")
[ -n "$want" ] && [ "$want" != 0x0 ] && [ "$got" = "$want" ] ||
	fail "+/tip.pgd opened at $got, /tip.pgd went to $want"
echo "ok   +/EXPR opens at the first match, as in less"

# Bad targets: a usage error before any screen, or a message and the start.
"$PTBROWSE" +4kx "$T" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "+4kx: exit $?, not 2"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "ptbrowse: +4kx: goto: unknown unit" "$tmp/err" ||
	fail "+4kx said: $(cat "$tmp/err")"
"$PTBROWSE" --goto 't 5' "$T" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "ptbrowse: --goto t 5: goto:" "$tmp/err" ||
	fail "--goto 't 5': $(cat "$tmp/err")"
got=$(plus +nosuch)
[ "$got" = 0x0 ] || fail "+nosuch opened at $got"
tail -n 1 "$tmp/plus.txt" | grep -q "+nosuch: goto: no region or bookmark 'nosuch'" ||
	fail "+nosuch said: $(tail -n 1 "$tmp/plus.txt")"
# What the index cannot answer is said at once, not after the whole index
# with "going there once the index knows it" first (no cache: the index
# is being built when the first screen is saved).
for target in "'b" nosuch 0x99999999999; do
	rm -rf "$tmp/cache"
	printf ':save-screen %s/now.txt\nwait-index\n' "$tmp" > "$tmp/now.s"
	"$PTBROWSE" --script "$tmp/now.s" $OPTS "+$target" "$T" || fail "--script +$target failed"
	tail -n 1 "$tmp/now.txt" | grep -q "^+$target: goto: " ||
		fail "+$target said first: $(tail -n 1 "$tmp/now.txt")"
done
echo "ok   a bad target: exit 2 before the screen, or the start and why"

# In a terminal: the time target waits for the index (no cache: built
# now), then lands where :goto does; a fresh cache the second time.
want=$(ref 't 1ms')
rm -rf "$tmp/cache"
tm_start -- $OPTS "+t 1ms" "$T"
wait_off "$want"
tm_quit
tm_start -- $OPTS "+t 1ms" "$T"
wait_off "$want"
tm_quit
echo "ok   in a terminal, +'t 1ms' lands at $want (index built, then cached)"

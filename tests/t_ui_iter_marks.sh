#!/bin/sh
# t_ui_iter_marks -- :iterations marks a time as the cycle pane does, one
# mark at most: on a generated trace with a cycle threshold (durations in
# time, estimates) and only P1 for the TSC frequency (--nom-freq, no
# CPUID.15H: times use its estimate), headless (--script):
#  - no value shows two marks ("~≈", "~~" in ASCII): each estimate is
#    "~", as the pane's cells; the histogram's edges are unmarked;
#  - the estimated frequency is said once, as the pane's heading says it:
#    the title's "in time≈", the list's heading "time≈" ("~" in ASCII);
#  - the list's columns line up under the heading (a '≈' took 3 bytes
#    of the time column's 14, one column on the screen).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
ok() { echo "ok   $*"; }
# (no .options beside the trace: it would give CPUID.15H, an exact frequency)
"$BUILD/tools/ptgen" --size 128K --cyc-thresh 6 -o - > "$tmp/p1.pt" 2>/dev/null ||
	{ echo "FAIL ptgen"; exit 1; }
printf 'wait-index\n:iterations psb\nwait-iterations\n:save-screen %s/it.txt\n' "$tmp" \
	> "$tmp/keys"

for mode in utf8 ascii; do
	opt='' est='≈'
	[ $mode = ascii ] && opt=--ascii est='~'
	rm -f "$tmp/it.txt"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state $opt --script "$tmp/keys" \
		--size 100x24 --nom-freq 12 "$tmp/p1.pt" > "$tmp/out" 2>&1 ||
		bad "$mode: exit status $? ($(cat "$tmp/out"))"
	[ -f "$tmp/it.txt" ] || { bad "$mode: no screen"; continue; }
	head -n 1 "$tmp/it.txt" | grep -q "measured, .*in time$est, " ||
		bad "$mode: title: $(head -n 1 "$tmp/it.txt")"
	grep -q "^  rank  time$est " "$tmp/it.txt" ||
		bad "$mode: heading: $(grep '^  rank' "$tmp/it.txt")"
	grep -q "~$est" "$tmp/it.txt" && bad "$mode: two marks: $(grep -m 1 "~$est" "$tmp/it.txt")"
	[ $mode = utf8 ] && grep -q '≈[0-9]' "$tmp/it.txt" &&
		bad "$mode: a value marked ≈: $(grep -m 1 '≈[0-9]' "$tmp/it.txt")"
	# the statistics and the list's times: estimates, marked "~"
	sed -n 2p "$tmp/it.txt" | grep -q "^ p50 ~[0-9.]* [mun]*s .* min ~[0-9]" ||
		bad "$mode: statistics: $(sed -n 2p "$tmp/it.txt")"
	# every row's cycles start where the heading's do
	LC_ALL=C.UTF-8 python3 - "$tmp/it.txt" <<'PY' || bad "$mode: the list's columns do not line up"
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
head = [l for l in lines if l.startswith('  rank  time')][0]
col = head.index('cycles')
rows = [l for l in lines[lines.index(head) + 1:] if l[:7].strip().isdigit()]
bad = [l for l in rows if l[col] not in '[>0123456789-' or l[col - 1] != ' ']
if not rows or bad:
    print('\n'.join(bad[:3]) or 'no rows')
    sys.exit(1)
PY
done
[ $fail = 0 ] && ok ":iterations at P1's frequency: one mark per time, the heading says time≈"
exit $fail

#!/bin/sh
# t_ui_zoom -- the timeline zooms like magic-trace's, end to end in tmux:
# :zoom REGION shows exactly the region on the axis (its start and span
# on the byte axis to the byte; on the time axis the times of its first
# and last rows, as the status line shows them) with distinct tick
# labels; z and Z keep the cursor's column ('┃' on the marker row); a
# trace with OVFs in most columns still shows a mark and the PSB ticks;
# a drag along the timeline selects a span that z zooms to, following the
# pointer before the release, its time '~' an estimate, its press and
# release read together too; a region after 33
# others shows on the time axis; :zoom A B and
# :zoom hit say what they zoomed to.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
PTGEN=$BUILD/tools/ptgen

command -v tmux >/dev/null || { echo "tmux is not installed"; exit 1; }
[ -x "$PTGEN" ] || { echo "no $PTGEN (make all)"; exit 1; }
tmp=$(mktemp -d)
sock=ptbzoom-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
export LC_ALL=C.UTF-8

fail() {
	echo "FAIL: $*"
	echo "--- screen:"
	tm capture-pane -p -t ptb 2>/dev/null
	exit 1
}

# Poll the screen for a pattern (grep -E) for up to 10 seconds.
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		tm capture-pane -p -t ptb > "$tmp/screen" 2>/dev/null
		grep -Eq -- "$1" "$tmp/screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "timed out waiting for '$1'"
}

# Lines of the 120x40 screen: the marker row, the axis, status, message.
line() { tm capture-pane -p -t ptb | sed -n "$1p"; }
markers() { line 37; }
axis() { line 38; }
status() { line 39; }
message() { line 40; }
# The time in the status line, in ns ("13.120742 ms" -> 13120742; "~" or
# "?" before an estimated or disputed one and its TSC).
status_ns() {
	status | sed -n 's/.* tsc [~?]*0x[0-9a-f]*  [~?]*\([0-9.]*\) \(ns\|us\|ms\|s\)\( .*\)*$/\1 \2/p' |
		awk '{ m = $2 == "s" ? 1e9 : $2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1
		       printf "%.0f\n", $1 * m }'
}
# The column of the cursor's '┃' on the marker row (-1 if none).
cursor_col() {
	m=$(markers)
	case $m in *┃*) printf '%s' "${m%%┃*}" | wc -m ;; *) echo -1 ;; esac
}
# The axis's span, and its labels starting with '+' one a line.
axis_span() { axis | sed -n 's/.*span \([^ ]* [a-zA-Z]*\|[^ ]*\)\( of .*\)*$/\1/p'; }
ticks() { axis | tr -s ' ' '\n' | grep '^+'; }
# A value with its unit in ns ("2.145 ms" -> 2145000).
to_ns() {
	echo "$1" | awk '{ m = $2 == "s" ? 1e9 : $2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1
			   printf "%.3f\n", $1 * m }'
}

# Run the browser on $1 (more options after it) in a fresh tmux session.
start() {
	f=$1
	shift
	cat > "$tmp/run.sh" <<EOF
XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" $* "$f"
echo "EXITED rc=\$?"
sleep 60
EOF
	tm kill-session -t ptb 2>/dev/null
	tm new-session -d -s ptb -x 120 -y 40 "TERM=screen LANG=C.UTF-8 sh $tmp/run.sh" ||
		fail "tmux did not start"
	wait_for 'F1 help'
	# the index done (and its time pass): the time axis, from 0
	wait_for '^0 ns .*span [0-9.]+ ms *$'
	i=0
	while status | grep -Eq 'index|until indexed' && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Type a prompt line and wait for its message.
cmd() {
	tm send-keys -t ptb ":$1" Enter
	wait_for "$2"
}

tm new-session -d -s keep "sleep 300" || fail "tmux did not start"
"$PTGEN" --seed 3 --size 4MiB -o "$tmp/s.pt" >/dev/null || fail "ptgen failed"
start "$tmp/s.pt" $(cat "$tmp/s.pt.options")

# The times of the region's first and last rows, as the status line says.
cmd "region hot 0x100000 0x140000" 'region hot'
cmd "goto 0x100000" '^ 0x(fffff|100000)/'
t0=$(status_ns)
cmd "goto 0x13ffff" '^ 0x13ff[0-9a-f]{2}/'
t1=$(status_ns)
[ -n "$t0" ] && [ -n "$t1" ] && [ "$t1" -gt "$t0" ] || fail "no times in the status line ($t0, $t1)"

# The time axis: starts at the first row's time, spans to the last row's.
cmd "zoom hot" 'timeline: region hot, span'
span=$(axis_span)
start_label=$(axis | awk '{ print $1, $2 }')
awk -v s="$(to_ns "$span")" -v a="$(to_ns "$start_label")" -v t0="$t0" -v t1="$t1" '
	function abs(x) { return x < 0 ? -x : x }
	BEGIN {
		# the span to its 4 digits, the start to a column (1/120)
		if (abs(s - (t1 - t0)) > (t1 - t0) / 500) { print "span " s " is not " t1 - t0; exit 1 }
		if (abs(a - t0) > (t1 - t0) / 100) { print "start " a " is not " t0; exit 1 }
	}' || fail "the axis ($start_label, span $span) is not the region's rows' times ($t0 to $t1 ns)"
n=$(ticks | wc -l)
[ "$n" -ge 4 ] || fail "only $n tick labels on the axis"
[ "$(ticks | sort | uniq -d)" = "" ] || fail "tick labels repeat: $(ticks | sort | uniq -d)"
echo "ok   :zoom hot on the time axis: from $start_label, span $span ($n distinct ticks)"

# The byte axis: exactly the region's bytes.
cmd "zoom all" 'timeline: the whole trace'
tm send-keys -t ptb t
wait_for '^0x0 .*span 4.000MiB *$'
cmd "zoom hot" 'timeline: region hot, span 262144 bytes'
axis | grep -Eq '^0x100000 .*span 256.0KiB of 4.000MiB *$' ||
	fail "the byte axis is not 0x100000 + 256KiB: $(axis)"
[ "$(ticks | sort | uniq -d)" = "" ] || fail "byte tick labels repeat"
echo "ok   :zoom hot on the byte axis: 0x100000, span 256.0KiB, $(ticks | wc -l) distinct ticks"

# z and Z keep the cursor's column.
cmd "zoom all" 'timeline: the whole trace'
tm send-keys -t ptb t
wait_for '^0 ns .*span [0-9.]+ ms *$'
tm send-keys -t ptb 3 0 %
wait_for '^ 0x13333[0-9a-f]/'
c0=$(cursor_col)
[ "$c0" -gt 0 ] || fail "no cursor on the marker row"
prev=$(axis_span)
for k in z z z z Z Z; do
	tm send-keys -t ptb $k
	i=0
	while [ "$(axis_span)" = "$prev" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(axis_span)" != "$prev" ] || fail "$k did not change the span ($prev)"
	prev=$(axis_span)
	c=$(cursor_col)
	[ "$c" = "$c0" ] || fail "after $k the cursor is in column $c, not $c0"
done
echo "ok   z z z z Z Z keep the cursor in column $c0 (span now $prev)"

# A drag along the timeline selects its span; z zooms to it.
cmd "zoom all" 'timeline: the whole trace'
# X10 reports: button 1 pressed at column 20 of screen row 36 (the
# marker row, from 0), released at column 80, in one write: what a
# browser busy drawing reads in one go (ncurses then returns the two
# events as one KEY_MOUSE, newest first: the release alone was seen, the
# drag selected nothing, as it did now and then in CI's loaded runs).
tm send-keys -t ptb -l "$(printf '\033[M 5E\033[M#qE')"
wait_for 'VISUAL -- .* on the timeline: z zooms'
# Its ends are rows between CYC packets, their times estimates: so is
# the span ('~', as the cycle pane marks their times; shown as exact).
grep -Eq 'VISUAL --  ~[0-9.]+ [mun]?s on the timeline' "$tmp/screen" ||
	fail "the drag's span is not marked an estimate"
tm send-keys -t ptb z
wait_for 'timeline: the selection, span'
span=$(axis_span)
echo "ok   a drag from column 20 to 80 selects, z zooms to it (span $span)"

# The span follows the pointer while the button is held: pressed at
# column 20 and moved to column 50 (X10 motion: 32 + 32), the selection is
# there before any release; the release at 80 ends it there.
cmd "zoom all" 'timeline: the whole trace'
tm send-keys -t ptb -l "$(printf '\033[M 5E')"
sleep 0.3
tm send-keys -t ptb -l "$(printf '\033[M@SE')"
wait_for 'VISUAL -- .* on the timeline: z zooms'
tm send-keys -t ptb -l "$(printf '\033[M#qE')"
tm send-keys -t ptb z
wait_for 'timeline: the selection, span'
[ "$(axis_span)" = "$span" ] || fail "the moved drag zoomed to $(axis_span), the plain one to $span"
echo "ok   the drag's span follows the pointer before the release, and ends where it is released"

# Two marks, and a search hit's neighbourhood.
tm send-keys -t ptb 2 0 % m a 4 0 % m b
wait_for 'mark b at'
cmd "zoom a b" 'timeline: a to b, span'
markers | grep -q '^a' || fail "mark a is not in the first column: $(markers)"
markers | grep -q 'b *$' || fail "mark b is not in the last column: $(markers)"
# :zoom hit is about the search's first hit (the first PSB past mark b at
# 40%), its PSB neighbours known for certain: typed at once after the
# search, before its first hit is shown, it zooms there or says the hits
# are not known yet, never around a hit found elsewhere first (0x0 was).
tm send-keys -t ptb / p s b Enter : z o o m Space h i t Enter
# (the "not known yet" message goes at the search's first jump: its hit
# count on the status line then stands for it)
wait_for 'timeline: around the hit at 0x|zoom hit: the hits near the cursor are not known yet|/psb \[[0-9]+/'
if grep -q 'around the hit' "$tmp/screen"; then
	h=$(sed -n 's/.*around the hit at \(0x[0-9a-f]*\).*/\1/p' "$tmp/screen")
	[ $((h)) -ge $((0x199999)) ] && [ $((h)) -lt $((0x1a9999)) ] ||
		fail ":zoom hit right after /psb zoomed around $h, not the first PSB past 40%"
	status | grep -q "^ $h/" || fail "the cursor is not on the hit $h: $(status)"
fi
wait_for '/psb \[[0-9]+/[0-9]+\]'
cmd "zoom all" 'timeline: the whole trace'
cmd "zoom hit" 'timeline: around the hit at 0x'
h=$(sed -n 's/.*around the hit at \(0x[0-9a-f]*\).*/\1/p' "$tmp/screen")
[ $((h)) -ge $((0x199999)) ] && [ $((h)) -lt $((0x1a9999)) ] ||
	fail ":zoom hit zoomed around $h, not the first PSB past 40%"
echo "ok   :zoom a b puts a and b at the edges; :zoom hit zooms around the search's hit ($h)"
cmd "zoom nosuch" "zoom: no region, mark or keyword 'nosuch'"
cmd "zoom a" 'zoom: a is a point'

# Regions on the time axis: 33 near the start, then far at 87.5% to
# 90.6%: far's columns are underlined on the marker row (only the first
# 32 regions of the set were drawn).  -N keeps the underlined blanks at
# the line's end.
cmd "zoom all" 'timeline: the whole trace'
# (not i: wait_for counts its polls in i)
r=1
while [ $r -le 33 ]; do
	cmd "region r$r $((r * 0x1000)) $((r * 0x1000 + 0x800))" "region r$r: "
	r=$((r + 1))
done
cmd "region far 0x380000 0x3a0000" 'region far: 0x380000-0x3a0000'
sleep 0.3
tm capture-pane -e -N -p -t ptb | sed -n 37p >"$tmp/ul"
ul=$(python3 "$(dirname "$0")/underlined.py" "$tmp/ul")
case " $ul " in *" 104 "*) ;; *) fail "region far is not underlined in column 104 (underlined: $ul)" ;; esac
echo "ok   the 34th region shows on the time axis (underlined: $ul)"
tm send-keys -t ptb q
wait_for 'EXITED rc=0'

# OVFs in most columns: the mark and the PSB ticks still show.
"$PTGEN" --seed 5 --size 4MiB --ovf-rate 0.01 --psb-period 131072 -o "$tmp/o.pt" >/dev/null ||
	fail "ptgen failed"
start "$tmp/o.pt" $(cat "$tmp/o.pt.options")
tm send-keys -t ptb 5 0 % m a
wait_for 'mark a at'
# the OVF columns come from the index's summaries: under the sanitizers
# it may still be building here, so look again for up to 20 s
i=0
while :; do
	m=$(markers)
	nbang=$(printf '%s' "$m" | tr -cd '!' | wc -c)
	[ "$nbang" -ge 60 ] || [ $i -ge 200 ] && break
	sleep 0.1
	i=$((i + 1))
done
npsb=$(printf '%s' "$m" | grep -o '╵' | wc -l)
[ "$nbang" -ge 60 ] || fail "only $nbang OVF columns: not the trace this test wants"
case $m in *a*) ;; *) fail "mark a is not on the marker row: $m" ;; esac
[ "$npsb" -ge 10 ] || fail "only $npsb PSB ticks among the OVFs: $m"
echo "ok   among $nbang OVF columns the marker row shows mark a and $npsb PSB ticks"
tm send-keys -t ptb q
wait_for 'EXITED rc=0'

# A search stopped (C-c) before it reached the hits near the cursor: :zoom
# hit says so, not "try again" forever (an IP range that never occurs: the
# search decodes every packet of 64 MiB, long enough to stop).
"$PTGEN" --seed 2 --size 64MiB -o "$tmp/s.pt" >/dev/null || fail "ptgen failed"
start "$tmp/s.pt" $(cat "$tmp/s.pt.options")
tm send-keys -t ptb "/ip 0xffffffff00000000-0xffffffff0fffffff" Enter
tm send-keys -t ptb C-c
wait_for '/ip 0xffffffff00000000-0xffffffff0fffffff \[.*(stopped|/0\])'
tm send-keys -t ptb G
cmd "zoom hit" 'zoom hit: (the search stopped before the hits near the cursor|no search hit)'
if grep -q 'no search hit' "$tmp/screen"; then
	echo "ok   (the search ended before C-c came: nothing to check)"
else
	echo "ok   :zoom hit after a stopped search says it stopped before the hits near the cursor"
fi
tm send-keys -t ptb q
wait_for 'EXITED rc=0'
exit 0

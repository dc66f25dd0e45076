#!/bin/sh
# t_ui_lanes -- the CPU lanes under the timeline: a perf.data made of a
# ptgen trace on two CPUs and a written sideband (so every switch, name,
# fork and exit is known) shows, in a --script screen, the processes the
# records say on each lane (tests/golden/ui_lanes/, UPDATE=1 rewrites),
# and at 60 columns a legend of every process (its glyphs' key left out);
# :lane and a click on a lane switch stream at that time; in tmux, a mouse
# click on a lane does the same.  On tools/record.sh's recording of
# p_sample, the legend names the threads its sideband names.  Searches
# with sideband terms (comm, tid, switch) on the same file hit the starts
# of the ranges that dump --comm/--tid keeps (ctx_ranges()).
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
golden=tests/golden/ui_lanes
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM	# --script needs none
status=0
fail() { echo "FAIL: $*"; status=1; }

"$BUILD/tools/ptgen" -S 16K -s 1 -o "$tmp/a.bin" || exit 1
OPTS=$(cat "$tmp/a.bin.options")
# The trace's TSCs run from 0x106d0fc710c5 to 0x106d0fca5c49: the records
# start a little before, at T.
T=$(printf '%d' 0x106d0fc71000)
cat > "$tmp/sb" <<EOF
# ptrecord sideband v1: times in TSC ticks
comm 100 100 $T 1 server
switch 0 $T in 100 100 -1 -1 0
fork 100 101 100 $((T + 30000))
comm 100 101 $((T + 30000)) 0 server
switch 1 $((T + 40000)) in 100 101 -1 -1 0
comm 100 101 $((T + 50000)) 0 worker
comm 200 200 $((T + 60000)) 1 client
switch 0 $((T + 80000)) out 100 100 200 200 1
switch 0 $((T + 80000)) in 200 200 100 100 0
switch 1 $((T + 120000)) out 100 101 -1 -1 0
exit 100 101 $((T + 120000))
switch 0 $((T + 160000)) out 200 200 100 100 1
switch 0 $((T + 160000)) in 100 100 200 200 0
exit 200 200 $((T + 200000))
EOF
"$BUILD/tools/pt2perf" --sideband "$tmp/sb" --cpu 0 "$tmp/a.bin" --cpu 1 "$tmp/a.bin" \
	-o "$tmp/p.data" >/dev/null || exit 1

# The axis runs from T to the last row's time (T + 216137 ticks) over the
# 95 columns after the lanes' 5-column names (the timeline's rows too): 2275 ticks a column.  The
# cursor's time is T + 197 (the first TSC), so :lane cpu1 lands on cpu1's
# first timed row; a click on cpu1's column 40 (time T + 91000) lands on
# its first row at or after that time.
cat > "$tmp/keys" <<EOF
wait-index
:save-screen $tmp/lanes.txt
:lane cpu1
:save-screen $tmp/lane1.txt
:lane cpu0
click=45,4
:save-screen $tmp/click.txt
:lane nosuch
:save-screen $tmp/bad.txt
:lane cpu0
J
:save-screen $tmp/next.txt
K
K
:save-screen $tmp/prev.txt
q
EOF
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" --size 100x24 \
	$OPTS "$tmp/p.data" > "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
# The golden screen is the timeline's rows: the density, the marker row,
# the axis, the lanes and the legend (the panes and the status line above
# and below are other tests').
sed -n '17,22p' "$tmp/lanes.txt" > "$tmp/tl.txt"
if [ "${UPDATE:-}" = 1 ]; then
	cp "$tmp/tl.txt" "$golden/lanes.txt"
else
	diff -u "$golden/lanes.txt" "$tmp/tl.txt" || fail "the lanes screen differs"
fi
grep -q 'A server 100 B worker 100 C client 200' "$tmp/lanes.txt" || fail "legend"
# Narrower, the legend keeps every process's letter and drops the glyphs'
# key (the help has it) rather than cut the processes off.
printf 'wait-index\n:save-screen %s\nq\n' "$tmp/narrow.txt" > "$tmp/nkeys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/nkeys" --size 60x24 \
	$OPTS "$tmp/p.data" > /dev/null 2>&1
grep -q '^A server 100 B worker 100 C client 200 *$' "$tmp/narrow.txt" ||
	fail "the legend at 60 columns: $(grep -a 'server' "$tmp/narrow.txt")"
grep -q '^ ptbrowse p.data:cpu1' "$tmp/lane1.txt" || fail ":lane cpu1 did not switch"
grep -q '^ 0x[0-9a-f]*/0x4000 .*tsc 0x106d0fc710c5 ' "$tmp/lane1.txt" ||
	fail ":lane cpu1 is not at the cursor's time: $(tail -n 2 "$tmp/lane1.txt")"
grep -q '^ ptbrowse p.data:cpu1' "$tmp/click.txt" || fail "a click on lane cpu1 did not switch"
# column 40 of 95 is 42% of the time, and so about of the bytes
off=$(tail -n 2 "$tmp/click.txt" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p')
[ -n "$off" ] && [ $((off)) -ge $((0x1000)) ] && [ $((off)) -le $((0x2800)) ] ||
	fail "the click on cpu1 at 42% of the time landed at '$off'"
grep -q "lane: no stream 'nosuch'" "$tmp/bad.txt" || fail ":lane nosuch: $(tail -n 1 "$tmp/bad.txt")"
grep -q '^ ptbrowse p.data:cpu1' "$tmp/next.txt" || fail "J did not go to the next lane"
grep -q '^ ptbrowse p.data:cpu0' "$tmp/prev.txt" && grep -q 'lane: no previous lane' "$tmp/prev.txt" ||
	fail "K K: $(tail -n 2 "$tmp/prev.txt")"

# The timeline's rows start after the lanes' name gutter, so a column is
# one time on every row: the axis row's first label and the marker row's
# cursor are in the lanes' first column, and a click on the density row
# at a column lands where a click on the cpu0 lane (the stream shown) at
# that column does.
sed -n '18,19p' "$tmp/lanes.txt" | grep -vq '^     [^ ]' &&
	fail "the marker and axis rows do not start at the lanes' column 5: $(sed -n '18,19p' "$tmp/lanes.txt")"
printf 'wait-index\nclick=60,0\n:save-screen %s\nclick=60,3\n:save-screen %s\nq\n' \
	"$tmp/ctl.txt" "$tmp/clane.txt" > "$tmp/ckeys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/ckeys" --size 100x24 \
	$OPTS "$tmp/p.data" > /dev/null 2>&1
a=$(tail -n 2 "$tmp/ctl.txt" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p')
b=$(tail -n 2 "$tmp/clane.txt" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p')
[ -n "$a" ] && [ $((a)) -gt 0 ] && [ "$a" = "$b" ] ||
	fail "a click at column 60 of the timeline went to '$a', of the cpu0 lane to '$b'"

# A zoomed timeline stays zoomed across lanes (their time axis is one):
# J keeps the span, and the view, as the cursor's time is in it.
printf 'wait-index\n50%%\nz\nz\nz\n:save-screen %s\nJ\n:save-screen %s\nq\n' \
	"$tmp/z0.txt" "$tmp/z1.txt" > "$tmp/zkeys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/zkeys" --size 100x24 \
	$OPTS "$tmp/p.data" > /dev/null 2>&1
z0=$(sed -n 19p "$tmp/z0.txt" | sed -n 's/.*\(span .*\)/\1/p')
z1=$(sed -n 19p "$tmp/z1.txt" | sed -n 's/.*\(span .*\)/\1/p')
grep -q '^ ptbrowse p.data:cpu1' "$tmp/z1.txt" || fail "zoomed, J did not go to the next lane"
case $z0 in *" of "*) ;; *) fail "z z z did not zoom: $z0" ;; esac
[ "$z0" = "$z1" ] || fail "J lost the zoom: '$z0', then '$z1'"
[ "$(sed -n 20,21p "$tmp/z0.txt")" = "$(sed -n 20,21p "$tmp/z1.txt")" ] ||
	fail "J moved the lanes' view: $(sed -n 20,21p "$tmp/z0.txt") / $(sed -n 20,21p "$tmp/z1.txt")"

# Searches: the hits of "comm NAME" and "tid N" are the starts of the
# ranges dump keeps with --comm and --tid; "switch" hits where the task
# changes, the starts of both tasks' ranges after the first; a packet
# expression with a term is a packet inside the ranges.
"$PTBROWSE" dump $OPTS --stream cpu0 "$tmp/p.data" | awk '{ print $1 }' > "$tmp/all"
starts() {
	"$PTBROWSE" dump $OPTS --stream cpu0 "$@" "$tmp/p.data" | awk '{ print $1 }' > "$tmp/kept"
	awk 'NR == FNR { k[$1] = 1; next } ($1 in k) && !prev { printf "0x%x\n", ("0x" $1) + 0 }
	     { prev = ($1 in k) }' "$tmp/kept" "$tmp/all"
}
hits() {
	{ echo wait-index; echo ":search $1"; echo ":save-screen $tmp/h0.txt"
	  for i in 1 2 3; do echo n; echo ":save-screen $tmp/h$i.txt"; done; echo q; } > "$tmp/hkeys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/hkeys" --size 120x30 \
		$OPTS "$tmp/p.data" > /dev/null 2>&1
	for i in 0 1 2 3; do
		tail -n 2 "$tmp/h$i.txt" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'
	done | sort -u | while read -r o; do printf '0x%x\n' "$((o))"; done | sort
}
for q in "tid 100" "comm client"; do
	opt=--${q% *}; val=${q#* }
	want=$(starts "$opt" "$val" | sort)
	got=$(hits "$q")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "search $q: hits $got, ranges start at $want"
done
[ "$(hits switch)" = "$(printf '0xe16\n0x3607\n' | sort)" ] || fail "search switch: $(hits switch)"
[ "$(hits 'comm server & psb')" = 0x0 ] || fail "comm server & psb: $(hits 'comm server & psb')"
# :goto with a term goes to the next hit
printf 'wait-index\n:goto comm client\n:save-screen %s\nq\n' "$tmp/g.txt" > "$tmp/gkeys"
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/gkeys" --size 120x30 $OPTS "$tmp/p.data" >/dev/null 2>&1
[ "$(tail -n 2 "$tmp/g.txt" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p')" = \
	"$(starts --comm client)" ] || fail ":goto comm client: $(tail -n 2 "$tmp/g.txt")"
printf 'wait-index\n:search pid 100 | tip\n:save-screen %s\nq\n' "$tmp/e.txt" > "$tmp/ekeys"
LANG=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/ekeys" --size 120x30 $OPTS "$tmp/p.data" >/dev/null 2>&1
grep -q 'search: a sideband term goes at the top' "$tmp/e.txt" || fail "pid under or: $(tail -n 1 "$tmp/e.txt")"

# The same in ASCII: nothing outside ASCII.
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script "$tmp/keys" --size 100x24 \
	$OPTS "$tmp/p.data" > "$tmp/out" 2>&1 || fail "--ascii: exit status $?"
LC_ALL=C grep -q '[^ -~]' "$tmp/lanes.txt" && fail "--ascii lanes hold non-ASCII bytes"
# What the records say, lane by lane (columns of 2275 ticks from T):
# cpu0: server until +80000 (column 35), client to +160000 (70), server;
# cpu1: nothing known before +40000 (17), server, then worker from +50000
# (its COMM, column 21) to +120000 (52), then idle.
lane() { grep "^$1 " "$tmp/lanes.txt" | cut -c6-; }
col() { lane "$1" | cut -c"$(($2 + 1))"; }
[ "$(col cpu0 5)" = A ] && [ "$(col cpu0 40)" = C ] && [ "$(col cpu0 80)" = A ] ||
	fail "cpu0 lane: $(lane cpu0)"
[ "$(col cpu1 10)" = " " ] && [ "$(col cpu1 19)" = A ] && [ "$(col cpu1 30)" = B ] &&
	[ "$(col cpu1 60)" = . ] || fail "cpu1 lane: $(lane cpu1)"


# Sample: the threads p_sample names (sorter, hasher, matrix) and itself
# are in the legend, each once, when its sideband names them and they ran.
if sh tools/record.sh "$tmp/rec" "$BUILD" >/dev/null 2>&1; then
	printf 'wait-index\n:save-screen %s\nq\n' "$tmp/sample.txt" > "$tmp/skeys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/skeys" --size 200x30 \
		"$tmp/rec/perf.data" > "$tmp/out" 2>&1 || fail "sample: exit status $?"
	grep -q '^cpu0 ' "$tmp/sample.txt" && grep -q '^cpu1 ' "$tmp/sample.txt" ||
		fail "sample: no lane per CPU"
	for c in $(awk '$1 == "comm" { print $6 }' "$tmp/rec/trace.sideband" | sort -u); do
		grep -Eq "[A-Za-z] $c [0-9]+( |$)" "$tmp/sample.txt" || { fail "sample: $c not in the legend"; tail -n 4 "$tmp/sample.txt"; grep -v mmap "$tmp/rec/trace.sideband"; }
	done
else
	echo "skip: tools/record.sh could not record p_sample"
fi

# In a terminal: a mouse click on the cpu1 lane (screen row 36 of 40,
# column 50; an X10 report adds 33 to each) switches to cpu1 near 42%.
export TERM=screen	# tmux needs one
tmp2=$tmp
. "$(dirname "$0")/tmux_lib.sh"
tmp=$tmp2
tm_start -- $OPTS "$tmp/p.data"
wait_for '^cpu1 '
keys -l "$(printf '\033[M SE')"
keys -l "$(printf '\033[M#SE')"
wait_for 'p.data:cpu1'
off=$(status_off)
[ -n "$off" ] && [ $((off)) -ge $((0x1000)) ] && [ $((off)) -le $((0x2800)) ] ||
	fail "the click on cpu1 landed at '$off'"
tm_quit
exit $status

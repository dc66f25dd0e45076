#!/bin/sh
# t_ui_marks -- marks and regions in the browser, end to end in tmux: set a
# mark, a named bookmark with a note and a region (v ... Enter), quit, reopen
# a copy of the trace: the marks list shows them and 'a jumps to the same
# offset; the region summary counts what `ptbrowse dump FROM-TO` prints;
# :export writes a slice that decodes without errors; :streams on a
# perf.data lists cpu0 and cpu3 and switching shows the stream in the header.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
Q=$SHARED/traces/quipper-perf-intel-pt
T=$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt
P=$Q/perf.data.intel_pt-4.14
OPTS="--mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 --cpu 6/78/3"

command -v tmux >/dev/null || { echo "tmux is not installed"; exit 1; }
[ -r "$T" ] && [ -r "$P" ] || { echo "no traces in $Q"; exit 1; }
tmp=$(mktemp -d)
# (marks a failed save could not keep go to a file in TMPDIR at exit)
export TMPDIR="$tmp"
sock=ptbmarks-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

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

# The offset in the status line (second line from the bottom).
status_off() {
	tm capture-pane -p -t ptb | tail -n 2 | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'
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
	wait_for '^ 0x[0-9a-f]+/0x'
}

# Wait for the status line's offset to be $1.
wait_off() {
	i=0
	while [ $i -lt 100 ]; do
		[ "$(status_off)" = "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "the status line's offset is $(status_off), not $1"
}

# A session that outlives the browser's, so the server does not exit (and
# race the next new-session) between runs.
tm new-session -d -s keep "sleep 300" || fail "tmux did not start"
cp "$T" "$tmp/a.pt"
start "$tmp/a.pt" $OPTS

# Mark a two PSBs in, and a named bookmark with a note there.
tm send-keys -t ptb '}' '}' j j m a
wait_for 'mark a at 0x'
A=$(status_off)
tm send-keys -t ptb : 'mark slow_start "the slow phase"' Enter
wait_for 'slow_start at 0x'

# A region from the fifth PSB (dump starts at a PSB) to two packets past the
# next one: v, move, Enter names it at the prompt.
tm send-keys -t ptb g
wait_off 0x0
tm send-keys -t ptb 5 '}'
# 0x0 is a PSB too: wait for the cursor to leave it, not for any psb (that
# matched before the keys were read, under load)
i=0
while :; do
	FROM=$(status_off)
	[ -n "$FROM" ] && [ "$FROM" != 0x0 ] && break
	[ $i -lt 100 ] || fail "5} did not move"
	sleep 0.1
	i=$((i + 1))
done
wait_for "^ $FROM/0x21a00 [0-9.]+%  psb"
tm send-keys -t ptb v
wait_for 'VISUAL'
tm send-keys -t ptb '}' j j Enter
wait_for '^:region'
tm send-keys -t ptb hot Enter
wait_for 'region hot: 0x[0-9a-f]+-0x[0-9a-f]+'
TO=$(sed -n 's/.*region hot: 0x[0-9a-f]*-\(0x[0-9a-f]*\) .*/\1/p' "$tmp/screen")
[ -n "$TO" ] || fail "no region end in the message"
grep -q "region hot: $FROM-" "$tmp/screen" || fail "the region does not start at $FROM"

# The summary panel (the cursor is inside the region) counts packets as
# `ptbrowse dump T:FROM-TO` prints them.
wait_for 'bytes [0-9]+  packets [0-9]+'
N=$(sed -n 's/.*bytes [0-9]*  packets \([0-9]*\).*/\1/p' "$tmp/screen" | head -n 1)
D=$("$PTBROWSE" dump $OPTS "$T:$FROM-$TO" | grep -c '^[0-9a-f]\{16\}  ')
[ "$N" = "$D" ] || fail "the summary counts $N packets, dump $FROM-$TO prints $D"

# :export REGION FILE writes a slice that decodes with zero errors.
tm send-keys -t ptb : "export hot $tmp/hot.pt" Enter
wait_for "wrote $tmp/hot.pt"
[ -s "$tmp/hot.pt" ] || fail "no exported slice"
"$PTBROWSE" dump $OPTS "$tmp/hot.pt" > "$tmp/hot.dump" 2>&1 || fail "dump of the slice failed"
grep -q '^\[' "$tmp/hot.dump" && fail "decode errors in the slice: $(grep '^\[' "$tmp/hot.dump" | head -3)"
tm send-keys -t ptb q q
wait_for 'EXITED rc=0'

# A copy under another name has the same identity: the marks are there.
cp "$tmp/a.pt" "$tmp/b.pt"
rm "$tmp/a.pt"
start "$tmp/b.pt" $OPTS
tm send-keys -t ptb : marks Enter
wait_for 'marks and regions: 3'
grep -Eq "^ mark +a +$(printf '0x%08x' "$A")" "$tmp/screen" || fail "mark a is not listed at $A"
grep -Eq '^ bookmark +slow_start .*the slow phase' "$tmp/screen" || fail "the bookmark is not listed"
grep -Eq "^ region +hot +$(printf '0x%08x-0x%08x' "$FROM" "$TO")" "$tmp/screen" ||
	fail "region hot is not listed as $FROM-$TO"
tm send-keys -t ptb q
wait_for 'offset +packet'
tm send-keys -t ptb "'" a
wait_off "$A"
tm send-keys -t ptb q
wait_for 'EXITED rc=0'

# perf.data: the stream picker lists both CPUs; switching shows the stream.
start "$P"
wait_for 'ptbrowse perf.data.intel_pt-4.14:cpu0 '
tm send-keys -t ptb : streams Enter
wait_for '^ cpu0 +cpu 0 +12240 bytes'
wait_for '^ cpu3 +cpu 3 +137728 bytes'
tm send-keys -t ptb j Enter
wait_for 'ptbrowse perf.data.intel_pt-4.14:cpu3 '
wait_for '^ 0x[0-9a-f]+/0x21a00 '
tm send-keys -t ptb q
wait_for 'EXITED rc=0'

# A marks file that cannot be saved: the message says so, the marks stay.
mkdir -p "$tmp/bad/ptbrowse"
: > "$tmp/bad/ptbrowse/traces"
cat > "$tmp/keys" <<EOF2
} } m a
:mark nm "kept"
:save-screen $tmp/saved.txt
:marks
:save-screen $tmp/list.txt
EOF2
# As it ends, the browser says the marks were never saved, and exits 1.
XDG_STATE_HOME=$tmp/bad XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" --script "$tmp/keys" "$T" 2>"$tmp/err" && fail "--script: exit 0 with marks not saved"
grep -q '^ptbrowse: marks not saved: ' "$tmp/err" || fail "no message at the end: $(cat "$tmp/err")"
tail -n 1 "$tmp/saved.txt" | grep -q 'not saved' || fail "no message for a failed save: $(tail -n 1 "$tmp/saved.txt")"
grep -Eq '^ bookmark +nm .*kept' "$tmp/list.txt" || fail "the bookmark was not kept in memory"
echo "ok   a failed save is reported and the marks stay in memory"
# Sideband on the timeline: a click on a context switch names it. The
# axis is the whole recording's (cpu0's too, for the CPU lanes), so the
# columns are read from the screen: the first switch after cpu3's trace
# starts (^), where the cursor can go, and the first switch of all, before
# it, where the click puts the cursor on the trace's first row.
cat > "$tmp/keys" <<EOF2
wait-index
:streams cpu3
:save-screen $tmp/side0.txt
EOF2
XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" --script "$tmp/keys" "$P" || fail "--script failed"
# The sideband is on the marker row, the line above the axis (which ends
# with the span); its glyphs are counted in characters, not bytes.
mrow=$(awk '/ span ([0-9]|~|≈)/ { print prev; exit } { prev = $0 }' "$tmp/side0.txt")
nchars() { printf '%s' "$1" | LC_ALL=C.UTF-8 wc -m; }
# (the cursor at 0x0 is at the trace's start: its '┃' covers the ^)
case $mrow in *^*) ;; *┃*) mrow=$(printf '%s' "$mrow" | sed 's/┃/^/') ;; esac
case $mrow in *,*^*,*) ;; *) fail "no switches around the trace's start (^) on the marker row: $mrow" ;; esac
after=${mrow#*^}
col=$(( $(nchars "${mrow%%^*}") + 1 + $(nchars "${after%%,*}") ))
col0=$(nchars "${mrow%%,*}")
cat > "$tmp/keys" <<EOF2
wait-index
:streams cpu3
click=$col
:save-screen $tmp/side.txt
click=$col0
:save-screen $tmp/side1.txt
EOF2
XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" --script "$tmp/keys" "$P" || fail "--script failed"
tail -n 1 "$tmp/side.txt" | grep -q '^sideband: switch_' ||
	fail "no sideband message: $(tail -n 1 "$tmp/side.txt")"
tail -n 1 "$tmp/side1.txt" | grep -q '^sideband: switch_.* at -' ||
	fail "a click before the trace's start: $(tail -n 1 "$tmp/side1.txt")"
echo "ok   sideband markers on the timeline, named in the message line"
# FROM and TO of :region and :export are goto targets of several words.
# psb N counts from 0: psb 2 is the third
psb2=$("$PTBROWSE" dump "$T" | awk '$2 == "psb" { n++; if (n == 3) { print $1; exit } }')
cat > "$tmp/keys" <<EOF2
wait-index
:region two psb 1 psb 2 "a note"
:save-screen $tmp/reg.txt
:export psb 1 psb 2 $tmp/slice2.pt
:save-screen $tmp/exp.txt
EOF2
XDG_STATE_HOME=$tmp/state2 XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 160x12 "$T" || fail "--script failed"
tail -n 1 "$tmp/reg.txt" | grep -q "^region two: 0x[0-9a-f]*-0x$(echo "$psb2" | sed 's/^0*//') " ||
	fail ":region NAME psb 1 psb 2: $(tail -n 1 "$tmp/reg.txt")"
tail -n 1 "$tmp/exp.txt" | grep -q "^wrote $tmp/slice2.pt: " ||
	fail ":export psb 1 psb 2 FILE: $(tail -n 1 "$tmp/exp.txt")"
echo "ok   :region and :export take goto targets of several words"
# A region's summary against another region; :ref names the delta column.
cat > "$tmp/keys" <<EOF2
wait-index
:region hot psb 1 psb 2
:region cold psb 3 psb 4
:regions cold hot
:save-screen $tmp/rs.txt
q
:ref hot
:save-screen $tmp/ref.txt
:delregion hot
:save-screen $tmp/ref2.txt
EOF2
XDG_STATE_HOME=$tmp/state3 XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" --script "$tmp/keys" --size 160x40 "$T" || fail "--script failed"
grep -q ' from hot: +0x[0-9a-f]* bytes, ' "$tmp/rs.txt" || fail ":regions cold hot: no delta from hot: $(grep -i from "$tmp/rs.txt")"
sed -n 2p "$tmp/ref.txt" | grep -q 'Δhot' || fail ":ref hot: heading $(sed -n 2p "$tmp/ref.txt")"
sed -n 2p "$tmp/ref2.txt" | grep -q 'Δhot' && fail "the deleted region is still the reference"
echo "ok   :regions A B gives A's delta from B; :ref names the delta column"
echo "ok   marks, bookmark and region survive a copy; summary $N packets = dump; slice decodes; streams switch"

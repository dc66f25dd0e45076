#!/bin/sh
# t_ui_pipe_raw -- :pipe raw checks the slice before it runs the command,
# and says when the slice joins lost data.  Rows before a trace's first
# PSB make no slice: the command ran first, so `cat > FILE` truncated
# FILE, and then the error came; now the error comes and nothing runs.
# A slice across a perf.data's lost-data gap was piped without a word;
# now the message says "lost data joined", as :export's does.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
PT2PERF=${PT2PERF:-$BUILD/tools/pt2perf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
# run NAME TRACE SCRIPT-LINES...: the script, then the screen in $tmp/NAME.txt
run() {
	n=$1 t=$2; shift 2
	printf '%s\n' "$@" ":save-screen $tmp/$n.txt" >"$tmp/$n.s"
	"$PTBROWSE" --no-state --script "$tmp/$n.s" --size 120x10 "$t" >"$tmp/$n.out" 2>&1 ||
		fail "$n: exit $? ($(cat "$tmp/$n.out"))"
}
msg() { tail -n 1 "$tmp/$1.txt" 2>/dev/null; }

"$PTGEN" -S 256KiB -o "$tmp/g.pt" || { echo "ptgen failed"; exit 1; }
tail -c +101 "$tmp/g.pt" >"$tmp/cut.pt"

# No PSB at or before the rows, nor inside them: FILE is untouched.
echo precious >"$tmp/keep.pt"
run nopsb "$tmp/cut.pt" ":pipe raw rows 3 cat > $tmp/keep.pt"
if [ "$(cat "$tmp/keep.pt")" != precious ]; then
	fail "no PSB: the command ran and truncated its file ($(wc -c <"$tmp/keep.pt") bytes): $(msg nopsb)"
elif ! msg nopsb | grep -q "no PSB at or before FROM.*nothing run"; then
	fail "no PSB: message: $(msg nopsb)"
else
	echo "ok   no PSB before the rows: the error, the command not run"
fi
# With a PSB the slice is piped as before.
run psb "$tmp/g.pt" ":pipe raw rows 3 cat > $tmp/psb.pt"
[ -s "$tmp/psb.pt" ] && msg psb | grep -q "as a slice ([0-9]* bytes) to .*exit 0" &&
	echo "ok   rows after a PSB: piped as a slice" ||
	fail "with a PSB: $(wc -c <"$tmp/psb.pt") bytes: $(msg psb)"

# Across a lost-data gap of a perf.data: said, as a warning.
"$PTGEN" -S 64KiB -o "$tmp/r1.pt" || { echo "ptgen failed"; exit 1; }
"$PT2PERF" --chunk 3001 --hole 0x4000:0x800 --cpu 2 "$tmp/r1.pt" -o "$tmp/pd.data" ||
	{ echo "pt2perf failed"; exit 1; }
run gap "$tmp/pd.data" ":goto 0x3f00" ":pipe raw rows 3000 cat > $tmp/gp.pt"
[ -s "$tmp/gp.pt" ] || fail "gap: nothing piped: $(msg gap)"
msg gap | grep -q "as a slice ([0-9]* bytes, lost data joined) to .*exit 0" &&
	echo "ok   a slice across lost data says so" ||
	fail "gap: message: $(msg gap)"
run nogap "$tmp/pd.data" ":goto 0x3f00" ":pipe raw rows 10 cat > $tmp/ng.pt"
msg nogap | grep -q "lost data" && fail "no gap in 10 rows, yet: $(msg nogap)"
exit $status

#!/bin/sh
# t_ui_pipe_raw -- :pipe raw checks the slice before it runs the command.
# Rows before a trace's first PSB make no slice: the command ran first, so
# `cat > FILE` truncated FILE, and then the error came; now the error
# comes and nothing runs.
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

exit $status

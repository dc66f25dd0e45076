#!/bin/sh
# t_ui_export_cancel -- in a terminal, :export of a big range copies in the
# background: the status line shows "export N% (C-c stops)", keys still
# move the cursor meanwhile, C-c stops it and nothing is written (no file
# at a new name, an existing file as it was, no temporary file left), a
# small one says what it wrote, and q while one runs stops it the same
# way.  The copy is paced (PTBROWSE_EXPORT_PACE_MS, a test-only knob):
# 256 MiB copies in a fraction of a second here, faster than keys come.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 2 --size 256MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
mkdir "$tmp/out"
# no_temp WHAT: no temporary file (NAME.tmp.PID...) is left in $tmp/out
no_temp() {
	left=$(ls -A "$tmp/out" | grep '\.tmp\.')
	[ -z "$left" ] || fail "$1: temporary files left: $left"
}
running='export [0-9]+% \(C-c stops\)'

tm_start PTBROWSE_EXPORT_PACE_MS=10 -- --no-state "$tmp/t.pt"
wait_for '^ 0x0/'

# A new name: the progress, a key answered meanwhile, C-c.
keys ":export 0 100% $tmp/out/new.pt" Enter
wait_for "$running"
keys j
i=0
while [ "$(status_off)" = 0x0 ]; do
	sleep 0.1
	i=$((i + 1))
	[ $i -lt 50 ] || fail "j was not answered while the export ran"
done
screen | tail -n 2 | head -n 1 | grep -Eq "$running" ||
	fail "j: the export no longer runs (too fast to test?)"
keys C-c
wait_for "export stopped: nothing written to $tmp/out/new.pt"
sleep 0.3
[ -e "$tmp/out/new.pt" ] && fail "C-c: new.pt was written"
[ -e "$tmp/out/new.pt.options" ] && fail "C-c: new.pt.options was written"
no_temp "C-c, new name"
echo "ok   C-c stops :export of 256 MiB: no file, no temporary file, j answered meanwhile"

# An existing file and its options stay as they were.
echo "old slice" >"$tmp/out/old.pt"
echo "--mtc-freq 9" >"$tmp/out/old.pt.options"
keys ":export 0 100% $tmp/out/old.pt" Enter
wait_for "$running"
keys C-c
wait_for "export stopped: nothing written to $tmp/out/old.pt"
[ "$(cat "$tmp/out/old.pt")" = "old slice" ] &&
	[ "$(cat "$tmp/out/old.pt.options")" = "--mtc-freq 9" ] ||
	fail "C-c: old.pt or its options changed"
no_temp "C-c, existing file"
echo "ok   C-c leaves an existing target and its options as they were"

# A search's rank stays on the status line beside the copy's progress.
keys /tsc Enter
wait_for '/tsc \[[-0-9]+/[0-9]+\]'
keys ":export 0 100% $tmp/out/s.pt" Enter
wait_for "$running"
keys n
sleep 0.5
screen | tail -n 2 | head -n 1 | grep -Eq "/tsc \[[-0-9]+/[0-9]+\].*$running" ||
	fail "the search's rank is gone while the export runs: $(screen | tail -n 2 | head -n 1)"
keys C-c
wait_for "export stopped: nothing written to $tmp/out/s.pt"
no_temp "C-c, with a search"
echo "ok   the search's rank stays beside the export's progress"

# Left alone, a small one says what it wrote.
keys ":export 0 0x100000 $tmp/out/small.pt" Enter
# (to the end of the packet at 0x100000)
wait_for "wrote $tmp/out/small.pt: 0x0-0x10000[0-9a-f] \(104857[0-9] bytes\)"
n=$(screen | sed -n 's/.*(\([0-9]*\) bytes).*/\1/p' | tail -n 1)
head -c "$n" "$tmp/t.pt" | cmp -s - "$tmp/out/small.pt" ||
	fail "small.pt is not the trace's first $n bytes"
no_temp "small"
echo "ok   a finished :export says what it wrote"

# q while one runs: it stops, nothing is written, the browser exits 0.
keys ":export 0 100% $tmp/out/quit.pt" Enter
wait_for "$running"
keys q
wait_for 'EXITED rc=0'
[ -e "$tmp/out/quit.pt" ] && fail "q: quit.pt was written"
no_temp "q"
# (said on the terminal given back, where the user sees it)
screen | grep -q "ptbrowse: export stopped as the browser ended: nothing written to $tmp/out/quit.pt" ||
	fail "q: the stopped export is not said: $(screen | grep -v '^ *$' | tail -n 3)"
echo "ok   q during :export stops it: nothing written, and says so"

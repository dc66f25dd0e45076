#!/bin/sh
# t_export_options -- an export never writes the trace's own options file
# (TRACE.options), even one that does not exist yet: it was protected only
# if it existed, so `ptbrowse export h.pt 0 0x100 -o h.pt.options` wrote a
# slice there and h.pt no longer opened ("h.pt.options:1: a NUL byte: not
# a text file").  Same with :export in the browser, and under another
# spelling of the name (./, dir/..); nor does extract make its -o DIR
# there.  A name that only looks alike is fine.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
case $PTBROWSE in /*) ;; *) PTBROWSE=$PWD/$PTBROWSE ;; esac	# (cd below)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0 n=0
fail() { echo "FAIL: $*"; status=1; n=$((n + 1)); }
ok() { [ $n = 0 ] && echo "ok   $*"; n=0; }

"$PTGEN" -S 64KiB -o "$tmp/h.pt" || { echo "ptgen failed"; exit 1; }
rm -f "$tmp/h.pt.options"
mkdir "$tmp/sub"
# opens NAME: the trace still opens (info reads its options file)
opens() {
	"$PTBROWSE" info "$tmp/h.pt" >/dev/null 2>"$tmp/info.err" ||
		fail "$1: h.pt no longer opens: $(cat "$tmp/info.err")"
}

cd "$tmp" || exit 1
for o in h.pt.options ./h.pt.options sub/../h.pt.options "$tmp/h.pt.options"; do
	if "$PTBROWSE" export h.pt 0 0x100 -o "$o" >/dev/null 2>"$tmp/err"; then
		fail "export -o $o: succeeded"
	elif ! grep -q "the trace's options file" "$tmp/err"; then
		fail "export -o $o: $(cat "$tmp/err")"
	fi
	[ -e h.pt.options ] && fail "export -o $o: wrote h.pt.options"
	opens "export -o $o"
	rm -f h.pt.options
done
ok "ptbrowse export refuses TRACE.options by any name"

printf ':export 0 0x100 %s\n:save-screen %s\n' "sub/../h.pt.options" "$tmp/s.txt" >"$tmp/s"
"$PTBROWSE" --no-state --script "$tmp/s" --size 120x10 h.pt >"$tmp/out" 2>&1 ||
	fail ":export: exit $? ($(cat "$tmp/out"))"
tail -n 1 "$tmp/s.txt" | grep -q "export: .*the trace's options file" ||
	fail ":export: message: $(tail -n 1 "$tmp/s.txt")"
[ -e h.pt.options ] && fail ":export wrote h.pt.options"
opens ":export"
rm -f h.pt.options
ok ":export refuses the trace's options file"

# :save-screen too (it wrote the screen there: "'ptbrowse' is not an option").
printf ':save-screen %s\n:save-screen %s\n' "sub/../h.pt.options" "$tmp/s.txt" >"$tmp/s"
"$PTBROWSE" --no-state --script "$tmp/s" --size 120x10 h.pt >"$tmp/out" 2>&1 ||
	fail ":save-screen: exit $? ($(cat "$tmp/out"))"
tail -n 1 "$tmp/s.txt" | grep -q "the trace's options file" ||
	fail ":save-screen: message: $(tail -n 1 "$tmp/s.txt")"
[ -e h.pt.options ] && fail ":save-screen wrote h.pt.options"
opens ":save-screen"
rm -f h.pt.options
ok ":save-screen refuses the trace's options file"

# extract -o TRACE.options made a directory there (the trace then said
# "h.pt.options: Is a directory").
for o in h.pt.options h.pt.options/ sub/../h.pt.options; do
	if "$PTBROWSE" extract h.pt -o "$o" >/dev/null 2>"$tmp/err"; then
		fail "extract -o $o: succeeded"
	elif ! grep -q "the trace's options file" "$tmp/err"; then
		fail "extract -o $o: $(cat "$tmp/err")"
	fi
	[ -e h.pt.options ] && fail "extract -o $o: made h.pt.options"
	opens "extract -o $o"
	rm -rf h.pt.options
done
ok "ptbrowse extract refuses TRACE.options as its directory"

# Names like it are not it.
"$PTBROWSE" export h.pt 0 0x100 -o sub/h.pt.options >/dev/null 2>"$tmp/err" &&
	"$PTBROWSE" export h.pt 0 0x100 -o h.pt.options2 >/dev/null 2>>"$tmp/err" ||
	fail "a name like the options file: $(cat "$tmp/err")"
[ -e h.pt.options ] && fail "sub/h.pt.options or h.pt.options2 wrote h.pt.options"
opens "other names"
ok "other names are written"
exit $status

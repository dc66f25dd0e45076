#!/bin/sh
# t_cli_edges -- command-line edges a review found: endless inputs
# (--kallsyms and --script on /dev/zero or a FIFO that never sends a
# newline hung at 100% CPU), +x.pt after "--" (a file, as for less, not
# +GOTO), writes over the trace's options file or the trace itself
# (marks --export, >>), exit statuses of bad --raw and export ranges,
# and messages that named the wrong trouble.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$PWD/$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
wpid=
cleanup() {
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# run CMD...: stdout to $tmp/out, stderr to $tmp/err, status in $rc
# (124: it hung), standard input /dev/null.
run() {
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# want RC ERR NAME: the last run ended with RC and standard error ERR.
want() {
	[ "$rc" -eq "$1" ] && [ "$(cat "$tmp/err")" = "$2" ] && ok "$3" ||
		bad "$3: exit $rc, '$(head -c 300 "$tmp/err")' (want $1, '$2')"
}

"$BUILD/tools/ptgen" --seed 1 --size 64KiB -o "$tmp/a.pt" >/dev/null || exit 1
cd "$tmp" || exit 1

# --kallsyms: a regular file of text lines (/proc/kallsyms is one).
for c in flow calls; do
	run "$PTBROWSE" $c --kallsyms /dev/zero a.pt
	want 1 "ptbrowse $c: /dev/zero: not a regular file" "$c --kallsyms /dev/zero"
done
mkdir dir
run "$PTBROWSE" flow --kallsyms dir a.pt
want 1 "ptbrowse flow: dir: is a directory" "flow --kallsyms DIR"
printf 'ffffffff81000000 T a\n\000 T b\n' >nul.syms
run "$PTBROWSE" flow --kallsyms nul.syms a.pt
want 1 "ptbrowse flow: nul.syms: line 2: a NUL byte: not a text file" \
	"flow --kallsyms with a NUL byte"
if [ -r /proc/kallsyms ]; then
	run "$PTBROWSE" flow --kallsyms /proc/kallsyms a.pt
	grep -q "kallsyms" "$tmp/err" && bad "flow --kallsyms /proc/kallsyms: $(cat "$tmp/err")" ||
		ok "flow --kallsyms /proc/kallsyms is read"
fi

# --script: the first NUL byte or overflow ends it, naming FILE:LINE.
run "$PTBROWSE" --no-state --script /dev/zero a.pt
want 1 "ptbrowse: /dev/zero:1: a NUL byte in the line" "--script /dev/zero"
mkfifo fifo
(printf 'j%01100d' 0; sleep 60) >fifo &
wpid=$!
run "$PTBROWSE" --no-state --script fifo a.pt
want 1 "ptbrowse: fifo:1: line too long" "--script FIFO without a newline"
kill "$wpid" 2>/dev/null
wpid=

# After "--", +x.pt is a file name, as for less.
cp a.pt +x.pt
echo ':save-screen scr.txt' >keys
run "$PTBROWSE" --no-state --script keys --size 80x10 -- +x.pt
[ $rc -eq 0 ] && grep -q "+x.pt" scr.txt && ok "-- +x.pt opens the file" ||
	bad "-- +x.pt: exit $rc, $(head -c 300 "$tmp/err")"
run "$PTBROWSE" --no-state --script keys --size 80x10 '+t 12q' -- +x.pt
[ $rc -eq 2 ] && ok "+GOTO before -- is still a target" ||
	bad "'+t 12q' -- +x.pt: exit $rc, $(head -c 300 "$tmp/err")"

# marks --export and :export-marks never write the trace's options file
# (not there yet, or empty): marks text there, the trace would not open.
mkdir o
cp a.pt o/a.pt
m="marks not exported: o/a.pt.options: is the trace's options file; not overwriting it"
run "$PTBROWSE" marks --export o/a.pt.options o/a.pt
want 1 "ptbrowse marks: $m" "marks --export TRACE.options (none yet)"
: >o/a.pt.options
run "$PTBROWSE" marks --export o/a.pt.options o/a.pt
want 1 "ptbrowse marks: $m" "marks --export TRACE.options (empty)"
"$PTBROWSE" marks --export - o/a.pt >>o/a.pt.options 2>"$tmp/err"
rc=$?
want 1 "ptbrowse marks: standard output is the trace's options file; not writing over it" \
	"marks --export - >>TRACE.options"
printf ':export-marks o/a.pt.options\n:save-screen scr2.txt\n' >k2
run "$PTBROWSE" --no-state --script k2 o/a.pt
[ $rc -eq 0 ] && grep -q "^$m" scr2.txt && ok ":export-marks TRACE.options is refused" ||
	bad ":export-marks TRACE.options: exit $rc, $(tail -n 1 scr2.txt 2>&1)"
run "$PTBROWSE" dump o/a.pt
[ $rc -eq 0 ] && [ ! -s o/a.pt.options ] && ok "the trace still opens" ||
	bad "after the exports: dump exit $rc, $(head -c 300 "$tmp/err")"

# A text command whose standard output is the trace (>> does not
# truncate it first) refuses, as export -o - does; the trace is intact.
cp a.pt z.pt
for c in dump flow calls info index; do
	"$PTBROWSE" $c z.pt >>z.pt 2>"$tmp/err" </dev/null
	rc=$?
	want 1 "ptbrowse $c: standard output is the trace; not writing over it" "$c z.pt >>z.pt"
done
"$PTBROWSE" dump - <z.pt >>z.pt 2>"$tmp/err"
rc=$?
want 1 "ptbrowse dump: standard output is the trace; not writing over it" "dump - <z.pt >>z.pt"
cmp -s a.pt z.pt && ok "z.pt unchanged" || bad "z.pt was written"

# export: a FROM or TO that does not parse is a usage error (exit 2), as
# dump's bad range is; a plain offset past the end is refused as 1GiB is
# (it was clamped to the end).
for r in 1e3 "t 12q" 0x 200%; do
	run "$PTBROWSE" export a.pt 0 "$r" -o out.pt
	want 2 "ptbrowse export: a.pt: '$r' is neither an offset nor a goto target, mark, bookmark or region of this trace" \
		"export TO '$r'"
done
run "$PTBROWSE" export a.pt nosuch 0x100 -o out.pt
[ $rc -eq 1 ] && ok "export: a name the marks lack is exit 1" || bad "export nosuch: exit $rc"
for r in 0x20000 131072 1GiB; do
	run "$PTBROWSE" export a.pt 0 $r -o out.pt
	[ $rc -eq 1 ] && grep -q "is past the end (0x10000)\$" "$tmp/err" && [ ! -e out.pt ] &&
		ok "export 0 $r: past the end" || bad "export 0 $r: exit $rc, $(cat "$tmp/err")"
done
run "$PTBROWSE" export a.pt 0 0x10000 -o out.pt
[ $rc -eq 0 ] && cmp -s a.pt out.pt && ok "export 0 0x10000 (the end) writes it all" ||
	bad "export 0 0x10000: exit $rc, $(cat "$tmp/err")"

# A --raw that is not FILE:ADDR is a usage error (exit 2) in flow, calls
# and the browser, before the trace or the screen; a dump that cannot be
# read stays exit 1.
run "$PTBROWSE" flow --raw code.bin a.pt
want 2 "ptbrowse flow: --raw code.bin: expected FILE:ADDR (e.g. code.bin:0x400000)" \
	"flow --raw FILE"
run "$PTBROWSE" calls --raw foo:bar a.pt
want 2 "ptbrowse calls: --raw foo:bar: bad address 'bar' (expected a number such as 0x400000)" \
	"calls --raw FILE:word"
run "$PTBROWSE" --no-state --raw foo:bar --script keys a.pt
want 2 "ptbrowse: --raw foo:bar: bad address 'bar' (expected a number such as 0x400000)" \
	"browser --raw FILE:word"
run "$PTBROWSE" flow --raw nosuch:0x1000 a.pt
want 1 "ptbrowse flow: nosuch: No such file or directory" "flow --raw NOSUCH:ADDR"

# Messages: --script DIR says what it is (was "DIR:0: read error");
# dump -:NAME is standard input and a region name, as -:FROM-TO is a
# range (was "-:nosuch: No such file or directory"); an index cache
# under an $XDG_CACHE_HOME that is a file is no cache, not one that
# "cannot be read"; info and marks say why a write failed.
run "$PTBROWSE" --no-state --script dir a.pt
want 1 "ptbrowse: --script dir: is a directory" "--script DIR"
"$PTBROWSE" dump -:nosuch <a.pt >"$tmp/out" 2>"$tmp/err"
rc=$?
want 1 "ptbrowse dump: -: no region, mark or bookmark 'nosuch' (ptbrowse marks lists them)" \
	"dump -:nosuch"
: >cachefile
XDG_CACHE_HOME=$tmp/cachefile "$PTBROWSE" index a.pt >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ $rc -eq 0 ] && ! grep -q "ignored" "$tmp/err" && ok "index: no cache directory is not a cache ignored" ||
	bad "index with XDG_CACHE_HOME a file: exit $rc, $(cat "$tmp/err")"
if [ -w /dev/full ]; then
	printf 'm a\n' >mk
	"$PTBROWSE" --script mk a.pt >/dev/null 2>&1 </dev/null
	for c in info marks; do
		"$PTBROWSE" $c a.pt >/dev/full 2>"$tmp/err" </dev/null
		rc=$?
		want 1 "ptbrowse $c: write error: No space left on device" "$c >/dev/full"
	done
fi

# - where standard input is not read, and a closed standard input
for c in flow calls marks; do
	run "$PTBROWSE" $c -
	[ $rc -eq 1 ] && grep -q "standard input is not read here" "$tmp/err" &&
		ok "$c -" || bad "$c -: exit $rc, $(cat "$tmp/err")"
done
"$PTBROWSE" dump - <&- >"$tmp/out" 2>"$tmp/err"
rc=$?
want 1 "ptbrowse dump: standard input (-): Bad file descriptor" "dump - <&-"

exit $fail

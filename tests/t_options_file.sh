#!/bin/sh
# t_options_file -- TRACE.options beside a raw trace: ptgen -o and export
# write it, every command that opens a raw trace reads it (info, dump,
# index, flow, marks, export, the browser), the command line wins over it
# (export's too, into its slice's file), other
# tools' lines are left alone, and a bad one is one line naming the file
# and line (exit 1, no crash) in every command.
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d) || exit 1
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
. "$(dirname "$0")/tmux_lib.sh"
bad=0
ok() { echo "ok   $*"; }
no() { echo "FAIL $*"; bad=1; }

# ptgen -o FILE writes FILE.options, the same line as --print-config.
"$GEN" --seed 3 --size 512KiB -o "$tmp/t.pt" || no "ptgen"
want=$("$GEN" --seed 3 --print-config)
[ "$(cat "$tmp/t.pt.options" 2>/dev/null)" = "$want" ] &&
	ok "ptgen -o writes t.pt.options: $want" ||
	no "ptgen's t.pt.options: '$(cat "$tmp/t.pt.options" 2>&1)', want '$want'"
"$GEN" --seed 3 --size 64KiB >"$tmp/s.pt" || no "ptgen to stdout"
[ -e "$tmp/s.pt.options" ] || [ -e ./-.options ] &&
	no "ptgen to standard output wrote an options file" || ok "ptgen - writes no options file"

# info takes the timing from the file; an option given wins over its own.
"$PTBROWSE" info "$tmp/t.pt" >"$tmp/info" 2>&1
grep -q "^timing     $want\$" "$tmp/info" && grep -q 'duration' "$tmp/info" &&
	grep -Eq ' [0-9.]+ms$' "$tmp/info" && ok "info: timing and duration in ms from the file" ||
	no "info: $(cat "$tmp/info")"
"$PTBROWSE" info --mtc-freq 5 "$tmp/t.pt" >"$tmp/info" 2>&1
grep -q -- '--mtc-freq 5 --nom-freq 12' "$tmp/info" && ok "info --mtc-freq 5 wins over the file's 3" ||
	no "info --mtc-freq 5: $(grep timing "$tmp/info")"

# dump --cycles: its third column, ns since the first timed packet, is
# there with the file.
ns=$("$PTBROWSE" dump --cycles "$tmp/t.pt" 2>&1 | awk 'NR == 100 { print $3 }')
case $ns in
''|*[!0-9]*) no "dump --cycles: no ns column ('$ns')" ;;
*) ok "dump --cycles: $ns ns at its 100th line" ;;
esac

# Other tools' lines (ptrecord's --raw code images, an unknown option with
# its value, comments) are left alone.
cp "$tmp/t.pt.options" "$tmp/keep"
{
	echo "# ptrecord's code images and ours"
	echo "--raw $tmp/some dir/code.bin:0x400000"
	echo "--foo 1 --nom-freq=12"
	cat "$tmp/keep"
} >"$tmp/t.pt.options"
"$PTBROWSE" info "$tmp/t.pt" >"$tmp/info" 2>&1 && grep -q "^timing     $want\$" "$tmp/info" &&
	ok "--raw lines, other options and comments are skipped" || no "mixed file: $(cat "$tmp/info")"

# A bad file: one line naming file and line, exit 1, in every command.
printf -- '--cpu 6/78/3\n--mtc-freq many\n' >"$tmp/t.pt.options"
msg="t.pt.options:2: --mtc-freq: bad value 'many'"
for cmd in info dump index flow marks "export 0 0x100 -o $tmp/x.pt"; do
	# shellcheck disable=SC2086
	set -- $cmd
	name=$1; shift
	"$PTBROWSE" "$name" "$tmp/t.pt" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$msg" "$tmp/err"; then
		ok "$name: a bad options file: '$(cat "$tmp/err")'"
	else
		no "$name: rc $rc, '$(cat "$tmp/err")'"
	fi
done
"$PTBROWSE" --no-state "$tmp/t.pt" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "$msg" "$tmp/err" && ok "the browser: a bad options file: rc 1" ||
	no "browser: rc $rc, '$(cat "$tmp/err")'"
cp "$tmp/keep" "$tmp/t.pt.options"

# export writes FILE.options with the stream's options; -o - none.
"$PTBROWSE" export "$tmp/t.pt" 0x10000 0x20000 -o "$tmp/e.pt" 2>"$tmp/err" || no "export: $(cat "$tmp/err")"
[ "$(cat "$tmp/e.pt.options" 2>/dev/null)" = "$want" ] && ok "export writes e.pt.options" ||
	no "export's e.pt.options: '$(cat "$tmp/e.pt.options" 2>&1)'"
"$PTBROWSE" export "$tmp/t.pt" 0x10000 0x20000 -o - >"$tmp/o.pt" 2>"$tmp/err" || no "export -o -: $(cat "$tmp/err")"
cmp -s "$tmp/o.pt" "$tmp/e.pt" && ok "export -o - writes the same slice to standard output" ||
	no "export -o -: differs from the file"
ls "$tmp" | grep -q '^-\.options$' && no "export -o - wrote an options file"

# export's timing options win over the file's, place 't' targets, and go
# into the slice's options file; without any, a 't' target says why.
mv "$tmp/t.pt.options" "$tmp/gone"
"$PTBROWSE" export "$tmp/t.pt" 't 100us' +4KiB -o "$tmp/n.pt" 2>"$tmp/err" &&
	no "export 't 100us' without a TSC frequency: exit 0"
grep -q "no TSC frequency" "$tmp/err" && ok "export 't 100us' without timing: $(cat "$tmp/err")" ||
	no "export without timing: $(cat "$tmp/err")"
"$PTBROWSE" export --nom-freq 12 --mtc-freq=3 "$tmp/t.pt" 't 100us' +4KiB -o "$tmp/n.pt" \
	2>"$tmp/err" || no "export --nom-freq 12: $(cat "$tmp/err")"
[ "$(cat "$tmp/n.pt.options" 2>/dev/null)" = "--mtc-freq 3 --nom-freq 12" ] &&
	ok "export --nom-freq 12 --mtc-freq=3: n.pt.options has them" ||
	no "n.pt.options: '$(cat "$tmp/n.pt.options" 2>&1)'"
mv "$tmp/gone" "$tmp/t.pt.options"

# The browser shows times in ns with the file, TSC ticks without it.
tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
keys 40 j
wait_for ' ns( |$)'
ok "the browser: times in ns with t.pt.options"
mv "$tmp/t.pt.options" "$tmp/gone"
tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
keys 40 j
wait_for '[0-9]t( |$)'
grep -Eq ' ns( |$)' "$tmp/screen" && no "the browser shows ns without the options file" ||
	ok "the browser: TSC ticks without it"
exit $bad

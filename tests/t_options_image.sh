#!/bin/sh
# t_options_image -- --options FILE (an options file of image and timing
# options, as ptrecord writes and libxdc's kAFL traces come with) means
# the same to flow, calls and the browser: on unzip_trace.pt with
# unzip.options (a --raw line, its path relative to the file), calls and
# the browser's :funcs count flow's instructions, and calls prints what
# it prints with the --raw typed by hand; a file that is not there, or a
# bad line, is said with the file's name (and line) and exits 1; the
# file's timing lines time calls' calls, under the command line's.
set -u
: "${BUILD:=build}" "${SHARED:?}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

L=$SHARED/traces/libxdc-kafl-flow
[ -f "$L/unzip_trace.pt" ] || { echo "skip: $L/unzip_trace.pt missing"; exit 0; }
opts=$L/unzip.options
T=$L/unzip_trace.pt

# flow's count: the summary's total
"$PTBROWSE" flow --summary --options "$opts" "$T" >"$tmp/sum" 2>"$tmp/err" ||
	bad "flow --options: $(cat "$tmp/err")"
n=$(awk '$1 == "total" { print $2 }' "$tmp/sum")
[ -n "$n" ] && [ "$n" -gt 100000 ] || bad "flow --options: total '$n'"

# calls, from another directory (the file's paths are from its own)
(cd "$tmp" && "$PTBROWSE" calls --options "$opts" "$T") >"$tmp/calls" 2>"$tmp/err"
rc=$?
got=$(sed -n '1s/.*): \([0-9]*\) instructions.*/\1/p' "$tmp/calls")
[ $rc -eq 0 ] && [ "$got" = "$n" ] && ok "calls --options: flow's $n instructions" ||
	bad "calls --options: exit $rc, '$got' instructions, flow $n ($(head -c 300 "$tmp/err"))"
raw=$(sed -n "s,^--raw ,--raw=$L/,p" "$opts")
# shellcheck disable=SC2086
"$PTBROWSE" calls $raw "$T" >"$tmp/calls_raw" 2>&1
cmp -s "$tmp/calls" "$tmp/calls_raw" && ok "calls --options prints what calls --raw does" ||
	{ bad "calls --options and --raw differ"; diff "$tmp/calls" "$tmp/calls_raw" | head -5; }

# the browser: :funcs over the whole trace
size=$(printf '0x%x' "$(wc -c <"$T")")
printf 'wait-index\n:funcs 0 %s\n:save-screen %s/f.txt\nq\n' "$size" "$tmp" >"$tmp/keys"
(cd "$tmp" && LC_ALL=C "$PTBROWSE" --no-state --script keys --size 120x20 \
	--options "$opts" "$T") >"$tmp/out" 2>&1
rc=$?
got=$(sed -n '1s/.*): \([0-9]*\) insns.*/\1/p' "$tmp/f.txt" 2>/dev/null)
[ $rc -eq 0 ] && [ "$got" = "$n" ] && ok "the browser --options: :funcs has flow's $n instructions" ||
	bad "browser --options: exit $rc, '$got' insns, flow $n ($(head -n 1 "$tmp/f.txt" 2>&1) $(head -c 300 "$tmp/out"))"
"$PTBROWSE" --help 2>&1 | grep -q -- '--options FILE' && ok "ptbrowse --help names --options" ||
	bad "ptbrowse --help has no --options"

# a file not there, a bad line: said the same way by all three, exit 1
printf -- '--raw nothere.bin:0x1000\n' >"$tmp/x.options"
for c in flow calls browse; do
	"$PTBROWSE" $c --options "$tmp/none.options" "$T" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -eq 1 ] && grep -q "none.options: No such file or directory" "$tmp/err" &&
		ok "$c --options of no file: exit 1, named" ||
		bad "$c --options of no file: exit $rc, $(head -c 300 "$tmp/err")"
done
for c in flow calls; do
	"$PTBROWSE" $c --options "$tmp/x.options" "$T" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -eq 1 ] && grep -q "x.options:1: $tmp/nothere.bin: No such file" "$tmp/err" &&
		ok "$c --options with a missing dump: exit 1, FILE:LINE" ||
		bad "$c --options with a missing dump: exit $rc, $(head -c 300 "$tmp/err")"
done
printf -- '--raw nothere.bin\n' >"$tmp/y.options"
"$PTBROWSE" browse --options "$tmp/y.options" "$T" >/dev/null 2>"$tmp/err" </dev/null
rc=$?
[ $rc -eq 1 ] && grep -q "y.options:1: --raw $tmp/nothere.bin: expected FILE:ADDR" "$tmp/err" &&
	ok "browse --options with a bad --raw line: exit 1, FILE:LINE" ||
	bad "browse --options with a bad --raw line: exit $rc, $(head -c 300 "$tmp/err")"

# the file's timing lines: calls times its calls by them as by the
# command line's, which wins over them (a ptrecord recording: TSC
# packets; its own options file has the code)
if [ -x "$BUILD/tools/ptrecord" ] && [ -x "$BUILD/progs/p_loops" ]; then
	"$BUILD/tools/ptrecord" -q -o "$tmp/l.pt" "$BUILD/progs/p_loops" >/dev/null 2>&1
	tm="--cpu 6/78/3 --mtc-freq 3 --nom-freq=12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
	{ echo "$tm"; echo "--tsc-freq 2GHz"; cat "$tmp/l.pt.options"; } >"$tmp/all.options"
	"$PTBROWSE" calls --options "$tmp/all.options" "$tmp/l.pt" 2>&1 | head -n 1 >"$tmp/a"
	# shellcheck disable=SC2086
	"$PTBROWSE" calls --options "$tmp/l.pt.options" $tm --tsc-freq 2GHz "$tmp/l.pt" 2>&1 |
		head -n 1 >"$tmp/b"
	"$PTBROWSE" calls --options "$tmp/all.options" --tsc-freq 1GHz "$tmp/l.pt" 2>&1 |
		head -n 1 >"$tmp/c"
	if grep -q 'time [0-9.]*us$' "$tmp/a" && cmp -s "$tmp/a" "$tmp/b" &&
	   ! cmp -s "$tmp/a" "$tmp/c"; then
		ok "calls --options: the file's timing as the command line's, which wins"
	else
		bad "calls --options timing: $(cat "$tmp/a" "$tmp/b" "$tmp/c")"
	fi
fi
exit $fail

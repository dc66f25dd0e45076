#!/bin/sh
# What ptrecord says and writes beside the trace:
#  - TRACE.options begins with the timing options, as ptgen -o writes
#    them (with --mtc-freq as given), so that `ptbrowse info` shows the
#    raw trace's times ("timing (none recorded)" before); with --cpus 2
#    each TRACE.cpuK has its own TRACE.cpuK.options; the sideband's
#    "# timing" line says the same, and pt2perf takes it (no --mtc-freq
#    needed, times as the raw stream's);
#  - the summary's byte count is the file's (it said 637 for 640: counted
#    before the close's last TNT and PADs);
#  - -o in a missing directory names it ("no such directory", as the
#    other tools; it named TRACE.img);
#  - --psb-period under 64 is refused as ptgen's (0 wrote a PSB+ at
#    almost every instruction);
#  - a program that forks: one line says child processes run untraced.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
rec=$BUILD/tools/ptrecord p2p=$BUILD/tools/pt2perf gen=$BUILD/tools/ptgen
progs=$BUILD/progs
fail=0 f0=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for f in "$rec" "$p2p" "$gen" "$PTBROWSE" "$progs/p_signal" "$progs/p_threads"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
LD_BIND_NOW=1
export LD_BIND_NOW
if ! "$rec" -o "$tmp/s.pt" "$progs/p_signal" >/dev/null 2>"$tmp/err"; then
	if grep -q -i 'ptrace\|operation not permitted' "$tmp/err"; then
		echo "skip: ptrace is not allowed here: $(head -n 1 "$tmp/err")"
		exit 0
	fi
	echo "FAIL ptrecord p_signal: $(cat "$tmp/err")"; exit 1
fi

# the summary's bytes are the file's
n=$(sed -n 's/.* \([0-9]*\) bytes of trace.*/\1/p' "$tmp/err")
size=$(wc -c <"$tmp/s.pt")
[ -n "$n" ] && [ "$n" = "$size" ] && echo "ok   summary: $n bytes of trace, the file's" ||
	bad "summary says '$n' bytes, the file has $size"

# the timing line, first in TRACE.options and in the sideband
want=$("$gen" --print-config)
[ "$(head -n 1 "$tmp/s.pt.options")" = "$want" ] || bad "s.pt.options begins '$(head -n 1 "$tmp/s.pt.options")'"
grep -q "^# timing $want\$" "$tmp/s.pt.sideband" || bad "sideband: $(grep '^#' "$tmp/s.pt.sideband")"
"$PTBROWSE" info "$tmp/s.pt" >"$tmp/info" 2>&1
grep -q "^timing  *$want\$" "$tmp/info" && awk '$1 == "0" { exit $NF == "-" }' "$tmp/info" ||
	bad "info s.pt: $(grep -e '^timing' -e '^0 ' "$tmp/info")"
[ $fail = "$f0" ] && echo "ok   TRACE.options and the sideband give the timing: ptbrowse info shows times"
f0=$fail

# --cpus 2 --mtc-freq 0: per-CPU options files, pt2perf takes the timing
if "$rec" -q --cpus 2 --mtc-freq 0 -o "$tmp/t" "$progs/p_threads" >/dev/null 2>"$tmp/err"; then
	w0=$(echo "$want" | sed 's/--mtc-freq 3/--mtc-freq 0/')
	for c in 0 1; do
		[ "$(cat "$tmp/t.cpu$c.options")" = "$w0" ] || bad "t.cpu$c.options: $(cat "$tmp/t.cpu$c.options" 2>&1)"
	done
	"$p2p" --sideband "$tmp/t.sideband" --cpu 0 "$tmp/t.cpu0" --cpu 1 "$tmp/t.cpu1" \
		-o "$tmp/t.data" 2>"$tmp/err" || bad "pt2perf: $(cat "$tmp/err")"
	"$PTBROWSE" info "$tmp/t.data" >"$tmp/info" 2>&1
	grep -q "^timing  *$w0\$" "$tmp/info" || bad "t.data: $(grep '^timing' "$tmp/info")"
	d0=$("$PTBROWSE" info "$tmp/t.cpu0" | awk '$1 == "0" { print $NF }')
	d1=$(awk '$1 == "0" { print $NF }' "$tmp/info")
	[ -n "$d0" ] && [ "$d0" = "$d1" ] || bad "cpu0: duration raw '$d0', perf.data '$d1'"
	"$p2p" --mtc-freq 3 --cpu 0 "$tmp/t.cpu0" -o "$tmp/t3.data" 2>/dev/null && bad "pt2perf --mtc-freq 3 of an --mtc-freq 0 recording: taken"
	[ $fail = "$f0" ] && echo "ok   --cpus 2 --mtc-freq 0: TRACE.cpuK.options, pt2perf's perf.data times as the raw ($d0)"
else
	bad "ptrecord --cpus 2: $(cat "$tmp/err")"
fi
f0=$fail

# a missing directory, a PSB period under 64
out=$("$rec" -q -o "$tmp/nodir/t.pt" "$progs/p_signal" 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] && [ "$out" = "ptrecord: $tmp/nodir/t.pt: no such directory: $tmp/nodir" ] ||
	bad "-o nodir/t.pt: exit $rc, '$out'"
for v in 0 63; do
	out=$("$rec" -q --psb-period $v -o "$tmp/p.pt" "$progs/p_signal" 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && [ "$out" = "ptrecord: bad value '$v' for --psb-period (at least 64)" ] &&
	   [ ! -e "$tmp/p.pt" ] || bad "--psb-period $v: exit $rc, '$out'"
done
[ $fail = "$f0" ] && echo "ok   a missing directory and --psb-period 0 refused in one line"
f0=$fail

# a fork: said, the child runs (untraced)
if [ -x /bin/sh ] && [ -x /bin/true ]; then
	out=$("$rec" -o "$tmp/fk" --from-exec /bin/sh -c '/bin/true; echo parent-after' 2>"$tmp/err")
	rc=$?
	[ $rc = 0 ] && [ "$out" = parent-after ] &&
	   [ "$(grep -c 'child processes run untraced' "$tmp/err")" = 1 ] ||
		bad "fork: exit $rc, '$out', $(cat "$tmp/err")"
	[ $fail = "$f0" ] && echo "ok   a fork is said once: child processes run untraced"
fi
exit $((fail > 0))

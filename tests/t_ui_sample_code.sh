#!/bin/sh
# `make run`'s sample (tools/record.sh: tests/progs/p_sample recorded by
# ptrecord, wrapped into a perf.data) as the browser first shows it: the
# code's function names in the packet pane, times in ns, the core:bus ratio
# from the first PSB+, and the CPU lanes with the program's threads.  The
# MHz column is a measurement over a whole MTC period, so it is empty until
# the first one ends and shows the model's measurement from there: record.sh
# records with an MTC every crystal clock (--mtc-freq 0, 100 cycles), so that
# is on the first screen (with perf's --mtc-freq 3 it was at 0xa0, below
# it); never made up above it.  An MTC period is 50 ticks (CPUID.15H 2/100)
# and a tick perf's TIME_CONV's (as the times shown; tools/record.sh gives
# the model's 1.2 GHz TSC, so 100 cycles in 50 ticks are its 2400 MHz;
# measured with CPUID.15H's clock beside another TIME_CONV they were not
# what the times shown said).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
# the TSC Hz of the perf.data's TIME_CONV, and 100 cycles in 50 ticks at it
hz=$("$PTBROWSE" info "$perf" | sed -n 's/^perf time  time_shift \([0-9]*\), time_mult \([0-9]*\),.*/\1 \2/p' |
	awk '{ printf "%.0f", 1e9 * 2 ^ $1 / $2 }')
[ -n "$hz" ] || { echo "FAIL no TIME_CONV in $perf"; exit 1; }
mhz=$(awk -v h="$hz" 'BEGIN { printf "%.0f", 100 * h / 50 / 1e6 }')

# screen NAME "KEYS": the 120x40 screen after KEYS into $tmp/NAME.
screen() {
	printf 'wait-index\n%s\n:save-screen %s\n' "$2" "$tmp/$1" >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$perf" \
		>/dev/null 2>"$tmp/err" || bad "$1: $(cat "$tmp/err")"
}

screen first ""
f=$tmp/first
grep -q '^> ┌0x00000000  psb' "$f" || bad "first screen: not at the first PSB"
grep -q 'tip.pge    3: main+0x0          main+0x0' "$f" ||
	bad "first screen: no function name in the packet pane"
grep -q 'strtol@plt+0x' "$f" || bad "first screen: no PLT name"
# the code view's packet rows name the function as the packet pane does
screen codeview ":set view code"
grep -q 'tip.pge    3: main+0x0' "$tmp/codeview" ||
	bad "code view: the tip.pge's payload is not 3: main+0x0: $(grep tip.pge "$tmp/codeview" | head -1)"
# times in ns (estimates carry ~), not ticks
grep -Eq '  ~?[0-9]+ ns ' "$f" || bad "first screen: no times in ns"
grep -q '+0t' "$f" && bad "first screen: times in ticks"
grep -q 'cbr        18 .* 24$' "$f" || bad "first screen: the PSB+'s CBR is not shown"
grep -q 'cbr MHz$' "$f" || bad "first screen: no MHz column"
# the lanes: the program's threads on two CPUs
grep -q '^cpu0 ' "$f" && grep -q '^cpu1 ' "$f" || bad "first screen: no CPU lanes"
for c in p_sample sorter hasher matrix; do
	grep -q " $c " "$f" || bad "first screen: $c missing from the lanes' legend"
done

# MHz on the first screen: measured over the first whole MTC period (the
# first MTC to the second), from the second MTC's row on, and empty above
# it: nothing made up.
grep -E '^[> ] .?0x[0-9a-f]{8}  ' "$f" | awk -v m="$mhz" '{
		for (i = 1; i < NF && $i !~ /0x/; i++) ;
		mtc += ($(i + 1) == "mtc"); mhz = ($NF == m && $(NF - 1) == "24")
		if (mtc < 2 && mhz) { print "early " $i; done = 1; exit }
		if (mtc == 2) { print (mhz ? "ok" : "none") " " $i; done = 1; exit }
	}
	END { if (!done) print "no-second-mtc" }' >"$tmp/mhz"
case $(cat "$tmp/mhz") in
ok*) ;;
early*) bad "first screen: MHz before the first whole MTC period ends ($(cat "$tmp/mhz"))" ;;
none*) bad "first screen: no $mhz MHz where the first whole MTC period ends ($(cat "$tmp/mhz"))" ;;
*) bad "first screen: no whole MTC period on it" ;;
esac
# below the screen the MHz stays measured: the 40th MTC's row
off=$("$PTBROWSE" dump --stream cpu0 "$perf" 2>/dev/null |
	awk '$2 == "mtc" && ++n == 40 { sub(/^0+/, "", $1); print $1; exit }')
if [ -n "$off" ]; then
	screen mtc ":goto +0x$off"
	grep -q "^>  0x0*$off  mtc .* 24 $mhz\$" "$tmp/mtc" || bad "no $mhz MHz at the 40th MTC (0x$off)"
else
	bad "dump: no 40th MTC in cpu0"
fi

# the MHz the model measures, against tests/tm_ref.py (the SDM's rules,
# not decoder/tm.c) with record.sh's timing: every clean MTC period of
# cpu0 re-measured, at TIME_CONV's TSC Hz
if command -v python3 >/dev/null; then
	"$PTBROWSE" dump --cycles --stream cpu0 "$perf" >"$tmp/cyc" 2>"$tmp/err" ||
		bad "dump --cycles: $(cat "$tmp/err")"
	python3 "$(dirname "$0")/tm_ref.py" --mtc-freq 0 --nom-freq 12 --eax 2 --ebx 100 \
		--tsc-hz "$hz" "$tmp/cyc" >"$tmp/ref" || bad "tm_ref: $(head -n 5 "$tmp/ref")"
	grep -Eq 're-measured [1-9]' "$tmp/ref" || bad "tm_ref re-measured no period: $(cat "$tmp/ref")"
fi

[ $fail = 0 ] && echo "ok t_ui_sample_code"
exit $fail

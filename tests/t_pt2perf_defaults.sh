#!/bin/sh
# pt2perf's defaults describe the trace as ptgen makes it and perf reads
# it: TIME_CONV is the 1.2 GHz TSC its own AUXTRACE_INFO gives (max
# non-turbo 12, TSC:CTC 100/2, 24 MHz crystal: time_shift 20, time_mult
# 873813; it was 600 >> 10, 1.7 GHz, so a perf.data's times were 0.70 of
# the raw trace's), and the intel_pt attr's config has BranchEn (bit 13:
# perf takes pass-through without it as branch tracing off), pwr_evt (bit
# 4) and ptw (bit 12) beside the PWRE/PWRX/EXSTOP/MWAIT/PTW packets.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen p2p=$BUILD/tools/pt2perf
fail=0 f0=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for f in "$gen" "$p2p"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
"$gen" -S 64K -o "$tmp/a.pt" >/dev/null && "$p2p" "$tmp/a.pt" -o "$tmp/a.data" ||
	{ echo "FAIL ptgen | pt2perf"; exit 1; }

# the attr's config: after the pipe header (16 bytes), HEADER_ATTR's header
# (8) and the attr's type and size (8)
cfg=$(od -A n -t x8 -j 32 -N 8 "$tmp/a.data" | tr -d ' ')
for bit in 0 1 4 9 10 12 13; do
	[ $(((0x$cfg >> bit) & 1)) = 1 ] || bad "attr config 0x$cfg: bit $bit clear"
done
[ $fail = "$f0" ] && echo "ok   attr config 0x$cfg: pt, cyc, pwr_evt, mtc, tsc, ptw, branch"
f0=$fail

if [ -x "$PTBROWSE" ] && "$PTBROWSE" info --help >/dev/null 2>&1; then
	"$PTBROWSE" info "$tmp/a.data" >"$tmp/info" 2>&1 || bad "info: $(cat "$tmp/info")"
	grep -q '^perf time  time_shift 20, time_mult 873813,' "$tmp/info" ||
		bad "TIME_CONV: $(grep 'perf time' "$tmp/info")"
	# the same duration raw and wrapped: one clock
	d0=$("$PTBROWSE" info "$tmp/a.pt" | awk '$1 == "0" { print $NF }')
	d1=$(awk '$1 == "0" { print $NF }' "$tmp/info")
	[ -n "$d0" ] && [ "$d0" = "$d1" ] || bad "duration raw '$d0', perf.data '$d1'"
	[ $fail = "$f0" ] && echo "ok   TIME_CONV 873813 >> 20: $d0 raw and wrapped"
	f0=$fail
else
	echo "skip ptbrowse is not there: TIME_CONV not checked"
fi
[ $fail = 0 ]

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

# The timing configuration is the trace's: RAW.options beside it (ptgen
# -o writes it).  pt2perf wrote ptgen's defaults whatever the trace was
# made with, so its perf.data showed other times as exact (29.086ms raw,
# 43.743ms wrapped).  An option that contradicts the file is refused in
# one line, exit 2, nothing written; two streams whose files disagree
# are refused; a sideband's "# timing" line is checked the same way.
"$gen" -s 3 -S 256K --nom-freq 20 --cpuid-0x15.ebx 150 --mtc-freq 5 -o "$tmp/nf.pt" >/dev/null ||
	{ echo "FAIL ptgen --nom-freq 20"; exit 1; }
"$p2p" "$tmp/nf.pt" -o "$tmp/nf.data" || bad "pt2perf nf.pt"
if [ -x "$PTBROWSE" ]; then
	"$PTBROWSE" info "$tmp/nf.data" >"$tmp/info" 2>&1 || bad "info nf.data: $(cat "$tmp/info")"
	grep -q "^timing  *$(cat "$tmp/nf.pt.options")\$" "$tmp/info" ||
		bad "nf.data timing: $(grep '^timing' "$tmp/info"), not $(cat "$tmp/nf.pt.options")"
	d0=$("$PTBROWSE" info "$tmp/nf.pt" | awk '$1 == "0" { print $NF }')
	d1=$(awk '$1 == "0" { print $NF }' "$tmp/info")
	[ -n "$d0" ] && [ "$d0" = "$d1" ] || bad "nf.pt: duration raw '$d0', perf.data '$d1'"
	# TIME_CONV at its 1.8 GHz TSC (CPUID.15H 150/2 of 24 MHz)
	grep -q '^perf time  time_shift 20, time_mult 582542,' "$tmp/info" ||
		bad "nf.data TIME_CONV: $(grep 'perf time' "$tmp/info")"
	[ $fail = "$f0" ] && echo "ok   the timing of nf.pt.options: $d0 raw and wrapped"
	f0=$fail
fi
"$p2p" --mtc-freq 5 --nom-freq 20 "$tmp/nf.pt" -o "$tmp/nf2.data" || bad "pt2perf with the file's own options"
out=$("$p2p" --mtc-freq 3 "$tmp/nf.pt" -o "$tmp/no.data" 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [ ! -e "$tmp/no.data" ] &&
   printf '%s\n' "$out" | grep -q "^pt2perf: --mtc-freq 3 contradicts $tmp/nf.pt.options (--mtc-freq 5)" ||
	bad "pt2perf --mtc-freq 3 nf.pt: exit $rc, '$out'"
out=$("$p2p" --cpu 0 "$tmp/a.pt" --cpu 1 "$tmp/nf.pt" -o "$tmp/no.data" 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [ ! -e "$tmp/no.data" ] &&
   printf '%s\n' "$out" | grep -q "^pt2perf: $tmp/nf.pt.options says --mtc-freq 5, $tmp/a.pt.options --mtc-freq 3" ||
	bad "pt2perf a.pt nf.pt: exit $rc, '$out'"
printf '# ptrecord sideband v1\n# timing --mtc-freq 0\n' >"$tmp/sb"
out=$("$p2p" --sideband "$tmp/sb" "$tmp/a.pt" -o "$tmp/no.data" 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/no.data" ] &&
   printf '%s\n' "$out" | grep -q "^pt2perf: $tmp/sb says --mtc-freq 0, $tmp/a.pt.options --mtc-freq 3" ||
	bad "pt2perf --sideband (mtc-freq 0) a.pt: exit $rc, '$out'"
# without RAW.options: the options given, else ptgen's defaults
rm "$tmp/nf.pt.options"
"$p2p" --mtc-freq 5 --nom-freq 20 --cpuid-0x15.ebx 150 "$tmp/nf.pt" -o "$tmp/nf3.data" &&
	cmp -s "$tmp/nf.data" "$tmp/nf3.data" || bad "pt2perf with the options given: not as with nf.pt.options"
[ $fail = "$f0" ] && echo "ok   contradicting options, streams or sideband refused in one line"
[ $fail = 0 ]

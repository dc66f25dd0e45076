#!/bin/sh
# t_flow_cut -- numbers of `flow --summary` and `calls` at the edges of a
# range, on a ptrecord recording with CYC packets and no timing options:
#   - a TNT right before a PSB decides instructions on both sides of it
#     (decoding from the PSB gives those after its IP); a range ending at
#     that PSB holds the first ones only, so the run's cycles must not be
#     the whole run's shown as exact (calls said "cycles 42", the run up
#     to the PSB took 35: now bounded, ending at the PSB's time);
#   - without the timing configuration the TSC estimate holds at each TSC
#     packet, so a range starting late in a PSB segment got a first stamp
#     up to a PSB period early: flow --summary called that span "at least"
#     (3.7 times the timed estimate), calls showed it bare;
#   - flow --summary said the trace has no CYC packets where no cycle
#     window closed in the range;
#   - a missing code dump: the full form's error line names the address
#     and why, also where no perf.data mapping explains it.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

for f in "$BUILD/tools/ptrecord" "$BUILD/progs/p_sample"; do
	[ -x "$f" ] || { echo "skip: $f missing"; exit 0; }
done
"$BUILD/tools/ptrecord" -q --max-insns 400000 -o "$tmp/s.pt" \
	"$BUILD/progs/p_sample" >/dev/null 2>"$tmp/rec.err" ||
	{ echo "FAIL ptrecord: $(cat "$tmp/rec.err")"; exit 1; }
S=$tmp/s.pt
# untimed: without the timing options ptrecord writes first
sed -i '/^--cpu /d' "$S.options"
# ptbrowse CMD with the recording's code, and with its timing (ptrecord's
# configuration, which a raw trace does not carry)
pb() { _c=$1; shift; "$PTBROWSE" "$_c" --options "$S.options" "$@"; }
pbt() {
	_c=$1; shift
	pb "$_c" --cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 \
		--cpuid-0x15.ebx 100 "$@"
}

# 1. every PSB right after a TNT whose instructions go on past the PSB's
# IP: [TNT, PSB) must not have the whole run's cycles as exact.  The
# whole run is [TNT, the next TNT); the cut one's cycles are a range
# within it.
"$PTBROWSE" dump --no-timing --no-pad "$S" >"$tmp/dump" || bad "dump"
awk '$2 == "psb" && p ~ /^tnt/ { print po, $1 } { p = $2; po = $1 }' \
	"$tmp/dump" >"$tmp/pairs"
cuts=0
while read -r tnt psb; do
	[ "$cuts" -lt 3 ] || break
	t=$((0x$tnt)) p=$((0x$psb))
	# cut: instructions of the TNT come after the PSB's status event
	pb flow --offset "$S:$t-$((p + 0x100))" >"$tmp/flow"
	awk -v t="$tnt" '/\[exec mode/ { ev = 1; next } ev && $1 == t { f = 1 } END { exit !f }' \
		"$tmp/flow" || continue
	cuts=$((cuts + 1))
	# (offsets of 16 hex digits: compared as strings)
	next=$(awk -v p="$psb" '($1 "") > (p "") && $2 ~ /^tnt/ { print $1; exit }' "$tmp/dump")
	c=$(pb calls "$S:$t-$p" | sed -n '1s/.*, cycles \([^,]*\),.*/\1/p')
	w=$(pb calls "$S:$t-$((0x$next))" | sed -n '1s/.*, cycles \([^,]*\),.*/\1/p')
	case $c in
	*[!0-9]*-*|[0-9]*-[0-9]*)
		hi=${c#*-}
		case $w in
		*[!0-9]*) bad "[$tnt, $next): cycles '$w', not exact" ;;
		*) if [ "$hi" -le "$w" ]; then
			ok "[$tnt, $psb) cut at the PSB: cycles $c of the run's $w"
		   else
			bad "[$tnt, $psb): cycles $c, more than the whole run's $w"
		   fi ;;
		esac ;;
	'?') ok "[$tnt, $psb) cut at the PSB: cycles ?" ;;
	*) bad "[$tnt, $psb) cut at the PSB: cycles '$c' shown as exact (the whole run [$tnt, $next): $w)" ;;
	esac
	# 3. its summary: no cycle window closed, but the trace has CYCs
	pb flow --summary "$S:$t-$p" >"$tmp/sum"
	if grep -q 'decode errors; .*(unknown in this range' "$tmp/sum"; then
		ok "[$tnt, $psb): --summary: cycles unknown in this range"
	else
		bad "[$tnt, $psb): --summary: $(grep 'decode errors' "$tmp/sum")"
	fi
done <"$tmp/pairs"
[ "$cuts" -gt 0 ] || bad "no TNT before a PSB whose run goes on past it ($(wc -l <"$tmp/pairs") TNTs before a PSB)"

# 2. a range from late in the first PSB segment to late in the second:
# its untimed span is at most the timed estimate (a lower bound), or
# unknown; so is calls' time
awk '$2 == "psb" { print $1 }' "$tmp/dump" | head -n 3 >"$tmp/psbs"
if [ "$(wc -l <"$tmp/psbs")" -eq 3 ]; then
	from=$((0x$(sed -n 2p "$tmp/psbs") - 8)) to=$((0x$(sed -n 3p "$tmp/psbs") - 8))
	pb flow --summary "$S:$from-$to" >"$tmp/sum"
	pbt flow --summary "$S:$from-$to" >"$tmp/sumt"
	est=$(sed -n 's/^time: \([0-9]*\) TSC ticks (estimated).*/\1/p' "$tmp/sumt")
	low=$(sed -n 's/^time: at least \([0-9]*\) TSC ticks.*/\1/p' "$tmp/sum")
	if [ -z "$est" ]; then
		bad "timed --summary: $(grep '^time' "$tmp/sumt")"
	elif [ -n "$low" ] && [ $((low * 100)) -le $((est * 102)) ]; then
		ok "untimed --summary: at least $low ticks, the timed estimate $est"
	elif grep -q '^time: unknown' "$tmp/sum"; then
		ok "untimed --summary: time unknown (timed: $est)"
	else
		bad "untimed --summary: '$(grep '^time' "$tmp/sum")', the timed estimate $est ticks"
	fi
	# (its time from the first stamp not held from before the range,
	# t_calls_stale)
	pb calls "$S:$from-$to" >"$tmp/calls"
	ct=$(sed -n '1s/.*, time \([0-9]*\)tk$/\1/p' "$tmp/calls")
	if [ -n "$ct" ] && [ $((ct * 100)) -le $((est * 102)) ]; then
		ok "calls without timing: ${ct}tk, the timed estimate $est"
	elif [ -z "$ct" ] && ! grep -Eq '[0-9]tk' "$tmp/calls"; then
		ok "calls without timing: $(sed -n '1s/.*\(time .*\)/\1/p' "$tmp/calls")"
	else
		bad "calls without timing: $(grep -E '[0-9]tk' "$tmp/calls" | head -n 2), the timed estimate $est"
	fi
	pbt calls "$S:$from-$to" | head -n 1 >"$tmp/callst"
	grep -q ', time [0-9.]*us$' "$tmp/callst" || bad "calls with timing: $(cat "$tmp/callst")"
else
	bad "fewer than 3 PSBs"
fi

# 4. code missing from the --raw images (the main program's only): the
# full form names the address it wanted and why; --insn-only stays
# iptflow's
grep 'p_sample' "$S.options" >"$tmp/main.options"
"$PTBROWSE" flow --options "$tmp/main.options" "$S" 2>/dev/null |
	grep 'error: no memory mapped' | head -n 1 >"$tmp/err1"
"$PTBROWSE" flow --insn-only --options "$tmp/main.options" "$S" 2>/dev/null |
	grep 'error: no memory mapped' | head -n 1 >"$tmp/err2"
if grep -Eq '^\[[0-9a-f]+: error: no memory mapped at this address: [0-9a-f]{16}: not in any --raw/--elf image\]$' "$tmp/err1"; then
	ok "missing code: $(cat "$tmp/err1")"
else
	bad "missing code: '$(cat "$tmp/err1")'"
fi
grep -Eq '^\[[0-9a-f]+: error: no memory mapped at this address\]$' "$tmp/err2" ||
	bad "--insn-only missing code: '$(cat "$tmp/err2")'"
exit $fail

#!/bin/sh
# t_calls_stale -- call-tree times of a range starting late in a PSB
# segment, without the timing options that move the TSC estimate between
# TSC packets (no --mtc-freq with CPUID.15H, no --nom-freq): there, until
# CYCs are calibrated (a period between two TSCs), the estimate holds at
# the last TSC, so the range's first deciding packets were stamped with
# the TSC before the range, up to a PSB period early.  `calls` and :funcs
# counted from that stamp: the range 102480tk and a call of 47
# instructions 74793tk where about 27,700 ticks passed in the range
# (later `calls` showed every time '?').  Now a stamp held from before the
# range starts no span: the range's time is the timed estimate's, no call
# is longer than the range, and a call entered at such a stamp is '?'.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
for f in "$BUILD/tools/ptrecord" "$BUILD/progs/p_sample"; do
	[ -x "$f" ] || { echo "skip: $f missing"; exit 0; }
done
BUILD=$(cd "$BUILD" && pwd)
"$BUILD/tools/ptrecord" -q --max-insns 400000 -o "$tmp/s.pt" \
	"$BUILD/progs/p_sample" >/dev/null 2>"$tmp/rec.err" ||
	{ echo "FAIL ptrecord: $(cat "$tmp/rec.err")"; exit 1; }
# the code alone: no timing, whatever ptrecord writes (TRACE.options is
# read beside a raw trace: the copy has none); run from $tmp, where the
# images' paths lead
grep -- '^--raw' "$tmp/s.pt.options" >"$tmp/raw.options"
cp "$tmp/s.pt" "$tmp/u.pt"
cd "$tmp" || exit 1
S=u.pt
timing="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"

# from 8 bytes before the second PSB (late in the first segment, whose
# CYCs are not calibrated yet) to 8 bytes before the third
"$PTBROWSE" dump --no-timing --no-pad "$S" | awk '$2 == "psb" { print $1 }' |
	head -n 3 >"$tmp/psbs"
[ "$(wc -l <"$tmp/psbs")" -eq 3 ] || { echo "FAIL fewer than 3 PSBs"; exit 1; }
from=$((0x$(sed -n 2p "$tmp/psbs") - 8)) to=$((0x$(sed -n 3p "$tmp/psbs") - 8))
R=$(printf '0x%x-0x%x' "$from" "$to")
# shellcheck disable=SC2086
est=$("$PTBROWSE" flow --summary --options "$tmp/raw.options" $timing "$S:$R" |
	sed -n 's/^time: \([0-9]*\) TSC ticks (estimated).*/\1/p')
[ -n "$est" ] || { echo "FAIL no timed estimate of $R"; exit 1; }

# Whether @1 ticks is the timed estimate (within 3%).
near() { [ $(($1 * 100)) -ge $((est * 97)) ] && [ $(($1 * 100)) -le $((est * 103)) ]; }

# 1. calls: the range's time, each row's at most that, and the call
# made at the stale stamp (before the estimate first moved) '?'
"$PTBROWSE" calls --options "$tmp/raw.options" "$S:$R" >"$tmp/calls" 2>&1 ||
	bad "calls: $(cat "$tmp/calls")"
t=$(sed -n '1s/.*, time \([0-9]*\)tk$/\1/p' "$tmp/calls")
awk '/^ +calls +instructions/ { on = 1; next } on && NF == 0 { exit } on' \
	"$tmp/calls" >"$tmp/rows"
if [ -n "$t" ] && near "$t"; then
	ok "calls $R: time ${t}tk (timed: $est)"
else
	bad "calls $R: '$(sed -n 1p "$tmp/calls")', the timed estimate $est ticks"
fi
long=$(awk -v t="${t:-0}" '$5 ~ /tk$/ && $5 + 0 > t + 0' "$tmp/rows" | head -n 2)
[ -z "$long" ] || bad "calls: rows longer than the range: $long"
q=$(awk '$5 == "?"' "$tmp/rows" | wc -l)
if [ "$q" -gt 0 ]; then
	ok "calls: $q rows '?'"
else
	bad "calls: no row '?': $(head -n 5 "$tmp/rows")"
fi

# 2. the browser's :funcs over the same range: its title and rows
printf 'wait-index\n:funcs %s %s\n:save-screen %s/funcs.txt\nq\nq\n' \
	"$from" "$to" "$tmp" >"$tmp/keys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script keys \
	--size 120x30 --options raw.options u.pt >"$tmp/out" 2>&1 ||
	bad "browser: exit $? ($(cat "$tmp/out"))"
ft=$(sed -n '1s/.*, ~\([0-9]*\)tk  by.*/\1/p' "$tmp/funcs.txt")
if [ -n "$ft" ] && near "$ft"; then
	ok ":funcs $from $to: ~${ft}tk (timed: $est)"
else
	bad ":funcs $from $to: '$(sed -n 1p "$tmp/funcs.txt")', the timed estimate $est ticks"
fi
long=$(sed -n '3,$p' "$tmp/funcs.txt" |
	awk -v t="${ft:-0}" '{ for (i = 1; i <= NF; i++) if ($i ~ /^~[0-9]+tk$/ &&
		substr($i, 2) + 0 > t + 0) { print; break } }' | head -n 2)
[ -z "$long" ] || bad ":funcs: rows longer than the range: $long"
if grep -Eq '^ +[0-9]+ +[0-9]+ .* \? ' "$tmp/funcs.txt"; then
	ok ":funcs: a row '?'"
else
	bad ":funcs: no row '?': $(sed -n '3,6p' "$tmp/funcs.txt")"
fi
exit $fail

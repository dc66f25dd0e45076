#!/bin/sh
# t_ui_funcs_range -- :funcs FROM TO, :funcs REGION and :regions' function
# lists decode from the PSB at or before FROM and count what the packets
# in [FROM, TO) decide: `flow --offset`'s instructions there.  They
# decoded from the first PSB after FROM, so a range without a PSB said
# "0 insns, cycles 0" and "(no instructions in the range)" (its region's
# lists empty, with no reason), and a longer one lost what came before its
# first PSB, its totals shown as exact.  A range nothing can be decoded in
# (no PSB before its end) says so, its cycles '?', not 0.  On a kAFL
# trace (libxdc's test data): foo, PSBs at 0xb50 and 0x12d0.
set -u
: "${PTBROWSE:?}" "${BUILD:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
L=$SHARED/traces/libxdc-kafl-flow
[ -f "$L/foo_trace.pt" ] || { echo "skip: $L/foo_trace.pt missing"; exit 0; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
raw="--raw=$L/foo.0x7ffff7819000.bin:0x7ffff7819000"

# flow's instructions decided in [0x1000, 0x1200) (offsets: 16 hex digits)
"$PTBROWSE" flow --offset --insn-only "$raw" "$L/foo_trace.pt" >"$tmp/flow" 2>/dev/null
want=$(awk '$2 !~ /^\[/ && $1 >= "0000000000001000" && $1 < "0000000000001200" { n++ }
	END { print n + 0 }' "$tmp/flow")
[ "$want" -gt 0 ] || bad "flow decides nothing in [0x1000, 0x1200)"

# the browser on TRACE with the --script lines given
run() {
	trace=$1
	shift
	printf '%s\n' wait-index "$@" >"$tmp/keys"
	(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script keys \
		--size 120x30 "$raw" "$trace") >"$tmp/out" 2>&1 ||
		bad "exit $? ($(cat "$tmp/out"))"
}
run "$L/foo_trace.pt" ':funcs 0x1000 0x1200' ":save-screen $tmp/a.txt" q \
	':region r1 0x1000 0x1200' ':funcs r1' ":save-screen $tmp/b.txt" q \
	':regions r1' ":save-screen $tmp/c.txt"
for f in a b; do
	title=$(head -n 1 "$tmp/$f.txt")
	case $title in
	*"[0x1000, 0x1200): $want insns,"*) ok "$f: $want insns, as flow --offset" ;;
	*) bad "$f: want $want insns: $title" ;;
	esac
done
grep -q "functions of r1 *$" "$tmp/c.txt" && [ "$(grep -c " $want " "$tmp/c.txt")" = 2 ] &&
	ok ":regions r1: $want insns by cycles and by instructions" ||
	bad ":regions r1: $(grep -A4 'functions of' "$tmp/c.txt")"

# 64 bytes of padding before the trace: no PSB before 0x20
{ head -c 64 /dev/zero; cat "$L/foo_trace.pt"; } >"$tmp/pad.pt"
run "$tmp/pad.pt" ':funcs 0x0 0x20' ":save-screen $tmp/d.txt" q \
	':region r1 0x0 0x20' ':regions r1' ":save-screen $tmp/e.txt"
title=$(head -n 1 "$tmp/d.txt")
case $title in
*"[0x0, 0x20): no code decoded (no PSB before its end), cycles ?,"*)
	ok "no PSB before the end: no code decoded, cycles ?" ;;
*) bad "no PSB: $title" ;;
esac
grep -q "functions of r1: no code decoded (no PSB before its end)" "$tmp/e.txt" &&
	ok ":regions: no code decoded" || bad ":regions without a PSB: $(cat "$tmp/e.txt")"
exit $fail

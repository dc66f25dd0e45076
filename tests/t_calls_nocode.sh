#!/bin/sh
# t_calls_nocode -- `ptbrowse calls` on a raw trace without code (no
# --raw, no --elf) says so on standard error, as `flow` does, and its
# first line does not read as an exact answer: it printed "0
# instructions" with nothing said (rc 0), the natural mistake with a kAFL
# trace (libxdc's test data) whose images its .options file names.
set -u
: "${BUILD:=build}" "${SHARED:?}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
L=$SHARED/traces/libxdc-kafl-flow
[ -f "$L/unzip_trace.pt" ] || { echo "skip: $L/unzip_trace.pt missing"; exit 0; }

"$PTBROWSE" flow "$L/unzip_trace.pt" >/dev/null 2>"$tmp/flow.err"
"$PTBROWSE" calls "$L/unzip_trace.pt" >"$tmp/out" 2>"$tmp/err" ||
	bad "calls: exit $?: $(cat "$tmp/err")"
want=$(sed -n 's/^ptbrowse flow: \(no code given.*\)/\1/p' "$tmp/flow.err")
[ -n "$want" ] || bad "flow says no 'no code given'"
grep -qxF "ptbrowse calls: $want" "$tmp/err" && ok "calls says: $want" ||
	bad "calls' stderr: $(cat "$tmp/err")"
case $(head -n 1 "$tmp/out") in
*"): 0 instructions"*) bad "first line: $(head -n 1 "$tmp/out")" ;;
*"): no code decoded ("*", cycles ?,"*) ok "first line: no code decoded, cycles ?" ;;
*) bad "first line: $(head -n 1 "$tmp/out")" ;;
esac
# with code, nothing is said
"$PTBROWSE" calls "--raw=$L/unzip.0x400000.bin:0x400000" "$L/unzip_trace.pt" \
	>/dev/null 2>"$tmp/err2" || bad "calls --raw: exit $?"
[ -s "$tmp/err2" ] && bad "calls --raw says: $(cat "$tmp/err2")" || ok "with --raw: nothing said"
exit $fail

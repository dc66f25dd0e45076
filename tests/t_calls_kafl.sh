#!/bin/sh
# t_calls_kafl -- the call tree over calls that leave the traced range (a
# kAFL trace, libxdc's test data, IP-filtered to the program): each call
# of a library function goes through a stub whose `jmp [GOT]` leaves the
# range (TIP.PGD), and tracing comes back at the call's return address
# (TIP.PGE).  That is the call's return: the tree's deepest row is the
# real call depth, 8 on unzip (a return-address stack over flow's
# output), and the six calls of one stub from one caller are one row
# "6 calls", not six nested ones.  Before, each such call stayed open:
# the tree went 48 deep, the six calls nested each in the one before.
# Symbols: a kallsyms naming each direct call's target f_ADDR.  A return
# out of the range from the function the trace began in (unzip's
# csu_init) ends it: main, where tracing comes back, is top-level, not
# nested under csu_init as a signal's handler.
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

# The deepest row of calls output FILE's tree (top-level rows 0).
maxdepth() {
	awk '/^ *calls +instructions/ { col = index($0, "function"); on = 1; next }
		on && NF == 0 { exit }
		on { s = substr($0, col); d = (length(s) - length(ltrim(s))) / 2
		     if (d > m) m = d }
		function ltrim(x) { sub(/^ +/, "", x); return x }
		END { print m + 0 }' "$1"
}

img="--raw $L/unzip.0x400000.bin:0x400000"
# shellcheck disable=SC2086
"$PTBROWSE" flow $img "$L/unzip_trace.pt" >"$tmp/flow" 2>"$tmp/err" ||
	bad "flow: $(cat "$tmp/err")"
sed -n 's/.*  call 0x0*\([0-9A-Fa-f]*\)$/\1/p' "$tmp/flow" |
	tr 'A-F' 'a-f' | sort -u |
	awk '{ printf "%016s T f_%s\n", $1, $1 }' | tr ' ' 0 |
	sed 's/0T0f_/ T f_/' >"$tmp/kallsyms"
[ -s "$tmp/kallsyms" ] || bad "no call targets in flow's output"

# shellcheck disable=SC2086
"$PTBROWSE" calls $img "$L/unzip_trace.pt" >"$tmp/calls" 2>"$tmp/err" ||
	bad "calls: $(cat "$tmp/err")"
d=$(maxdepth "$tmp/calls")
[ "$d" = 8 ] && ok "calls without symbols: 8 deep" ||
	bad "calls without symbols: $d deep, want 8"

# shellcheck disable=SC2086
"$PTBROWSE" calls $img --kallsyms "$tmp/kallsyms" "$L/unzip_trace.pt" \
	>"$tmp/calls" 2>"$tmp/err" || bad "calls --kallsyms: $(cat "$tmp/err")"
d=$(maxdepth "$tmp/calls")
[ "$d" = 8 ] && ok "calls --kallsyms: 8 deep" ||
	bad "calls --kallsyms: $d deep, want 8"
rows=$(awk '/^ *calls +instructions/ { on = 1; next } on && NF == 0 { exit }
	on && $NF == "f_401cb0" { print $1 }' "$tmp/calls" | tr '\n' ' ')
[ "$rows" = "6 " ] && ok "f_401cb0: one row of 6 calls" ||
	bad "f_401cb0's rows' calls: '$rows', want '6 '"

# a return out of the range from the function the trace began in
# (csu_init returning to __libc_start_main): it ends there, and main,
# where tracing is enabled again (called from libc), is a top-level row,
# not a signal's handler under csu_init holding the rest of the trace
printf '%s\n' '000000000041ac60 T csu_init' '0000000000401f60 T main' |
	cat - "$tmp/kallsyms" | sort >"$tmp/kallsyms2"
# shellcheck disable=SC2086
"$PTBROWSE" calls $img --kallsyms "$tmp/kallsyms2" "$L/unzip_trace.pt" \
	>"$tmp/calls" 2>"$tmp/err" || bad "calls csu_init: $(cat "$tmp/err")"
top=$(awk '/^ *calls +instructions/ { col = index($0, "function"); on = 1; next }
	on && NF == 0 { exit }
	on && substr($0, col) ~ /^(csu_init|main)/ { printf "%s %s %s|", $1, $2, substr($0, col) }' "$tmp/calls")
case $top in
"0 149501 main|0 59 csu_init|") ok "csu_init ends at its return out; main is top-level" ;;
*) bad "top-level rows of csu_init and main: '$top', want '0 149501 main|0 59 csu_init|'" ;;
esac

# an indirect call out of the range, tracing resumed right after it
# ("[resumed]"), makes no frame either: foo is 14 deep
img="--raw $L/foo.0x7ffff7819000.bin:0x7ffff7819000"
# shellcheck disable=SC2086
"$PTBROWSE" calls $img "$L/foo_trace.pt" >"$tmp/calls" 2>"$tmp/err" ||
	bad "calls foo: $(cat "$tmp/err")"
d=$(maxdepth "$tmp/calls")
[ "$d" = 14 ] && ok "calls foo: 14 deep" || bad "calls foo: $d deep, want 14"
exit $fail

#!/bin/sh
# t_cli -- ptbrowse's own command line: --help, -h, --version and the
# browser's --help say a lost output as the subcommands do ("ptbrowse:
# write error: ...", exit 1; they exited 0 silently).  dump reads
# standard input with a range, -:FROM-TO, as it reads /dev/stdin:FROM-TO
# (it was an unknown option); an option's value "-:..." stays its value.
# dump, flow, calls, index, info and marks without a trace say so and
# print their usage (calls printed no usage, index no reason).
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

for a in --help -h --version "browse --help"; do
	# shellcheck disable=SC2086
	"$PTBROWSE" $a >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] ||
		bad "ptbrowse $a: exit $rc, $(cat "$tmp/err")"
	[ -w /dev/full ] || continue
	# shellcheck disable=SC2086
	"$PTBROWSE" $a >/dev/full 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "ptbrowse: write error: No space left on device" ] &&
		ok "ptbrowse $a > /dev/full: exit 1, write error" ||
		bad "ptbrowse $a > /dev/full: exit $rc, '$(cat "$tmp/err")'"
done
gen=$BUILD/tools/ptgen
"$gen" --seed 2 --size 32KiB -o "$tmp/g.pt" >/dev/null || bad "ptgen"
r=0x1000-0x1400
"$PTBROWSE" dump "$tmp/g.pt:$r" >"$tmp/want" 2>&1
"$PTBROWSE" dump --raw -:$r --no-pad <"$tmp/g.pt" >"$tmp/got" 2>&1
"$PTBROWSE" dump --raw --no-pad "$tmp/g.pt:$r" >"$tmp/want2" 2>&1
"$PTBROWSE" dump -:$r <"$tmp/g.pt" >"$tmp/got1" 2>&1
[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got1" && cmp -s "$tmp/want2" "$tmp/got" &&
	ok "dump -:$r reads standard input with the range" ||
	bad "dump -:$r: $(head -n 2 "$tmp/got1")"
"$PTBROWSE" dump -- -:$r <"$tmp/g.pt" >"$tmp/got" 2>&1
cmp -s "$tmp/want" "$tmp/got" && ok "dump -- -:$r likewise" || bad "dump -- -:$r: $(head -n 2 "$tmp/got")"
"$PTBROWSE" dump --comm -:x "$tmp/g.pt" >/dev/null 2>"$tmp/err"
grep -q 'no sideband' "$tmp/err" && ok "dump --comm -:x: -:x is the value" ||
	bad "dump --comm -:x: $(cat "$tmp/err")"

for c in dump flow calls index info marks; do
	"$PTBROWSE" $c >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
		[ "$(head -n 1 "$tmp/err")" = "ptbrowse $c: no trace given" ] &&
		sed -n 2p "$tmp/err" | grep -q "^usage: ptbrowse $c " &&
		ok "$c without a trace: said, with the usage" ||
		bad "$c without a trace: exit $rc, $(head -n 2 "$tmp/err" | tr '\n' '|')"
done
exit $fail

#!/bin/sh
# t_cli -- ptbrowse's own command line: --help, -h, --version and the
# browser's --help say a lost output as the subcommands do ("ptbrowse:
# write error: ...", exit 1; they exited 0 silently).
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
exit $fail

#!/bin/sh
# t_ui_timing_hint -- a raw trace whose timing gives no times says so once
# on the first screen's message line, with the options that would
# (timing_file_hint()); with its TRACE.options file, or the options on the
# command line, or for a perf.data file, it says nothing.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
"$BUILD/tools/ptgen" --seed 5 --size 128KiB -o "$tmp/t.pt" >/dev/null 2>&1 || { echo "FAIL ptgen"; exit 1; }
[ -f "$tmp/t.pt.options" ] || { echo "FAIL ptgen wrote no t.pt.options"; exit 1; }
cp "$tmp/t.pt" "$tmp/bare.pt"
printf ':save-screen %s\nq\n' "$tmp/screen" >"$tmp/keys"
last() { tail -n 1 "$tmp/screen"; }
shot() {
	rm -f "$tmp/screen"
	"$PTBROWSE" --ascii --no-state --size 200x20 --script "$tmp/keys" "$@" >"$tmp/out" 2>&1 ||
		bad "$*: $(cat "$tmp/out")"
}

shot "$tmp/bare.pt"
case $(last) in
*"no timing options (no bare.pt.options): times are TSC ticks"*"bare.pt.options"*)
	echo "ok   a raw trace without options says which would give times" ;;
*) bad "no hint: $(last)" ;;
esac
shot "$tmp/t.pt"
[ -z "$(last | tr -d ' ')" ] && echo "ok   with TRACE.options: nothing said" || bad "with options: $(last)"
shot --tsc-freq 2000000000 "$tmp/bare.pt"
[ -z "$(last | tr -d ' ')" ] && echo "ok   with --tsc-freq: nothing said" || bad "with --tsc-freq: $(last)"
# said once: in :messages a single time after moving about
printf 'j j } {\n:messages\n:save-screen %s\nq\n' "$tmp/screen" >"$tmp/keys"
shot "$tmp/bare.pt"
n=$(grep -c 'times are TSC ticks' "$tmp/screen")
[ "$n" = 1 ] && echo "ok   said once" || bad "said $n times"
exit $fail

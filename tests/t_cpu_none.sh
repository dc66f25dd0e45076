#!/bin/sh
# t_cpu_none -- --cpu none on the command line names no CPU although the
# trace's options file names one (ptgen's --cpu 6/78/3): info shows
# --cpu none, dump --time decodes as on a copy whose file names no CPU
# (as ptdump --cpu none does: no errata, SKL168 off), export writes
# --cpu none into its slice's file, and that file's none holds when the
# slice is opened.  The file's CPU came back through the merge.
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
bad=0
ok() { echo "ok   $*"; }
no() { echo "FAIL $*"; bad=1; }

"$GEN" -S 256K -o "$tmp/t.pt" || no "ptgen"
grep -q -- '--cpu 6/78/3' "$tmp/t.pt.options" || no "ptgen's options name no CPU"
cp "$tmp/t.pt" "$tmp/u.pt"
sed 's|--cpu 6/78/3 *||' "$tmp/t.pt.options" >"$tmp/u.pt.options"

line=$("$PTBROWSE" info --cpu none "$tmp/t.pt" | grep timing)
case $line in
*"--cpu none"*) ok "info --cpu none: $line" ;;
*) no "info --cpu none: '$line'" ;;
esac

"$PTBROWSE" dump --time --cpu none "$tmp/t.pt" >"$tmp/none" 2>&1
"$PTBROWSE" dump --time "$tmp/u.pt" >"$tmp/nocpu" 2>&1
"$PTBROWSE" dump --time "$tmp/t.pt" >"$tmp/skl" 2>&1
cmp -s "$tmp/none" "$tmp/nocpu" && ok "dump --time --cpu none is a trace without a CPU" ||
	{ no "dump --time --cpu none differs from no CPU"; diff "$tmp/nocpu" "$tmp/none" | head -n 4; }
cmp -s "$tmp/skl" "$tmp/nocpu" && no "SKL168 does not change this trace's times (test is void)" ||
	ok "the file's CPU (SKL168) changes the times"

"$PTBROWSE" export --cpu none "$tmp/t.pt" 0 64KiB -o "$tmp/e.pt" >/dev/null 2>&1 ||
	no "export --cpu none"
grep -q -- '--cpu none' "$tmp/e.pt.options" && ok "export writes --cpu none" ||
	no "export's options: '$(cat "$tmp/e.pt.options")'"
line=$("$PTBROWSE" info "$tmp/e.pt" | grep timing)
case $line in
*"--cpu none"*) ok "the slice's none holds: $line" ;;
*) no "the slice's timing: '$line'" ;;
esac

# --cpu none then a CPU: the last wins, as in ptdump
line=$("$PTBROWSE" info --cpu none --cpu 6/85/4 "$tmp/u.pt" | grep timing)
case $line in
*"--cpu 6/85/4"*) ok "a CPU after none: $line" ;;
*) no "a CPU after none: '$line'" ;;
esac
exit $bad

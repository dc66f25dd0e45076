#!/bin/sh
# t_ui_export_rel -- :export FROM TO FILE and :region NAME FROM TO take a
# relative TO (+0x100, psb +1) from FROM, as `ptbrowse export` does.  The
# browser counted it from the cursor and then swapped FROM and TO when TO
# came out before FROM: ':export 0x3000 +0x100' at offset 0 wrote
# 0x0-0x3000 where the command line writes 0x2xxx-0x31xx.  A relative TO
# before FROM (-0x100) is refused; absolute ones in either order are
# still taken as the range between them.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
# run NAME SCRIPT-LINES...: the script on t.pt, the screen in $tmp/NAME.txt
run() {
	n=$1; shift
	printf '%s\n' "$@" ":save-screen $tmp/$n.txt" >"$tmp/$n.s"
	"$PTBROWSE" --no-state --script "$tmp/$n.s" --size 120x10 "$tmp/t.pt" \
		>"$tmp/$n.out" 2>&1 || fail "$n: exit $? ($(cat "$tmp/$n.out"))"
}
msg() { tail -n 1 "$tmp/$1.txt" 2>/dev/null; }
# range <TEXT: the 0xA-0xB in a "wrote" or "region" message
range() { grep -o ' 0x[0-9a-f]*-0x[0-9a-f]* ' | head -n 1 | tr -d ' '; }

"$PTGEN" -S 1MiB -o "$tmp/t.pt" || { echo "ptgen failed"; exit 1; }
"$PTBROWSE" export "$tmp/t.pt" 0x3000 +0x100 -o "$tmp/cli.pt" 2>"$tmp/cli.err" ||
	{ echo "export failed: $(cat "$tmp/cli.err")"; exit 1; }
want=$(range <"$tmp/cli.err")
[ -n "$want" ] || { echo "no range in: $(cat "$tmp/cli.err")"; exit 1; }

# At the start and with the cursor past the range: the CLI's slice.
run start ":export 0x3000 +0x100 $tmp/a.pt"
run moved ":goto 0x8000" ":export 0x3000 +0x100 $tmp/b.pt"
for k in start:a moved:b; do
	got=$(msg "${k%:*}" | range)
	[ "$got" = "$want" ] && cmp -s "$tmp/${k#*:}.pt" "$tmp/cli.pt" ||
		fail "${k%:*}: :export 0x3000 +0x100 wrote '$got', the CLI $want: $(msg "${k%:*}")"
done
[ $status = 0 ] && echo "ok   :export FROM +REL: TO counts from FROM ($want), as the CLI's"

# psb +1 from FROM, the CLI's too.
"$PTBROWSE" export "$tmp/t.pt" 0x3000 'psb +1' -o "$tmp/clip.pt" 2>"$tmp/clip.err"
run psb ":goto 0x9000" ":export 0x3000 psb +1 $tmp/p.pt"
[ "$(msg psb | range)" = "$(range <"$tmp/clip.err")" ] && cmp -s "$tmp/p.pt" "$tmp/clip.pt" &&
	echo "ok   :export 0x3000 psb +1 is the CLI's" ||
	fail "psb +1: $(msg psb); CLI: $(cat "$tmp/clip.err")"

# :region, the same words.
run region ":goto 0x8000" ":region rr 0x3000 +0x100"
msg region | grep -q "region rr: 0x3000-0x3100 (256 bytes)" &&
	echo "ok   :region NAME 0x3000 +0x100 is 0x3000-0x3100" ||
	fail "region: $(msg region)"

# A relative TO before FROM: refused, nothing written.
run back ":export 0x3000 -0x100 $tmp/c.pt"
if [ -e "$tmp/c.pt" ] || ! msg back | grep -q "export: TO '-0x100' is 0x2f00, before FROM 0x3000"; then
	fail "relative TO before FROM: $(msg back)"
else
	echo "ok   a relative TO before FROM is refused"
fi
run rback ":region rr 0x3000 -0x100"
msg rback | grep -q "region: TO '-0x100' is 0x2f00, before FROM" ||
	fail "region, relative TO before FROM: $(msg rback)"

# Absolute FROM and TO in either order: the range between them.
run swap ":export 0x3100 0x3000 $tmp/d.pt"
[ "$(msg swap | range)" = "$want" ] && cmp -s "$tmp/d.pt" "$tmp/cli.pt" &&
	echo "ok   absolute FROM TO in either order" || fail "swap: $(msg swap)"

# A region as TO is its end, as the CLI's "its end for TO" (it was its
# start: ':export 0x3000 hot' wrote up to hot's start).
run reg ":region hot 0x5000 0x9000" ":export 0x3000 hot $tmp/r.pt"
got=$(msg reg | range)
case $got in
0x2*-0x9*) echo "ok   a region as TO is its end ($got)" ;;
*) fail "region as TO: '$got': $(msg reg)" ;;
esac
exit $status

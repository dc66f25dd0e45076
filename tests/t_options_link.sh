#!/bin/sh
# t_options_link -- a trace opened through a symbolic link takes its
# timing from the options file beside the file the link leads to (the
# recorder wrote it there), unless the link has an options file of its
# own; an export over that options file is refused as over the link's.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

mkdir -p "$tmp/rec" "$tmp/work"
"$GEN" --seed 3 --size 64KiB --nom-freq 20 --mtc-freq 5 -o "$tmp/rec/t.pt" >/dev/null || {
	echo "FAIL: ptgen"; exit 1; }
ln -s ../rec/t.pt "$tmp/work/l.pt"
ln -s "$tmp/work/l.pt" "$tmp/work/ll.pt"	# a link to the link

want=$("$PTBROWSE" info "$tmp/rec/t.pt" | sed -n 's/^timing *//p')
[ -n "$want" ] || fail "the trace itself has no timing line"
for l in l ll; do
	got=$("$PTBROWSE" info "$tmp/work/$l.pt" | sed -n 's/^timing *//p')
	[ "$got" = "$want" ] || fail "$l.pt: timing '$got', not '$want'"
done
[ $status = 0 ] && echo "ok   a link (and a link to it) finds the options beside the trace"

printf -- '--mtc-freq 7 --nom-freq 20\n' > "$tmp/work/l.pt.options"
got=$("$PTBROWSE" info "$tmp/work/l.pt" | sed -n 's/^timing *//p')
case $got in *"--mtc-freq 7"*) echo "ok   the link's own options file comes first" ;;
*) fail "the link's own options were not taken: '$got'" ;; esac
rm "$tmp/work/l.pt.options"

cp "$tmp/rec/t.pt.options" "$tmp/before"
"$PTBROWSE" export "$tmp/work/l.pt" 0 100 -o "$tmp/rec/t.pt.options" >/dev/null 2>&1
cmp -s "$tmp/before" "$tmp/rec/t.pt.options" || fail "export through the link overwrote the trace's options file"
[ $status = 0 ] && echo "ok   export through the link keeps the trace's options file"
exit $status

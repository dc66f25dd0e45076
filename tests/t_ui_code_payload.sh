#!/bin/sh
# t_ui_code_payload -- the code view's packet rows give an IP packet's
# payload as the packet pane does: "function+0xoff" fitted to its 17
# columns by cutting the name's middle, the whole offset kept.  It cut the
# text's end (a 17-byte buffer): on a kAFL trace (libxdc's test data, foo
# at its end) the TIP.PGE at 0x7288 read "foo.0x7ffff781900", an 11-digit
# address with the offset gone, where the packet pane has
# "foo.0x..+0x15cf60".
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
printf '%s\n' wait-index G ":save-screen $tmp/p.txt" c ":save-screen $tmp/c.txt" >"$tmp/keys"
(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script keys \
	--size 120x30 "--raw=$L/foo.0x7ffff7819000.bin:0x7ffff7819000" \
	"$L/foo_trace.pt") >"$tmp/out" 2>&1 || bad "exit $? ($(cat "$tmp/out"))"
# the payload of the row at 0x7288 in each
p=$(sed -n 's/.*0x00007288  tip\.pge    \(2: [^ │]*\).*/\1/p' "$tmp/p.txt")
c=$(sed -n 's/.*0x00007288  tip\.pge    \(2: [^ │]*\).*/\1/p' "$tmp/c.txt")
[ "$p" = "2: foo.0x..+0x15cf60" ] || bad "packet pane: '$p'"
[ -n "$c" ] && [ "$c" = "$p" ] && ok "code view: '$c', as the packet pane" ||
	bad "code view: '$c', the packet pane '$p'"
exit $fail

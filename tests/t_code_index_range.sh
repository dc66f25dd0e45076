#!/bin/sh
# t_code_index_range -- :funcs FROM TO on ranges that start and end inside
# PSB segments (decoded from the PSB before FROM, keeping what [FROM, TO)
# decides) shows the same tree with the code index made (its fragments
# inside the range merged between two decoded edges, or two pieces
# decoded in parallel) as with --no-code-index (one decode): on libxdc's
# kAFL traces (foo: PSBs every 0x780 bytes, four chunks of the index's
# 8 KiB grid; unzip: two), every node opened, sorted by cycles and by
# instructions.  test_ctidx checks the fragments are merged (on the
# recorded sample, many ranges, every node and cycle).
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
L=$SHARED/traces/libxdc-kafl-flow
[ -f "$L/foo_trace.pt" ] || { echo "skip: $L/foo_trace.pt missing"; exit 0; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")

# the screens of :funcs on each range of $ranges into $tmp/$1.N.txt
# (trace $2, its image $3, more options after)
screens() {
	tag=$1 trace=$2 img=$3
	shift 3
	{
		echo wait-index
		[ "$tag" = idx ] && echo wait-code-index
		n=0
		for r in $ranges; do
			n=$((n + 1))
			echo ":funcs ${r%%:*} ${r##*:}"
			echo "O"
			echo ":save-screen $tmp/$tag.$n.a.txt"
			echo "s"
			echo ":save-screen $tmp/$tag.$n.b.txt"
			echo "q"
		done
	} >"$tmp/keys"
	(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii \
		--script keys --size 160x300 "$@" "--raw=$L/$img" "$L/$trace") \
		>"$tmp/out" 2>&1 || bad "$trace $tag: exit $? ($(cat "$tmp/out"))"
}

check() {
	trace=$1 img=$2
	screens one "$trace" "$img" --no-code-index
	screens idx "$trace" "$img"
	n=0
	for r in $ranges; do
		n=$((n + 1))
		for v in a b; do
			one=$tmp/one.$n.$v.txt idx=$tmp/idx.$n.$v.txt
			[ -f "$one" ] && [ -f "$idx" ] || { bad "$trace $r: no screen"; continue; }
			grep -q "insns," "$one" || bad "$trace $r: not the function view"
			# without the message line
			if [ "$(sed '$d' "$one")" = "$(sed '$d' "$idx")" ]; then
				ok "$trace $r ($v): the same tree with the code index"
			else
				bad "$trace $r ($v): the code index's tree differs"
				diff "$one" "$idx" | head -8
			fi
		done
	done
}

ranges="0x1000:0x7000 0x1234:0x6a00 0xb60:0x5000 0x2000:0x7100"
check foo_trace.pt foo.0x7ffff7819000.bin:0x7ffff7819000
ranges="0x123:0x3a00 0x800:0x3000 0x45:0x2c20"
check unzip_trace.pt unzip.0x400000.bin:0x400000
exit $fail

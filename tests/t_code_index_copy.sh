#!/bin/sh
# t_code_index_copy -- the code index's cache (ui/funcs_idx.c) is keyed
# on the trace's content as the packet index's cache vouches for it, not
# on its mtime: a copy (cp) and a touched trace load their code index
# from the cache, as their .idx does, and the original still does after
# the copy (before, each made it again, 419 s at 4 GiB, and a copy and
# its original overwrote each other's).  A copy changed at the same size
# makes its own.  On tests/progs/p_sample's CPU 0 stream (rec_lib.sh)
# tiled to 1 MiB, as t_ui_codeidx.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
for f in "$BUILD/tools/pttile" "$BUILD/tools/ptgen"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
"$BUILD/tools/pttile" --size 1MiB -o "$tmp/t.pt" "$tmp/rec/trace.cpu0" >/dev/null ||
	{ echo "FAIL pttile"; exit 1; }
"$BUILD/tools/ptgen" --print-config >"$tmp/t.pt.options" || { echo "FAIL ptgen"; exit 1; }
raw=$(sed -n "s#^--raw #--raw=$tmp/rec/#p" "$tmp/rec/trace.options" | tr '\n' ' ')
printf 'wait-index\nwait-code-index\n:info\n:save-screen %s\n' "$tmp/info.txt" >"$tmp/keys"

# run TRACE WANT: the code index's state in :info must be WANT
run() {
	rm -f "$tmp/info.txt"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --script "$tmp/keys" \
		--size 200x60 $raw "$tmp/$1" >"$tmp/out" 2>&1 ||
		{ bad "$1: exit status $? ($(cat "$tmp/out"))"; return; }
	grep -q "code index: $2, " "$tmp/info.txt" ||
		bad "$1 ($3): want '$2': $(grep -o 'code index[^;]*' "$tmp/info.txt" ||
			cat "$tmp/out")"
}
run t.pt made "first run"
run t.pt "loaded from cache" "second run"
cp "$tmp/t.pt" "$tmp/c.pt" && cp "$tmp/t.pt.options" "$tmp/c.pt.options" || bad cp
touch -d '2001-01-01' "$tmp/c.pt"
run c.pt "loaded from cache" "a copy"
run t.pt "loaded from cache" "the original after the copy"
run c.pt "loaded from cache" "the copy again"
touch "$tmp/t.pt"
run t.pt "loaded from cache" "touched"
# a byte changed at the same size, past the first 64 KiB: its own
printf '\125' | dd of="$tmp/c.pt" bs=1 seek=600000 conv=notrunc 2>/dev/null
run c.pt made "a changed copy"
run t.pt "loaded from cache" "the original after the changed copy"
exit $fail

#!/bin/sh
# iptflow, ptcheck and tmcheck read only regular files, as pt2perf and
# pttile do: a FIFO was opened with a plain open() and hung until a writer
# came (forever), and a directory said "No such device" (ptcheck: ".:
# mmap: No such device", without its name).  Each is now one line with
# the tool's name, exit status non-zero, no waiting.  --help prints the
# usage on stdout with exit status 0 (tmcheck said "unknown option",
# iptflow and pt2perf printed the usage line on stderr, exit 2).
set -u
BUILD=${BUILD:-build}
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
for t in iptflow ptcheck tmcheck pt2perf; do
	[ -x "$BUILD/tools/$t" ] || { echo "FAIL $BUILD/tools/$t is missing"; exit 1; }
done
mkfifo "$tmp/ff" || { echo "skip: no mkfifo"; exit 0; }
mkdir "$tmp/d"
for t in iptflow ptcheck tmcheck; do
	for in in "$tmp/ff:not a regular file" "$tmp/d:Is a directory"; do
		f=${in%%:*} why=${in#*:}
		out=$(timeout 10 "$BUILD/tools/$t" "$f" 2>&1 >/dev/null)
		rc=$?
		[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
		   [ "$out" = "$t: $f: $why" ] || bad "$t $f: exit $rc, '$out'"
	done
done
# iptflow --options: a FIFO there is refused too
out=$(timeout 10 "$BUILD/tools/iptflow" --options "$tmp/ff" "$tmp/d" 2>&1 >/dev/null)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$out" = "iptflow: $tmp/ff: not a regular file" ] ||
	bad "iptflow --options FIFO: exit $rc, '$out'"
[ $fail = 0 ] && echo "ok   iptflow, ptcheck, tmcheck: a FIFO or a directory is one line, no hang"

f0=$fail
for t in iptflow ptcheck tmcheck pt2perf; do
	"$BUILD/tools/$t" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q "^usage: $t " "$tmp/out" && [ ! -s "$tmp/err" ] ||
		bad "$t --help: exit $rc, stdout '$(head -n 1 "$tmp/out")', stderr '$(cat "$tmp/err")'"
done
[ $fail = "$f0" ] && echo "ok   --help: the usage on stdout, exit 0"
exit $((fail > 0))

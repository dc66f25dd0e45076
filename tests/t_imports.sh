#!/bin/sh
# t_imports -- the modules of each layer (decoder/, src/, ui/) include each
# other without a cycle.  A module is a file's name without .c or .h (and
# without _int, an internal header shared by one module's files); X
# depends on Y when X.c or X.h includes Y.h of the same folder (the layers
# below are t_layering.sh's).  A cycle is printed and fails the test.
# It first proves on a made-up folder that a cycle is caught.
set -u
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# cycles DIR: prints each include cycle among DIR's modules; exits 1 if any.
cycles() {
	for f in "$1"/*.c "$1"/*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)\.h".*/\1/p' "$f" |
		while read -r h; do
			[ -f "$1/$h.h" ] && echo "$f $h"
		done
	done | awk -v dir="$1" '
	function mod(s) {
		sub(/^.*\//, "", s); sub(/\.[ch]$/, "", s); sub(/_int$/, "", s)
		return s
	}
	{
		a = mod($1); b = mod($2)
		if (a != b && !((a, b) in seen)) {
			seen[a, b] = 1
			n[a]++; dep[a, n[a]] = b
			node[a] = 1; node[b] = 1
		}
	}
	# Depth-first; state 1 on the path, 2 done.
	function visit(v, path,    i, w) {
		state[v] = 1
		for (i = 1; i <= n[v]; i++) {
			w = dep[v, i]
			if (state[w] == 1) {
				print "FAIL: include cycle in " dir ": " path " -> " w
				bad = 1
			} else if (!state[w])
				visit(w, path " -> " w)
		}
		state[v] = 2
	}
	END {
		for (v in node)
			if (!state[v])
				visit(v, v)
		if (bad)
			exit 1
		nm = 0; for (v in node) nm++
		print "ok   " dir "/: " nm " modules, no include cycle"
	}'
}

# A made-up folder: a -> b -> c_int.h (module c) -> a is a cycle; d -> a is not.
mkdir -p "$tmp/x"
printf '#include "b.h"\n' >"$tmp/x/a.c"
printf '#include <stdio.h>\n#include "c_int.h"\n' >"$tmp/x/b.h"
printf '#include "a.h"\n' >"$tmp/x/c_int.h"
printf '#include "a.h"\n' >"$tmp/x/d.c"
: >"$tmp/x/a.h"; : >"$tmp/x/c.c"
if cycles "$tmp/x" >"$tmp/out"; then
	echo "FAIL: a made-up cycle was not caught"; fail=1
else
	grep -q 'cycle in .*: \(a -> b -> c -> a\|b -> c -> a -> b\|c -> a -> b -> c\)$' "$tmp/out" ||
		{ echo "FAIL: the made-up cycle was reported as: $(cat "$tmp/out")"; fail=1; }
fi
rm "$tmp/x/c_int.h"
cycles "$tmp/x" >/dev/null || { echo "FAIL: a made-up folder without a cycle was refused"; fail=1; }

for d in decoder src ui; do
	cycles "$d" || fail=1
done
exit $fail

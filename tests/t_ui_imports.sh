#!/bin/sh
# t_ui_imports -- the ui/ modules include each other without a cycle.
# A module is a file's name without .c or .h (and without _int, an
# internal header shared by one module's files); X depends on Y when X.c
# or X.h includes ui/Y.h.  A cycle is printed and fails the test.
set -u
cd "$(dirname "$0")/.." || exit 1

for f in ui/*.c ui/*.h; do
	sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$f" | while read -r h; do
		[ -f "ui/$h.h" ] && echo "$f $h"
	done
done | awk '
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
			print "FAIL: include cycle: " path " -> " w
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
	print "ok   ui/: " nm " modules, no include cycle"
}'

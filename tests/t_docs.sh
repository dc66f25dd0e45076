#!/bin/sh
# t_docs -- the man page keeps up with the program: every command of the
# action table (what bind and the prompt take) and every option that a
# --help lists is in doc/ptbrowse.1, and the page formats without warnings.
set -u
: "${PTBROWSE:?}"
man=doc/ptbrowse.1
fail=0
bad() { echo "FAIL $*"; fail=1; }
# groff escapes a hyphen as \-
esc() { printf '%s' "$1" | sed 's/-/\\-/g'; }

for name in $(sed -n 's/^	ACTION([A-Z_0-9]*, "\([^"]*\)".*/\1/p' ui/action_list.h); do
	grep -qF -- "$(esc "$name")" "$man" || bad "command $name is not in $man"
done
[ $fail = 0 ] && echo "ok   every command is in the man page"

for cmd in "" browse dump flow calls index info extract marks export; do
	for opt in $("$PTBROWSE" $cmd --help 2>&1 | grep -o -- '--[a-z][a-z0-9.-]*' | sort -u); do
		grep -qF -- "$(esc "$opt")" "$man" || bad "$cmd $opt is not in $man"
	done
done
[ $fail = 0 ] && echo "ok   every option of every --help is in the man page"

# 'ptbrowse --help' names every option the browser takes: each row of its
# option tables (ui/options.c's and the timing options of timing_opt.c).
sed -n '/^static const struct opt browse[a-z_]*opts\[\]/,/^};/p
	/^const struct opt timing_opts\[\]/,/^};/p' ui/options.c src/timing_opt.c |
	sed -n 's/^[[:space:]]*{ "\([a-z][a-z0-9.-]*\)".*/--\1/p' > "${TMPDIR:-/tmp}/t_docs.$$"
"$PTBROWSE" --help > "${TMPDIR:-/tmp}/t_docs.$$.help" 2>&1
n=0
for opt in $(sort -u "${TMPDIR:-/tmp}/t_docs.$$"); do
	n=$((n + 1))
	grep -qF -- "$opt" "${TMPDIR:-/tmp}/t_docs.$$.help" || bad "ptbrowse --help does not name $opt"
done
[ $n -ge 10 ] || bad "found only $n browser options in the sources"
rm -f "${TMPDIR:-/tmp}/t_docs.$$" "${TMPDIR:-/tmp}/t_docs.$$.help"
[ $fail = 0 ] && echo "ok   ptbrowse --help names every option of the browser"

if command -v groff >/dev/null 2>&1; then
	w=$(LC_ALL=C groff -man -Tutf8 -ww "$man" 2>&1 >/dev/null)
	[ -z "$w" ] || bad "groff warns: $w"
fi
exit $fail

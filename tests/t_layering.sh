#!/bin/sh
# t_layering -- the layers include only downwards: decoder/ includes only
# decoder/ headers and no curses, readline or libelf; src/ includes only src/
# and decoder/ headers and no curses or readline, except src/main.c, which
# may include ui/ headers.  The Makefile compiles each layer with only its
# own -I flags (so "ui.h" in src/ does not compile); this test catches what
# flags cannot: a path ("../ui/ui.h"), a system header (<curses.h>), a
# Makefile that lost its per-layer flags or links a tool with the UI, and
# in the built libraries a function defined in two layers or called from
# a layer below its own.
# It first proves on a made-up tree that each kind of violation is caught.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# The libraries a layer must not include (angle brackets).
UI_SYS='curses\.h|ncurses|ncursesw/|term\.h|readline/'
ELF_SYS='libelf\.h|gelf\.h|elfutils/|dwarf\.h|libdw'

# check ROOT: prints one line per forbidden include under ROOT; exits 1 if any.
check() {
	root=$1
	for f in "$root"/decoder/*.[ch] "$root"/src/*.[ch]; do
		[ -f "$f" ] || continue
		case $f in
		*/decoder/*) layer=decoder; dirs=decoder; sys="$UI_SYS|$ELF_SYS" ;;
		*/src/main.c) layer=main; dirs="src decoder ui"; sys= ;;
		*) layer=src; dirs="src decoder"; sys=$UI_SYS ;;
		esac
		grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$f" |
		while IFS= read -r line; do
			n=${line%%:*}
			inc=$(printf '%s\n' "$line" |
				sed -E 's/^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*//')
			case $inc in
			\"*)
				name=$(printf '%s\n' "$inc" | sed -E 's/^"([^"]*)".*/\1/')
				case $name in */*)
					echo "$f:$n: $layer includes \"$name\" by a path"
					continue ;;
				esac
				ok=0
				for d in $dirs; do
					[ -f "$root/$d/$name" ] && ok=1
				done
				[ $ok = 1 ] ||
					echo "$f:$n: $layer includes \"$name\", not in $dirs"
				;;
			\<*)
				[ -n "$sys" ] && printf '%s\n' "$inc" | grep -q -E "^<($sys)" &&
					echo "$f:$n: $layer includes $inc"
				;;
			esac
		done
	done | grep . && return 1
	return 0
}

# A made-up tree with one violation of each kind, and one of each allowed.
mkdir -p "$tmp/t/decoder" "$tmp/t/src" "$tmp/t/ui"
: >"$tmp/t/decoder/pkt.h"; : >"$tmp/t/src/trace.h"; : >"$tmp/t/ui/ui.h"
printf '#include "pkt.h"\n#include <stdio.h>\n#include <Zydis/Zydis.h>\n' >"$tmp/t/decoder/ok.c"
printf '#include "trace.h"\n#include "pkt.h"\n#include <xxhash.h>\n#include <gelf.h>\n' >"$tmp/t/src/ok.c"
printf '#include "ui.h"\n#include "trace.h"\n' >"$tmp/t/src/main.c"
check "$tmp/t" || { echo "FAIL: a clean tree was refused"; fail=1; }
printf '#include "trace.h"\n' >"$tmp/t/decoder/a.c"
printf '#  include "../src/trace.h"\n' >"$tmp/t/decoder/b.h"
printf '#include <ncursesw/curses.h>\n' >"$tmp/t/decoder/c.c"
printf '#include <libelf.h>\n' >"$tmp/t/decoder/d.c"
printf '#include "ui.h"\n' >"$tmp/t/src/e.c"
printf '#include "../ui/ui.h"\n' >"$tmp/t/src/f.h"
printf '#include <curses.h>\n' >"$tmp/t/src/g.c"
printf '#include <readline/readline.h>\n' >"$tmp/t/src/h.c"
check "$tmp/t" >"$tmp/out"
for v in a.c b.h c.c d.c e.c f.h g.c h.c; do
	grep -q "/$v:1: " "$tmp/out" || { echo "FAIL: $v's include was not caught"; fail=1; }
done
[ "$(wc -l <"$tmp/out")" -eq 8 ] || { echo "FAIL: more than the 8 made-up violations:"; cat "$tmp/out"; fail=1; }

# The real tree.
if ! check "$top" >"$tmp/real"; then
	echo "FAIL: forbidden includes:"; cat "$tmp/real"; fail=1
fi

# The Makefile: what each layer is compiled with, and what a tool links.
# -n -B prints the commands without running them, into an empty BUILD.
mk() { make -s -n -B --no-print-directory V=1 BUILD="$tmp/b" "$@" 2>/dev/null; }
dec=$(mk "$tmp/b/decoder/pkt.o")
app=$(mk "$tmp/b/src/esc.o")
curses=$(pkg-config --cflags ncursesw 2>/dev/null)
case $dec in *-Idecoder*) ;; *) echo "FAIL: decoder not compiled with -Idecoder: $dec"; fail=1 ;; esac
case $dec in *-Isrc*|*-Iui*) echo "FAIL: decoder compiled seeing src/ or ui/: $dec"; fail=1 ;; esac
case $app in *-Isrc*) ;; *) echo "FAIL: src not compiled with -Isrc: $app"; fail=1 ;; esac
case $app in *-Iui*|*/gen*) echo "FAIL: src compiled seeing ui/: $app"; fail=1 ;; esac
if [ -n "$curses" ]; then
	case $dec$app in *"$curses"*) echo "FAIL: decoder or src compiled with curses flags ($curses)"; fail=1 ;; esac
fi
tool=$(mk "$tmp/b/tools/ptgen" | grep -- '-o [^ ]*/tools/ptgen ')
[ -n "$tool" ] || { echo "FAIL: no link line for tools/ptgen"; fail=1; }
case $tool in *libptui*|*curses*|*readline*) echo "FAIL: a tool links the UI: $tool"; fail=1 ;; esac

# The link: a function defined in two layers' libraries is linked from
# whichever comes first (two tok_split()s with different arguments: a
# crash); src/ calling into ui/, or the decoder into src/ or ui/, without
# including a header is a layering break the compiler never sees.
defs() { nm -g --defined-only "$1" | awk 'NF == 3 && $2 ~ /[TDBRVWCG]/ { print $3 }' | sort -u; }
undefs() { nm -g --undefined-only "$1" | awk 'NF { print $NF }' | sort -u; }
if command -v nm >/dev/null; then
	for l in ptdec ptapp ptui; do
		[ -f "$BUILD/lib$l.a" ] || { echo "FAIL: no $BUILD/lib$l.a (make BUILD=$BUILD first)"; fail=1; }
		defs "$BUILD/lib$l.a" >"$tmp/$l.defs" 2>/dev/null
	done
	dup=$(cat "$tmp/ptdec.defs" "$tmp/ptapp.defs" "$tmp/ptui.defs" | sort | uniq -d)
	[ -z "$dup" ] || { echo "FAIL: defined in two layers:" $dup; fail=1; }
	up=$(undefs "$BUILD/libptapp.a" | comm -12 - "$tmp/ptui.defs")
	[ -z "$up" ] || { echo "FAIL: src/ calls into ui/:" $up; fail=1; }
	sort -u "$tmp/ptapp.defs" "$tmp/ptui.defs" >"$tmp/above"
	up=$(undefs "$BUILD/libptdec.a" | comm -12 - "$tmp/above")
	[ -z "$up" ] || { echo "FAIL: the decoder calls into src/ or ui/:" $up; fail=1; }
else
	echo "skip: no nm, the libraries' symbols are not checked"
fi

[ $fail = 0 ] && echo "t_layering: ok"
exit $fail

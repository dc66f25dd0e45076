#!/bin/sh
# t_ui_funcs_window -- F (:funcs) on the screen's rows decodes from the PSB
# at or before the screen's top, and the title says so: it decoded from
# the first PSB after, so a screen with no PSB on it (the usual case: a
# screen is a few hundred bytes, PSBs come every few KiB) had "0 insns ...
# (no instructions in the range)", and one with a PSB lower down lost the
# rows above it, with totals shown as exact.  (The other fix of the same
# commit, a tree made before the index's time pass not reused after it,
# depends on when the index finishes: no test here.)
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
[ -x "$BUILD/tools/ptrecord" ] && [ -x "$BUILD/progs/p_loops" ] ||
	{ echo "FAIL ptrecord or p_loops missing"; exit 1; }
# PSBs every 4 KiB (ptrecord's default), as perf records them
"$BUILD/tools/ptrecord" -q -o "$tmp/l.pt" "$BUILD/progs/p_loops" >/dev/null 2>&1 ||
	{ echo "FAIL ptrecord p_loops"; exit 1; }
raw=$(sed -n 's,^--raw ,--raw=,p' "$tmp/l.pt.options")
for pct in 30 50 70; do
	printf 'wait-index\n%s%%\nF\n:save-screen %s\nq\n' "$pct" "$tmp/f$pct.txt" >"$tmp/keys"
	# shellcheck disable=SC2086
	(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script keys \
		--size 110x30 $raw l.pt) >"$tmp/out" 2>&1 || bad "$pct%: exit $? ($(cat "$tmp/out"))"
	title=$(head -n 1 "$tmp/f$pct.txt")
	case $title in
	*"functions of the window, from the PSB before it ["*) ;;
	*) bad "$pct%: the title does not say where it decoded from: $title" ;;
	esac
	n=$(printf '%s\n' "$title" | sed -n 's/.*): \([0-9]*\) insns.*/\1/p')
	[ -n "$n" ] && [ "$n" -gt 0 ] || bad "$pct%: no instructions: $title"
	grep -q 'no instructions in the range' "$tmp/f$pct.txt" && bad "$pct%: an empty tree"
done
[ $fail = 0 ] && echo "ok   F on a screen without a PSB decodes from the PSB before it"
exit $fail

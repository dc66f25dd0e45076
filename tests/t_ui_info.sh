#!/bin/sh
# t_ui_info -- the info line (=, :info) fits the terminal, headless
# (--script), on a generated trace with a 150-character file name:
#  - wide enough (300 columns), the whole line, the whole name;
#  - narrower (100, 120), the name loses its middle ("…", "..." with
#    --ascii), keeping its start and ".pt", and the least important parts
#    (rows cached, the halted time) go, rather than the line its end: the
#    position and the index's state stay;
#  - :messages keeps the whole line;
#  - a name with a control byte is shown escaped, counted as shown;
#  - narrow (60, 40, 20 columns, a 4 MiB trace at 0x2ab3c4), whole parts
#    go (the index's state, the percentage, the size) and the name's
#    middle, never a number cut short: the name's start and the offset
#    stay, every word after the name is one of the whole line's.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
ok() { echo "ok   $*"; }
name=start_$(printf 'n%.0s' $(seq 1 140))_end.pt
"$BUILD/tools/ptgen" --size 64K -o - > "$tmp/$name" 2>/dev/null || { echo "FAIL ptgen"; exit 1; }
printf 'wait-index\n=\n:save-screen %s/info.txt\n' "$tmp" > "$tmp/keys"

# info SIZE [OPTIONS]: the message line after = at SIZE into $line
info() {
	_s=$1
	shift
	rm -f "$tmp/info.txt"
	(cd "$tmp" && "$PTBROWSE" --no-state --script keys --size "$_s" "$@" "$name") \
		> "$tmp/out" 2>&1 || bad "$_s: exit status $? ($(cat "$tmp/out"))"
	line=$(tail -n 1 "$tmp/info.txt" 2>/dev/null)
}

info 300x10
case $line in
"$name: 65536 bytes, at 0x0 (0.0%); index: "*" PSBs, done; "*" KiB of rows cached") ;;
*) bad "300 columns: '$line'" ;;
esac

# :messages has it whole (it wraps)
printf 'wait-index\n=\n:messages\n:save-screen %s/msgs.txt\n' "$tmp" > "$tmp/keys"
info 100x20
{ grep -q '_end.pt: 65536 bytes' "$tmp/msgs.txt" && grep -q 'of rows cached$' "$tmp/msgs.txt"; } ||
	bad ":messages: not the whole line: $(cat "$tmp/msgs.txt")"
printf 'wait-index\n=\n:save-screen %s/info.txt\n' "$tmp" > "$tmp/keys"

for w in 100 120; do
	info ${w}x10
	cols=$(printf '%s' "$line" | python3 -c 'import sys; print(len(sys.stdin.read()))')
	case $line in
	start_n*…*n_end.pt": 65536 bytes, at 0x0 (0.0%); index: "*" PSBs, done"*) ;;
	*) bad "$w columns: '$line'" ;;
	esac
	[ "$cols" -le $w ] || bad "$w columns: $cols wide"
done
info 100x10 --ascii
case $line in
start_n*...*n_end.pt": 65536 bytes, at 0x0 (0.0%); index: "*" PSBs, done"*) ;;
*) bad "--ascii: '$line'" ;;
esac

# a control byte in the name: escaped, the line still whole at 100
esc=$(printf 'a\033b_%s.pt' "$(printf 'x%.0s' $(seq 1 100))")
mv "$tmp/$name" "$tmp/$esc"
name=$esc
info 100x10
case $line in
'a\x1bb_x'*…*'x.pt: 65536 bytes, at 0x0 (0.0%); index: '*' PSBs, done'*) ;;
*) bad "escaped name: '$line'" ;;
esac
[ $fail = 0 ] && ok "= fits 100 to 300 columns: the name's middle cut, the end kept"

# narrow: no number cut short (60 columns cut "index: 102" of 1022 PSBs,
# 20 "419430" of the size, the offset gone)
f1=$fail
"$BUILD/tools/ptgen" --size 4M -o "$tmp/g.pt" >/dev/null 2>&1 || { echo "FAIL ptgen 4M"; exit 1; }
printf 'wait-index\n:goto 0x2ab3c4\n=\n:save-screen %s/info.txt\n' "$tmp" > "$tmp/keys"
for name in start_$(printf 'n%.0s' $(seq 1 30))_end.pt "$(printf 'é%.0s' $(seq 1 40))_name.pt"; do
	ln -sf g.pt "$tmp/$name"
	info 300x10
	case $line in
	"$name: 4194304 bytes, at 0x2ab3c4 (66.7%); index: "*" PSBs, done"*) ;;
	*) bad "4 MiB, 300 columns: '$line'" ;;
	esac
	whole=$(printf '%s\n' "${line#"$name: "}" | tr ';,' '  ')
	for run in 60x10 40x10 20x10 "20x10 --ascii"; do
		w=${run%%x*}
		# shellcheck disable=SC2086 # the size and an option
		info $run
		cols=$(printf '%s' "$line" | python3 -c 'import sys; print(len(sys.stdin.read()))')
		[ "$cols" -le "$w" ] || bad "$run: $cols wide: '$line'"
		# the name's start, then the offset whole (a size whole or none)
		case $line in
		"${name%"${name#??}"}"*": at 0x2ab3c4"*) ;;
		"${name%"${name#??}"}"*": 4194304 bytes, at 0x2ab3c4"*) ;;
		*) bad "$run: not the name's start and the offset: '$line'" ;;
		esac
		# every word after the name is the whole line's: none cut short
		words=$(printf '%s\n' "${line#*: }" | tr ';,' '  ')
		for word in $words; do
			case " $whole " in
			*" $word "*) ;;
			*) bad "$run: '$word' is cut: '$line'" ;;
			esac
		done
	done
done
[ $fail = "$f1" ] && ok "= at 60, 40 and 20 columns: whole parts go, no number cut short"
exit $fail

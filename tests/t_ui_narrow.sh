#!/bin/sh
# t_ui_narrow -- the list views and the function view at 80x24 and
# narrower.  The marks list and the stalls list cut their rows at the
# screen's edge, inside numbers that then read as other numbers (a time
# "~203.4" without its unit, a region's end "0x02", "psb 1598" for psb
# 15989, "at 0x0000"), and a long region name pushed its row's columns
# right of the others'; now a field shows whole or not at all, and the
# name is cut, marked.  The function view at 80 columns kept its number
# columns (cycles, self and time all '?' on an untimed trace) and gave
# the names 8 columns, none from depth 4: now it drops columns and keeps
# the names.  The code view's header did not scroll with h/l, its rows
# did (the packet pane's header does); at 80 columns it cut every
# instruction to two letters.
set -u
: "${PTBROWSE:?}" "${BUILD:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
fail=0
ok() { echo "ok   $*"; }
nbad=0
bad() { echo "FAIL $*"; fail=1; nbad=$((nbad + 1)); }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
"$BUILD/tools/ptgen" -S 16M -o "$tmp/t.pt" >/dev/null 2>&1 || { bad "ptgen"; exit 1; }

# run KEYS-FILE SIZE ARGS...: the browser on a script
run() {
	keys=$1 size=$2
	shift 2
	(cd "$tmp" && LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$keys" \
		--size "$size" "$@") >"$tmp/out" 2>&1 || bad "exit $? ($(cat "$tmp/out"))"
}

# 1. the marks list at 120, 80, 60 and 40 columns
cat >"$tmp/mk" <<EOF
wait-index
g m a
50%
m b
75%
M
:region hot_region_with_a_rather_long_name_0123456789 0x800505 0xa00000
:marks
:save-screen $tmp/m120.txt
resize=80x24
:save-screen $tmp/m80.txt
resize=60x15
:save-screen $tmp/m60.txt
resize=40x10
:save-screen $tmp/m40.txt
q
EOF
run mk 120x40 "$tmp/t.pt"
# the rows of the list (kind, name, offsets, time) in screen FILE
rows() { sed -n '2,5p' "$1"; }
rows "$tmp/m120.txt" >"$tmp/ref"
grep -q '^ region .* 0x00800505-0x00a00000 .* [mun]*s$' "$tmp/ref" ||
	bad "120 columns: no region row with its time: $(cat "$tmp/ref")"
for w in 120 80 60 40; do
	rows "$tmp/m$w.txt" >"$tmp/r$w"
	# every number on a row is one of the wide row's, whole: the
	# offsets, and the time with its unit
	k=0
	while IFS= read -r row; do
		k=$((k + 1))
		ref=$(sed -n "${k}p" "$tmp/ref")
		for tok in $(echo "$row" | grep -o '0x[0-9a-f]*\(-0x[0-9a-f]*\)\?'); do
			echo "$ref" | grep -q -- "$tok\\( \\|-\\|\$\\)" ||
				bad "$w columns: row $k shows $tok: '$row' (wide: '$ref')"
		done
		t=$(echo "$row" | sed 's/.*0x[0-9a-f]\{8\}\(-…\)\? *//')
		if [ -n "$t" ] && ! echo "$ref" | grep -q -- " $t\$"; then
			bad "$w columns: row $k's time is cut: '$t' (wide: '$ref')"
		fi
	done <"$tmp/r$w"
	# the offsets start in one column on every row
	n=$(sed 's/…/./g' "$tmp/r$w" | awk '{ i = index($0, " 0x"); if (i) print i }' |
		sort -u | wc -l)
	[ "$n" = 1 ] || bad "$w columns: the offsets are not in one column: $(cat "$tmp/r$w")"
done
grep -q 'hot_region.*…' "$tmp/r60" || bad "60 columns: the long name is not marked cut: $(cat "$tmp/r60")"
[ "$nbad" = 0 ] && ok "marks list: numbers whole, columns aligned at 120, 80, 60, 40 columns"

# 2. the stalls list at 120, 80, 66 and 40 columns
cat >"$tmp/st" <<EOF
wait-index
:stalls
:save-screen $tmp/s120.txt
resize=80x24
:save-screen $tmp/s80.txt
resize=66x24
:save-screen $tmp/s66.txt
resize=40x10
:save-screen $tmp/s40.txt
q
EOF
f0=$nbad
run st 120x40 "$tmp/t.pt"
grep -q '^ *1  gap .* at 0x[0-9a-f]\{8\}  psb [0-9]' "$tmp/s120.txt" ||
	bad "120 columns: no stalls rows: $(head -n 3 "$tmp/s120.txt")"
for w in 80 66 40; do
	# rows: rank, kind; at 0x + 8 digits and psb N as the wide row's
	grep '^ *[0-9]*  \(gap \|slow\|halt\)' "$tmp/s$w.txt" | while IFS= read -r row; do
		set -- $row
		ref=$(grep "^ *$1  $2" "$tmp/s120.txt" | head -n 1)
		for tok in $(echo "$row" | grep -o 'at 0x[0-9a-f]*\|psb [0-9]*' | tr ' ' '_'); do
			tok=$(echo "$tok" | tr '_' ' ')
			echo "$ref" | grep -q "$tok\\( \\|\$\\)" ||
				echo "$w columns: '$tok' in '$row' (wide: '$ref')"
		done
		case $row in
		*"at 0x"*) echo "$row" | grep -q 'at 0x[0-9a-f]\{8\}' ||
			echo "$w columns: a cut place: '$row'" ;;
		esac
	done >"$tmp/sbad"
	[ -s "$tmp/sbad" ] && bad "stalls: $(head -n 3 "$tmp/sbad")"
done
[ "$nbad" = "$f0" ] && ok "stalls list: places and segments whole at 80, 66, 40 columns"

L=$SHARED/traces/libxdc-kafl-flow
if [ ! -f "$L/unzip_trace.pt" ]; then
	echo "skip: $L/unzip_trace.pt missing"
	exit $fail
fi

# 3. the function view on an untimed trace at 80x24, and 60 columns:
# every row names its function, in 20 columns at least; no column of '?'
cat >"$tmp/fv" <<EOF
wait-index
v G F
O
:save-screen $tmp/f80.txt
resize=60x15
:save-screen $tmp/f60.txt
q
EOF
f0=$nbad
run fv 80x24 --options "$L/unzip.options" "$L/unzip_trace.pt"
for w in 80 60; do
	sed -n '3,$p' "$tmp/f$w.txt" | grep '^ *[0-9][0-9]* ' >"$tmp/fr"
	[ "$(wc -l <"$tmp/fr")" -ge 5 ] || bad "$w columns: fewer than 5 function rows: $(cat "$tmp/f$w.txt")"
	grep -v '\[unzip\.0x400000\.bin' "$tmp/fr" >"$tmp/fnoname" &&
		bad "$w columns: rows without their function's name: $(head -n 3 "$tmp/fnoname")"
	grep -q ' ? ' "$tmp/fr" && bad "$w columns: columns of '?' kept: $(head -n 2 "$tmp/fr")"
done
[ "$nbad" = "$f0" ] && ok "function view: names shown at 80 and 60 columns, no '?' columns"

# 4. the code view's header scrolls with its rows (l: 8 columns each)
cat >"$tmp/cv" <<EOF
wait-index
:goto 0x2000
c
:save-screen $tmp/c0.txt
l l l l
:save-screen $tmp/c4.txt
q
EOF
run cv 80x24 --options "$L/unzip.options" "$L/unzip_trace.pt"
# (its last column is the ellipsis where the pane cuts it)
h0=$(sed -n 2p "$tmp/c0.txt" | cut -c 36-54)
h4=$(sed -n 2p "$tmp/c4.txt" | cut -c 4-22)
r0=$(sed -n 3p "$tmp/c0.txt" | cut -c 36-56)
r4=$(sed -n 3p "$tmp/c4.txt" | cut -c 4-24)
if [ -n "$r0" ] && [ "$r0" = "$r4" ] && [ "$h0" = "$h4" ]; then
	ok "code view: the header scrolls with the rows"
else
	bad "code view: after l l l l the header reads '$h4' (want '$h0'), the rows '$r4' ('$r0')"
fi

# 5. at 80 columns the code view shows the instructions: without the IP
# column, a function's name cut in its middle where the instruction needs
# the room, an instruction still too long ending in an ellipsis (they were
# cut to two letters, 'mo' for 'mov esi, 0x627308', silently)
cat >"$tmp/cn" <<EOF
wait-index
:goto 0x115
c
:save-screen $tmp/n80.txt
q
EOF
run cn 80x24 --options "$L/unzip.options" "$L/unzip_trace.pt"
if grep -q 'unzip\.0x400000\.bin+0x1ff0  mov esi, 0x627308 ' "$tmp/n80.txt" &&
   grep -q '+0x2055  cmp qword ptr \[rdi\], 0x…│' "$tmp/n80.txt" &&
   ! grep -q '^ *[> ]  0000000000401ff0' "$tmp/n80.txt"; then
	ok "code view at 80 columns: instructions whole, names and long operands cut, marked"
else
	bad "code view at 80 columns: $(sed -n 3,8p "$tmp/n80.txt")"
fi
exit $fail

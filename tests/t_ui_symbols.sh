#!/bin/sh
# t_ui_symbols -- symbols where the browser shows an IP, on a perf.data of
# tests/progs/p_sample (tools/record.sh: four threads on two CPUs, a shared
# library, sideband):
#  - a TIP's last IP column and payload name flow's function for the
#    instructions that TIP decided (`flow --offset`); x shows hex again and
#    :set symbols on the names;
#  - the status line on a TNT names flow's function of the first
#    instruction it decided, its file:line as addr2line gives it, and the
#    task that `dump --tid` keeps there;
#  - long names are cut, and no row or status line is wider than the
#    screen;
#  - a raw trace without code looks the same with symbols on or off, and
#    turning them on says why there are none.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
unset TERM
bad() { echo "FAIL $*"; fail=1; }
for f in "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" "$BUILD/progs/p_sample" \
	 "$BUILD/tools/ptgen"; do
	[ -x "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
W=160 H=30

"$PTBROWSE" dump --stream cpu0 "$perf" >"$tmp/dump" 2>/dev/null || bad "dump"
"$PTBROWSE" flow --offset --stream cpu0 "$perf" >"$tmp/flow" 2>/dev/null || bad "flow"
# The function flow gives the first instruction packet OFF decided ("" if
# none or no symbol).
flow_sym() {
	awk -v o="$1" '$1 == o && $2 ~ /^[0-9a-f]+$/ { if ($3 ~ /\+0x/) print $3; exit }' "$tmp/flow"
}
flow_ip() {
	awk -v o="$1" '$1 == o && $2 ~ /^[0-9a-f]+$/ { print $2; exit }' "$tmp/flow"
}
# Offsets of the first packets of type T whose instructions flow names.
pick() {
	n=0
	for o in $(awk -v t="$1" '$2 == t { print $1 }' "$tmp/dump"); do
		[ -n "$(flow_sym "$o")" ] || continue
		echo "$o"
		n=$((n + 1))
		[ $n -ge "$2" ] && break
	done
}
tips=$(pick tip 4)
tnts=$(pick tnt.8 4)
[ -n "$tips" ] && [ -n "$tnts" ] || { echo "FAIL no TIP or TNT with a symbol in flow"; exit 1; }

# One screen at each offset, then the hex toggle and back on the first TIP.
: >"$tmp/keys"
for o in $tips $tnts; do
	printf ':goto 0x%s\n:save-screen %s/s.%s\n' "$o" "$tmp" "$o" >>"$tmp/keys"
done
first=$(echo "$tips" | head -n 1)
cat >>"$tmp/keys" <<EOF
:goto 0x$first
x
:save-screen $tmp/hex
:set symbols on
:save-screen $tmp/on
q
EOF
"$PTBROWSE" --ascii --no-state --size ${W}x$H --script "$tmp/keys" "$perf" >"$tmp/out" 2>&1 ||
	bad "script: $(cat "$tmp/out")"
# the cursor's packet row, without the cycle pane
cursor_row() { grep '^>' "$1" | cut -d'|' -f1 | sed 's/ *$//'; }
status() { tail -n 2 "$1" | head -n 1; }

ok=1
for o in $tips; do
	sym=$(flow_sym "$o")
	row=$(cursor_row "$tmp/s.$o")
	# payload "N: sym" (cut to 17 columns), then the last IP column
	case $row in
	*" $sym") ;;
	*) ok=0; bad "tip at $o: last ip is not flow's $sym: $row" ;;
	esac
	echo "$row" | grep -q "tip  *[0-9]: $(echo "$sym" | cut -c1-8 | sed 's/[.]/[.]/g')" ||
		{ ok=0; bad "tip at $o: payload does not name $sym: $row"; }
done
[ $ok = 1 ] && echo "ok   TIPs' last IP and payload name flow's functions ($(echo $tips | wc -w) TIPs)"

ok=1
for o in $tnts; do
	sym=$(flow_sym "$o")
	st=$(status "$tmp/s.$o")
	case $st in
	*"  $sym  "*) ;;
	*) ok=0; bad "tnt at $o: the status line does not name flow's $sym: $st" ;;
	esac
	# the task: "p_sample PID/TID cpu0", and dump --tid keeps the packet
	tid=$(echo "$st" | sed -nE 's/.* p_sample [0-9]+\/([0-9]+) cpu0.*/\1/p')
	if [ -z "$tid" ]; then
		ok=0; bad "tnt at $o: no task on the status line: $st"
	elif ! "$PTBROWSE" dump --stream cpu0 --tid "$tid" "$perf" 2>/dev/null | grep -q "^$o "; then
		ok=0; bad "tnt at $o: dump --tid $tid does not keep it"
	fi
	# file:line as addr2line has it (the function's link address + 0xoff;
	# its "(discriminator N)" is not shown)
	if command -v addr2line >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
		fn=${sym%%+0x*} off=${sym##*+0x}
		a=$(nm "$BUILD/progs/p_sample" | awk -v f="$fn" '$3 == f { print $1; exit }')
		if [ -n "$a" ]; then
			want=$(addr2line -e "$BUILD/progs/p_sample" \
				"$(printf '0x%x' $((0x$a + 0x$off)))" |
				sed 's/ (discriminator [0-9]*)$//' | awk -F/ '{ print $(NF-1) "/" $NF }')
			case $st in
			*"  $sym  $want  "*) ;;
			*) ok=0; bad "tnt at $o: not '$sym  $want': $st" ;;
			esac
		fi
	fi
done
[ $ok = 1 ] && echo "ok   the status line names flow's function, its file:line and the task (dump --tid's)"

sym=$(flow_sym "$first")
ip=$(flow_ip "$first")
row=$(cursor_row "$tmp/hex")
case $row in
*" $ip") echo "ok   x shows the last IP in hex ($ip)" ;;
*) bad "x: not hex: $row" ;;
esac
echo "$row" | grep -q "$sym" && bad "x: still a symbol: $row"
grep -q 'IPs in hex' "$tmp/hex" || bad "x: no message"
case $(cursor_row "$tmp/on") in
*" $sym") echo "ok   :set symbols on names it again" ;;
*) bad ":set symbols on: $(cursor_row "$tmp/on")" ;;
esac

# Width: every line of a narrow screen fits, the cycle pane's border stays
# in one column, names are cut with '..' where they do not fit.
: >"$tmp/nkeys"
for o in $(awk '$2 == "tip" { print $1 }' "$tmp/dump" | head -n 12); do
	printf ':goto 0x%s\n:save-screen %s/n.%s\n' "$o" "$tmp" "$o" >>"$tmp/nkeys"
done
echo q >>"$tmp/nkeys"
"$PTBROWSE" --ascii --no-state --size 100x$H --script "$tmp/nkeys" "$perf" >"$tmp/out" 2>&1 ||
	bad "narrow script: $(cat "$tmp/out")"
wide=$(cat "$tmp"/n.* | awk 'length($0) > 100' | head -n 1)
[ -z "$wide" ] && echo "ok   no line is wider than a 100-column screen" || bad "too wide: $wide"
border=$(sed -n 2p "$(ls "$tmp"/n.* | head -n 1)" | awk '{ print index($0, "|") }')
if [ "$border" -gt 0 ] && ! cat "$tmp"/n.* | sed -n '/^ *offset/,/^[^ >]/p' | grep ' 0x' |
	awk -v b="$border" 'substr($0, b, 1) != "|" { bad = 1 } END { exit !bad }'; then
	echo "ok   the cycle pane's border stays in column $border"
else
	bad "a packet row moved the cycle pane's border (column $border)"
fi
grep -h '^.  0x.*tip' "$tmp"/n.* | grep -q '[.][.]+0x' &&
	echo "ok   long names are cut with '..', the offset kept" ||
	echo "note no name long enough to be cut on this recording"

# A raw trace without code: the same screen with symbols on or off, and
# turning them on says why.
"$BUILD/tools/ptgen" --seed 3 --size 256KiB -o "$tmp/raw.pt" >/dev/null 2>&1 || bad "ptgen"
cat >"$tmp/rkeys" <<EOF
wait-index
} j j j
:save-screen $tmp/r.on
x
:save-screen $tmp/r.off
:set symbols on
:save-screen $tmp/r.why
q
EOF
"$PTBROWSE" --ascii --no-state --size 120x$H --script "$tmp/rkeys" "$tmp/raw.pt" >"$tmp/out" 2>&1 ||
	bad "raw script: $(cat "$tmp/out")"
head -n $((H - 1)) "$tmp/r.off" >"$tmp/r.off.h"
if head -n $((H - 1)) "$tmp/r.on" | cmp -s - "$tmp/r.off.h"; then
	echo "ok   a raw trace without code shows the same screen with symbols on and off"
else
	bad "a raw trace's screen changed with symbols off"
	diff "$tmp/r.on" "$tmp/r.off" | head
fi
grep -q 'no code given' "$tmp/r.why" && echo "ok   :set symbols on says why there are none" ||
	bad "no reason given: $(tail -n 1 "$tmp/r.why")"

# Code without symbols (ld.so's) is named by its offset in its file, as
# objdump shows it: the IP less the mapping's start plus its page offset
# (the sideband's mmap2), not the offset from the mapping's start.
printf 'wait-index\n:save-screen %s/ld.txt\nq\n' "$tmp" > "$tmp/ldkeys"
"$PTBROWSE" --no-state --size 160x40 --script "$tmp/ldkeys" --stream cpu0 "$perf" >/dev/null 2>&1
row=$(grep -m1 ' tip .*ld-linux-x86-64\.so\.2+0x' "$tmp/ld.txt")
off=$(echo "$row" | sed -n 's/^[^0]*\(0x[0-9a-f]*\) .*/\1/p')
name_off=$(echo "$row" | sed -n 's/.* ld-linux-x86-64\.so\.2+\(0x[0-9a-f]*\).*/\1/p')
ip=$("$PTBROWSE" dump --lastip --stream cpu0 "$perf" 2>/dev/null |
	while read -r o rest; do
		[ "$((0x$o))" = "$((off))" ] && { echo "$rest" | awk '{ print $NF }'; break; }
	done)
map=$(awk '$1 == "mmap2" && $NF ~ /ld-linux-x86-64/ { print $5, $7; exit }' "$tmp/rec/trace.sideband")
if [ -z "$row" ] || [ -z "$ip" ] || [ -z "$map" ]; then
	bad "no ld.so TIP to check (row '$row', ip '$ip', mapping '$map')"
else
	set -- $map
	want=$(printf '0x%x' $((0x$ip - $1 + $2)))
	[ "$want" = "$name_off" ] &&
		echo "ok   code without symbols is named by its file offset (ld-linux-x86-64.so.2+$want)" ||
		bad "ld.so's code named +$name_off, its file offset is $want (ip 0x$ip, mapping $map)"
fi
exit $fail

#!/bin/sh
# t_ui_codeview_yank -- in the code view the row under the cursor is what
# yank takes and what the status line names (--script, no terminal: a
# yank's OSC 52 goes to standard output), on tests/progs/p_sample
# recorded (rec_lib.sh):
#  - :goto sym matmul, then c: the cursor on the instruction found
#    (matmul+0x...), not on the packet that decided it (the packet's
#    first instruction was matrix's, 55 rows before), and the status line
#    names that row's function;
#  - two rows down (instructions under a TNT): yi yanks the row's IP, ys
#    its function+0xoff, yy the row as shown, 2yy it and the next row
#    (the packet's last IP, its symbol and the packet row were taken);
#  - up into matrix's rows: the status line names matrix, the row's;
#  - /call matmul in the code view: the cursor on a call row, to matmul;
#  - the packet view as before: yi the packet's last IP (none on a TNT),
#    yy its row.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
# The CPU that ran matmul in this recording (the scheduler's choice)
cpu=
for c in cpu0 cpu1; do
	"$PTBROWSE" flow --stream $c "$perf" 2>/dev/null | grep -q 'matmul+0x0 ' && { cpu=$c; break; }
done
[ -n "$cpu" ] || { echo "FAIL no CPU ran matmul in the recording"; exit 1; }

# run KEYS...: the browser on $perf at 120x40 with a script of KEYS
# (lines); what it yanked in $tmp/y.1, $tmp/y.2 ...
run() {
	printf '%s\n' wait-index "$@" > "$tmp/keys"
	rm -f "$tmp"/y.*
	"$PTBROWSE" --no-state --stream "$cpu" --script "$tmp/keys" --size 120x40 "$perf" \
		>"$tmp/out" 2>"$tmp/err" || bad "$*: $(cat "$tmp/err")"
	_n=0
	for _b in $(grep -ao ']52;c;[A-Za-z0-9+/=]*' "$tmp/out" | cut -d';' -f3); do
		_n=$((_n + 1))
		printf '%s' "$_b" | base64 -d > "$tmp/y.$_n"
	done
}
# The Nth yank's text (a row's newline dropped).
y() { cat "$tmp/y.$1" 2>/dev/null; }
st() { tail -n 2 "$1" | head -n 1; }
msg() { tail -n 1 "$1"; }
# The cursor's row in screen FILE, without the gutter and the cycle pane.
cur() { sed -n 's/^>  //p' "$1" | head -n 1 | sed 's/ *│.*//; s/ *$//'; }
# Its function+0xoff, its IP.
cur_fn() { cur "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\+0x/) { print $i; exit } }'; }
cur_ip() { cur "$1" | awk '{ print $1 }'; }
# The function named on the status line of FILE.
st_fn() { st "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /\+0x/) { print $i; exit } }'; }

# --- a code search's hit, then c; two rows down; four up; the yanks
run ":goto sym matmul" wait-search c ":save-screen $tmp/hit" j j \
	":save-screen $tmp/row" "y i" "y s" "y y" 2yy k k k k ":save-screen $tmp/up"
fn=$(cur_fn "$tmp/hit")
case $fn in
matmul+0x*) ;;
*) bad ":goto sym matmul, c: the cursor is on '$(cur "$tmp/hit")', not a matmul row" ;;
esac
[ -n "$fn" ] && [ "$(st_fn "$tmp/hit")" = "$fn" ] ||
	bad "at the hit the status line names '$(st_fn "$tmp/hit")', the row $fn: $(st "$tmp/hit")"
ip=$(cur_ip "$tmp/row")
fn=$(cur_fn "$tmp/row")
row=$(cur "$tmp/row")
case $ip in
0000*) ;;
*) bad "j j: the cursor is not on an instruction row: '$row'" ;;
esac
[ "$(y 1)" = "0x$(printf '%s' "$ip" | sed 's/^0*//')" ] ||
	bad "yi on '$row' yanked '$(y 1)'"
[ "$(y 2)" = "$fn" ] || bad "ys on '$row' yanked '$(y 2)'"
[ "$(y 3)" = "$row" ] || bad "yy on '$row' yanked '$(y 3)'"
[ "$(y 4 | sed -n 1p)" = "$row" ] && [ "$(y 4 | wc -l)" = 2 ] &&
	y 4 | sed -n 2p | grep -q 'matmul+0x' ||
	bad "2yy on '$row' yanked '$(y 4)'"
[ "$(st_fn "$tmp/row")" = "$fn" ] ||
	bad "on '$row' the status line names '$(st_fn "$tmp/row")': $(st "$tmp/row")"
# (four rows up: the caller's instructions, or a packet row between them,
# as the recording's packets fall)
case $(cur "$tmp/up") in
0000*) [ "$(st_fn "$tmp/up")" = "$(cur_fn "$tmp/up")" ] ||
	bad "on '$(cur "$tmp/up")' the status line names '$(st_fn "$tmp/up")'" ;;
0x*) ;;
*) bad "k k k k: the cursor is on '$(cur "$tmp/up")'" ;;
esac

# --- /call in the code view: the call's row
run c "/ c a l l Space m a t m u l Enter" wait-search n ":save-screen $tmp/call"
cur "$tmp/call" | grep -Eq '(→|>) [a-z_]+\+0x[0-9a-f]+  call ' ||
	bad "/call matmul, n: the cursor is on '$(cur "$tmp/call")', not a call"
[ "$(st_fn "$tmp/call")" = "$(cur_fn "$tmp/call")" ] ||
	bad "on the call the status line names '$(st_fn "$tmp/call")': $(st "$tmp/call")"

# --- the packet view keeps the packet's: on the hit's packet (a TNT, no
# IP of its own) yi says none is known, yy takes the packet row
run ":goto sym matmul" wait-search ":save-screen $tmp/pk" "y i" ":save-screen $tmp/pki" "y y"
prow=$(sed -n 's/^>  //p' "$tmp/pk" | head -n 1 | sed 's/ *│.*//')
case $prow in
*tnt*) msg "$tmp/pki" | grep -q 'yank: no IP is known at the cursor' ||
	bad "packet view: yi on '$prow': $(msg "$tmp/pki")" ;;
esac
# (yi yanked the packet's IP first where it has one: a TIP)
k=2
ls "$tmp/y.2" >/dev/null 2>&1 || k=1
case $(y $k) in
"$(printf '%s' "$prow" | awk '{ print $1 "  " $2 }')"*) ;;
*) bad "packet view: yy yanked '$(y $k)', the row is '$prow'" ;;
esac
[ $fail = 0 ] && echo "t_ui_codeview_yank: ok"
exit $fail

#!/bin/sh
# t_ui_small -- the small things a user trips on (issue 19 item 5),
# headless (--script) on a generated trace:
#  - Escape in normal mode says nothing (no "Escape is not bound");
#  - Tab lists every completion, on as many lines as they need above the
#    prompt, or as many as fit and how many more;
#  - :set shows the cycle pane's columns by name, as :set columns takes
#    them back;
#  - :save-screen says which file it wrote (in a terminal: tmux);
#  - * and # on a TIP search for that type at that IP;
#  - the status line shows the PSB segment, as :goto psb counts them;
#  - :messages and the help wrap long lines; :help search shows the
#    search expressions.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
bad() { echo "FAIL $*"; fail=1; }
ok() { echo "ok   $*"; }
T=$tmp/g.pt
"$BUILD/tools/ptgen" --seed 3 --size 256KiB -o "$T" >/dev/null 2>&1 || { echo "FAIL ptgen"; exit 1; }

# run SIZE: the keys in $tmp/keys on $T at SIZE.
run() {
	"$PTBROWSE" --no-state --size "$1" --script "$tmp/keys" "$T" >"$tmp/out" 2>&1 ||
		bad "script at $1: $(cat "$tmp/out")"
}
st() { tail -n 2 "$tmp/$1" | head -n 1; }
msg() { tail -n 1 "$tmp/$1"; }

# Escape; :set; under --script, :save-screen leaves the next screen alone
cat >"$tmp/keys" <<EOF
wait-index
j
Escape
:save-screen $tmp/esc
:save-screen $tmp/esc2
:set columns time,cbr,mhz
:set
:save-screen $tmp/set1
:set columns none
:set
:save-screen $tmp/set2
:save-screen $tmp/saved
EOF
run 120x30
[ -z "$(msg esc | tr -d ' ')" ] && ok "Escape in normal mode says nothing" ||
	bad "Escape: '$(msg esc)'"
cmp -s "$tmp/esc" "$tmp/esc2" && ok "under --script a save says nothing on the next screen" ||
	bad "after a save: '$(msg esc2)'"
grep -q 'columns=time,cbr,mhz ' "$tmp/set1" && ok ":set shows columns by name" ||
	bad ":set: $(msg set1)"
grep -q 'columns=none ' "$tmp/set2" && ok ":set columns none, shown as none" ||
	bad ":set after none: $(msg set2)"
grep -q 'error\|no column' "$tmp/set2" && bad ":set columns none: $(msg set2)"

# Tab: every completion of 's' at 60 columns (readline's order: sorted)
printf 'wait-index\n:\ns\nTab\nTab\n:save-screen %s\n' "$tmp/tab" >"$tmp/keys"
run 60x30
for w in save-screen set set-mark search search-forward streams suspend; do
	grep -q "\(^\| \)$w\( \|$\)" "$tmp/tab" || bad "Tab at 60 columns: no '$w' listed"
done
[ "$(tail -n 1 "$tmp/tab")" = ":s" ] || bad "Tab: the prompt line is '$(tail -n 1 "$tmp/tab")'"
# on a screen too small for them all, how many more
run 40x7
grep -q '^\.\.\. [0-9]* more: type more of the word' "$tmp/tab" &&
	ok "Tab lists every completion on lines above the prompt, or says how many more" ||
	bad "Tab at 40x7: $(cat "$tmp/tab")"

# * and # on a TIP: the next and previous TIP at the same IP
"$PTBROWSE" dump --lastip "$T" | awk '$2 == "tip" && $NF ~ /^[0-9a-f]+$/ { n[$NF]++; o[$NF] = o[$NF] " " $1 }
	END { for (ip in n) if (n[ip] >= 2) { print ip o[ip]; exit } }' >"$tmp/same"
read -r ip first second _ <"$tmp/same" || bad "no IP twice among the TIPs"
ip=$(echo "$ip" | sed 's/^0*//')
cat >"$tmp/keys" <<EOF
wait-index
:goto +0x$first
*
wait-search
:save-screen $tmp/star
1 #
wait-search
:save-screen $tmp/hash
EOF
run 120x30
off() { st "$1" | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'; }
[ $(($(off star))) = $((0x$second)) ] && [ $(($(off hash))) = $((0x$first)) ] &&
	st star | grep -q "tip 0x$ip" &&
	ok "* and # on a TIP: the next and previous TIP at 0x$ip" ||
	bad "* on the TIP at 0x$first (ip 0x$ip): at $(off star), # at $(off hash); $(st star)"

# the PSB segment on the status line: :goto psb 3 shows psb 3/N
npsb=$("$PTBROWSE" dump "$T" | grep -c '  psb$')
printf 'wait-index\n:goto psb 3\nj\n:save-screen %s\n' "$tmp/psb" >"$tmp/keys"
run 120x30
st psb | grep -q "  psb 3/$npsb  " && ok "the status line shows psb 3/$npsb" ||
	bad "status: $(st psb) (want psb 3/$npsb)"

# :messages and the help wrap; :help search
long=$(printf 'xxxxxxxx %.0s' $(seq 1 12))
cat >"$tmp/keys" <<EOF
wait-index
:help ${long}end
:messages
:save-screen $tmp/msgs
q
:help goto-offset
:save-screen $tmp/help
q
:help search
:save-screen $tmp/hsearch
EOF
run 60x20
grep -q 'end: no such command' "$tmp/msgs" && ok ":messages wraps a long message" ||
	bad ":messages: $(cat "$tmp/msgs")"
grep -q '^    .*without N)$' "$tmp/help" && ok "the help wraps a long line" ||
	bad "help: $(grep -A1 goto-offset "$tmp/help")"
head -n 1 "$tmp/hsearch" | grep -q '^Search expressions' &&
	grep -q 'tip 0x401000' "$tmp/hsearch" && ok ":help search shows the search expressions" ||
	bad ":help search: $(head -n 3 "$tmp/hsearch")"

# In a terminal :save-screen says which file it wrote (tmux_lib's fail
# exits; its trap removes $tmp)
[ $fail = 0 ] || exit 1
. "$(dirname "$0")/tmux_lib.sh"
tm_start -- --no-state "$T"
wait_for 'F1 help'
keys :
wait_for '^:'
keys "save-screen $tmp/shot" Enter
wait_for "screen saved to $tmp/shot \(${TM_COLS}x${TM_ROWS}\)"
[ -s "$tmp/shot" ] || fail ":save-screen wrote no $tmp/shot"
grep -q 'F1 help' "$tmp/shot" || fail "$tmp/shot is not the screen"
ok ":save-screen in a terminal names the file it wrote"
keys q
exit 0

#!/bin/sh
# t_ui_view_keys -- the keys that leave a view work alike over help and the
# lists: Q and C-g close help as they close a list; F1 over a list opens
# help (q goes back to the list); ':' opens the prompt over help; C-z
# suspends from help and from the prompt, as help says it does.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 2 --size 1MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
HELP=' help  line [0-9]+/'

tm_start -- --no-state "$tmp/t.pt"
for k in Q C-g q Escape F1; do
	keys F1
	wait_for "$HELP"
	keys "$k"
	wait_gone "$HELP"
	sleep 0.1	# (Escape then a key at once is Meta)
done

# F1 over a list: help, and back to the list.
keys : marks Enter
wait_for 'marks and regions'
keys F1
wait_for "$HELP"
keys q
wait_for 'marks and regions'
keys q
wait_gone 'marks and regions'

# ':' over help opens the prompt.
keys F1
wait_for "$HELP"
keys :
wait_for '^:$'
keys Escape
wait_for "$HELP"
sleep 0.1
keys q
wait_gone "$HELP"
tm_quit

# C-z in help, then at the prompt: the browser stops and fg brings it
# back.  (In a shell with job control: the tests' own shell has none, and
# a stop there is discarded.)
tm new-session -d -s z -x 120 -y 40 -c "$PWD" "env -i PATH=$PATH HOME=$tmp HISTFILE= PS1='$ ' bash --norc --noprofile -i" ||
	fail "no bash"
tm kill-session -t ptb 2>/dev/null	# (after: the last session ends the server)
zwait() {
	_i=0
	until tm capture-pane -p -t z | grep -Eq -- "$1"; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || { tm capture-pane -p -t z | grep -v "^ *$" | tail -5; fail "$2"; }
		sleep 0.1
	done
}
tm send-keys -t z "TERM=screen LANG=C.UTF-8 XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache $PTBROWSE --no-state $tmp/t.pt" Enter
zwait 'F1 help' "the browser did not start"
tm send-keys -t z F1
zwait "$HELP" "no help"
tm send-keys -t z C-z
zwait 'Stopped' "C-z in help did not suspend"
tm send-keys -t z fg Enter
zwait "$HELP" "fg did not bring help back"
tm send-keys -t z q
sleep 0.3
tm send-keys -t z : goto
zwait '^:goto' "no prompt"
tm send-keys -t z C-z
_i=0
until [ "$(tm capture-pane -p -t z | grep -c Stopped)" -ge 2 ]; do
	_i=$((_i + 1))
	[ $_i -lt 100 ] || fail "C-z at the prompt did not suspend"
	sleep 0.1
done
tm send-keys -t z fg Enter
zwait '^:goto' "fg did not bring the prompt back"
tm send-keys -t z Escape
sleep 0.3
tm send-keys -t z q
zwait '^\$ ?$' "the browser did not quit"
echo ok

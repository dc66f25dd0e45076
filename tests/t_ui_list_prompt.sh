#!/bin/sh
# t_ui_list_prompt -- ':' opens the prompt over every list (:funcs, :marks,
# :streams, :iterations), in both keymaps, through the view stack's shared
# key (cmd_view_key()); Escape goes back to the list, and a command typed
# there runs.  The lists' own ':' cases, dead since the shared key, are
# gone: this keeps the key working without them.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }

for km in default emacs; do
	tm_start -- --no-state --keymap "$km" "$tmp/rec/perf.data"
	n=0
	for l in 'funcs:functions of the window' 'marks:marks and regions' \
		 'streams:streams of perf.data' 'iterations tip:iterations of .tip.'; do
		cmd=${l%%:*} title=${l#*:}
		keys ":$cmd" Enter
		wait_for "^ $title"
		keys :
		wait_for '^:$'
		keys Escape
		sleep 0.1	# (Escape then a key at once is Meta)
		wait_gone '^:$'
		screen | grep -Eq "^ $title" || fail "$km: Escape at the prompt over :$cmd left it"
		# a command from the prompt over the list runs
		n=$((n + 1))
		keys : mark Space "lp$n" Enter
		wait_for "^ $title"
		keys q
		wait_gone "^ $title"
	done
	keys : marks Enter
	wait_for '^ marks and regions: 4 '
	keys q
	tm_quit
	echo "ok   $km keymap: ':' over :funcs, :marks, :streams and :iterations opens the prompt"
done

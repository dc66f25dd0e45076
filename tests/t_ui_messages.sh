#!/bin/sh
# t_ui_messages -- nothing said is lost: with three broken lines in a user
# keymap, the message line gives the count and the first, ':messages'
# lists all three with their file:line, and ':set keymap NAME' reports the
# broken lines of the keymap it loads; the prompt history is appended to,
# not rewritten, and Up skips repeats.  Headless (--script).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || exit 1
km=$tmp/config/ptbrowse/keymaps
mkdir -p "$km"
printf 'bind j no-such-action\nbogus line\nbind k cursor-up\nbind x also-not-one\n' >"$km/default.keys"
printf 'bind C-n nor-this-one\n' >"$km/emacs.keys"
cat >"$tmp/keys" <<EOK
:save-screen $tmp/s1.txt
:messages
:save-screen $tmp/s2.txt
q
:set keymap emacs
:save-screen $tmp/s3.txt
EOK
"$PTBROWSE" --no-state --script "$tmp/keys" --size 200x20 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "exit status $? ($(cat "$tmp/out"))"
msg=$(tail -n 1 "$tmp/s1.txt" | sed 's/ *$//')
case $msg in
"3 keymap errors (:messages lists them); the first: $km/default.keys:1: "*) ;;
*) bad "message line: '$msg'" ;;
esac
for l in 1 2 4; do
	grep -q " E $km/default.keys:$l: " "$tmp/s2.txt" || bad ":messages lacks default.keys:$l: $(cat "$tmp/s2.txt")"
done
grep -q 'messages  line 1/' "$tmp/s2.txt" || bad ":messages has no pager line"
msg=$(tail -n 1 "$tmp/s3.txt" | sed 's/ *$//')
case $msg in
"$km/emacs.keys:1: "*) ;;
*) bad ":set keymap emacs: '$msg'" ;;
esac
[ $fail = 0 ] && echo "ok   keymap errors in the message line and all of them in :messages"

# Prompt history: appended to the file (another instance's lines stay),
# and Up goes through different lines.
rm -f "$km/default.keys" "$km/emacs.keys"
printf ':\ng o t o Space 1 0 %% Enter\n:\ng o t o Space 2 0 %% Enter\n:\ng o t o Space 1 0 %% Enter\n' >"$tmp/k1"
printf ':\nUp\nUp\n:save-screen %s\n' "$tmp/h.txt" >"$tmp/k2"
"$PTBROWSE" --script "$tmp/k1" --size 100x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "history: exit $?"
echo "goto 30%" >>"$XDG_STATE_HOME/ptbrowse/history"	# another instance
"$PTBROWSE" --script "$tmp/k1" --size 100x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "history: exit $?"
grep -q '^goto 30%$' "$XDG_STATE_HOME/ptbrowse/history" || bad "history: another instance's line was lost"
"$PTBROWSE" --script "$tmp/k2" --size 100x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "history: exit $?"
[ "$(tail -n 1 "$tmp/h.txt" | sed 's/ *$//')" = ":goto 20%" ] ||
	bad "history: Up Up gives '$(tail -n 1 "$tmp/h.txt")', not the line before the last distinct one"
[ $fail = 0 ] && echo "ok   history appended and without repeats"

# The config file: its lines are prompt commands; a bad one is reported
# with file:line; --keymap on the command line wins over its keymap.
printf '# settings\nset raw on\nset keymap emacs\nno-such-command\n' >"$XDG_CONFIG_HOME/ptbrowse/config"
printf ':save-screen %s\n' "$tmp/c.txt" >"$tmp/k3"
"$PTBROWSE" --no-state --script "$tmp/k3" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config: exit $?"
printf ':messages\n:save-screen %s\nq\n' "$tmp/cm.txt" >"$tmp/k4"
"$PTBROWSE" --no-state --script "$tmp/k4" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config: exit $?"
[ "$(grep -c 'no such command' "$tmp/cm.txt")" = 1 ] ||
	bad "config: :messages should hold the error once: $(cat "$tmp/cm.txt")"
head -n 1 "$tmp/c.txt" | grep -q '\[emacs\]' || bad "config: the keymap is not emacs: $(head -n 1 "$tmp/c.txt")"
sed -n 2p "$tmp/c.txt" | grep -q ' raw ' || bad "config: raw bytes not shown"
[ "$(tail -n 1 "$tmp/c.txt" | sed 's/ *$//')" = "$XDG_CONFIG_HOME/ptbrowse/config:4: no-such-command: no such command (F1 lists them)" ] ||
	bad "config: message '$(tail -n 1 "$tmp/c.txt")'"
"$PTBROWSE" --no-state --keymap default --script "$tmp/k3" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1
head -n 1 "$tmp/c.txt" | grep -q '\[default\]' || bad "config: --keymap did not win: $(head -n 1 "$tmp/c.txt")"
[ $fail = 0 ] && echo "ok   the config file's commands run, bad lines are reported, --keymap wins"

# A config's 'set keymap' runs before its other lines: the binds before it
# were dropped without a word when it replaced the keymap.
printf 'bind F5 goto-end\nset keymap emacs\nbind F6 goto-start\n' >"$XDG_CONFIG_HOME/ptbrowse/config"
printf 'F5\n:save-screen %s\nF6\n:save-screen %s\n' "$tmp/o1.txt" "$tmp/o2.txt" >"$tmp/ko"
"$PTBROWSE" --no-state --script "$tmp/ko" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config set keymap: exit $?"
head -n 1 "$tmp/o1.txt" | grep -q '\[emacs\]' || bad "config set keymap: not emacs: $(head -n 1 "$tmp/o1.txt")"
grep -q '^ 0x[0-9a-f]*/0x10000 100\.0%' "$tmp/o1.txt" || bad "config set keymap: F5 bound before it lost: $(tail -n 1 "$tmp/o1.txt")"
grep -q '^ 0x0/0x10000 0\.0%' "$tmp/o2.txt" || bad "config set keymap: F6: $(tail -n 2 "$tmp/o2.txt")"
# likewise written as at the prompt, ':set keymap emacs'
printf 'bind F5 goto-end\n:set keymap emacs\n' >"$XDG_CONFIG_HOME/ptbrowse/config"
printf 'F5\n:save-screen %s\n' "$tmp/o3.txt" >"$tmp/ko"
"$PTBROWSE" --no-state --script "$tmp/ko" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config :set keymap: exit $?"
head -n 1 "$tmp/o3.txt" | grep -q '\[emacs\]' || bad "config :set keymap: not emacs: $(head -n 1 "$tmp/o3.txt")"
grep -q '^ 0x[0-9a-f]*/0x10000 100\.0%' "$tmp/o3.txt" || bad "config ':set keymap': F5 bound before it lost: $(tail -n 1 "$tmp/o3.txt")"
rm -f "$XDG_CONFIG_HOME/ptbrowse/config"
[ $fail = 0 ] && echo "ok   a config's set keymap keeps the binds before it"

# The config file's keymap lines are checked for a way out once, at its
# end, as a keymap file's: q unbound by lines 1-2 and x bound to quit by
# line 3 brought q back after line 2 ("config:2: keymap: q (quit) bound
# again: no other key was left"), and line 4's q z was refused.  A config
# that leaves no way to quit gets q back, said once, naming the file.
cfg=$XDG_CONFIG_HOME/ptbrowse/config
printf 'unbind q\nunbind Q\nbind x quit\nbind q z goto-end\n' >"$cfg"
printf 'q z\n:save-screen %s\n:messages\n:save-screen %s\nq\nx\n:save-screen %s\n' \
	"$tmp/x1.txt" "$tmp/x2.txt" "$tmp/x3.txt" >"$tmp/kx"
"$PTBROWSE" --no-state --script "$tmp/kx" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config exits: exit $?"
grep -q '^ 0x[0-9a-f]*/0x10000 100\.0%' "$tmp/x1.txt" || bad "config exits: q z did not go to the end: $(cat "$tmp/x1.txt")"
[ -z "$(tail -n 1 "$tmp/x1.txt" | tr -d ' ')" ] || bad "config exits: message '$(tail -n 1 "$tmp/x1.txt")'"
grep -q ' E ' "$tmp/x2.txt" && bad "config exits: errors: $(cat "$tmp/x2.txt")"
[ -f "$tmp/x3.txt" ] && bad "config exits: x did not quit"
printf 'unbind q\nunbind Q\nbind j cursor-down\n' >"$cfg"
printf ':save-screen %s\n:messages\n:save-screen %s\nq\nq\n:save-screen %s\n' \
	"$tmp/y1.txt" "$tmp/y2.txt" "$tmp/y3.txt" >"$tmp/ky"
"$PTBROWSE" --no-state --script "$tmp/ky" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config exits: exit $?"
[ "$(tail -n 1 "$tmp/y1.txt" | sed 's/ *$//')" = "$cfg: keymap: q (quit) bound again: no other key was left" ] ||
	bad "config exits: message '$(tail -n 1 "$tmp/y1.txt")'"
[ "$(grep -c 'bound again' "$tmp/y2.txt")" = 1 ] || bad "config exits: :messages: $(cat "$tmp/y2.txt")"
[ -f "$tmp/y3.txt" ] && bad "config exits: q did not quit"
rm -f "$cfg"
[ $fail = 0 ] && echo "ok   the config file's keymap lines are checked for a way out once, at its end"

# A config's keymap line reports its own errors, not the keymap file's:
# with a broken default.keys, the config's 'bind F5 reload' said
# "config:1: .../default.keys:4: ..." (the file's last error as its own)
# and the file's others were lost.
printf 'bind j no-such-action\nbogus line\nbind k cursor-up\nbind x also-not-one\n' >"$km/default.keys"
printf 'bind F5 reload\n' >"$cfg"
printf ':save-screen %s\n:messages\n:save-screen %s\n' "$tmp/z1.txt" "$tmp/z2.txt" >"$tmp/kz"
"$PTBROWSE" --no-state --script "$tmp/kz" --size 200x20 "$tmp/t.pt" >/dev/null 2>&1 || bad "config bind: exit $?"
case $(tail -n 1 "$tmp/z1.txt" | sed 's/ *$//') in
"3 keymap errors (:messages lists them); the first: $km/default.keys:1: "*) ;;
*) bad "config bind with a broken keymap: message '$(tail -n 1 "$tmp/z1.txt")'" ;;
esac
grep -q "config:1:" "$tmp/z2.txt" && bad "config bind: the keymap's error was the config's: $(cat "$tmp/z2.txt")"
for l in 1 2 4; do
	grep -q " E $km/default.keys:$l: " "$tmp/z2.txt" || bad "config bind: :messages lacks default.keys:$l"
done
rm -f "$cfg" "$km/default.keys"
[ $fail = 0 ] && echo "ok   a config's keymap line reports its own errors, not the keymap file's"

# Every error of a keymap file read by :source or the config's 'set keymap
# FILE' is in :messages: :source kept only the last (bad.keys:4), and in
# the config only the count ("4 keymap errors (:messages lists them)")
# was logged, the errors themselves nowhere.
printf 'bind j no-such-action\nbogus line\nbind k cursor-up\nbind x also-not-one\n' >"$tmp/bad.keys"
printf 'source default\nbind F5 nope1\nbind F6 nope2\nbind F7 reload\nbind F8 nope3\nbind F9 nope4\n' >"$tmp/bad4.keys"
printf ':source %s\n:save-screen %s\n:messages\n:save-screen %s\n' "$tmp/bad.keys" "$tmp/e1.txt" "$tmp/e2.txt" >"$tmp/ke"
"$PTBROWSE" --no-state --script "$tmp/ke" --size 200x20 "$tmp/t.pt" >/dev/null 2>&1 || bad ":source errors: exit $?"
case $(tail -n 1 "$tmp/e1.txt" | sed 's/ *$//') in
"3 keymap errors (:messages lists them); the first: $tmp/bad.keys:1: "*) ;;
*) bad ":source errors: message '$(tail -n 1 "$tmp/e1.txt")'" ;;
esac
for l in 1 2 4; do
	grep -q " E $tmp/bad.keys:$l: " "$tmp/e2.txt" || bad ":source errors: :messages lacks bad.keys:$l: $(cat "$tmp/e2.txt")"
done
printf 'set keymap %s\n' "$tmp/bad4.keys" >"$cfg"
printf ':save-screen %s\n:messages\n:save-screen %s\n' "$tmp/e3.txt" "$tmp/e4.txt" >"$tmp/ke"
"$PTBROWSE" --no-state --script "$tmp/ke" --size 200x20 "$tmp/t.pt" >/dev/null 2>&1 || bad "set keymap errors: exit $?"
case $(tail -n 1 "$tmp/e3.txt" | sed 's/ *$//') in
"$cfg:1: 4 keymap errors (:messages lists them); the first: $tmp/bad4.keys:2: "*) ;;
*) bad "set keymap errors: message '$(tail -n 1 "$tmp/e3.txt")'" ;;
esac
for l in 2 3 5 6; do
	grep -q " E $tmp/bad4.keys:$l: " "$tmp/e4.txt" || bad "set keymap errors: :messages lacks bad4.keys:$l: $(cat "$tmp/e4.txt")"
done
rm -f "$cfg"
[ $fail = 0 ] && echo "ok   :source and a config's set keymap FILE log every error"

# describe-key from a key (emacs C-h k) describes the very next key, which
# does nothing else (it once waited for a key argument and described the
# one after).
rm -f "$XDG_CONFIG_HOME/ptbrowse/config"
printf 'C-h k
C-v
:save-screen %s
' "$tmp/d.txt" >"$tmp/k5"
"$PTBROWSE" --no-state --keymap emacs --script "$tmp/k5" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 ||
	bad "describe-key: exit $?"
tail -n 1 "$tmp/d.txt" | grep -q '^C-v: page-down' || bad "describe-key: message '$(tail -n 1 "$tmp/d.txt")'"
grep -q '^ 0x0/0x10000 ' "$tmp/d.txt" || bad "describe-key: C-v moved the cursor: $(grep '0x10000' "$tmp/d.txt")"
[ $fail = 0 ] && echo "ok   describe-key describes the next key"

# ':help COMMAND' opens the help at that command; an unknown one is an error.
printf ':help goto\n:save-screen %s\nq\n:help nosuch\n:save-screen %s\n' "$tmp/h1.txt" "$tmp/h2.txt" >"$tmp/k6"
"$PTBROWSE" --no-state --script "$tmp/k6" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "help: exit $?"
head -n 1 "$tmp/h1.txt" | grep -q ' goto  *Go to ' || bad ":help goto: first line '$(head -n 1 "$tmp/h1.txt")'"
[ "$(tail -n 1 "$tmp/h2.txt" | sed 's/ *$//')" = "help: nosuch: no such command" ] ||
	bad ":help nosuch: '$(tail -n 1 "$tmp/h2.txt")'"
[ $fail = 0 ] && echo "ok   :help COMMAND opens at that command"

# --keymap FILE.keys in the current directory (no slash) is that file;
# its 'source default' is the built-in keymap (it was looked for as a file
# "default" beside it: "my.keys:1: source: default: No such file or
# directory", and j was not bound).
printf 'source default\nbind x goto-end\n' >"$tmp/my.keys"
printf ':save-screen %s\nj\nj\n:save-screen %s\nx\n:save-screen %s\n' "$tmp/m0.txt" "$tmp/m1.txt" "$tmp/m.txt" >"$tmp/k7"
( cd "$tmp" && "$PTBROWSE" --no-state --keymap my.keys --script k7 --size 120x10 t.pt >/dev/null 2>&1 ) ||
	bad "--keymap my.keys: exit $?"
grep -q '100\.0%' "$tmp/m.txt" || bad "--keymap my.keys: x did not go to the end: $(grep '0x' "$tmp/m.txt" | tail -n 1)"
[ -z "$(tail -n 1 "$tmp/m0.txt" | tr -d ' ')" ] || bad "--keymap my.keys: message '$(tail -n 1 "$tmp/m0.txt")'"
grep -q '^> .0x00000012 ' "$tmp/m1.txt" || bad "--keymap my.keys: j j did not go down: $(tail -n 1 "$tmp/m1.txt")"
[ $fail = 0 ] && echo "ok   --keymap my.keys loads that file, and source default the built-in"

# Huge counts: on keys that repeat (zoom, n, C-o) they are cut to what can
# happen; past 2^63 they still mean "far" (they moved one step).
printf '999999999 z\n:search tip\nwait-search\n999999999 n\n99999999 C-o\n9223372036854775808 j\n:save-screen %s\n' \
	"$tmp/n.txt" >"$tmp/k8"
timeout 120 "$PTBROWSE" --no-state --script "$tmp/k8" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 ||
	bad "huge counts: exit $? (124: it hung)"
grep -q '^ 0x[0-9a-f]*/0x10000 100\.0%' "$tmp/n.txt" || bad "huge count j: $(grep '/0x10000' "$tmp/n.txt")"
[ $fail = 0 ] && echo "ok   huge counts are cut to what can happen"

# A config line too long for the reader is skipped whole (its tail once ran
# as a command of its own: here, quit), and CRLF line ends are fine.
mkdir -p "$XDG_CONFIG_HOME/ptbrowse"
{ printf '# '; head -c 1021 /dev/zero | tr '\0' x; printf 'quit\nset raw on\r\n'; } >"$XDG_CONFIG_HOME/ptbrowse/config"
printf ':save-screen %s\n:import-marks /dev/zero\n:save-screen %s\n' "$tmp/l1.txt" "$tmp/l2.txt" >"$tmp/k9"
timeout 60 "$PTBROWSE" --script "$tmp/k9" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "long config line: exit $?"
[ "$(tail -n 1 "$tmp/l1.txt" | sed 's/ *$//')" = "$XDG_CONFIG_HOME/ptbrowse/config:1: line too long (skipped)" ] ||
	bad "long config line: '$(tail -n 1 "$tmp/l1.txt")'"
sed -n 2p "$tmp/l1.txt" | grep -q ' raw ' || bad "CRLF config: raw bytes not shown"
# and a marks import from a device is refused, not read forever
[ "$(tail -n 1 "$tmp/l2.txt" | sed 's/ *$//')" = "cannot read /dev/zero: not a regular file" ] ||
	bad "import-marks /dev/zero: '$(tail -n 1 "$tmp/l2.txt")'"
rm -f "$XDG_CONFIG_HOME/ptbrowse/config"
[ $fail = 0 ] && echo "ok   config: a long line is skipped whole, CRLF works; marks import refuses a device"

# A NUL byte in a config line is that line's one error, named by its
# file:line; the next line is not eaten (it was: fgets() had taken the
# line's end, and the "skip the rest" loop took the next line) and later
# lines keep their numbers.  The same in a --script file.
printf 'set nosuchoption 1\nset raw on\000junk\nsave-screen %s\nset nosuch2 1\n' "$tmp/z0.txt" \
	>"$XDG_CONFIG_HOME/ptbrowse/config"
printf ':messages\n:save-screen %s\n' "$tmp/z1.txt" >"$tmp/kz"
timeout 60 "$PTBROWSE" --no-state --script "$tmp/kz" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "NUL config line: exit $?"
[ -f "$tmp/z0.txt" ] || bad "NUL config line: the next line (save-screen) did not run"
grep -q "config:2: a NUL byte in the line (skipped)" "$tmp/z1.txt" || bad "NUL config line: $(cat "$tmp/z1.txt")"
grep -q "config:4: set: no option 'nosuch2'" "$tmp/z1.txt" || bad "NUL config line: line 4 misnumbered: $(cat "$tmp/z1.txt")"
rm -f "$XDG_CONFIG_HOME/ptbrowse/config"
printf ':set raw on\000junk\n:save-screen %s\n' "$tmp/z2.txt" >"$tmp/kz2"
"$PTBROWSE" --no-state --script "$tmp/kz2" --size 120x10 "$tmp/t.pt" >"$tmp/zo" 2>&1 && bad "NUL script line: exit 0"
[ "$(cat "$tmp/zo")" = "ptbrowse: $tmp/kz2:1: a NUL byte in the line" ] || bad "NUL script line: '$(cat "$tmp/zo")'"
[ $fail = 0 ] && echo "ok   a NUL byte in a config or script line is one error at its file:line"

# A # starting a word starts a comment in the config file for every
# command, also those taking their text as typed (save-screen made a file
# named "c0.txt # the screen"; set and goto refused the comment).
printf 'set raw on # raw view\ngoto 50%% # middle\nsave-screen %s # the screen\n' "$tmp/c0.txt" \
	>"$XDG_CONFIG_HOME/ptbrowse/config"
printf ':messages\n:save-screen %s\n' "$tmp/c1.txt" >"$tmp/kc"
"$PTBROWSE" --no-state --script "$tmp/kc" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "config comments: exit $?"
rm -f "$XDG_CONFIG_HOME/ptbrowse/config"
[ -f "$tmp/c0.txt" ] || bad "config comments: no c0.txt: $(ls "$tmp")"
grep -q ' E ' "$tmp/c1.txt" && bad "config comments: errors: $(cat "$tmp/c1.txt")"
sed -n 2p "$tmp/c0.txt" | grep -q ' raw ' || bad "config comments: raw bytes not shown"
grep -q '^ *0x[0-9a-f]*/0x10000  *50\.' "$tmp/c0.txt" || bad "config comments: not at 50%: $(cat "$tmp/c0.txt")"
[ $fail = 0 ] && echo "ok   config comments after commands taken as typed"

# Exports never write over a device (a failed export removed its output:
# /dev/full itself) nor create directories; a FIFO is not sourced.
mkfifo "$tmp/fifo"
printf ':export 0 100 /dev/null\n:save-screen %s\n:export-marks /dev/null\n:save-screen %s\n:export-marks %s/nodir/x.marks\n:save-screen %s\n:source %s\n:save-screen %s\n:import-marks %s\n:save-screen %s\n' \
	"$tmp/e1.txt" "$tmp/e2.txt" "$tmp" "$tmp/e3.txt" "$tmp/fifo" "$tmp/e4.txt" "$tmp/fifo" "$tmp/e5.txt" >"$tmp/k10"
timeout 60 "$PTBROWSE" --script "$tmp/k10" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "exports: exit $? (124: it hung)"
for e in "e1:export: /dev/null: is a character device, not a regular file; not replacing it" \
	 "e2:marks not exported: /dev/null: is a character device, not a regular file; not replacing it" \
	 "e3:marks not exported: $tmp/nodir: no such directory" \
	 "e4:source: $tmp/fifo: not a regular file" \
	 "e5:cannot read $tmp/fifo: not a regular file"; do
	[ "$(tail -n 1 "$tmp/${e%%:*}.txt" | sed 's/ *$//')" = "${e#*:}" ] ||
		bad "${e%%:*}: '$(tail -n 1 "$tmp/${e%%:*}.txt")'"
done
[ -c /dev/null ] && [ ! -d "$tmp/nodir" ] || bad "exports: /dev/null replaced or a directory made"
[ $fail = 0 ] && echo "ok   exports refuse devices and missing directories; source and import refuse a FIFO"

# The marks list's e (edit note) prefills :mark -n NAME "note": words typed
# after it are the note's, not dropped; :set checks its values.
printf ':mark ab "old note"\n:marks\ne\nX Y Z\nEnter\nq\n:set raw maybe\n:save-screen %s\n' "$tmp/n1.txt" >"$tmp/k11"
XDG_STATE_HOME=$tmp/state11 "$PTBROWSE" --script "$tmp/k11" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "note: exit $?"
XDG_STATE_HOME=$tmp/state11 "$PTBROWSE" marks "$tmp/t.pt" | grep -q '"old note XYZ"$' ||
	bad "note: $(XDG_STATE_HOME=$tmp/state11 "$PTBROWSE" marks "$tmp/t.pt")"
[ "$(tail -n 1 "$tmp/n1.txt" | sed 's/ *$//')" = "set raw: on or off, not 'maybe'" ] ||
	bad ":set raw maybe: '$(tail -n 1 "$tmp/n1.txt")'"
[ $fail = 0 ] && echo "ok   a note edited from the marks list keeps what was typed; :set checks values"

# % without a count goes to 0%, as less does, and says so: at the start it
# changed nothing on the screen and said nothing.
printf '5 0 %%\n%%\n:save-screen %s\n%%\n:save-screen %s\n' "$tmp/p1.txt" "$tmp/p2.txt" >"$tmp/k12"
"$PTBROWSE" --no-state --script "$tmp/k12" --size 120x10 "$tmp/t.pt" >/dev/null 2>&1 || bad "%: exit $?"
for f in p1 p2; do
	tail -n 2 "$tmp/$f.txt" | head -n 1 | grep -q '^ *0x0/' || bad "%: $f: not at the start: $(tail -n 2 "$tmp/$f.txt")"
	[ "$(tail -n 1 "$tmp/$f.txt" | sed 's/ *$//')" = "0%: the start (no count given; a count of 50 goes half way)" ] ||
		bad "%: $f: '$(tail -n 1 "$tmp/$f.txt")'"
done
[ $fail = 0 ] && echo "ok   % without a count goes to the start and says so"

# A message longer than the line's buffer (a long path) ends in "... [cut]"
# and is cut before a whole character: cut silently it named a shorter
# path than the file written.  Two runs a byte apart, so one cut falls
# inside a two-byte character.
e=$(printf '\303\251')
c=$e$e$e$e$e$e$e$e$e$e
for x in "" x; do
	dir=$tmp/long$x/$c$c$c$c$c$c$c$c$c$c/$c$c$c$c$c$c$c$c$c$c/$c$c$c$c$c$c$c$c$c$c
	mkdir -p "$dir" || bad "mkdir"
	printf ':export-marks %s\n:save-screen %s\n' "$dir/m.txt" "$tmp/c$x.txt" >"$tmp/k13"
	LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/k13" --size 1000x6 "$tmp/t.pt" >/dev/null 2>&1 ||
		bad "long path: exit $?"
	[ -f "$dir/m.txt" ] || bad "long path: no $dir/m.txt"
	m=$(tail -n 1 "$tmp/c$x.txt" | sed 's/ *$//')
	case $m in
	"wrote 0 marks and regions to $tmp/long$x/"*"... [cut]") ;;
	*) bad "long path: message '$m'" ;;
	esac
	case $m in *'\x'*) bad "long path: a character cut: '$m'" ;; esac
done
# A name that is not UTF-8 is shown escaped, each byte as \xff: the
# message grows past the line's buffer only then, and is cut there too.
z=$(printf '\377%.0s' $(seq 1 150))
mkdir -p "$tmp/longz/$z" || bad "mkdir"
printf ':export-marks %s\n:save-screen %s\n' "$tmp/longz/$z/m.txt" "$tmp/cz.txt" >"$tmp/k14"
LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/k14" --size 1000x6 "$tmp/t.pt" >/dev/null 2>&1 ||
	bad "escaped long path: exit $?"
[ -f "$tmp/longz/$z/m.txt" ] || bad "escaped long path: no file"
m=$(tail -n 1 "$tmp/cz.txt" | sed 's/ *$//')
case $m in
"wrote 0 marks and regions to $tmp/longz/\\xff"*'\xff... [cut]') ;;
*) bad "escaped long path: message '$m'" ;;
esac
[ $fail = 0 ] && echo "ok   a message cut short says so"
exit $fail

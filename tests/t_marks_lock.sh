#!/bin/sh
# Marks are never lost with several browsers open on one trace: 4 browsers
# (--script) each setting 50 named bookmarks at the same time keep all 200,
# 20 rounds in a row (saves are serialised by a lock on <marks>.lock; before
# it about two thirds were lost).  A save that finds the lock held says so on
# the message line, keeps the change in memory and saves it once the lock is
# free; a lock never freed makes the browser exit 1 naming the file, instead
# of dropping the change silently.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp" TMPDIR="$tmp"
unset TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

T=$SHARED/traces/dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin
N=4 M=50
for p in $(seq 1 $N); do
	for k in $(seq 1 $M); do echo ":mark p${p}_$k"; done >"$tmp/keys$p"
	echo q >>"$tmp/keys$p"
done
for round in $(seq 1 20); do
	rm -rf "$tmp/state"
	pids=
	for p in $(seq 1 $N); do
		"$PTBROWSE" --no-index --script "$tmp/keys$p" --size 80x24 "$T" \
			>"$tmp/out$p" 2>&1 &
		pids="$pids $!"
	done
	for pid in $pids; do
		wait "$pid" || bad "round $round: a browser exited $?"
	done
	n=$("$PTBROWSE" marks "$T" | grep -c '^bookmark *p[0-9]*_[0-9]')
	if [ "$n" -ne $((N * M)) ]; then
		bad "round $round: $n of $((N * M)) marks kept"
		cat "$tmp"/out*
		break
	fi
done

# Another process holds the lock for a while: the change waits in memory,
# the message line says so, and it is saved once the lock is free.
file=$("$PTBROWSE" marks --json "$T" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
[ -f "$file" ] || bad "no marks file ($file)"
hold() {	# hold the lock for $1 seconds, in the background
	flock "$file.lock" sleep "$1" &
	holder=$!
	i=0
	while flock -n "$file.lock" true; do
		i=$((i + 1))
		[ $i -gt 500 ] && { bad "the lock holder did not start"; break; }
		sleep 0.01
	done
}
hold 2
cat >"$tmp/busy" <<EOF
:mark held_1
:save-screen $tmp/busy.txt
q
EOF
"$PTBROWSE" --no-index --script "$tmp/busy" --size 120x24 "$T" >"$tmp/out" 2>&1 ||
	bad "busy lock: exit $? ($(cat "$tmp/out"))"
grep -q "not saved yet: another ptbrowse is saving" "$tmp/busy.txt" ||
	bad "busy lock: the message line does not say so: $(tail -n 2 "$tmp/busy.txt")"
"$PTBROWSE" marks "$T" | grep -q '^bookmark *held_1 ' || bad "busy lock: the change was lost"
wait "$holder"
holder=

# A lock that is never freed: exit 1 with the reason, the file untouched.
hold 30
cp "$file" "$tmp/before"
printf ':mark held_2\nq\n' >"$tmp/stuck"
"$PTBROWSE" --no-index --script "$tmp/stuck" --size 80x24 "$T" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "stuck lock: exit $rc"
grep -q "^ptbrowse: marks not saved: another ptbrowse kept $file locked for 5 s$" "$tmp/err" ||
	bad "stuck lock: stderr $(cat "$tmp/err")"
# ... and the marks are in a new file it names (t_marks_exit.sh)
fb=$(sed -n 's/.* were written to \(.*\) instead;.*/\1/p' "$tmp/err")
case $fb in "$tmp/"*) grep -q '^bookmark held_2 ' "$fb" ;; *) false ;; esac ||
	bad "stuck lock: the change is not in a named file: $(cat "$tmp/err")"
cmp -s "$file" "$tmp/before" || bad "stuck lock: the marks file was written"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=
exit $fail

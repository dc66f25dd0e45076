#!/bin/sh
# Crash safety of the marks file: kill -9 a process that rewrites it as
# fast as it can (`ptbrowse marks --stress-save N`, one region change per
# save), many times, at varying moments.  After every kill the file must
# be a complete version: it parses without a message, and the region's
# note repeats its end offset the full number of times.  Temporary files
# of killed savers are cleaned up by the next save, and no .bad appears.
set -u
: "${PTBROWSE:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
ROUNDS=${ROUNDS:-30}
fail=0
dir=$XDG_STATE_HOME/ptbrowse/traces

head -c 65536 /dev/urandom >"$tmp/t.pt"

# verify: the marks file is absent or a complete version
verify() {
	if ! "$PTBROWSE" marks "$tmp/t.pt" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL round $1: marks exited non-zero: $(cat "$tmp/err")"; return 1
	fi
	if [ -s "$tmp/err" ]; then
		echo "FAIL round $1: $(cat "$tmp/err")"; return 1
	fi
	[ -s "$tmp/out" ] || return 0	# killed before the first save
	awk -v round="$1" '
	$1 != "region" || $2 != "stress" || $3 != "0x0000000000000001" {
		print "FAIL round " round ": unexpected line: " substr($0, 1, 80); bad = 1; next }
	{
		end = 0; hex = substr($4, 3)
		for (i = 1; i <= length(hex); i++)
			end = end * 16 + index("0123456789abcdef", substr(hex, i, 1)) - 1
		q = index($0, "\""); note = substr($0, q + 1)
		if (substr(note, length(note)) != "\"") { print "FAIL round " round ": note not closed"; bad = 1; next }
		note = substr(note, 1, length(note) - 1)
		w = length(end " "); n = split(note, words, " ")
		for (i = 1; i <= n; i++)
			if (words[i] != end) { print "FAIL round " round ": torn note (" words[i] " in " end ")"; bad = 1; next }
		# stress_save fills 4095 bytes with whole words
		if (n * w >= 4095 || (n + 1) * w < 4095) { print "FAIL round " round ": note of " n " words for " end; bad = 1; next }
		lines++; last = end
	}
	END {
		if (lines > 1) { print "FAIL round " round ": " lines " stress regions"; bad = 1 }
		if (!bad) printf "%d ", last
		exit bad
	}' "$tmp/out"
}

i=0
while [ $i -lt "$ROUNDS" ]; do
	"$PTBROWSE" marks --stress-save 1000000 "$tmp/t.pt" 2>"$tmp/saver.err" &
	pid=$!
	# 20 to 400 ms: kills land at every phase of a save
	sleep "0.$(printf '%03d' $(( (i * 37) % 380 + 20 )))"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	verify $i || fail=1
	i=$((i + 1))
done
echo

ls "$dir" | grep -q '\.bad' && { echo "FAIL: a .bad file appeared"; ls "$dir"; fail=1; }
# one clean save removes what the killed savers left
"$PTBROWSE" marks --stress-save 1 "$tmp/t.pt" || fail=1
if ls "$dir" | grep -q '\.tmp\.'; then
	echo "FAIL: temporary files left:"; ls "$dir"; fail=1
fi
verify final || fail=1
echo
[ $fail -eq 0 ] && echo "ok: $ROUNDS kills, the marks file was always whole"
exit $fail

#!/bin/sh
# t_cache_trim -- the index cache's size limit (src/idxcache.h,
# idxcache_trim()): --cache-max SIZE and the config's "set cache-max SIZE"
# (default 2 GiB, 0: none).  After a save the directory's own cache files
# go, least recently used first (mtime: a hit sets it), until they fit;
# never the file just saved (one alone over the limit is kept and said
# once), nor its code index; never a file that is not ours (another name,
# another header, a symbolic link, a temporary file being written).
# `ptbrowse info` says the cache's size and limit; `ptbrowse index
# --clear-cache` empties it.  Times are set with touch, never waited for.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
sleeper=
cleanup() {
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

export XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/conf"
D="$tmp/cache/ptbrowse/index"
for i in 1 2 3 4 5; do
	"$BUILD/tools/ptgen" --seed $i --size 1MiB -o "$tmp/t$i.pt" >/dev/null 2>&1 ||
		{ echo "ptgen failed"; exit 1; }
done

# index TRACE [OPTIONS...]: index it, print the cache file it added (if any)
index() {
	tr=$1; shift
	ls "$D" 2>/dev/null | sort >"$tmp/before"
	"$PTBROWSE" index "$@" "$tmp/$tr.pt" >/dev/null 2>"$tmp/err" ||
		bad "index $tr $*: $(cat "$tmp/err")"
	ls "$D" | sort >"$tmp/after"
	comm -13 "$tmp/before" "$tmp/after"
}
mt() { stat -c %Y "$D/$1" 2>/dev/null; }
have() { [ -e "$D/$1" ] || [ -L "$D/$1" ]; }

# 1. Under the limit (the default, 2 GiB): nothing goes.
f1=$(index t1); f2=$(index t2); f3=$(index t3)
[ -n "$f1" ] && [ -n "$f2" ] && [ -n "$f3" ] || { echo "no cache files made"; exit 1; }
have "$f1" && have "$f2" && have "$f3" || bad "a file went under the default limit"
sz=$(stat -c %s "$D/$f1")

# 2. A hit marks the file used (its mtime): the least recently used goes.
touch -d @1000000000 "$D/$f1"
touch -d @1000000100 "$D/$f2"
touch -d @1000000200 "$D/$f3"
"$PTBROWSE" index --json "$tmp/t1.pt" | grep -q '"cache": "hit"' || bad "t1 not a hit"
[ "$(mt "$f1")" -gt 1000000200 ] || bad "a hit did not mark the file used: $(mt "$f1")"
# room for three of the four files: t2's, now the oldest, goes
max=$((sz * 3 + sz / 2))
f4=$(index t4 --cache-max $max)
have "$f2" && bad "the least recently used file (t2's) is still there"
have "$f1" || bad "t1's file, used last, was removed"
have "$f3" || bad "t3's file was removed"
have "$f4" || bad "the file just saved was removed"

# 3. Files not ours stay, whatever their age: another name, a cache name
#    with another header, a symbolic link to a cache file, a temporary
#    file a live process is writing.
head -c 300000 /dev/zero >"$D/notes.txt"
head -c 300000 /dev/zero >"$D/0000000000000000-0000000000000000-raw.idx"
cp "$D/$f3" "$tmp/outside.idx"
ln -s "$tmp/outside.idx" "$D/1111111111111111-1111111111111111-raw.idx"
sleep 300 & sleeper=$!
head -c 300000 /dev/zero >"$D/$f3.tmp.$sleeper.1"
# a code index beside t4's (ctidx.c's magic), and an old one of t1's
printf 'PTBCODEX' >"$D/$f4.code"; head -c 1000 /dev/zero >>"$D/$f4.code"
printf 'PTBCODEX' >"$D/$f1.code"; head -c 1000 /dev/zero >>"$D/$f1.code"
touch -h -d @900000000 "$D/notes.txt" "$D/0000000000000000-0000000000000000-raw.idx" \
	"$D/1111111111111111-1111111111111111-raw.idx" "$D/$f3.tmp.$sleeper.1" \
	"$tmp/outside.idx" "$D/$f4.code" "$D/$f1.code"
touch -d @1000000300 "$D/$f1" "$D/$f3" "$D/$f4"
# t4's is a hit: its code index is marked used with it
"$PTBROWSE" index --json "$tmp/t4.pt" | grep -q '"cache": "hit"' || bad "t4 not a hit"
[ "$(mt "$f4.code")" -gt 1000000300 ] || bad "a hit did not mark its code index used"
# room for two files: t1's code index goes first, then t1's and t3's
f5=$(index t5 --cache-max $((sz * 2 + 2000 + sz / 2)))
have "$f1.code" && bad "t1's old code index is still there"
have "$f1" && bad "t1's file is still there"
have "$f3" && bad "t3's file is still there"
have "$f5" || bad "the file just saved was removed"
have "$f4" && have "$f4.code" || bad "t4's file or its code index went (used after t3's)"
for f in notes.txt 0000000000000000-0000000000000000-raw.idx \
	1111111111111111-1111111111111111-raw.idx "$f3.tmp.$sleeper.1"; do
	have "$f" || bad "$f, not ours, was removed"
done
[ -f "$tmp/outside.idx" ] && [ "$(stat -c %Y "$tmp/outside.idx")" = 900000000 ] ||
	bad "the symbolic link's target was removed or touched"
grep -q . "$tmp/err" && bad "index said: $(cat "$tmp/err")"

# 4. One file alone over the limit: kept, said once; everything else of
#    ours goes.  0 is no limit.
"$PTBROWSE" index --cache-max 0 "$tmp/t2.pt" >/dev/null 2>"$tmp/err"
have "$f4" && have "$f5" && have "$f2" || bad "--cache-max 0 removed a file"
"$PTBROWSE" index --cache-max 1KiB "$tmp/t1.pt" >/dev/null 2>"$tmp/err"
have "$f1" || bad "the file just saved, alone over the limit, was removed"
if have "$f2" || have "$f4" || have "$f4.code" || have "$f5"; then
	bad "other files stayed over the limit"
fi
[ "$(grep -c 'alone is over the cache.s limit (1 KiB' "$tmp/err")" = 1 ] ||
	bad "a file alone over the limit not said once: $(cat "$tmp/err")"
for f in notes.txt 0000000000000000-0000000000000000-raw.idx \
	1111111111111111-1111111111111111-raw.idx "$f3.tmp.$sleeper.1"; do
	have "$f" || bad "$f, not ours, was removed"
done

# 5. The config's "set cache-max" (the command line wins); a bad one is
#    said as FILE:LINE.
mkdir -p "$tmp/conf/ptbrowse"
f2=$(index t2)
printf 'set keymap emacs\nset cache-max %s # room for one\n' $((sz + sz / 2)) \
	>"$tmp/conf/ptbrowse/config"
f3=$(index t3)
have "$f3" || bad "the file just saved went (config limit)"
have "$f2" && bad "the config's limit was not applied"
"$PTBROWSE" info "$tmp/t3.pt" >"$tmp/info" 2>"$tmp/err"
grep -q "^cache  *[0-9.]* KiB in 1 file, limit [0-9.]* KiB, $D\$" "$tmp/info" ||
	bad "info's cache line: $(grep cache "$tmp/info")"
"$PTBROWSE" info --json "$tmp/t3.pt" |
	grep -q "\"cache\": {\"dir\": \"$D\", \"bytes\": [0-9]*, \"files\": 1, \"max\": $((sz + sz / 2))}" ||
	bad "info --json's cache: $("$PTBROWSE" info --json "$tmp/t3.pt" | grep cache)"
f2=$(index t2 --cache-max 0)
have "$f3" || bad "--cache-max 0 did not win over the config"
printf 'set cache-max lots\n' >"$tmp/conf/ptbrowse/config"
"$PTBROWSE" info "$tmp/t3.pt" >"$tmp/info" 2>"$tmp/err"
grep -q 'config:1: set cache-max: bad size: lots' "$tmp/err" ||
	bad "a bad config size not said: $(cat "$tmp/err")"
grep -q "limit 2 GiB" "$tmp/info" || bad "a bad config size did not leave the default"
rm "$tmp/conf/ptbrowse/config"

# 6. Bad sizes on the command line: usage errors.
"$PTBROWSE" index --cache-max 2X "$tmp/t1.pt" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--cache-max: bad argument: 2X' "$tmp/err" ||
	bad "index --cache-max 2X: $(cat "$tmp/err")"
"$PTBROWSE" --cache-max -1 "$tmp/t1.pt" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--cache-max: bad argument: -1' "$tmp/err" ||
	bad "ptbrowse --cache-max -1: $(cat "$tmp/err")"

# 7. The browser trims after its save too.
f1=$(index t1 --cache-max 0)
touch -d @1000000000 "$D/$f1"
printf 'wait-index\nq\n' >"$tmp/keys"
"$PTBROWSE" --no-state --no-code-index --cache-max 1KiB --script "$tmp/keys" \
	"$tmp/t4.pt" >/dev/null 2>&1 || bad "the browser failed"
have "$f1" && bad "the browser's save did not trim the cache"
ours=$(ls "$D" | grep '^[0-9a-f]\{16\}-[0-9a-f]\{16\}-.*\.idx$' |
	grep -v -e '^0000000000000000-' -e '^1111111111111111-')
[ "$(echo "$ours" | wc -w)" = 1 ] && [ "${ours%%-*}" = "${f4%%-*}" ] ||
	bad "the browser's save is not the one file left: $ours"
# ... and says, once, at its end, that its own index alone is over the limit
rm -f "$D/$ours"
"$PTBROWSE" --no-state --no-code-index --cache-max 1KiB --script "$tmp/keys" \
	"$tmp/t4.pt" >/dev/null 2>"$tmp/err" || bad "the browser failed"
[ "$(grep -c "^ptbrowse: index cache: .*alone is over the cache's limit (1 KiB" "$tmp/err")" = 1 ] ||
	bad "the browser did not say its index alone is over the limit: $(cat "$tmp/err")"

# 8. --clear-cache: ours go, the rest stay; with no TRACE it is all.
"$PTBROWSE" index --clear-cache >"$tmp/out" 2>"$tmp/err" || bad "--clear-cache failed"
grep -q 'index cache cleared: [0-9]* files\?, ' "$tmp/err" ||
	bad "--clear-cache said: $(cat "$tmp/err")"
left=$(ls "$D" | grep -v -e '^notes.txt$' -e '^0000000000000000-' -e '^1111111111111111-' \
	-e '\.tmp\.')
[ -z "$left" ] || bad "--clear-cache left: $left"
have notes.txt && have "$f3.tmp.$sleeper.1" || bad "--clear-cache removed a file not ours"
"$PTBROWSE" info "$tmp/t1.pt" | grep -q '^cache  *0 B in 0 files' ||
	bad "info after --clear-cache: $("$PTBROWSE" info "$tmp/t1.pt" | grep cache)"

# 9. A perf.data's streams are kept together: each stream's save removed
#    the streams saved before it, and every run built them all again.
#    Over the limit together: kept, said once.
rm -rf "$D"
for i in 1 2 3 4; do
	"$BUILD/tools/ptgen" --seed $((i + 10)) --size 1MiB -o "$tmp/m$i.pt" >/dev/null 2>&1
done
"$BUILD/tools/pt2perf" --cpu 0 "$tmp/m1.pt" --cpu 1 "$tmp/m2.pt" --cpu 2 "$tmp/m3.pt" \
	--cpu 3 "$tmp/m4.pt" -o "$tmp/multi.data" >/dev/null 2>&1 || bad "pt2perf failed"
f1=$(index t1)
ms=$(stat -c %s "$D/$f1")
lim=$((ms * 2 + ms / 2))
"$PTBROWSE" index --json --cache-max $lim "$tmp/multi.data" >"$tmp/out" 2>"$tmp/err" ||
	bad "index multi.data: $(cat "$tmp/err")"
[ "$(grep -o '"cache": "built"' "$tmp/out" | wc -l)" = 4 ] || bad "multi.data: not 4 built"
have "$f1" && bad "another trace's file stayed over the limit"
[ "$(grep -c "and the trace's other cache files (.* in [34] files) are over the cache's limit" \
	"$tmp/err")" = 1 ] || bad "the trace's files over the limit not said once: $(cat "$tmp/err")"
"$PTBROWSE" index --json --cache-max $lim "$tmp/multi.data" >"$tmp/out" 2>"$tmp/err"
[ "$(grep -o '"cache": "hit"' "$tmp/out" | wc -l)" = 4 ] ||
	bad "multi.data's streams evicted each other: $(grep -o '"cache": "[a-z]*"' "$tmp/out" |
		tr '\n' ' ')"

# 10. A save that failed (here past the file size limit, as a full disk)
#     trims all the same: the cache stayed over its limit for good.
rm -rf "$D"
f1=$(index t1); f2=$(index t2)
touch -d @1000000000 "$D/$f1"
(ulimit -f 4; "$PTBROWSE" index --cache-max $((ms + ms / 2)) "$tmp/t3.pt") \
	>/dev/null 2>"$tmp/err"
grep -q 'index not cached' "$tmp/err" || bad "the save did not fail: $(cat "$tmp/err")"
have "$f1" && bad "a failed save did not trim the cache"
have "$f2" || bad "a failed save trimmed too much"

# 11. A size that rounds down to 0 bytes is refused, not "no limit".
"$PTBROWSE" index --cache-max 0.0001KiB "$tmp/t1.pt" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--cache-max: bad argument: 0.0001KiB' "$tmp/err" ||
	bad "index --cache-max 0.0001KiB: $(cat "$tmp/err")"

# 12. A bad config line after a good one: the good one's limit stays; the
#     bad line and the file over the limit are both said, each once.
rm -rf "$D"
printf 'set cache-max 1KiB\nset cache-max lots\n' >"$tmp/conf/ptbrowse/config"
"$PTBROWSE" index "$tmp/t1.pt" >/dev/null 2>"$tmp/err"
[ "$(grep -c 'config:2: set cache-max: bad size: lots' "$tmp/err")" = 1 ] ||
	bad "index: the bad config line not said once: $(cat "$tmp/err")"
[ "$(grep -c 'alone is over the cache.s limit (1 KiB' "$tmp/err")" = 1 ] ||
	bad "index: the file over the limit not said with a bad config: $(cat "$tmp/err")"
"$PTBROWSE" info "$tmp/t1.pt" 2>/dev/null | grep -q "limit 1 KiB" ||
	bad "a bad config line did not leave the good line's limit"
# ... and the browser says a bad line once (:messages), not again at exit
printf 'set cache-max lots\n' >"$tmp/conf/ptbrowse/config"
rm -rf "$D"
printf 'wait-index\n:messages\n:save-screen %s\nq\n' "$tmp/msgs" >"$tmp/keys2"
"$PTBROWSE" --no-state --no-code-index --script "$tmp/keys2" "$tmp/t2.pt" \
	>/dev/null 2>"$tmp/err" || bad "the browser failed"
[ "$(cat "$tmp/msgs" "$tmp/err" | grep -c 'bad size: lots')" = 1 ] ||
	bad "the browser's bad config line not said once: $(cat "$tmp/err")"
rm "$tmp/conf/ptbrowse/config"

# 13. --clear-cache: usage errors come first, and clear nothing.
f1=$(index t1)
"$PTBROWSE" index --clear-cache "$tmp/t1.pt" "$tmp/t1.pt" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || bad "--clear-cache with two traces: not a usage error"
have "$f1" || bad "--clear-cache with two traces cleared the cache"
"$PTBROWSE" index --clear-cache --stream 5 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--stream' "$tmp/err" ||
	bad "--clear-cache --stream with no trace: $(cat "$tmp/err")"
have "$f1" || bad "--clear-cache --stream cleared the cache"

# 14. info says why it has no cache line.
: >"$tmp/afile"
XDG_CACHE_HOME="$tmp/afile" "$PTBROWSE" info "$tmp/t1.pt" >"$tmp/out" 2>"$tmp/err" ||
	bad "info failed without a cache directory"
[ "$(grep -c "index cache: $tmp/afile/ptbrowse/index: Not a directory" "$tmp/err")" = 1 ] ||
	bad "info: no cache line and nothing said: $(cat "$tmp/err")"
grep -q '^cache ' "$tmp/out" && bad "info: a cache line without a cache"

# 15. A code index loaded from the cache is marked used, as its index is
#     (the browser's, tests/rec_lib.sh as t_code_index_copy).
. tests/rec_lib.sh
if rec_sample "$tmp/rec"; then
	"$BUILD/tools/pttile" --size 1MiB -o "$tmp/s.pt" "$tmp/rec/trace.cpu0" >/dev/null &&
		"$BUILD/tools/ptgen" --print-config >"$tmp/s.pt.options" || bad "pttile"
	raw=$(sed -n "s#^--raw #--raw=$tmp/rec/#p" "$tmp/rec/trace.options" | tr '\n' ' ')
	printf 'wait-index\nwait-code-index\n:info\n:save-screen %s\nq\n' "$tmp/info3" \
		>"$tmp/keys3"
	rm -rf "$D"
	# shellcheck disable=SC2086
	"$PTBROWSE" --no-state --script "$tmp/keys3" $raw "$tmp/s.pt" >/dev/null 2>&1 ||
		bad "the browser failed (code index)"
	code=$(ls "$D" | grep '\.idx\.code$')
	[ -n "$code" ] || bad "no code index saved"
	touch -d @1000000000 "$D/$code"
	rm -f "$D/${code%.code}"
	# shellcheck disable=SC2086
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --ascii --size 200x60 \
		--script "$tmp/keys3" $raw "$tmp/s.pt" >/dev/null 2>&1
	grep -q "code index: loaded from cache, " "$tmp/info3" ||
		bad "the code index was not loaded from the cache: $(grep -o 'code index[^;]*' \
			"$tmp/info3")"
	[ "$(mt "$code")" -gt 1000000000 ] ||
		bad "a code index loaded from the cache was not marked used"
else
	bad "$rec_err"
fi

[ $fail = 0 ] && echo "t_cache_trim: ok"
exit $fail

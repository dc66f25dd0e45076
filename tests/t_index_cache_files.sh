#!/bin/sh
# t_index_cache_files -- ptbrowse index and the index cache's temporary
# files (src/safefile.h): a cache write past the file size limit is a
# warning after the summary, not the command's end with its temporary file
# left; SIGTERM at the cache write removes the temporary file; and what
# savers killed half way (SIGKILL) left in the cache directory is removed
# by the next save there, only that: a live process's, a link, another
# name, stay.
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL $*"; fail=1; }
tools=$(cd "$BUILD/tools" && pwd) || exit 1
cd "$tmp" || exit 1
# a cache file of about 85 KiB, bigger than the limit below
"$tools/ptgen" --seed 5 --size 4MiB -o a.pt >/dev/null || exit 1
ci=$tmp/cache/ptbrowse/index

# 1. the file size limit (10 KiB in sh's 512-byte blocks, less than the
# cache file): the summary, one warning, exit 0, no temporary file
sh -c 'ulimit -f 20; "$0" index a.pt' "$PTBROWSE" >out.txt 2>err.txt
r=$?
[ $r = 0 ] || bad "index past the file size limit: exit $r ($(cat err.txt))"
grep -q '^  psbs: ' out.txt || bad "index past the file size limit: no summary: $(cat out.txt)"
grep -q '^ptbrowse index: warning: index not cached: .*: File too large$' err.txt ||
	bad "index past the file size limit: $(cat err.txt)"
ls "$ci" | grep -q '\.tmp\.' && bad "index past the file size limit left $(ls "$ci")"
ls "$ci" | grep -q '\.idx$' && bad "index past the file size limit cached $(ls "$ci")"
rm -rf "$tmp/cache"

# 2. SIGTERM while the cache file is renamed into place (a preloaded
# rename() raises it): killed by it, the temporary file gone with it
cat >shim.c <<'EOF'
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int rename(const char *from, const char *to)
{
	if (getenv("T_SIG") && strstr(from, ".idx.tmp."))
		raise(atoi(getenv("T_SIG")));
	return (int)syscall(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to);
}
EOF
if ${CC:-cc} -shared -fPIC -include fcntl.h -o shim.so shim.c 2>err.txt; then
	for s in 15 1; do	# SIGTERM, SIGHUP
		T_SIG=$s LD_PRELOAD=$tmp/shim.so \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
			"$PTBROWSE" index a.pt >out.txt 2>&1
		r=$?
		[ $r = $((128 + s)) ] || bad "index at signal $s: exit $r ($(cat out.txt))"
		ls "$ci" | grep -q '\.tmp\.' && bad "index killed by signal $s left $(ls "$ci")"
	done
else
	echo "skip index killed half way: no C compiler ($(head -n 1 err.txt))"
fi
rm -rf "$tmp/cache"

# 3. savers killed half way: their files go at the next save, only those
mkdir -p "$ci" || exit 1
dead=$(sh -c 'echo $$')
kill -0 "$dead" 2>/dev/null && { echo "skip: pid $dead lives again"; exit $fail; }
for f in 0123456789abcdef-raw.idx.tmp.$dead.0 1123456789abcdef-cpu0.idx.tmp.$dead.3 \
	0123456789abcdef-raw.idx.code.tmp.$dead.1 old-raw.idx.tmp.$dead; do
	echo half >"$ci/$f"
done
for f in live-raw.idx.tmp.$$.0 notes.txt.tmp.$dead.0 x.idx.tmp.$dead.0.bak \
	x.idx.tmp.0$dead.0 x.idx.tmp.-$dead.0 x.idx.tmp.$dead.; do
	echo keep >"$ci/$f"
done
echo target >target.txt
ln -s "$tmp/target.txt" "$ci/link-raw.idx.tmp.$dead.0"
"$PTBROWSE" index a.pt >out.txt 2>err.txt || bad "index: exit $? ($(cat err.txt))"
grep -q 'index built' out.txt || bad "index did not build: $(cat out.txt)"
left=$(cd "$ci" && ls | grep '\.tmp' | sort | tr '\n' ' ')
want=$(printf '%s\n' live-raw.idx.tmp.$$.0 notes.txt.tmp.$dead.0 x.idx.tmp.$dead.0.bak \
	x.idx.tmp.0$dead.0 x.idx.tmp.-$dead.0 x.idx.tmp.$dead. link-raw.idx.tmp.$dead.0 |
	sort | tr '\n' ' ')
[ "$left" = "$want" ] || bad "after a save the cache holds '$left', not '$want'"
[ "$(cat target.txt)" = target ] || bad "a link's target was changed"

[ $fail = 0 ] && echo "ok   index cache: the file size limit, signals, dead savers' files"
exit $fail

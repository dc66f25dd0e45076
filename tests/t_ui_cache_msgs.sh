#!/bin/sh
# What the browser says about its index cache, in a real terminal:
# - a save that fails (a file where the cache directory should be, or a
#   full 64 KiB tmpfs where mount works) is said in :messages while the
#   browser runs ("index not cached"), not only at quit, whose message log
#   went with the browser; one still unsaid at quit is printed on stderr
#   after the terminal is given back;
# - a cache file that does not check out says why it is rebuilt, as
#   `ptbrowse index` does ("index cache ignored (corrupt)");
# - a cache file cut while the browser has it mapped (SIGBUS) is not blamed
#   on the trace ("the file changed while being read", which showed "what
#   is left" and lost the index): the cache is said and the index rebuilt.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
. "$(dirname "$0")/tmux_lib.sh"
mnt=
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	tm_cleanup
}
trap cleanup EXIT INT TERM

"$BUILD/tools/ptgen" --seed 7 --size 8MiB -o "$tmp/t.pt" >/dev/null || exit 1

# 1. The save fails: a file in place of $XDG_CACHE_HOME/ptbrowse.
mkdir -p "$tmp/bad"
: >"$tmp/bad/ptbrowse"
tm_start XDG_CACHE_HOME="$tmp/bad" -- "$tmp/t.pt"
keys : info Enter
i=0
until screen | grep -q 'index: 2045 PSBs, done'; do
	i=$((i + 1))
	[ $i -lt 30 ] || fail "the index did not finish"
	sleep 0.5
	keys : info Enter
done
# the idle poll (at most 2 s apart) takes in the saver's end
sleep 3
keys : info Enter
messages_have 'index not cached: cannot create directory'
keys q
wait_for 'EXITED rc=0'
# said once: not again at quit
screen | grep -q 'ptbrowse: t.pt: index not cached' &&
	fail "the failure said in :messages was printed again at quit"

# ... and with a full filesystem, where one can be mounted (root).
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/full" &&
	mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	mnt="$tmp/full"
	tm_start XDG_CACHE_HOME="$mnt" -- "$tmp/t.pt"
	sleep 3
	keys : info Enter
	wait_for 'index: 2045 PSBs, done' 20
	sleep 3
	keys : info Enter
	messages_have 'index not cached: '
	keys q
	wait_for 'EXITED rc=0'
	ls "$mnt"/ptbrowse/index/*.idx >/dev/null 2>&1 &&
		fail "a cache file on the full filesystem"
	umount "$mnt" && mnt=
	echo "(full tmpfs checked)"
fi

# 2. Unsaid at quit (quit as the index is built): on stderr, after the
# terminal is given back.
printf 'wait-index-built\nq\n' >"$tmp/quit"
env XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/bad" "$PTBROWSE" --script "$tmp/quit" --size 100x30 \
	"$tmp/t.pt" >/dev/null 2>"$tmp/err" || fail "script run"
grep -q '^ptbrowse: t.pt: index not cached: cannot create directory' "$tmp/err" ||
	{ cat "$tmp/err"; fail "a failed save at quit not said on stderr"; }

# 3. A corrupt cache file: why it is ignored.
XDG_CACHE_HOME="$tmp/cache" "$PTBROWSE" index --time "$tmp/t.pt" >/dev/null ||
	fail "ptbrowse index"
idx=$(ls "$tmp"/cache/ptbrowse/index/*.idx) || fail "no cache file"
size=$(wc -c <"$idx")
printf 'XXXXXXXX' | dd of="$idx" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
tm_start -- "$tmp/t.pt"
messages_have 'index cache ignored \(corrupt\), rebuilding it'
keys q
wait_for 'EXITED rc=0'

# 4. The cache file cut under the browser: the index is rebuilt, the
# trace is not blamed (a big index: a small one's pages are all copied
# on load, and no read faults).
"$BUILD/tools/ptgen" --seed 8 --size 64MiB -o "$tmp/big.pt" >/dev/null || exit 1
XDG_CACHE_HOME="$tmp/cache" "$PTBROWSE" index --time "$tmp/big.pt" >/dev/null ||
	fail "ptbrowse index"
tm_start -- "$tmp/big.pt"
keys : info Enter
wait_for 'index: 16353 PSBs, done'
for f in "$tmp"/cache/ptbrowse/index/*.idx; do
	[ "$f" = "$idx" ] || truncate -s 4096 "$f"
done
keys : goto Space psb Space 9000 Enter
sleep 1
messages_have 'index cache file changed while being read \(.*big.pt did not\): indexing again'
keys : messages Enter
wait_for ' [EWI] '
screen | grep -Eq 'the file changed while being read|showing what is left' &&
	fail "the trace blamed"
keys q
wait_gone ' [EWI] '
keys : info Enter
wait_for 'index: 16353 PSBs, done' 30
keys : goto Space psb Space 12000 Enter
wait_for 'psb 12000/16353'
keys q
wait_for 'EXITED rc=0'
echo "ok: a failed cache save said while running and at quit; a corrupt or cut cache said"

#!/bin/sh
# t_writers -- no command writes over the trace, a device, a FIFO or a
# directory, or leaves a half-written file, and none hangs on a FIFO where
# it reads its own files (src/safefile.h is the one way every writer goes):
# extract through a symbolic or hard link to the trace (and -o DIR made
# when missing, a file there named), a failed export
# over an existing file, marks --export with the trace as the output
# (also with the arguments swapped), :export-marks and :save-screen of the
# trace, empty names, a write that fails half way, FIFOs at the index
# cache, config and history paths, export -o - to standard output, the
# tools' -o, export, extract, :export and :save-screen over the trace's
# options or marks file, extract's stream without its options file, and
# temporary files left by signals (the browser's, pttile's, ptrecord's),
# write-protected files (export, :save-screen, marks --export).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
uniq=ptb-writers-$$
trap 'rm -rf "$tmp" "/$uniq".*' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
unset TERM
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# same A B: the two files hold the same bytes
same() { cmp -s "$1" "$2"; }

tools=$(cd "$BUILD/tools" && pwd) || exit 1
"$tools/ptgen" --seed 3 --size 64KiB -o "$tmp/orig.pt" >/dev/null || exit 1
P=${SHARED:-../shared}/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14
[ -f "$P" ] || { echo "missing $P"; exit 1; }
cd "$tmp" || exit 1

# 1. extract: an output name that resolves to the trace is refused, the
# trace is whole afterwards.
cp "$P" in.perf
mkdir out
ln -s ../in.perf out/in.perf.cpu0.pt
"$PTBROWSE" extract in.perf -o out >out.txt 2>err.txt && bad "extract through a symlink to the trace: exit 0"
same "$P" in.perf || bad "extract through a symlink truncated the trace ($(wc -c <in.perf) bytes)"
grep -q 'out/in.perf.cpu0.pt' err.txt || bad "extract symlink: message does not name the file: $(cat err.txt)"
[ "$(wc -l <err.txt)" -eq 1 ] || bad "extract symlink: not one line: $(cat err.txt)"
rm -rf out; mkdir out
cp "$P" in.perf
ln in.perf out/in.perf.cpu3.pt
"$PTBROWSE" extract in.perf -o out >out.txt 2>err.txt && bad "extract through a hard link to the trace: exit 0"
same "$P" in.perf || bad "extract through a hard link truncated the trace"
grep -q 'out/in.perf.cpu3.pt: is the trace' err.txt || bad "extract hard link: $(cat err.txt)"
# a raw trace whose own output name is (a link to) itself
rm -rf out; mkdir out
cp orig.pt r.pt
ln r.pt out/r.pt.raw.pt
"$PTBROWSE" extract r.pt -o out >out.txt 2>err.txt && bad "extract of a raw trace over itself: exit 0"
same orig.pt r.pt || bad "extract of a raw trace over itself truncated it"
# a symbolic link in the output directory to another file: never written
rm -rf out; mkdir out
cp orig.pt r.pt
echo precious >victim
ln -s ../victim out/r.pt.raw.pt
"$PTBROWSE" extract r.pt -o out >out.txt 2>err.txt && bad "extract through a symlink to another file: exit 0"
[ "$(cat victim)" = precious ] || bad "extract wrote through a symlink in the output directory"
grep -q 'symbolic link' err.txt || bad "extract symlink elsewhere: $(cat err.txt)"
# a FIFO there: refused, at once
rm -rf out; mkdir out
cp orig.pt r.pt
mkfifo out/r.pt.raw.pt
timeout 20 "$PTBROWSE" extract r.pt -o out >out.txt 2>err.txt
r=$?
[ $r = 124 ] && bad "extract to a FIFO hangs"
[ $r = 0 ] && bad "extract to a FIFO: exit 0"
grep -q 'FIFO' err.txt || bad "extract to a FIFO: $(cat err.txt)"
# and a plain extract still works, and again over its own outputs
rm -rf out; mkdir out
cp "$P" in.perf
"$PTBROWSE" extract in.perf -o out >out.txt 2>err.txt || bad "extract: exit $? ($(cat err.txt))"
"$PTBROWSE" extract in.perf -o out >out.txt 2>err.txt || bad "extract again: exit $? ($(cat err.txt))"
[ "$(wc -c <out/in.perf.cpu3.pt 2>/dev/null)" = 137728 ] || bad "extract: out/in.perf.cpu3.pt is not 137728 bytes"
ls out | grep -q '\.tmp\.' && bad "extract left temporary files: $(ls out)"
# -o DIR that does not exist is made, parents too; a file there, or under
# a file, is one line naming DIR, exit 1; a trace that cannot be opened
# leaves no directory behind
"$PTBROWSE" extract in.perf -o new/sub >out.txt 2>err.txt || bad "extract -o new/sub: $(cat err.txt)"
[ -s new/sub/in.perf.cpu3.pt ] && [ -s new/sub/in.perf.cpu3.pt.options ] ||
	bad "extract -o new/sub: $(ls -R new 2>&1)"
echo x >afile
for d in afile afile/sub; do
	"$PTBROWSE" extract in.perf -o "$d" >out.txt 2>err.txt; r=$?
	[ $r = 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "$d: not a directory\|$d: Not a directory" err.txt ||
		bad "extract -o $d: exit $r, $(cat err.txt)"
done
"$PTBROWSE" extract nothere.perf -o never >out.txt 2>err.txt && bad "extract of no trace: exit 0"
[ -e never ] && bad "extract of no trace made its -o directory"
# an empty output directory name: refused, nothing written into /
cp orig.pt "$uniq.pt"
"$PTBROWSE" extract "$uniq.pt" -o '' >out.txt 2>err.txt && bad "extract -o '': exit 0"
ls "/$uniq".* >/dev/null 2>&1 && bad "extract -o '' wrote into /"
[ -s err.txt ] || bad "extract -o '': no message"
rm -f "$uniq.pt"
[ $fail = 0 ] && ok "extract never writes through a link to the trace or elsewhere"

# 2. export: a failed export leaves the file it was to replace alone (and
# a symbolic link and its target); the range is checked first.
{ printf 'junkjunkjunkjunk'; cat orig.pt; } >j.pt
echo keep >keep.txt
"$PTBROWSE" export j.pt 0x2 0x8 -o keep.txt 2>err.txt && bad "export of junk: exit 0"
[ "$(cat keep.txt 2>/dev/null)" = keep ] || bad "a failed export removed or changed keep.txt"
ln -s keep.txt link.txt
"$PTBROWSE" export j.pt 0x2 0x8 -o link.txt 2>err.txt && bad "export of junk through a link: exit 0"
[ -L link.txt ] || bad "a failed export removed the symbolic link"
[ "$(cat keep.txt 2>/dev/null)" = keep ] || bad "a failed export through a link changed its target"
# a good export through the link replaces the target, keeps the link
"$PTBROWSE" export orig.pt 0 0x1000 -o link.txt 2>err.txt || bad "export through a link: $(cat err.txt)"
[ -L link.txt ] || bad "export replaced the symbolic link itself"
"$PTBROWSE" export orig.pt 0 0x1000 -o plain.pt 2>err.txt || bad "export: $(cat err.txt)"
same plain.pt keep.txt || bad "export through a link did not write its target"
# the trace, through a link, a FIFO, a directory, an empty name: refused
ln -s orig.pt tlink.pt
cp orig.pt o2.pt
for o in o2.pt tlink2.pt fifo.pt . ''; do
	case $o in tlink2.pt) ln -sf o2.pt tlink2.pt ;; fifo.pt) mkfifo fifo.pt ;; esac
	timeout 20 "$PTBROWSE" export o2.pt 0 0x1000 -o "$o" 2>err.txt
	r=$?
	[ $r = 124 ] && bad "export -o '$o' hangs"
	[ $r = 0 ] && bad "export -o '$o': exit 0"
	[ -s err.txt ] || bad "export -o '$o': no message"
done
same orig.pt o2.pt || bad "export over the trace changed it"
# a write that fails half way (the file size limit) leaves no half file:
# the old one stays whole, no temporary file is left
echo keep >keep2.txt
(trap '' XFSZ; ulimit -f 8; "$PTBROWSE" export orig.pt 0 0xf000 -o keep2.txt) 2>err.txt &&
	bad "export past the file size limit: exit 0"
[ "$(cat keep2.txt)" = keep ] || bad "a failed write replaced keep2.txt ($(wc -c <keep2.txt) bytes)"
grep -q 'keep2.txt: File too large' err.txt || bad "file size limit: $(cat err.txt)"
ls | grep -q '\.tmp\.' && bad "a failed export left its temporary file: $(ls)"
# killed by a signal half way (SIGXFSZ at the limit, as SIGINT or
# SIGTERM would): the temporary file goes with it, the old file stays
sh -c 'ulimit -f 8; "$0" export orig.pt 0 0xf000 -o keep2.txt' "$PTBROWSE" 2>err.txt &&
	bad "export killed by SIGXFSZ: exit 0"
[ "$(cat keep2.txt)" = keep ] || bad "a killed export replaced keep2.txt"
ls | grep -q '\.tmp\.' && bad "a killed export left its temporary file: $(ls)"
# -o - is standard output
"$PTBROWSE" export orig.pt 0 0x1000 -o - >stdout.pt 2>err.txt || bad "export -o -: exit $? ($(cat err.txt))"
same stdout.pt plain.pt || bad "export -o - differs from export -o FILE"
[ -e ./- ] && bad "export -o - wrote a file named -"
ls | grep -q '\.tmp\.' && bad "export left temporary files: $(ls)"
[ $fail = 0 ] && ok "export replaces only on success, -o - is standard output"

# 3. marks: --export never replaces the trace or a file that is not a
# marks file; empty names are refused with a message.
cp orig.pt m.pt
"$PTBROWSE" marks --export m.pt m.pt >out.txt 2>err.txt && bad "marks --export m.pt m.pt: exit 0"
same orig.pt m.pt || bad "marks --export m.pt m.pt overwrote the trace"
"$PTBROWSE" marks --export a.marks m.pt >out.txt 2>err.txt || bad "marks --export: $(cat err.txt)"
head -n 1 a.marks | grep -q '^# ptbrowse marks' || bad "marks --export wrote no marks file"
"$PTBROWSE" marks --export a.marks m.pt >out.txt 2>err.txt || bad "marks --export again: $(cat err.txt)"
"$PTBROWSE" marks --export m.pt a.marks >out.txt 2>err.txt && bad "marks --export TRACE MARKS (swapped): exit 0"
same orig.pt m.pt || bad "marks --export with swapped arguments overwrote the trace"
grep -q 'm.pt' err.txt || bad "swapped: message: $(cat err.txt)"
"$PTBROWSE" marks --export - m.pt >out.txt 2>err.txt || bad "marks --export -: $(cat err.txt)"
head -n 1 out.txt | grep -q '^# ptbrowse marks' || bad "marks --export - did not write to standard output"
for opt in --export --import; do
	"$PTBROWSE" marks $opt '' m.pt >out.txt 2>err.txt && bad "marks $opt '': exit 0"
	[ -s err.txt ] || bad "marks $opt '': no message"
done
[ $fail = 0 ] && ok "marks --export never replaces a trace"

# 4. the browser: :export-marks, :save-screen and :export of the trace
# itself (by its name and through a link) are refused.
cp orig.pt b.pt
ln -s b.pt blink.pt
cat >keys <<EOF
:mark a 0x100
:export-marks $tmp/b.pt
:save-screen $tmp/s1.txt
:save-screen $tmp/b.pt
:save-screen $tmp/blink.pt
:export 0 0x1000 $tmp/b.pt
:export-marks $tmp/blink.pt
:messages
:save-screen $tmp/s2.txt
EOF
timeout 60 "$PTBROWSE" --script keys --size 200x30 b.pt >out.txt 2>&1 || bad "browser: exit $? ($(cat out.txt))"
same orig.pt b.pt || bad "the browser overwrote its trace"
[ -L blink.pt ] || bad "the browser replaced the link to its trace"
[ "$(grep -c 'not overwriting it' s2.txt)" -ge 5 ] || bad "browser: messages: $(cat s2.txt)"
[ $fail = 0 ] && ok ":export-marks, :save-screen and :export never write over the trace"

# 5. FIFOs where ptbrowse reads its own files: no hang.
cp orig.pt f.pt
printf 'wait-index\n:\ng o t o Space 1 0 %% Enter\n:save-screen %s\n:messages\n:save-screen %s\n' \
	"$tmp/f1.txt" "$tmp/f2.txt" >fkeys
timeout 60 "$PTBROWSE" --script fkeys --size 100x10 f.pt >out.txt 2>&1 || bad "browser: exit $?"
cache=$(find "$XDG_CACHE_HOME" -type f | head -n 1)
[ -n "$cache" ] || bad "no index cache file was saved"
for what in cache config history; do
	case $what in
	cache) f=$cache ;;
	config) f=$XDG_CONFIG_HOME/ptbrowse/config ;;
	history) f=$XDG_STATE_HOME/ptbrowse/history ;;
	esac
	mkdir -p "$(dirname "$f")"
	rm -f "$f"
	mkfifo "$f"
	timeout 60 "$PTBROWSE" --script fkeys --size 100x10 f.pt >out.txt 2>&1
	r=$?
	[ $r = 124 ] && bad "a FIFO at the $what path hangs the browser"
	[ $r = 0 ] || [ $r = 124 ] || bad "a FIFO at the $what path: exit $r ($(cat out.txt))"
	if [ $what = cache ]; then
		timeout 60 "$PTBROWSE" index f.pt >out.txt 2>&1
		r=$?
		[ $r = 124 ] && bad "a FIFO at the index cache path hangs ptbrowse index"
	fi
	[ -p "$f" ] || bad "the FIFO at the $what path was replaced"
	case $what in
	config) grep -q "config: not a regular file (not read)" f2.txt ||
		bad "a FIFO at the config path is not said: $(cat f2.txt)" ;;
	history) grep -q "history not read: .*history: not a regular file" f2.txt ||
		bad "a FIFO at the history path is not said: $(cat f2.txt)" ;;
	esac
	rm -f "$f"
done
[ $fail = 0 ] && ok "a FIFO at the cache, config or history path does not hang"

# 6. the tools: -o never names an input; - is standard output
cp orig.pt g.pt
"$tools/pt2perf" g.pt -o g.pt 2>err.txt && bad "pt2perf -o INPUT: exit 0"
grep -q 'g.pt: is an input' err.txt || bad "pt2perf -o INPUT: $(cat err.txt)"
same orig.pt g.pt || bad "pt2perf overwrote its input"
"$tools/ptgen" --seed 3 --size 64KiB -o - >g2.pt || bad "ptgen -o -: exit $?"
same orig.pt g2.pt || bad "ptgen -o - differs from ptgen -o FILE"
ls | grep -q '\.tmp\.' && bad "temporary files left: $(ls)"
[ $fail = 0 ] && ok "pt2perf never writes over its input, ptgen -o - is standard output"

# 7. nor over a file the command read: the trace's options file (a
# binary slice there and the trace no longer opens) and its marks file,
# by export, extract (a hard link at its output), :export, :save-screen.
cp orig.pt in.pt
cp orig.pt.options in.pt.options
cp in.pt.options opts.bak
"$PTBROWSE" export in.pt 0 0x1000 -o in.pt.options 2>err.txt && bad "export -o TRACE.options: exit 0"
same opts.bak in.pt.options || bad "export -o TRACE.options replaced it"
grep -q "in.pt.options: is the trace's options file" err.txt || bad "export -o TRACE.options: $(cat err.txt)"
"$PTBROWSE" info in.pt >/dev/null 2>err.txt || bad "the trace no longer opens: $(cat err.txt)"
ln -s in.pt.options olink
"$PTBROWSE" export in.pt 0 0x1000 -o olink 2>err.txt && bad "export through a link to TRACE.options: exit 0"
same opts.bak in.pt.options || bad "export through a link replaced TRACE.options"
printf ':mark a 0x100\n' >mkeys
timeout 60 "$PTBROWSE" --script mkeys --size 100x10 in.pt >out.txt 2>&1 || bad "browser: exit $?"
mf=$("$PTBROWSE" marks --json in.pt | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
[ -s "$mf" ] || bad "no marks file: '$mf'"
cp "$mf" marks.bak
"$PTBROWSE" export in.pt 0 0x1000 -o "$mf" 2>err.txt && bad "export -o MARKSFILE: exit 0"
same marks.bak "$mf" || bad "export -o MARKSFILE replaced it"
grep -q "is the trace's marks file" err.txt || bad "export -o MARKSFILE: $(cat err.txt)"
rm -rf out; mkdir out
ln in.pt.options out/in.pt.raw.pt
"$PTBROWSE" extract in.pt -o out >out.txt 2>err.txt && bad "extract over a hard link to TRACE.options: exit 0"
same opts.bak in.pt.options || bad "extract replaced TRACE.options"
cat >keys <<EOF
:export 0 0x1000 $tmp/in.pt.options
:export 0 0x1000 $mf
:save-screen $tmp/in.pt.options
:save-screen $mf
:messages
:save-screen $tmp/s3.txt
EOF
timeout 60 "$PTBROWSE" --script keys --size 200x30 in.pt >out.txt 2>&1 || bad "browser: exit $? ($(cat out.txt))"
same opts.bak in.pt.options || bad ":export or :save-screen replaced TRACE.options"
same marks.bak "$mf" || bad ":export or :save-screen replaced the marks file"
[ "$(grep -c "is the trace's \(options\|marks\) file; not overwriting it" s3.txt)" = 4 ] ||
	bad "browser: messages: $(cat s3.txt)"
[ $fail = 0 ] && ok "export, extract, :export and :save-screen never write over the options or marks file"

# 8. extract replaces a stream and its options file together: one that
# cannot be written (a directory in its place) leaves the old stream.
rm -rf out; mkdir out
cp orig.pt e.pt
echo oldstream >out/e.pt.raw.pt
mkdir out/e.pt.raw.pt.options
"$PTBROWSE" extract e.pt -o out >out.txt 2>err.txt && bad "extract with a directory at its options file: exit 0"
[ "$(cat out/e.pt.raw.pt)" = oldstream ] || bad "extract replaced the stream but not its options file"
grep -q 'e.pt.raw.pt.options: is a directory' err.txt || bad "extract options directory: $(cat err.txt)"
ls out | grep -q '\.tmp\.' && bad "extract left temporary files: $(ls out)"
[ $fail = 0 ] && ok "extract replaces a stream only with its options file"

# 9. signals leave no temporary file: the browser killed while its
# :export is being written (a preloaded fsync() raises SIGTERM or SIGHUP
# there), a :export past the file size limit (an error, the browser
# lives on), pttile killed by SIGXFSZ, and ptrecord with more files being
# written than the handler once held (8: --cpus 6 writes 15).
cat >shim.c <<'EOF'
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The test's signal at the fsync() of a file bigger than 32 KiB. */
int fsync(int fd)
{
	const char *sig = getenv("T_WRITERS_SIGNAL");
	struct stat st;

	if (sig && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 32768)
		raise(atoi(sig));
	return (int)syscall(SYS_fsync, fd);
}
EOF
if ${CC:-cc} -shared -fPIC -o shim.so shim.c 2>err.txt; then
	rm -rf sig; mkdir sig
	printf ':export 0 $ %s\n' "$tmp/sig/slice.pt" >skeys
	for s in 15 1; do	# SIGTERM, SIGHUP
		# (an ASan build would refuse a library preloaded before it)
		T_WRITERS_SIGNAL=$s LD_PRELOAD=$tmp/shim.so \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 timeout 60 \
			"$PTBROWSE" --script skeys --size 100x10 orig.pt >out.txt 2>&1
		r=$?
		[ $r = $((128 + s)) ] || bad "the browser at signal $s: exit $r ($(cat out.txt))"
		ls sig | grep -q '\.tmp\.' && bad "the browser killed by signal $s left its :export's temporary file: $(ls sig)"
		rm -f sig/*
	done
else
	echo "skip the browser killed half way: no C compiler ($(head -n 1 err.txt))"
fi
printf ':export 0 $ %s\n:messages\n:save-screen %s\n' "$tmp/sig/big.pt" "$tmp/s4.txt" >xkeys
sh -c 'ulimit -f 64; "$0" --script xkeys --size 200x30 orig.pt' "$PTBROWSE" >out.txt 2>&1 ||
	bad "the browser past the file size limit: exit $? ($(cat out.txt))"
grep -q 'big.pt: File too large' s4.txt || bad ":export past the file size limit: $(cat s4.txt)"
{ [ -e sig/big.pt ] || ls sig | grep -q '\.tmp\.'; } && bad ":export past the file size limit left $(ls sig)"
rm -rf sig; mkdir sig
sh -c 'ulimit -f 64; "$0" --tiles 100 -o sig/tiles.pt orig.pt' "$tools/pttile" >out.txt 2>&1 &&
	bad "pttile past the file size limit: exit 0"
ls sig | grep -q '\.tmp\.' && bad "pttile killed by SIGXFSZ left its temporary file: $(ls sig)"
if [ -x "$BUILD/progs/p_threads" ]; then
	progs=$(cd "$BUILD/progs" && pwd)
	rm -rf sig; mkdir sig
	sh -c 'ulimit -f 256; "$0" -q --cpus 6 -o sig/t.pt "$1"' "$tools/ptrecord" "$progs/p_threads" >out.txt 2>&1 &&
		bad "ptrecord past the file size limit: exit 0"
	ls sig | grep -q '\.tmp\.' && bad "ptrecord killed by SIGXFSZ left temporary files: $(ls sig)"
fi
[ $fail = 0 ] && ok "signals and the file size limit leave no temporary file"

# 10. a write-protected file is not replaced (the shell's > would refuse
# it), even by root (no write bit at all): export -o, :save-screen, marks
# --export; a file we may write still is
echo keep >ro.pt; chmod 0444 ro.pt
echo keep >ro.txt; chmod 0444 ro.txt
"$PTBROWSE" export orig.pt 0 0x1000 -o ro.pt 2>err.txt && bad "export over a 0444 file: exit 0"
[ "$(cat ro.pt)" = keep ] || bad "export replaced a write-protected file"
[ "$(cat err.txt)" = "ptbrowse export: ro.pt: write-protected; not replacing it" ] ||
	bad "export over a 0444 file: $(cat err.txt)"
printf ':save-screen %s\n:messages\n:save-screen %s\n' "$tmp/ro.txt" "$tmp/s5.txt" >rkeys
timeout 60 "$PTBROWSE" --script rkeys --size 200x30 orig.pt >out.txt 2>&1 ||
	bad "browser: exit $? ($(cat out.txt))"
[ "$(cat ro.txt)" = keep ] || bad ":save-screen replaced a write-protected file"
grep -q 'ro.txt: write-protected; not replacing it' s5.txt || bad ":save-screen over a 0444 file: $(cat s5.txt)"
"$PTBROWSE" marks --export ro.marks orig.pt 2>err.txt || bad "marks --export: $(cat err.txt)"
chmod 0444 ro.marks
"$PTBROWSE" marks --export ro.marks orig.pt 2>err.txt && bad "marks --export over a 0444 file: exit 0"
grep -q 'ro.marks: write-protected; not replacing it' err.txt || bad "marks --export over a 0444 file: $(cat err.txt)"
chmod 0644 ro.pt
"$PTBROWSE" export orig.pt 0 0x1000 -o ro.pt 2>err.txt || bad "export over a 0644 file: $(cat err.txt)"
ls | grep -q '\.tmp\.' && bad "a refused write left a temporary file: $(ls)"
[ $fail = 0 ] && ok "a write-protected file is never replaced"

exit $fail

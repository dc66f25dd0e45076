#!/bin/sh
# dump, flow, calls and index with --tid on a perf.data whose sideband perf
# compressed (perf record -z: PERF_RECORD_COMPRESSED, not read) say so in
# one line naming the file, not an empty answer alone (dump printed
# nothing, flow blamed the missing code); without --tid they say nothing
# of it; dump keeping nothing says so, as flow and calls do; records perf
# lost (PERF_RECORD_LOST) are said too.  The
# recording of tests/progs/p_sample (tools/record.sh) with its COMM, FORK,
# EXIT, MMAP2, ITRACE_START and switch records retyped COMPRESSED.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
command -v python3 >/dev/null || { echo "skip t_restrict_doubt: no python3"; exit 0; }
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
z=$tmp/z.data
lost=$tmp/lost.data
python3 - "$perf" "$z" "$lost" <<'PY' || exit 1
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
assert b[:8] == b'PERFILE2'
if struct.unpack_from('<Q', b, 8)[0] == 16:	# pipe mode: records to the end
    off, end = 16, len(b)
else:
    off, size = struct.unpack_from('<QQ', b, 40)
    end = off + size
n = 0
while off + 8 <= end:
    t, m, s = struct.unpack_from('<IHH', b, off)
    if s < 8:
        break
    if t in (3, 4, 7, 10, 12, 14, 15):
        struct.pack_into('<I', b, off, 81)
        n += 1
    off += s + (struct.unpack_from('<Q', b, off + 8)[0] if t == 71 else 0)
assert n > 10, n
open(sys.argv[2], 'wb').write(b)
# the file again with a LOST record of 5 records at its end
b = bytearray(open(sys.argv[1], 'rb').read())
b += struct.pack('<IHHQQ', 2, 0, 24, 0, 5)
open(sys.argv[3], 'wb').write(b)
PY
# a thread switched in on cpu0
tid=$(awk '$1 == "switch" && $2 == 0 && $4 == "in" { print $6; exit }' \
	"$tmp/rec/trace.sideband")
[ -n "$tid" ] || { echo "FAIL no switch in on cpu0 in the sideband"; exit 1; }

check() {	# NAME CMD...: one line of the compressed sideband, naming $z
	name=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	n=$(grep -c "compressed" "$tmp/err")
	[ "$n" = 1 ] || bad "$name: $n lines of the compressed sideband: $(cat "$tmp/err")"
	grep "compressed" "$tmp/err" | grep -qF "$z: its sideband is compressed (perf record -z" ||
		bad "$name: not the file's line: $(cat "$tmp/err")"
	grep -q -- "--pid, --tid and --comm cannot work" "$tmp/err" ||
		bad "$name: not why: $(cat "$tmp/err")"
}
check "dump --tid" "$PTBROWSE" dump --tid "$tid" --stream cpu0 "$z"
grep -q "nothing in stream 'cpu0' ran as the task asked for" "$tmp/err" ||
	bad "dump keeping nothing does not say so: $(cat "$tmp/err")"
check "flow --tid" "$PTBROWSE" flow --tid "$tid" --stream cpu0 "$z"
check "calls --comm" "$PTBROWSE" calls --comm p_sample --stream cpu0 "$z"
check "index --tid" "$PTBROWSE" index --no-cache --tid "$tid" --stream cpu0 "$z"
# without a thread filter nothing is said of it
"$PTBROWSE" dump --stream cpu0 "$z" >/dev/null 2>"$tmp/err"
grep -q compressed "$tmp/err" && bad "dump without --tid: $(cat "$tmp/err")"
# the sideband read: nothing said either, and the thread's packets kept
"$PTBROWSE" dump --tid "$tid" --stream cpu0 "$perf" >"$tmp/out" 2>"$tmp/err"
grep -q compressed "$tmp/err" && bad "dump of the plain file: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || bad "dump --tid $tid of the plain file kept nothing"
"$PTBROWSE" dump --tid 999999 --stream cpu0 "$perf" >"$tmp/out" 2>"$tmp/err"
grep -q "nothing in stream 'cpu0' ran as the task asked for" "$tmp/err" ||
	bad "dump --tid 999999: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && bad "dump --tid 999999 printed packets"
# records perf lost: said, the threads read still kept
"$PTBROWSE" flow --tid "$tid" --stream cpu0 "$lost" >"$tmp/out" 2>"$tmp/err"
grep -qF "$lost: 5 sideband records lost (perf's buffer was full): thread attribution may be wrong" \
	"$tmp/err" || bad "flow --tid of the file with lost records: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || bad "flow --tid $tid of the file with lost records kept nothing"
[ $fail = 0 ] && echo "ok thread filters on a compressed sideband say so"
exit $fail

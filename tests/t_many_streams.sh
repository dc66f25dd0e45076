#!/bin/sh
# A perf.data file of 100,000 AUX buffers (one 18-byte PSB+ each, all on
# CPU 0): info, dump, index --stream and the browser answer with the right
# stream (names cpu0, cpu0.1, ... cpu0.99999).  Linear work takes a fraction
# of a second; the stream-name de-duplication (pairwise: 19 s in info and
# dump) and index's per-stream lookup of --stream (81 s) were quadratic.
# `timeout 20` is generous for linear work on a loaded machine and fails
# the quadratic code; the assertions are on the results.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
command -v python3 >/dev/null || { echo "skip t_many_streams: no python3"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
fail=0
bad() { echo "FAIL $*"; fail=1; }

python3 - "$tmp/many.perf" <<'PY' || exit 1
import struct, sys
f = open(sys.argv[1], 'wb')
f.write(b'PERFILE2' + struct.pack('<Q', 16))
attr = struct.pack('<IIQQQQQ', 8, 128, 0x401, 0, 0x10086, 0, 1 << 18)
attr += b'\0' * (128 - len(attr)) + struct.pack('<Q', 1)
f.write(struct.pack('<IHH', 64, 0, 8 + len(attr)) + attr)
priv = [8, 10, 600, 0, 1, 0x400, 0x800, 0, 0, 1, 0x200, 0xf << 14, 100, 2, 2, 12, 0]
info = struct.pack('<II', 1, 0) + b''.join(struct.pack('<Q', v) for v in priv)
f.write(struct.pack('<IHH', 70, 0, 8 + len(info)) + info)
pt = b'\x02\x82' * 8 + b'\x02\x23'
for i in range(100000):
    f.write(struct.pack('<IHHQQQIIII', 71, 0, 48, len(pt), 0, 0, i, 77, 0, 0) + pt)
PY

timeout 20 "$PTBROWSE" info "$tmp/many.perf" >"$tmp/info" 2>"$tmp/err" ||
	bad "info: exit $? $(cat "$tmp/err")"
[ "$(grep -c '^[0-9]' "$tmp/info")" = 100000 ] || bad "info: not 100000 streams"
grep -q '^99999  cpu0.99999 ' "$tmp/info" || bad "info: no stream cpu0.99999"
[ "$(awk '/^[0-9]/ { print $2 }' "$tmp/info" | sort -u | wc -l)" = 100000 ] ||
	bad "info: stream names not unique"
timeout 20 "$PTBROWSE" dump --stream cpu0.54321 "$tmp/many.perf" >"$tmp/dump" 2>"$tmp/err" ||
	bad "dump: exit $? $(cat "$tmp/err")"
[ "$(cat "$tmp/dump")" = "0000000000000000  psb
0000000000000010  psbend" ] || bad "dump: $(cat "$tmp/dump")"
timeout 20 "$PTBROWSE" index --no-cache --stream cpu0.99999 "$tmp/many.perf" \
	>"$tmp/index" 2>"$tmp/err" || bad "index: exit $? $(cat "$tmp/err")"
grep -q '^stream:   cpu0.99999 (18 bytes, index off)$' "$tmp/index" ||
	bad "index: $(cat "$tmp/index")"
printf ':save-screen %s\nq\n' "$tmp/screen.txt" >"$tmp/keys"
timeout 20 "$PTBROWSE" --no-state --script "$tmp/keys" --size 100x8 \
	--stream cpu0.99999 "$tmp/many.perf" >/dev/null 2>&1 || bad "browser: exit $?"
head -n 1 "$tmp/screen.txt" | grep -q '^ ptbrowse many.perf:cpu0.99999 18B' ||
	bad "browser: $(head -n 1 "$tmp/screen.txt")"
[ $fail = 0 ] && echo "ok   t_many_streams"
exit $fail

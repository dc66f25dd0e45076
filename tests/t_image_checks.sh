#!/bin/sh
# What a mapping's file is checked against before its code is read.
#  - A recording with no build ID (MMAP2 with the file's device and inode
#    instead): the file at the recorded path is used, and said once to be
#    used unchecked -- unless the recording was made on this host (its
#    HEADER_HOSTNAME and HEADER_OSRELEASE are this machine's), where an
#    inode other than the recorded one means the file was replaced: said,
#    and its code not read.
#  - --elf FILE:BASE over a recorded mapping whose file is not found:
#    another build ID than the recorded one is said, and the message about
#    the missing file says the code there is the --elf file's (not that the
#    instructions are unknown).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
. tests/rec_lib.sh
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
pt2perf=$BUILD/tools/pt2perf
prog=$(cd "$BUILD/progs" && pwd)/p_sample
sb=$tmp/rec/trace.sideband
grep -q "^mmap2 .* $prog\$" "$sb" || { echo "FAIL no mmap2 of $prog"; exit 1; }
cp "$prog" "$tmp/app"
ino=$(ls -i "$tmp/app" | awk '{print $1}')

# mk NAME INODE BUILDID PATH: the sample with p_sample's mappings recorded
# as PATH, with INODE and BUILDID ("-": none).
mk() {
	awk -v p="$prog" -v ino="$2" -v bid="$3" -v path="$4" '
		$1 == "mmap2" && $NF == p { $10 = ino; $13 = bid; $14 = path }
		{ print }' "$sb" >"$tmp/$1.sb"
	"$pt2perf" --mtc-freq 0 --time-shift 20 --time-mult 873813 \
		--sideband "$tmp/$1.sb" --cpu 0 "$tmp/rec/trace.cpu0" \
		--cpu 1 "$tmp/rec/trace.cpu1" -o "$tmp/$1.data" ||
		{ echo "FAIL pt2perf $1"; exit 1; }
}

# here NAME: append HEADER_FEATURE records naming this host and kernel
# (perf writes them in pipe mode as HEADER_FEATURE records too).
here() {
	python3 - "$tmp/$1.data" <<'EOF'
import os, struct, sys
u = os.uname()
with open(sys.argv[1], 'ab') as f:
    for feat, s in ((3, u.nodename), (4, u.release)):
        b = s.encode() + b'\0'
        b += b'\0' * (-len(b) % 64)
        body = struct.pack('<QI', feat, len(b)) + b
        body += b'\0' * (-(8 + len(body)) % 8)
        f.write(struct.pack('<IHH', 80, 0, 8 + len(body)) + body)
EOF
}

# run NAME [OPTIONS...]: flow on cpu0 to $tmp/NAME.out, .err, and cpu1's
# rows after cpu0's (whichever CPU ran main).
run() {
	n=$1
	shift
	"$PTBROWSE" flow "$@" --stream cpu0 "$tmp/$n.data" >"$tmp/$n.out" 2>"$tmp/$n.err" ||
		bad "$n: flow failed: $(head -c 300 "$tmp/$n.err")"
	"$PTBROWSE" flow "$@" --stream cpu1 "$tmp/$n.data" >>"$tmp/$n.out" 2>/dev/null
}

# 1. No build ID, no host in the header: used, said once to be unchecked.
mk nohost "$ino" - "$tmp/app"
run nohost
n=$(grep -c "no build ID recorded for $tmp/app: used unchecked" "$tmp/nohost.err")
[ "$n" = 1 ] && echo "ok   no build ID: used, said unchecked once" ||
	bad "no build ID: said $n times: $(cat "$tmp/nohost.err")"
grep -q 'main+0x0' "$tmp/nohost.out" || bad "no build ID: no names from the file"

# 2. Recorded here, the same inode: used without a word.
mk same "$ino" - "$tmp/app"
here same
run same
grep -q "$tmp/app" "$tmp/same.err" && bad "same inode: $(cat "$tmp/same.err")" ||
	echo "ok   same host, same inode: used, nothing said"
grep -q 'main+0x0' "$tmp/same.out" || bad "same inode: no names from the file"

# 3. Recorded here, another inode: the file was replaced: said, not used.
mk changed $((ino + 1)) - "$tmp/app"
here changed
run changed
grep -q "no code for $tmp/app: its instructions are unknown ($tmp/app: changed since the recording (inode $ino, the recording's $((ino + 1)))" \
	"$tmp/changed.err" && echo "ok   replaced file: said" ||
	bad "replaced file not said: $(cat "$tmp/changed.err")"
grep -q 'main+0x' "$tmp/changed.out" && bad "replaced file: its names shown"
grep -q 'used unchecked' "$tmp/changed.err" && bad "replaced file: also said unchecked"
#    ... the same recording with --elf FILE:BASE: the user's file is read
base=$(awk -v p="$prog" '$1 == "mmap2" && $NF == p { print $5, $7; exit }' "$sb")
base=$(printf '%#x' $((${base% *} - ${base#* })))
run changed --elf "$tmp/app:$base"
grep -q 'main+0x0' "$tmp/changed.out" && echo "ok   replaced file, --elf: read" ||
	bad "replaced file with --elf: not read"

# 4. --elf FILE:BASE where the recorded file is missing: the message says
#    the code is the --elf file's; another build ID is said.
bid=$(awk -v p="$prog" '$1 == "mmap2" && $NF == p { print $13; exit }' "$sb")
mk gone "$ino" "$bid" /nonexistent/p_sample
run gone --elf "$tmp/app:$base"
grep -q "no file read for /nonexistent/p_sample (build ID $bid) (not found): the code at 0x[0-9a-f]* is --elf $tmp/app's" \
	"$tmp/gone.err" && echo "ok   missing file, --elf: the message names the --elf" ||
	bad "missing file, --elf: $(cat "$tmp/gone.err")"
grep -q 'instructions are unknown' "$tmp/gone.err" && bad "missing file, --elf: said unknown"
grep -q 'expected' "$tmp/gone.err" && bad "the same build ID said to differ"
python3 - "$tmp/app" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.find(b'GNU\0', 0)
while i >= 0 and int.from_bytes(b[i - 4:i], 'little') != 3:
    i = b.find(b'GNU\0', i + 1)
b[i + 4] ^= 0xff
open(sys.argv[1] + '.other', 'wb').write(b)
EOF
run gone --elf "$tmp/app.other:$base"
grep -q "^ptbrowse flow: --elf $tmp/app.other: build ID [0-9a-f]*, expected $bid (recorded for /nonexistent/p_sample): its code is read there, and may not be what ran\$" \
	"$tmp/gone.err" && echo "ok   --elf with another build ID: said" ||
	bad "--elf with another build ID not said: $(cat "$tmp/gone.err")"

# 5. Damaged ELF files given with --elf.
python3 - "$tmp/app" <<'EOF'
import struct, sys
g = open(sys.argv[1], 'rb').read()
def w(name, b): open(sys.argv[1] + '.' + name, 'wb').write(bytes(b))
def patched(off, fmt, val):
    b = bytearray(g); struct.pack_into(fmt, b, off, val); return b
phoff, shoff = struct.unpack_from('<Q', g, 0x20)[0], struct.unpack_from('<Q', g, 0x28)[0]
w('cut', g[:phoff + 40])
w('xnum', patched(0x38, '<H', 0xffff))
b = patched(0x38, '<H', 0xffff); struct.pack_into('<I', b, shoff + 0x2c, 0xffffffff)
w('xnumbig', b)
shnum = struct.unpack_from('<H', g, 0x3c)[0]
for i in range(shnum):
    if struct.unpack_from('<I', g, shoff + 64 * i + 4)[0] == 2:	# SHT_SYMTAB
        w('symtab', patched(shoff + 64 * i + 0x38, '<Q', 0))
w('shdrs', g[:shoff + 64])
EOF
elf() {
	"$PTBROWSE" flow --elf "$tmp/app.$1:$base" --stream cpu0 "$tmp/gone.data" >"$tmp/$1.out" 2>"$tmp/$1.err"
	echo $? >"$tmp/$1.rc"
	"$PTBROWSE" flow --elf "$tmp/app.$1:$base" --stream cpu1 "$tmp/gone.data" >>"$tmp/$1.out" 2>/dev/null
}
for c in "cut:truncated ELF: offset 0x40: [0-9]* program headers run past the end of the file" \
	 "xnum:offset 0x38: e_phnum is PN_XNUM, but section header 0 gives 0 program headers" \
	 "xnumbig:truncated ELF: offset 0x40: 4294967295 program headers run past the end of the file"; do
	f=${c%%:*}
	elf "$f"
	if [ "$(cat "$tmp/$f.rc")" != 0 ] && [ "$(wc -l <"$tmp/$f.err")" = 1 ] &&
	   grep -q "^ptbrowse flow: $tmp/app.$f: ${c#*:}" "$tmp/$f.err"; then
		echo "ok   --elf $f: one line naming the file and the offset"
	else
		bad "--elf $f: $(cat "$tmp/$f.err")"
	fi
done
elf symtab
n=$(grep -c "^ptbrowse flow: $tmp/app.symtab: symbol table unreadable (.symtab at offset 0x[0-9a-f]*: entry size 0): only .dynsym's names are shown\$" "$tmp/symtab.err")
[ "$n" = 1 ] && echo "ok   damaged .symtab: said once" || bad "damaged .symtab: said $n times: $(cat "$tmp/symtab.err")"
grep -q '@plt' "$tmp/symtab.out" || bad "damaged .symtab: no PLT names"
grep -q 'main+' "$tmp/symtab.out" && bad "damaged .symtab: a .symtab name shown"
elf shdrs
grep -q "^ptbrowse flow: $tmp/app.shdrs: symbol table unreadable (section headers at offset 0x[0-9a-f]*: [0-9]* of them run past the end of the file, [0-9]* bytes): its code is shown without names\$" \
	"$tmp/shdrs.err" && echo "ok   section headers cut off: said" ||
	bad "section headers cut off: $(cat "$tmp/shdrs.err")"
exit $fail

#!/bin/sh
# `ptbrowse flow` on a perf.data of a real program (tools/ptrecord, then
# tools/pt2perf with its MMAP2/COMM/switch sideband), with no --raw: the
# code comes from the files the MMAP2 records name -- at their recorded
# path, under --sysroot, and in a build-ID cache laid out as perf lays it
# out (new and old layout) -- and the flow equals the recorder's own log on
# both CPUs; the functions are named as nm names them; a file not found or
# with another build ID is said once, and its code is not guessed; two
# processes with the same code at the same addresses are kept apart; the
# vDSO comes from the build-ID cache ptrecord keeps, or its rows say it
# is missing.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
rec=$BUILD/tools/ptrecord
pt2perf=$BUILD/tools/pt2perf
progs=$BUILD/progs
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }
for f in "$rec" "$pt2perf" "$progs/p_threads" "$progs/libptbdemo.so"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "FAIL $f is missing"; exit 1; }
done
LD_BIND_NOW=1
export LD_BIND_NOW
prog=$(cd "$progs" && pwd)/p_threads
lib=$(cd "$progs" && pwd)/libptbdemo.so

"$rec" -q --cpus 2 --quantum 1500 -o "$tmp/thr.pt" "$prog" >/dev/null 2>"$tmp/rec.err" ||
	{ echo "FAIL ptrecord: $(cat "$tmp/rec.err")"; exit 1; }
sb=$tmp/thr.pt.sideband
grep -q "^mmap2 .* $prog\$" "$sb" || { echo "FAIL no mmap2 of $prog in the sideband"; exit 1; }
"$pt2perf" --sideband "$sb" --cpu 0 "$tmp/thr.pt.cpu0" --cpu 1 "$tmp/thr.pt.cpu1" \
	-o "$tmp/thr.perf" || { echo "FAIL pt2perf"; exit 1; }

# flow PERF NAME [OPTIONS...]: both CPUs, --insn-only, against the log.
same_as_log() {
	perf=$1 name=$2
	shift 2
	for c in 0 1; do
		"$PTBROWSE" flow "$@" --insn-only --stream cpu$c "$perf" >"$tmp/out" 2>"$tmp/err"
		grep -v '^\[' "$tmp/out" >"$tmp/ips"
		awk '{print $1}' "$tmp/thr.pt.cpu$c.flow" >"$tmp/log"
		if cmp -s "$tmp/ips" "$tmp/log"; then
			echo "ok   $name cpu$c: $(wc -l <"$tmp/log") instructions, exactly the recorder's log"
		else
			bad "$name cpu$c: the flow differs from the recorder's log: $(grep error "$tmp/out" | head -2) $(head -c 300 "$tmp/err")"
		fi
	done
}

# 1. The files at their recorded paths.
same_as_log "$tmp/thr.perf" "recorded paths"
# the timing options override the file's (here with its own values): the
# sideband is still matched at the right places
same_as_log "$tmp/thr.perf" "timing options" --cpu 6/78/3 --mtc-freq 3 --nom-freq 12 \
	--cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 --tsc-freq 1.2GHz
"$PTBROWSE" flow --stream cpu0 "$tmp/thr.perf" >"$tmp/full" 2>"$tmp/err"
# (the vDSO has no file: said so, and the trace never runs it here)
grep 'no code for' "$tmp/err" | grep -qv 'no code for \[vdso\] (build ID [0-9a-f]*): .*(the vDSO has no file; the build-ID cache (--buildid-dir) has no copy of it)' &&
	bad "recorded paths: $(grep 'no code' "$tmp/err" | head -2)"

# Function names as nm gives them: name+0xoff at IP means nm's address of
# name (plus the load base) is IP - off.
base=$(awk -v p="$prog" '$1 == "mmap2" && $NF == p { print $5; exit }' "$sb")
pgoff=$(awk -v p="$prog" '$1 == "mmap2" && $NF == p { print $7; exit }' "$sb")
nm --defined-only "$prog" | awk '$2 ~ /^[Tt]$/ { print $3, $1 }' | sort >"$tmp/nm"
awk '$2 ~ /\+0x/ { split($2, a, "+"); print a[1], $1, a[2] }' "$tmp/full" |
	sort -u >"$tmp/named"
n=0 wrong=0
plen=$(awk -v p="$prog" '$1 == "mmap2" && $NF == p { print $6; exit }' "$sb")
while read -r name ip off; do
	want=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/nm")
	[ -n "$want" ] || continue
	# only the program's own mapping (the library has names alike)
	[ $(( 0x$ip )) -ge $(( base )) ] && [ $(( 0x$ip )) -lt $(( base + plen )) ] || continue
	# the program is mapped so that vaddr = start - pgoff + file offset
	# (its segments keep offset = vaddr here): IP - off = start - pgoff + nm
	got=$(( 0x$ip - off ))
	exp=$(( base - pgoff + 0x$want ))
	n=$((n + 1))
	[ "$got" -eq "$exp" ] || { wrong=$((wrong + 1)); echo "  $name at $ip$off: not nm's $want"; }
done <"$tmp/named"
if [ "$n" -gt 0 ] && [ "$wrong" -eq 0 ]; then
	echo "ok   $n named instruction sites of p_threads agree with nm"
else
	bad "function names: $n checked, $wrong differ from nm"
fi
grep -q ' demo_sort+0x' "$tmp/full" || bad "no demo_sort+0x.. line: the shared library's functions are not named"

# 2. The files elsewhere: the recording names /gone/..., which is not there.
sed "s#$(dirname "$prog")/#/gone/progs/#g" "$sb" >"$tmp/gone.sideband"
"$pt2perf" --sideband "$tmp/gone.sideband" --cpu 0 "$tmp/thr.pt.cpu0" --cpu 1 \
	"$tmp/thr.pt.cpu1" -o "$tmp/gone.perf" || { echo "FAIL pt2perf (gone)"; exit 1; }
HOME=$tmp/emptyhome PERF_BUILDID_DIR= "$PTBROWSE" flow --stream cpu0 "$tmp/gone.perf" >"$tmp/out" 2>"$tmp/err"
bid=$(awk '$1 == "mmap2" && $NF ~ /p_threads$/ { print $(NF-1); exit }' "$tmp/gone.sideband")
if grep -q "no code for /gone/progs/p_threads (build ID $bid): its instructions are unknown" "$tmp/err" &&
   [ "$(grep -c 'no code for /gone/progs/p_threads' "$tmp/err")" -eq 1 ]; then
	echo "ok   a missing program is said once, with its build ID"
else
	bad "missing program: $(head -c 400 "$tmp/err")"
fi
grep -q 'error: no memory mapped' "$tmp/out" || bad "missing program: its code was not missing"
grep -q '^[0-9a-f]\{16\}  main+' "$tmp/out" && bad "missing program: main named without its file"

# --sysroot
mkdir -p "$tmp/root/gone/progs"
cp "$prog" "$lib" "$tmp/root/gone/progs/"
same_as_log "$tmp/gone.perf" "--sysroot" --sysroot "$tmp/root"

# Another file under --sysroot with the program's name: refused by build ID.
cp "$progs/p_loops" "$tmp/root/gone/progs/p_threads"
HOME=$tmp/emptyhome "$PTBROWSE" flow --stream cpu0 --sysroot "$tmp/root" "$tmp/gone.perf" \
	>"$tmp/out" 2>"$tmp/err"
if grep -q "no code for /gone/progs/p_threads (build ID $bid): its instructions are unknown (.*build ID .*expected $bid" "$tmp/err"; then
	echo "ok   a file of another build ID is refused, and said so"
else
	bad "wrong build ID: $(head -c 400 "$tmp/err")"
fi

# The build-ID cache, as perf lays it out: .build-id/XX/REST is a link to
# ../../PATH/BUILDID, a directory holding the file as 'elf'.
home=$tmp/home
for f in "$prog" "$lib"; do
	id=$(awk -v n="$(basename "$f")" '$1 == "mmap2" && $NF ~ ("/" n "$") { print $(NF-1); exit }' "$tmp/gone.sideband")
	[ -n "$id" ] || { bad "no build ID for $f in the sideband"; continue; }
	d=$home/.debug/gone/progs/$(basename "$f")/$id
	mkdir -p "$d" "$home/.debug/.build-id/$(echo "$id" | cut -c1-2)"
	cp "$f" "$d/elf"
	ln -s "../../gone/progs/$(basename "$f")/$id" \
		"$home/.debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)"
done
HOME=$home PERF_BUILDID_DIR= same_as_log "$tmp/gone.perf" "build-ID cache (~/.debug)"
same_as_log "$tmp/gone.perf" "build-ID cache (--buildid-dir)" --buildid-dir "$home/.debug"

# The older layout: the link is the file itself.
old=$tmp/old
for f in "$prog" "$lib"; do
	id=$(awk -v n="$(basename "$f")" '$1 == "mmap2" && $NF ~ ("/" n "$") { print $(NF-1); exit }' "$tmp/gone.sideband")
	mkdir -p "$old/gone/progs/$(basename "$f")" "$old/.build-id/$(echo "$id" | cut -c1-2)"
	cp "$f" "$old/gone/progs/$(basename "$f")/$id"
	ln -s "../../gone/progs/$(basename "$f")/$id" \
		"$old/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)"
done
same_as_log "$tmp/gone.perf" "build-ID cache (old layout)" --buildid-dir "$old"

# --elf with BASE instead of the sideband: a raw stream, the program and
# its library placed where the recording had them.
# BASE of a file: its mapping's start minus its page offset (shell
# arithmetic: awk does not read hex)
base_of() {
	set -- $(awk -v p="$1" '$1 == "mmap2" && $NF ~ p { print $5, $7; exit }' "$sb")
	printf '0x%x' $(( $1 - $2 ))
}
lbase=$(base_of 'libptbdemo[.]so$')
pbase=$(base_of '/p_threads$')
libc=$(awk '$1 == "mmap2" && $NF ~ /libc[.]so/ { print $NF; exit }' "$sb")
cbase=$(base_of 'libc[.]so')
ld=$(awk '$1 == "mmap2" && $NF ~ /ld-linux/ { print $NF; exit }' "$sb")
dbase=$(base_of 'ld-linux')
"$PTBROWSE" flow --insn-only --elf "$prog:$pbase" --elf "$lib:$lbase" --elf "$libc:$cbase" \
	--elf "$ld:$dbase" "$tmp/thr.pt.cpu0" >"$tmp/out" 2>"$tmp/err"
awk '{print $1}' "$tmp/thr.pt.cpu0.flow" >"$tmp/log"
if grep -v '^\[' "$tmp/out" | cmp -s - "$tmp/log"; then
	echo "ok   --elf FILE:BASE for the program, its library, libc and ld.so: the recorder's log"
else
	bad "--elf FILE:BASE: differs from the log: $(grep error "$tmp/out" | head -2) $(head -c 300 "$tmp/err")"
fi

# Two processes with the same code at the same addresses: the first
# thread the recording forked made a process of its own (an exec with its
# own mappings).  The flow still equals the log (each stretch read in its
# process's address space), and --summary keeps their functions apart,
# each row naming its process.
pid=$(awk '$1 == "comm" { print $2; exit }' "$sb")
t2=$(awk '$1 == "fork" { print $3; exit }' "$sb")
awk -v p="$pid" -v t="$t2" '
	$1 == "mmap2" && $2 == p && !forked { maps[++n] = $0 }
	$1 == "fork" && $3 == t { forked = 1; print "fork", t, t, p, $5; next }
	$1 == "comm" && $3 == t {
		print "comm", t, t, $4, 1, "other"
		for (i = 1; i <= n; i++) {
			split(maps[i], f, " ")
			line = "mmap2 " t " " t " " $4
			for (j = 5; j <= length(f); j++)
				line = line " " f[j]
			print line
		}
		next
	}
	$1 == "switch" { if ($6 == t) $5 = t; if ($8 == t) $7 = t; print; next }
	$1 == "exit" && $3 == t { print "exit", t, t, $4; next }
	{ print }' "$sb" >"$tmp/two.sideband"
"$pt2perf" --sideband "$tmp/two.sideband" --cpu 0 "$tmp/thr.pt.cpu0" --cpu 1 "$tmp/thr.pt.cpu1" \
	-o "$tmp/two.perf" || { echo "FAIL pt2perf (two processes)"; exit 1; }
same_as_log "$tmp/two.perf" "two processes"
for c in 0 1; do
	"$PTBROWSE" flow --summary --stream cpu$c "$tmp/two.perf" >>"$tmp/two.sum" 2>/dev/null
done
if grep -q "^demo_sort \[pid $t2\] " "$tmp/two.sum" && grep -q "\[pid $pid\] " "$tmp/two.sum" &&
   ! grep -q "\[pid $t2\].*\[pid" "$tmp/two.sum"; then
	echo "ok   --summary: process $pid's and process $t2's functions apart ($(grep -c '\[pid' "$tmp/two.sum") rows)"
else
	bad "--summary of two processes: $(head -n 12 "$tmp/two.sum")"
fi

# The vDSO: ptrecord keeps a copy in a build-ID cache (TRACE.img, as perf
# record keeps one in ~/.debug) and gives its build ID in the MMAP2; with
# --buildid-dir the flow through it equals the log; without, it is said
# once, and the rows where its code is missing say what is missing there.
if [ -x "$progs/p_vdso" ]; then
	"$rec" -q -o "$tmp/v.pt" "$progs/p_vdso" >/dev/null 2>&1 || bad "ptrecord p_vdso"
	"$pt2perf" --sideband "$tmp/v.pt.sideband" --cpu 0 "$tmp/v.pt" -o "$tmp/v.perf" ||
		bad "pt2perf (vdso)"
	vbid=$(awk '$1 == "mmap2" && $NF == "[vdso]" { print $(NF-1); exit }' "$tmp/v.pt.sideband")
	[ -f "$tmp/v.pt.img/.build-id/$(echo "$vbid" | cut -c1-2)/$(echo "$vbid" | cut -c3-)/vdso" ] ||
		bad "no copy of the vDSO under v.pt.img/.build-id for build ID '$vbid'"
	n=$(grep -c '^00007ffff7fc[89]' "$tmp/v.pt.flow")
	"$PTBROWSE" flow --insn-only --stream cpu0 --buildid-dir "$tmp/v.pt.img" "$tmp/v.perf" \
		>"$tmp/out" 2>"$tmp/err"
	if [ "$n" -gt 0 ] && grep -v '^\[' "$tmp/out" | cmp -s - "$tmp/v.pt.flow" && ! grep -q vdso "$tmp/err"; then
		echo "ok   the vDSO from the build-ID cache: $n of its instructions, exactly the log"
	else
		bad "vDSO via --buildid-dir: $(head -c 300 "$tmp/err") $(grep error "$tmp/out" | head -2)"
	fi
	HOME=$tmp/emptyhome PERF_BUILDID_DIR= "$PTBROWSE" flow --stream cpu0 "$tmp/v.perf" \
		>"$tmp/out" 2>"$tmp/err"
	if [ "$(grep -c "no code for \[vdso\] (build ID $vbid): its instructions are unknown (the vDSO has no file; the build-ID cache (--buildid-dir) has no copy of it)" "$tmp/err")" -eq 1 ] &&
	   grep -q "^\[[0-9a-f]*: error: no memory mapped at this address: 00007ffff7fc[89][0-9a-f]*: no code for \[vdso\] (build ID $vbid)" "$tmp/out"; then
		echo "ok   no copy of the vDSO: said once, and its rows say what is missing"
	else
		bad "vDSO without a copy: $(head -c 300 "$tmp/err") $(grep error "$tmp/out" | head -2)"
	fi
else
	bad "$progs/p_vdso is missing"
fi

# Bad --elf: one line naming the file.
head -c 3000 "$prog" >"$tmp/cut"
out=$("$PTBROWSE" flow --elf "$tmp/cut" "$tmp/thr.pt.cpu0" 2>&1 >/dev/null)
st=$?
if [ $st -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
   printf '%s\n' "$out" | grep -q "$tmp/cut: truncated ELF"; then
	echo "ok   a truncated --elf: '$out'"
else
	bad "truncated --elf (exit $st): $out"
fi
exit $fail

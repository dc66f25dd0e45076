#!/bin/sh
# `ptbrowse flow` where a process's mappings change inside a stretch of
# tracing (tests/progs/p_sample recorded, tools/record.sh, its sideband
# edited and wrapped again with tools/pt2perf): the instruction decoded,
# its name and its text come from one image, the one mapped at the time of
# the packet that decided it -- libptbdemo.so mapped over p_sample's code
# gives no line whose text the shown image cannot decode ("(bad)"), in
# flow and in the browser's code view; and
# `flow --summary` keys its rows by process and function, not by address
# space: the library mapped again at its address (a new address space of
# the same process) leaves the table as it was, one row a function.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
sb=$tmp/rec/trace.sideband

# perf.data $1 from the recording's sideband with line $2 added
wrap() {
	{ cat "$sb"; echo "$2"; } >"$tmp/$1.sb"
	"$BUILD/tools/pt2perf" --mtc-freq 0 --time-shift 20 --time-mult 873813 \
		--sideband "$tmp/$1.sb" --cpu 0 "$tmp/rec/trace.cpu0" \
		--cpu 1 "$tmp/rec/trace.cpu1" -o "$tmp/$1.data" 2>"$tmp/err" ||
		{ bad "pt2perf $1: $(cat "$tmp/err")"; return 1; }
}

t0=$(awk '$1 == "mmap2" { print $4; exit }' "$sb")
lib=$(awk '$1 == "mmap2" && $NF ~ /\/libptbdemo[.]so$/ { print; exit }' "$sb")
[ -n "$t0" ] && [ -n "$lib" ] || { echo "FAIL no mmap2 of p_sample and libptbdemo.so in $sb"; exit 1; }
# the library's file, offset and build ID over p_sample's code page
over=$(echo "$lib" | awk '{ $5 = "0x555555555000"; print }')

nui=0
# Over the threads' lifetime (ptrecord's times start at $t0): each time
# lands in some stretch of one CPU or another; at most one may miss.
for d in 20000 40000 60000 80000 96000 100000; do
	wrap remap$d "$(echo "$over" | awk -v t=$((t0 + d)) '{ $4 = t; print }')" || continue
	for c in 0 1; do
		"$PTBROWSE" flow --offset --stream cpu$c "$tmp/remap$d.data" >"$tmp/f" 2>"$tmp/err" ||
			{ bad "flow remap$d cpu$c: $(cat "$tmp/err")"; continue; }
		n=$(grep -c '(bad)$' "$tmp/f")
		if [ "$n" != 0 ]; then
			bad "remap$d cpu$c: $n lines with an instruction the shown image does not hold:"
			grep -m 3 '(bad)$' "$tmp/f"
		fi
		# the code view's rows at the first place code run before
		# (its blocks cached) is missing from the new image, right
		# after instructions (not after a sync, a context point)
		ui=$(awk '/^\[/ && / error: no memory mapped at this address: / && insn {
				ip = $0; sub(/.*this address: /, "", ip); sub(/:.*/, "", ip)
				if (ip in ran) { off = $1; sub(/^\[/, "", off); sub(/:$/, "", off)
					print off; exit } }
			{ insn = 0 }
			!/^\[/ && $2 !~ /^\[/ { ran[$2] = 1; insn = 1 }' "$tmp/f")
		[ -n "$ui" ] || continue
		nui=$((nui + 1))
		# (down a few packets: the rows after it in view)
		printf 'wait-index\n:set view code\n:goto 0x%s\nj j j j j j\n:save-screen %s\n' \
			"$ui" "$tmp/screen" >"$tmp/keys"
		"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x30 --stream cpu$c \
			"$tmp/remap$d.data" >/dev/null 2>"$tmp/err" ||
			{ bad "code view remap$d cpu$c: $(cat "$tmp/err")"; continue; }
		grep -q "error: no memory mapped" "$tmp/screen" ||
			bad "code view remap$d cpu$c at 0x$ui: no error row: $(cat "$tmp/screen")"
		if grep -q '(bad)' "$tmp/screen"; then
			bad "code view remap$d cpu$c at 0x$ui: rows the shown image does not hold:"
			grep '(bad)' "$tmp/screen"
		fi
	done
done
[ $nui -gt 0 ] || bad "no remap time fell where the old code ran"

# The library closed and opened again at its address while the threads
# run: the same code, so the same table as without.
wrap redl "$(echo "$lib" | awk -v t=$((t0 + 60000)) '{ $4 = t; print }')"
for c in 0 1; do
	"$PTBROWSE" flow --summary --stream cpu$c "$tmp/rec/perf.data" 2>"$tmp/err" |
		grep -v '^block cache' >"$tmp/s0" || bad "summary cpu$c: $(cat "$tmp/err")"
	"$PTBROWSE" flow --summary --stream cpu$c "$tmp/redl.data" 2>"$tmp/err" |
		grep -v '^block cache' >"$tmp/s1" || bad "summary redl cpu$c: $(cat "$tmp/err")"
	if ! cmp -s "$tmp/s0" "$tmp/s1"; then
		bad "summary cpu$c: the library opened again changes the table:"
		diff "$tmp/s0" "$tmp/s1" | head -8
	fi
done

[ $fail = 0 ] && echo "ok t_flow_remap"
exit $fail

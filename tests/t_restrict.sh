#!/bin/sh
# flow and index with --pid, --tid and --comm on a perf.data of
# tests/progs/p_sample (tools/record.sh: four threads on two CPUs): flow
# keeps exactly the lines of the whole flow whose deciding packet dump
# keeps for that task (the flow is decoded whole, so the lines are the
# same ones), the threads' lines add up to the whole; index sums up the
# packets dump keeps; a raw trace and a bad number are refused with one
# line.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
bad() { echo "FAIL $*"; fail=1; }
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
names=$(awk '$1 == "comm" { print $6 }' "$tmp/rec/trace.sideband" | sort -u)
tids=$(awk '$1 == "comm" { print $3 }' "$tmp/rec/trace.sideband" | sort -u)

for c in cpu0 cpu1; do
	"$PTBROWSE" flow --offset --stream $c "$perf" >"$tmp/all" 2>/dev/null ||
		{ bad "flow $c failed"; continue; }
	: >"$tmp/sum"
	for t in $tids; do
		"$PTBROWSE" dump --stream $c --tid "$t" "$perf" 2>/dev/null |
			awk '{ printf "%016x\n", ("0x" $1) + 0 }' >"$tmp/kept"
		"$PTBROWSE" flow --offset --stream $c --tid "$t" "$perf" >"$tmp/got" 2>/dev/null ||
			bad "flow --tid $t $c failed"
		awk 'NR == FNR { k[$1] = 1; next } ($1 in k)' "$tmp/kept" "$tmp/all" >"$tmp/want"
		cmp -s "$tmp/want" "$tmp/got" ||
			bad "$c --tid $t: $(wc -l <"$tmp/got") lines, the whole flow's lines of dump's packets: $(wc -l <"$tmp/want")"
		cat "$tmp/got" >>"$tmp/sum"
	done
	# every instruction ran in some thread the sideband names
	n=$(grep -vc '\[' "$tmp/all"); s=$(grep -vc '\[' "$tmp/sum")
	[ "$n" -gt 1000 ] && [ "$n" = "$s" ] ||
		bad "$c: the threads' instructions add up to $s, the whole flow has $n"
	for name in $names; do
		w=$("$PTBROWSE" dump --stream $c --comm "$name" "$perf" 2>/dev/null | wc -l)
		g=$("$PTBROWSE" index --no-cache --json --stream $c --comm "$name" "$perf" 2>/dev/null |
			sed -n 's/.*"packets": \([0-9]*\).*/\1/p')
		[ "$w" = "$g" ] || bad "index --comm $name $c: $g packets, dump keeps $w"
	done
done
"$PTBROWSE" flow --summary --stream cpu1 --comm sorter "$perf" >"$tmp/s" 2>/dev/null
grep -q '^sorter ' "$tmp/s" && ! grep -q '^matmul ' "$tmp/s" ||
	bad "flow --summary --comm sorter: $(head -n 4 "$tmp/s")"
"$PTBROWSE" index --no-cache --stream cpu1 --comm sorter "$perf" >"$tmp/i" 2>&1
grep -q '^  task: .* stretches, [0-9]* bytes' "$tmp/i" || bad "index --comm: $(head -n 5 "$tmp/i")"

# refusals: one line, exit 1 (no sideband) or 2 (usage)
"$PTBROWSE" flow --pid 1 "$tmp/rec/trace.cpu0" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 1 ] && grep -q 'no sideband' "$tmp/e" || bad "flow --pid on a raw trace: rc $rc, $(cat "$tmp/e")"
"$PTBROWSE" index --no-cache --pid 1 "$tmp/rec/trace.cpu0" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q 'no sideband' "$tmp/e" ||
	bad "index --pid on a raw trace: rc $rc, $(cat "$tmp/e")"
for cmd in flow index; do
	"$PTBROWSE" $cmd --tid x "$perf" >/dev/null 2>"$tmp/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] || bad "$cmd --tid x: rc $rc, $(cat "$tmp/e")"
done
[ $fail = 0 ] && echo "ok   flow and index --pid/--tid/--comm"
exit $fail

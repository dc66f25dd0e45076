#!/bin/sh
# Searches and gotos by code (sym NAME, call NAME, ret) on a perf.data of
# tests/progs/p_sample (tools/record.sh: four threads on two CPUs, a
# shared library): the hits are exactly the offsets `ptbrowse flow
# --offset` gives the lines in that function (the calls into it, the
# returns), counted in the status line's [1/N]; the first hit, n, N
# round the start, :goto sym, a packet term and a task term with them,
# the filter view's rows (&sym NAME: every hit, page by page; &comm NAME:
# every packet dump --comm keeps) and errors.
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

# flow's lines: OFFSET IP [SYMBOL] MNEMONIC ...; events in brackets
AW='function insn() { hs = ($3 ~ /\+0x[0-9a-f]+$/); sym = hs ? $3 : ""; mn = hs ? $4 : $3 }'
# the offsets (0x...) of flow's instructions in function $1
want_sym() {
	awk "$AW"' $2 !~ /^\[/ { insn(); if (index(sym, f "+") == 1) print $1 }' f="$1" "$tmp/flow" |
		sort -u | while read -r o; do printf '0x%x\n' "$((0x$o))"; done
}
# of its calls into $1: the next instruction is in it, or in its PLT stub
want_call() {
	awk "$AW"' $2 ~ /^\[/ { if ($2 !~ /^\[exec/) pend = 0; next }
		{ insn(); if (pend && (index(sym, f "+") == 1 || index(sym, f "@plt+") == 1)) print poff
		  pend = 0
		  if (mn == "call") { pend = 1; poff = $1 } }' f="$1" "$tmp/flow" |
		sort -u | while read -r o; do printf '0x%x\n' "$((0x$o))"; done
}
# of its returns (in function $1 if given)
want_ret() {
	awk "$AW"' $2 !~ /^\[/ { insn(); if (mn == "ret" && (f == "" || index(sym, f "+") == 1)) print $1 }' \
		f="${1:-}" "$tmp/flow" | sort -u | while read -r o; do printf '0x%x\n' "$((0x$o))"; done
}

# run the browser on keys file $1 (its screens saved by the keys)
browse() {
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$1" --size 150x30 \
		--stream $S "$perf" >/dev/null 2>&1
}
# the status line of screen $1: the cursor's offset, and [k/N]
at() { tail -n 2 "$1" | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'; }
rank() { tail -n 2 "$1" | head -n 1 | grep -o '\[[0-9-]*/[0-9]*\]' | tail -n 1; }
hex() { printf '0x%x' "$(($1))"; }

# search $1: first hit, n, N N (round the start to the last) against $2
check() {
	q=$1 wantf=$2
	n=$(wc -l <"$wantf")
	first=$(sed -n 1p "$wantf"); second=$(sed -n 2p "$wantf"); last=$(tail -n 1 "$wantf")
	{ echo wait-index; echo ":search $q"; echo wait-search; echo ":save-screen $tmp/c1"
	  echo n; echo ":save-screen $tmp/c2"; echo N; echo N; echo ":save-screen $tmp/c3"
	  echo q; } >"$tmp/keys"
	browse "$tmp/keys"
	[ "$n" -gt 0 ] || return	# not on this CPU this time
	echo "$q" >>"$tmp/seen"
	[ "$(rank "$tmp/c1")" = "[1/$n]" ] && [ "$(hex "$(at "$tmp/c1")")" = "$first" ] ||
		bad "/$q: at $(at "$tmp/c1") $(rank "$tmp/c1"), flow: $first [1/$n]"
	[ "$n" -lt 2 ] || [ "$(hex "$(at "$tmp/c2")")" = "$second" ] ||
		bad "/$q n: at $(at "$tmp/c2"), flow's second is $second"
	[ "$(hex "$(at "$tmp/c3")")" = "$last" ] ||
		bad "/$q n N N: at $(at "$tmp/c3") ($(tail -n 1 "$tmp/c3")), flow's last is $last"
}

: >"$tmp/seen"
# which thread runs on which CPU changes from one recording to the next:
# both streams, and every search must hit on one of them
for S in cpu0 cpu1; do
"$PTBROWSE" flow --offset --stream $S "$perf" >"$tmp/flow" 2>/dev/null || bad "flow $S failed"
for f in demo_sort is_sorted mul sorter; do
	want_sym $f >"$tmp/w"; check "sym $f" "$tmp/w"
done
for f in mul is_sorted pthread_mutex_lock; do
	want_call $f >"$tmp/w"; check "call $f" "$tmp/w"
done
want_ret >"$tmp/w"; check ret "$tmp/w"
want_ret add >"$tmp/w"; check "ret & sym add" "$tmp/w"

# with a packet term: the hits that are TNTs (dump's types by offset)
"$PTBROWSE" dump --stream $S "$perf" 2>/dev/null |
	awk '$2 ~ /^tnt/ { print $1 }' | while read -r o; do printf '0x%x\n' "$((0x$o))"; done >"$tmp/tnts"
want_sym demo_sort >"$tmp/w0"
awk 'NR == FNR { t[$1] = 1; next } ($1 in t)' "$tmp/tnts" "$tmp/w0" >"$tmp/w"
check "sym demo_sort & tnt" "$tmp/w"
# with a task term: flow --tid's lines
tid=$(awk '$1 == "comm" && $6 == "sorter" { print $3 }' "$tmp/rec/trace.sideband" | head -n 1)
"$PTBROWSE" flow --offset --stream $S --tid "$tid" "$perf" >"$tmp/flow.t" 2>/dev/null
awk "$AW"' $2 !~ /^\[/ { insn(); if (index(sym, "pthread_mutex_lock+") == 1) print $1 }' "$tmp/flow.t" |
	sort -u | while read -r o; do printf '0x%x\n' "$((0x$o))"; done >"$tmp/w"
check "sym pthread_mutex_lock & tid $tid" "$tmp/w"
done
for q in "sym demo_sort" "sym is_sorted" "sym mul" "sym sorter" "call mul" \
	 "call is_sorted" "call pthread_mutex_lock" ret "ret & sym add" "sym demo_sort & tnt" \
	 "sym pthread_mutex_lock & tid $tid"; do
	grep -qx "$q" "$tmp/seen" || bad "/$q: flow has no such line on any CPU"
done

# The filter view: &TERMS lists every hit (or, for a task alone, every
# packet dump --comm keeps), page by page on a tall screen.
frows() {
	q=$1 n=$2
	{ echo wait-index; echo ":filter $q"; k=0
	  while [ $k -le $((n / 150 + 1)) ]; do
		echo ":save-screen $tmp/p$k"; echo ":page-down"; k=$((k + 1))
	  done; echo q; } >"$tmp/fkeys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/fkeys" --size 150x200 \
		--stream $S "$perf" >/dev/null 2>&1
	k=0
	while [ -f "$tmp/p$k" ]; do
		# a row: ">", or a PSB+'s box, then its offset and two blanks
		awk '{ s = substr($0, 1, 20) } match(s, /0x[0-9a-f]+  /) {
			print substr(s, RSTART, RLENGTH - 2) }' "$tmp/p$k"
		rm -f "$tmp/p$k"; k=$((k + 1))
	done | sort -u | while read -r o; do printf '%d 0x%x\n' "$((o))" "$((o))"; done |
		sort -n | cut -d' ' -f2
}
fcheck() {
	got=$(frows "$1" "$(wc -l <"$2")")
	[ -s "$2" ] && [ "$got" = "$(cat "$2")" ] ||
		bad "&$1: $(printf '%s\n' "$got" | wc -l) rows, want $(wc -l <"$2") ($(printf '%s\n' "$got" | head -n 3 | tr '\n' ' ')...)"
}
for S in cpu0 cpu1; do
	"$PTBROWSE" flow --offset --stream $S "$perf" >"$tmp/flow" 2>/dev/null
	want_sym is_sorted >"$tmp/w"
	[ -s "$tmp/w" ] && break
done
fcheck "sym is_sorted" "$tmp/w"
want_ret is_sorted >"$tmp/w"; fcheck "ret & sym is_sorted" "$tmp/w"
"$PTBROWSE" dump --stream $S --comm sorter "$perf" 2>/dev/null |
	while read -r o rest; do printf '0x%x\n' "$((0x$o))"; done >"$tmp/w"
fcheck "comm sorter" "$tmp/w"
"$PTBROWSE" dump --stream $S --comm sorter "$perf" 2>/dev/null |
	while read -r o ty rest; do [ "$ty" = tip ] && printf '0x%x\n' "$((0x$o))"; done >"$tmp/w"
fcheck "comm sorter & tip" "$tmp/w"
# a search in that filter view keeps to its rows (less): its terms and
# the search's
printf 'wait-index\n:filter comm sorter\n:search tip\nwait-search\n:save-screen %s\nq\n' \
	"$tmp/s" >"$tmp/keys"
browse "$tmp/keys"
[ "$(rank "$tmp/s")" = "[1/$(wc -l <"$tmp/w")]" ] &&
[ "$(hex "$(at "$tmp/s")")" = "$(sed -n 1p "$tmp/w")" ] ||
	bad "/tip in &comm sorter: at $(at "$tmp/s") $(rank "$tmp/s"), want $(sed -n 1p "$tmp/w") [1/$(wc -l <"$tmp/w")]"

# :goto sym NAME: the first instruction of NAME after the cursor, again
# the next one
for S in cpu0 cpu1; do
	"$PTBROWSE" flow --offset --stream $S "$perf" >"$tmp/flow" 2>/dev/null
	want_sym is_sorted >"$tmp/w"
	[ -s "$tmp/w" ] && break
done
printf 'wait-index\n:goto sym is_sorted\n:save-screen %s\n:goto sym is_sorted\n:save-screen %s\nq\n' \
	"$tmp/g1" "$tmp/g2" >"$tmp/keys"
browse "$tmp/keys"
[ "$(hex "$(at "$tmp/g1")")" = "$(sed -n 1p "$tmp/w")" ] &&
[ "$(hex "$(at "$tmp/g2")")" = "$(sed -n 2p "$tmp/w")" ] ||
	bad ":goto sym is_sorted: at $(at "$tmp/g1") then $(at "$tmp/g2"), flow: $(head -n 2 "$tmp/w" | tr '\n' ' ')"

# errors: one line each
for e in "sym nosuchfn:no function of that name" "sym:which function" \
	 "call a & ret:not both" "switch & sym main:do not combine"; do
	q=${e%%:*} msg=${e#*:}
	printf 'wait-index\n:search %s\n:save-screen %s\nq\n' "$q" "$tmp/e" >"$tmp/keys"
	browse "$tmp/keys"
	tail -n 1 "$tmp/e" | grep -q "$msg" || bad "/$q: $(tail -n 1 "$tmp/e")"
done
[ $fail = 0 ] && echo "ok   sym, call and ret: flow's lines"
exit $fail

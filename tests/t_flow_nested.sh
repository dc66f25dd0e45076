#!/bin/sh
# A function nested in another (an assembly function whose .size covers
# another's code): `flow --summary` and `calls` count the nested one's
# instructions as its own, whichever of the two runs first.  outer calls
# inner twice, main calls outer, then inner: inner 9 instructions in 3
# calls, outer 3, main 4 (the program recorded by tools/ptrecord).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }
cat >"$tmp/nest.S" <<'ASM'
	.text
	.globl outer
	.type outer,@function
outer:
	call inner
	call inner
	ret
	.globl inner
	.type inner,@function
inner:
	nop
	nop
	ret
	.size inner, .-inner
	nop
	ret
	.size outer, .-outer
	.globl main
	.type main,@function
main:
	call outer
	call inner
	xor %eax,%eax
	ret
	.size main, .-main
	.section .note.GNU-stack,"",@progbits
ASM
cc -no-pie -o "$tmp/nest" "$tmp/nest.S" || { echo "FAIL cc"; exit 1; }
"$BUILD/tools/ptrecord" -q -o "$tmp/t.pt" "$tmp/nest" >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL ptrecord: $(cat "$tmp/err")"; exit 1; }

"$PTBROWSE" flow --summary --elf "$tmp/nest" "$tmp/t.pt" >"$tmp/sum" 2>"$tmp/err" ||
	bad "flow --summary: $(cat "$tmp/err")"
rows=$(awk '$1 == "inner" || $1 == "outer" || $1 == "main" { print $1, $2 }' "$tmp/sum" |
	sort | tr '\n' ' ')
[ "$rows" = "inner 9 main 4 outer 3 " ] &&
	echo "ok   flow --summary: inner 9, outer 3, main 4 instructions" ||
	bad "flow --summary rows: '$rows'"

"$PTBROWSE" calls --elf "$tmp/nest" "$tmp/t.pt" >"$tmp/calls" 2>"$tmp/err" ||
	bad "calls: $(cat "$tmp/err")"
tree=$(awk '/^ *calls +instructions/ { on = 1; next } on && NF == 0 { exit }
	on { print $1, $2, $NF }' "$tmp/calls" | tr '\n' ' ')
[ "$tree" = "0 16 main 1 9 outer 2 6 inner 1 3 inner " ] &&
	echo "ok   calls: main -> outer -> inner (2 calls), main -> inner" ||
	bad "calls tree: '$tree'"
exit $fail

#!/bin/sh
# The time model over a generated multi-GiB trace: monotonic time and an
# exact carry at every PSB (tests/t_tm_gen.sh at TM_GEN_BIG, 4 GiB by
# default).  A check, not a speed figure: it lives here because `make
# test` must stay fast; it prints the seconds it took for the record.
: "${BUILD:=build}"
start=$(date +%s)
TM_GEN_BIG=${TM_GEN_BIG:-4GiB} TM_GEN_SIZE=1MiB sh tests/t_tm_gen.sh || exit 1
echo "tm_gen ${TM_GEN_BIG:-4GiB}: $(( $(date +%s) - start )) s"

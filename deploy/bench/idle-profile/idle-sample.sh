#!/usr/bin/env bash
# idle-sample.sh SECONDS: CPU time (ms) and context switches (voluntary+involuntary, all threads) per stack process
# over SECONDS, from /proc. Run from the worktree with the stack's .local.
set -u
secs=${1:-30}
RUN=${NUTRITION_LOCAL_DIR:-$PWD/.local}/run
PG=$(head -1 ${NUTRITION_LOCAL_DIR:-$PWD/.local}/postgres/data/postmaster.pid)
declare -A PIDS
for n in auth meals metrics trends sharing foods gateway broker; do PIDS[$n]="$(cat $RUN/$n.pid)"; done
PIDS[postgres]="$PG $(ps -o pid= --ppid $PG | tr '\n' ' ')"
tck=$(getconf CLK_TCK)
snap() { # name -> "cputicks ctxsw threads"
  local t=0 c=0 th=0 p s
  for p in ${PIDS[$1]}; do
    [ -r /proc/$p/stat ] || continue
    s=$(cat /proc/$p/stat); s=${s##*) }; set -- $s
    t=$((t + ${12} + ${13}))
    for task in /proc/$p/task/*; do
      th=$((th+1))
      c=$((c + $(awk '/ctxt_switches/{s+=$2} END{print s}' $task/status 2>/dev/null || echo 0)))
    done
  done
  echo "$t $c $th"
}
declare -A A
for n in "${!PIDS[@]}"; do A[$n]=$(snap $n); done
sleep "$secs"
printf '%-9s %8s %8s %10s %7s\n' PART cpu_ms cpu_% ctxsw/s threads
tot=0
for n in broker auth meals metrics trends sharing foods gateway postgres; do
  read t0 c0 _ <<<"${A[$n]}"; read t1 c1 th <<<"$(snap $n)"
  ms=$(( (t1-t0)*1000/tck )); tot=$((tot+ms))
  printf '%-9s %8d %8.2f %10.1f %7d\n' $n $ms $(echo "scale=3; $ms/($secs*10)" | bc) $(echo "scale=1; ($c1-$c0)/$secs" | bc) $th
done
printf '%-9s %8d %8.2f\n' total $tot $(echo "scale=3; $tot/($secs*10)" | bc)

#!/usr/bin/env bash
# thread-wakeups.sh PID SECONDS: context switches per second of each thread of PID, grouped by thread name.
pid=$1; secs=${2:-10}
snap() { for t in /proc/$pid/task/*; do echo "$(basename $t) $(tr ' ' _ <$t/comm) $(awk '/ctxt_switches/{s+=$2} END{print s}' $t/status)"; done; }
snap >/tmp/tw.$pid.a; sleep $secs; snap >/tmp/tw.$pid.b
join <(sort /tmp/tw.$pid.a) <(sort /tmp/tw.$pid.b) | awk -v s=$secs '{d=$5-$3; n[$2]+=d; c[$2]++} END{for(k in n) printf "%8.1f/s  %3d x %s\n", n[k]/s, c[k], k}' | sort -rn

#!/usr/bin/env bash
# broker-segments.sh SECONDS: requests per second each client connection sends the broker, without tracing it:
# the growth of data_segs_in (ss -ti) on the broker's side of each connection (each small request is one segment).
set -u
secs=${1:-30}; port=${NUTRITION_BROKER_PORT:-22392}
peers() { ss -tnpH state established "( dport = :$port )" | awk '{split($3,a,":"); sub(/users:\(\("/,"",$NF); sub(/".*/,"",$NF); print a[2], $NF}' | sort; }
segs() { ss -tinH state established "( sport = :$port )" | paste - - | awk '{split($4,a,":"); for(i=1;i<=NF;i++) if ($i ~ /^data_segs_in:/) {split($i,b,":"); print a[2], b[2]}}' | sort; }
peers >/tmp/seg.peers; segs >/tmp/seg.a; sleep $secs; segs >/tmp/seg.b
join /tmp/seg.a /tmp/seg.b | join - /tmp/seg.peers | awk -v s=$secs '{r=($3-$2)/s; printf "%-16s port %-6s %7.1f req/s\n", $4, $1, r; t[$4]+=r; T+=r} END {for (k in t) printf "  %-16s %7.1f req/s total\n", k, t[k]; printf "  ALL %7.1f req/s\n", T}' | sort

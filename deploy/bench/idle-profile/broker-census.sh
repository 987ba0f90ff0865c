#!/usr/bin/env bash
# broker-census.sh SECONDS: Kafka requests the broker receives over SECONDS, by API and by connection (strace).
set -u
secs=${1:-20}; L=${NUTRITION_LOCAL_DIR:-$PWD/.local}
B=$(cat $L/run/broker.pid); port=${NUTRITION_BROKER_PORT:-22392}
# fd on the broker's side -> owner of the peer port
ss -tnpH state established "( dport = :$port )" | awk '{print $3, $NF}' | sed 's/users:(("\([^"]*\)".*/\1/' | awk '{split($1,a,":"); print a[2], $2}' | sort >/tmp/census.peers
ss -tnpH state established "( sport = :$port )" | awk '{print $4, $NF}' | sed 's/ users:((".*fd=\([0-9]*\)).*/ \1/' | awk '{split($1,a,":"); print a[2], $2}' | sort >/tmp/census.fds
join /tmp/census.fds /tmp/census.peers | awk '{print $2, $3}' >/tmp/census.fdmap
timeout $secs strace -f -qq -ttt -s 40 -xx -e trace=recvfrom,sendto -p $B -o /tmp/census.strace
python3 "$(dirname "$0")/kafka-requests.py" /tmp/census.strace $secs /tmp/census.fdmap

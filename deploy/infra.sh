#!/usr/bin/env bash
# Starts or stops just the real infrastructure (PostgreSQL and the broker) of the local stack.
# Used by the test command and by fault-injection tests:  deploy/infra.sh start|stop|status|restart-broker|pause-broker|resume-broker|stop-postgres|start-postgres
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/broker.sh"

case "${1:-status}" in
  start) pg_init; pg_start; pg_bootstrap; broker_start ;;
  stop) broker_stop; pg_stop ;;
  restart-broker) broker_stop; broker_start ;;
  stop-broker) broker_stop ;;
  start-broker) broker_start ;;
  # A stalled broker (a frozen VM, a long GC pause): the process keeps its sockets but answers nothing.
  pause-broker) broker_running || fail "the broker is not running"; kill -STOP "$(cat "$BROKER_PID_FILE")"; say "broker paused" ;;
  resume-broker) broker_running || fail "the broker is not running"; kill -CONT "$(cat "$BROKER_PID_FILE")"; say "broker resumed" ;;
  stop-postgres) pg_stop ;;
  start-postgres) pg_start ;;
  status)
    pg_running && echo "postgres: running on $PG_PORT" || echo "postgres: stopped"
    broker_running && echo "broker: running on $BROKER_PORT" || echo "broker: stopped" ;;
  *) echo "usage: deploy/infra.sh start|stop|status|restart-broker|stop-broker|start-broker|pause-broker|resume-broker|stop-postgres|start-postgres" >&2; exit 2 ;;
esac

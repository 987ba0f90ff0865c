# The Kafka-compatible broker of the local stack (Tansu, in-memory: it forgets everything when stopped). Sourced.

BROKER_PID_FILE="$RUN_DIR/broker.pid"

broker_running() { [ -f "$BROKER_PID_FILE" ] && pid_alive "$(cat "$BROKER_PID_FILE")"; }

broker_start() {
  step "Kafka-compatible broker on 127.0.0.1:$BROKER_PORT"
  if broker_running; then ok "already running (pid $(cat "$BROKER_PID_FILE"))"; return 0; fi
  [ -x "$TANSU_BIN" ] || fail "no broker at $TANSU_BIN; run deploy/setup.sh"
  require_port_free "$BROKER_PORT" "the Kafka broker"
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  setsid "$TANSU_BIN" broker --listener-url "tcp://127.0.0.1:$BROKER_PORT" \
    --advertised-listener-url "tcp://127.0.0.1:$BROKER_PORT" >>"$LOG_DIR/broker.log" 2>&1 </dev/null &
  echo $! >"$BROKER_PID_FILE"
  wait_for 20 broker port_open "$BROKER_PORT" || fail "the broker did not open port $BROKER_PORT; see $LOG_DIR/broker.log"
  ok "started (pid $(cat "$BROKER_PID_FILE"), log: $LOG_DIR/broker.log)"
}

broker_stop() {
  if broker_running; then
    local pid; pid=$(cat "$BROKER_PID_FILE")
    # A paused broker acts on SIGTERM only once it runs again.
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
    # Once its main thread has exited the process looks like a zombie while other threads may still hold the
    # port, so it is gone only when the port is closed too.
    if ! wait_for 10 "broker exit" eval "! pid_alive $pid && ! port_open $BROKER_PORT"; then
      kill -9 "$pid" 2>/dev/null || true
      wait_for 5 "broker exit after SIGKILL" eval "! port_open $BROKER_PORT" || true
    fi
    say "broker stopped"
  fi
  rm -f "$BROKER_PID_FILE"
}

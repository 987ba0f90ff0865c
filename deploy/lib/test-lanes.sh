# The test command's serial suites (the gateway's and the integration tests) on several lanes at once. Sourced by
# deploy/test after common.sh, postgres.sh and broker.sh.
#
# A lane is a PostgreSQL cluster and a broker of its own: lane 0 is the pair deploy/test started (or reused), lane N
# lives under $LOCAL_DIR/lanes/N (its data, secrets, logs and pid files) on ports PG_PORT + 100 N and
# BROKER_PORT + 100 N. A suite empties its schemas, reads every topic from the end, and may stop, pause or restart its
# database or broker (deploy/infra.sh, which the suite's process reaches with its lane's environment): none of that
# touches another lane. Within a lane one suite runs at a time, its tests one after another, as the whole serial part
# ran before lanes.
#
# The suites wait on the broker, the database and their services' timers as much as they compute: on 2 cores the
# suites took about 490 s one after another, 288 s on two lanes (the machine 76 % busy) and 254 s on three
# (93 %; docs/PERFORMANCE.md). Each lane takes the next suite from one queue,
# longest first by the durations of the last run on this machine (kept beside the build cache), so the lanes end
# together; a suite never seen before goes first.

LANES_TIMES_FILE="${XDG_CACHE_HOME:-$HOME/.cache}/nutritionai/serial-suite-seconds"

# The environment of lane N's processes (the test binary, and deploy/infra.sh when a suite calls it), one NAME=VALUE
# per line; nothing for lane 0, which is the caller's own.
lane_env() { # lane_env N
  local n=$1 dir="$LOCAL_DIR/lanes/$1"
  [ "$n" = 0 ] && return 0
  printf '%s\n' "NUTRITION_LOCAL_DIR=$dir" "NUTRITION_PG_DATA=$dir/postgres/data" "NUTRITION_PG_SOCKET_DIR=$dir/postgres/run" \
    "NUTRITION_PG_PORT=$((PG_PORT + 100 * n))" "NUTRITION_BROKER_PORT=$((BROKER_PORT + 100 * n))" \
    "NUTRITION_TOOLS_DIR=$TOOLS_DIR" "NUTRITION_FOOD_DATA_FILE=$FOOD_DATA_FILE"
}

# Starts (or reuses) the PostgreSQL cluster and broker of lanes 1..COUNT-1, with the roles and schemas of lane 0.
lanes_start() { # lanes_start COUNT
  local n vars=()
  for ((n = 1; n < $1; n++)); do
    step "lane $n: its own PostgreSQL on $((PG_PORT + 100 * n)) and broker on $((BROKER_PORT + 100 * n))"
    mapfile -t vars < <(lane_env "$n")
    mkdir -p "$LOCAL_DIR/lanes/$n/logs"
    env "${vars[@]}" bash "$REPO_ROOT/deploy/infra.sh" start >"$LOCAL_DIR/lanes/$n/logs/infra.log" 2>&1 \
      || { tail -n 20 "$LOCAL_DIR/lanes/$n/logs/infra.log"; fail "lane $n's PostgreSQL or broker did not start"; }
    ok "started (log: $LOCAL_DIR/lanes/$n/logs/infra.log)"
  done
}

# Stops the PostgreSQL cluster and broker of lanes 1..COUNT-1 (lane 0 is deploy/test's to stop).
lanes_stop() { # lanes_stop COUNT
  local n vars=()
  for ((n = 1; n < $1; n++)); do
    [ -d "$LOCAL_DIR/lanes/$n" ] || continue
    mapfile -t vars < <(lane_env "$n")
    env "${vars[@]}" bash "$REPO_ROOT/deploy/infra.sh" stop >>"$LOCAL_DIR/lanes/$n/logs/infra.log" 2>&1 || true
  done
}

# Takes the queue's first line, or fails when it is empty; safe between lanes.
lanes_next() { # lanes_next QUEUE
  flock "$1.lock" bash -c 'line=$(head -n 1 "$0") && [ -n "$line" ] && sed -i 1d "$0" && printf "%s\n" "$line"' "$1"
}

# The test filter of a queue item: a suite (`IntegrationTests.JourneyTests`) or a whole module (`GatewayTests`).
lanes_filter() { # lanes_filter ITEM
  case "$1" in
    *.*) printf '^%s/' "${1//./\\.}" ;;
    *) printf '^%s\\.' "$1" ;;
  esac
}

# One lane: runs queue items until the queue is empty, each in its own test process on the lane's PostgreSQL and
# broker, its output in LOG_DIR/tests/ITEM.log; appends "passed|failed SECONDS ITEM LANE" to RESULTS per item.
lanes_worker() { # lanes_worker N BINARY QUEUE RESULTS
  local n=$1 binary=$2 queue=$3 results=$4 item started took status vars=()
  mapfile -t vars < <(lane_env "$n")
  while item=$(lanes_next "$queue"); do
    started=$SECONDS
    if env "${vars[@]}" NO_COLOR=1 "$binary" --testing-library swift-testing --no-parallel --filter "$(lanes_filter "$item")" \
      >"$LOG_DIR/tests/$item.log" 2>&1; then status=passed; else status=failed; fi
    # A filter that matched nothing would pass too.
    grep -qE "Test run with [1-9][0-9]* tests? " "$LOG_DIR/tests/$item.log" || status=failed
    took=$((SECONDS - started))
    printf '%s %s %s %s\n' "$status" "$took" "$item" "$n" >>"$results"
    if [ "$status" = passed ]; then
      say "$(printf '%-52s lane %s %4d s' "$item" "$n" "$took")"
    else
      printf '    %sFAILED%s: %s (lane %s), output in %s:\n' "$C_ERR" "$C_OFF" "$item" "$n" "$LOG_DIR/tests/$item.log"
      # A test's failures, or a crash (which may come after every test passed, as the process ends).
      { grep -E "✘|Expectation failed|Fatal error|Program crashed|double free|corrupted" "$LOG_DIR/tests/$item.log" \
        || tail -n 20 "$LOG_DIR/tests/$item.log"; } | head -n 30 | sed 's/^/      /' || true
    fi
  done
}

# Runs ITEMS (queue items, see lanes_filter) from the test BINARY on COUNT lanes; fails naming every item that failed.
lanes_run() { # lanes_run COUNT BINARY ITEMS...
  local count=$1 binary=$2 queue results n item took
  local -A seconds=()
  shift 2
  mkdir -p "$LOG_DIR/tests" "$(dirname "$LANES_TIMES_FILE")"
  rm -f "$LOG_DIR"/tests/*.log
  queue=$(mktemp) results=$(mktemp)
  # Longest first by the last run's durations; items never timed go first, in the order given.
  if [ -f "$LANES_TIMES_FILE" ]; then while read -r took item; do seconds[$item]=$took; done <"$LANES_TIMES_FILE"; fi
  for item in "$@"; do printf '%s %s\n' "${seconds[$item]:-1000000}" "$item"; done | sort -s -k1,1nr | cut -d' ' -f2 >"$queue"
  local workers=()
  for ((n = 0; n < count; n++)); do
    lanes_worker "$n" "$binary" "$queue" "$results" &
    workers+=($!)
  done
  # The workers only: a bare `wait` would wait on the caller's other children too (the broker it started).
  wait "${workers[@]}"
  # This run's durations, and the earlier ones of items it did not run (a run of a few suites forgets no other).
  for item in "$@"; do unset "seconds[$item]"; done
  { for item in "${!seconds[@]}"; do printf '%s %s\n' "${seconds[$item]}" "$item"; done; awk '{ print $2, $3 }' "$results"; } \
    >"$LANES_TIMES_FILE.new" && mv "$LANES_TIMES_FILE.new" "$LANES_TIMES_FILE"
  local failed
  failed=$(awk '$1 == "failed" { print $3 }' "$results" | tr '\n' ' ')
  local ran
  ran=$(wc -l <"$results")
  rm -f "$queue" "$queue.lock" "$results"
  [ "$ran" = "$#" ] || fail "$ran of $# suites ran (a lane stopped early?)"
  [ -z "$failed" ] || fail "failed: $failed(each suite's output is in $LOG_DIR/tests/)"
}

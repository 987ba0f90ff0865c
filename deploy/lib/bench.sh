# What the benchmark scripts share: tools, the infrastructure check, release binaries, starting the backend
# services and the gateway, deleting the bench accounts, reading wrk's output, printing processes' resident memory,
# stopping processes. Sourced after common.sh, postgres.sh, broker.sh.

http_ok() { curl -fs -o /dev/null --max-time 2 "$1"; }

bench_tools() { # bench_tools PACKAGE...: installs the Debian packages that are missing
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null; }
  done
}

bench_require_infra() { # bench_require_infra ROLE...: PostgreSQL, the broker and the services' roles are there
  local role
  pg_running || fail "PostgreSQL is not running; start the infrastructure with: bash deploy/infra.sh start"
  broker_running || fail "the broker is not running; start the infrastructure with: bash deploy/infra.sh start"
  for role in "$@"; do
    [ -s "$SECRETS_DIR/$role.password" ] || fail "no $role role yet; run: bash deploy/infra.sh start"
  done
}

# Notes a binary that links the Swift runtime dynamically: the images link it in (swift_build release), and such a
# binary spends more CPU per request (the gateway about a fifth more), so its figures are not those of what ships.
bench_check_shipped_build() { # bench_check_shipped_build EXECUTABLE
  if ldd "$1" 2>/dev/null | grep -q libswiftCore; then
    say "note: $1 links the Swift runtime dynamically; what ships links it in (swift build -c release --static-swift-stdlib): figures are not comparable"
  fi
}
bench_binaries() { # bench_binaries PRODUCT...: sets BIN_DIR to BENCH_BIN_DIR or to freshly built release binaries
  local product
  if [ -n "${BENCH_BIN_DIR:-}" ]; then
    step "binaries from BENCH_BIN_DIR"
    BIN_DIR=$BENCH_BIN_DIR
    case "$BIN_DIR" in *release*) ;; *) say "note: $BIN_DIR may not hold release builds; figures are not comparable" ;; esac
  else
    step "building $* (release)"
    for product in "$@"; do
      swift_build release --product "$product" 2>&1 | tail -n 1
    done
    BIN_DIR="$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)"
  fi
  for product in "$@"; do
    [ -x "$BIN_DIR/$product" ] || fail "no $product executable in $BIN_DIR"
    bench_check_shipped_build "$BIN_DIR/$product"
  done
  ok "binaries in $BIN_DIR"
}

bench_start_service() { # bench_start_service NAME PORT [KEY=VALUE...]: a backend service (auth, meals, metrics, trends,
  # sharing, foods) as its own role on its schema, on PORT, with the extra environment given; its log is appended to
  # $WORK/NAME.log. Sets SERVICE_PID (the service itself, not a wrapper).
  local name=$1 port=$2 executable; shift 2
  case "$name" in
    auth) executable=AuthService ;; meals) executable=MealsService ;; metrics) executable=MetricsService ;;
    trends) executable=TrendsService ;; sharing) executable=SharingService ;; foods) executable=FoodsService ;;
    *) fail "no backend service called $name" ;;
  esac
  # shellcheck disable=SC2046  # pg_env_for prints KEY=VALUE words
  (cd "$REPO_ROOT" && exec env $(pg_env_for "$name") KAFKA_BROKERS="127.0.0.1:$BROKER_PORT" HTTP_PORT="$port" \
    LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" "$@" "$BIN_DIR/$executable" >>"$WORK/$name.log" 2>&1 </dev/null) &
  SERVICE_PID=$!
}

bench_start_auth() { # bench_start_auth PORT: AuthService on PORT with 1 h tokens, log in $WORK/auth.log; sets AUTH_PID
  : >"$WORK/auth.log"
  bench_start_service auth "$1" AUTH_SIGNING_KEY="$(dev_signing_key)" AUTH_MAIL_DIRECTORY="$WORK/mail" AUTH_ACCESS_TOKEN_TTL_SECONDS=3600
  AUTH_PID=$SERVICE_PID
}

bench_routes() { # bench_routes FILE [UPSTREAMS] [ROUTES]: a route table for a bench's gateway in FILE: auth on AUTH_PORT
  # with its routes (sign-up, sign-in, refresh, the keys, the rest of /api/auth and /api/users), plus UPSTREAMS
  # ('"name": "url"' entries, comma-separated) and ROUTES (route objects, comma-separated), checked with jq
  cat >"$1" <<JSON
{ "upstreams": { "auth": "http://127.0.0.1:$AUTH_PORT"${2:+, $2} },
  "routes": [
    { "prefix": "/api/auth/register", "upstream": "auth", "public": true },
    { "prefix": "/api/auth/login", "upstream": "auth", "public": true },
    { "prefix": "/api/auth/refresh", "upstream": "auth", "public": true },
    { "prefix": "/.well-known/jwks.json", "upstream": "auth", "public": true },
    { "prefix": "/api/auth", "upstream": "auth", "public": false },
    { "prefix": "/api/users", "upstream": "auth", "public": false }${3:+, $3} ] }
JSON
  jq -e . "$1" >/dev/null || fail "the bench's route table $1 is not valid JSON"
}

bench_start_gateway() { # bench_start_gateway PORT ROUTES_FILE: the gateway, waited for until it has the keys; sets GATEWAY_PID
  # The routes file names the upstreams; variables left in the environment would override it.
  env -u GATEWAY_JWKS_URL -u GATEWAY_REVOCATIONS_URL -u UPSTREAM_AUTH_URL -u UPSTREAM_MEALS_URL -u UPSTREAM_METRICS_URL -u UPSTREAM_TRENDS_URL \
    -u UPSTREAM_SHARING_URL -u UPSTREAM_FOODS_URL HTTP_PORT="$1" GATEWAY_ROUTES_FILE="$2" \
    LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" "$BIN_DIR/Gateway" >"$WORK/gateway.log" 2>&1 </dev/null &
  GATEWAY_PID=$!
  wait_for 30 "gateway keys" http_ok "http://127.0.0.1:$1/health/ready" || fail "the gateway did not become ready; see $WORK/gateway.log"
}

bench_delete_accounts() { # deletes the accounts of TOKENS (password PASSWORD) through GATEWAY_URL unless BENCH_KEEP_USERS=1
  local i deleted=0
  for i in "${!TOKENS[@]}"; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X DELETE -H "Authorization: Bearer ${TOKENS[$i]}" \
      -H 'Content-Type: application/json' -d "{\"password\":\"$PASSWORD\"}" "$GATEWAY_URL/api/users/me")" = 204 ] \
      && deleted=$((deleted + 1))
  done
  say "deleted $deleted of ${#TOKENS[@]} bench accounts"
}

# wrk --latency output on stdin -> "ok_per_second p50_us p99_us not_2xx socket_errors"
bench_wrk_summary() {
  awk '
    function us(v) { if (v ~ /us$/) return v+0; if (v ~ /ms$/) return (v+0)*1000; if (v ~ /s$/) return (v+0)*1000000; return v }
    / requests in / { requests = $1; d = $4; sub(/,$/, "", d); seconds = us(d) / 1000000 }
    /^ +50%/ { p50 = us($2) }
    /^ +99%/ { p99 = us($2) }
    /Non-2xx or 3xx responses/ { bad = $NF }
    /Socket errors/ { gsub(/,/, ""); errors = $4 + $6 + $8 + $10 }
    END { printf "%.2f %.0f %.0f %d %d\n", (seconds > 0 ? (requests - bad) / seconds : 0), p50, p99, bad, errors }'
}

bench_status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; } # bench_status_kb PID VmRSS|VmHWM

# Resident memory of the processes a benchmark started, from /proc/<pid>/status: VmRSS (now) and VmHWM (the
# process's peak so far), one line each, under LABEL (such as "idle, before load" or "after the load"). PostgreSQL is
# its postmaster alone: its backends share its buffers, so adding theirs would count them many times.
bench_print_rss() { # bench_print_rss LABEL NAME:PID...
  local label=$1 part name pid; shift
  say "resident memory, $label (VmRSS now / VmHWM peak):"
  for part in "$@"; do
    name=${part%%:*}; pid=${part#*:}
    if [ -z "$pid" ] || [ "$pid" = "$part" ] || ! pid_alive "$pid"; then say "    $name: not running"; continue; fi
    awk -v name="$name" -v pid="$pid" '$1 == "VmRSS:" { rss = $2 } $1 == "VmHWM:" { hwm = $2 }
      END { printf "        %-12s pid %-8s %8.1f MB / %8.1f MB\n", name, pid, rss / 1024, hwm / 1024 }' "/proc/$pid/status"
  done
}

bench_infra_pids() { # the infrastructure's processes as NAME:PID words for bench_print_rss: PostgreSQL's postmaster, the broker
  [ -s "$PG_DATA/postmaster.pid" ] && printf 'postgres:%s ' "$(head -n 1 "$PG_DATA/postmaster.pid")"
  [ -s "${BROKER_PID_FILE:-$RUN_DIR/broker.pid}" ] && printf 'broker:%s ' "$(cat "${BROKER_PID_FILE:-$RUN_DIR/broker.pid}")"
  return 0
}

bench_median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; } # numbers on stdin, one a line

bench_stop() { # bench_stop PID...: SIGTERM, then up to 20 s each (a service's drain and cancellation time) before SIGKILL
  local pid
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    wait_for 20 "exit of $pid" bash -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid" 2>/dev/null || true
  done
}

# --- The whole stack (deploy/load, deploy/bench/rest.sh) ----------------------------------------------------------

# A route table in FILE for simulated users, from deploy/gateway-routes.json: rate limits sized for up to USERS at
# once (every simulated phone comes from this one address) at up to RATE requests/s each (a user sends at most one
# screen, up to 4 requests at once, per think time; twice that leaves room for bursts), except the `auth` policy on
# sign-in, kept as it is so that the users' occasional sign-ins meet it (the intended 429s); registration gets its
# own budget of TOTAL accounts (and 10 more).
bench_load_routes() { # bench_load_routes FILE USERS TOTAL RATE
  jq --argjson users "$2" --argjson total "$3" --argjson rate "$4" '
    .rateLimits.register = { limit: ($total + 10), windowSeconds: 900, per: "ip" }
    | .rateLimits.user.limit = ($rate * .rateLimits.user.windowSeconds)
    | .rateLimits.analyze.limit = ($rate * .rateLimits.analyze.windowSeconds)
    | .rateLimits.sync.limit = ($rate * .rateLimits.sync.windowSeconds)
    | .rateLimits.refresh.limit = ($users * $rate * .rateLimits.refresh.windowSeconds)
    | .rateLimits.public.limit = ($users * $rate * .rateLimits.public.windowSeconds)
    | .routes |= map(if .prefix == "/api/auth/register" then .rateLimit = "register" else . end)' \
    "$REPO_ROOT/deploy/gateway-routes.json" >"$1"
}

# Starts the stack (deploy/stack up: PostgreSQL, the broker, the services, the gateway) with the route table FILE
# unless one answers on GATEWAY_PORT, and waits up to SECONDS (a build included) for it; its output goes to LOG.
# Sets BENCH_STARTED_STACK (1 when this call started it) and BENCH_STACK_PARTS ("name:pid" of what it started).
# Builds NUTRITION_BUILD_CONFIG (default release) unless NUTRITION_BIN_DIR names prebuilt binaries.
BENCH_STARTED_STACK=0
BENCH_STACK_PARTS=()
bench_stack_up() { # bench_stack_up ROUTES_FILE LOG SECONDS
  local routes=$1 log=$2 timeout=$3 gateway="http://127.0.0.1:$GATEWAY_PORT" runner name
  if http_ok "$gateway/health"; then
    say "a stack is already running on $gateway: using it as it is (its route table's limits apply)"
    return 0
  fi
  if [ -n "${NUTRITION_BIN_DIR:-}" ]; then say "starting it from the binaries in $NUTRITION_BIN_DIR"
  else say "starting it after a ${NUTRITION_BUILD_CONFIG:-release} build (a release build of the whole package takes about 10 min on 2 cores)"; fi
  say "with the route table $routes; its log: $log"
  NUTRITION_GATEWAY_ROUTES_FILE="$routes" NUTRITION_BUILD_CONFIG="${NUTRITION_BUILD_CONFIG:-release}" \
    setsid "$REPO_ROOT/deploy/stack" up >"$log" 2>&1 </dev/null &
  runner=$!
  BENCH_STARTED_STACK=1
  # shellcheck disable=SC2317  # called through wait_for
  stack_ready() {
    kill -0 "$runner" 2>/dev/null || { tail -n 20 "$log" >&2; fail "deploy/stack exited before it was ready"; }
    http_ok "$gateway/health"
  }
  wait_for "$timeout" "stack readiness" stack_ready || fail "the stack was not ready after $timeout s; see $log"
  for name in gateway auth meals metrics trends sharing foods; do
    [ -s "$RUN_DIR/$name.pid" ] && BENCH_STACK_PARTS+=("$name:$(cat "$RUN_DIR/$name.pid")")
  done
  return 0
}

bench_stack_down() { # bench_stack_down LOG: stops the stack if bench_stack_up started it, appending to LOG
  [ "$BENCH_STARTED_STACK" = 1 ] || return 0
  step "stopping the stack this run started"
  "$REPO_ROOT/deploy/stack" stop >>"$1" 2>&1 || true
  # The pid files live in the shared local folder, where another stack's stop can remove one before ours reads it;
  # whatever this run started must not outlive it (it would hold the port).
  local part pid
  for part in "${BENCH_STACK_PARTS[@]}"; do
    pid=${part#*:}
    pid_alive "$pid" || continue
    say "${part%%:*} (pid $pid) was still running after deploy/stack stop; stopping it"
    kill -TERM "$pid" 2>/dev/null || true
    wait_for 20 "exit of $pid" bash -c "! kill -0 $pid 2>/dev/null || [[ \$(ps -o stat= -p $pid) == Z* ]]" || kill -KILL "$pid" 2>/dev/null || true
  done
  BENCH_STARTED_STACK=0
  ok "stopped (its log: $1)"
}

# Every process of the running stack as "name:pid" words: the seven parts, the broker and PostgreSQL's postmaster
# (its backends are below it: the CPU figures count each part's whole process tree).
bench_stack_processes() {
  local name pid
  for name in gateway auth meals metrics trends sharing foods broker; do
    [ -s "$RUN_DIR/$name.pid" ] && pid=$(cat "$RUN_DIR/$name.pid") && pid_alive "$pid" && printf '%s:%s ' "$name" "$pid"
  done
  [ -s "$PG_DATA/postmaster.pid" ] && printf 'postgres:%s ' "$(head -n 1 "$PG_DATA/postmaster.pid")"
  return 0
}

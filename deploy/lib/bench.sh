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

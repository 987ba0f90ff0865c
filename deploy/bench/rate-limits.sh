#!/usr/bin/env bash
# Benchmark, not a test: what the shared rate-limit store (docs/GATEWAY.md, "Rate limits") costs, on this machine. Prints
# figures beside their baseline; asserts nothing.
#   deploy/bench/rate-limits.sh [runs=3] [seconds=10] [clients="1 4 16 64"]
# pgbench runs the gateway's statement (PostgresRateLimitStore.take: the atomic upsert of one request of the auth
# policy, 5 per 900 s) at each number of clients, as an unnamed statement parsed each time (postgres-nio's query, which
# the gateway uses): (a) on 100,000 clients' windows picked at random (many addresses signing in), (b) on one window
# (one address racing itself: every statement waits for the row lock of the one before), with synchronous_commit off
# as the gateway's role has it (gateway/Migrations), and (c) as (a) with every commit waiting for its WAL flush.
# Baseline: `SELECT 1`, the round trip alone. Statements per second and latency p50/p99 (from pgbench's per-statement
# log; pgbench reads its clock lazily, so sub-millisecond figures at many clients are coarse), medians of `runs`.
# Needs PostgreSQL (`bash deploy/infra.sh start`); works in a scratch schema (rate_limit_bench) that it drops after.
# The alternative, side by side: when BENCH_REDIS_SERVER names a redis-server binary (Debian's redis-tools; e.g.
# `apt-get download redis-tools libjemalloc2 liblzf1`, `dpkg -x` each, redis-server is redis-check-rdb under that
# name, LD_LIBRARY_PATH to the extracted libraries), the same check-and-count as a Lua script (GET, INCR, PEXPIRE on
# a window's first request) under redis-benchmark, on a throwaway server at BENCH_REDIS_PORT (18890) with its
# append-only file flushed every second (as durable as synchronous_commit off).
# BENCH_PARTS: which parts run, "p" (PostgreSQL) and "r" (Redis); default both.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-10}; CLIENTS=${3:-"1 4 16 64"}
PARTS=${BENCH_PARTS:-pr}
part() { [[ "$PARTS" == *"$1"* ]]; } # part LETTER: whether that part runs
SCHEMA=rate_limit_bench
WORK="$LOCAL_DIR/bench/rate-limits"

step "PostgreSQL and pgbench"
pg_running || fail "PostgreSQL is not running; start it with: bash deploy/infra.sh start"
command -v pgbench >/dev/null || fail "pgbench is needed (Debian's postgresql-contrib or postgresql-client)"
mkdir -p "$WORK" && chown postgres "$WORK"
psql_admin -d "$PG_DATABASE" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" -c "CREATE SCHEMA $SCHEMA"
trap 'psql_admin -d "$PG_DATABASE" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null' EXIT
# The tables alone: the file's ALTER ROLE would set the administrator's own role; each run sets synchronous_commit.
grep -v '^ALTER ROLE' "$REPO_ROOT/gateway/Migrations/0001_rate_limits.sql" | PGOPTIONS="-c search_path=$SCHEMA" psql_admin -d "$PG_DATABASE"
ok "schema $SCHEMA with the gateway's tables"

upsert() { # upsert KEY-EXPRESSION: PostgresRateLimitStore.take's statement for one auth request
  cat <<SQL
INSERT INTO rate_limit_windows AS w (policy, client_key, closes_at, used, granted)
VALUES ('auth', $1, now() + make_interval(secs => 900.0), LEAST(1, 5), LEAST(1, 5))
ON CONFLICT (policy, client_key) DO UPDATE SET
    closes_at = CASE WHEN w.closes_at <= now() THEN excluded.closes_at ELSE w.closes_at END,
    granted = CASE WHEN w.closes_at <= now() THEN excluded.granted ELSE GREATEST(0, LEAST(1, 5 - w.used)) END,
    used = CASE WHEN w.closes_at <= now() THEN excluded.used ELSE w.used + GREATEST(0, LEAST(1, 5 - w.used)) END
RETURNING granted, used, extract(epoch FROM closes_at - now())::float8;
SQL
}
echo "SELECT 1;" >"$WORK/select1.sql"
{ echo '\set k random(1, 100000)'; upsert "'ip:' || :k"; } >"$WORK/spread.sql"
upsert "'ip:203.0.113.7'" >"$WORK/hot.sql"
chown postgres "$WORK"/*.sql

run_once() { # run_once SCRIPT CLIENTS SYNCHRONOUS_COMMIT: prints "statements/s p50_ms p99_ms"
  local threads=$(( $2 < 2 ? 1 : 2 )) output
  rm -f "$WORK"/log.*
  output=$(cd "$WORK" && runuser -u postgres -- env PGOPTIONS="-c search_path=$SCHEMA -c synchronous_commit=$3" pgbench -n -M extended -h "$PG_SOCKET_DIR" \
    -p "$PG_PORT" -c "$2" -j "$threads" -T "$DURATION" -f "$WORK/$1.sql" --log --log-prefix="$WORK/log" "$PG_DATABASE" 2>&1) \
    || fail "pgbench failed: $output"
  local tps; tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$output" | head -n1)
  cat "$WORK"/log.* | awk '{ print $3 }' | sort -n | awk -v tps="$tps" '{ v[NR] = $1 }
    END { printf "%.0f %.3f %.3f\n", tps, v[int(NR * 0.5) + 1] / 1000, v[int(NR * 0.99) + 1] / 1000 }'
}

part p && step "statements per second and latency, medians of $RUNS runs of ${DURATION} s"
part p && printf '    %-8s %-34s %12s %10s %10s %9s\n' clients statement "per second" "p50 ms" "p99 ms" "vs SELECT 1"
for clients in $CLIENTS; do
  part p || break
  baseline=0
  for variant in select1:off spread:off hot:off spread:on; do
    script=${variant%:*} commit=${variant#*:}
    results=()
    for _ in $(seq "$RUNS"); do results+=("$(run_once "$script" "$clients" "$commit")"); done
    tps=$(printf '%s\n' "${results[@]}" | awk '{ print $1 }' | bench_median)
    p50=$(printf '%s\n' "${results[@]}" | awk '{ print $2 }' | bench_median)
    p99=$(printf '%s\n' "${results[@]}" | awk '{ print $3 }' | bench_median)
    [ "$script" = select1 ] && baseline=$tps
    case $variant in
      select1:off) label="SELECT 1 (baseline)" ;; spread:off) label="auth upsert, 100,000 windows" ;;
      hot:off) label="auth upsert, one window" ;; spread:on) label="(a) waiting for the WAL flush" ;;
    esac
    printf '    %-8s %-34s %12s %10s %10s %9s\n' "$clients" "$label" "$tps" "$p50" "$p99" \
      "$(awk -v a="$tps" -v b="$baseline" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
  done
done
if part r && [ -n "${BENCH_REDIS_SERVER:-}" ]; then
  step "Redis $("$BENCH_REDIS_SERVER" --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p'), the same check-and-count as a Lua script"
  REDIS_PORT=${BENCH_REDIS_PORT:-18890}
  REDIS_BENCHMARK="$(dirname "$BENCH_REDIS_SERVER")/redis-benchmark"
  rm -rf "$WORK/redis" && mkdir -p "$WORK/redis"
  require_port_free "$REDIS_PORT" "the bench's Redis"
  "$BENCH_REDIS_SERVER" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK/redis" --appendonly yes --appendfsync everysec --save "" \
    --daemonize no >"$WORK/redis/server.log" 2>&1 &
  redis_pid=$!
  trap 'kill "$redis_pid" 2>/dev/null; psql_admin -d "$PG_DATABASE" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null' EXIT
  wait_for 10 "Redis" bash -c "[ \"\$(\"$(dirname "$BENCH_REDIS_SERVER")/redis-cli\" -p $REDIS_PORT ping 2>/dev/null)\" = PONG ]" \
    || fail "Redis did not start; see $WORK/redis/server.log"
  # KEYS[1] the window; ARGV: amount, limit, window in ms. Returns granted, used, ms left.
  script='local used = tonumber(redis.call("GET", KEYS[1]) or "0") local granted = math.max(0, math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used)) if granted > 0 then used = redis.call("INCRBY", KEYS[1], granted) if used == granted then redis.call("PEXPIRE", KEYS[1], ARGV[3]) end end return {granted, used, redis.call("PTTL", KEYS[1])}'
  printf '    %-8s %-34s %12s %10s %10s\n' clients statement "per second" "p50 ms" "p99 ms"
  for clients in $CLIENTS; do
    for variant in spread hot; do
      results=()
      for _ in $(seq "$RUNS"); do
        key="auth|ip:203.0.113.7"; [ "$variant" = spread ] && key="auth|ip:__rand_int__"
        results+=("$("$REDIS_BENCHMARK" -p "$REDIS_PORT" -c "$clients" -n $((DURATION * 20000)) -r 100000 --csv \
          EVAL "$script" 1 "$key" 1 5 900000 | tail -n1 | tr -d '"' | awk -F, '{ printf "%.0f %s %s\n", $(NF - 6), $(NF - 3), $(NF - 1) }')")
      done
      tps=$(printf '%s\n' "${results[@]}" | awk '{ print $1 }' | bench_median)
      p50=$(printf '%s\n' "${results[@]}" | awk '{ print $2 }' | bench_median)
      p99=$(printf '%s\n' "${results[@]}" | awk '{ print $3 }' | bench_median)
      label="Lua check-and-count, 100,000 windows"; [ "$variant" = hot ] && label="Lua check-and-count, one window"
      printf '    %-8s %-34s %12s %10s %10s\n' "$clients" "$label" "$tps" "$p50" "$p99"
    done
  done
fi
say "for scale: a sign-in costs one bcrypt hash, about 63 ms of a core (INFRA.md), so about 31 sign-ins/s for the machine"

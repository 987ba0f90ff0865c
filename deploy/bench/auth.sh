#!/usr/bin/env bash
# Benchmark, not a test: what sign-in costs on this machine. Prints figures beside their goals; asserts nothing.
#   deploy/bench/auth.sh [runs=3] [seconds=20] [connections=16]
# (a) The bcrypt ceiling: cost-10 hashes per second on one core and on all cores (python3's crypt, glibc's
#     bcrypt). Each login is one bcrypt verification, so all cores' rate is the most logins/s the machine can do.
# (b) Logins through the real path: wrk POSTs /api/auth/login to our gateway, which proxies to an AuthService
#     started here; logins/s (2xx only) and p50/p99 beside the ceiling (goal: at least 80% of it).
# (c) Authenticated reads: GET /api/auth/me through the gateway with a valid token at a modest paced rate, p99
#     alone and while the login load of (b) runs at the same time (goal: loaded p99 at most twice the unloaded).
# Needs PostgreSQL and the broker: `bash deploy/infra.sh start`. Starts its own AuthService (port 18281) and
# Gateway (18283, a routes file without rate limits); registers a few users and deletes them again at the end.
# The resident memory (VmRSS and VmHWM) of both, PostgreSQL's postmaster and the broker is printed idle (after
# start, before load) and after the load.
# Environment: BENCH_BIN_DIR (use the AuthService and Gateway there instead of building release ones),
# BENCH_AUTH_PORT, BENCH_GATEWAY_PORT (the ports above),
# BENCH_USERS (8), BENCH_READ_RATE (most reads/s offered, 50), BENCH_READ_CONNECTIONS (2), BCRYPT_HASHES (hashes per
# process when timing bcrypt, 16), BENCH_KEEP_USERS=1 (keep the bench accounts), BENCH_LOG_LEVEL (info).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/broker.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-20}; CONNECTIONS=${3:-16}
AUTH_PORT=${BENCH_AUTH_PORT:-18281}; BENCH_GATEWAY_PORT=${BENCH_GATEWAY_PORT:-18283}
USERS=${BENCH_USERS:-8}; READ_RATE=${BENCH_READ_RATE:-50}; READ_CONNECTIONS=${BENCH_READ_CONNECTIONS:-2}
BCRYPT_HASHES=${BCRYPT_HASHES:-16}
CORES=$(nproc)
LOGIN_THREADS=$(( CONNECTIONS < 2 ? 1 : 2 ))
WORK="$LOCAL_DIR/bench/auth"; mkdir -p "$WORK"
GATEWAY_URL="http://127.0.0.1:$BENCH_GATEWAY_PORT"

step "tools (wrk, jq from Debian; python3 with crypt)"
bench_tools wrk jq
# Debian's python3 first: its crypt module uses the system libcrypt, which has bcrypt.
PYTHON=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -W ignore -c \
    'import crypt, sys; sys.exit(0 if crypt.crypt("x", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)).startswith("$2b$10$") else 1)' 2>/dev/null; then
    PYTHON=$candidate; break
  fi
done
[ -n "$PYTHON" ] || fail "no python3 with a crypt module that does bcrypt (Debian 12's python3.11 has one)"
ok "wrk, jq and $PYTHON ($("$PYTHON" --version 2>&1)) present"

# --- (a) bcrypt ceiling -------------------------------------------------------------------------------------
step "bcrypt cost 10: $BCRYPT_HASHES hashes on one core, then $BCRYPT_HASHES on each of $CORES cores"
# Prints "hashes_per_second_one_core hashes_per_second_all_cores". The input is 44 bytes, like the service's
# SHA-256-base64 pre-hash of the password.
read -r PER_CORE ALL_CORES < <("$PYTHON" -W ignore - "$BCRYPT_HASHES" "$CORES" <<'PY'
import crypt, multiprocessing, sys, time
hashes, cores = int(sys.argv[1]), int(sys.argv[2])
salt = crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)  # $2b$10$: cost 10
def work(n):
    for i in range(n):
        crypt.crypt("%044d" % i, salt)
def rate(processes):
    workers = [multiprocessing.Process(target=work, args=(hashes,)) for _ in range(processes)]
    start = time.perf_counter()
    for w in workers: w.start()
    for w in workers: w.join()
    return processes * hashes / (time.perf_counter() - start)
work(1)  # warm-up
print("%.2f %.2f" % (rate(1), rate(cores)))
PY
)
[ -n "${ALL_CORES:-}" ] || fail "timing bcrypt with $PYTHON failed"
awk -v p="$PER_CORE" -v a="$ALL_CORES" -v c="$CORES" 'BEGIN {
  printf "    one core: %.1f hashes/s (%.1f ms per hash); all %d cores: %.1f hashes/s\n", p, 1000 / p, c, a }'
ok "ceiling for logins/s on this machine: $ALL_CORES"

# --- services -----------------------------------------------------------------------------------------------
step "infrastructure (PostgreSQL and the broker)"
bench_require_infra auth_service
ok "postgres on $PG_PORT, broker on $BROKER_PORT"

bench_binaries AuthService Gateway

for port in $AUTH_PORT $BENCH_GATEWAY_PORT; do require_port_free "$port" benchmark; done
# The real routes of the auth service, without rate limits: the point is what the service itself can do.
bench_routes "$WORK/routes.json"

EMAILS=(); TOKENS=()
PASSWORD="bench-$(openssl rand -hex 12)"
cleanup() {
  if [ "${BENCH_KEEP_USERS:-0}" != 1 ] && [ ${#TOKENS[@]} -gt 0 ] && [ -n "${GATEWAY_PID:-}" ]; then
    # Tokens from registration; logins later opened more sessions, which go with the account.
    bench_delete_accounts
  fi
  # shellcheck disable=SC2086  # the pids are words
  bench_stop ${LOGIN_WRK_PID:-} ${GATEWAY_PID:-} ${AUTH_PID:-}
}
trap cleanup EXIT

step "starting AuthService on $AUTH_PORT and the gateway on $BENCH_GATEWAY_PORT"
bench_start_auth "$AUTH_PORT"
wait_for 120 "auth readiness" http_ok "http://127.0.0.1:$AUTH_PORT/health/ready" \
  || fail "AuthService did not become ready; see $WORK/auth.log"
bench_start_gateway "$BENCH_GATEWAY_PORT" "$WORK/routes.json"
ok "AuthService (pid $AUTH_PID, log $WORK/auth.log), gateway (pid $GATEWAY_PID, log $WORK/gateway.log)"
# shellcheck disable=SC2046  # bench_infra_pids prints words
bench_print_rss "idle, before load" auth:"$AUTH_PID" gateway:"$GATEWAY_PID" $(bench_infra_pids)

step "registering $USERS users through the gateway"
RUN_ID="$(date +%s)-$$"
for i in $(seq "$USERS"); do
  email="bench-$RUN_ID-$i@example.com"
  answer=$(curl -sS --max-time 30 -w '\n%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$PASSWORD\",\"displayName\":\"Bench $i\"}" "$GATEWAY_URL/api/auth/register")
  [ "$(tail -n 1 <<<"$answer")" = 201 ] || fail "registration of $email answered: $answer"
  EMAILS+=("$email"); TOKENS+=("$(sed '$d' <<<"$answer" | jq -r .accessToken)")
done
code=$(curl -s -o "$WORK/me.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer ${TOKENS[0]}" "$GATEWAY_URL/api/auth/me")
[ "$code" = 200 ] || fail "GET /api/auth/me with a fresh token answered $code: $(cat "$WORK/me.json")"
ok "$USERS users registered; /api/auth/me answers 200 for ${EMAILS[0]}"

# wrk scripts: logins cycle through the users; reads carry one token and pause between requests so that
# READ_CONNECTIONS connections offer at most READ_RATE requests per second (less by the answer time): a steady
# light read load, not a second saturating one.
{
  echo 'local users = {'
  for email in "${EMAILS[@]}"; do printf '  "{\\"email\\":\\"%s\\",\\"password\\":\\"%s\\"}",\n' "$email" "$PASSWORD"; done
  cat <<'LUA'
}
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  counter = counter + 1
  return wrk.format(nil, "/api/auth/login", nil, users[(counter % #users) + 1])
end
LUA
} >"$WORK/login.lua"
READ_DELAY_MS=$(( READ_CONNECTIONS * 1000 / READ_RATE ))
cat >"$WORK/me.lua" <<LUA
wrk.headers["Authorization"] = "Bearer ${TOKENS[0]}"
delay = function() return $READ_DELAY_MS end
LUA
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
  -d "{\"email\":\"${EMAILS[0]}\",\"password\":\"$PASSWORD\"}" "$GATEWAY_URL/api/auth/login")
[ "$code" = 200 ] || fail "a login answered $code"
ok "a login answers 200"

LOGIN_URL="$GATEWAY_URL/api/auth/login"; ME_URL="$GATEWAY_URL/api/auth/me"
login_wrk() { # login_wrk SECONDS: raw wrk output
  wrk -t"$LOGIN_THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency -s "$WORK/login.lua" "$LOGIN_URL"
}
read_wrk() { # read_wrk SECONDS: raw wrk output
  wrk -t1 -c"$READ_CONNECTIONS" -d"${1}s" --timeout 10s --latency -s "$WORK/me.lua" "$ME_URL"
}
# wrk output on stdin -> "ok_per_second p50_us p99_us not_2xx timeouts"
summarize() {
  awk '
    function us(v) { if (v ~ /us$/) return v+0; if (v ~ /ms$/) return (v+0)*1000; if (v ~ /s$/) return (v+0)*1000000; return v }
    / requests in / { requests = $1; d = $4; sub(/,$/, "", d); seconds = us(d) / 1000000 }
    /^ +50%/ { p50 = us($2) }
    /^ +99%/ { p99 = us($2) }
    /Non-2xx or 3xx responses/ { bad = $NF }
    /Socket errors/ { timeouts = $NF }
    END { printf "%.2f %.0f %.0f %d %d\n", (seconds > 0 ? (requests - bad) / seconds : 0), p50, p99, bad, timeouts }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
show() { sed 's/^/    ok\/s p50_us p99_us non-2xx timeouts: /'; }

# --- (b) logins alone, (c) reads alone, then both at once -----------------------------------------------------
step "warm-up (3 s of logins, 3 s of reads)"
login_wrk 3 >/dev/null; read_wrk 3 >/dev/null
ok "warm"

step "logins alone: $RUNS runs of ${DURATION}s, $CONNECTIONS connections"
: >"$WORK/login.runs"
for _ in $(seq "$RUNS"); do login_wrk "$DURATION" | summarize | tee -a "$WORK/login.runs" | show; done

step "reads alone: $RUNS runs of ${DURATION}s, $READ_CONNECTIONS connections pausing ${READ_DELAY_MS} ms between requests (under $READ_RATE/s)"
: >"$WORK/read.runs"
for _ in $(seq "$RUNS"); do read_wrk "$DURATION" | summarize | tee -a "$WORK/read.runs" | show; done

step "reads during logins: $RUNS runs of ${DURATION}s (logins start 1 s before and end 1 s after)"
: >"$WORK/mixed-read.runs"; : >"$WORK/mixed-login.runs"
for _ in $(seq "$RUNS"); do
  wrk -t"$LOGIN_THREADS" -c"$CONNECTIONS" -d"$((DURATION + 2))s" --timeout 10s --latency -s "$WORK/login.lua" "$LOGIN_URL" >"$WORK/mixed-login.out" &
  LOGIN_WRK_PID=$!
  sleep 1
  read_wrk "$DURATION" | summarize | tee -a "$WORK/mixed-read.runs" | sed 's/^/    reads:  /'
  wait "$LOGIN_WRK_PID"; LOGIN_WRK_PID=""
  summarize <"$WORK/mixed-login.out" | tee -a "$WORK/mixed-login.runs" | sed 's/^/    logins: /'
done

# shellcheck disable=SC2046  # bench_infra_pids prints words
bench_print_rss "after the load" auth:"$AUTH_PID" gateway:"$GATEWAY_PID" $(bench_infra_pids)

for phase in login read mixed-read mixed-login; do
  awk -v p="$phase" '{ bad += $4; t += $5 } END { if (bad + t) printf "    warning: %s: %d answers were not 2xx and %d requests timed out\n", p, bad, t }' \
    "$WORK/$phase.runs"
done
col() { cut -d' ' -f"$2" "$WORK/$1.runs" | median; }
echo
echo "bcrypt cost 10 ($PYTHON crypt): $(awk -v p="$PER_CORE" 'BEGIN { printf "%.1f ms per hash", 1000 / p }'); $PER_CORE hashes/s per core; $ALL_CORES hashes/s on $CORES cores (the ceiling for logins/s)"
echo
printf '%-34s %10s %10s %10s\n' "phase (medians)" "2xx/s" "p50 (ms)" "p99 (ms)"
for phase in login read mixed-login mixed-read; do
  case $phase in
    login) label="logins alone" ;; read) label="/api/auth/me alone" ;;
    mixed-login) label="logins during reads" ;; mixed-read) label="/api/auth/me during logins" ;;
  esac
  awk -v l="$label" -v r="$(col "$phase" 1)" -v a="$(col "$phase" 2)" -v b="$(col "$phase" 3)" \
    'BEGIN { printf "%-34s %10.1f %10.1f %10.1f\n", l, r, a / 1000, b / 1000 }'
done
echo
awk -v l="$(col login 1)" -v c="$ALL_CORES" -v u="$(col read 3)" -v d="$(col mixed-read 3)" 'BEGIN {
  printf "logins/s / bcrypt ceiling: %.1f / %.1f = %.2f   (goal: at least 0.80)\n", l, c, l / c
  printf "/api/auth/me p99 during logins / alone: %.1f ms / %.1f ms = %.2f   (goal: at most 2)\n", d / 1000, u / 1000, (u > 0 ? d / u : 0) }'

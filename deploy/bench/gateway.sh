#!/usr/bin/env bash
# Benchmark, not a test: the gateway's forwarding cost, side by side with nginx and the direct call, the cost of a
# private route with a cached token, a token's first request, and a traced gateway. Prints figures beside their
# goals (issues 34 and 52) and the processor model they were measured on; asserts nothing.
#   deploy/bench/gateway.sh [runs=3] [seconds=10] [connections=50]
# Upstream: nginx answering a static 200 (and serving a static JWKS, an empty revocation list, and taking OTLP trace
# exports for the traced gateway). Targets: the upstream directly, nginx proxying to it (keepalive), our gateway
# (release build) on a public route, on a private route with a valid EdDSA token signed here, and a second gateway
# with tracing on (every request sampled, spans exported over OTLP/HTTP) on the public route. wrk on loopback;
# the targets take turns in each of `runs` rounds; medians of the runs are printed, and the ratios to nginx and to
# the public route are taken within each round (a shared machine drifts over minutes) and their medians printed.
# Every request of the token target carries the same token, so after the first one the gateway answers from its
# verified-token cache: the steady state of a signed-in client. A token's first request (signature checked, then
# cached) is measured apart: FIRST_TOKENS fresh tokens, one request each over a new curl connection, beside the same
# number of requests with the cached token made the same way (so connection setup is in both).
# The resident memory (VmRSS and VmHWM) of the gateway and nginx is printed idle (after start) and after the load.
# BENCH_BIN_DIR=/path/to/bin uses the Gateway binary found there instead of building a release one;
# BENCH_BASELINE_BIN_DIR=/path/to/other/bin adds a target `baseline`: the public route on that directory's Gateway (the
# build before a change), taking its turn in each round beside the others, so a before and after are measured in the
# same minutes and their ratios to nginx taken within each round (BENCH_BASELINE_PORT, 18185).
# BENCH_UPSTREAM_PORT (18181), BENCH_NGINX_PORT (18182) and BENCH_GATEWAY_PORT (18183) move the ports.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-10}; CONNECTIONS=${3:-50}
UPSTREAM_PORT=${BENCH_UPSTREAM_PORT:-18181}; NGINX_PROXY_PORT=${BENCH_NGINX_PORT:-18182}; GATEWAY_PORT=${BENCH_GATEWAY_PORT:-18183}
TRACED_GATEWAY_PORT=${BENCH_TRACED_GATEWAY_PORT:-18184}; FIRST_TOKENS=${BENCH_FIRST_TOKENS:-200}
WORK="$LOCAL_DIR/bench"; mkdir -p "$WORK"
TARGETS="direct nginx gateway verified traced"
BASELINE_PORT=${BENCH_BASELINE_PORT:-18185}
if [ -n "${BENCH_BASELINE_BIN_DIR:-}" ]; then
  [ -x "$BENCH_BASELINE_BIN_DIR/Gateway" ] || fail "BENCH_BASELINE_BIN_DIR holds no Gateway: $BENCH_BASELINE_BIN_DIR"
  TARGETS="$TARGETS baseline"
fi
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
say "processor: ${CPU_MODEL:-unknown} ($(nproc) cores available)"

step "tools (wrk, nginx from Debian; openssl)"
bench_tools wrk nginx-light
command -v openssl >/dev/null || fail "openssl is needed to make the signing key"
ok "wrk, nginx and openssl present"

bench_binaries Gateway
GATEWAY_BIN="$BIN_DIR/Gateway"

step "signing key, JWKS and an access token"
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
uuid() { cat /proc/sys/kernel/random/uuid; }
KID="bench-$(date +%s)"
(umask 077 && openssl genpkey -algorithm ed25519 -out "$WORK/jwt-key.pem")
# The raw public key is the last 32 bytes of the SubjectPublicKeyInfo DER.
JWK_X=$(openssl pkey -in "$WORK/jwt-key.pem" -pubout -outform DER | tail -c 32 | b64url)
JWKS="{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"alg\":\"EdDSA\",\"use\":\"sig\",\"kid\":\"$KID\",\"x\":\"$JWK_X\"}]}"
sign_token() { # sign_token LIFETIME_SECONDS: a compact JWT the gateway accepts
  local now header payload
  now=$(date +%s)
  header=$(printf '{"alg":"EdDSA","typ":"JWT","kid":"%s"}' "$KID" | b64url)
  payload=$(printf '{"iss":"%s","aud":"%s","sub":"%s","sid":"%s","iat":%d,"exp":%d,"jti":"%s"}' \
    "${JWT_ISSUER:-nutritionai-auth}" "${JWT_AUDIENCE:-nutritionai-api}" "$(uuid)" "$(uuid)" "$now" $((now + $1)) "$(uuid)" | b64url)
  printf '%s.%s' "$header" "$payload" >"$WORK/jwt-signing-input"
  printf '%s.%s.%s' "$header" "$payload" \
    "$(openssl pkeyutl -sign -rawin -inkey "$WORK/jwt-key.pem" -in "$WORK/jwt-signing-input" | b64url)"
}
TOKEN=$(sign_token 3600)
ok "key $KID; token of ${#TOKEN} bytes, valid one hour"

for port in $UPSTREAM_PORT $NGINX_PROXY_PORT $GATEWAY_PORT $TRACED_GATEWAY_PORT; do require_port_free "$port" benchmark; done
[ -n "${BENCH_BASELINE_BIN_DIR:-}" ] && require_port_free "$BASELINE_PORT" benchmark
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  upstream backend { server 127.0.0.1:$UPSTREAM_PORT; keepalive 64; }
  server {
    listen 127.0.0.1:$UPSTREAM_PORT;
    location = /.well-known/jwks.json { default_type application/json; return 200 '$JWKS'; }
    # No session is ever revoked here: the gateway's revocation poll gets an empty page.
    location = /internal/revocations { default_type application/json; return 200 '{"revocations":[],"cursor":"0"}'; }
    # The traced gateway's span exports (OTLP/HTTP): taken and dropped; an empty body is an empty export response.
    location = /v1/traces { default_type application/x-protobuf; return 200 ""; }
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$NGINX_PROXY_PORT;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
cat >"$WORK/routes.json" <<JSON
{ "upstreams": { "bench": "http://127.0.0.1:$UPSTREAM_PORT" },
  "routes": [ { "prefix": "/api/bench", "upstream": "bench", "public": true },
              { "prefix": "/api/private", "upstream": "bench", "public": false } ] }
JSON

cleanup() {
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  [ -n "${GATEWAY_PID:-}" ] && kill "$GATEWAY_PID" 2>/dev/null || true
  [ -n "${TRACED_GATEWAY_PID:-}" ] && kill "$TRACED_GATEWAY_PID" 2>/dev/null || true
  [ -n "${BASELINE_PID:-}" ] && kill "$BASELINE_PID" 2>/dev/null || true
}
trap cleanup EXIT

step "starting nginx and the gateway"
nginx -c "$WORK/nginx.conf"
HTTP_PORT=$GATEWAY_PORT GATEWAY_ROUTES_FILE="$WORK/routes.json" \
  GATEWAY_JWKS_URL="http://127.0.0.1:$UPSTREAM_PORT/.well-known/jwks.json" \
  GATEWAY_REVOCATIONS_URL="http://127.0.0.1:$UPSTREAM_PORT/internal/revocations" LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" \
  "$GATEWAY_BIN" >"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!
HTTP_PORT=$TRACED_GATEWAY_PORT GATEWAY_ROUTES_FILE="$WORK/routes.json" \
  GATEWAY_JWKS_URL="http://127.0.0.1:$UPSTREAM_PORT/.well-known/jwks.json" \
  GATEWAY_REVOCATIONS_URL="http://127.0.0.1:$UPSTREAM_PORT/internal/revocations" LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" \
  OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$UPSTREAM_PORT" OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
  OTEL_TRACES_SAMPLER=always_on OTEL_SERVICE_NAME=gateway-bench \
  "$GATEWAY_BIN" >"$WORK/traced-gateway.log" 2>&1 &
TRACED_GATEWAY_PID=$!
if [ -n "${BENCH_BASELINE_BIN_DIR:-}" ]; then
  HTTP_PORT=$BASELINE_PORT GATEWAY_ROUTES_FILE="$WORK/routes.json" \
    GATEWAY_JWKS_URL="http://127.0.0.1:$UPSTREAM_PORT/.well-known/jwks.json" \
    GATEWAY_REVOCATIONS_URL="http://127.0.0.1:$UPSTREAM_PORT/internal/revocations" LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" \
    "$BENCH_BASELINE_BIN_DIR/Gateway" >"$WORK/baseline-gateway.log" 2>&1 &
  BASELINE_PID=$!
  wait_for 20 "baseline gateway" port_open "$BASELINE_PORT" || fail "the baseline gateway did not start; see $WORK/baseline-gateway.log"
fi
wait_for 20 gateway port_open "$GATEWAY_PORT" || fail "the gateway did not start; see $WORK/gateway.log"
wait_for 20 "traced gateway" port_open "$TRACED_GATEWAY_PORT" || fail "the traced gateway did not start; see $WORK/traced-gateway.log"
gateway_ready() { curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$1/health/ready"; }
wait_for 20 "gateway keys" gateway_ready "$GATEWAY_PORT" || fail "the gateway did not load the JWKS; see $WORK/gateway.log"
wait_for 20 "traced gateway keys" gateway_ready "$TRACED_GATEWAY_PORT" || fail "the traced gateway did not load the JWKS"
status_of() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
code=$(status_of -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$GATEWAY_PORT/api/private")
[ "$code" = 200 ] || fail "the gateway refused the bench token ($code); see $WORK/gateway.log"
code=$(status_of "http://127.0.0.1:$GATEWAY_PORT/api/private")
[ "$code" = 401 ] || fail "the private route answered $code without a token; expected 401"
ok "gateway ready (pid $GATEWAY_PID); private route: 200 with the token, 401 without"
NGINX_PID=$(cat "$WORK/nginx.pid")
memory_pids() { echo "gateway:$GATEWAY_PID nginx:$NGINX_PID nginx-worker:$(pgrep -P "$NGINX_PID" | head -n 1)"; }
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "idle, before load" $(memory_pids)

# One wrk run: prints "requests_per_second p50_us p99_us non_2xx". measure URL [wrk options...]
measure() {
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${@:2}" "$1" | awk '
    function us(v) { if (v ~ /us$/) return v+0; if (v ~ /ms$/) return (v+0)*1000; if (v ~ /s$/) return (v+0)*1000000; return v }
    /Requests\/sec/ { rps = $2 }
    /^ +50%/ { p50 = us($2) }
    /^ +99%/ { p99 = us($2) }
    /Non-2xx or 3xx responses/ { bad = $NF }
    END { printf "%.0f %.0f %.0f %d\n", rps, p50, p99, bad }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Sets url and options (wrk's) for target $1.
target_request() {
  options=()
  case $1 in
    direct) url="http://127.0.0.1:$UPSTREAM_PORT/api/bench" ;;
    nginx) url="http://127.0.0.1:$NGINX_PROXY_PORT/api/bench" ;;
    gateway) url="http://127.0.0.1:$GATEWAY_PORT/api/bench" ;;
    verified) url="http://127.0.0.1:$GATEWAY_PORT/api/private"; options=(-H "Authorization: Bearer $TOKEN") ;;
    traced) url="http://127.0.0.1:$TRACED_GATEWAY_PORT/api/bench" ;;
    baseline) url="http://127.0.0.1:$BASELINE_PORT/api/bench" ;;
  esac
}

step "warm-up: 2 s of each target"
rm -f "$WORK"/*.runs
for target in $TARGETS; do
  target_request "$target"
  wrk -t1 -c10 -d2s "${options[@]}" "$url" >/dev/null
  : >"$WORK/$target.runs"
done
# The targets take turns within each round, so that a shared machine's drift over minutes (it moved nginx's own
# figure by 10 % between runs) falls on all of them alike; each ratio is also taken within its round.
: >"$WORK/round-ratios"
for round in $(seq "$RUNS"); do
  step "round $round of $RUNS: each target ${DURATION}s at $CONNECTIONS connections, in turn"
  for target in $TARGETS; do
    target_request "$target"
    measure "$url" "${options[@]}" | tee -a "$WORK/$target.runs" | sed "s/^/    $(printf '%-9s' "$target") req\/s p50_us p99_us non-2xx: /"
  done
  last() { if [ -s "$WORK/$1.runs" ]; then tail -n 1 "$WORK/$1.runs" | cut -d' ' -f1; else echo 0; fi; }
  # gateway / nginx, cached / public, traced / untraced, baseline / nginx (0 without a baseline)
  ratios=$(awk -v g="$(last gateway)" -v n="$(last nginx)" -v v="$(last verified)" -v t="$(last traced)" -v b="$(last baseline)" \
    'BEGIN { printf "%.3f %.3f %.3f %.3f", g / n, v / g, t / g, b / n }')
  echo "$ratios" >>"$WORK/round-ratios"
  read -r r_gateway r_cached r_traced r_baseline <<<"$ratios"
  say "this round: gateway / nginx $r_gateway, cached token / public $r_cached, traced / untraced $r_traced$([ -n "${BENCH_BASELINE_BIN_DIR:-}" ] && echo ", baseline / nginx $r_baseline")"
done
declare -A RPS P50 P99
for target in $TARGETS; do
  awk -v t="$target" '$4 > 0 { n += $4 } END { if (n) printf "    warning: %s: %d answers were not 2xx; its figures are not of the intended path\n", t, n }' "$WORK/$target.runs"
  RPS[$target]=$(cut -d' ' -f1 "$WORK/$target.runs" | median)
  P50[$target]=$(cut -d' ' -f2 "$WORK/$target.runs" | median)
  P99[$target]=$(cut -d' ' -f3 "$WORK/$target.runs" | median)
done
RATIO_ROUNDS=$(cut -d' ' -f1 "$WORK/round-ratios" | paste -sd' ')
RATIO_MEDIAN=$(cut -d' ' -f1 "$WORK/round-ratios" | median)
CACHED_ROUNDS=$(cut -d' ' -f2 "$WORK/round-ratios" | paste -sd' ')
CACHED_MEDIAN=$(cut -d' ' -f2 "$WORK/round-ratios" | median)
TRACED_ROUNDS=$(cut -d' ' -f3 "$WORK/round-ratios" | paste -sd' ')
TRACED_MEDIAN=$(cut -d' ' -f3 "$WORK/round-ratios" | median)
BASELINE_ROUNDS=$(cut -d' ' -f4 "$WORK/round-ratios" | paste -sd' ')
BASELINE_MEDIAN=$(cut -d' ' -f4 "$WORK/round-ratios" | median)

# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "after the load" $(memory_pids)
# Every request of the traced target is sampled: a span the gateway dropped (its queue full) would flatter the ratio.
SPANS_DROPPED=$(curl -fs --max-time 5 "http://127.0.0.1:$((TRACED_GATEWAY_PORT + 1000))/metrics" \
  | awk '/^gateway_spans_dropped_total/ { n += $NF } END { printf "%d", n }') || SPANS_DROPPED="unknown (no /metrics)"
say "spans the traced gateway dropped: $SPANS_DROPPED"

step "a token's first request: $FIRST_TOKENS fresh tokens, one request each, beside the cached token (curl, a connection each)"
for _ in $(seq "$FIRST_TOKENS"); do sign_token 3600; echo; done >"$WORK/first-tokens"
# Prints the median of curl's total time in microseconds over the requests whose tokens are on standard input.
time_requests() {
  local token
  while read -r token; do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H "Authorization: Bearer $token" "http://127.0.0.1:$GATEWAY_PORT/api/private"
  done | awk '$1 != 200 { bad++ } { printf "%.0f\n", $2 * 1000000 } END { if (bad) printf "warning: %d answers were not 200\n", bad > "/dev/stderr" }' | median
}
FIRST_P50=$(time_requests <"$WORK/first-tokens")
CACHED_P50=$(for _ in $(seq "$FIRST_TOKENS"); do echo "$TOKEN"; done | time_requests)
ok "first request p50 $FIRST_P50 us; cached token p50 $CACHED_P50 us"

echo
printf '%-36s %12s %10s %10s\n' "target (medians)" "req/s" "p50 (us)" "p99 (us)"
for target in $TARGETS; do
  case $target in
    direct) label="direct nginx" ;; nginx) label="nginx proxy" ;;
    gateway) label="gateway, public route" ;; verified) label="gateway, cached token" ;;
    traced) label="gateway traced, public route" ;;
    baseline) label="baseline gateway, public route" ;;
  esac
  printf '%-36s %12s %10s %10s\n' "$label" "${RPS[$target]}" "${P50[$target]}" "${P99[$target]}"
done
echo
printf '%-36s %12s %10s\n' "a token's first request (curl)" "" "$FIRST_P50"
printf '%-36s %12s %10s\n' "cached token, same way (curl)" "" "$CACHED_P50"
echo
say "processor: ${CPU_MODEL:-unknown}"
awk -v rm="$RATIO_MEDIAN" -v rr="$RATIO_ROUNDS" -v cm="$CACHED_MEDIAN" -v cr="$CACHED_ROUNDS" -v tm="$TRACED_MEDIAN" -v tr="$TRACED_ROUNDS" \
  -v bm="$BASELINE_MEDIAN" -v br="$BASELINE_ROUNDS" -v baseline="${BENCH_BASELINE_BIN_DIR:-}" -v dropped="$SPANS_DROPPED" \
  -v g="${RPS[gateway]}" -v n="${RPS[nginx]}" -v v="${RPS[verified]}" -v t="${RPS[traced]}" -v gp="${P50[gateway]}" -v np="${P50[nginx]}" \
  -v dp="${P50[direct]}" -v vp="${P50[verified]}" -v fp="$FIRST_P50" -v cp="$CACHED_P50" 'BEGIN {
  q = sprintf("%c", 39)
  printf "gateway / nginx throughput: %.2f, median of the rounds%s ratios (%s); of the medians %.2f   (goal: at least 1.0; issue 52)\n", rm, q, rr, g / n
  if (baseline != "") printf "baseline gateway / nginx throughput: %.2f, median of the rounds%s ratios (%s)   (the build before, %s)\n", bm, q, br, baseline
  printf "cached token / public throughput: %.2f, median of the rounds%s ratios (%s); of the medians %.2f   (goal: at least 0.95; issue 52)\n", cm, q, cr, v / g
  printf "traced / untraced throughput: %.2f, median of the rounds%s ratios (%s); of the medians %.2f; spans dropped: %s   (goal: at least 0.70, every request sampled; issue 52)\n", tm, q, tr, t / g, dropped
  printf "gateway p50 added over direct: %d us; nginx proxy%ss: %d us   (goal: no more than nginx%ss; issue 52)\n", gp - dp, q, np - dp, q
  printf "cached token p50 added over public: %d us\n", vp - gp
  printf "a token%ss first request p50 added over a cached one: %d us (signature check and cache entry)\n", q, fp - cp }'

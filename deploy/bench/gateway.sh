#!/usr/bin/env bash
# Benchmark, not a test: the gateway's pass-through cost, side by side with nginx and the direct call.
#   deploy/bench/gateway.sh [runs=3] [seconds=10] [connections=50]
# Upstream: nginx answering a static 200. Targets: the upstream directly, nginx proxying to it (keepalive),
# and our gateway (release build) proxying to it. wrk on loopback; medians of the runs are printed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

RUNS=${1:-3}; DURATION=${2:-10}; CONNECTIONS=${3:-50}
UPSTREAM_PORT=18181; NGINX_PROXY_PORT=18182; GATEWAY_PORT=18183
WORK="$LOCAL_DIR/bench"; mkdir -p "$WORK"

step "tools (wrk, nginx from Debian)"
for pkg in wrk nginx-light; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null; }
done
ok "wrk and nginx present"

step "building the gateway (release)"
(cd "$REPO_ROOT" && swift build -c release --product Gateway 2>&1 | tail -n 1)
GATEWAY_BIN="$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)/Gateway"

for port in $UPSTREAM_PORT $NGINX_PROXY_PORT $GATEWAY_PORT; do require_port_free "$port" benchmark; done
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  upstream backend { server 127.0.0.1:$UPSTREAM_PORT; keepalive 64; }
  server { listen 127.0.0.1:$UPSTREAM_PORT; location / { return 200 "ok\n"; } }
  server {
    listen 127.0.0.1:$NGINX_PROXY_PORT;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
cat >"$WORK/routes.json" <<JSON
{ "upstreams": { "bench": "http://127.0.0.1:$UPSTREAM_PORT" },
  "routes": [ { "prefix": "/api/bench", "upstream": "bench", "public": true } ] }
JSON

cleanup() {
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  [ -n "${GATEWAY_PID:-}" ] && kill "$GATEWAY_PID" 2>/dev/null || true
}
trap cleanup EXIT
nginx -c "$WORK/nginx.conf"
HTTP_PORT=$GATEWAY_PORT GATEWAY_ROUTES_FILE="$WORK/routes.json" LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" \
  "$GATEWAY_BIN" >"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!
wait_for 20 gateway port_open "$GATEWAY_PORT" || fail "the gateway did not start; see $WORK/gateway.log"

# One wrk run: prints "requests_per_second p50_us p99_us".
measure() {
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$1" | awk '
    function us(v) { if (v ~ /us$/) return v+0; if (v ~ /ms$/) return (v+0)*1000; if (v ~ /s$/) return (v+0)*1000000; return v }
    /Requests\/sec/ { rps = $2 }
    /^ +50%/ { p50 = us($2) }
    /^ +99%/ { p99 = us($2) }
    END { printf "%.0f %.0f %.0f\n", rps, p50, p99 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A RPS P50 P99
for target in direct nginx gateway; do
  case $target in
    direct) url="http://127.0.0.1:$UPSTREAM_PORT/api/bench" ;;
    nginx) url="http://127.0.0.1:$NGINX_PROXY_PORT/api/bench" ;;
    gateway) url="http://127.0.0.1:$GATEWAY_PORT/api/bench" ;;
  esac
  step "$target: $RUNS runs of ${DURATION}s, $CONNECTIONS connections ($url)"
  wrk -t1 -c10 -d2s "$url" >/dev/null  # warm-up
  : >"$WORK/$target.runs"
  for _ in $(seq "$RUNS"); do measure "$url" | tee -a "$WORK/$target.runs" | sed 's/^/    req\/s p50_us p99_us: /'; done
  RPS[$target]=$(cut -d' ' -f1 "$WORK/$target.runs" | median)
  P50[$target]=$(cut -d' ' -f2 "$WORK/$target.runs" | median)
  P99[$target]=$(cut -d' ' -f3 "$WORK/$target.runs" | median)
done

echo
printf '%-28s %12s %10s %10s\n' "target (medians)" "req/s" "p50 (us)" "p99 (us)"
for target in direct nginx gateway; do
  printf '%-28s %12s %10s %10s\n' "$target" "${RPS[$target]}" "${P50[$target]}" "${P99[$target]}"
done
echo
awk -v g="${RPS[gateway]}" -v n="${RPS[nginx]}" -v gp="${P50[gateway]}" -v dp="${P50[direct]}" 'BEGIN {
  printf "gateway / nginx throughput: %.2f   (goal: at least 0.50)\n", g / n
  printf "gateway p50 added over direct: %d us   (goal: at most 150 us)\n", gp - dp }'

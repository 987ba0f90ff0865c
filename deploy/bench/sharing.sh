#!/usr/bin/env bash
# Benchmark, not a test: how fast a shared meal opens, on this machine. Prints figures beside their goal and
# baselines; asserts nothing.
#   deploy/bench/sharing.sh [runs=3] [seconds=10] [connections=50]
# BENCH_SHARING_USERS (20) users are registered through the gateway; each logs BENCH_SHARING_MEALS (10) manual
# meals (POST /api/meals) and shares every one of them (POST /api/share/meal/:id), so there are users x meals
# links (200). wrk then runs at `connections` connections, each request for a random one of the links (a Lua
# script), `runs` times for `seconds` s per target; medians of the runs are printed:
# (a) GET /api/share/:token through the gateway: req/s, p50, p99 (goal: p99 at most 10 ms). Every request opens
#     the link and counts one view (one UPDATE ... RETURNING, committed on its own).
#     Baselines: the same requests straight to the sharing service, and through nginx (keepalive proxy, one
#     worker) to the sharing service, so the gateway's share shows beside a plain proxy's.
# (b) Floors: GET /health/live straight to the sharing service, and the same through the gateway (the bench
#     routes file sends /health/live on to the sharing service, so this is a proxied request that touches no
#     database).
# (c) GET /shared/:token (the HTML page, which counts a view too) through the gateway.
# (d) No lost views: the sum of view_count over the bench's links in sharing.links is read before and after each
#     run of the targets that count views, and set beside the 2xx answers wrk counted. Requests still in flight
#     when wrk stops are answered (and counted) by the service but not by wrk, so the views may exceed the 2xx
#     answers by up to `connections` a run; fewer views than 2xx answers would be lost views.
# CPU time of the gateway, the sharing service and PostgreSQL (all its processes) during each run is read from
# /proc and printed per request, to show where the time goes on the machine's cores.
# Needs PostgreSQL and the broker: `bash deploy/infra.sh start`; wrk, jq and nginx come from Debian. Starts its
# own AuthService (port 18491), MealsService (18492, the source of the meal events and photos), SharingService
# (18493, consumer group BENCH_SHARING_GROUP, "sharing-bench", so that a dev stack's group is left alone),
# Gateway (18494, a routes file without rate limits) and nginx (18495). The first run of a consumer group reads
# the topics from their start: the share requests are retried while they answer 409 meal_not_ready, until the
# sharing service has caught up with the bench's meals. At the end the bench accounts are deleted through the
# gateway (their meals and sharing rows go with `user.deleted`; the bench waits for both purges) and every
# process it started is stopped. The resident memory (VmRSS and VmHWM) of every process it started (nginx's
# master and worker), PostgreSQL's postmaster and the broker is printed idle (after start, before load) and after
# the load.
# Environment: BENCH_BIN_DIR (use the binaries there instead of building release ones), BENCH_AUTH_PORT,
# BENCH_MEALS_PORT, BENCH_SHARING_PORT, BENCH_GATEWAY_PORT, BENCH_NGINX_PORT, BENCH_SHARING_USERS (20),
# BENCH_SHARING_MEALS (meals shared per user, 10), BENCH_SHARING_GROUP (sharing-bench), BENCH_CATCHUP_SECONDS
# (most seconds to wait for the consumer group to catch up, 900), BENCH_KEEP_USERS=1 (keep the bench accounts
# and their data), BENCH_LOG_LEVEL (info).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/broker.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-10}; CONNECTIONS=${3:-50}
AUTH_PORT=${BENCH_AUTH_PORT:-18491}; MEALS_PORT=${BENCH_MEALS_PORT:-18492}; SHARING_PORT=${BENCH_SHARING_PORT:-18493}
BENCH_GATEWAY_PORT=${BENCH_GATEWAY_PORT:-18494}; NGINX_PORT=${BENCH_NGINX_PORT:-18495}
USERS=${BENCH_SHARING_USERS:-20}; MEALS_PER_USER=${BENCH_SHARING_MEALS:-10}
SHARING_GROUP=${BENCH_SHARING_GROUP:-sharing-bench}; CATCHUP_SECONDS=${BENCH_CATCHUP_SECONDS:-900}
THREADS=$(( CONNECTIONS < 2 ? 1 : 2 ))
WORK="$LOCAL_DIR/bench/sharing"; mkdir -p "$WORK"
GATEWAY_URL="http://127.0.0.1:$BENCH_GATEWAY_PORT"; SHARING_URL="http://127.0.0.1:$SHARING_PORT"
MEALS_URL="http://127.0.0.1:$MEALS_PORT"; NGINX_URL="http://127.0.0.1:$NGINX_PORT"
RUN_ID="$(date +%s)-$$"
# Targets in the order they run; those that count views are checked against sharing.links.
TARGETS="gateway direct nginx live-gateway live-direct page"
VIEW_TARGETS="gateway direct nginx page"

step "tools (wrk, jq, nginx from Debian; curl, psql)"
bench_tools wrk jq nginx-light
command -v curl >/dev/null || fail "curl is needed"
command -v psql >/dev/null || fail "psql is needed (Debian's postgresql-client)"
ok "wrk, jq, nginx, curl and psql present"

step "infrastructure (PostgreSQL and the broker)"
bench_require_infra auth_service meals_service sharing_service
[ -s "$FOOD_DATA_FILE" ] || fail "no food table at $FOOD_DATA_FILE; run: bash deploy/setup.sh"
ok "postgres on $PG_PORT, broker on $BROKER_PORT"

bench_binaries AuthService MealsService SharingService Gateway

for port in $AUTH_PORT $MEALS_PORT $SHARING_PORT $BENCH_GATEWAY_PORT $NGINX_PORT; do require_port_free "$port" benchmark; done
# The real routes of these services, without rate limits; /health/live goes on to the sharing service (floor b).
bench_routes "$WORK/routes.json" \
  '"meals": "http://127.0.0.1:'"$MEALS_PORT"'", "sharing": "http://127.0.0.1:'"$SHARING_PORT"'"' \
  '{ "prefix": "/api/meals", "upstream": "meals", "public": false },
    { "prefix": "/api/share/meal", "upstream": "sharing", "public": false },
    { "prefix": "/api/share", "upstream": "sharing", "public": true },
    { "prefix": "/shared", "upstream": "sharing", "public": true },
    { "prefix": "/health/live", "upstream": "sharing", "public": true }'
# nginx as gateway.sh runs it: one worker, keepalive connections to the upstream, no access log.
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  upstream sharing { server 127.0.0.1:$SHARING_PORT; keepalive 64; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { proxy_pass http://sharing; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF

db() { psql_admin -d "$PG_DATABASE" -tA -F' ' "$@"; } # db -c SQL...: unaligned rows
bench_users() { printf "SELECT unnest('{%s}'::uuid[]) AS user_id" "$(IFS=,; echo "${USER_IDS[*]}")"; }
view_sum() { db -c "SELECT coalesce(sum(l.view_count), 0) FROM sharing.links l JOIN ($(bench_users)) u USING (user_id)"; }
purged() { # the sharing and meals services hold no rows of the bench users, and sharing remembers them as deleted
  [ "$(db -c "WITH u AS ($(bench_users)) SELECT (SELECT count(*) FROM u) - (SELECT count(*) FROM sharing.deleted_users d JOIN u USING (user_id))
    + (SELECT count(*) FROM sharing.links x JOIN u USING (user_id)) + (SELECT count(*) FROM sharing.meals x JOIN u USING (user_id))
    + (SELECT count(*) FROM meals.meals x JOIN u USING (user_id))")" = 0 ]
}
CLOCK_TICKS=$(getconf CLK_TCK)
cpu_ticks() { # cpu_ticks PID...: "pid ticks" a line, the user + system clock ticks each process has used so far
  local pid
  for pid in "$@"; do cat "/proc/$pid/stat" 2>/dev/null || true; done | awk '{ pid = $1; sub(/^.*\) /, ""); print pid, $12 + $13 }'
}
cpu_snapshot() { # cpu_snapshot FILE: the ticks of the gateway, the sharing service and every PostgreSQL process
  # shellcheck disable=SC2046  # pids are words
  { cpu_ticks "$GATEWAY_PID" | sed 's/^/gateway /'; cpu_ticks "$SHARING_PID" | sed 's/^/sharing /'
    cpu_ticks $(pgrep -u postgres) | sed 's/^/postgres /'; } >"$1"
}
# Per process, so that a PostgreSQL process that ends meanwhile takes nothing away; one that starts counts whole.
# PostgreSQL is shared: other sessions on the machine count too.
cpu_per_answer() { # cpu_per_answer BEFORE AFTER ANSWERS -> "gateway_us sharing_us postgres_us" of CPU per answer
  awk -v hz="$CLOCK_TICKS" -v n="$3" 'NR == FNR { b[$1 " " $2] = $3; next }
    { k = $1 " " $2; d[$1] += $3 - (k in b ? b[k] : 0) }
    END { n = (n > 0 ? n : 1); printf "%.0f %.0f %.0f\n", d["gateway"] * 1e6 / hz / n, d["sharing"] * 1e6 / hz / n, d["postgres"] * 1e6 / hz / n }' "$1" "$2"
}

# --- services and cleanup ----------------------------------------------------------------------------------------
TOKENS=(); USER_IDS=(); SHARE_TOKENS=()
PASSWORD="bench-$(openssl rand -hex 12)"
cleanup() {
  set +e
  if [ ${#USER_IDS[@]} -gt 0 ]; then
    if [ "${BENCH_KEEP_USERS:-0}" = 1 ]; then
      say "BENCH_KEEP_USERS=1: keeping the ${#USER_IDS[@]} bench accounts, their meals and links"
    elif [ -n "${GATEWAY_PID:-}" ]; then
      bench_delete_accounts
      if wait_for 120 "purge in sharing and meals" purged; then
        say "the sharing and meals services purged every bench user"
      else
        say "warning: the bench users' rows were not all purged in 120 s; deleting their sharing rows directly"
        db -c "WITH u AS ($(bench_users)), l AS (DELETE FROM sharing.links x USING u WHERE x.user_id = u.user_id)
          , p AS (DELETE FROM sharing.meal_photos x USING u WHERE x.user_id = u.user_id)
          DELETE FROM sharing.meals x USING u WHERE x.user_id = u.user_id"
      fi
    fi
  fi
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null
  # shellcheck disable=SC2086  # the pids are words
  bench_stop ${GATEWAY_PID:-} ${SHARING_PID:-} ${MEALS_PID:-} ${AUTH_PID:-}
}
trap cleanup EXIT

step "starting AuthService on $AUTH_PORT, MealsService on $MEALS_PORT, SharingService on $SHARING_PORT (group $SHARING_GROUP), the gateway on $BENCH_GATEWAY_PORT, nginx on $NGINX_PORT"
for name in auth meals sharing; do : >"$WORK/$name.log"; done
rm -f "$WORK/nginx.pid"
bench_start_auth "$AUTH_PORT"
bench_start_service meals "$MEALS_PORT" MEALS_FOOD_DATA_FILE="$FOOD_DATA_FILE" \
  MEALS_PHOTO_ENCRYPTION_KEY="$(dev_symmetric_key meals-photo-encryption)"
MEALS_PID=$SERVICE_PID
bench_start_service sharing "$SHARING_PORT" SHARING_CONSUMER_GROUP="$SHARING_GROUP" SHARING_MEALS_URL="$MEALS_URL" \
  SHARING_PUBLIC_BASE_URL="$GATEWAY_URL" SHARING_PHOTO_ENCRYPTION_KEY="$(dev_symmetric_key sharing-photo-encryption)"
SHARING_PID=$SERVICE_PID
wait_for 120 "auth readiness" http_ok "http://127.0.0.1:$AUTH_PORT/health/ready" || fail "AuthService did not become ready; see $WORK/auth.log"
wait_for 180 "meals readiness" http_ok "$MEALS_URL/health/ready" || fail "MealsService did not become ready; see $WORK/meals.log"
wait_for 120 "sharing readiness" http_ok "$SHARING_URL/health/ready" || fail "SharingService did not become ready; see $WORK/sharing.log"
bench_start_gateway "$BENCH_GATEWAY_PORT" "$WORK/routes.json"
nginx -c "$WORK/nginx.conf" || fail "nginx did not start; see $WORK/nginx-error.log"
wait_for 20 nginx port_open "$NGINX_PORT" || fail "nginx did not listen on $NGINX_PORT; see $WORK/nginx-error.log"
ok "AuthService (pid $AUTH_PID), MealsService (pid $MEALS_PID), SharingService (pid $SHARING_PID), gateway (pid $GATEWAY_PID), nginx (pid $(cat "$WORK/nginx.pid")); logs in $WORK"
say "run id $RUN_ID: the bench accounts are bench-sharing-$RUN_ID-<n>@example.com"
NGINX_PID=$(cat "$WORK/nginx.pid")
memory_pids() { # NAME:PID words for bench_print_rss: every process started here, then the infrastructure
  echo "auth:$AUTH_PID meals:$MEALS_PID sharing:$SHARING_PID gateway:$GATEWAY_PID nginx:$NGINX_PID" \
    "nginx-worker:$(pgrep -P "$NGINX_PID" | head -n 1) $(bench_infra_pids)"
}
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "idle, before load" $(memory_pids)

# --- users, meals, links -------------------------------------------------------------------------------------------
step "registering $USERS users through the gateway, $MEALS_PER_USER meals each"
MEAL_IDS=(); MEAL_OWNERS=()
for i in $(seq "$USERS"); do
  email="bench-sharing-$RUN_ID-$i@example.com"
  answer=$(curl -sS --max-time 30 -w '\n%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$PASSWORD\",\"displayName\":\"Bench $i\"}" "$GATEWAY_URL/api/auth/register")
  [ "$(tail -n 1 <<<"$answer")" = 201 ] || fail "registration of $email answered: $answer"
  body=$(sed '$d' <<<"$answer")
  TOKENS+=("$(jq -r .accessToken <<<"$body")"); USER_IDS+=("$(jq -r .user.id <<<"$body" | tr '[:upper:]' '[:lower:]')")
  for m in $(seq "$MEALS_PER_USER"); do
    meal=$(jq -cn --arg title "Salmon and greens $m" --argjson kcal $((380 + m * 7)) \
      '{title: $title, items: [{name: "Plate", grams: 350, calories: $kcal, protein: 32, carbs: 12, fat: 24}]}')
    code=$(curl -s -o "$WORK/meal.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
      -H "Authorization: Bearer ${TOKENS[-1]}" -d "$meal" "$GATEWAY_URL/api/meals") || true
    [ "$code" = 201 ] || fail "POST /api/meals answered $code: $(head -c 400 "$WORK/meal.json")"
    MEAL_IDS+=("$(jq -r .id "$WORK/meal.json")"); MEAL_OWNERS+=("$((i - 1))")
  done
done
ok "$USERS users registered, ${#MEAL_IDS[@]} meals logged"

step "sharing the ${#MEAL_IDS[@]} meals (retried while the sharing service answers 409 meal_not_ready, up to $CATCHUP_SECONDS s)"
say "a consumer group's first run reads the topics from their start; the first shares wait until it has caught up"
share() { # share INDEX: shares meal INDEX as its owner; appends its token to SHARE_TOKENS, 1 while not ready yet
  local code
  code=$(curl -s -o "$WORK/share.json" -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' \
    -H "Authorization: Bearer ${TOKENS[${MEAL_OWNERS[$1]}]}" -d '{}' "$GATEWAY_URL/api/share/meal/${MEAL_IDS[$1]}") || true
  case $code in
    201) SHARE_TOKENS+=("$(jq -r .token "$WORK/share.json")") ;;
    409) [ "$(jq -r '.error.code // .code // empty' "$WORK/share.json" 2>/dev/null)" = meal_not_ready ] \
      || fail "POST /api/share/meal answered 409: $(head -c 400 "$WORK/share.json")"; return 1 ;;
    *) fail "POST /api/share/meal answered $code: $(head -c 400 "$WORK/share.json")" ;;
  esac
}
started=$SECONDS; deadline=$((SECONDS + CATCHUP_SECONDS))
for index in "${!MEAL_IDS[@]}"; do
  until share "$index"; do
    [ $SECONDS -lt $deadline ] || fail "the sharing service had not caught up after $CATCHUP_SECONDS s; see $WORK/sharing.log"
    sleep 1
  done
done
ok "${#SHARE_TOKENS[@]} links made in $((SECONDS - started)) s"
code=$(curl -s -o "$WORK/view.json" -w '%{http_code}' --max-time 10 "$GATEWAY_URL/api/share/${SHARE_TOKENS[0]}") || true
[ "$code" = 200 ] || fail "GET /api/share/:token through the gateway answered $code: $(head -c 400 "$WORK/view.json")"
code=$(curl -s -o "$WORK/page.html" -w '%{http_code}' --max-time 10 "$GATEWAY_URL/shared/${SHARE_TOKENS[0]}") || true
[ "$code" = 200 ] || fail "GET /shared/:token through the gateway answered $code: $(head -c 400 "$WORK/page.html")"
for url in "$SHARING_URL/api/share/${SHARE_TOKENS[0]}" "$NGINX_URL/api/share/${SHARE_TOKENS[0]}" "$GATEWAY_URL/health/live" "$SHARING_URL/health/live"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$url") || true
  [ "$code" = 200 ] || fail "GET $url answered $code"
done
say "a view is $(wc -c <"$WORK/view.json") bytes of JSON, the page $(wc -c <"$WORK/page.html") bytes of HTML"
ok "every target answers 200"

# --- load ----------------------------------------------------------------------------------------------------------
random_lua() { # random_lua FILE PATH_FORMAT: wrk requests PATH_FORMAT (%s: a share token) for a random link each time
  {
    echo 'local tokens = {'
    printf '  "%s",\n' "${SHARE_TOKENS[@]}"
    cat <<LUA
}
local requests = {}
local threads = 0
-- Each thread has its own seed, so the threads do not ask for the same links in the same order.
function setup(thread) thread:set("seed", threads * 7919 + 1); threads = threads + 1 end
function init(args)
  math.randomseed(os.time() + (seed or 0))
  for i, token in ipairs(tokens) do requests[i] = wrk.format("GET", string.format("$2", token)) end
end
function request() return requests[math.random(#requests)] end
LUA
  } >"$1"
}
random_lua "$WORK/view.lua" "/api/share/%s"
random_lua "$WORK/page.lua" "/shared/%s"

load() { # load SECONDS TARGET: raw wrk output
  local script=() url
  case $2 in
    gateway) script=(-s "$WORK/view.lua"); url=$GATEWAY_URL ;; direct) script=(-s "$WORK/view.lua"); url=$SHARING_URL ;;
    nginx) script=(-s "$WORK/view.lua"); url=$NGINX_URL ;; page) script=(-s "$WORK/page.lua"); url=$GATEWAY_URL ;;
    live-gateway) url="$GATEWAY_URL/health/live" ;; live-direct) url="$SHARING_URL/health/live" ;;
  esac
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency "${script[@]}" "$url"
}
ok_count() { awk '/ requests in / { n = $1 } /Non-2xx or 3xx responses/ { bad = $NF } END { print n - bad }'; } # wrk output -> 2xx answers
show() { sed 's/^/    ok\/s p50_us p99_us non-2xx socket-errors: /'; }

step "warm-up (3 s each target)"
for target in $TARGETS; do load 3 "$target" >/dev/null; done
ok "warm"
for target in $TARGETS; do
  case $target in
    gateway) what="(a) GET /api/share/:token through the gateway" ;;
    direct) what="(a) baseline: the same straight to the sharing service" ;;
    nginx) what="(a) baseline: the same through nginx" ;;
    live-gateway) what="(b) floor: GET /health/live through the gateway to the sharing service" ;;
    live-direct) what="(b) floor: GET /health/live straight to the sharing service" ;;
    page) what="(c) GET /shared/:token (HTML) through the gateway" ;;
  esac
  step "$what: $RUNS runs of ${DURATION}s, $CONNECTIONS connections over ${#SHARE_TOKENS[@]} links"
  : >"$WORK/$target.runs"; : >"$WORK/$target.views"; : >"$WORK/$target.cpu"
  for _ in $(seq "$RUNS"); do
    before=$(view_sum)
    cpu_snapshot "$WORK/cpu.before"
    load "$DURATION" "$target" >"$WORK/last.wrk"
    cpu_snapshot "$WORK/cpu.after"
    sleep 1 # the answers still in flight when wrk stopped are counted by now
    after=$(view_sum)
    # -> "views_counted 2xx_answers"
    echo "$((after - before)) $(ok_count <"$WORK/last.wrk")" >>"$WORK/$target.views"
    cpu_per_answer "$WORK/cpu.before" "$WORK/cpu.after" "$(ok_count <"$WORK/last.wrk")" >>"$WORK/$target.cpu"
    bench_wrk_summary <"$WORK/last.wrk" | tee -a "$WORK/$target.runs" | show
  done
  awk '{ g += $1; s += $2; p += $3 } END { printf "    CPU per answer (mean of the runs): gateway %.0f us, sharing %.0f us, PostgreSQL %.0f us\n", g / NR, s / NR, p / NR }' \
    "$WORK/$target.cpu"
done
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "after the load" $(memory_pids)
for target in $TARGETS; do
  awk -v p="$target" '{ bad += $4; e += $5 } END { if (bad + e) printf "    warning: %s: %d answers were not 2xx and %d socket errors; the figures are not of the intended path\n", p, bad, e }' \
    "$WORK/$target.runs"
done

# --- summary --------------------------------------------------------------------------------------------------------
col() { cut -d' ' -f"$2" "$WORK/$1.runs" | bench_median; }
ms() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1000 }'; }
figures() { echo "$(ms "$(col "$1" 3)") ms (p50 $(ms "$(col "$1" 2)") ms, $(col "$1" 1) req/s)"; }
cpu_of() { awk '{ g += $1; s += $2; p += $3 } END { printf "gateway %.0f / sharing %.0f / PostgreSQL %.0f us", g / NR, s / NR, p / NR }' "$WORK/$1.cpu"; }
verdict() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g ? "met" : "not met") }'; }
row() { printf '| %-52s | %-44s | %-20s | %-7s |\n' "$@"; }
VIEWS=0; ANSWERS=0
for target in $VIEW_TARGETS; do
  read -r v a < <(awk '{ v += $1; a += $2 } END { print v + 0, a + 0 }' "$WORK/$target.views")
  VIEWS=$((VIEWS + v)); ANSWERS=$((ANSWERS + a))
done
echo
echo "medians of $RUNS runs of ${DURATION}s at $CONNECTIONS connections, random links of ${#SHARE_TOKENS[@]} ($USERS users); p99 (p50, 2xx/s)"
row "figure" "measured" "goal / baseline" "verdict"
row "----" "----" "----" "----"
row "(a) GET /api/share/:token via gateway, p99" "$(figures gateway)" "goal <= 10 ms" "$(verdict "$(col gateway 3)" 10000)"
row "    baseline: direct to SharingService, p99" "$(figures direct)" "baseline" "-"
row "    baseline: via nginx to SharingService, p99" "$(figures nginx)" "baseline" "-"
row "(b) floor: /health/live via gateway, p99" "$(figures live-gateway)" "floor" "-"
row "    floor: /health/live direct, p99" "$(figures live-direct)" "floor" "-"
row "(c) GET /shared/:token (HTML) via gateway, p99" "$(figures page)" "-" "-"
row "(d) views counted in sharing.links" "$VIEWS" "= 2xx answers" "-"
row "    2xx answers wrk counted (a, c)" "$ANSWERS" "(views - 2xx: $((VIEWS - ANSWERS)))" "$([ "$VIEWS" -ge "$ANSWERS" ] && echo "no loss" || echo "LOST")"
echo
for target in $VIEW_TARGETS live-gateway live-direct; do printf 'CPU per answer, %-13s %s\n' "$target:" "$(cpu_of "$target")"; done
awk -v runs="$(( RUNS * $(wc -w <<<"$VIEW_TARGETS") ))" -v c="$CONNECTIONS" -v d="$((VIEWS - ANSWERS))" 'BEGIN {
  printf "(d) views - 2xx = %d over %d runs: up to %d a run are requests wrk had in flight when it stopped (answered, not counted by wrk)\n", d, runs, c }'
awk -v c="$CONNECTIONS" 'BEGIN { printf "wrk keeps all %d connections busy, so latency is queueing: p99 <= 10 ms there needs about %d req/s or more\n", c, c / 0.010 }'

#!/usr/bin/env bash
# Benchmark, not a test: what the foods service's main reads cost on this machine. Prints figures beside their
# goals and baselines, and the processor model they were measured on; asserts nothing.
#   deploy/bench/foods.sh [runs=3] [seconds=10] [connections=50]
# (a) Products: BENCH_PRODUCTS (500) products created through the gateway with POST /api/foods/products (each a
#     valid EAN-13 of a restricted-circulation prefix, "29", that no retail product carries, with its GS1 check
#     digit; names and brands varied from small word lists, such as "Greek yoghurt 3"), each answer checked to be
#     201. This prepares (b) and (c); it is not timed.
# (b) Barcode look-up of a stored product: GET /api/foods/barcode/{code} through the gateway at `connections`
#     connections, wrk cycling over the stored barcodes with the user's access token; p50/p99 and 2xx/s (goal:
#     p99 at most 10 ms). Beside it: GET /health/live on the gateway at the same connections (the HTTP floor: the
#     gateway answers it itself), and the same look-ups straight to the service (X-User-Id and X-Session-Id of the
#     registered user stand in for the gateway), so the difference is the gateway's share.
# (c) Search of products and USDA foods together: GET /api/foods/search?q=<word>&limit=20 through the gateway, wrk
#     cycling over yoghurt, oat, banana, chicken, rice, apple, cheese, bread (each matches products of (a) and
#     USDA foods); the same figures, and the same searches straight to the service. No goal: compare with (b).
# (d) The resident memory (VmRSS and VmHWM) of every process started here, and of PostgreSQL's postmaster and the
#     broker, idle (after start, before load) and after the load; the foods service's beside the idle goal of
#     every process. The meals service's is printed by deploy/bench/meals.sh (no meals service runs here).
# (e) A barcode we lack while Open Food Facts is slow: BENCH_OFF_LOOKUPS (10) look-ups of codes no one has, one after
#     another through the gateway, with Open Food Facts' stand-in (Tests/StandIns/open_food_facts.py) holding every
#     answer 5 s; each look-up's time to its answer, median and slowest, beside the goal: within 2 s (the look-up's
#     budget, FOODS_OFF_TIMEOUT_SECONDS 1.8, cuts Open Food Facts off). The journey test checks only that it is cut off.
# Needs PostgreSQL and the broker: `bash deploy/infra.sh start`. Starts its own AuthService (port 18384),
# FoodsService (18386, with FOODS_FOOD_DATA_FILE, and Open Food Facts at the stand-in on a port of its own: no call
# leaves the machine) and Gateway (18385, a routes file without rate limits); registers one user. At the end it deletes the user's products
# from the foods schema, with their food.product_changed rows in foods.outbox (an account's products outlive it,
# and the bench's must not stay in everyone's search; the events already published stay on the broker), then the
# account itself.
# Environment: BENCH_BIN_DIR (use the AuthService, FoodsService and Gateway there instead of building release ones),
# BENCH_AUTH_PORT, BENCH_GATEWAY_PORT, BENCH_FOODS_PORT (the ports above), BENCH_PRODUCTS (products created in (a),
# 500, at most 99999), BENCH_OFF_LOOKUPS (look-ups of (e), 10), BENCH_KEEP_USERS=1 (keep the bench account and its
# products), BENCH_LOG_LEVEL (info).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/broker.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-10}; CONNECTIONS=${3:-50}
AUTH_PORT=${BENCH_AUTH_PORT:-18384}; BENCH_GATEWAY_PORT=${BENCH_GATEWAY_PORT:-18385}; FOODS_PORT=${BENCH_FOODS_PORT:-18386}
PRODUCT_COUNT=${BENCH_PRODUCTS:-500}
OFF_LOOKUPS=${BENCH_OFF_LOOKUPS:-10}
[[ "$PRODUCT_COUNT" =~ ^[0-9]+$ ]] && [ "$PRODUCT_COUNT" -ge 1 ] && [ "$PRODUCT_COUNT" -le 99999 ] \
  || fail "BENCH_PRODUCTS must be 1 to 99999 (five digits of the barcode number them), not $PRODUCT_COUNT"
THREADS=$(( CONNECTIONS < 2 ? 1 : 2 ))
WORK="$LOCAL_DIR/bench/foods"; mkdir -p "$WORK"
GATEWAY_URL="http://127.0.0.1:$BENCH_GATEWAY_PORT"; FOODS_URL="http://127.0.0.1:$FOODS_PORT"
SEARCH_WORDS="yoghurt oat banana chicken rice apple cheese bread"
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
say "processor: ${CPU_MODEL:-unknown} ($(nproc) cores available)"

step "tools (wrk, jq from Debian; curl, psql)"
bench_tools wrk jq
command -v curl >/dev/null || fail "curl is needed"
command -v psql >/dev/null || fail "psql is needed (Debian's postgresql-client) to remove the bench products at the end"
ok "wrk, jq, curl and psql present"

# --- services -----------------------------------------------------------------------------------------------
step "infrastructure (PostgreSQL and the broker)"
bench_require_infra auth_service foods_service
[ -s "$FOOD_DATA_FILE" ] || fail "no food table at $FOOD_DATA_FILE; run: bash deploy/setup.sh"
ok "postgres on $PG_PORT, broker on $BROKER_PORT, food table $FOOD_DATA_FILE"

bench_binaries AuthService FoodsService Gateway

for port in $AUTH_PORT $BENCH_GATEWAY_PORT $FOODS_PORT; do require_port_free "$port" benchmark; done
# The real routes of the auth and foods services, without rate limits.
bench_routes "$WORK/routes.json" '"foods": "http://127.0.0.1:'"$FOODS_PORT"'"' \
  '{ "prefix": "/api/foods", "upstream": "foods", "public": false }'

TOKENS=(); USER_IDS=()
PASSWORD="bench-$(openssl rand -hex 12)"
remove_products() { # deletes the bench user's products and their outbox rows from the foods schema; says how many
  local counts products rows
  # An account's products stay when it goes (they become everyone's), so they go here, before the account: the
  # product's versions and reports go with it (ON DELETE CASCADE).
  counts=$(psql_admin -d "$PG_DATABASE" -tA -F' ' -c "WITH p AS (DELETE FROM foods.products WHERE author_id = '${USER_IDS[0]}' RETURNING id),
      o AS (DELETE FROM foods.outbox x USING p WHERE x.message_key = p.id::text RETURNING 1)
    SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM o)") \
    || { say "warning: the bench products could not be removed; they are the products of user ${USER_IDS[0]}"; return 0; }
  read -r products rows <<<"$counts"
  say "removed $products bench products and their $rows rows of foods.outbox"
}
cleanup() {
  set +e
  if [ ${#USER_IDS[@]} -gt 0 ] && [ "${BENCH_KEEP_USERS:-0}" = 1 ]; then
    say "BENCH_KEEP_USERS=1: keeping the bench account ${USER_IDS[0]} and its products"
  elif [ ${#USER_IDS[@]} -gt 0 ]; then
    remove_products
    [ -n "${GATEWAY_PID:-}" ] && bench_delete_accounts
  fi
  # shellcheck disable=SC2086  # the pids are words
  bench_stop ${GATEWAY_PID:-} ${FOODS_PID:-} ${AUTH_PID:-} ${OFF_PID:-}
}
trap cleanup EXIT

check_memory_pids() { # the memory figures read /proc/<pid>: the pids must be the services themselves, not wrappers
  local pair
  for pair in "AuthService:$AUTH_PID" "FoodsService:$FOODS_PID" "Gateway:$GATEWAY_PID"; do
    [ "$(basename "$(readlink "/proc/${pair#*:}/exe")")" = "${pair%%:*}" ] || fail "pid ${pair#*:} is not ${pair%%:*}"
  done
}
step "starting AuthService on $AUTH_PORT, FoodsService on $FOODS_PORT and the gateway on $BENCH_GATEWAY_PORT"
: >"$WORK/foods.log"
bench_start_auth "$AUTH_PORT"
# Open Food Facts is its stand-in, never a call out of the machine; only (e) asks it (the products of (a) are ours).
rm -f "$WORK/off-ready"
python3 "$REPO_ROOT/Tests/StandIns/open_food_facts.py" --port 0 --ready-file "$WORK/off-ready" --per-minute 100000 \
  >"$WORK/off.log" 2>&1 </dev/null &
OFF_PID=$!
wait_for 20 "the Open Food Facts stand-in" test -s "$WORK/off-ready" || fail "the Open Food Facts stand-in did not start; see $WORK/off.log"
OFF_URL="http://127.0.0.1:$(cat "$WORK/off-ready")"
# The breaker never opens in (e): each look-up must meet the slow stand-in, not a breaker's quick refusal. One user adds
# every product of (a): the limit of products an account adds a day (FOODS_PRODUCTS_PER_DAY) is lifted.
bench_start_service foods "$FOODS_PORT" FOODS_FOOD_DATA_FILE="$FOOD_DATA_FILE" FOODS_OFF_BASE_URL="$OFF_URL" \
  FOODS_OFF_USER_AGENT="NutritionAI-Bench/1.0 (bench@nutritionai.example)" FOODS_OFF_BREAKER_FAILURES=1000 \
  FOODS_PRODUCTS_PER_DAY=10000
FOODS_PID=$SERVICE_PID
wait_for 120 "auth readiness" http_ok "http://127.0.0.1:$AUTH_PORT/health/ready" \
  || fail "AuthService did not become ready; see $WORK/auth.log"
# The foods service reads the USDA table into memory at start.
wait_for 180 "foods readiness" http_ok "$FOODS_URL/health/ready" \
  || fail "FoodsService did not become ready (USDA table read); see $WORK/foods.log"
bench_start_gateway "$BENCH_GATEWAY_PORT" "$WORK/routes.json"
check_memory_pids
ok "AuthService (pid $AUTH_PID), FoodsService (pid $FOODS_PID), gateway (pid $GATEWAY_PID); logs in $WORK"
memory_pids() { echo "auth:$AUTH_PID foods:$FOODS_PID gateway:$GATEWAY_PID $(bench_infra_pids)"; }
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "idle, before load" $(memory_pids)
FOODS_IDLE_KB=$(bench_status_kb "$FOODS_PID" VmRSS)

step "registering a user through the gateway"
RUN_ID="$(date +%s)-$$"
email="bench-foods-$RUN_ID@example.com"
answer=$(curl -sS --max-time 30 -w '\n%{http_code}' -H 'Content-Type: application/json' \
  -d "{\"email\":\"$email\",\"password\":\"$PASSWORD\",\"displayName\":\"Bench foods\"}" "$GATEWAY_URL/api/auth/register")
[ "$(tail -n 1 <<<"$answer")" = 201 ] || fail "registration of $email answered: $answer"
body=$(sed '$d' <<<"$answer")
TOKENS+=("$(jq -r .accessToken <<<"$body")"); USER_IDS+=("$(jq -r .user.id <<<"$body" | tr '[:upper:]' '[:lower:]')")
TOKEN=${TOKENS[0]}; USER_ID=${USER_IDS[0]}; SESSION_ID=$(jq -r .sessionId <<<"$body" | tr '[:upper:]' '[:lower:]')
ok "user $USER_ID"

# --- (a) products -------------------------------------------------------------------------------------------------
# Eight kinds of product, one for each search word, with label figures that pass the service's checks (energy
# against the macros); a product's name is its kind and a number, its brand one of five.
KINDS=("Greek yoghurt" "Oat drink" "Banana chips" "Chicken breast slices" "Basmati rice" "Apple sauce" "Cheddar cheese" "Wholemeal bread")
SERVINGS=(150 250 30 100 75 125 30 40)
NUTRIENTS=('{"calories":60,"protein":10,"carbs":3.6,"fat":0.4}' '{"calories":46,"protein":1,"carbs":6.7,"fat":1.5}'
  '{"calories":519,"protein":2.3,"carbs":58,"fat":34}' '{"calories":105,"protein":22,"carbs":1,"fat":1.5}'
  '{"calories":350,"protein":8,"carbs":78,"fat":1}' '{"calories":68,"protein":0.3,"carbs":16,"fat":0.2}'
  '{"calories":410,"protein":25,"carbs":1.3,"fat":34}' '{"calories":247,"protein":10,"carbs":41,"fat":3.4}')
BRANDS=("Northfield" "Green Valley" "Sunny Farm" "Alpine Meadow" "Harbour Kitchen")
ean13() { # ean13 TWELVE_DIGITS: the EAN-13 of that body, with GS1's check digit (weights 1 and 3 from the left)
  local body=$1 sum=0 i
  for ((i = 0; i < 12; i++)); do sum=$(( sum + ${body:i:1} * (i % 2 ? 3 : 1) )); done
  echo "$body$(( (10 - sum % 10) % 10 ))"
}
# "29" (restricted circulation: no retail product), five digits of this run, five of the product: a code a kept
# account of an earlier run is unlikely to hold already.
RUN_TAG=$(printf '%05d' $(( $(od -An -N4 -tu4 /dev/urandom) % 100000 )))
step "(a) creating $PRODUCT_COUNT products through the gateway (EAN-13 barcodes: 29, run tag $RUN_TAG, product number, check digit)"
BARCODES=()
for i in $(seq "$PRODUCT_COUNT"); do
  kind=$(( (i - 1) % ${#KINDS[@]} ))
  barcode=$(ean13 "29$RUN_TAG$(printf '%05d' "$i")")
  product=$(jq -cn --arg barcode "$barcode" --arg name "${KINDS[$kind]} $(( (i - 1) / ${#KINDS[@]} + 1 ))" \
    --arg brand "${BRANDS[$(( (i - 1) % ${#BRANDS[@]} ))]}" --argjson serving "${SERVINGS[$kind]}" --argjson per100g "${NUTRIENTS[$kind]}" \
    '{barcode: $barcode, name: $name, brand: $brand, servingSize: {amount: $serving, unit: "g"}, per100g: $per100g}')
  code=$(curl -s -o "$WORK/product.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $TOKEN" -d "$product" "$GATEWAY_URL/api/foods/products") || true
  [ "$code" = 201 ] || fail "POST /api/foods/products of $barcode answered $code after ${#BARCODES[@]} products: $(head -c 400 "$WORK/product.json")"
  BARCODES+=("$barcode")
done
ok "${#BARCODES[@]} products created; the last: $(jq -c '{barcode, name, brand, per100g}' "$WORK/product.json" | cut -c1-160)"

step "checking the look-up and the search once, through the gateway and directly"
code=$(curl -s -o "$WORK/lookup.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $TOKEN" \
  "$GATEWAY_URL/api/foods/barcode/${BARCODES[0]}") || true
[ "$code" = 200 ] || fail "GET /api/foods/barcode/${BARCODES[0]} through the gateway answered $code: $(head -c 400 "$WORK/lookup.json")"
found=$(jq -r .barcode "$WORK/lookup.json")
[ "$found" = "0${BARCODES[0]}" ] || fail "GET /api/foods/barcode/${BARCODES[0]} answered barcode $found, expected 0${BARCODES[0]}"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "X-User-Id: $USER_ID" -H "X-Session-Id: $SESSION_ID" \
  "$FOODS_URL/api/foods/barcode/${BARCODES[0]}") || true
[ "$code" = 200 ] || fail "GET /api/foods/barcode/${BARCODES[0]} straight to the service answered $code"
say "a product is $(wc -c <"$WORK/lookup.json") bytes"
for word in $SEARCH_WORDS; do
  code=$(curl -s -o "$WORK/search.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $TOKEN" \
    "$GATEWAY_URL/api/foods/search?q=$word&limit=20") || true
  [ "$code" = 200 ] || fail "GET /api/foods/search?q=$word through the gateway answered $code: $(head -c 400 "$WORK/search.json")"
  say "search '$word': $(jq '.results | length' "$WORK/search.json") results ($(jq '[.results[] | select(.kind == "product")] | length' "$WORK/search.json") products), $(wc -c <"$WORK/search.json") bytes; first: $(jq -r '.results[0].name // "-"' "$WORK/search.json" | cut -c1-60)"
done
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "X-User-Id: $USER_ID" -H "X-Session-Id: $SESSION_ID" \
  "$FOODS_URL/api/foods/search?q=oat&limit=20") || true
[ "$code" = 200 ] || fail "GET /api/foods/search?q=oat straight to the service answered $code"
ok "look-up and search answer 200 through the gateway and directly"

# --- wrk scripts ---------------------------------------------------------------------------------------------------
cycling_lua() { # cycling_lua FILE HEADERS PATH...: a wrk script requesting the PATHs in turn, each with HEADERS (a Lua table body)
  local file=$1 headers=$2 path; shift 2
  {
    echo 'local paths = {'
    for path in "$@"; do echo "  \"$path\","; done
    cat <<LUA
}
local headers = { $headers }
local requests = {}
local counter = 0
local threads = 0
-- Each thread starts at a different path, so the connections spread over all of them.
function setup(thread) thread:set("first", threads * 17); threads = threads + 1 end
function init(args)
  for i, path in ipairs(paths) do requests[i] = wrk.format("GET", path, headers) end
  counter = first or 0
end
function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
LUA
  } >"$file"
}
GATEWAY_HEADERS="[\"Authorization\"] = \"Bearer $TOKEN\""
DIRECT_HEADERS="[\"X-User-Id\"] = \"$USER_ID\", [\"X-Session-Id\"] = \"$SESSION_ID\""
LOOKUP_PATHS=(); for barcode in "${BARCODES[@]}"; do LOOKUP_PATHS+=("/api/foods/barcode/$barcode"); done
SEARCH_PATHS=(); for word in $SEARCH_WORDS; do SEARCH_PATHS+=("/api/foods/search?q=$word&limit=20"); done
cycling_lua "$WORK/lookup-gateway.lua" "$GATEWAY_HEADERS" "${LOOKUP_PATHS[@]}"
cycling_lua "$WORK/lookup-direct.lua" "$DIRECT_HEADERS" "${LOOKUP_PATHS[@]}"
cycling_lua "$WORK/search-gateway.lua" "$GATEWAY_HEADERS" "${SEARCH_PATHS[@]}"
cycling_lua "$WORK/search-direct.lua" "$DIRECT_HEADERS" "${SEARCH_PATHS[@]}"

TARGETS="lookup-gateway lookup-direct live-gateway search-gateway search-direct"
load() { # load SECONDS TARGET: raw wrk output
  local url options=()
  case $2 in
    lookup-gateway | search-gateway) url=$GATEWAY_URL; options=(-s "$WORK/$2.lua") ;;
    lookup-direct | search-direct) url=$FOODS_URL; options=(-s "$WORK/$2.lua") ;;
    live-gateway) url="$GATEWAY_URL/health/live" ;;
  esac
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency "${options[@]}" "$url"
}
show() { sed 's/^/    ok\/s p50_us p99_us non-2xx socket-errors: /'; }
col() { cut -d' ' -f"$2" "$WORK/$1.runs" | bench_median; }

# --- (b) look-up, (c) search ---------------------------------------------------------------------------------------
step "warm-up (3 s of each: look-ups and searches through the gateway and directly, /health/live on the gateway)"
for target in $TARGETS; do load 3 "$target" >/dev/null; done
ok "warm"
for target in $TARGETS; do
  case $target in
    lookup-gateway) what="(b) GET /api/foods/barcode/{code} through the gateway, over ${#BARCODES[@]} barcodes" ;;
    lookup-direct) what="(b) baseline: the same look-ups straight to the service" ;;
    live-gateway) what="(b) floor: GET /health/live on the gateway" ;;
    search-gateway) what="(c) GET /api/foods/search?q=<word>&limit=20 through the gateway, over $(wc -w <<<"$SEARCH_WORDS") words" ;;
    search-direct) what="(c) baseline: the same searches straight to the service" ;;
  esac
  step "$what: $RUNS runs of ${DURATION}s, $CONNECTIONS connections"
  : >"$WORK/$target.runs"
  for _ in $(seq "$RUNS"); do load "$DURATION" "$target" | bench_wrk_summary | tee -a "$WORK/$target.runs" | show; done
done
for target in $TARGETS; do
  awk -v p="$target" '{ bad += $4; e += $5 } END { if (bad + e) printf "    warning: %s: %d answers were not 2xx and %d socket errors; the figures are not of the intended path\n", p, bad, e }' \
    "$WORK/$target.runs"
done

# --- (d) memory -------------------------------------------------------------------------------------------------------
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "after the load of (a), (b) and (c)" $(memory_pids)
say "the meals service's resident memory is printed by deploy/bench/meals.sh (no meals service runs here)"
FOODS_AFTER_KB=$(bench_status_kb "$FOODS_PID" VmRSS); FOODS_PEAK_KB=$(bench_status_kb "$FOODS_PID" VmHWM)

# --- (e) a barcode we lack while Open Food Facts is slow ----------------------------------------------------------------
step "(e) $OFF_LOOKUPS look-ups of barcodes no one has, through the gateway, with Open Food Facts' stand-in holding its answers 5 s"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H 'Content-Type: application/json' \
  -d '{"mode":"slow","delaySeconds":5}' "$OFF_URL/_standin/behaviour") || true
[ "$code" = 204 ] || fail "the stand-in refused its slow mode: $code"
: >"$WORK/off-slow.times"
for i in $(seq "$OFF_LOOKUPS"); do
  # "29", a tag of its own and the look-up's number: a code neither the products of (a) nor an earlier run have.
  barcode=$(ean13 "29$(printf '%05d' $(( (10#$RUN_TAG + 50000) % 100000 )))$(printf '%05d' "$i")")
  curl -s -o "$WORK/off-slow.json" -w '%{http_code} %{time_total}\n' --max-time 30 -H "Authorization: Bearer $TOKEN" \
    "$GATEWAY_URL/api/foods/barcode/$barcode" >>"$WORK/off-slow.times" || echo "000 30" >>"$WORK/off-slow.times"
done
OFF_STATUSES=$(awk '{ n[$1]++ } END { for (s in n) printf "%s%s x%d", (k++ ? ", " : ""), s, n[s] }' "$WORK/off-slow.times")
read -r OFF_MEDIAN OFF_SLOWEST < <(sort -n -k2 "$WORK/off-slow.times" | awk '{ t[NR] = $2 } END { printf "%.2f %.2f\n", t[int((NR + 1) / 2)], t[NR] }')
say "answers: $OFF_STATUSES; median $OFF_MEDIAN s, slowest $OFF_SLOWEST s (the last: $(head -c 200 "$WORK/off-slow.json"))"

# --- summary ------------------------------------------------------------------------------------------------------
ms() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1000 }'; }
echo
printf '%-60s %10s %10s %10s\n' "phase (medians of $RUNS runs, $CONNECTIONS connections)" "2xx/s" "p50 (ms)" "p99 (ms)"
for target in $TARGETS; do
  case $target in
    lookup-gateway) label="(b) GET /api/foods/barcode/{code} via gateway" ;;
    lookup-direct) label="    baseline: same look-up direct" ;;
    live-gateway) label="    floor: GET /health/live on the gateway" ;;
    search-gateway) label="(c) GET /api/foods/search?q=<word>&limit=20 via gateway" ;;
    search-direct) label="    baseline: same search direct" ;;
  esac
  awk -v l="$label" -v r="$(col "$target" 1)" -v a="$(col "$target" 2)" -v b="$(col "$target" 3)" \
    'BEGIN { printf "%-60s %10.1f %10.1f %10.1f\n", l, r, a / 1000, b / 1000 }'
done
echo
echo "(b) look-up p99 through the gateway: $(ms "$(col lookup-gateway 3)") ms at $CONNECTIONS connections, $(col lookup-gateway 1) 2xx/s   (goal: at most 10 ms; baseline direct p99 $(ms "$(col lookup-direct 3)") ms, $(col lookup-direct 1) 2xx/s; floor /health/live on the gateway p99 $(ms "$(col live-gateway 3)") ms, $(col live-gateway 1) 2xx/s)"
awk -v g="$(col lookup-gateway 2)" -v d="$(col lookup-direct 2)" -v gr="$(col lookup-gateway 1)" -v dr="$(col lookup-direct 1)" \
  -v lr="$(col live-gateway 1)" 'BEGIN {
  printf "    the gateway adds %.1f ms at p50 and keeps %.2f of the direct throughput; the look-up runs at %.2f of the floor'"'"'s throughput\n",
    (g - d) / 1000, (dr > 0 ? gr / dr : 0), (lr > 0 ? gr / lr : 0) }'
awk -v c="$CONNECTIONS" 'BEGIN { printf "    (wrk keeps all %d connections busy, so latency is queueing: p99 <= 10 ms there needs about %d req/s or more)\n", c, c / 0.010 }'
echo "(c) search p99 through the gateway: $(ms "$(col search-gateway 3)") ms (p50 $(ms "$(col search-gateway 2)") ms), $(col search-gateway 1) 2xx/s   (no goal; compare with the look-up: p99 $(ms "$(col lookup-gateway 3)") ms, $(col lookup-gateway 1) 2xx/s; direct search p99 $(ms "$(col search-direct 3)") ms, $(col search-direct 1) 2xx/s)"
awk -v i="$FOODS_IDLE_KB" -v a="$FOODS_AFTER_KB" -v p="$FOODS_PEAK_KB" 'BEGIN {
  printf "(d) FoodsService resident memory: idle %.1f MB, after the load %.1f MB (peak %.1f MB)   (goal: at most 60 MB idle, as every process; it holds the USDA table in memory, as meals does)\n",
    i / 1024, a / 1024, p / 1024 }'
echo "    the meals service's resident memory: deploy/bench/meals.sh"
echo "(e) a barcode we lack, Open Food Facts holding its answers 5 s: median $OFF_MEDIAN s, slowest $OFF_SLOWEST s over $OFF_LOOKUPS look-ups ($OFF_STATUSES)   (goal: every answer within 2 s)"
say "processor: ${CPU_MODEL:-unknown}"

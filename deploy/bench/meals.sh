#!/usr/bin/env bash
# Benchmark, not a test: what the meals service's main paths cost on this machine. Prints figures beside their
# goals and baselines; asserts nothing.
#   deploy/bench/meals.sh [runs=3] [seconds=15] [connections=50]
# (a) Text analysis server time: wrk POSTs /api/analyze with a JSON text straight to a MealsService started here
#     (X-User-Id and X-Session-Id of a registered user stand in for the gateway), few connections at a modest
#     paced rate; p50/p99 (goal: p99 at most 20 ms). Each request stores one meal: that is the real path.
#     Baseline: GET /health/live on the same service at the same pace (the HTTP floor).
# (b) Meal list: GET /api/meals?limit=20 through the gateway for a user with BENCH_MEALS meals, at `connections`
#     connections; p50/p99 and 2xx/s (goal: p99 at most 25 ms). Baseline: the same request straight to the
#     service, so the difference is the gateway's share.
# (c) Upload memory: BENCH_UPLOADS sequential multipart uploads of a BENCH_UPLOAD_BYTES file that starts with a
#     JPEG signature, through the gateway. Without a vision provider the service answers 503 vision_not_configured
#     after reading and checking the whole body, which is the part measured. Each round resets the peak RSS of
#     the meals service and the gateway (/proc/<pid>/clear_refs) and reads VmHWM afterwards; the growth over the
#     resident size before, divided by the upload size, is printed (goal for the meals service: at most 3x). The
#     first round is the figure; later rounds start with the memory the allocator kept and are shown apart.
# (d) Photo memory: the meals service and the gateway are restarted (VmHWM is a high-water mark, so only fresh
#     processes show what an upload costs over their idle size), then BENCH_UPLOADS sequential
#     `PUT /api/meals/:id/photo` of the same file (Content-Type: image/jpeg, stored without a vision provider) on
#     a meal made for it. Per upload: the peak RSS growth of each process over its size before it (the peak is reset
#     before each upload where /proc/<pid>/clear_refs allows), divided by the upload size; the first upload on the
#     fresh processes is the figure (issue 21: about 5x the photo across the gateway and the meals service today).
# (e) Photo throughput: BENCH_UPLOADS sequential uploads of that file and four times as many downloads of its signed
#     photoUrl, through the gateway; the median request's MB/s, printed beside the figures of the code before photos
#     were sealed at rest when given (BENCH_PHOTO_BASELINE_UP_MBS, BENCH_PHOTO_BASELINE_DOWN_MBS).
#     (d) and (e) upload the file of (c) unless BENCH_PHOTO_FILE names a real photo: the image library cannot read
#     (c)'s random bytes, so only a real photo shows the cost of its thumbnail (made in a child process, whose memory
#     is not the service's).
# The resident memory (VmRSS and VmHWM) of every process started here, and of PostgreSQL's postmaster and the
# broker, is printed idle (after start, before load) and after the load.
# Needs PostgreSQL and the broker: `bash deploy/infra.sh start`. Starts its own AuthService (port 18381),
# MealsService (18382, with MEALS_FOOD_DATA_FILE, no vision provider) and Gateway (18383, a routes file without
# rate limits); registers two users and deletes them again at the end (their meals and photos go with them).
# Environment: BENCH_BIN_DIR (use the AuthService, MealsService and Gateway there instead of building release
# ones), BENCH_AUTH_PORT, BENCH_MEALS_PORT, BENCH_GATEWAY_PORT (the ports above), BENCH_ANALYZE_RATE (most analyses/s offered, 20), BENCH_ANALYZE_CONNECTIONS (2), BENCH_MEALS (meals of
# the list user, 200), BENCH_UPLOADS (uploads per round, 5), BENCH_UPLOAD_BYTES (10000000), BENCH_PHOTO_BASELINE_UP_MBS and
# BENCH_PHOTO_BASELINE_DOWN_MBS ((e)'s figures on the code before photos were sealed, printed beside today's),
# BENCH_PHOTO_FILE (a JPEG for (d) and (e)), BENCH_KEEP_USERS=1 (keep the bench accounts), BENCH_LOG_LEVEL (info).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/broker.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-15}; CONNECTIONS=${3:-50}
AUTH_PORT=${BENCH_AUTH_PORT:-18381}; MEALS_PORT=${BENCH_MEALS_PORT:-18382}; BENCH_GATEWAY_PORT=${BENCH_GATEWAY_PORT:-18383}
ANALYZE_RATE=${BENCH_ANALYZE_RATE:-20}; ANALYZE_CONNECTIONS=${BENCH_ANALYZE_CONNECTIONS:-2}
MEAL_COUNT=${BENCH_MEALS:-200}; UPLOADS=${BENCH_UPLOADS:-5}; UPLOAD_BYTES=${BENCH_UPLOAD_BYTES:-10000000}
LIST_THREADS=$(( CONNECTIONS < 2 ? 1 : 2 ))
WORK="$LOCAL_DIR/bench/meals"; mkdir -p "$WORK"
GATEWAY_URL="http://127.0.0.1:$BENCH_GATEWAY_PORT"; MEALS_URL="http://127.0.0.1:$MEALS_PORT"
ANALYZE_TEXT="2 eggs, a slice of whole wheat toast and 200 ml orange juice"

step "tools (wrk, jq from Debian; curl)"
bench_tools wrk jq
command -v curl >/dev/null || fail "curl is needed"
ok "wrk, jq and curl present"

# --- services -----------------------------------------------------------------------------------------------
step "infrastructure (PostgreSQL and the broker)"
bench_require_infra auth_service meals_service
[ -s "$FOOD_DATA_FILE" ] || fail "no food table at $FOOD_DATA_FILE; run: bash deploy/setup.sh"
ok "postgres on $PG_PORT, broker on $BROKER_PORT, food table $FOOD_DATA_FILE"

bench_binaries AuthService MealsService Gateway

for port in $AUTH_PORT $MEALS_PORT $BENCH_GATEWAY_PORT; do require_port_free "$port" benchmark; done
# The real routes of the auth and meals services, without rate limits; /api/analyze and /api/meals (photos) keep
# their larger body limits.
max_body_of() { # max_body_of PREFIX: the route's maxBodyBytes in deploy/gateway-routes.json, 14745600 when it has none
  local bytes
  bytes=$(jq -r --arg p "$1" '.routes[] | select(.prefix == $p) | .maxBodyBytes // empty' "$REPO_ROOT/deploy/gateway-routes.json")
  echo "${bytes:-14745600}"
}
ANALYZE_MAX_BODY=$(max_body_of /api/analyze); MEALS_MAX_BODY=$(max_body_of /api/meals)
bench_routes "$WORK/routes.json" '"meals": "http://127.0.0.1:'"$MEALS_PORT"'"' \
  '{ "prefix": "/api/analyze", "upstream": "meals", "public": false, "maxBodyBytes": '"$ANALYZE_MAX_BODY"' },
    { "prefix": "/api/meals", "upstream": "meals", "public": false, "maxBodyBytes": '"$MEALS_MAX_BODY"' },
    { "prefix": "/api/custom-meals", "upstream": "meals", "public": false },
    { "prefix": "/media/photos", "upstream": "meals", "public": true }'

TOKENS=(); USER_IDS=()
PASSWORD="bench-$(openssl rand -hex 12)"
meal_count_of() { # meal_count_of USER_ID: meals on the first page of the user's list, straight from the service
  curl -s --max-time 5 -H "X-User-Id: $1" -H "X-Session-Id: $(cat /proc/sys/kernel/random/uuid)" \
    "$MEALS_URL/api/meals?limit=1" | jq -r '.meals | length' 2>/dev/null
}
meals_gone() { [ "$(meal_count_of "$1")" = 0 ]; }
cleanup() {
  if [ "${BENCH_KEEP_USERS:-0}" != 1 ] && [ ${#TOKENS[@]} -gt 0 ] && [ -n "${GATEWAY_PID:-}" ]; then
    bench_delete_accounts
    # The meals go when the meals service consumes user.deleted; give it the time before stopping it.
    if [ -n "${MEALS_PID:-}" ] && kill -0 "$MEALS_PID" 2>/dev/null; then
      local id gone=1
      for id in "${USER_IDS[@]}"; do wait_for 30 "meals of $id deleted" meals_gone "$id" || gone=0; done
      [ "$gone" = 1 ] && say "their meals are deleted too" || say "warning: some bench meals were still there after 30 s"
    fi
  fi
  # shellcheck disable=SC2086  # the pids are words
  bench_stop ${GATEWAY_PID:-} ${MEALS_PID:-} ${AUTH_PID:-}
}
trap cleanup EXIT

start_meals() { # MealsService on MEALS_PORT, waited for until ready; sets MEALS_PID; its log is appended to $WORK/meals.log
  # No vision provider: photos for analysis are read and checked whole, then answered 503 vision_not_configured.
  # shellcheck disable=SC2046
  (cd "$REPO_ROOT" && exec env -u MEALS_VISION_BASE_URL -u MEALS_UPLOAD_MAX_BYTES $(pg_env_for meals) \
    MEALS_FOOD_DATA_FILE="$FOOD_DATA_FILE" MEALS_PHOTO_ENCRYPTION_KEY="$(dev_symmetric_key meals-photo-encryption)" \
    MEALS_PHOTO_URL_KEY="$(dev_symmetric_key meals-photo-url)" KAFKA_BROKERS="127.0.0.1:$BROKER_PORT" HTTP_PORT=$MEALS_PORT \
    LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" "$BIN_DIR/MealsService" >>"$WORK/meals.log" 2>&1 </dev/null) &
  MEALS_PID=$!
  # A first start imports the food table (one transaction), which takes a while.
  wait_for 180 "meals readiness" http_ok "$MEALS_URL/health/ready" \
    || fail "MealsService did not become ready (food table loaded); see $WORK/meals.log"
}
check_memory_pids() { # the memory figures read /proc/<pid>: the pids must be the services themselves, not wrappers
  local pair
  for pair in "MealsService:$MEALS_PID" "Gateway:$GATEWAY_PID"; do
    [ "$(basename "$(readlink "/proc/${pair#*:}/exe")")" = "${pair%%:*}" ] || fail "pid ${pair#*:} is not ${pair%%:*}"
  done
}
step "starting AuthService on $AUTH_PORT, MealsService on $MEALS_PORT and the gateway on $BENCH_GATEWAY_PORT"
: >"$WORK/meals.log"
bench_start_auth "$AUTH_PORT"
start_meals
wait_for 120 "auth readiness" http_ok "http://127.0.0.1:$AUTH_PORT/health/ready" \
  || fail "AuthService did not become ready; see $WORK/auth.log"
bench_start_gateway "$BENCH_GATEWAY_PORT" "$WORK/routes.json"
check_memory_pids
ok "AuthService (pid $AUTH_PID), MealsService (pid $MEALS_PID), gateway (pid $GATEWAY_PID); logs in $WORK"
# shellcheck disable=SC2046  # bench_infra_pids prints words
bench_print_rss "idle, before load" auth:"$AUTH_PID" meals:"$MEALS_PID" gateway:"$GATEWAY_PID" $(bench_infra_pids)

step "registering 2 users through the gateway (one analyses, one lists)"
RUN_ID="$(date +%s)-$$"
SESSION_IDS=()
for i in 1 2; do
  email="bench-meals-$RUN_ID-$i@example.com"
  answer=$(curl -sS --max-time 30 -w '\n%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$PASSWORD\",\"displayName\":\"Bench $i\"}" "$GATEWAY_URL/api/auth/register")
  [ "$(tail -n 1 <<<"$answer")" = 201 ] || fail "registration of $email answered: $answer"
  body=$(sed '$d' <<<"$answer")
  TOKENS+=("$(jq -r .accessToken <<<"$body")"); USER_IDS+=("$(jq -r .user.id <<<"$body")")
  SESSION_IDS+=("$(jq -r .sessionId <<<"$body")")
done
ANALYZE_USER=${USER_IDS[0]}; ANALYZE_SESSION=${SESSION_IDS[0]}; UPLOAD_TOKEN=${TOKENS[0]}
LIST_USER=${USER_IDS[1]}; LIST_SESSION=${SESSION_IDS[1]}; LIST_TOKEN=${TOKENS[1]}
ok "analysing user $ANALYZE_USER, listing user $LIST_USER"

step "checking the three paths once"
ANALYZE_BODY=$(jq -cn --arg text "$ANALYZE_TEXT" '{text: $text}')
code=$(curl -s -o "$WORK/analyze.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
  -H "X-User-Id: $ANALYZE_USER" -H "X-Session-Id: $ANALYZE_SESSION" -d "$ANALYZE_BODY" "$MEALS_URL/api/analyze") || true
[ "$code" = 201 ] || fail "POST /api/analyze (direct) answered $code: $(head -c 400 "$WORK/analyze.json")"
say "analysis: $(jq -r '[.items[]? | "\(.grams) g \(.foodName // .name)"] | join("; ")' "$WORK/analyze.json" 2>/dev/null | cut -c1-160)"
code=$(curl -s -o "$WORK/analyze-gw.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $UPLOAD_TOKEN" -d "$ANALYZE_BODY" "$GATEWAY_URL/api/analyze") || true
[ "$code" = 201 ] || fail "POST /api/analyze through the gateway answered $code: $(head -c 400 "$WORK/analyze-gw.json")"
ok "POST /api/analyze answers 201 directly and through the gateway"

# --- meals for the list user ----------------------------------------------------------------------------------
step "creating $MEAL_COUNT meals for the listing user through the gateway"
MEAL_BODY='{"items":[{"foodId":"09040","grams":100}]}'
created=0
for _ in $(seq "$MEAL_COUNT"); do
  code=$(curl -s -o "$WORK/meal.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $LIST_TOKEN" -d "$MEAL_BODY" "$GATEWAY_URL/api/meals") || true
  [ "$code" = 201 ] || fail "POST /api/meals answered $code after $created meals: $(head -c 400 "$WORK/meal.json")"
  created=$((created + 1))
done
code=$(curl -s -o "$WORK/list.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $LIST_TOKEN" "$GATEWAY_URL/api/meals?limit=20") || true
[ "$code" = 200 ] || fail "GET /api/meals answered $code: $(head -c 400 "$WORK/list.json")"
listed=$(jq -r '.meals | length' "$WORK/list.json")
[ "$listed" = 20 ] || fail "GET /api/meals?limit=20 listed $listed meals, expected 20"
ok "$created meals created; a page of 20 is $(wc -c <"$WORK/list.json") bytes"

# --- wrk scripts and parsing ------------------------------------------------------------------------------------
ANALYZE_DELAY_MS=$(( ANALYZE_CONNECTIONS * 1000 / ANALYZE_RATE ))
cat >"$WORK/analyze.lua" <<LUA
wrk.method = "POST"
wrk.body = '$ANALYZE_BODY'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-User-Id"] = "$ANALYZE_USER"
wrk.headers["X-Session-Id"] = "$ANALYZE_SESSION"
delay = function() return $ANALYZE_DELAY_MS end
LUA
cat >"$WORK/paced.lua" <<LUA
delay = function() return $ANALYZE_DELAY_MS end
LUA
paced_wrk() { # paced_wrk SECONDS SCRIPT URL: raw wrk output
  wrk -t1 -c"$ANALYZE_CONNECTIONS" -d"${1}s" --timeout 10s --latency -s "$2" "$3"
}
list_wrk() { # list_wrk SECONDS URL HEADER...: raw wrk output
  local seconds=$1 url=$2 header options=(); shift 2
  for header in "$@"; do options+=(-H "$header"); done
  wrk -t"$LIST_THREADS" -c"$CONNECTIONS" -d"${seconds}s" --timeout 10s --latency "${options[@]}" "$url"
}
LIST_GATEWAY=("$GATEWAY_URL/api/meals?limit=20" "Authorization: Bearer $LIST_TOKEN")
LIST_DIRECT=("$MEALS_URL/api/meals?limit=20" "X-User-Id: $LIST_USER" "X-Session-Id: $LIST_SESSION")
show() { sed 's/^/    ok\/s p50_us p99_us non-2xx socket-errors: /'; }
col() { cut -d' ' -f"$2" "$WORK/$1.runs" | bench_median; }

# --- (a) text analysis, direct, paced ---------------------------------------------------------------------------
step "warm-up (3 s of analyses, 3 s of health checks, 3 s of lists through the gateway and directly)"
paced_wrk 3 "$WORK/analyze.lua" "$MEALS_URL/api/analyze" >/dev/null
paced_wrk 3 "$WORK/paced.lua" "$MEALS_URL/health/live" >/dev/null
list_wrk 3 "${LIST_GATEWAY[@]}" >/dev/null; list_wrk 3 "${LIST_DIRECT[@]}" >/dev/null
ok "warm"

step "(a) POST /api/analyze (text) straight to the service: $RUNS runs of ${DURATION}s, $ANALYZE_CONNECTIONS connections pausing ${ANALYZE_DELAY_MS} ms (under $ANALYZE_RATE/s)"
: >"$WORK/analyze.runs"
for _ in $(seq "$RUNS"); do paced_wrk "$DURATION" "$WORK/analyze.lua" "$MEALS_URL/api/analyze" | bench_wrk_summary | tee -a "$WORK/analyze.runs" | show; done

step "(a) baseline: GET /health/live on the service at the same pace"
: >"$WORK/live.runs"
for _ in $(seq "$RUNS"); do paced_wrk "$DURATION" "$WORK/paced.lua" "$MEALS_URL/health/live" | bench_wrk_summary | tee -a "$WORK/live.runs" | show; done

# --- (b) meal list, through the gateway and directly --------------------------------------------------------------
step "(b) GET /api/meals?limit=20 through the gateway: $RUNS runs of ${DURATION}s, $CONNECTIONS connections"
: >"$WORK/list-gateway.runs"
for _ in $(seq "$RUNS"); do list_wrk "$DURATION" "${LIST_GATEWAY[@]}" | bench_wrk_summary | tee -a "$WORK/list-gateway.runs" | show; done

step "(b) baseline: the same request straight to the service: $RUNS runs of ${DURATION}s, $CONNECTIONS connections"
: >"$WORK/list-direct.runs"
for _ in $(seq "$RUNS"); do list_wrk "$DURATION" "${LIST_DIRECT[@]}" | bench_wrk_summary | tee -a "$WORK/list-direct.runs" | show; done

for phase in analyze live list-gateway list-direct; do
  awk -v p="$phase" '{ bad += $4; e += $5 } END { if (bad + e) printf "    warning: %s: %d answers were not 2xx and %d socket errors; the figures are not of the intended path\n", p, bad, e }' \
    "$WORK/$phase.runs"
done

# --- (c) upload memory ------------------------------------------------------------------------------------------
step "(c) upload memory: $RUNS rounds of $UPLOADS sequential uploads of $UPLOAD_BYTES bytes through the gateway"
# A JPEG signature, then random bytes: recognised as a photo, so the whole body is read and checked.
{ printf '\xff\xd8\xff\xe0'; head -c "$((UPLOAD_BYTES - 4))" /dev/urandom; } >"$WORK/upload.jpg"
reset_peak() { { echo 5 >"/proc/$1/clear_refs"; } 2>/dev/null; }
if reset_peak "$MEALS_PID" && reset_peak "$GATEWAY_PID"; then
  RESETS=1; say "peak RSS is reset before each round; growth = VmHWM after the round - VmRSS before it"
else
  RESETS=0; say "note: /proc/<pid>/clear_refs is not writable: growth = VmHWM after - VmHWM before (the peak of earlier load may hide it)"
fi
memory_baseline() { # "meals_kb gateway_kb" that growth is measured from: VmRSS just after a peak reset, else the peak so far
  if [ "$RESETS" = 1 ]; then
    reset_peak "$MEALS_PID"; reset_peak "$GATEWAY_PID"
    echo "$(bench_status_kb "$MEALS_PID" VmRSS) $(bench_status_kb "$GATEWAY_PID" VmRSS)"
  else
    echo "$(bench_status_kb "$MEALS_PID" VmHWM) $(bench_status_kb "$GATEWAY_PID" VmHWM)"
  fi
}
memory_growth() { # memory_growth MEALS_BEFORE_KB GATEWAY_BEFORE_KB [BYTES_UPLOADED, else UPLOAD_BYTES] ->
  # "meals_growth_ratio gateway_growth_ratio meals_before_kb meals_peak_kb gateway_before_kb gateway_peak_kb"
  awk -v mb="$1" -v ma="$(bench_status_kb "$MEALS_PID" VmHWM)" -v gb="$2" -v ga="$(bench_status_kb "$GATEWAY_PID" VmHWM)" \
    -v n="${3:-$UPLOAD_BYTES}" 'BEGIN { printf "%.2f %.2f %d %d %d %d\n", (ma - mb) * 1024 / n, (ga - gb) * 1024 / n, mb, ma, gb, ga }'
}
upload() { # upload: one multipart upload through the gateway -> "http_code error_code"
  local code
  : >"$WORK/upload.json"
  # No "Expect: 100-continue": the body goes at once, as from an app.
  code=$(curl -s -o "$WORK/upload.json" -w '%{http_code}' --max-time 60 -H "Authorization: Bearer $UPLOAD_TOKEN" -H 'Expect:' \
    -F "image=@$WORK/upload.jpg;type=image/jpeg" "$GATEWAY_URL/api/analyze") || true
  echo "$code $(jq -r '.error.code // "-"' "$WORK/upload.json" 2>/dev/null || echo '-')"
}
: >"$WORK/upload.runs"; unexpected=0
for round in $(seq "$RUNS"); do
  read -r meals_before gateway_before < <(memory_baseline)
  answers=""; peaks=""
  for _ in $(seq "$UPLOADS"); do
    answer=$(upload); answers+="${answers:+, }$answer"
    [ "$answer" = "503 vision_not_configured" ] || unexpected=$((unexpected + 1))
    peaks+="${peaks:+ }$(( $(bench_status_kb "$MEALS_PID" VmHWM) / 1024 ))/$(( $(bench_status_kb "$GATEWAY_PID" VmHWM) / 1024 ))"
  done
  memory_growth "$meals_before" "$gateway_before" | tee -a "$WORK/upload.runs" | awk -v r="$round" '{
      printf "    round %d: meals %.0f -> peak %.0f MB (growth %.2fx the upload); gateway %.0f -> peak %.0f MB (growth %.2fx)\n",
        r, $3 / 1024, $4 / 1024, $1, $5 / 1024, $6 / 1024, $2 }'
  say "  peak MB after each upload (meals/gateway): $peaks"
  say "  answers: $answers"
done
[ "$unexpected" = 0 ] || say "warning: $unexpected uploads were not answered 503 vision_not_configured; see $WORK/upload.json and $WORK/meals.log"
# shellcheck disable=SC2046  # bench_infra_pids prints words
bench_print_rss "after the load of (a), (b) and (c)" auth:"$AUTH_PID" meals:"$MEALS_PID" gateway:"$GATEWAY_PID" $(bench_infra_pids)

# --- (d) photo memory, on fresh processes ---------------------------------------------------------------------------
PHOTO_FILE=${BENCH_PHOTO_FILE:-$WORK/upload.jpg}
[ -s "$PHOTO_FILE" ] || fail "BENCH_PHOTO_FILE $PHOTO_FILE is not a file"
PHOTO_BYTES=$(stat -c %s "$PHOTO_FILE")
step "(d) photo memory: the meals service and the gateway restarted, then $UPLOADS sequential PUT /api/meals/:id/photo of $PHOTO_FILE ($PHOTO_BYTES bytes)"
bench_stop "$GATEWAY_PID" "$MEALS_PID"; GATEWAY_PID=""; MEALS_PID=""
start_meals
bench_start_gateway "$BENCH_GATEWAY_PORT" "$WORK/routes.json"
check_memory_pids
code=$(curl -s -o "$WORK/photo-meal.json" -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $UPLOAD_TOKEN" -d "$MEAL_BODY" "$GATEWAY_URL/api/meals") || true
[ "$code" = 201 ] || fail "POST /api/meals for the photo answered $code: $(head -c 400 "$WORK/photo-meal.json")"
PHOTO_MEAL_ID=$(jq -r .id "$WORK/photo-meal.json")
ok "fresh MealsService (pid $MEALS_PID) and gateway (pid $GATEWAY_PID); meal $PHOTO_MEAL_ID for the photo"
bench_print_rss "fresh, before the first upload" meals:"$MEALS_PID" gateway:"$GATEWAY_PID"
MEALS_IDLE_KB=$(bench_status_kb "$MEALS_PID" VmRSS); GATEWAY_IDLE_KB=$(bench_status_kb "$GATEWAY_PID" VmRSS)
: >"$WORK/photo.runs"; unexpected=0; MEALS_PEAK_KB=$MEALS_IDLE_KB; GATEWAY_PEAK_KB=$GATEWAY_IDLE_KB
for upload in $(seq "$UPLOADS"); do
  read -r meals_before gateway_before < <(memory_baseline)
  # No "Expect: 100-continue": the body goes at once, as from an app.
  code=$(curl -s -o "$WORK/photo.json" -w '%{http_code}' --max-time 60 -X PUT -H "Authorization: Bearer $UPLOAD_TOKEN" \
    -H 'Content-Type: image/jpeg' -H 'Expect:' --data-binary "@$PHOTO_FILE" "$GATEWAY_URL/api/meals/$PHOTO_MEAL_ID/photo") || true
  [ "$code" = 200 ] || { unexpected=$((unexpected + 1)); say "upload $upload answered $code: $(head -c 300 "$WORK/photo.json")"; }
  growth=$(memory_growth "$meals_before" "$gateway_before" "$PHOTO_BYTES"); echo "$growth" >>"$WORK/photo.runs"
  # The resets lower VmHWM to the size at the reset: the highest peak of all uploads is kept here.
  read -r _ _ _ meals_after _ gateway_after <<<"$growth"
  [ "$meals_after" -le "$MEALS_PEAK_KB" ] || MEALS_PEAK_KB=$meals_after
  [ "$gateway_after" -le "$GATEWAY_PEAK_KB" ] || GATEWAY_PEAK_KB=$gateway_after
  echo "$growth" | awk -v u="$upload" -v c="$code" '{
      printf "    upload %d (%s): meals %.0f -> peak %.0f MB (growth %.2fx the upload); gateway %.0f -> peak %.0f MB (growth %.2fx)\n",
        u, c, $3 / 1024, $4 / 1024, $1, $5 / 1024, $6 / 1024, $2 }'
done
[ "$unexpected" = 0 ] || say "warning: $unexpected photo uploads were not answered 200; see $WORK/photo.json and $WORK/meals.log"
# shellcheck disable=SC2046  # bench_infra_pids prints words
bench_print_rss "after the photo uploads" meals:"$MEALS_PID" gateway:"$GATEWAY_PID" $(bench_infra_pids)

# --- (e) photo throughput (photos are sealed at rest since issue 33) ------------------------------------------------
step "(e) photo throughput: $UPLOADS sequential uploads, then $((UPLOADS * 4)) sequential downloads of the signed photoUrl, $PHOTO_BYTES bytes each"
: >"$WORK/throughput.runs"
for upload in $(seq 1 "$UPLOADS"); do
  curl -s -o "$WORK/photo.json" -w '%{time_total} %{http_code}\n' --max-time 60 -X PUT -H "Authorization: Bearer $UPLOAD_TOKEN" \
    -H 'Content-Type: image/jpeg' -H 'Expect:' --data-binary "@$PHOTO_FILE" "$GATEWAY_URL/api/meals/$PHOTO_MEAL_ID/photo" \
    | awk '{ print "up", $1, $2 }' >>"$WORK/throughput.runs"
done
PHOTO_URL=$(jq -r .photoUrl "$WORK/photo.json")
for download in $(seq 1 $((UPLOADS * 4))); do
  curl -s -o /dev/null -w '%{time_total} %{http_code}\n' --max-time 60 "$GATEWAY_URL$PHOTO_URL" | awk '{ print "down", $1, $2 }' >>"$WORK/throughput.runs"
done
awk '$3 != 200 { bad++ } END { if (bad) printf "    warning: %d photo transfers were not answered 200\n", bad }' "$WORK/throughput.runs"

# --- summary ------------------------------------------------------------------------------------------------------
ms() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1000 }'; }
echo
printf '%-52s %10s %10s %10s\n' "phase (medians of $RUNS runs)" "2xx/s" "p50 (ms)" "p99 (ms)"
for phase in analyze live list-gateway list-direct; do
  case $phase in
    analyze) label="(a) POST /api/analyze text, direct, paced" ;; live) label="    baseline: GET /health/live, same pace" ;;
    list-gateway) label="(b) GET /api/meals?limit=20 via gateway, c$CONNECTIONS" ;;
    list-direct) label="    baseline: same request direct, c$CONNECTIONS" ;;
  esac
  awk -v l="$label" -v r="$(col "$phase" 1)" -v a="$(col "$phase" 2)" -v b="$(col "$phase" 3)" \
    'BEGIN { printf "%-52s %10.1f %10.1f %10.1f\n", l, r, a / 1000, b / 1000 }'
done
echo
echo "(a) analysis p99: $(ms "$(col analyze 3)") ms   (goal: at most 20 ms; baseline /health/live p99 $(ms "$(col live 3)") ms at the same pace)"
echo "(b) list p99 through the gateway: $(ms "$(col list-gateway 3)") ms at $CONNECTIONS connections, $(col list-gateway 1) 2xx/s   (goal: at most 25 ms; baseline direct p99 $(ms "$(col list-direct 3)") ms, $(col list-direct 1) 2xx/s)"
awk -v g="$(col list-gateway 2)" -v d="$(col list-direct 2)" -v gr="$(col list-gateway 1)" -v dr="$(col list-direct 1)" \
  'BEGIN { printf "    the gateway adds %.1f ms at p50 and keeps %.2f of the direct throughput\n", (g - d) / 1000, (dr > 0 ? gr / dr : 0) }'
awk -v c="$CONNECTIONS" 'BEGIN { printf "    (wrk keeps all %d connections busy, so latency is queueing: p99 <= 25 ms there needs about %d req/s or more)\n", c, c / 0.025 }'
# The first round is the figure: later rounds start with the memory the allocator kept from it, so their
# growth shows only what the kept memory did not cover (a median over rounds would hide the first).
later() { tail -n +2 "$WORK/upload.runs" | cut -d' ' -f"$1" | bench_median; }
awk -v n="$UPLOAD_BYTES" -v u="$UPLOADS" -v r="$RUNS" -v m1="$(head -n 1 "$WORK/upload.runs" | cut -d' ' -f1)" \
  -v g1="$(head -n 1 "$WORK/upload.runs" | cut -d' ' -f2)" -v m="$(later 1)" -v g="$(later 2)" 'BEGIN {
  printf "(c) meals peak RSS growth / upload size, %d sequential uploads of %.1f MB: %.2fx   (goal: at most 3x)\n", u, n / 1000000, m1
  printf "    gateway peak RSS growth / upload size: %.2fx   (the pass-through streams a body through; the router, which takes the first request of a token, reads it whole)\n", g1
  if (r > 1) printf "    later rounds, memory already retained (median of %d): meals %.2fx, gateway %.2fx\n", r - 1, m, g }'
later_uploads() { tail -n +2 "$WORK/photo.runs" | cut -d' ' -f"$1" | bench_median; }
awk -v n="$PHOTO_BYTES" -v u="$UPLOADS" -v m1="$(head -n 1 "$WORK/photo.runs" | cut -d' ' -f1)" \
  -v g1="$(head -n 1 "$WORK/photo.runs" | cut -d' ' -f2)" -v m="$(later_uploads 1)" -v g="$(later_uploads 2)" \
  -v mi="$MEALS_IDLE_KB" -v mp="$MEALS_PEAK_KB" -v gi="$GATEWAY_IDLE_KB" -v gp="$GATEWAY_PEAK_KB" 'BEGIN {
  printf "(d) PUT /api/meals/:id/photo of %.1f MB, first upload on fresh processes: peak RSS growth / upload size meals %.2fx + gateway %.2fx = %.2fx   (goal: under 1.5x; before issue 21: 4.39x)\n", n / 1000000, m1, g1, m1 + g1
  if (u > 1) printf "    later uploads, memory already retained (median of %d): meals %.2fx, gateway %.2fx\n", u - 1, m, g
  printf "    all %d uploads, highest peak over the idle RSS: meals +%.1f MB (%.2fx), gateway +%.1f MB (%.2fx)\n", u, (mp - mi) / 1024, (mp - mi) * 1024 / n, (gp - gi) / 1024, (gp - gi) * 1024 / n }'
# Before: the same step on the code before sealing (commit c05edff, BENCH_BIN_DIR with its release binaries).
# Only transfers answered 200 count (a refused one is fast and says nothing of the photo's cost).
median_of() { awk -v d="$1" '$1 == d && $3 == 200 { print $2 }' "$WORK/throughput.runs" | bench_median; }
awk -v n="$PHOTO_BYTES" -v up="$(median_of up)" -v down="$(median_of down)" \
  -v bup="${BENCH_PHOTO_BASELINE_UP_MBS:-}" -v bdown="${BENCH_PHOTO_BASELINE_DOWN_MBS:-}" 'BEGIN {
  printf "(e) photo throughput, sealed at rest, median request: upload %.1f MB/s (%.0f ms), download %.1f MB/s (%.0f ms)\n", n / 1000000 / up, up * 1000, n / 1000000 / down, down * 1000
  if (bup != "") printf "    before sealing (BENCH_PHOTO_BASELINE_UP_MBS, _DOWN_MBS): upload %.1f MB/s, download %.1f MB/s\n", bup, bdown
  else print "    before sealing: run this bench with BENCH_BIN_DIR set to binaries of the commit before sealing, and pass its figures as BENCH_PHOTO_BASELINE_UP_MBS and BENCH_PHOTO_BASELINE_DOWN_MBS" }'

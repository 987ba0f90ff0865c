#!/usr/bin/env bash
# Benchmark, not a test: how fast the trends read model follows the meals and how fast it answers, on this
# machine. Prints figures beside their goals and baselines; asserts nothing.
#   deploy/bench/trends.sh [runs=3] [seconds=20] [connections=50]
# (a) Event latency: `meal.consumed` events are written straight into meals.outbox at a paced BENCH_EVENT_RATE
#     (500/s: a batch committed every BENCH_BATCH_MS, 50 ms, each batch its own transaction) for `seconds` s.
#     The meals service's relay publishes them (woken by the outbox's NOTIFY), the trends service applies them.
#     Latency of an event = trends.inbox.processed_at - meals.outbox.created_at, both stamped by the one
#     database server; p50/p95/p99 (goal: p50 at most 20 ms, p99 at most 100 ms). Baseline: the relay's own
#     part, meals.outbox.sent_at - created_at. The same at BENCH_LOW_EVENT_RATE (100/s) shows the pipeline's own
#     latency when the projection is not saturated. Each round has its own BENCH_SYNTHETIC_USERS users (200)
#     with meals on random days of the last 30, so day summaries are recomputed over realistic days.
# (b) Projection throughput: the trends service is stopped, BENCH_PROJECTION_EVENTS (20,000) events go into the
#     outbox in one transaction and the relay drains them to the broker (its publish rate is the baseline); then
#     the trends service starts again in the same consumer group, so it resumes exactly at those events.
#     Events/s = this run's events / (last - first of their processed_at) (goal: at least 2,000/s; processed_at
#     is the start of the transaction of the event's inbox batch). The CPU time the trends service, PostgreSQL
#     (all its processes) and the broker used meanwhile shows where it goes.
# (c) GET /api/trends?period=30d through the gateway: BENCH_TRENDS_USERS (50) users registered through the
#     gateway, each given 30 days of meals (3 a day) and weigh-ins through the outbox, then wrk at `connections`
#     connections rotating over their tokens; req/s, p50, p99 (goal: p99 at most 25 ms). Baselines: the same
#     requests straight to the trends service (X-User-Id and X-Session-Id as the gateway sets them),
#     GET /health/live on it (the HTTP floor) and GET /health/live on the gateway (the floor of issue 21's goal:
#     the read through the gateway at >= 0.5x of it).
# Needs PostgreSQL and the broker: `bash deploy/infra.sh start`. Starts its own AuthService (port 18481),
# MealsService (18482, for its outbox relay), Gateway (18483, a routes file without rate limits) and
# TrendsService (18484, consumer group BENCH_TRENDS_GROUP, "trends-bench"). The first run of a consumer group
# reads the topics from their start: the warm-up waits until it has caught up. At the end the bench accounts
# are deleted (their trends rows go with `user.deleted`); the synthetic users get a `user.deleted` through the
# auth outbox, and every outbox row the bench wrote is removed from meals.outbox (a round's as soon as it is
# measured, so that it does not slow the relay of the next rounds). The resident memory (VmRSS and VmHWM) of every
# process it started, PostgreSQL's postmaster and the broker is printed idle (after start, before load) and after
# the load of (c) (the trends process then is the one (b) started last).
# Environment: BENCH_BIN_DIR (use the binaries there instead of building release ones), BENCH_AUTH_PORT,
# BENCH_MEALS_PORT, BENCH_GATEWAY_PORT, BENCH_TRENDS_PORT, BENCH_EVENT_RATE (500), BENCH_LOW_EVENT_RATE (100),
# BENCH_BATCH_MS (50), BENCH_SYNTHETIC_USERS (200), BENCH_WARMUP_SECONDS (5), BENCH_CATCHUP_SECONDS (most seconds to wait for the
# consumer group to catch up, 900), BENCH_PROJECTION_EVENTS (20000), BENCH_TRENDS_USERS (50), BENCH_TRENDS_GROUP
# (trends-bench), BENCH_KEEP_USERS=1 (keep the bench accounts and their data), BENCH_LOG_LEVEL (info),
# BENCH_PARTS (which of the parts a, b and c to run, "abc"; e.g. BENCH_PARTS=c measures only the read).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/postgres.sh"
source "$REPO_ROOT/deploy/lib/broker.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

RUNS=${1:-3}; DURATION=${2:-20}; CONNECTIONS=${3:-50}
AUTH_PORT=${BENCH_AUTH_PORT:-18481}; MEALS_PORT=${BENCH_MEALS_PORT:-18482}
BENCH_GATEWAY_PORT=${BENCH_GATEWAY_PORT:-18483}; TRENDS_PORT=${BENCH_TRENDS_PORT:-18484}
EVENT_RATE=${BENCH_EVENT_RATE:-500}; LOW_EVENT_RATE=${BENCH_LOW_EVENT_RATE:-100}; BATCH_MS=${BENCH_BATCH_MS:-50}
SYNTHETIC_USERS=${BENCH_SYNTHETIC_USERS:-200}
WARMUP_SECONDS=${BENCH_WARMUP_SECONDS:-5}; CATCHUP_SECONDS=${BENCH_CATCHUP_SECONDS:-900}
PROJECTION_EVENTS=${BENCH_PROJECTION_EVENTS:-20000}; USERS=${BENCH_TRENDS_USERS:-50}
TRENDS_GROUP=${BENCH_TRENDS_GROUP:-trends-bench}
PARTS=${BENCH_PARTS:-abc}
part() { [[ "$PARTS" == *"$1"* ]]; } # part LETTER: whether that part runs
THREADS=$(( CONNECTIONS < 2 ? 1 : 2 ))
WORK="$LOCAL_DIR/bench/trends"; mkdir -p "$WORK"
GATEWAY_URL="http://127.0.0.1:$BENCH_GATEWAY_PORT"; TRENDS_URL="http://127.0.0.1:$TRENDS_PORT"
TRENDS_PATH="/api/trends?period=30d"
RUN_ID="$(date +%s)-$$"

step "tools (wrk, jq from Debian; curl, psql)"
bench_tools wrk jq
command -v curl >/dev/null || fail "curl is needed"
command -v psql >/dev/null || fail "psql is needed (Debian's postgresql-client)"
ok "wrk, jq, curl and psql present"

step "infrastructure (PostgreSQL and the broker)"
bench_require_infra auth_service meals_service trends_service
[ -s "$FOOD_DATA_FILE" ] || fail "no food table at $FOOD_DATA_FILE; run: bash deploy/setup.sh"
ok "postgres on $PG_PORT, broker on $BROKER_PORT"

bench_binaries AuthService MealsService TrendsService Gateway

for port in $AUTH_PORT $MEALS_PORT $BENCH_GATEWAY_PORT $TRENDS_PORT; do require_port_free "$port" benchmark; done
bench_routes "$WORK/routes.json" '"trends": "http://127.0.0.1:'"$TRENDS_PORT"'"' \
  '{ "prefix": "/api/trends", "upstream": "trends", "public": false }'

# --- SQL ---------------------------------------------------------------------------------------------------------
# Builders of the events the bench writes, byte for byte the shape EventCoding gives them (CloudEvents JSON,
# ISO-8601 UTC times, the lowercased user id as subject and key). Temporary functions: they go with the session.
EVENTS_SQL=$(cat <<'SQL'
SET TIME ZONE 'UTC';
CREATE FUNCTION pg_temp.iso(t timestamptz) RETURNS text LANGUAGE sql STABLE
  AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
-- The same tag and number give the same user id, so the cleanup finds the synthetic users again.
CREATE FUNCTION pg_temp.synthetic_user(tag text, n int) RETURNS uuid LANGUAGE sql IMMUTABLE
  AS $$ SELECT md5('trends-bench/' || tag || '/' || n)::uuid $$;
CREATE FUNCTION pg_temp.envelope(event_id uuid, source text, topic text, user_id uuid, data jsonb) RETURNS bytea
  LANGUAGE sql VOLATILE AS $$ SELECT convert_to(jsonb_build_object('specversion', '1.0', 'id', event_id, 'source', source,
    'type', topic, 'time', pg_temp.iso(clock_timestamp()), 'subject', lower(user_id::text), 'datacontenttype', 'application/json',
    'dataschemaversion', 1, 'data', data)::text, 'UTF8') $$;
-- meal.consumed of a new meal (version 1) on the user's DAY; SLOT 0..3 is breakfast, lunch, dinner, snack.
CREATE FUNCTION pg_temp.meal_consumed(user_id uuid, day date, slot int)
  RETURNS TABLE (event_id uuid, topic text, message_key text, payload bytea) LANGUAGE sql VOLATILE AS $$
  WITH meal AS (
    SELECT gen_random_uuid() AS event_id, gen_random_uuid() AS meal_id,
      (ARRAY['breakfast', 'lunch', 'dinner', 'snack'])[slot + 1] AS meal_type,
      (ARRAY['Oatmeal with berries', 'Chicken salad with bread', 'Salmon, rice and broccoli', 'Yogurt and an apple'])[slot + 1] AS title,
      (day + make_interval(hours => (ARRAY[7, 12, 19, 16])[slot + 1], mins => floor(random() * 60)::int)) AT TIME ZONE 'UTC' AS eaten_at,
      round(((ARRAY[380, 620, 720, 190])[slot + 1] * (0.7 + random() * 0.6))::numeric, 1) AS calories,
      40 + floor(random() * 56)::int AS health_score, 45 + floor(random() * 51)::int AS diet_score
  ), scored AS (
    SELECT meal.*, jsonb_build_object('calories', calories, 'proteinGrams', round(calories * 0.05, 1),
        'carbsGrams', round(calories * 0.125, 1), 'fatGrams', round(calories / 30, 1), 'fiberGrams', round(calories / 100, 1),
        'sugarsGrams', round(calories * 0.025, 1), 'saturatedFatGrams', round(calories / 90, 1),
        'sodiumMilligrams', round(calories * 1.2)) AS totals,
      CASE WHEN health_score >= 80 THEN 'nutritious' WHEN health_score >= 60 THEN 'good' WHEN health_score >= 40 THEN 'fair'
        ELSE 'limited' END AS rating,
      CASE WHEN diet_score >= 70 THEN 'green' WHEN diet_score >= 50 THEN 'yellow' ELSE 'red' END AS band
    FROM meal)
  SELECT event_id, 'meal.consumed', lower(user_id::text), pg_temp.envelope(event_id, 'meals', 'meal.consumed', user_id,
    jsonb_build_object('meal', jsonb_build_object('mealId', meal_id, 'userId', user_id, 'title', title, 'origin', 'manual',
      'mealType', meal_type, 'captureKind', CASE WHEN slot = 3 THEN 'snack' ELSE 'full_meal' END, 'eatenAt', pg_temp.iso(eaten_at),
      'localDate', to_char(day, 'YYYY-MM-DD'), 'timeZone', 'UTC', 'isConsumed', true, 'edited', false, 'notes', NULL,
      'hasPhoto', false, 'items', jsonb_build_array(jsonb_build_object('name', title, 'amount', 1, 'unit', 'serving',
        'grams', round(calories / 1.6), 'nutrients', totals, 'healthScore', health_score, 'healthRating', rating, 'source', 'manual')),
      'totals', totals, 'healthScore', health_score, 'healthRating', rating, 'dietPreference', 'balanced',
      'dietScore', diet_score, 'dietBand', band, 'dietExplanation', 'Synthetic benchmark meal.', 'version', 1)))
  FROM scored $$;
-- weight.logged of the user's DAY, as the metrics service publishes it.
CREATE FUNCTION pg_temp.weight_logged(user_id uuid, day date, weight_kg numeric)
  RETURNS TABLE (event_id uuid, topic text, message_key text, payload bytea) LANGUAGE sql VOLATILE AS $$
  SELECT id, 'weight.logged', lower(user_id::text), pg_temp.envelope(id, 'metrics', 'weight.logged', user_id,
    jsonb_build_object('userId', user_id, 'date', to_char(day, 'YYYY-MM-DD'), 'weightKg', weight_kg, 'ketonesMmolPerLiter', NULL,
      'notes', NULL, 'loggedAt', pg_temp.iso(clock_timestamp()), 'version', 1))
  FROM gen_random_uuid() AS id $$;
-- user.deleted, as the auth service publishes it when an account goes.
CREATE FUNCTION pg_temp.user_deleted(user_id uuid)
  RETURNS TABLE (event_id uuid, topic text, message_key text, payload bytea) LANGUAGE sql VOLATILE AS $$
  SELECT id, 'user.deleted', lower(user_id::text), pg_temp.envelope(id, 'auth', 'user.deleted', user_id,
    jsonb_build_object('userId', user_id, 'deletedAt', pg_temp.iso(clock_timestamp())))
  FROM gen_random_uuid() AS id $$;
SQL
)
db() { psql_admin -d "$PG_DATABASE" -tA -F' ' -c "$EVENTS_SQL" "$@"; } # db -c SQL...: one session, unaligned rows
# An outbox's trigger notifies "<current schema>_outbox": writers set the search path to the outbox's schema so
# that its relay wakes at once, as it does for the service's own writes.
db_in() { local schema=$1; shift; db -c "SET search_path = $schema" "$@"; } # db_in SCHEMA -c SQL...

synthetic_users() { # synthetic_users TAG...: SQL listing the synthetic user ids of those tags (column user_id)
  printf "SELECT pg_temp.synthetic_user(t, n) AS user_id FROM unnest(string_to_array('%s', ' ')) t, generate_series(0, %d) n" \
    "$*" "$((SYNTHETIC_USERS - 1))"
}
max_outbox_id() { db -c "SELECT coalesce(max(id), 0) FROM meals.outbox"; }
# The outbox rows of one batch of the bench: the id range the batch was written in, and the users it was for.
batch_rows() { # batch_rows FIRST_ID LAST_ID USERS_SQL: SQL of those rows of meals.outbox, as a table o
  printf "(SELECT * FROM meals.outbox WHERE id > %s AND id <= %s AND message_key IN (SELECT user_id::text FROM (%s) u)) o" "$1" "$2" "$3"
}
# The polls fail the script on a failed query rather than wait for a count that cannot come.
# Published rows stay in the outbox for its retention window, and the relay's check for a lost broker log reads
# them all for every batch it publishes: left there, each round's rows would slow the next rounds' relay. So a
# round's rows go once measured, and every round meets the outbox as the machine had it.
forget_rows() { db -c "DELETE FROM meals.outbox WHERE id IN (SELECT o.id FROM $1) AND sent_at IS NOT NULL"; } # forget_rows ROWS_SQL
applied_count() { # applied_count ROWS_SQL: how many of the rows trends has applied
  db -c "SELECT count(i.event_id) FROM $1 JOIN trends.inbox i USING (event_id)" || fail "counting applied events failed"
}
all_applied() { local n; n=$(applied_count "$1") || exit 1; [ "$n" -ge "$2" ]; } # all_applied ROWS_SQL COUNT
all_sent() { # all_sent ROWS_SQL: the relay has published every one of the rows
  local n; n=$(db -c "SELECT count(*) FILTER (WHERE o.sent_at IS NULL) FROM $1") || fail "counting unsent rows failed"
  [ "$n" = 0 ]
}
# Polls once a second: a poll counts every row of a batch, and must not take much from what it measures.
poll_until() { # poll_until SECONDS COMMAND...: runs COMMAND until it succeeds (0) or SECONDS pass (1)
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do [ $SECONDS -lt $deadline ] || return 1; sleep 1; done
}
wait_applied() { # wait_applied ROWS_SQL COUNT SECONDS WHAT: waits until trends applied COUNT of the rows, saying how long it took
  local started=$SECONDS
  poll_until "$3" all_applied "$1" "$2" || { say "warning: after $3 s trends had applied $(applied_count "$1") of $2 $4"; return 1; }
  say "trends applied all $2 $4 (waited $((SECONDS - started)) s)"
}
CLOCK_TICKS=$(getconf CLK_TCK)
cpu_seconds() { # cpu_seconds PID...: user + system CPU seconds those processes have used so far
  local pid
  for pid in "$@"; do cat "/proc/$pid/stat" 2>/dev/null || true; done \
    | awk -v hz="$CLOCK_TICKS" '{ sub(/^.*\) /, ""); t += $12 + $13 } END { printf "%.2f\n", t / hz }'
}
# shellcheck disable=SC2046  # pids are words
postgres_cpu() { cpu_seconds $(pgrep -u postgres); } # every process of the cluster (shared: other sessions count too)
broker_cpu() { cpu_seconds "$(cat "$BROKER_PID_FILE")"; }

# --- services and cleanup ----------------------------------------------------------------------------------------
start_trends() { # the trends service in the bench's consumer group; sets TRENDS_PID
  bench_start_service trends "$TRENDS_PORT" TRENDS_CONSUMER_GROUP="$TRENDS_GROUP"
  TRENDS_PID=$SERVICE_PID
  wait_for 120 "trends readiness" http_ok "$TRENDS_URL/health/ready" || fail "TrendsService did not become ready; see $WORK/trends.log"
}
trends_running() { [ -n "${TRENDS_PID:-}" ] && kill -0 "$TRENDS_PID" 2>/dev/null; }
purged() { # purged USERS_SQL: trends holds no rows of those users and remembers them as deleted
  [ "$(db -c "WITH u AS ($1) SELECT (SELECT count(*) FROM u) - (SELECT count(*) FROM trends.deleted_users d JOIN u USING (user_id))
    + (SELECT count(*) FROM trends.meals m JOIN u USING (user_id)) + (SELECT count(*) FROM trends.body_metrics b JOIN u USING (user_id))")" = 0 ]
}

TOKENS=(); USER_IDS=(); SESSION_IDS=(); SYNTHETIC_TAGS=()
PASSWORD="bench-$(openssl rand -hex 12)"
cleanup() {
  set +e
  local users_sql="" real_sql="" gone
  [ ${#SYNTHETIC_TAGS[@]} -gt 0 ] && users_sql=$(synthetic_users "${SYNTHETIC_TAGS[@]}")
  if [ ${#USER_IDS[@]} -gt 0 ]; then
    real_sql="SELECT unnest('{$(IFS=,; echo "${USER_IDS[*]}")}'::uuid[]) AS user_id"
    if [ "${BENCH_KEEP_USERS:-0}" = 1 ]; then
      say "BENCH_KEEP_USERS=1: keeping the ${#USER_IDS[@]} bench accounts and their data"; real_sql=""
    elif [ -n "${GATEWAY_PID:-}" ]; then
      bench_delete_accounts
    fi
  fi
  # Synthetic users never had accounts: the auth outbox announces their deletion, as it would for an account.
  if [ -n "$users_sql" ] && [ -n "${AUTH_PID:-}" ] && kill -0 "$AUTH_PID" 2>/dev/null; then
    db_in auth -c "INSERT INTO outbox (event_id, topic, message_key, payload) SELECT e.* FROM ($users_sql) u, LATERAL pg_temp.user_deleted(u.user_id) e" \
      && say "user.deleted published for $(( ${#SYNTHETIC_TAGS[@]} * SYNTHETIC_USERS )) synthetic users"
  fi
  local everyone="${users_sql}${users_sql:+${real_sql:+ UNION ALL }}${real_sql}"
  if [ -n "$everyone" ]; then
    gone=0
    trends_running && wait_for 120 "purge in trends" purged "$everyone" && gone=1
    if [ "$gone" = 1 ]; then
      say "trends purged every bench user"
    else
      say "warning: trends did not purge every bench user in time; deleting their trends rows directly"
      db -c "WITH u AS ($everyone) , m AS (DELETE FROM trends.meals x USING u WHERE x.user_id = u.user_id)
        , s AS (DELETE FROM trends.daily_summaries x USING u WHERE x.user_id = u.user_id)
        , b AS (DELETE FROM trends.body_metrics x USING u WHERE x.user_id = u.user_id)
        DELETE FROM trends.user_profiles x USING u WHERE x.user_id = u.user_id"
    fi
    # Published rows are kept a day so that they can be published again after a broker restart; the bench's must
    # not come back that way. The ids stay in trends.inbox, so a replay from the broker changes nothing either.
    say "removed $(db -c "WITH u AS ($everyone), d AS (DELETE FROM meals.outbox o USING u WHERE o.message_key = u.user_id::text RETURNING 1)
      SELECT count(*) FROM d") bench rows from meals.outbox"
  fi
  # shellcheck disable=SC2086  # the pids are words
  bench_stop ${WRK_PID:-} ${GATEWAY_PID:-} ${TRENDS_PID:-} ${MEALS_PID:-} ${AUTH_PID:-}
}
trap cleanup EXIT

step "starting AuthService on $AUTH_PORT, MealsService on $MEALS_PORT, TrendsService on $TRENDS_PORT (group $TRENDS_GROUP), the gateway on $BENCH_GATEWAY_PORT"
for name in auth meals trends gateway; do : >"$WORK/$name.log"; done
bench_start_auth "$AUTH_PORT"
bench_start_service meals "$MEALS_PORT" MEALS_FOOD_DATA_FILE="$FOOD_DATA_FILE"
MEALS_PID=$SERVICE_PID
wait_for 120 "auth readiness" http_ok "http://127.0.0.1:$AUTH_PORT/health/ready" || fail "AuthService did not become ready; see $WORK/auth.log"
wait_for 180 "meals readiness" http_ok "http://127.0.0.1:$MEALS_PORT/health/ready" || fail "MealsService did not become ready; see $WORK/meals.log"
start_trends
bench_start_gateway "$BENCH_GATEWAY_PORT" "$WORK/routes.json"
ok "AuthService (pid $AUTH_PID), MealsService (pid $MEALS_PID), TrendsService (pid $TRENDS_PID), gateway (pid $GATEWAY_PID); logs in $WORK"
# A run killed outright (SIGKILL) cannot clean up; with the run id its synthetic users can be found again.
say "run id $RUN_ID: synthetic user n of round R is md5('trends-bench/$RUN_ID-R/n')::uuid (rounds w, a<run>-<rate>, b<run>)"
memory_pids() { echo "auth:$AUTH_PID meals:$MEALS_PID trends:$TRENDS_PID gateway:$GATEWAY_PID $(bench_infra_pids)"; }
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "idle, before load" $(memory_pids)

# --- (a) event latency ---------------------------------------------------------------------------------------------
paced_events() { # paced_events TAG SECONDS RATE: meal.consumed rows at RATE, a batch every BATCH_MS, each its own transaction
  local batches=$(( $2 * 1000 / BATCH_MS )) batch=$(( $3 * BATCH_MS / 1000 ))
  db_in meals -c "DO \$\$ DECLARE started timestamptz := clock_timestamp(); BEGIN
    FOR i IN 0..$((batches - 1)) LOOP
      PERFORM pg_sleep(greatest(0, extract(epoch FROM started + i * interval '$BATCH_MS milliseconds' - clock_timestamp())));
      -- A new transaction now: created_at is its start, and must not include the pause.
      COMMIT;
      INSERT INTO outbox (event_id, topic, message_key, payload)
      SELECT e.* FROM (SELECT pg_temp.synthetic_user('$1', floor(random() * $SYNTHETIC_USERS)::int) AS u,
          current_date - floor(random() * 30)::int AS d, floor(random() * 4)::int AS s FROM generate_series(1, $batch)) g,
        LATERAL pg_temp.meal_consumed(g.u, g.d, g.s) e;
      COMMIT;
    END LOOP; END \$\$"
}
paced_round() { # paced_round TAG SECONDS RATE WAIT_SECONDS: writes a paced round and waits for trends; sets ROWS and COUNT
  local first last
  SYNTHETIC_TAGS+=("$1")
  first=$(max_outbox_id)
  paced_events "$1" "$2" "$3"
  last=$(max_outbox_id)
  ROWS=$(batch_rows "$first" "$last" "$(synthetic_users "$1")")
  COUNT=$(db -c "SELECT count(*) FROM $ROWS")
  wait_applied "$ROWS" "$COUNT" "$4" "events" || true
}

if part a; then
step "(a) warm-up: ${WARMUP_SECONDS}s of paced events, then until trends (group $TRENDS_GROUP) has applied them all"
say "a consumer group's first run reads the topics from their start; this waits for that too (up to $CATCHUP_SECONDS s)"
paced_round "$RUN_ID-w" "$WARMUP_SECONDS" "$LOW_EVENT_RATE" "$CATCHUP_SECONDS"
all_applied "$ROWS" "$COUNT" || fail "trends did not catch up in $CATCHUP_SECONDS s; see $WORK/trends.log"
forget_rows "$ROWS"
ok "warm"

step "(a) event latency: $RUNS runs of ${DURATION}s at $LOW_EVENT_RATE, then at $EVENT_RATE events/s (a batch every $BATCH_MS ms), $SYNTHETIC_USERS users each"
# processed_at is the start of the inbox transaction that applied the event; the inbox applies what it has fetched
# in one transaction, so events applied together share it (a "batch" below), and the time the batch took to apply
# is not in the figure.
# -> "p50 p95 p99 relay_p50 relay_p95 relay_p99 (ms) written applied offered_per_s batches largest_batch"
latency_of() {
  db -c "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2), round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 2),
      round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 2), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY relay)::numeric, 2),
      round(percentile_cont(0.95) WITHIN GROUP (ORDER BY relay)::numeric, 2), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY relay)::numeric, 2),
      count(*), count(ms), round((count(*) / greatest(extract(epoch FROM max(created_at) - min(created_at)), 0.001))::numeric, 1),
      count(DISTINCT processed_at), (SELECT max(n) FROM (SELECT count(*) AS n FROM $1 JOIN trends.inbox i USING (event_id) GROUP BY i.processed_at) b)
    FROM (SELECT o.created_at, i.processed_at, extract(epoch FROM i.processed_at - o.created_at) * 1000 AS ms,
        extract(epoch FROM o.sent_at - o.created_at) * 1000 AS relay
      FROM $1 LEFT JOIN trends.inbox i USING (event_id)) t"
}
: >"$WORK/latency-low.runs"; : >"$WORK/latency.runs"
for run in $(seq "$RUNS"); do
  for rate in "$LOW_EVENT_RATE" "$EVENT_RATE"; do
    if [ "$rate" = "$EVENT_RATE" ]; then runs_file=latency; else runs_file=latency-low; fi
    paced_round "$RUN_ID-a$run-$rate" "$DURATION" "$rate" $(( DURATION * 5 + 60 ))
    latency_of "$ROWS" | tee -a "$WORK/$runs_file.runs" | awk -v r="$rate" '{
      printf "    %d/s: p50 %.1f / p95 %.1f / p99 %.1f ms (relay %.1f / %.1f / %.1f ms); %d events written at %.0f/s, %d applied in %d batches (largest %d)\n",
        r, $1, $2, $3, $4, $5, $6, $7, $9, $8, $10, $11 }'
    forget_rows "$ROWS"
  done
done

fi

# --- (b) projection throughput -------------------------------------------------------------------------------------
if part b; then
step "(b) projection throughput: $RUNS runs of $PROJECTION_EVENTS events published while trends is stopped"
# -> "applied_per_s relay_per_s relay_seconds apply_seconds wall_seconds applied trends_cpu_s postgres_cpu_s broker_cpu_s"
: >"$WORK/throughput.runs"
for run in $(seq "$RUNS"); do
  tag="$RUN_ID-b$run"; SYNTHETIC_TAGS+=("$tag")
  bench_stop "$TRENDS_PID"; TRENDS_PID=""
  first=$(max_outbox_id)
  # One transaction; the relay wakes on its commit. The commit time is read after it, in the same session.
  committed=$(db_in meals -c "INSERT INTO outbox (event_id, topic, message_key, payload)
      SELECT e.* FROM (SELECT pg_temp.synthetic_user('$tag', floor(random() * $SYNTHETIC_USERS)::int) AS u,
          current_date - floor(random() * 30)::int AS d, floor(random() * 4)::int AS s FROM generate_series(1, $PROJECTION_EVENTS)) g,
        LATERAL pg_temp.meal_consumed(g.u, g.d, g.s) e" -c "SELECT clock_timestamp()")
  last=$(max_outbox_id)
  ROWS=$(batch_rows "$first" "$last" "$(synthetic_users "$tag")")
  COUNT=$(db -c "SELECT count(*) FROM $ROWS")
  poll_until 600 all_sent "$ROWS" || fail "the meals relay did not publish $COUNT rows in 600 s; see $WORK/meals.log"
  read -r relay_seconds relay_rate < <(db -c "SELECT round(extract(epoch FROM max(o.sent_at) - '$committed'::timestamptz)::numeric, 3),
    round((count(*) / greatest(extract(epoch FROM max(o.sent_at) - '$committed'::timestamptz), 0.001))::numeric, 1) FROM $ROWS")
  say "the meals relay published $COUNT events in $relay_seconds s after the commit ($relay_rate/s);" \
    "meals.outbox held $(db -c "SELECT count(*) FROM meals.outbox") rows"
  started=$(db -c "SELECT clock_timestamp()")
  postgres_before=$(postgres_cpu); broker_before=$(broker_cpu)
  start_trends
  wait_applied "$ROWS" "$COUNT" 900 "events" || true
  cpu="$(cpu_seconds "$TRENDS_PID") $(awk -v a="$(postgres_cpu)" -v b="$postgres_before" 'BEGIN { printf "%.2f", a - b }') \
$(awk -v a="$(broker_cpu)" -v b="$broker_before" 'BEGIN { printf "%.2f", a - b }')"
  db -c "SELECT round((count(i.event_id) / greatest(extract(epoch FROM max(i.processed_at) - min(i.processed_at)), 0.001))::numeric, 1),
      $relay_rate, $relay_seconds, round(extract(epoch FROM max(i.processed_at) - min(i.processed_at))::numeric, 3),
      round(extract(epoch FROM max(i.processed_at) - '$started'::timestamptz)::numeric, 3), count(i.event_id), '$cpu'
    FROM $ROWS JOIN trends.inbox i USING (event_id)" | tee -a "$WORK/throughput.runs" | awk -v cores="$(nproc)" '{
    printf "    run: %d events applied in %.1f s: %.0f events/s (%.1f s after the start, group join included); relay %.0f/s\n", $6, $4, $1, $5, $2
    printf "    CPU from the start to the end (%.1f s on %d cores): trends %.1f s, PostgreSQL %.1f s, broker %.1f s; per event %.0f / %.0f / %.0f us\n",
      $5, cores, $7, $8, $9, $7 * 1e6 / $6, $8 * 1e6 / $6, $9 * 1e6 / $6 }'
  forget_rows "$ROWS"
done
fi

# --- (c) GET /api/trends?period=30d --------------------------------------------------------------------------------
if part c; then
step "(c) registering $USERS users through the gateway"
for i in $(seq "$USERS"); do
  email="bench-trends-$RUN_ID-$i@example.com"
  answer=$(curl -sS --max-time 30 -w '\n%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$PASSWORD\",\"displayName\":\"Bench $i\"}" "$GATEWAY_URL/api/auth/register")
  [ "$(tail -n 1 <<<"$answer")" = 201 ] || fail "registration of $email answered: $answer"
  body=$(sed '$d' <<<"$answer")
  TOKENS+=("$(jq -r .accessToken <<<"$body")"); USER_IDS+=("$(jq -r .user.id <<<"$body" | tr '[:upper:]' '[:lower:]')")
  SESSION_IDS+=("$(jq -r .sessionId <<<"$body" | tr '[:upper:]' '[:lower:]')")
done
ok "$USERS users registered"

step "(c) 30 days of meals (breakfast, lunch, dinner) and weigh-ins for each, through the outbox"
REAL_USERS="SELECT unnest('{$(IFS=,; echo "${USER_IDS[*]}")}'::uuid[]) AS user_id"
first=$(max_outbox_id)
db_in meals -c "INSERT INTO outbox (event_id, topic, message_key, payload)
  SELECT e.* FROM ($REAL_USERS) u, generate_series(0, 29) d, generate_series(0, 2) s,
    LATERAL pg_temp.meal_consumed(u.user_id, current_date - d, s) e
  UNION ALL
  SELECT w.* FROM ($REAL_USERS) u, generate_series(0, 29) d,
    LATERAL pg_temp.weight_logged(u.user_id, current_date - d, round((65 + abs(hashtext(u.user_id::text)) % 30 + d * 0.04 + random() * 0.6)::numeric, 1)) w"
ROWS=$(batch_rows "$first" "$(max_outbox_id)" "$REAL_USERS")
COUNT=$(db -c "SELECT count(*) FROM $ROWS")
wait_applied "$ROWS" "$COUNT" 600 "events of the registered users" || fail "trends did not apply the registered users' data"
code=$(curl -s -o "$WORK/trends.json" -w '%{http_code}' --max-time 10 -H "Authorization: Bearer ${TOKENS[0]}" "$GATEWAY_URL$TRENDS_PATH") || true
[ "$code" = 200 ] || fail "GET $TRENDS_PATH through the gateway answered $code: $(head -c 400 "$WORK/trends.json")"
days=$(jq '[.days[] | select(.mealsConsumed > 0)] | length' "$WORK/trends.json")
say "a report is $(wc -c <"$WORK/trends.json") bytes: $days of $(jq '.days | length' "$WORK/trends.json") days with meals," \
  "$(jq '.bestMeals | length' "$WORK/trends.json") best meals, weight trend: $(jq -c '.weight | keys' "$WORK/trends.json" | cut -c1-80)"
[ "$days" -ge 29 ] || fail "the report shows $days days with meals, expected 30; see $WORK/trends.json"
ok "GET $TRENDS_PATH answers 200 through the gateway"

rotating_lua() { # rotating_lua FILE HEADERS...: wrk requests $TRENDS_PATH, each with the next set of headers (Lua table bodies)
  local file=$1 headers; shift
  {
    echo 'local sets = {'
    for headers in "$@"; do echo "  { $headers },"; done
    cat <<LUA
}
local requests = {}
local counter = 0
local threads = 0
-- Each thread starts at a different user, so the connections spread over all of them.
function setup(thread) thread:set("first", threads * 17); threads = threads + 1 end
function init(args)
  for i, headers in ipairs(sets) do
    headers["Host"] = wrk.headers["Host"]
    requests[i] = wrk.format("GET", "$TRENDS_PATH", headers)
  end
  counter = first or 0
end
function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
LUA
  } >"$file"
}
gateway_sets=(); direct_sets=()
for i in "${!TOKENS[@]}"; do
  gateway_sets+=("[\"Authorization\"] = \"Bearer ${TOKENS[$i]}\"")
  direct_sets+=("[\"X-User-Id\"] = \"${USER_IDS[$i]}\", [\"X-Session-Id\"] = \"${SESSION_IDS[$i]}\"")
done
rotating_lua "$WORK/gateway.lua" "${gateway_sets[@]}"
rotating_lua "$WORK/direct.lua" "${direct_sets[@]}"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "X-User-Id: ${USER_IDS[0]}" -H "X-Session-Id: ${SESSION_IDS[0]}" "$TRENDS_URL$TRENDS_PATH") || true
[ "$code" = 200 ] || fail "GET $TRENDS_PATH straight to the service answered $code"

load() { # load SECONDS TARGET: raw wrk output for gateway, direct or live
  case $2 in
    gateway) wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency -s "$WORK/gateway.lua" "$GATEWAY_URL" ;;
    direct) wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency -s "$WORK/direct.lua" "$TRENDS_URL" ;;
    live) wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency "$TRENDS_URL/health/live" ;;
    gateway-live) wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" --timeout 10s --latency "$GATEWAY_URL/health/live" ;;
  esac
}
show() { sed 's/^/    ok\/s p50_us p99_us non-2xx socket-errors: /'; }

step "(c) warm-up (3 s each through the gateway, directly, /health/live on the service and on the gateway)"
for target in gateway direct live gateway-live; do load 3 "$target" >/dev/null; done
ok "warm"
for target in gateway direct live gateway-live; do
  case $target in
    gateway) what="GET $TRENDS_PATH through the gateway" ;; direct) what="baseline: the same straight to the trends service" ;;
    live) what="floor: GET /health/live on the trends service" ;; gateway-live) what="floor: GET /health/live on the gateway" ;;
  esac
  step "(c) $what: $RUNS runs of ${DURATION}s, $CONNECTIONS connections over $USERS users"
  : >"$WORK/$target.runs"
  for _ in $(seq "$RUNS"); do load "$DURATION" "$target" | bench_wrk_summary | tee -a "$WORK/$target.runs" | show; done
done
# shellcheck disable=SC2046  # memory_pids prints words
bench_print_rss "after the load" $(memory_pids)
for target in gateway direct live gateway-live; do
  awk -v p="$target" '{ bad += $4; e += $5 } END { if (bad + e) printf "    warning: %s: %d answers were not 2xx and %d socket errors; the figures are not of the intended path\n", p, bad, e }' \
    "$WORK/$target.runs"
done
fi

# --- summary --------------------------------------------------------------------------------------------------------
col() { cut -d' ' -f"$2" "$WORK/$1.runs" | bench_median; }
verdict() { awk -v v="$1" -v g="$3" -v op="$2" 'BEGIN { m = (op == "<=") ? (v <= g) : (v >= g); print (m ? "met" : "not met") }'; }
for runs in latency latency-low throughput gateway direct live gateway-live; do [ -e "$WORK/$runs.runs" ] || : >"$WORK/$runs.runs"; done
LAT50=$(col latency 1); LAT95=$(col latency 2); LAT99=$(col latency 3)
REL50=$(col latency 4); REL95=$(col latency 5); REL99=$(col latency 6)
APPLIED=$(col throughput 1); RELAY=$(col throughput 2); RELAY_S=$(col throughput 3)
LOW50=$(col latency-low 1); LOW95=$(col latency-low 2); LOW99=$(col latency-low 3)
ms() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1000 }'; }
row() { printf '| %-52s | %-42s | %-28s | %-15s |\n' "$@"; }
echo
echo "medians of $RUNS runs; (a) $EVENT_RATE and $LOW_EVENT_RATE events/s for ${DURATION}s a run, (b) $PROJECTION_EVENTS events a run, (c) $CONNECTIONS connections, ${DURATION}s a run"
row "figure" "measured" "goal / baseline" "verdict"
row "----" "----" "----" "----"
part a && row "(a) event latency p50, commit to trends inbox" "$LAT50 ms" "goal <= 20 ms" "$(verdict "$LAT50" "<=" 20)"
part a && row "(a) event latency p95" "$LAT95 ms" "-" "-"
part a && row "(a) event latency p99" "$LAT99 ms" "goal <= 100 ms" "$(verdict "$LAT99" "<=" 100)"
part a && row "    baseline: relay's part (created_at to sent_at)" "p50 $REL50 / p95 $REL95 / p99 $REL99 ms" "baseline" "-"
part a && row "    the same at $LOW_EVENT_RATE events/s" "p50 $LOW50 / p95 $LOW95 / p99 $LOW99 ms" "p50 <= 20 ms, p99 <= 100 ms" "$(verdict "$LOW50" "<=" 20)/$(verdict "$LOW99" "<=" 100)"
part b && row "(b) projection throughput" "$APPLIED events/s" "goal >= 2000 events/s" "$(verdict "$APPLIED" ">=" 2000)"
part b && row "    baseline: meals relay publish rate" "$RELAY events/s ($RELAY_S s to drain)" "baseline" "-"
part c && row "(c) GET $TRENDS_PATH via gateway, p99" "$(ms "$(col gateway 3)") ms (p50 $(ms "$(col gateway 2)") ms, $(col gateway 1) req/s)" "goal <= 25 ms" "$(verdict "$(col gateway 3)" "<=" 25000)"
part c && row "    baseline: direct to TrendsService, p99" "$(ms "$(col direct 3)") ms (p50 $(ms "$(col direct 2)") ms, $(col direct 1) req/s)" "baseline" "-"
part c && row "    floor: /health/live on TrendsService, p99" "$(ms "$(col live 3)") ms (p50 $(ms "$(col live 2)") ms, $(col live 1) req/s)" "floor" "-"
part c && row "    floor: /health/live on the gateway, p99" "$(ms "$(col gateway-live 3)") ms (p50 $(ms "$(col gateway-live 2)") ms, $(col gateway-live 1) req/s)" "floor" "-"
part c && row "(c) via gateway req/s / gateway /health/live req/s" "$(awk -v a="$(col gateway 1)" -v b="$(col gateway-live 1)" 'BEGIN { printf "%.2fx", (b > 0) ? a / b : 0 }')" "goal >= 0.5x (issue 21)" \
  "$(verdict "$(awk -v a="$(col gateway 1)" -v b="$(col gateway-live 1)" 'BEGIN { print (b > 0) ? a / b : 0 }')" ">=" 0.5)"
parked=$(grep -c '"event parked' "$WORK/trends.log" || true)
[ "$parked" = 0 ] || say "warning: trends parked $parked events (see $WORK/trends.log); parked events count as applied above"
part a && part b && awk -v a="$APPLIED" -v r="$EVENT_RATE" 'BEGIN { if (a < r) printf "(a) at %d events/s is more than the projection applies (%.0f/s): trends falls behind, so that latency is a queue growing with the run\n", r, a }'
part b && awk -v t="$(col throughput 7)" -v p="$(col throughput 8)" -v b="$(col throughput 9)" -v w="$(col throughput 5)" -v c="$(nproc)" \
  'BEGIN { printf "(b) CPU while the projection ran %.1f s on %d cores: trends %.1f s, PostgreSQL %.1f s, broker %.1f s\n", w, c, t, p, b }'
if part c; then
  awk -v c="$CONNECTIONS" 'BEGIN { printf "(c) wrk keeps all %d connections busy, so latency is queueing: p99 <= 25 ms there needs about %d req/s or more\n", c, c / 0.025 }'
fi

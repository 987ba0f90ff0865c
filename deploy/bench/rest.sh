#!/usr/bin/env bash
# Benchmark, not a test: what the whole stack costs when nothing happens, what a request costs it at 50 users, and
# how soon a write shows in a read model (issue 51). Prints each figure beside its goal and today's value (the
# issue's figures), then the same as a Markdown table to paste into docs/PERFORMANCE.md. Asserts nothing; exits
# non-zero only when a part could not run (after the table, with "not measured" in that part's rows).
#   deploy/bench/rest.sh
# machine: the processor model (/proc/cpuinfo), the core count and the load average (the figures depend on it).
# rest: BENCH_REST_SETTLE s (10) after the stack is ready, with no request, the CPU each process of the stack uses
#     over BENCH_REST_SECONDS (30): utime + stime of /proc/PID/stat for the process and every process below it, plus
#     what its reaped children used, as the load run reads them (deploy/LoadGenerator/StackProcesses.swift);
#     PostgreSQL is its postmaster's whole tree (backends, checkpointer, WAL writer...). Per process (each service,
#     the gateway, PostgreSQL, the broker) as % of one core, and the sum. Goal: the sum under 5 % of one core.
#     Today: broker 16.9 %, each service 1.0-1.4 %, gateway 0.7 %, PostgreSQL 0.4 %: 25.4 % in all.
# latency: one user (registered through the gateway, deleted at the end) writes a meal through the gateway
#     (POST /api/meals) every BENCH_LATENCY_INTERVAL_MS (500) ms, BENCH_LATENCY_WRITES (40) times after
#     BENCH_LATENCY_WARMUP (3) unmeasured ones (the first publish after a start can wait seconds for its
#     acknowledgement, and the relay's next batch waits for it). After each answer it reads GET /api/user/stats
#     straight from the trends service (with the X-User-Id and X-Session-Id the gateway would set: no gateway hop and
#     no per-user rate limit on the polls) every BENCH_LATENCY_POLL_MS (5) ms until allTime.mealsAnalyzed counts the
#     meal. Latency = from the write's answer (its commit comes just before) to the first read that shows it; p50 /
#     p99 / max, and p50 from sending the write. Goal: p50 no worse than today: 48 ms (max 88 ms), a write reaching
#     /api/user/stats on debug builds with the consumers' fetch wait at 20 ms.
# load: deploy/load BENCH_LOAD_USERS (50), its LOAD_* variables as it reads them (LOAD_DURATION 60 s, LOAD_WARMUP
#     10 s, LOAD_GENERATOR_BIN_DIR...); from the line of JSON it writes (.local/load/summary-<users>.json): the
#     stack's CPU per request by process (goal: at most 6 ms; today 12.0 ms, the broker 4.5 ms of it), reads p50 /
#     p99 (goal: p99 at most 25 ms; today 40.9 ms), writes p50 / p99.
# Before any of them it settles: a throwaway account writes one event of each kind auth, meals and metrics publish,
# and the figures wait until every outbox is published and every consumer caught up (a stack started on a database
# that outlived its broker publishes its retained events again at each relay's first publish).
# Runs rest, then latency, then load (before the load's traffic, as the rest window needs). Starts the stack as
# deploy/load does (release build, or NUTRITION_BIN_DIR's binaries; the load run's route table for
# BENCH_LOAD_USERS users) unless one answers on the gateway port, which is then measured as it is; stops at the end
# what it started.
# Environment: BENCH_PARTS (which parts, comma-separated: rest,latency,load), BENCH_REST_SECONDS (30),
# BENCH_REST_SETTLE (10), BENCH_LATENCY_WRITES (40), BENCH_LATENCY_WARMUP (3), BENCH_LATENCY_INTERVAL_MS (500),
# BENCH_LATENCY_POLL_MS (5), BENCH_LOAD_USERS (50), BENCH_STACK_TIMEOUT (seconds to wait for the stack, build
# included, 1800), the LOAD_* variables of deploy/load, NUTRITION_BUILD_CONFIG (release), NUTRITION_BIN_DIR (prebuilt
# stack binaries), and the ports and NUTRITION_LOCAL_DIR of deploy/stack.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
source "$REPO_ROOT/deploy/lib/bench.sh"

PARTS=",${BENCH_PARTS:-rest,latency,load},"
part() { [[ "$PARTS" == *",$1,"* ]]; } # part NAME: whether that part runs
REST_SECONDS=${BENCH_REST_SECONDS:-30}; REST_SETTLE=${BENCH_REST_SETTLE:-10}
LATENCY_WRITES=${BENCH_LATENCY_WRITES:-40}; LATENCY_INTERVAL_MS=${BENCH_LATENCY_INTERVAL_MS:-500}
LATENCY_POLL_MS=${BENCH_LATENCY_POLL_MS:-5}; LATENCY_WARMUP=${BENCH_LATENCY_WARMUP:-3}
LOAD_USERS=${BENCH_LOAD_USERS:-50}; STACK_TIMEOUT=${BENCH_STACK_TIMEOUT:-1800}
WORK="$LOCAL_DIR/bench/rest"; mkdir -p "$WORK" "$LOG_DIR"
GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT"
TRENDS_PORT=${NUTRITION_TRENDS_PORT:-8084}
for p in ${PARTS//,/ }; do case $p in rest | latency | load) ;; *) fail "BENCH_PARTS: no part '$p' (rest, latency, load)" ;; esac; done

step "tools (jq from Debian, curl, python3)"
bench_tools jq
command -v curl >/dev/null || fail "curl is needed"
command -v python3 >/dev/null || fail "python3 is needed (the latency part's client)"
ok "jq, curl and python3 present"

trap 'bench_stack_down "$LOG_DIR/rest-stack.log"' EXIT
step "the stack"
# Registration gets room for many runs: its windows live in PostgreSQL, so runs within 15 minutes share one budget.
bench_load_routes "$WORK/gateway-routes.json" "$LOAD_USERS" 1000 \
  "$(awk -v t="${LOAD_THINK:-1}" 'BEGIN { print (t > 0) ? int(2 * 4 / t + 1) : 1000 }')"
bench_stack_up "$WORK/gateway-routes.json" "$LOG_DIR/rest-stack.log" "$STACK_TIMEOUT"
READY_AT=$SECONDS
BIN_DIR=$( [ -s "$RUN_DIR/stack.conf" ] && source "$RUN_DIR/stack.conf" && echo "${BIN_DIR:-}" || true)
if [ -n "$BIN_DIR" ]; then
  say "binaries: $BIN_DIR"
  case "$BIN_DIR" in *release*) ;; *) say "note: $BIN_DIR may not hold release builds; figures are not comparable" ;; esac
  bench_check_shipped_build "$BIN_DIR/Gateway"
fi
read -r -a STACK <<<"$(bench_stack_processes)"

# A stack started on a database that outlived its broker (the local one forgets its log when stopped) publishes its
# retained events again at each relay's first publish (docs/DECISIONS.md, "After a broker lost its log"), and its
# consumers then read them all again: measured as it came, that work fell into the latency and load windows (write to
# read model p99 142 ms, PostgreSQL 1.96 ms per request). So a throwaway account first writes one event of each kind
# the parts measured here publish (auth, meals, metrics), and the figures wait until every outbox is published and
# every consumer has caught up (each service's outbox_unsent_rows and kafka_consumer_lag, sampled every 5 s).
step "settling: one write of each event kind, then every outbox published and every consumer caught up"
settle_started=$SECONDS
GATEWAY_URL="$GATEWAY_URL" python3 - <<'PY' || fail "the settling writes failed"
import http.client, json, os, secrets, sys, time, urllib.parse
gateway = urllib.parse.urlsplit(os.environ["GATEWAY_URL"])
connection = http.client.HTTPConnection(gateway.hostname, gateway.port, timeout=30)
def call(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})}
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    answer = connection.getresponse()
    return answer.status, answer.read()
password = "bench-" + secrets.token_hex(12)
status, body = call("POST", "/api/auth/register", {"email": f"bench-settle-{int(time.time())}-{os.getpid()}@example.com",
                                                   "password": password, "displayName": "Bench settle"})
if status != 201:
    sys.exit(f"registration answered {status}: {body[:300]!r}")
token = json.loads(body)["accessToken"]
writes = [("POST", "/api/meals", {"title": "Banana", "mealType": "snack", "items": [{"foodId": "09040", "grams": 118}]}),
          ("POST", "/api/metrics/weight", {"date": time.strftime("%Y-%m-%d", time.gmtime(time.time() - 86400)), "weight": 70, "unit": "kg"})]
for method, path, body in writes:
    status, answer = call(method, path, body, token)
    if status not in (200, 201):
        sys.exit(f"{method} {path} answered {status}: {answer[:300]!r}")
status, _ = call("DELETE", "/api/users/me", {"password": password}, token)
if status != 204:
    sys.exit(f"deleting the settling account answered {status}")
PY
events_backlog() { # the sum of every service's unsent outbox rows and consumer lag, from their /metrics
  local entry name port total=0 value
  for entry in $SERVICES; do
    name=${entry%%:*}; port=${entry##*:}
    value=$(curl -fsS "http://127.0.0.1:$(admin_port "$name" "$port")/metrics" 2>/dev/null \
      | awk '/^(outbox_unsent_rows|kafka_consumer_lag)[{ ]/ { sum += $NF } END { printf "%d", sum }') || value=unknown
    [ "$value" = unknown ] && { echo unknown; return; }
    total=$((total + value))
  done
  echo "$total"
}
sleep 6  # the first samples after the writes
quiet=0
while [ $((SECONDS - settle_started)) -lt 300 ]; do
  backlog=$(events_backlog)
  if [ "$backlog" = 0 ]; then quiet=$((quiet + 1)); [ "$quiet" -ge 2 ] && break; else quiet=0; fi
  sleep 5
done
[ "$quiet" -ge 2 ] || fail "events did not settle within 300 s (unsent rows and consumer lag: $backlog)"
ok "settled after $((SECONDS - settle_started)) s"
READY_AT=$SECONDS
[ ${#STACK[@]} -gt 0 ] || fail "no process of the stack found in $RUN_DIR and $PG_DATA"
ok "$GATEWAY_URL/health answers 200; processes: ${STACK[*]}"

MODEL=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
CORES=$(grep -c '^processor' /proc/cpuinfo)
say "machine: ${MODEL:-unknown processor}, $CORES cores; $(uptime | sed 's/^ *//')"

ROWS=() # "figure|measured|goal|today|verdict" for the table
row() { ROWS+=("$(IFS='|'; echo "$*")"); }
verdict() { # verdict VALUE <=|< GOAL: "met" or "not met"
  awk -v v="$1" -v g="$3" -v op="$2" 'BEGIN { m = (op == "<=") ? (v <= g) : (v < g); print (m ? "met" : "not met") }'
}
MISSING=() # parts that could not run
row "machine" "${MODEL:-unknown processor}, $CORES cores (load average $(cut -d' ' -f1-3 /proc/loadavg) at the start)" "-" "-" "-"

# --- rest -------------------------------------------------------------------------------------------------------
# Clock ticks used by each NAME:PID given and every process below it, plus what the PID's reaped children used (a
# backend that exits goes into its postmaster's figure): "name ticks" lines, as StackProcesses.sample() counts.
stack_ticks() { # stack_ticks NAME:PID...
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v parts="$*" '
    { pid = $1; rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
      parent[pid] = f[2]; own[pid] = f[12] + f[13]; reaped[pid] = f[14] + f[15] }
    END {
      n = split(parts, list, " ")
      for (i = 1; i <= n; i++) {
        name = list[i]; sub(/:.*/, "", name); root = list[i]; sub(/^[^:]*:/, "", root)
        split("", tree); tree[root] = 1; grew = 1
        while (grew) { grew = 0; for (p in parent) if (!(p in tree) && (parent[p] in tree)) { tree[p] = 1; grew = 1 } }
        ticks = (root in reaped) ? reaped[root] : 0
        for (p in tree) if (p in own) ticks += own[p]
        print name, ticks
      }
    }'
}

if part rest; then
  step "rest: ${REST_SETTLE} s to settle after readiness, then ${REST_SECONDS} s with no request"
  [ $((SECONDS - READY_AT)) -ge "$REST_SETTLE" ] || sleep $((REST_SETTLE - (SECONDS - READY_AT)))
  stack_ticks "${STACK[@]}" >"$WORK/rest-start.txt"; started=$EPOCHREALTIME
  sleep "$REST_SECONDS"
  stack_ticks "${STACK[@]}" >"$WORK/rest-end.txt"; ended=$EPOCHREALTIME
  # -> "name percent_of_one_core" lines, then "total percent"
  awk -v hz="$(getconf CLK_TCK)" -v s="$(awk -v a="$started" -v b="$ended" 'BEGIN { print b - a }')" '
    NR == FNR { start[$1] = $2; next }
    { p = ($2 - start[$1]) * 100 / hz / s; total += p; printf "%s %.2f\n", $1, p }
    END { printf "total %.2f\n", total }' "$WORK/rest-start.txt" "$WORK/rest-end.txt" >"$WORK/rest.txt"
  while read -r name percent; do
    case $name in
      total) continue ;;
      broker) today="16.9 %" ;; gateway) today="0.7 %" ;; postgres) today="0.4 %" ;; *) today="1.0-1.4 %" ;;
    esac
    say "$(printf '%-10s %6s %% of one core' "$name" "$percent")"
    row "rest: $name, % of one core" "$percent %" "-" "$today" "-"
  done <"$WORK/rest.txt"
  total=$(awk '$1 == "total" { print $2 }' "$WORK/rest.txt")
  ok "the whole stack at rest: $total % of one core over $(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.1f", b - a }') s"
  row "rest: the whole stack, % of one core" "$total %" "under 5 %" "25.4 %" "$(verdict "$total" "<" 5)"
fi

# --- latency ------------------------------------------------------------------------------------------------------
if part latency; then
  what="a write through the gateway to GET /api/user/stats (polled on trends every $LATENCY_POLL_MS ms)"
  step "latency: $LATENCY_WRITES meals (after $LATENCY_WARMUP unmeasured), one every $LATENCY_INTERVAL_MS ms: $what"
  # -> "samples p50 p99 max p50_from_sending p50_of_the_write (ms)"; each write's "from_answer from_sending write" in
  # latency-samples.txt
  if GATEWAY_URL="$GATEWAY_URL" TRENDS_PORT="$TRENDS_PORT" WRITES="$LATENCY_WRITES" INTERVAL_MS="$LATENCY_INTERVAL_MS" \
    POLL_MS="$LATENCY_POLL_MS" WARMUP="$LATENCY_WARMUP" SAMPLES_FILE="$WORK/latency-samples.txt" python3 - >"$WORK/latency.txt" <<'PY'; then
import http.client, json, math, os, secrets, sys, time, urllib.parse

gateway = urllib.parse.urlsplit(os.environ["GATEWAY_URL"])
writes, warmup = int(os.environ["WRITES"]), int(os.environ["WARMUP"])
interval, poll = int(os.environ["INTERVAL_MS"]) / 1000, int(os.environ["POLL_MS"]) / 1000
through_gateway = http.client.HTTPConnection(gateway.hostname, gateway.port, timeout=30)
to_trends = http.client.HTTPConnection("127.0.0.1", int(os.environ["TRENDS_PORT"]), timeout=30)

def call(connection, method, path, body=None, headers=None):
    connection.request(method, path, body=None if body is None else json.dumps(body),
                       headers={"Content-Type": "application/json", **(headers or {})})
    answer = connection.getresponse()
    return answer.status, answer.read()

def note(message):
    print("    " + message, file=sys.stderr, flush=True)

password = "bench-" + secrets.token_hex(12)
email = f"bench-rest-{int(time.time())}-{os.getpid()}@example.com"
status, body = call(through_gateway, "POST", "/api/auth/register",
                    {"email": email, "password": password, "displayName": "Bench rest"})
if status != 201:
    sys.exit(f"registration answered {status}: {body[:300]!r}")
account = json.loads(body)
bearer = {"Authorization": "Bearer " + account["accessToken"]}
identity = {"X-User-Id": account["user"]["id"].lower(), "X-Session-Id": account["sessionId"].lower()}

def meals_counted():
    status, body = call(to_trends, "GET", "/api/user/stats", headers=identity)
    if status != 200:
        sys.exit(f"GET /api/user/stats on trends answered {status}: {body[:300]!r}")
    return json.loads(body)["allTime"]["mealsAnalyzed"]

def percentile(fraction, values):  # nearest rank, as the load run's RouteStatistics
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1))]

meal = {"title": "Banana", "mealType": "snack", "items": [{"foodId": "09040", "grams": 118}]}
seen, from_sending, write = [], [], []
try:
    counted = meals_counted()
    for n in range(warmup + writes):
        sent = time.monotonic()
        status, body = call(through_gateway, "POST", "/api/meals", meal, bearer)
        answered = time.monotonic()
        if status != 201:
            sys.exit(f"POST /api/meals answered {status}: {body[:300]!r}")
        counted += 1
        while meals_counted() < counted:
            if time.monotonic() - answered > 30:
                sys.exit("a meal did not show in /api/user/stats within 30 s")
            time.sleep(poll)
        shown = time.monotonic()
        if n >= warmup:
            seen.append((shown - answered) * 1000)
            from_sending.append((shown - sent) * 1000)
            write.append((answered - sent) * 1000)
        time.sleep(max(0, sent + interval - time.monotonic()))
finally:
    status, _ = call(through_gateway, "DELETE", "/api/users/me", {"password": password}, bearer)
    note(f"the bench account {email} deleted" if status == 204 else f"warning: deleting {email} answered {status}")
with open(os.environ["SAMPLES_FILE"], "w") as samples:
    samples.writelines(f"{a:.1f} {b:.1f} {c:.1f}\n" for a, b, c in zip(seen, from_sending, write))
print(len(seen), *(f"{v:.1f}" for v in (percentile(0.5, seen), percentile(0.99, seen), max(seen),
                                           percentile(0.5, from_sending), percentile(0.5, write))))
PY
    read -r samples l50 l99 lmax lsend lwrite <"$WORK/latency.txt"
    say "from the write's answer: p50 $l50 / p99 $l99 / max $lmax ms over $samples writes;" \
      "from sending it: p50 $lsend ms (the write itself p50 $lwrite ms)"
    row "latency: $what, from its answer, p50 / p99 / max" \
      "$l50 / $l99 / $lmax ms ($samples writes; from sending p50 $lsend ms)" "p50 at most 48 ms" "p50 48 ms, max 88 ms" "$(verdict "$l50" "<=" 48)"
  else
    say "the latency part could not run (above)"; MISSING+=(latency)
    row "latency: $what, from its answer, p50 / p99 / max" "not measured" "p50 at most 48 ms" "p50 48 ms, max 88 ms" "-"
  fi
fi

# --- load ---------------------------------------------------------------------------------------------------------
if part load; then
  step "load: deploy/load $LOAD_USERS"
  SUMMARY="$LOCAL_DIR/load/summary-$LOAD_USERS.json"
  rm -f "$SUMMARY"
  rc=0; "$REPO_ROOT/deploy/load" "$LOAD_USERS" || rc=$?
  [ "$rc" = 0 ] || say "deploy/load exited $rc (errors other than intended 429s, or it could not run; above)"
  if [ -s "$SUMMARY" ]; then
    # CPU in ms with 2 decimals, latencies with 1
    read -r cpu r50 r99 w50 w99 unexpected < <(tail -n 1 "$SUMMARY" | jq -r '[(.stackCPUMillisecondsPerRequest // -1 | . * 100 | round / 100),
      (.reads.p50, .reads.p99, .writes.p50, .writes.p99 | . * 10 | round / 10), .unexpectedAnswers] | @tsv')
    byPart=$(tail -n 1 "$SUMMARY" | jq -r '.stackCPUMillisecondsPerRequestByPart | to_entries | sort_by(-.value)
      | map("\(.key) \(.value * 100 | round / 100)") | join(", ")')
    row "load, $LOAD_USERS users: the stack's CPU per request" "$cpu ms ($byPart)" "at most 6 ms" "12.0 ms (broker 4.5 ms)" "$(verdict "$cpu" "<=" 6)"
    row "load, $LOAD_USERS users: reads p50 / p99" "$r50 / $r99 ms" "p99 at most 25 ms" "p99 40.9 ms" "$(verdict "$r99" "<=" 25)"
    row "load, $LOAD_USERS users: writes p50 / p99" "$w50 / $w99 ms" "-" "-" "-"
    [ "$unexpected" = 0 ] || row "load, $LOAD_USERS users: unexpected answers" "$unexpected" "none" "-" "$(verdict "$unexpected" "<=" 0)"
  else
    say "no summary in $SUMMARY (a LoadGenerator from before --summary-file, or the run failed)"; MISSING+=(load)
    row "load, $LOAD_USERS users: the stack's CPU per request" "not measured" "at most 6 ms" "12.0 ms (broker 4.5 ms)" "-"
    row "load, $LOAD_USERS users: reads p50 / p99" "not measured" "p99 at most 25 ms" "p99 40.9 ms" "-"
  fi
fi

# --- the table ----------------------------------------------------------------------------------------------------
step "the table (also in $WORK/table.md)"
{
  echo "| figure | measured | goal | today (issue 51) | verdict |"
  echo "|---|---|---|---|---|"
  for line in "${ROWS[@]}"; do echo "| ${line//|/ | } |"; done
} | tee "$WORK/table.md"
[ ${#MISSING[@]} -eq 0 ] || fail "not measured: ${MISSING[*]}"

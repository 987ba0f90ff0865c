"""The end checks: events drained, every acknowledged write present (products of the foods service included), every
effect once in trends and sharing, the read models against their sources in the database, and the drains and
recoveries."""
import datetime as dt
import time

from .config import DRAIN_TIMEOUT, now
from .database import psql, uuid_array
from .http import call
from .injections import kind_of
from .output import say, step
from .workload import LEDGER, TRUTH


def get_all_meals(user):
    meals, cursor = [], None
    for _ in range(200):
        path = "/api/meals?limit=100" + (f"&cursor={cursor}" if cursor else "")
        a = call("GET", path, token=user.token(), timeout=30)
        if a.status != 200:
            raise RuntimeError(f"GET {path}: {a.describe()}")
        meals += a.body["meals"]
        cursor = a.body.get("nextCursor")
        if not cursor:
            return meals
    raise RuntimeError("too many pages")


def wait_for_events(run, user_ids, limit):
    """Waits until the outboxes have sent every event of the run's users and trends and sharing applied them all."""
    users = uuid_array(user_ids)
    sharing_topics = "('meal.analyzed','meal.consumed','meal.deleted','user.profile_updated','user.deleted')"
    sql = f"""
        WITH events AS (
            SELECT event_id, topic, sent_at FROM meals.outbox WHERE message_key = ANY({users})
            UNION ALL SELECT event_id, topic, sent_at FROM metrics.outbox WHERE message_key = ANY({users})
            UNION ALL SELECT event_id, topic, sent_at FROM auth.outbox WHERE message_key = ANY({users}))
        SELECT count(*),
               count(*) FILTER (WHERE sent_at IS NULL),
               count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM trends.inbox i WHERE i.event_id = events.event_id)),
               count(*) FILTER (WHERE topic IN {sharing_topics}),
               count(*) FILTER (WHERE topic IN {sharing_topics}
                                AND NOT EXISTS (SELECT 1 FROM sharing.inbox i WHERE i.event_id = events.event_id))
        FROM events"""
    started = now()
    last = None
    while now() - started < limit:
        try:
            row = [int(x) for x in psql(sql)[0]]
        except RuntimeError as error:
            say(f"event count query failed: {error}")
            time.sleep(2)
            continue
        last = {"events": row[0], "unsent": row[1], "trends_missing": row[2], "sharing_events": row[3], "sharing_missing": row[4],
                "waited": round(now() - started, 1)}
        if row[1] == 0 and row[2] == 0 and row[4] == 0:
            break
        time.sleep(1)
    return last


def wait_for_product_events(product_ids, limit):
    """Waits until the foods outbox has sent a food.product_changed (keyed by the product id) of every product the run
    created. Returns the ids still unsent and the error that kept the outbox from being read, if any."""
    wanted = set(product_ids)
    if not wanted:
        return set(), None
    since = time.time() - now() - 60    # the harness's start, less a minute
    sql = f"""
        SELECT DISTINCT lower(message_key) FROM foods.outbox
        WHERE topic = 'food.product_changed' AND sent_at IS NOT NULL AND created_at >= to_timestamp({since:.3f})"""
    started = now()
    missing, error = wanted, None
    while now() - started < limit:
        try:
            missing, error = wanted - {row[0] for row in psql(sql)}, None
        except RuntimeError as failure:
            error = str(failure)
            if "does not exist" in error:
                break
        if not missing and error is None:
            break
        time.sleep(1)
    return missing, error


def run_checks(run, users, canary):
    everyone = users + [canary.user]
    failures = 0

    def check(group, what, expected, found, bad_count, note=""):
        nonlocal failures
        passed = bad_count == 0
        failures += 0 if passed else 1
        run.checks.append({"group": group, "what": what, "expected": expected, "found": found, "bad": bad_count,
                           "passed": passed, "note": note})

    # 1. Events drained.
    step(f"waiting for the events to drain (up to {run.args.quiet_timeout} s)")
    drained = wait_for_events(run, [u.user_id for u in everyone], run.args.quiet_timeout)
    say(f"events {drained}")
    check("events", "outbox rows sent (auth, meals, metrics)", drained["events"], drained["events"] - drained["unsent"], drained["unsent"])
    check("events", "events in trends inbox", drained["events"], drained["events"] - drained["trends_missing"], drained["trends_missing"])
    check("events", "meal/profile events in sharing inbox", drained["sharing_events"],
          drained["sharing_events"] - drained["sharing_missing"], drained["sharing_missing"])
    with TRUTH.lock:
        products = list(TRUTH.products.values())
    unsent, error = wait_for_product_events([p.id for p in products], run.args.quiet_timeout)
    check("events", "food.product_changed sent for every acknowledged product (foods outbox)", len(products),
          len(products) - len(unsent), len(unsent), error[:200] if error else "")
    time.sleep(1)

    # 2. Every acknowledged write is there.
    step("reading back every acknowledged write")
    meals_now = {}
    for user in everyone:
        for body in get_all_meals(user):
            meals_now[body["id"].lower()] = body
    writes = [w for w in LEDGER.writes if w["outcome"] == "ack"]
    meal_writes = [w for w in writes if w["op"].startswith("meal.")]
    missing_meal_writes, mismatched, newer_unexplained = [], [], []
    meal_problems = {}
    for meal in TRUTH.meals.values():
        body = meals_now.get(meal.id)
        if body is None:
            # Not in the list: ask for it directly too.
            a = call("GET", f"/api/meals/{meal.id}", token=meal.user.token())
            body = a.body if a.status == 200 else None
        if body is None:
            meal_problems[meal.id] = "missing"
            continue
        v = body["version"]
        if v < meal.version:
            meal_problems[meal.id] = f"version {v} < acknowledged {meal.version}"
        elif v > meal.version and not meal.ever_ambiguous:
            meal_problems[meal.id] = f"version {v} > acknowledged {meal.version} with no unanswered write"
            newer_unexplained.append(meal.id)
        elif v == meal.version and not meal.ambiguous and (
                body["isConsumed"] != meal.consumed or abs(float(body["totals"]["calories"]) - meal.calories) > 0.01 or body["title"] != meal.title):
            meal_problems[meal.id] = (f"state differs: consumed {body['isConsumed']}/{meal.consumed}, calories "
                                      f"{body['totals']['calories']}/{meal.calories}, title {body['title']!r}/{meal.title!r}")
            mismatched.append(meal.id)
    for w in meal_writes:
        meal = TRUTH.meals.get(w["target"])
        problem = meal_problems.get(w["target"])
        if meal is None or problem is None:
            continue
        v = (w.get("contents") or {}).get("version")
        body = meals_now.get(w["target"])
        if problem == "missing" or body is None or (v is not None and body["version"] < v) \
                or (w["target"] in mismatched and v == meal.version):
            missing_meal_writes.append({"write": w, "problem": problem})
    check("writes", "meal writes acknowledged (create/edit/consume/unconsume/analyze)", len(meal_writes),
          len(meal_writes) - len(missing_meal_writes), len(missing_meal_writes),
          f"{len(TRUTH.meals)} meals; {sum(TRUTH.ambiguous_creates.values())} creates unanswered")
    if newer_unexplained:
        check("writes", "meals newer than their last acknowledged write, without an unanswered write", 0, len(newer_unexplained), len(newer_unexplained))

    weight_missing = []
    weights_now = {}
    for user in everyone:
        a = call("GET", "/api/metrics/weight?days=366&unit=kg", token=user.token())
        if a.status != 200:
            raise RuntimeError(f"GET /api/metrics/weight: {a.describe()}")
        for e in a.body.get("entries", []):
            weights_now[(user.index, e["date"])] = float(e.get("weightKg", e.get("weight")))
    weight_writes = sum(1 for w in writes if w["op"] == "weight.log")
    for (idx, day), entry in TRUTH.weights.items():
        if entry["acked"] is None:
            continue
        got = weights_now.get((idx, day))
        allowed = {entry["acked"]} | entry["maybe"]
        if got is None or all(abs(got - v) > 0.011 for v in allowed):
            weight_missing.append({"user": idx, "date": day, "acked": entry["acked"], "maybe": sorted(entry["maybe"]), "found": got,
                                   "writes": entry["writes"]})
    missing_w = sum(x["writes"] for x in weight_missing)
    check("writes", "weight logs acknowledged", weight_writes, weight_writes - missing_w, missing_w,
          f"{sum(1 for e in TRUTH.weights.values() if e['acked'] is not None)} user-days")

    share_problems = []
    for share in TRUTH.shares:
        a = call("GET", f"/api/share/{share['token']}", timeout=10)
        if a.status != 200:
            share_problems.append({"token": share["token"][:8] + "...", "mealId": share["mealId"], "answer": a.describe()})
            continue
        meal = meals_now.get(share["mealId"])
        shown = a.body["meal"]
        if meal is not None and (abs(float(shown["totals"]["calories"]) - float(meal["totals"]["calories"])) > 0.01 or shown["name"] != meal["title"]):
            share_problems.append({"token": share["token"][:8] + "...", "mealId": share["mealId"],
                                   "answer": f"shows {shown['name']!r} {shown['totals']['calories']} kcal, meal is {meal['title']!r} {meal['totals']['calories']} kcal"})
    share_writes = sum(1 for w in writes if w["op"] == "share.create")
    check("writes", "share links acknowledged (open, showing the meal as it is now)", share_writes,
          share_writes - len(share_problems), len(share_problems))

    # Each product an acknowledged creation stored, looked up by the barcode it was created with, as its author.
    product_problems = []
    for product in products:
        a = call("GET", f"/api/foods/barcode/{product.barcode}", token=product.user.token(), timeout=10)
        if a.status != 200 or not isinstance(a.body, dict):
            product_problems.append({"barcode": product.barcode, "productId": product.id, "answer": a.describe()})
        elif str(a.body.get("id", "")).lower() != product.id or a.body.get("name") != product.name:
            product_problems.append({"barcode": product.barcode, "productId": product.id,
                                     "answer": f"shows {a.body.get('id')} {a.body.get('name')!r}, created as {product.name!r}"})
    product_writes = sum(1 for w in writes if w["op"] == "product.create")
    check("writes", "products acknowledged (create), read back by barcode with the same id and name", product_writes,
          product_writes - len(product_problems), len(product_problems), f"{TRUTH.ambiguous_products} creates unanswered")

    # 3. Trends: every meal's effect exactly once, against the meals service's own answers.
    step("comparing trends with the meals service")
    truth_days = {}   # (user index, date) -> [consumed, scanned, calories]
    meals_by_user_day = {}
    owner = {}
    for user in everyone:
        for body in get_all_meals(user):
            key = (user.index, body["localDate"])
            d = truth_days.setdefault(key, [0, 0, 0.0])
            if body["isConsumed"]:
                d[0] += 1
                d[2] += float(body["totals"]["calories"])
            else:
                d[1] += 1
            meals_by_user_day.setdefault(key, {})[body["id"].lower()] = body
            owner[body["id"].lower()] = user.index
    extra = sum(1 for mid in owner if mid not in TRUTH.meals)
    check("writes", "meals in the meals service beyond the acknowledged ones", sum(TRUTH.ambiguous_creates.values()), extra,
          max(0, extra - sum(TRUTH.ambiguous_creates.values())), "at most one per unanswered create")

    expected_meals = len(owner)
    found_meals, lost_meals, stale_meals, phantom_meals = 0, [], [], []
    days_over, days_under, excess_meals, missing_meals_sum = [], [], 0, 0
    cal_expected, cal_reported = 0.0, 0.0
    stats_bad = []
    for user in everyone:
        keys = sorted(k for k in truth_days if k[0] == user.index)
        dates = [k[1] for k in keys]
        today = dt.datetime.now(dt.timezone.utc).date()
        span = (today - dt.date.fromisoformat(min(dates))).days + 1 if dates else 7
        span = max(7, min(90, span))
        a = call("GET", f"/api/progress?days={span}", token=user.token())
        if a.status != 200:
            raise RuntimeError(f"GET /api/progress: {a.describe()}")
        reported = {d["date"]: d for d in a.body["days"]}
        for day in sorted(set(dates) | set(reported)):
            exp = truth_days.get((user.index, day), [0, 0, 0.0])
            rep = reported.get(day)
            if rep is None:
                continue
            cal_expected += exp[2]
            cal_reported += rep["calories"]
            over = max(0, rep["mealsConsumed"] - exp[0]) + max(0, rep["mealsScanned"] - exp[1])
            under = max(0, exp[0] - rep["mealsConsumed"]) + max(0, exp[1] - rep["mealsScanned"])
            if over or rep["calories"] > round(exp[2], 1) + 0.15:
                days_over.append({"user": user.index, "date": day, "expected": exp, "reported": [rep["mealsConsumed"], rep["mealsScanned"], rep["calories"]]})
            if under or rep["calories"] < round(exp[2], 1) - 0.15:
                days_under.append({"user": user.index, "date": day, "expected": exp, "reported": [rep["mealsConsumed"], rep["mealsScanned"], rep["calories"]]})
            excess_meals += over
            missing_meals_sum += under
        # Each meal of each day, by id, in trends' history of the day.
        for day in dates:
            h = call("GET", f"/api/history/{day}", token=user.token())
            if h.status != 200:
                raise RuntimeError(f"GET /api/history/{day}: {h.describe()}")
            listed = {}
            for m in h.body["meals"]:
                listed.setdefault(m["mealId"].lower(), []).append(m)
            for mid, body in meals_by_user_day.get((user.index, day), {}).items():
                got = listed.get(mid)
                if not got:
                    lost_meals.append({"user": user.index, "date": day, "mealId": mid, "consumed": body["isConsumed"]})
                elif len(got) > 1:
                    phantom_meals.append({"user": user.index, "date": day, "mealId": mid, "copies": len(got)})
                elif got[0]["isConsumed"] != body["isConsumed"] or abs(float(got[0]["totals"]["calories"]) - float(body["totals"]["calories"])) > 0.01:
                    stale_meals.append({"user": user.index, "date": day, "mealId": mid,
                                        "trends": [got[0]["isConsumed"], got[0]["totals"]["calories"]],
                                        "meals": [body["isConsumed"], body["totals"]["calories"]]})
                else:
                    found_meals += 1
            for mid in listed:
                if mid not in meals_by_user_day.get((user.index, day), {}):
                    phantom_meals.append({"user": user.index, "date": day, "mealId": mid, "copies": len(listed[mid])})
        s = call("GET", "/api/user/stats", token=user.token())
        if s.status == 200:
            at = s.body["allTime"]
            exp_c = sum(v[0] for k, v in truth_days.items() if k[0] == user.index)
            exp_s = sum(v[1] for k, v in truth_days.items() if k[0] == user.index)
            exp_cal = round(sum(v[2] for k, v in truth_days.items() if k[0] == user.index), 1)
            if at["mealsConsumed"] != exp_c or at["mealsScanned"] != exp_s or abs(at["totals"]["calories"] - exp_cal) > 0.15 * max(1, len(dates)):
                stats_bad.append({"user": user.index, "expected": [exp_c, exp_s, exp_cal],
                                  "reported": [at["mealsConsumed"], at["mealsScanned"], at["totals"]["calories"]]})
        else:
            stats_bad.append({"user": user.index, "answer": s.describe()})
    check("trends", "meals in trends history (same consumed state and calories)", expected_meals, found_meals,
          len(lost_meals) + len(stale_meals), f"lost {len(lost_meals)}, stale {len(stale_meals)}")
    check("trends", "meals counted twice or unknown to meals (history)", 0, len(phantom_meals), len(phantom_meals))
    check("trends", "meals per day (/api/progress): counted twice", 0, excess_meals, excess_meals,
          f"{len(days_over)} days over; calories expected {cal_expected:.1f}, reported {cal_reported:.1f}")
    check("trends", "meals per day (/api/progress): missing", 0, missing_meals_sum, missing_meals_sum, f"{len(days_under)} days under")
    check("trends", "/api/user/stats all time (consumed, scanned, calories) per user", len(everyone), len(everyone) - len(stats_bad), len(stats_bad))

    # 4. Database evidence: the read models against the source schemas, row by row.
    step("database evidence (read models against their sources)")
    ids = uuid_array([u.user_id for u in everyone])
    rows = psql(f"""
        SELECT count(*),
               count(*) FILTER (WHERE t.meal_id IS NULL OR NOT t.has_state OR t.deleted),
               count(*) FILTER (WHERE t.version < m.version),
               count(*) FILTER (WHERE t.version = m.version AND (t.is_consumed <> m.is_consumed
                                 OR abs(t.calories - (m.totals->>'calories')::float8) > 0.01 OR t.local_date <> m.local_date))
        FROM meals.meals m LEFT JOIN trends.meals t ON t.meal_id = m.id
        WHERE m.user_id::text = ANY({ids})""")[0]
    db_meals, db_lost, db_stale, db_diff = map(int, rows)
    check("database", "trends.meals rows matching meals.meals (version, consumed, calories, day)", db_meals,
          db_meals - db_lost - db_stale - db_diff, db_lost + db_stale + db_diff, f"absent {db_lost}, older {db_stale}, different {db_diff}")
    rows = psql(f"""
        WITH truth AS (
            SELECT user_id, local_date AS day, count(*) FILTER (WHERE is_consumed) AS c, count(*) FILTER (WHERE NOT is_consumed) AS s,
                   coalesce(sum((totals->>'calories')::float8) FILTER (WHERE is_consumed), 0) AS cal
            FROM meals.meals WHERE user_id::text = ANY({ids}) GROUP BY 1, 2),
        model AS (SELECT user_id, day, consumed_count AS c, scanned_count AS s, calories AS cal
                  FROM trends.daily_summaries WHERE user_id::text = ANY({ids}) AND (consumed_count + scanned_count) > 0)
        SELECT count(*),
               count(*) FILTER (WHERE model.user_id IS NOT NULL AND truth.user_id IS NOT NULL
                                AND model.c = truth.c AND model.s = truth.s AND abs(model.cal - truth.cal) < 0.01),
               coalesce(sum(greatest(coalesce(model.c, 0) - coalesce(truth.c, 0), 0) + greatest(coalesce(model.s, 0) - coalesce(truth.s, 0), 0)), 0),
               coalesce(sum(greatest(coalesce(truth.c, 0) - coalesce(model.c, 0), 0) + greatest(coalesce(truth.s, 0) - coalesce(model.s, 0), 0)), 0)
        FROM truth FULL JOIN model ON model.user_id = truth.user_id AND model.day = truth.day""")[0]
    db_days, db_days_ok, db_over, db_under = map(int, rows)
    check("database", "trends.daily_summaries matching meals.meals per user-day", db_days, db_days_ok, db_days - db_days_ok,
          f"meals counted twice {db_over}, missing {db_under}")
    rows = psql(f"""
        SELECT count(*), count(*) FILTER (WHERE b.user_id IS NULL OR b.version < d.version
                                          OR (b.version = d.version AND b.weight_kg IS DISTINCT FROM d.weight_kg))
        FROM metrics.daily_metrics d LEFT JOIN trends.body_metrics b ON b.user_id = d.user_id AND b.day = d.day
        WHERE d.user_id::text = ANY({ids})""")[0]
    check("database", "trends.body_metrics matching metrics.daily_metrics", int(rows[0]), int(rows[0]) - int(rows[1]), int(rows[1]))
    rows = psql(f"""
        SELECT count(*), count(*) FILTER (WHERE s.meal_id IS NULL OR s.version < m.version)
        FROM meals.meals m LEFT JOIN sharing.meals s ON s.meal_id = m.id WHERE m.user_id::text = ANY({ids})""")[0]
    check("database", "sharing.meals copies at the meal's version", int(rows[0]), int(rows[0]) - int(rows[1]), int(rows[1]))

    # 5. Drains and injections.
    for d in run.drains:
        check("drain", f"SIGTERM {d['part']} ({d['route']}): in-flight requests completed normally", d["in_flight"], d["in_flight_ok"],
              d["in_flight_failed"] + (1 if d["in_flight"] == 0 else 0), f"{d['completed_before_term']} finished before SIGTERM")
        check("drain", f"SIGTERM {d['part']} ({d['route']}): exited with status 0 within its drain timeout ({DRAIN_TIMEOUT:g} s)", 1,
              1 if d["exited_in_time"] else 0, 0 if d["exited_in_time"] else 1,
              f"status {d['exit_status']} after {d['exit_after_term']} s")
    for r in run.revocations:
        check("revocation", f"{r['ending']}: the gateway refuses the ended session's access token itself within 2 s", "<= 2 s",
              r["seconds"], 0 if r["passed"] else 1, r["note"])
    for i in run.injections:
        for row in kind_of(i).recovery_checks(i, run.args):
            check(*row)
    stuck = [i for i in run.injections if i["readyAfterStart"] is not None and i["eventsFlowingAfter"] is None]
    check("recovery", f"event paths working again after each injection (a new write through them within {run.args.canary_timeout:g} s)",
          len(run.injections), len(run.injections) - len(stuck), len(stuck),
          "slowest " + str(max((i["eventsFlowingAfter"] or 0) for i in run.injections)) + " s" if run.injections else "")
    # Issue 51: events flow again within seconds of any part's return, not only after a stall (which checks its own).
    limit = run.args.events_limit
    timed = [i for i in run.injections if i["kind"] != "stall" and i["eventsFlowingAfter"] is not None]
    slow = [i for i in timed if i["eventsFlowingAfter"] > limit]
    check("recovery", f"events flowing within {limit:g} s of each kill, restart and drain (from the part's start or its port)",
          len(timed), len(timed) - len(slow), len(slow),
          ", ".join(f"{i['part']} {i['signal']}: {i['eventsFlowingAfter']} s" for i in slow)
          or ("slowest " + str(max(i["eventsFlowingAfter"] for i in timed)) + " s" if timed else ""))
    check("processes", "parts that exited without being told to", 0, len([f for f in run.findings if f["kind"] == "unexpected exit"]),
          len([f for f in run.findings if f["kind"] == "unexpected exit"]))

    run.details = {"missingMealWrites": missing_meal_writes[:50], "mealProblems": dict(list(meal_problems.items())[:50]),
                   "weightMissing": weight_missing[:50], "shareProblems": share_problems[:50], "lostMeals": lost_meals[:50],
                   "staleMeals": stale_meals[:50], "phantomMeals": phantom_meals[:50], "daysOver": days_over[:50],
                   "daysUnder": days_under[:50], "statsBad": stats_bad, "events": drained,
                   "productProblems": product_problems[:50], "productEventsUnsent": sorted(unsent)[:50]}
    return failures

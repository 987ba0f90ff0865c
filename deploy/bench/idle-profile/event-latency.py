#!/usr/bin/env python3
"""Event latency write -> read model: POST /api/meals to the meals service, then poll trends' GET /api/user/stats
(directly, with X-User-Id / X-Session-Id as the gateway would send) until allTime.mealsAnalyzed goes up.
  event-latency.py USER_ID SESSION_ID [runs=10] [meals_port=40082] [trends_port=40084]
Random pauses of 1.0-2.0 s between runs (seed printed; EVENT_LATENCY_SEED to repeat), so writes fall at random
phases of the consumer's fetch cycle (a fixed pause phase-locks them to it: with a 500 ms fetch wait, a fixed 1.3 s
pause put every write just before the broker's 375 ms re-check).
Polling every 2 ms adds its own ~1 ms granularity."""
import http.client, json, os, random, sys, time, statistics
user, session = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
meals_port = int(sys.argv[4]) if len(sys.argv) > 4 else 40082
trends_port = int(sys.argv[5]) if len(sys.argv) > 5 else 40084
headers = {"X-User-Id": user, "X-Session-Id": session, "Content-Type": "application/json"}
meals = http.client.HTTPConnection("127.0.0.1", meals_port, timeout=10)
trends = http.client.HTTPConnection("127.0.0.1", trends_port, timeout=10)
def analyzed():
    trends.request("GET", "/api/user/stats", headers=headers)
    r = trends.getresponse(); body = r.read()
    return json.loads(body)["allTime"]["mealsAnalyzed"]
seed = int(os.environ.get("EVENT_LATENCY_SEED", random.randrange(1 << 30)))
rng = random.Random(seed)
print(f"seed {seed}")
results = []
for i in range(runs):
    time.sleep(rng.uniform(1.0, 2.0))
    before = analyzed()
    t0 = time.monotonic()
    meals.request("POST", "/api/meals", body=json.dumps({"items": [{"foodId": "09040", "grams": 100}]}), headers=headers)
    r = meals.getresponse(); r.read()
    assert r.status == 201, r.status
    t_written = time.monotonic()
    while analyzed() <= before:
        if time.monotonic() - t0 > 10: raise SystemExit("not seen in 10 s")
        time.sleep(0.002)
    t1 = time.monotonic()
    results.append(((t1 - t0) * 1000, (t_written - t0) * 1000))
    print(f"run {i+1}: write->visible {results[-1][0]:7.1f} ms (POST answered after {results[-1][1]:5.1f} ms)", flush=True)
lat = sorted(r[0] for r in results)
print(f"n={len(lat)} p50 {statistics.median(lat):.1f} ms  min {lat[0]:.1f}  max {lat[-1]:.1f}  mean {statistics.mean(lat):.1f}")

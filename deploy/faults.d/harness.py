#!/usr/bin/env python3
"""The fault run's harness (Python 3.11, standard library only); deploy/faults starts it against a running stack.

While writer threads keep a steady write load on the gateway (manual meals, consume/unconsume, edits, weights,
share links), it injects faults one after another through `deploy/stack` (SIGKILL and restart of every service
and the gateway, a broker restart, a PostgreSQL restart, and SIGTERM during a batch of in-flight requests for
every part), measures each part's way back to ready, then waits for the events to drain and checks that every
acknowledged write is there and that every event's effect reached the read models exactly once.

Every write is recorded with its outcome:
  ack        2xx: it happened; its result (id, version, state) is the ground truth;
  refused    4xx, or 503 (the gateway could not reach the service, or the service's dependency was down):
             it did not happen;
  ambiguous  any other 5xx, a reset or a timeout: it may or may not have happened; a meal with such a write is
             read back before it is touched again, and its final state may be newer than the last acknowledged one.
The report (tables on stdout, everything in JSON at --report) lists what was injected and what was checked;
the exit status is 1 when any check failed.
"""
import argparse
import datetime as dt
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

# ----------------------------------------------------------------------------------------------- output helpers

TTY = sys.stdout.isatty()
C_STEP, C_OK, C_ERR, C_OFF = ("\x1b[1;34m", "\x1b[32m", "\x1b[1;31m", "\x1b[0m") if TTY else ("", "", "", "")
PRINT_LOCK = threading.Lock()


def out(text):
    with PRINT_LOCK:
        print(text, flush=True)


def step(text):
    out(f"{C_STEP}==> {text}{C_OFF}")


def say(text):
    out(f"    {text}")


def ok(text):
    out(f"    {C_OK}ok{C_OFF}: {text}")


def bad(text):
    out(f"    {C_ERR}FAIL{C_OFF}: {text}")


def table(headers, rows):
    cells = [[str(h) for h in headers]] + [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [line, "| " + " | ".join(cells[0][i].ljust(widths[i]) for i in range(len(widths))) + " |", line]
    for row in cells[1:]:
        lines.append("| " + " | ".join(row[i].ljust(widths[i]) for i in range(len(widths))) + " |")
    lines.append(line)
    out("\n".join(lines))


# ----------------------------------------------------------------------------------------------- configuration

ENV = os.environ
REPO = ENV.get("REPO_ROOT", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
STACK = os.path.join(REPO, "deploy", "stack")
LOG_DIR = ENV.get("LOG_DIR", os.path.join(REPO, ".local", "logs"))
RUN_DIR = ENV.get("RUN_DIR", os.path.join(REPO, ".local", "run"))
GATEWAY_PORT = int(ENV.get("GATEWAY_PORT", "8080"))
SERVICES = ["auth", "meals", "metrics", "trends", "sharing"]
PORTS = {"gateway": GATEWAY_PORT}
for _entry in ENV.get("SERVICES", "auth:auth:8081 meals:meals:8082 metrics:metrics:8083 trends:trends:8084 sharing:sharing:8085").split():
    _name, _schema, _port = _entry.split(":")
    PORTS[_name] = int(_port)
PORTS["postgres"] = int(ENV.get("PG_PORT", "15432"))
PORTS["broker"] = int(ENV.get("BROKER_PORT", "19092"))
PG_SOCKET_DIR = ENV.get("PG_SOCKET_DIR", os.path.join(REPO, ".local", "postgres", "run"))
PG_DATABASE = ENV.get("PG_DATABASE", "nutritionai")
PG_DATA = ENV.get("PG_DATA", os.path.join(REPO, ".local", "postgres", "data"))

T0 = time.monotonic()


def now():
    """Seconds since the harness started (monotonic)."""
    return time.monotonic() - T0


def wall():
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ----------------------------------------------------------------------------------------------- HTTP

class Answer:
    __slots__ = ("status", "body", "raw", "error", "t0", "t1", "rid", "headers", "sent")

    def __init__(self):
        self.sent = False
        self.status = None
        self.body = None
        self.raw = b""
        self.error = None
        self.t0 = self.t1 = None
        self.rid = None
        self.headers = {}

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300

    @property
    def code(self):
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("code")
        return None

    @property
    def outcome(self):
        """ack, refused or ambiguous (see the module's doc)."""
        if self.ok:
            return "ack"
        if not self.sent:
            return "refused"        # the connection was refused: nothing was sent
        if self.status is not None and 400 <= self.status < 500:
            return "refused"
        if self.status == 503 and self.code == "upstream_unavailable":
            return "refused"        # the gateway could not reach the service
        return "ambiguous"

    def describe(self):
        if self.status is None:
            return f"no answer ({self.error})"
        return f"{self.status} {self.code or ''}".strip()


def prepare(method, path, body=None, token=None, headers=None, rid=None):
    h = {"Connection": "close", "X-Request-Id": rid or ("faults-" + uuid.uuid4().hex[:20])}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    if token:
        h["Authorization"] = "Bearer " + token
    if headers:
        h.update(headers)
    return method, path, data, h


def exchange(conn, prepared, answer):
    method, path, data, h = prepared
    answer.rid = h["X-Request-Id"]
    try:
        if answer.t0 is None:
            answer.t0 = now()
        if conn.sock is None:
            conn.connect()
        answer.sent = True
        conn.request(method, path, body=data, headers=h)
        response = conn.getresponse()
        answer.raw = response.read()
        answer.status = response.status
        answer.headers = {k.lower(): v for k, v in response.getheaders()}
        if answer.raw and "json" in answer.headers.get("content-type", ""):
            try:
                answer.body = json.loads(answer.raw)
            except ValueError:
                pass
    except Exception as error:  # noqa: BLE001 - every transport failure is an outcome to record
        answer.error = f"{type(error).__name__}: {error}"
    finally:
        answer.t1 = now()
        conn.close()
    return answer


def call(method, path, body=None, token=None, port=GATEWAY_PORT, timeout=35.0, headers=None, rid=None):
    """One request on a fresh connection (so a connection the server closed while idle never makes a write ambiguous)."""
    answer = Answer()
    answer.t0 = now()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    return exchange(conn, prepare(method, path, body, token, headers, rid), answer)


def port_open(port, timeout=0.3):
    import socket
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


# ----------------------------------------------------------------------------------------------- the stack

def stack(*args, timeout=300):
    """Runs deploy/stack ARGS; its output goes to the harness log. Returns (exit status, output)."""
    started = now()
    proc = subprocess.run([STACK, *args], capture_output=True, text=True, timeout=timeout)
    text = (proc.stdout + proc.stderr).strip()
    with open(os.path.join(LOG_DIR, "faults-harness.log"), "a") as log:
        log.write(f"[{wall()}] deploy/stack {' '.join(args)} -> {proc.returncode} in {now() - started:.2f}s\n{text}\n")
    return proc.returncode, text


def part_pid(part):
    try:
        if part == "postgres":
            with open(os.path.join(PG_DATA, "postmaster.pid")) as f:
                return int(f.readline().strip())
        path = os.path.join(RUN_DIR, f"{part}.pid")
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def pid_alive(pid):
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # A zombie (killed, not yet reaped by the stack's runner) is not alive.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def part_alive(part):
    return pid_alive(part_pid(part))


POOL = ThreadPoolExecutor(max_workers=8)


def part_ready(part):
    if part == "gateway":
        return call("GET", "/health", port=GATEWAY_PORT, timeout=3.0).status == 200
    return call("GET", "/health/ready", port=PORTS[part], timeout=2.0).status == 200


def readiness():
    """Each service's /health/ready and the gateway's /health, asked concurrently."""
    parts = SERVICES + ["gateway"]
    return dict(zip(parts, POOL.map(part_ready, parts)))


def wait_all_ready(limit):
    """Seconds-since-start at which every part answered ready, or None after `limit` seconds."""
    deadline = now() + limit
    while now() < deadline:
        if all(readiness().values()):
            return now()
        time.sleep(0.1)
    return None


def log_tail(part, lines=15, pattern=None, since_bytes=0):
    path = os.path.join(LOG_DIR, f"{part}.log")
    try:
        with open(path, "rb") as f:
            f.seek(since_bytes)
            text = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    if pattern:
        text = [line for line in text if re.search(pattern, line)]
    return text[-lines:]


def log_size(part):
    try:
        return os.path.getsize(os.path.join(LOG_DIR, f"{part}.log"))
    except OSError:
        return 0


# ----------------------------------------------------------------------------------------------- database

def psql(sql):
    """Rows of a query as the PostgreSQL superuser (evidence only; the services never do this)."""
    proc = subprocess.run(
        ["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1",
         "-h", PG_SOCKET_DIR, "-p", str(PORTS["postgres"]), "-d", PG_DATABASE, "-c", sql],
        capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"psql failed: {proc.stderr.strip()}")
    return [line.split("\t") for line in proc.stdout.splitlines() if line]


def uuid_array(ids):
    return "ARRAY[" + ",".join(f"'{i}'" for i in ids) + "]::text[]"


# ----------------------------------------------------------------------------------------------- ledger

class Ledger:
    """Every write attempted, with its outcome."""

    def __init__(self):
        self.lock = threading.Lock()
        self.writes = []

    def add(self, op, user, answer, thread, target=None, contents=None):
        entry = {
            "op": op, "user": user.index, "thread": thread, "t0": round(answer.t0, 3), "t1": round(answer.t1, 3),
            "status": answer.status, "code": answer.code, "error": answer.error, "outcome": answer.outcome,
            "requestId": answer.rid, "target": target, "contents": contents,
        }
        with self.lock:
            self.writes.append(entry)
        return entry

    def between(self, start, end):
        with self.lock:
            return [w for w in self.writes if start <= w["t0"] <= end]


LEDGER = Ledger()


# ----------------------------------------------------------------------------------------------- users

class User:
    def __init__(self, index, run_id):
        self.index = index
        self.email = f"faults-{run_id}-{index}@example.com"
        self.password = f"fault-run-{run_id}-{uuid.uuid4().hex[:12]}"
        self.lock = threading.Lock()
        self.access = None
        self.refresh = None
        self.issued = 0.0
        self.user_id = None
        self.session_id = None

    def _take(self, body):
        self.access = body["accessToken"]
        self.refresh = body["refreshToken"]
        self.session_id = body.get("sessionId")
        self.user_id = body["user"]["id"].lower()
        self.issued = now()

    def register(self):
        for _ in range(20):
            a = call("POST", "/api/auth/register", {"email": self.email, "password": self.password, "displayName": f"Fault {self.index}"})
            if a.status == 201:
                self._take(a.body)
                return
            time.sleep(0.5)
        raise RuntimeError(f"could not register {self.email}: {a.describe()}")

    def token(self):
        """The access token, refreshed after 10 minutes (tokens live 15), retrying while auth is down."""
        with self.lock:
            if now() - self.issued > 600:
                deadline = now() + 60
                while now() < deadline:
                    a = call("POST", "/api/auth/refresh", {"refreshToken": self.refresh})
                    if a.status == 200:
                        self._take(a.body)
                        break
                    if a.status in (401, 403):
                        a = call("POST", "/api/auth/login", {"email": self.email, "password": self.password})
                        if a.status == 200:
                            self._take(a.body)
                            break
                    time.sleep(0.5)
            return self.access

    def identity_headers(self):
        """What the gateway would pass to a service, for requests straight to it."""
        return {"X-User-Id": self.user_id, "X-Session-Id": self.session_id or str(uuid.uuid4())}


# ----------------------------------------------------------------------------------------------- ground truth

class MealState:
    """What the acknowledged writes say a meal is."""

    def __init__(self, user, body, origin):
        self.user = user
        self.id = body["id"].lower()
        self.origin = origin
        self.created = now()
        self.ambiguous = False          # a write after the last acknowledged state may have happened; read back first
        self.ever_ambiguous = False     # a newer version than expected is then possible
        self.acked_versions = []        # the version each acknowledged write produced
        self.take(body)

    def take(self, body):
        self.version = body["version"]
        self.consumed = body["isConsumed"]
        self.calories = float(body["totals"]["calories"])
        self.title = body["title"]
        self.local_date = body["localDate"]


class Truth:
    def __init__(self):
        self.lock = threading.Lock()
        self.meals = {}             # id -> MealState
        self.weights = {}           # (user index, date) -> {"acked": kg or None, "maybe": set(kg), "writes": n}
        self.shares = []            # {"user", "token", "mealId"}
        self.ambiguous_creates = {}  # user index -> count

    def add_meal(self, meal):
        with self.lock:
            self.meals[meal.id] = meal

    def weight(self, user, date, kg, outcome):
        with self.lock:
            key = (user.index, date)
            entry = self.weights.setdefault(key, {"acked": None, "maybe": set(), "writes": 0})
            if outcome == "ack":
                entry["acked"] = kg
                entry["maybe"] = set()
                entry["writes"] += 1
            elif outcome == "ambiguous":
                entry["maybe"].add(kg)

    def ambiguous_create(self, user):
        with self.lock:
            self.ambiguous_creates[user.index] = self.ambiguous_creates.get(user.index, 0) + 1


TRUTH = Truth()

FOODS = [
    ("Oat porridge", 12, 54, 7), ("Chicken and rice", 38, 62, 11), ("Salmon and greens", 34, 12, 22),
    ("Lentil soup", 18, 40, 6), ("Greek yogurt", 17, 9, 5), ("Pasta bolognese", 29, 78, 17),
    ("Apple", 0.5, 25, 0.3), ("Tofu stir fry", 21, 30, 14), ("Egg sandwich", 19, 33, 15), ("Trail mix", 9, 24, 21),
]


def meal_items(rng):
    items = []
    for _ in range(rng.randint(1, 3)):
        name, p, c, f = rng.choice(FOODS)
        scale = rng.choice([0.5, 1, 1, 1.5, 2])
        p, c, f = round(p * scale, 1), round(c * scale, 1), round(f * scale, 1)
        grams = round(max(p + c + f, 10) * 2.5)
        items.append({"name": name, "grams": grams, "calories": round(4 * p + 4 * c + 9 * f), "protein": p, "carbs": c, "fat": f})
    return items


def iso(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ----------------------------------------------------------------------------------------------- writers

class Writer(threading.Thread):
    """One writer: its own meals (only this thread touches them, so acknowledged states are in order) and its own
    weight dates, at one write every `interval` seconds."""

    def __init__(self, name, user, slot, slots, interval, stop, seed):
        super().__init__(name=name, daemon=True)
        self.user = user
        self.slot = slot
        self.slots = slots
        self.interval = interval
        self.stop_event = stop
        self.rng = random.Random(seed)
        self.meals = []
        self.counts = {}
        self.last_share = None

    def record(self, op, answer, target=None, contents=None):
        self.counts[op] = self.counts.get(op, 0) + 1
        return LEDGER.add(op, self.user, answer, self.name, target, contents)

    def run(self):
        next_at = now() + self.rng.random() * self.interval
        while not self.stop_event.is_set():
            delay = next_at - now()
            if delay > 0:
                if self.stop_event.wait(delay):
                    break
            next_at = max(next_at + self.interval, now())
            try:
                self.one_write()
            except Exception as error:  # noqa: BLE001 - a harness bug must not silently stop the load
                out(f"    writer {self.name}: {type(error).__name__}: {error}")
                time.sleep(0.5)

    def one_write(self):
        r = self.rng.random()
        if len(self.meals) < 3 or r < 0.30:
            self.create(consumed=self.rng.random() < 0.85)
        elif r < 0.48:
            self.log_weight()
        elif r < 0.64:
            self.edit(self.rng.choice(self.meals))
        elif r < 0.84:
            self.toggle(self.rng.choice(self.meals))
        else:
            ready = [m for m in self.meals if now() - m.created > 5]
            if ready:
                self.share(self.rng.choice(ready))
            else:
                self.create(consumed=True)

    def create(self, consumed=True):
        eaten = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=self.rng.randint(600, 6 * 86400))
        body = {"title": f"{self.rng.choice(FOODS)[0]} #{self.rng.randint(1, 9999)}",
                "mealType": self.rng.choice(["breakfast", "lunch", "dinner", "snack"]),
                "eatenAt": iso(eaten), "items": meal_items(self.rng), "consumed": consumed}
        a = call("POST", "/api/meals", body, self.user.token())
        if a.ok:
            meal = MealState(self.user, a.body, "manual")
            meal.acked_versions.append(meal.version)
            self.meals.append(meal)
            TRUTH.add_meal(meal)
            self.record("meal.create", a, meal.id, {"version": meal.version, "consumed": meal.consumed, "calories": meal.calories,
                                                    "title": meal.title, "localDate": meal.local_date})
        else:
            if a.outcome == "ambiguous":
                TRUTH.ambiguous_create(self.user)
            self.record("meal.create", a, None, {"title": body["title"], "consumed": consumed})

    def resync(self, meal):
        """Reads back a meal whose last write had no clear answer; False while it cannot be read."""
        a = call("GET", f"/api/meals/{meal.id}", token=self.user.token())
        if a.status == 200:
            meal.take(a.body)
            meal.ambiguous = False
            return True
        return False

    def after(self, meal, op, answer):
        if answer.ok:
            meal.take(answer.body)
            meal.acked_versions.append(meal.version)
        elif answer.outcome == "ambiguous":
            meal.ambiguous = meal.ever_ambiguous = True
        self.record(op, answer, meal.id, {"version": meal.version, "consumed": meal.consumed, "calories": meal.calories,
                                          "title": meal.title} if answer.ok else None)

    def edit(self, meal):
        if meal.ambiguous and not self.resync(meal):
            return
        body = {"title": f"{meal.title.split(' (')[0]} (edit {self.rng.randint(1, 999)})", "items": meal_items(self.rng)}
        self.after(meal, "meal.edit", call("PUT", f"/api/meals/{meal.id}", body, self.user.token()))

    def toggle(self, meal):
        if meal.ambiguous and not self.resync(meal):
            return
        if meal.consumed:
            self.after(meal, "meal.unconsume", call("DELETE", f"/api/meals/{meal.id}/consume", token=self.user.token()))
        else:
            self.after(meal, "meal.consume", call("POST", f"/api/meals/{meal.id}/consume", {}, self.user.token()))

    def log_weight(self):
        # Dates 1-30 days ago; this writer owns the dates whose offset falls in its slot, so no two writers race
        # on one user's day.
        offsets = [d for d in range(1, 31) if d % self.slots == self.slot]
        day = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=self.rng.choice(offsets))).date().isoformat()
        kg = round(self.rng.uniform(60, 95), 1)
        a = call("POST", "/api/metrics/weight", {"date": day, "weight": kg, "unit": "kg"}, self.user.token())
        TRUTH.weight(self.user, day, kg, a.outcome)
        self.record("weight.log", a, day, {"weightKg": kg})

    def share(self, meal):
        a = call("POST", f"/api/share/meal/{meal.id}", {}, self.user.token())
        if a.ok:
            with TRUTH.lock:
                TRUTH.shares.append({"user": self.user.index, "token": a.body["token"], "mealId": meal.id})
            self.counts["share.ok"] = self.counts.get("share.ok", 0) + 1
            self.last_share = meal.id
        self.record("share.create", a, meal.id, {"token": a.body["token"]} if a.ok else None)


# ----------------------------------------------------------------------------------------------- injections

class Run:
    def __init__(self, args):
        self.args = args
        self.injections = []
        self.drains = []
        self.findings = []      # defects seen while running (unexpected exits, ...)
        self.checks = []        # (group, what, expected, found, missing/bad, passed, note)

    # -- process supervision: a part that died without being told to is a finding, and is started again
    def supervise(self, context):
        for part in SERVICES + ["gateway", "broker", "postgres"]:
            if part_alive(part):
                continue
            if part in ("postgres",) and port_open(PORTS["postgres"]):
                continue
            lines = log_tail(part, 12)
            self.findings.append({"kind": "unexpected exit", "part": part, "context": context, "at": round(now(), 2),
                                  "log": lines})
            bad(f"{part} is not running ({context}); last log lines:")
            for line in lines[-6:]:
                say(f"  {line[:240]}")
            rc, text = stack("start", part)
            say(f"started {part} again (deploy/stack start {part}: exit {rc})")
            wait_all_ready(60)

    def window_counts(self, start, end):
        writes = LEDGER.between(start, end)
        acked = sum(1 for w in writes if w["outcome"] == "ack")
        return len(writes), acked, len(writes) - acked

    # The event paths a part is on: a meal reaching trends' history and sharing's copy (a share link can be made),
    # a weight reaching trends' weight series.
    FLOWS = {"auth": ["meal>trends"], "meals": ["meal>trends", "meal>sharing"], "metrics": ["weight>trends"],
             "trends": ["meal>trends", "weight>trends"], "sharing": ["meal>sharing"]}
    ALL_FLOWS = ["meal>trends", "meal>sharing", "weight>trends"]
    canary_weight = 0

    def canary_latency(self, canary, part, since):
        """Seconds from `since` until writes made after the recovery have gone through every event path `part` is on;
        None when they do not within --canary-timeout."""
        flows = self.FLOWS.get(part, self.ALL_FLOWS)
        deadline = now() + self.args.canary_timeout
        meal, day, kg = None, None, None
        if any(f.startswith("meal>") for f in flows):
            before = len(canary.meals)
            while now() < deadline and len(canary.meals) == before:
                canary.create(consumed=True)
                if len(canary.meals) == before:
                    time.sleep(0.3)
            if len(canary.meals) == before:
                return None
            meal = canary.meals[-1]
        if "weight>trends" in flows:
            day = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=1)).date().isoformat()
            while now() < deadline:
                Run.canary_weight += 1
                kg = round(70 + (Run.canary_weight % 200) / 10, 1)
                a = call("POST", "/api/metrics/weight", {"date": day, "weight": kg, "unit": "kg"}, canary.user.token())
                TRUTH.weight(canary.user, day, kg, a.outcome)
                canary.record("weight.log", a, day, {"weightKg": kg})
                if a.ok:
                    break
                time.sleep(0.3)
            else:
                return None
        pending = set(flows)
        while pending and now() < deadline:
            if "meal>trends" in pending:
                a = call("GET", f"/api/history/{meal.local_date}", token=canary.user.token(), timeout=5)
                if a.status == 200 and any(m.get("mealId", "").lower() == meal.id for m in a.body.get("meals", [])):
                    pending.discard("meal>trends")
            if "meal>sharing" in pending:
                canary.share(meal)
                if canary.counts.get("share.ok", 0) and canary.last_share == meal.id:
                    pending.discard("meal>sharing")
            if "weight>trends" in pending:
                a = call("GET", "/api/trends?period=7d", token=canary.user.token(), timeout=5)
                if a.status == 200 and any(e.get("date") == day and abs(float(e.get("weight", 0)) - kg) < 0.011
                                           for e in a.body.get("weight", {}).get("entries", [])):
                    pending.discard("weight>trends")
            if pending:
                time.sleep(0.1)
        return None if pending else now() - since

    def record_injection(self, part, signal_name, t_inject, t_back_process, t_back_port, t_ready, canary, note=""):
        end = t_ready if t_ready is not None else now()
        attempted, acked, failed = self.window_counts(t_inject, end)
        ready_after = None if t_ready is None else t_ready - t_back_process
        passed = ready_after is not None and ready_after <= self.args.ready_limit
        entry = {
            "part": part, "signal": signal_name, "at": round(t_inject, 2),
            "down": round(t_back_port - t_inject, 2) if t_back_port else None,
            "readyAfterStart": round(ready_after, 2) if ready_after is not None else None,
            "readyAfterPort": round(t_ready - t_back_port, 2) if (t_ready and t_back_port) else None,
            "eventsFlowingAfter": round(canary, 2) if canary is not None else None,
            "attempted": attempted, "acked": acked, "failed": failed, "passed": passed, "note": note,
        }
        self.injections.append(entry)
        text = (f"{part} {signal_name}: down {entry['down']} s, ready {entry['readyAfterStart']} s after start "
                f"({entry['readyAfterPort']} s after its port opened); writes {attempted} attempted, {acked} acknowledged")
        (ok if passed else bad)(text)
        return entry

    def wait_port(self, port, limit=120):
        deadline = now() + limit
        while now() < deadline:
            if port_open(port, 0.2):
                return now()
            time.sleep(0.02)
        return None

    def kill_and_restart(self, part, canary):
        step(f"SIGKILL {part}, restart after {self.args.down_seconds} s")
        self.bounce(part, ("kill", part, "KILL"), "KILL", canary, back_at_port=False)

    def restart_infra(self, part, canary):
        step(f"restart {part} (deploy/stack stop {part}; deploy/stack start {part})")
        # PostgreSQL and the broker are "back" when their port answers (pg_ctl -w and broker_start wait for it).
        label = "TERM" if part == "broker" else "stop -m fast"
        self.bounce(part, ("stop", part), label, canary, back_at_port=True)

    def bounce(self, part, take_down, label, canary, back_at_port):
        """Takes `part` down with `deploy/stack <take_down>`, starts it again after the down time, and records the
        injection: time to ready and to events flowing, counted from the start (or, with back_at_port, from the
        moment its port answers)."""
        self.supervise(f"before taking down {part}")
        t_inject = now()
        rc, text = stack(*take_down)
        if rc != 0:
            bad(f"deploy/stack {' '.join(take_down)} failed: {text[-300:]}")
        time.sleep(self.args.down_seconds)
        t_start = now()
        rc, text = stack("start", part)
        if rc != 0:
            bad(f"deploy/stack start {part} failed: {text[-300:]}")
        t_port = self.wait_port(PORTS[part])
        t_ready = wait_all_ready(self.args.ready_timeout)
        canary_s = self.canary_latency(canary, part, t_port or t_start) if t_ready else None
        t_back = (t_port or t_start) if back_at_port else t_start
        entry = self.record_injection(part, label, t_inject, t_back, t_port, t_ready, canary_s)
        self.recover(entry)

    def recover(self, entry):
        if entry["readyAfterStart"] is None:
            states = readiness()
            self.findings.append({"kind": "not ready", "part": entry["part"], "states": states, "at": round(now(), 2)})
            bad(f"not ready after {self.args.ready_timeout} s: {states}")
        time.sleep(self.args.recovery_seconds)
        self.supervise(f"after {entry['part']} {entry['signal']}")

    # -- SIGTERM with requests in flight
    def drain_specs(self, part, users, direct):
        """(label, method, path, body, user, on_ack) for the batch; slow requests first."""
        rng = random.Random(f"{part}-{direct}")
        specs = []
        text = ("two eggs, 2 slices of toast with butter, a cup of orange juice, 150 g greek yogurt with honey, "
                "a banana, 1 cup of cooked oatmeal, 30 g almonds, a cup of milk, 100 g blueberries, 2 tbsp peanut butter")
        for i in range(self.args.drain_requests):
            user = users[i % len(users)]
            kind = part if part != "gateway" else ["auth", "meals", "metrics", "trends", "sharing"][i % 5]
            j = i // (5 if part == "gateway" else 1)
            if kind == "auth":
                spec = [("login", "POST", "/api/auth/login", {"email": user.email, "password": user.password}, user, None),
                        ("me", "GET", "/api/auth/me", None, user, None),
                        ("profile", "GET", "/api/users/profile", None, user, None)][j % 3]
            elif kind == "meals":
                spec = [("analyze", "POST", "/api/analyze", {"text": text, "mealType": "breakfast"}, user, "meal"),
                        ("list100", "GET", "/api/meals?limit=100", None, user, None)][j % 2]
            elif kind == "metrics":
                day = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=self.next_drain_day())).date().isoformat()
                spec = [("daily366", "GET", "/api/metrics/daily?days=366", None, user, None),
                        ("weight", "POST", "/api/metrics/weight", {"date": day, "weight": round(rng.uniform(60, 95), 1), "unit": "kg"}, user, "weight"),
                        ("weights366", "GET", "/api/metrics/weight?days=366", None, user, None)][j % 3]
            elif kind == "trends":
                spec = [("trends90d", "GET", "/api/trends?period=90d", None, user, None),
                        ("stats", "GET", "/api/user/stats", None, user, None),
                        ("progress90", "GET", "/api/progress?days=90", None, user, None),
                        ("calendar", "GET", "/api/calendar", None, user, None)][j % 4]
            else:
                with TRUTH.lock:
                    mine = [s for s in TRUTH.shares if s["user"] == user.index]
                token = mine[j % len(mine)]["token"] if mine else None
                choices = [("shares100", "GET", "/api/share?limit=100", None, user, None)]
                if token:
                    choices += [("page", "GET", f"/shared/{token}", None, None, None), ("view", "GET", f"/api/share/{token}", None, None, None),
                                ("card", "GET", f"/shared/{token}/card.svg", None, None, None)]
                spec = choices[j % len(choices)]
            specs.append(spec)
        return specs

    drain_day = 34

    def next_drain_day(self):
        Run.drain_day += 1
        return Run.drain_day

    def drain(self, part, users, canary, direct=False):
        route = "direct" if direct else "via gateway"
        step(f"SIGTERM {part} with {self.args.drain_requests} requests in flight ({route})")
        self.supervise(f"before draining {part}")
        specs = self.drain_specs(part, users, direct)
        port = PORTS[part] if direct else GATEWAY_PORT
        answers = [Answer() for _ in specs]
        prepared = []
        for label, method, path, body, user, _ in specs:
            headers = user.identity_headers() if (direct and user) else None
            token = None if (direct or user is None) else user.token()
            prepared.append(prepare(method, path, body, token, headers, rid=f"faults-drain-{part}-{uuid.uuid4().hex[:12]}"))
        conns = []
        for _ in specs:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=40)
            conn.connect()
            conns.append(conn)
        barrier = threading.Barrier(len(specs) + 1)

        def worker(i):
            barrier.wait()
            answers[i].t0 = now()
            exchange(conns[i], prepared[i], answers[i])

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(len(specs))]
        for t in threads:
            t.start()
        pid = part_pid(part)
        log_offset = log_size(part)
        gateway_offset = log_size("gateway")
        barrier.wait()
        t_send = now()
        time.sleep(self.args.drain_delay)
        t_term = now()
        if pid_alive(pid):
            os.kill(pid, signal.SIGTERM)
        else:
            bad(f"{part} is not running; no SIGTERM sent")
        for t in threads:
            t.join(60)
        # Wait for the process to finish its drain and exit.
        deadline = now() + 40
        while pid_alive(pid) and now() < deadline:
            time.sleep(0.05)
        t_exit = now() if not pid_alive(pid) else None
        rc, text = stack("start", part)
        t_start = now()
        t_port = self.wait_port(PORTS[part])
        t_ready = wait_all_ready(self.args.ready_timeout)

        # Record the writes of the batch as the writers do.
        for spec, a in zip(specs, answers):
            label, method, path, body, user, kind = spec
            if kind == "meal":
                if a.ok:
                    meal = MealState(user, a.body, "text")
                    meal.acked_versions.append(meal.version)
                    TRUTH.add_meal(meal)
                elif a.outcome == "ambiguous":
                    TRUTH.ambiguous_create(user)
                LEDGER.add("meal.analyze", user, a, f"drain-{part}", a.body["id"].lower() if a.ok else None,
                           {"version": a.body["version"], "consumed": a.body["isConsumed"]} if a.ok else None)
            elif kind == "weight":
                TRUTH.weight(user, body["date"], body["weight"], a.outcome)
                LEDGER.add("weight.log", user, a, f"drain-{part}", body["date"], {"weightKg": body["weight"]})

        in_flight = [(s, a) for s, a in zip(specs, answers) if a.t1 is None or a.t1 > t_term]
        # Which requests the part itself answered: its "request completed" lines since the batch was sent.
        answered_ids = set(re.findall(r'"request_id":"(faults-drain-[^"]+)"', "\n".join(log_tail(part, 10**6, "faults-drain-", since_bytes=log_offset))))
        reached = sum(1 for s, a in in_flight if a.rid in answered_ids)
        before = len(specs) - len(in_flight)
        good = [(s, a) for s, a in in_flight if a.ok]
        failed = [(s, a) for s, a in in_flight if not a.ok]
        evidence = []
        for s, a in failed:
            seen = log_tail(part, 3, re.escape(a.rid), since_bytes=log_offset)
            gw = log_tail("gateway", 3, re.escape(a.rid), since_bytes=gateway_offset) if not direct else []
            evidence.append({"request": f"{s[1]} {s[2]}", "answer": a.describe(), "requestId": a.rid,
                             "after_term_ms": round((a.t1 - t_term) * 1000, 1),
                             "service_log": [line[:400] for line in seen], "gateway_log": [line[:400] for line in gw]})
        durations = sorted((a.t1 - a.t0) for a in answers if a.t1 and a.t0)
        entry = {
            "part": part, "route": route, "requests": len(specs), "completed_before_term": before, "in_flight": len(in_flight),
            "in_flight_ok": len(good), "in_flight_failed": len(failed), "answered_by_part": reached,
            "failures": evidence, "exit_after_term": round(t_exit - t_term, 2) if t_exit else None,
            "slowest_ms": round(durations[-1] * 1000, 1) if durations else None,
            "kinds": sorted({s[0] for s in specs}),
            "passed": len(failed) == 0 and len(in_flight) > 0,
        }
        self.drains.append(entry)
        text = (f"{len(in_flight)} of {len(specs)} in flight at SIGTERM ({self.args.drain_delay * 1000:.0f} ms after sending), "
                f"{len(good)} completed with their normal status; exited {entry['exit_after_term']} s after SIGTERM")
        if not in_flight:
            bad(text + " (nothing was in flight: the check proves nothing)")
        elif failed:
            bad(text)
            for e in evidence[:5]:
                why = [line for line in e["gateway_log"] if "upstream request failed" in line]
                say(f"  {e['request']} -> {e['answer']} ({e['after_term_ms']} ms after SIGTERM, {e['requestId']}; "
                    f"{'answered by ' + part if e['service_log'] else 'never reached ' + part}"
                    f"{'; gateway: ' + json.loads(why[0]).get('error', '') if why else ''})")
        else:
            ok(text)
        canary_s = self.canary_latency(canary, part, t_port or t_start) if t_ready else None
        inj = self.record_injection(part, f"TERM ({route})", t_term, t_start, t_port, t_ready, canary_s,
                                    note=f"{len(good)}/{len(in_flight)} in-flight ok")
        self.recover(inj)


# ----------------------------------------------------------------------------------------------- checks

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


def run_checks(run, users, canary):
    everyone = users + [canary.user]
    by_index = {u.index: u for u in everyone}
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
    for i in run.injections:
        check("recovery", f"{i['part']} {i['signal']}: ready within {run.args.ready_limit:g} s of its start",
              f"<= {run.args.ready_limit:g} s", i["readyAfterStart"], 0 if i["passed"] else 1)
    stuck = [i for i in run.injections if i["readyAfterStart"] is not None and i["eventsFlowingAfter"] is None]
    check("recovery", f"event paths working again after each injection (a new write through them within {run.args.canary_timeout:g} s)",
          len(run.injections), len(run.injections) - len(stuck), len(stuck),
          "slowest " + str(max((i["eventsFlowingAfter"] or 0) for i in run.injections)) + " s" if run.injections else "")
    check("processes", "parts that exited without being told to", 0, len([f for f in run.findings if f["kind"] == "unexpected exit"]),
          len([f for f in run.findings if f["kind"] == "unexpected exit"]))

    run.details = {"missingMealWrites": missing_meal_writes[:50], "mealProblems": dict(list(meal_problems.items())[:50]),
                   "weightMissing": weight_missing[:50], "shareProblems": share_problems[:50], "lostMeals": lost_meals[:50],
                   "staleMeals": stale_meals[:50], "phantomMeals": phantom_meals[:50], "daysOver": days_over[:50],
                   "daysUnder": days_under[:50], "statsBad": stats_bad, "events": drained}
    return failures


# ----------------------------------------------------------------------------------------------- main

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", type=int, default=4, help="writer users (each gets threads/users writer threads)")
    p.add_argument("--threads", type=int, default=8, help="writer threads")
    p.add_argument("--rate", type=float, default=32, help="writes per second, all threads together")
    p.add_argument("--warmup", type=float, default=10, help="seconds of load before the first injection")
    p.add_argument("--down-seconds", type=float, default=2, help="how long a killed part stays down")
    p.add_argument("--recovery-seconds", type=float, default=4, help="load after each recovery before the next injection")
    p.add_argument("--ready-limit", type=float, default=5, help="requirement: seconds from a part's start to all ready")
    p.add_argument("--ready-timeout", type=float, default=90, help="give up waiting for ready after this long")
    p.add_argument("--drain-requests", type=int, default=20)
    p.add_argument("--drain-delay", type=float, default=0.05, help="seconds between sending the batch and SIGTERM")
    p.add_argument("--no-direct-drains", action="store_true", help="only drain through the gateway")
    p.add_argument("--canary-timeout", type=float, default=60)
    p.add_argument("--quiet-timeout", type=float, default=240, help="how long to wait for the events to drain")
    p.add_argument("--only", default="", help="comma-separated subset: kill,infra,drain (default all)")
    p.add_argument("--report", default=os.path.join(LOG_DIR, "faults-report.json"))
    p.add_argument("--keep-users", action="store_true", help="keep the run's accounts even when every check passed")
    args = p.parse_args()
    only = set(filter(None, args.only.split(","))) or {"kill", "infra", "drain"}
    run = Run(args)
    run_id = time.strftime("%Y%m%d%H%M%S") + "-" + uuid.uuid4().hex[:6]

    step(f"fault run {run_id}: {args.users} users, {args.threads} writer threads, {args.rate:g} writes/s")
    states = readiness()
    if not all(states.values()):
        bad(f"the stack is not ready: {states}")
        return 2
    users = [User(i, run_id) for i in range(args.users)]
    canary = Writer("canary", User(args.users, run_id), 0, 1, 1, threading.Event(), 0)
    for u in users + [canary.user]:
        u.register()
    ok(f"registered {len(users)} writer users and a canary user")

    stop = threading.Event()
    per_user = max(1, args.threads // args.users)
    writers = []
    for k in range(args.threads):
        user = users[k % args.users]
        writers.append(Writer(f"w{k}", user, (k // args.users) % per_user, per_user, args.threads / args.rate, stop, f"{run_id}-{k}"))
    for w in writers:
        w.start()
    step(f"steady write load: {args.warmup:g} s of warm-up")
    time.sleep(args.warmup)
    attempted, acked, failed = run.window_counts(0, now())
    ok(f"{attempted} writes, {acked} acknowledged, {failed} not")
    run.supervise("after warm-up")

    if "kill" in only:
        for part in SERVICES + ["gateway"]:
            run.kill_and_restart(part, canary)
    if "infra" in only:
        run.restart_infra("broker", canary)
        run.restart_infra("postgres", canary)
    if "drain" in only:
        for part in SERVICES + ["gateway"]:
            if not args.no_direct_drains and part != "gateway":
                run.drain(part, users, canary, direct=True)
            run.drain(part, users, canary, direct=False)

    step("stopping the write load")
    stop.set()
    for w in writers:
        w.join(60)
    run.supervise("at the end of the load")
    total = len(LEDGER.writes)
    acked_total = sum(1 for w in LEDGER.writes if w["outcome"] == "ack")
    ok(f"{total} writes attempted, {acked_total} acknowledged")

    try:
        failures = run_checks(run, users, canary)
    except Exception as error:  # noqa: BLE001
        bad(f"the checks could not run: {type(error).__name__}: {error}")
        failures = 1
        run.details = {}

    # ------------------------------------------------------------------ report
    step("injections")
    table(["part", "signal", "down s", "ready after start s", "ready after port s", "events flowing s", "writes attempted",
           "acknowledged", "failed", "ok"],
          [[i["part"], i["signal"], i["down"], i["readyAfterStart"], i["readyAfterPort"], i["eventsFlowingAfter"], i["attempted"],
            i["acked"], i["failed"], "yes" if i["passed"] else "NO"] for i in run.injections])
    step("drains (SIGTERM with requests in flight)")
    table(["part", "route", "requests", "done before TERM", "in flight at TERM", "answered by part", "completed ok", "failed",
           "exit after TERM s", "ok"],
          [[d["part"], d["route"], d["requests"], d["completed_before_term"], d["in_flight"], d["answered_by_part"], d["in_flight_ok"],
            d["in_flight_failed"], d["exit_after_term"], "yes" if d["passed"] else "NO"] for d in run.drains])
    step("write outcomes by operation")
    ops = {}
    for w in LEDGER.writes:
        o = ops.setdefault(w["op"], {"ack": 0, "refused": 0, "ambiguous": 0, "codes": {}})
        o[w["outcome"]] += 1
        if w["outcome"] != "ack":
            key = f"{w['status'] or 'no answer'} {w['code'] or (w['error'] or '').split(':')[0]}".strip()
            o["codes"][key] = o["codes"].get(key, 0) + 1
    table(["operation", "acknowledged", "refused (not done)", "unclear (5xx, reset)", "failures by status/code"],
          [[op, o["ack"], o["refused"], o["ambiguous"], ", ".join(f"{k}: {v}" for k, v in sorted(o["codes"].items(), key=lambda x: -x[1]))]
           for op, o in sorted(ops.items())])
    step("checks")
    table(["group", "check", "expected", "found", "bad", "ok"],
          [[c["group"], c["what"] + (f" ({c['note']})" if c["note"] else ""), c["expected"], c["found"], c["bad"], "yes" if c["passed"] else "NO"]
           for c in run.checks])
    if run.findings:
        step("findings while running")
        for f in run.findings:
            say(json.dumps(f)[:1500])

    report = {"runId": run_id, "args": vars(args), "injections": run.injections, "drains": run.drains, "checks": run.checks,
              "findings": run.findings, "details": getattr(run, "details", {}),
              "users": [{"index": u.index, "email": u.email, "id": u.user_id} for u in users + [canary.user]],
              "writes": LEDGER.writes}
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1, default=list)
    say(f"full report (every write with its outcome): {args.report}")

    if failures == 0 and not args.keep_users:
        deleted = sum(1 for u in users + [canary.user]
                      if call("DELETE", "/api/users/me", {"password": u.password}, u.token()).status == 204)
        say(f"deleted {deleted} of {len(users) + 1} run accounts")
    else:
        say("run accounts kept for inspection: " + ", ".join(f"{u.index}={u.user_id}" for u in users + [canary.user]))
    if failures:
        out(f"{C_ERR}FAILED{C_OFF}: {failures} check(s) failed")
        return 1
    ok("every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

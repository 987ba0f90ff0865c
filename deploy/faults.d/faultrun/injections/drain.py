"""SIGTERM each part with a batch of requests in flight (directly and through the gateway): every request the
part accepted must complete normally while it drains."""
import datetime as dt
import http.client
import json
import os
import random
import re
import signal
import threading
import time
import uuid

from ..config import DRAIN_TIMEOUT, GATEWAY_PORT, PORTS, SERVICES, now
from ..held import hold, release
from ..http import Answer, exchange, prepare
from ..output import bad, ok, say, step
from ..stack import log_size, log_tail, part_exit_status, part_pid, pid_alive, stack, wait_all_ready, wait_port
from ..workload import BARCODES, LEDGER, TRUTH, MealState, ProductState, product_draft
from .kind import FaultKind


class SigtermDrain(FaultKind):
    """A stream of requests on each of `--drain-requests` connections, and the connections a client holds open
    (held.py: idle, silent, half a head, half a body, a reader that does not read), SIGTERM shortly after the stream
    started, then `deploy/stack start PART`. Each connection sends its next request as soon as the last is answered, until the
    SIGTERM: so requests are in flight at that instant however fast the part answers (a single batch was often all
    answered before the SIGTERM in a release build, and then the check proved nothing)."""

    name = "drain"
    description = "SIGTERM of each part with requests in flight"

    def __init__(self):
        self.drain_day = 34     # weigh-ins of the drains go to days no writer uses, one new day each

    def add_arguments(self, parser):
        group = parser.add_argument_group("drain (SIGTERM with requests in flight)")
        group.add_argument("--drain-requests", type=int, default=20)
        group.add_argument("--drain-delay", type=float, default=0.05, help="seconds between the first requests and SIGTERM")
        group.add_argument("--no-direct-drains", action="store_true", help="only drain through the gateway")

    def inject(self, run, users, canary):
        for part in SERVICES + ["gateway"]:
            if not run.args.no_direct_drains and part != "gateway":
                self.drain(run, part, users, canary, direct=True)
            self.drain(run, part, users, canary, direct=False)

    def next_drain_day(self):
        self.drain_day += 1
        return self.drain_day

    def drain_specs(self, run, part, users, direct):
        """(label, method, path, body, user, on_ack) for the batch; slow requests first. A body given as a function is
        made anew for each request (a product needs a barcode no one used)."""
        rng = random.Random(f"{part}-{direct}")
        specs = []
        text = ("two eggs, 2 slices of toast with butter, a cup of orange juice, 150 g greek yogurt with honey, "
                "a banana, 1 cup of cooked oatmeal, 30 g almonds, a cup of milk, 100 g blueberries, 2 tbsp peanut butter")
        for i in range(run.args.drain_requests):
            user = users[i % len(users)]
            kind = part if part != "gateway" else SERVICES[i % len(SERVICES)]
            j = i // (len(SERVICES) if part == "gateway" else 1)
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
            elif kind == "foods":
                # Searches of the USDA foods and the products together, creations, look-ups of stored products (a code
                # the foods service does not have would ask Open Food Facts, which cannot be reached from here).
                barcode = TRUTH.stored_barcode(rng)
                words = rng.choice(["apple", "rice", "oat biscuits", "greek yogurt", "chicken breast", "peanut butter"])
                choices = [("search50", "GET", f"/api/foods/search?q={words.replace(' ', '+')}&limit=50", None, user, None),
                           ("product", "POST", "/api/foods/products",
                            lambda r=random.Random(f"{part}-{direct}-{i}"): product_draft(r, BARCODES.next()), user, "product")]
                if barcode:
                    choices.append(("barcode", "GET", f"/api/foods/barcode/{barcode}", None, user, None))
                spec = choices[j % len(choices)]
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

    def drain(self, run, part, users, canary, direct=False):
        route = "direct" if direct else "via gateway"
        step(f"SIGTERM {part} while {run.args.drain_requests} connections send requests ({route})")
        run.supervise(f"before draining {part}")
        specs = self.drain_specs(run, part, users, direct)
        port = PORTS[part] if direct else GATEWAY_PORT
        tokens = [None if (direct or user is None) else user.token() for _, _, _, _, user, _ in specs]
        conns = []
        for _ in specs:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=40)
            conn.connect()
            conns.append(conn)
        barrier = threading.Barrier(len(specs) + 1)
        term_sent = threading.Event()
        sent = []           # (spec with the body sent, Answer) of every request sent, in the order they were started
        sent_lock = threading.Lock()

        def worker(i):
            label, method, path, body, user, kind = specs[i]
            headers = user.identity_headers() if (direct and user) else None
            barrier.wait()
            while not term_sent.is_set():
                answer = Answer()
                answer.t0 = now()
                payload = body() if callable(body) else body
                with sent_lock:
                    sent.append(((label, method, path, payload, user, kind), answer))
                exchange(conns[i], prepare(method, path, payload, tokens[i], headers, rid=f"faults-drain-{part}-{uuid.uuid4().hex[:12]}"), answer)

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(len(specs))]
        for t in threads:
            t.start()
        pid = part_pid(part)
        log_offset = log_size(part)
        gateway_offset = log_size("gateway")
        # Held open to the part itself (held through the gateway they would wait on the gateway, not on the part).
        held = hold(part, port, direct) if direct or part == "gateway" else []
        barrier.wait()
        time.sleep(run.args.drain_delay)
        t_term = now()
        if pid_alive(pid):
            os.kill(pid, signal.SIGTERM)
        else:
            bad(f"{part} is not running; no SIGTERM sent")
        term_sent.set()
        for t in threads:
            t.join(60)
        # Wait for the process to finish its drain and exit.
        deadline = now() + 40
        while pid_alive(pid) and now() < deadline:
            time.sleep(0.05)
        t_exit = now() if not pid_alive(pid) else None
        release(held)
        exit_status = part_exit_status(part) if t_exit else None
        rc, text = stack("start", part)
        t_start = now()
        t_port = wait_port(PORTS[part])
        t_ready = wait_all_ready(run.args.ready_timeout)

        # Record the writes of the batch as the writers do.
        for spec, a in sent:
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
            elif kind == "product":
                if a.ok:
                    TRUTH.add_product(ProductState(user, body["barcode"], a.body))
                elif a.outcome == "ambiguous":
                    TRUTH.ambiguous_product()
                LEDGER.add("product.create", user, a, f"drain-{part}", a.body["id"].lower() if a.ok else None,
                           {"barcode": body["barcode"], "name": body["name"]})

        # In flight: started before the SIGTERM and not answered before it. A request a worker started in the instant
        # after the SIGTERM is recorded above but is no evidence either way.
        in_flight = [(s, a) for s, a in sent if a.t0 < t_term and (a.t1 is None or a.t1 > t_term)]
        # Which requests the part itself answered: its "request completed" lines since the batch was sent.
        answered_ids = set(re.findall(r'"request_id":"(faults-drain-[^"]+)"', "\n".join(log_tail(part, 10**6, "faults-drain-", since_bytes=log_offset))))
        reached = sum(1 for s, a in in_flight if a.rid in answered_ids)
        before = sum(1 for _, a in sent if a.t1 is not None and a.t1 <= t_term)
        good = [(s, a) for s, a in in_flight if a.ok]
        failed = [(s, a) for s, a in in_flight if not a.ok]
        evidence = []
        for s, a in failed:
            seen = log_tail(part, 3, re.escape(a.rid), since_bytes=log_offset)
            gw = log_tail("gateway", 3, re.escape(a.rid), since_bytes=gateway_offset) if not direct else []
            evidence.append({"request": f"{s[1]} {s[2]}", "answer": a.describe(), "requestId": a.rid,
                             "after_term_ms": round((a.t1 - t_term) * 1000, 1),
                             "service_log": [line[:400] for line in seen], "gateway_log": [line[:400] for line in gw]})
        durations = sorted((a.t1 - a.t0) for _, a in sent if a.t1 and a.t0)
        entry = {
            "part": part, "route": route, "requests": len(sent), "completed_before_term": before, "in_flight": len(in_flight),
            "in_flight_ok": len(good), "in_flight_failed": len(failed), "answered_by_part": reached,
            "failures": evidence, "held_connections": len(held),
            "exit_after_term": round(t_exit - t_term, 2) if t_exit else None, "exit_status": exit_status,
            "exited_in_time": exit_status == 0 and t_exit is not None and t_exit - t_term <= DRAIN_TIMEOUT,
            "slowest_ms": round(durations[-1] * 1000, 1) if durations else None,
            "kinds": sorted({s[0] for s in specs}),
            "passed": len(failed) == 0 and len(in_flight) > 0 and exit_status == 0,
        }
        run.drains.append(entry)
        text = (f"{len(in_flight)} in flight at SIGTERM ({run.args.drain_delay * 1000:.0f} ms after the {len(specs)} connections "
                f"started sending; {before} answered before it; {len(held)} connections held open), "
                f"{len(good)} completed with their normal status; exited {entry['exit_after_term']} s after SIGTERM "
                f"with status {exit_status}")
        if not entry["exited_in_time"]:
            bad(text + f" (a part must exit with status 0 within its drain timeout, {DRAIN_TIMEOUT:g} s)")
            for line in log_tail(part, 8, since_bytes=log_offset):
                say(f"  {line[:240]}")
        elif not in_flight:
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
        canary_s = run.canary_latency(canary, part, t_port or t_start) if t_ready else None
        inj = run.record_injection(self.name, part, f"TERM ({route})", t_term, t_start, t_port, t_ready, canary_s,
                                    note=f"{len(good)}/{len(in_flight)} in-flight ok")
        run.recover(inj)

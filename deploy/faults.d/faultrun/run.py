"""One fault run's state and the measuring every injection shares: supervision of the parts, the canary that
proves events flow again, the injection record and the recovery pause."""
import datetime as dt
import subprocess
import time
import uuid

from .config import APP_PARTS, INFRA_PARTS, PORTS, now
from .database import psql
from .http import call, port_open
from .output import bad, ok, say
from .stack import log_tail, part_alive, readiness, stack, wait_all_ready
from .workload import LEDGER, TRUTH


class Run:
    """What one run injected, found and checked, and the measuring its injections share."""

    def __init__(self, args):
        self.args = args
        self.injections = []
        self.drains = []
        self.revocations = []   # how long each way a session ends took to reach the gateway (revocation.py)
        self.findings = []      # defects seen while running (unexpected exits, ...)
        self.checks = []        # (group, what, expected, found, missing/bad, passed, note)

    # -- process supervision: a part that died without being told to is a finding, and is started again
    def supervise(self, context):
        for part in APP_PARTS + INFRA_PARTS:
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
    # a weight reaching trends' weight series, a product stored by foods (read back by its barcode) with its
    # food.product_changed sent to the broker.
    FLOWS = {"auth": ["meal>trends"], "meals": ["meal>trends", "meal>sharing"], "metrics": ["weight>trends"],
             "trends": ["meal>trends", "weight>trends"], "sharing": ["meal>sharing"], "foods": ["product>foods"]}
    ALL_FLOWS = ["meal>trends", "meal>sharing", "weight>trends", "product>foods"]
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
        product = None
        if "product>foods" in flows:
            before = len(canary.products)
            while now() < deadline and len(canary.products) == before:
                canary.create_product()
                if len(canary.products) == before:
                    time.sleep(0.3)
            if len(canary.products) == before:
                return None
            product = canary.products[-1]
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
            if "product>foods" in pending:
                a = call("GET", f"/api/foods/barcode/{product.barcode}", token=canary.user.token(), timeout=5)
                if a.status == 200 and isinstance(a.body, dict) and str(a.body.get("id", "")).lower() == product.id \
                        and product_published(product.id):
                    pending.discard("product>foods")
            if pending:
                time.sleep(0.1)
        return None if pending else now() - since

    def record_injection(self, kind, part, signal_name, t_inject, t_back_process, t_back_port, t_ready, canary, note=""):
        end = t_ready if t_ready is not None else now()
        attempted, acked, failed = self.window_counts(t_inject, end)
        ready_after = None if t_ready is None else t_ready - t_back_process
        passed = ready_after is not None and ready_after <= self.args.ready_limit
        entry = {
            "kind": kind, "part": part, "signal": signal_name, "at": round(t_inject, 2),
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

    def recover(self, entry):
        if entry["readyAfterStart"] is None:
            states = readiness()
            self.findings.append({"kind": "not ready", "part": entry["part"], "states": states, "at": round(now(), 2)})
            bad(f"not ready after {self.args.ready_timeout} s: {states}")
        time.sleep(self.args.recovery_seconds)
        self.supervise(f"after {entry['part']} {entry['signal']}")


def product_published(product_id):
    """Whether the foods service's outbox has sent a food.product_changed of the product (keyed by its id); an error of
    the query (PostgreSQL restarting) counts as not yet."""
    try:
        rows = psql(f"""SELECT count(*) FROM foods.outbox WHERE lower(message_key) = '{uuid.UUID(product_id)}'
                        AND topic = 'food.product_changed' AND sent_at IS NOT NULL""")
    except (RuntimeError, ValueError, subprocess.TimeoutExpired):
        return False
    return int(rows[0][0]) > 0

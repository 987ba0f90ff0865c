"""A rolling deploy of a replicated stack (`deploy/stack up --replicas N`, started by deploy/rolling), then one SIGKILL
per service.

1. Every service replica, one at a time, then every gateway: `deploy/stack restart` (SIGTERM and its drain, start,
   ready), then a wait until the restarted process holds its consumer partitions again (`events` no longer
   `waiting`), then --settle-seconds of load. No request through the balancer may fail meanwhile: neither a write of
   the load nor a read of the readers this kind adds.
2. One replica of each service (PART-1): SIGKILL, then the time until the others hold all of the group's partitions
   (`kafka_consumer_assigned_partitions` on their admin ports), at most --rebalance-limit seconds; then it is
   started again. Requests the killed process held are lost with it, so failures here are counted, not refused.
The end checks (every acknowledged write present, every event applied once) are the run's own.
"""
import random
import re
import threading
import time

from ..config import REPLICAS, SERVICES, instance_port, instances, now
from ..http import call
from ..output import bad, ok, say, step
from ..stack import CONSUMERS, events_state, stack, wait_until
from ..workload import LEDGER, TRUTH
from .kind import FaultKind

READ_PATHS = ["/api/meals?limit=20", "/api/history/{today}", "/api/trends?period=7d", "/api/users/profile", "/api/auth/me",
              "/api/user/stats", "/api/foods/search?q=apple", "/api/foods/barcode/{barcode}"]


class Readers:
    """Reader threads: GETs of the users' meals, history, trends, profile, session, stats, the food search and stored
    products by barcode through the balancer, each answer recorded as (start, status or None, path, error code);
    anything but a 2xx is a failure."""

    def __init__(self, users, rate):
        self.users = users
        self.interval = len(users) / rate
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.answers = []
        self.threads = [threading.Thread(target=self.loop, args=(u, random.Random(i)), daemon=True) for i, u in enumerate(users)]

    def loop(self, user, rng):
        while not self.stop_event.wait(self.interval * (0.5 + rng.random())):
            path = rng.choice(READ_PATHS).replace("{today}", time.strftime("%Y-%m-%d", time.gmtime()))
            if "{barcode}" in path:
                # Only products the run stored: another code would be asked of Open Food Facts, unreachable here.
                barcode = TRUTH.stored_barcode(rng)
                path = path.replace("{barcode}", barcode) if barcode else "/api/foods/search?q=apple"
            a = call("GET", path, token=user.token(), timeout=30)
            with self.lock:
                self.answers.append((a.t0, a.status, path, a.code or a.error))

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def stop(self):
        self.stop_event.set()
        for t in self.threads:
            t.join(35)

    def between(self, start, end):
        with self.lock:
            window = [a for a in self.answers if start <= a[0] <= end]
        failed = [a for a in window if a[1] is None or not 200 <= a[1] < 300]
        return len(window), failed


def assigned_partitions(instance):
    """The partitions the process's consumer group has given it, from its own /metrics; None when it does not answer."""
    a = call("GET", "/metrics", port=instance_port(instance) + 1000, timeout=2)
    if a.status != 200:
        return None
    found = re.search(rb"^kafka_consumer_assigned_partitions\{[^}]*\} ([0-9.]+)$", a.raw, re.M)
    return int(float(found.group(1))) if found else 0


class RollingDeploy(FaultKind):
    name = "rolling"
    description = "rolling restart of every replica and gateway, then a SIGKILL of one replica of each service"
    default = False

    def add_arguments(self, parser):
        g = parser.add_argument_group("rolling deploy (deploy/rolling)")
        g.add_argument("--settle-seconds", type=float, default=3, help="load after each restarted process is back")
        g.add_argument("--rebalance-limit", type=float, default=10,
                       help="requirement: seconds from a SIGKILL until the other replicas hold all partitions")
        g.add_argument("--read-rate", type=float, default=20, help="reads per second through the balancer, all readers")

    def inject(self, run, users, canary):
        if REPLICAS < 2:
            bad("a rolling deploy needs a replicated stack (deploy/stack up --replicas 2, as deploy/rolling starts)")
            run.injections.append({"kind": self.name, "part": "stack", "signal": "rolling", "at": round(now(), 2), "down": None,
                                   "readyAfterStart": None, "readyAfterPort": None, "eventsFlowingAfter": None, "attempted": 0,
                                   "acked": 0, "failed": 0, "passed": False, "note": "stack not replicated"})
            return
        readers = Readers(users, run.args.read_rate).start()
        try:
            self.roll(run, readers)
            self.kill_one_of_each(run, readers, canary)
        finally:
            readers.stop()

    def roll(self, run, readers):
        started = now()
        order = [i for s in SERVICES for i in instances(s)] + instances("gateway")
        for instance in order:
            step(f"rolling restart: {instance} (SIGTERM, start, ready)")
            t0 = now()
            rc, text = stack("restart", instance)
            t_ready = now() if rc == 0 else None
            if rc != 0:
                bad(f"deploy/stack restart {instance} failed: {text[-300:]}")
            base = instance.rpartition("-")[0]
            joined = wait_until(30, lambda: events_state(instance) not in ("waiting", None)) if base in CONSUMERS else 0.0
            time.sleep(run.args.settle_seconds)
            attempted, acked, _ = run.window_counts(t0, now())
            reads, read_failures = readers.between(t0, now())
            note = f"partitions back after {joined:.2f} s" if base in CONSUMERS and joined is not None else ""
            if base in CONSUMERS and joined is None:
                note = "still waiting for partitions after 30 s"
            entry = {"kind": self.name, "part": instance, "signal": "TERM, start", "at": round(t0, 2),
                     "down": None, "readyAfterStart": round(t_ready - t0, 2) if t_ready else None, "readyAfterPort": None,
                     "eventsFlowingAfter": joined, "attempted": attempted, "acked": acked, "failed": attempted - acked,
                     "reads": reads, "readsFailed": len(read_failures), "phase": "restart",
                     "passed": t_ready is not None and attempted == acked and not read_failures, "note": note}
            run.injections.append(entry)
            (ok if entry["passed"] else bad)(
                f"{instance}: back and ready {entry['readyAfterStart']} s after the SIGTERM; {note or 'no consumers'}; "
                f"writes {attempted} ({attempted - acked} failed), reads {reads} ({len(read_failures)} failed)")
            for failure in read_failures[:5]:
                say(f"  failed read: {failure}")
        ended = now()
        attempted, acked, _ = run.window_counts(started, ended)
        reads, read_failures = readers.between(started, ended)
        failed_writes = [w for w in LEDGER.between(started, ended) if w["outcome"] != "ack"]
        self.summary = {"kind": self.name, "part": f"{len(order)} processes", "signal": "rolling restart", "at": round(started, 2),
                        "down": None, "readyAfterStart": None, "readyAfterPort": None, "eventsFlowingAfter": None,
                        "seconds": round(ended - started, 2),
                        "attempted": attempted, "acked": acked, "failed": attempted - acked, "reads": reads,
                        "readsFailed": len(read_failures), "phase": "window",
                        "passed": not failed_writes and not read_failures,
                        "note": f"{ended - started:.0f} s" + "".join(f"; {w['op']} {w['status'] or w['error']}" for w in failed_writes[:5])}
        run.injections.append(self.summary)

    def kill_one_of_each(self, run, readers, canary):
        for service in SERVICES:
            victim, survivors = instances(service)[0], instances(service)[1:]
            total = sum(assigned_partitions(i) or 0 for i in instances(service)) if service in CONSUMERS else 0
            step(f"SIGKILL {victim}" + (f" ({total} partitions in its group)" if total else ""))
            t_kill = now()
            rc, text = stack("kill", victim, "KILL")
            if rc != 0:
                bad(f"deploy/stack kill {victim} failed: {text[-300:]}")
            moved = None
            if total:
                moved = wait_until(60, lambda: sum(assigned_partitions(i) or 0 for i in survivors) >= total, interval=0.05)
            events = run.canary_latency(canary, service, t_kill)
            attempted, acked, _ = run.window_counts(t_kill, now())
            reads, read_failures = readers.between(t_kill, now())
            rc, text = stack("restart", victim)
            back = rc == 0 and wait_until(30, lambda: events_state(victim) not in ("waiting", None)) is not None
            passed = (not total or (moved is not None and moved <= run.args.rebalance_limit)) and events is not None and back
            entry = {"kind": self.name, "part": victim, "signal": "KILL", "at": round(t_kill, 2), "down": None,
                     "readyAfterStart": None, "readyAfterPort": None, "eventsFlowingAfter": events, "attempted": attempted,
                     "acked": acked, "failed": attempted - acked, "reads": reads, "readsFailed": len(read_failures),
                     "rebalancedAfter": round(moved, 2) if moved is not None else None, "phase": "kill", "passed": passed,
                     "note": (f"{total} partitions on {', '.join(survivors)} after {moved:.2f} s" if moved is not None
                              else ("not rebalanced in 60 s" if total else "consumes nothing")) + ("" if back else "; did not come back")}
            run.injections.append(entry)
            (ok if passed else bad)(f"{victim} SIGKILL: {entry['note']}; events flowing after {events} s; "
                                    f"writes {attempted} ({attempted - acked} not acknowledged), reads {reads} ({len(read_failures)} failed)")

    def recovery_checks(self, entry, args):
        if entry.get("phase") == "window":
            return [("rolling", "writes through the balancer that failed during the rolling restart", 0,
                     f"{entry['failed']} of {entry['attempted']}", entry["failed"], entry["note"]),
                    ("rolling", "reads through the balancer that failed during the rolling restart", 0,
                     f"{entry['readsFailed']} of {entry['reads']}", entry["readsFailed"])]
        if entry.get("phase") == "restart":
            return [("rolling", f"{entry['part']} restarted: ready, partitions back, no failed request", "yes",
                     entry["note"] or "ready", 0 if entry["passed"] else 1)]
        if entry.get("phase") == "kill":
            return [("rolling", f"{entry['part']} SIGKILL: partitions on the other replicas within {args.rebalance_limit:g} s, "
                     "events flowing, back after restart", f"<= {args.rebalance_limit:g} s", entry["note"], 0 if entry["passed"] else 1)]
        return [("rolling", "the stack is replicated", "yes", entry["note"], 1)]


"""Stall each part: SIGSTOP every process of it for a while under the write load, then SIGCONT.

Unlike a killed part, a stalled one keeps its sockets: connections to it succeed and then hang, its consumer-group
session and its producer's transactions expire at the broker while it cannot act, and a stalled PostgreSQL holds
every session. Per stall the run requires that every request is answered within the gateway's upstream timeout
plus --request-margin, and that every part is ready and events flow again within --stall-limit seconds of the
SIGCONT; the end checks then require that nothing acknowledged was lost and that every effect reached trends and
sharing once.
"""
import re
import time

from ..config import SERVICES, UPSTREAM_TIMEOUT, monotonic_at, now
from ..output import bad, ok, step
from ..stack import stack, wait_all_ready
from ..workload import LEDGER
from .kind import FaultKind

# The infrastructure last: a part that stays broken after its stall would otherwise hide how the others recover.
PARTS = SERVICES + ["gateway", "postgres", "broker"]


class Stall(FaultKind):
    """`deploy/stack pause PART`, --pause-seconds of load, `deploy/stack resume PART`; timed from the SIGCONT."""

    name = "stall"
    description = "SIGSTOP, then SIGCONT, of each part (PostgreSQL: the whole cluster)"

    def add_arguments(self, parser):
        group = parser.add_argument_group("stall (SIGSTOP, then SIGCONT)")
        group.add_argument("--pause-seconds", type=float, default=20, help="how long a part stays stopped")
        group.add_argument("--stall-limit", type=float, default=10,
                           help="requirement: seconds from the SIGCONT until every part is ready and events flow")
        group.add_argument("--request-margin", type=float, default=2,
                           help="requirement: every request is answered within the gateway's upstream timeout "
                                f"(GATEWAY_UPSTREAM_TIMEOUT_SECONDS, now {UPSTREAM_TIMEOUT:g} s) plus this")
        group.add_argument("--stall-parts", default=",".join(PARTS), help="comma-separated parts to stall, in this order")

    def inject(self, run, users, canary):
        for part in filter(None, run.args.stall_parts.split(",")):
            self.stall(run, part, canary)

    def stall(self, run, part, canary):
        pause = run.args.pause_seconds
        step(f"SIGSTOP {part} for {pause:g} s, then SIGCONT (deploy/stack pause|resume {part})")
        run.supervise(f"before pausing {part}")
        t_stop = now()
        rc, text = stack("pause", part)
        paused = rc == 0
        if not paused:
            bad(f"deploy/stack pause {part} failed: {text[-300:]}")
        t_stop = signal_time(text, t_stop)
        try:
            time.sleep(max(0.0, t_stop + pause - now()))
        finally:
            # Also when the run is interrupted: a part left stopped would stall everything after it.
            t_cont = now()
            rc, text = stack("resume", part)
            if rc != 0:
                bad(f"deploy/stack resume {part} failed: {text[-300:]}")
            t_cont = signal_time(text, t_cont)
        t_ready = wait_all_ready(run.args.ready_timeout)
        canary_s = run.canary_latency(canary, part, t_cont) if t_ready else None
        t_end = now()
        attempted, acked, failed = run.window_counts(t_stop, t_ready if t_ready is not None else t_end)
        limit = run.args.stall_limit
        entry = {
            "kind": self.name, "part": part, "signal": "STOP, CONT", "at": round(t_stop, 2),
            "down": round(t_cont - t_stop, 2), "readyAfterStart": round(t_ready - t_cont, 2) if t_ready else None,
            "readyAfterPort": None, "eventsFlowingAfter": round(canary_s, 2) if canary_s is not None else None,
            "attempted": attempted, "acked": acked, "failed": failed,
            "note": "" if paused else "deploy/stack pause failed",
            # Requests that overlap this window belong to the stall (finish() measures them).
            "window": [round(t_stop, 3), round(t_end, 3)], "requests": None, "longestRequest": None, "slowRequests": [],
        }
        entry["readyOk"] = paused and entry["readyAfterStart"] is not None and entry["readyAfterStart"] <= limit
        entry["eventsOk"] = paused and entry["eventsFlowingAfter"] is not None and entry["eventsFlowingAfter"] <= limit
        entry["passed"] = entry["readyOk"] and entry["eventsOk"]
        run.injections.append(entry)
        (ok if entry["passed"] else bad)(
            f"{part} paused {entry['down']} s: every part ready {entry['readyAfterStart']} s and events flowing "
            f"{entry['eventsFlowingAfter']} s after SIGCONT (limit {limit:g} s); writes {attempted} attempted, {acked} acknowledged")
        run.recover(entry)

    def finish(self, run):
        """The longest request of each stall, once every request has its answer; one slower than the limit, or
        with no HTTP answer at all, fails the stall."""
        limit = request_limit(run.args)
        for entry in run.injections:
            if entry["kind"] != self.name:
                continue
            start, end = entry["window"]
            with LEDGER.lock:
                touching = [w for w in LEDGER.writes if w["t0"] <= end and w["t1"] >= start]
            slow = [w for w in touching if w["t1"] - w["t0"] > limit or w["status"] is None]
            entry["requests"] = len(touching)
            entry["longestRequest"] = round(max(w["t1"] - w["t0"] for w in touching), 2) if touching else None
            entry["slowRequests"] = [{"op": w["op"], "seconds": round(w["t1"] - w["t0"], 2), "status": w["status"],
                                      "code": w["code"], "error": w["error"], "requestId": w["requestId"]} for w in slow]
            entry["passed"] = entry["passed"] and not slow

    def recovery_checks(self, entry, args):
        limit = args.stall_limit
        what = f"{entry['part']} paused {entry['down']:g} s"
        slow = entry["slowRequests"]
        unanswered = sum(1 for w in slow if w["status"] is None)
        return [
            ("recovery", f"{what}: every part ready within {limit:g} s of SIGCONT", f"<= {limit:g} s",
             entry["readyAfterStart"], 0 if entry["readyOk"] else 1),
            ("recovery", f"{what}: events flowing within {limit:g} s of SIGCONT", f"<= {limit:g} s",
             entry["eventsFlowingAfter"], 0 if entry["eventsOk"] else 1),
            ("stall", f"{what}: its {entry['requests']} writes answered within {UPSTREAM_TIMEOUT:g} + "
                      f"{args.request_margin:g} s (longest; {unanswered} without an answer)",
             f"<= {request_limit(args):g} s", entry["longestRequest"], len(slow)),
        ]


def request_limit(args):
    """The longest a request may take: the gateway's upstream timeout plus the margin."""
    return UPSTREAM_TIMEOUT + args.request_margin


def signal_time(text, fallback):
    """The run's clock when `deploy/stack pause|resume` sent its first signal (it prints "at EPOCH-SECONDS")."""
    match = re.search(r" at (\d+\.\d+)", text)
    return monotonic_at(float(match.group(1))) if match else fallback

"""The run's tables on stdout and its whole record as JSON."""
import json

from .output import say, step, table
from .workload import LEDGER


def print_tables(run):
    """The injections, the drains, the write outcomes by operation, the checks and any findings."""
    step("injections")
    # A stall's "down" is its pause, and its times count from the SIGCONT instead of the start.
    table(["part", "signal", "down or paused s", "ready after start or SIGCONT s", "ready after port s",
           "events flowing s", "longest request s", "writes attempted", "acknowledged", "failed", "ok"],
          [[i["part"], i["signal"], i["down"], i["readyAfterStart"], i["readyAfterPort"], i["eventsFlowingAfter"],
            i.get("longestRequest"), i["attempted"], i["acked"], i["failed"], "yes" if i["passed"] else "NO"]
           for i in run.injections])
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


def write_report(run, run_id, users, path):
    """Everything the run did and found, every write with its outcome, as JSON at `path`."""
    report = {"runId": run_id, "args": vars(run.args), "injections": run.injections, "drains": run.drains,
              "revocations": run.revocations, "checks": run.checks,
              "findings": run.findings, "details": getattr(run, "details", {}),
              "users": [{"index": u.index, "email": u.email, "id": u.user_id} for u in users],
              "writes": LEDGER.writes}
    with open(path, "w") as f:
        json.dump(report, f, indent=1, default=list)
    say(f"full report (every write with its outcome): {path}")

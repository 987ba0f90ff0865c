"""The run from start to end: options, users and writers, the injections in order, the checks and the report."""
import argparse
import os
import signal
import sys
import threading
import time
import uuid

from . import __doc__ as HARNESS_DOC
from .checks import run_checks
from .config import LOG_DIR, now
from .http import call
from .injections import KINDS
from .output import C_ERR, C_OFF, bad, ok, out, say, step
from .report import print_tables, write_report
from .revocation import measure as measure_revocations
from .run import Run
from .stack import readiness, wait_events_settled
from .workload import LEDGER, User, Writer


def parse_args():
    p = argparse.ArgumentParser(description=HARNESS_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", type=int, default=4, help="writer users (each gets threads/users writer threads)")
    p.add_argument("--threads", type=int, default=8, help="writer threads")
    p.add_argument("--rate", type=float, default=32, help="writes per second, all threads together")
    p.add_argument("--warmup", type=float, default=10, help="seconds of load before the first injection")
    p.add_argument("--down-seconds", type=float, default=2, help="how long a killed part stays down")
    p.add_argument("--recovery-seconds", type=float, default=4, help="load after each recovery before the next injection")
    p.add_argument("--ready-limit", type=float, default=5, help="requirement: seconds from a part's start to all ready")
    p.add_argument("--ready-timeout", type=float, default=90, help="give up waiting for ready after this long")
    p.add_argument("--canary-timeout", type=float, default=60)
    p.add_argument("--events-limit", type=float, default=10,
                   help="requirement: seconds from a killed, restarted or drained part's return to events flowing again")
    p.add_argument("--quiet-timeout", type=float, default=240, help="how long to wait for the events to drain")
    defaults = ",".join(k.name for k in KINDS if k.default)
    p.add_argument("--only", default="", help=f"comma-separated subset: {defaults} (default all)")
    p.add_argument("--report", default=os.path.join(LOG_DIR, "faults-report.json"))
    p.add_argument("--keep-users", action="store_true", help="keep the run's accounts even when every check passed")
    for kind in KINDS:
        kind.add_arguments(p)
    return p.parse_args()


def main():
    # SIGTERM ends the run as Ctrl-C does, through every `finally` (a stalled part is resumed on the way out).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = parse_args()
    only = set(filter(None, args.only.split(","))) or {k.name for k in KINDS if k.default}
    run = Run(args)
    run_id = time.strftime("%Y%m%d%H%M%S") + "-" + uuid.uuid4().hex[:6]

    step(f"fault run {run_id}: {args.users} users, {args.threads} writer threads, {args.rate:g} writes/s")
    states = readiness()
    if not all(states.values()):
        bad(f"the stack is not ready: {states}")
        return 2
    settled = wait_events_settled(args.ready_timeout)
    if settled is None:
        bad(f"the consumer groups did not settle within {args.ready_timeout:g} s (a process's readiness still says events: waiting)")
        return 2
    ok(f"every consumer process holds its partitions ({settled:.1f} s)")
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

    for kind in KINDS:
        if kind.name in only:
            kind.inject(run, users, canary)

    # Under the write load, once every fault is over.
    run.revocations = measure_revocations(run_id)

    step("stopping the write load")
    stop.set()
    for w in writers:
        w.join(60)
    run.supervise("at the end of the load")
    for kind in KINDS:
        if kind.name in only:
            kind.finish(run)
    total = len(LEDGER.writes)
    acked_total = sum(1 for w in LEDGER.writes if w["outcome"] == "ack")
    ok(f"{total} writes attempted, {acked_total} acknowledged")

    try:
        failures = run_checks(run, users, canary)
    except Exception as error:  # noqa: BLE001
        bad(f"the checks could not run: {type(error).__name__}: {error}")
        failures = 1
        run.details = {}

    print_tables(run)
    write_report(run, run_id, users + [canary.user], args.report)

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

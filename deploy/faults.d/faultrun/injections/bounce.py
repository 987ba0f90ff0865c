"""Down and back up: the procedure the SIGKILL and the infrastructure restart share."""
import time

from ..config import PORTS, now
from ..output import bad
from ..stack import stack, wait_all_ready, wait_port


def bounce(run, kind, part, take_down, label, canary, back_at_port):
    """Takes `part` down with `deploy/stack <take_down>`, starts it again after the down time, and records the
    injection: time to ready and to events flowing, counted from the start (or, with back_at_port, from the
    moment its port answers)."""
    run.supervise(f"before taking down {part}")
    t_inject = now()
    rc, text = stack(*take_down)
    if rc != 0:
        bad(f"deploy/stack {' '.join(take_down)} failed: {text[-300:]}")
    time.sleep(run.args.down_seconds)
    t_start = now()
    rc, text = stack("start", part)
    if rc != 0:
        bad(f"deploy/stack start {part} failed: {text[-300:]}")
    t_port = wait_port(PORTS[part])
    t_ready = wait_all_ready(run.args.ready_timeout)
    canary_s = run.canary_latency(canary, part, t_port or t_start) if t_ready else None
    t_back = (t_port or t_start) if back_at_port else t_start
    entry = run.record_injection(kind, part, label, t_inject, t_back, t_port, t_ready, canary_s)
    run.recover(entry)

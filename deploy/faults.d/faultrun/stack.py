"""The running stack: `deploy/stack` verbs, each part's process, readiness and log."""
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from .config import GATEWAY_PORT, LOG_DIR, PG_DATA, PORTS, RUN_DIR, SERVICES, STACK, instance_port, instances, now, wall
from .http import call, port_open


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


def part_exit_status(part, limit=2.0):
    """The exit status deploy/stack recorded for `part`'s last process (128 + the signal when a signal ended it), or
    None when none was recorded within `limit` seconds."""
    path = os.path.join(RUN_DIR, f"{part}.exit")
    deadline = now() + limit
    while True:
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return int(text)
        except (OSError, ValueError):
            pass
        if now() >= deadline:
            return None
        time.sleep(0.05)


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


# The services that consume events, each in one consumer group.
CONSUMERS = ["meals", "metrics", "trends", "sharing", "foods"]


def events_state(instance):
    """The `events` check of a process's readiness (`waiting` while its consumer holds no partition), or None."""
    a = call("GET", "/health/ready", port=instance_port(instance), timeout=2)
    return (a.body or {}).get("checks", {}).get("events") if isinstance(a.body, dict) else None


def wait_until(limit, probe, interval=0.1):
    """Seconds from now until probe() is true, or None after `limit` seconds."""
    start = now()
    while now() - start < limit:
        if probe():
            return now() - start
        time.sleep(interval)
    return None


def wait_events_settled(limit):
    """Seconds until every consumer process holds partitions of its group, or None after `limit` seconds. A stack of
    replicas is ready before its groups have settled: each member that joins costs the group a rebalance, which
    the local broker answers in about 6 s, and until then a meal may not have reached sharing's copy."""
    consumers = [i for part in CONSUMERS for i in instances(part)]
    return wait_until(limit, lambda: all(events_state(i) not in ("waiting", None) for i in consumers), interval=0.25)


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



def wait_port(port, limit=120):
    """Seconds-since-start at which `port` accepts connections, or None after `limit` seconds."""
    deadline = now() + limit
    while now() < deadline:
        if port_open(port, 0.2):
            return now()
        time.sleep(0.02)
    return None

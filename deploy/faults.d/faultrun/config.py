"""Where the stack is: the paths and ports deploy/faults exports (deploy/lib/common.sh's values), and the run's clock."""
import datetime as dt
import os
import time

ENV = os.environ
REPO = ENV.get("REPO_ROOT", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..")))
STACK = os.path.join(REPO, "deploy", "stack")
LOG_DIR = ENV.get("LOG_DIR", os.path.join(REPO, ".local", "logs"))
RUN_DIR = ENV.get("RUN_DIR", os.path.join(REPO, ".local", "run"))
GATEWAY_PORT = int(ENV.get("GATEWAY_PORT", "8080"))
# The services in deploy/lib/common.sh's order (SERVICES, which deploy/faults exports) and their ports.
SERVICES = []
PORTS = {"gateway": GATEWAY_PORT}
for _entry in ENV.get("SERVICES", "auth:auth:8081 meals:meals:8082 metrics:metrics:8083 trends:trends:8084 sharing:sharing:8085 "
                                  "foods:foods:8086").split():
    _name, _schema, _port = _entry.split(":")
    SERVICES.append(_name)
    PORTS[_name] = int(_port)
PORTS["postgres"] = int(ENV.get("PG_PORT", "15432"))


def _stack_replicas():
    """The running stack's replicas per service (deploy/stack records them in stack.conf), else NUTRITION_REPLICAS."""
    try:
        with open(os.path.join(RUN_DIR, "stack.conf")) as conf:
            for line in conf:
                if line.startswith("REPLICAS="):
                    return int(line.split("=", 1)[1].strip().strip("'\""))
    except (OSError, ValueError):
        pass
    return int(ENV.get("NUTRITION_REPLICAS", "1"))


REPLICAS = _stack_replicas()


def instances(part):
    """The processes of a service or the gateway: the part itself, or PART-1 ... PART-N with replicas."""
    return [part] if REPLICAS <= 1 else [f"{part}-{i}" for i in range(1, REPLICAS + 1)]


# Every service and gateway process, and the other processes of the stack.
APP_PARTS = [name for part in SERVICES + ["gateway"] for name in instances(part)]
INFRA_PARTS = ["broker", "postgres"] + (["balancer"] if REPLICAS > 1 else [])


def instance_port(name):
    """A process's own port: its part's, plus 100 per replica number (deploy/stack's scheme)."""
    base, _, replica = name.rpartition("-")
    if base and replica.isdigit():
        return PORTS[base] + 100 * int(replica)
    return PORTS[name]
PORTS["broker"] = int(ENV.get("BROKER_PORT", "19092"))
PG_SOCKET_DIR = ENV.get("PG_SOCKET_DIR", os.path.join(REPO, ".local", "postgres", "run"))
PG_DATABASE = ENV.get("PG_DATABASE", "nutritionai")
PG_DATA = ENV.get("PG_DATA", os.path.join(REPO, ".local", "postgres", "data"))
# The gateway's whole-answer timeout (its GATEWAY_UPSTREAM_TIMEOUT_SECONDS; the stack passes its environment on).
UPSTREAM_TIMEOUT = float(ENV.get("GATEWAY_UPSTREAM_TIMEOUT_SECONDS", "30"))
# How long a part may take to exit at SIGTERM (its HTTP_DRAIN_TIMEOUT_SECONDS; the stack passes its environment on).
DRAIN_TIMEOUT = float(ENV.get("HTTP_DRAIN_TIMEOUT_SECONDS", "10"))
# The harness waits longer than the gateway for an answer, so that a request the gateway fails to end is measured.
CLIENT_TIMEOUT = max(35.0, UPSTREAM_TIMEOUT + 5)

T0 = time.monotonic()


def now():
    """Seconds since the harness started (monotonic)."""
    return time.monotonic() - T0


def monotonic_at(epoch_seconds):
    """The run's clock (now()) at a moment given in seconds since the epoch, e.g. one a script printed."""
    return now() - (time.time() - epoch_seconds)


def wall():
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")

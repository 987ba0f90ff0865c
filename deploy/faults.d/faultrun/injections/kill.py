"""SIGKILL each service and the gateway, and start it again after the down time."""
from ..config import SERVICES
from ..output import step
from .bounce import bounce
from .kind import FaultKind


class KillAndRestart(FaultKind):
    """`deploy/stack kill PART`, then `deploy/stack start PART`; ready is counted from the start."""

    name = "kill"
    description = "SIGKILL and restart of each service and the gateway"

    def inject(self, run, users, canary):
        for part in SERVICES + ["gateway"]:
            step(f"SIGKILL {part}, restart after {run.args.down_seconds} s")
            bounce(run, self.name, part, ("kill", part, "KILL"), "KILL", canary, back_at_port=False)

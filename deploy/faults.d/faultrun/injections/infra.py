"""Restart the broker (it comes back without its log) and PostgreSQL (fast shutdown)."""
from ..output import step
from .bounce import bounce
from .kind import FaultKind


class InfraRestart(FaultKind):
    """`deploy/stack stop PART`, then `deploy/stack start PART`; ready is counted from the moment its port answers."""

    name = "infra"
    description = "restart of the broker and of PostgreSQL"

    def inject(self, run, users, canary):
        for part in ("broker", "postgres"):
            step(f"restart {part} (deploy/stack stop {part}; deploy/stack start {part})")
            # PostgreSQL and the broker are "back" when their port answers (pg_ctl -w and broker_start wait for it).
            label = "TERM" if part == "broker" else "stop -m fast"
            bounce(run, self.name, part, ("stop", part), label, canary, back_at_port=True)

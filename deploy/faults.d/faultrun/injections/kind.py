"""What every kind of fault provides to the run."""


class FaultKind:
    """One kind of fault: its name for --only, its options, how it is injected under the write load, and the checks
    each of its injections must pass."""

    name = ""
    description = ""
    default = True      # part of a run unless --only names the kinds to run

    def add_arguments(self, parser):
        """Adds this kind's options (an argument group of `parser`)."""

    def inject(self, run, users, canary):
        """Injects every fault of this kind, one after another, recording each in `run.injections`."""
        raise NotImplementedError

    def finish(self, run):
        """Completes this kind's injection records once the load has stopped and every request has its answer."""

    def recovery_checks(self, entry, args):
        """(group, what, expected, found, bad) rows for one injection of this kind: by default, ready in time."""
        return [("recovery", f"{entry['part']} {entry['signal']}: ready within {args.ready_limit:g} s of its start",
                 f"<= {args.ready_limit:g} s", entry["readyAfterStart"], 0 if entry["passed"] else 1)]

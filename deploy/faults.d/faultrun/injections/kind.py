"""What every kind of fault provides to the run."""


class FaultKind:
    """One kind of fault: its name for --only, its options, and how it is injected under the write load."""

    name = ""
    description = ""
    default = True      # part of a run unless --only names the kinds to run

    def add_arguments(self, parser):
        """Adds this kind's options (an argument group of `parser`)."""

    def inject(self, run, users, canary):
        """Injects every fault of this kind, one after another, recording each in `run`."""
        raise NotImplementedError

"""The faults a run injects, one module per kind.

To add one: write a module here with a `FaultKind` subclass (kind.py; its `name` is what --only takes, its options
go in its own argument group, its `recovery_checks` say what each of its injections must meet) and list an instance
in KINDS, in the order the run injects them.
"""
from .drain import SigtermDrain
from .infra import InfraRestart
from .kill import KillAndRestart
from .stall import Stall

# The stalls last (and the infrastructure's last among them): a part that stays broken after a fault would spoil
# the measurements of every fault after it.
KINDS = [KillAndRestart(), InfraRestart(), SigtermDrain(), Stall()]
BY_NAME = {kind.name: kind for kind in KINDS}


def kind_of(entry):
    """The kind that made an injection record."""
    return BY_NAME[entry["kind"]]

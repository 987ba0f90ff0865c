"""The faults a run injects, one module per kind.

To add one: write a module here with a `FaultKind` subclass (kind.py; its `name` is what --only takes, its options
go in its own argument group) and list an instance in KINDS, in the order the run injects them.
"""
from .drain import SigtermDrain
from .infra import InfraRestart
from .kill import KillAndRestart

KINDS = [KillAndRestart(), InfraRestart(), SigtermDrain()]

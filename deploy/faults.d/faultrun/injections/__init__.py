"""The faults a run injects, one module per kind.

To add one: write a module here with a `FaultKind` subclass (kind.py; its `name` is what --only takes, its options
go in its own argument group, its `recovery_checks` say what each of its injections must meet) and list an instance
in KINDS, in the order the run injects them.

Not here: one-way network trouble (`tc netem` delay and loss on a veth pair between one service, in a network
namespace of the project's own, and the broker). The kernel of these machines (6.18.44-fc) is built without the netem
qdisc (CONFIG_NET_SCH_NETEM is not set in /proc/config.gz) and without loadable modules (no CONFIG_MODULES, no
/lib/modules), so `tc qdisc add dev DEV root netem delay 100ms loss 5%` answers "Specified qdisc kind is unknown";
of the qdiscs it has (htb, tbf, ingress) none delays or drops packets. Namespaces and veth pairs do work as root
(checked: `ip netns add`, a veth pair with an address on each end, both up, then removed), and the addressing has
an answer: the broker listens on and advertises 127.0.0.1, which inside another namespace is that namespace's own
loopback, so either the broker listens on and advertises the veth's host-side address (the host's own clients reach
that address over loopback, so only the namespaced service crosses the veth; but that changes deploy/lib/broker.sh,
which this branch leaves alone), or the service runs inside the namespace with small relays on its 127.0.0.1 for the
broker's and PostgreSQL's ports carried over the veth, and one on the host for its HTTP port. Netem on one end's
egress would then make the trouble one-way. Without netem there is nothing to put on that veth: loss alone could come
from nftables (`numgen random mod 100 < N drop`; nf_tables and numgen are built in) but needs the `nft` tool, which
is not installed, and delay has no means in this kernel. On a kernel with sch_netem (Debian's stock kernels build
it as a module) this becomes one more module here, off by default since it needs CAP_NET_ADMIN.
"""
from .drain import SigtermDrain
from .infra import InfraRestart
from .kill import KillAndRestart
from .rolling import RollingDeploy
from .stall import Stall

# The stalls last (and the infrastructure's last among them): a part that stays broken after a fault would spoil
# the measurements of every fault after it. The rolling deploy runs only when asked for (deploy/rolling), on a
# replicated stack.
KINDS = [KillAndRestart(), InfraRestart(), SigtermDrain(), Stall(), RollingDeploy()]
BY_NAME = {kind.name: kind for kind in KINDS}


def kind_of(entry):
    """The kind that made an injection record."""
    return BY_NAME[entry["kind"]]

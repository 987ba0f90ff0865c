"""`python3 -m faultrun` from deploy/faults.d: the same as harness.py."""
import sys

from .main import main

sys.exit(main())

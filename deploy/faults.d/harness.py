#!/usr/bin/env python3
"""Entry point of the fault run; deploy/faults starts it. The harness is the `faultrun` package beside this file:
see faultrun/__init__.py for what it does, and faultrun/injections/ for the faults, one module per kind."""
import sys

from faultrun.main import main

if __name__ == "__main__":
    sys.exit(main())

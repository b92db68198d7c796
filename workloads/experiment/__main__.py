"""python3 -m workloads.experiment: make experiment's plans and tables (see cli)."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))

"""python3 -m workloads.replay: make replay's driver (see cli)."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))

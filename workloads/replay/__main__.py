"""python3 -m workloads.replay: make replay's driver (see cli)."""

import sys

from .cli import main

# argparse names the program after sys.argv[0], here __main__.py: the
# usage lines name the command instead.
sys.argv[0] = "python3 -m workloads.replay"
sys.exit(main(sys.argv[1:]))

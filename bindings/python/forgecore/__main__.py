"""Entry point of `python3 -m forgecore`: runs the command line of `cli` and exits with its status."""

import sys

from .cli import main

sys.exit(main())

"""``python -m server.cli``: the command line, as the ``mttsim`` script runs it."""

import sys

from server.cli import main

sys.exit(main())

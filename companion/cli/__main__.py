"""``python -m companion.cli``: the same command line as ``companion``."""

import sys

from companion.cli import main

sys.exit(main())

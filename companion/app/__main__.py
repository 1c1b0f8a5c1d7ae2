"""``python -m companion.app``: open the tablet app on the New game screen."""

import sys

from companion.app import run_app

sys.exit(run_app())

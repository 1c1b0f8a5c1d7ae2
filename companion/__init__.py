"""The companion: referee core, command line and tablet app."""

import os

# numpy's linear algebra on one thread unless the player's environment says otherwise:
# the camera reader's products are small, and on a loaded laptop or a tablet the
# library's waiting helper threads cost more than they save (a first frame at 1920x1080
# took 126-162 ms with them and 78-123 ms without). Set before numpy is first imported
# by the command line or the app; a program that imports numpy earlier keeps its own.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

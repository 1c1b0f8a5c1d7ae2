"""Calibration: the one-time set-up that lets the camera pipeline read a real table.

- ``intrinsics``: the camera's lens, from views of a printed target (``targets``,
  ``sheets``), stored as a camera profile; undistortion.
- ``registration``: where the board lies in the image, from corner markers or a
  reference photograph of the empty board (``boards``: each board's geometry).
- ``colours``: what each player's colour looks like under this table's light.
- ``profiles``: where all this is stored, versioned, written atomically and refused
  whole when damaged or foreign.

Every stage takes its section of the configuration (``config``) first; thresholds live
in ``config.json`` and board figures in ``boards.json``, never in the code.
"""

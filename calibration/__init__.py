"""calibration package (see its issue)."""

"""firmware_bridge package (see its issue)."""

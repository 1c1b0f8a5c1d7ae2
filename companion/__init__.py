"""The companion: referee core, command line and tablet app."""

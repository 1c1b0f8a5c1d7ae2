"""The referee core: pure and headless. Typed events in, typed events out."""

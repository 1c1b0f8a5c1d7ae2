"""vision package (see its issue)."""

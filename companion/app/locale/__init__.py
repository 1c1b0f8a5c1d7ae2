"""The app's string tables, one JSON file per language (``en``, ``fr``, ``es``)."""

"""The app's Kivy layout files (``*.kv``), loaded by ``companion.app.main``."""

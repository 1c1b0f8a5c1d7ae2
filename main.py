"""Android entry point (buildozer): open the tablet app."""

from companion.app import run_app

run_app()

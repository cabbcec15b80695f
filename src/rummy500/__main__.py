"""Run the command line with ``python -m rummy500``."""

from rummy500.cli import main

main()

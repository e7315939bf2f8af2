"""The ``thoughtwave`` command line: ``main`` (the console script) and one module per command."""

from thoughtwave.cli.main import COMMANDS, main

__all__ = ["COMMANDS", "main"]

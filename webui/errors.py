# Moved to thoughtwave.cli.errors (issue 13). This re-export goes when webui/cmd_serve.py and
# webui/cmd_referee.py move into thoughtwave/cli/.
from thoughtwave.cli.errors import NotFound, UsageError  # noqa: F401

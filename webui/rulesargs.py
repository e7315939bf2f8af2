# Moved to thoughtwave.cli.rulesargs (issue 13). This re-export goes when webui/cmd_serve.py and
# webui/cmd_referee.py move into thoughtwave/cli/.
from thoughtwave.cli.rulesargs import add_rules_arguments, read_moves, read_text, rules_from_args  # noqa: F401

# Moved to thoughtwave.cli.profiles (issue 13; the path rule itself is thoughtwave.config's Config.profile_path).
# This re-export goes when webui/cmd_referee.py moves into thoughtwave/cli/.
from thoughtwave.cli.profiles import reader_profile_for  # noqa: F401

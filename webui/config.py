# Moved to thoughtwave.config (issue 13). This re-export goes once its last importers move off it:
# webui/cmd_serve.py, tests/test_systemd.py and tests/test_calibrate_page.py.
from thoughtwave.config import *  # noqa: F401,F403

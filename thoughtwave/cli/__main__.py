"""``python -m thoughtwave.cli ...``: the same as the ``thoughtwave`` script."""

import sys

from thoughtwave.cli.main import main

sys.exit(main())

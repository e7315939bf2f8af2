"""Which calibration profile a command reads with: one rule for recognize, referee --frames and serve.

An explicit ``--profile F`` must be sound (a damaged one is bad input, exit 2). Without it, the profile
at the configuration's ``profile_path`` (``thoughtwave.config`` holds the rule) is used when present; a
damaged one there is reported on standard error and the defaults are used, so a bad file never stops a game.
"""

from __future__ import annotations

import sys
from pathlib import Path

from thoughtwave.calibration.profile import ProfileError, load_profile, load_reader_profile
from thoughtwave.cli.errors import UsageError
from thoughtwave.config import Config, ConfigError, load_config


def load_config_or_usage(config_file: str | Path | None = None, state_dir: str | Path | None = None) -> Config:
    """The configuration (``config_file``, else the default file), with ``--state-dir`` over its state
    directory; a configuration mistake is bad input (UsageError, one line)."""
    try:
        config = load_config(Path(config_file) if config_file else None)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    return config.with_state_dir(state_dir) if state_dir else config


def reader_profile_for(explicit: str | None) -> dict | None:
    """The reader's profile dict for a command: ``--profile`` if given, else the configured one if present
    (none when the configuration cannot be read: the reader then uses its defaults)."""
    if explicit:
        try:
            return load_profile(Path(explicit)).reader_profile()
        except ProfileError as err:
            raise UsageError(str(err)) from None
    try:
        default = load_config().profile_path
    except ConfigError:
        default = None
    profile, warning = load_reader_profile(default)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return profile

"""Which calibration profile a command reads with: one rule for recognize, referee --frames and serve.

An explicit ``--profile F`` must be sound (a damaged one is bad input, exit 2). Without it, the profile
calibration wrote to the state directory is used when present; a damaged one there is reported on
standard error and the defaults are used, so a bad file never stops a game.
"""

from __future__ import annotations

import sys
from pathlib import Path

from thoughtwave.calibration.profile import FILE_NAME, ProfileError, load_profile, load_reader_profile
from thoughtwave.cli.errors import UsageError


def default_profile_path(state_dir: str | Path | None = None, config: str | Path | None = None) -> Path | None:
    """``vision.profile`` from the config, else ``profile.json`` in the state directory; None when the
    configuration cannot be read (the caller then reads with the defaults)."""
    if state_dir:
        return Path(state_dir) / FILE_NAME
    from thoughtwave.config import ConfigError, load_config
    try:
        loaded = load_config(Path(config) if config else None)
    except ConfigError:
        return None
    return loaded.vision.profile or loaded.state_dir / FILE_NAME


def reader_profile_for(explicit: str | None, state_dir: str | None = None, config: str | None = None) -> dict | None:
    """The reader's profile dict for a command: ``--profile`` if given, else the default one if present."""
    if explicit:
        try:
            return load_profile(Path(explicit)).reader_profile()
        except ProfileError as err:
            raise UsageError(str(err)) from None
    profile, warning = load_reader_profile(default_profile_path(state_dir, config))
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return profile

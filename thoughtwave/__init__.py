"""Thoughtwave companion: a camera referee for Eric Solomon's Thoughtwave.

The one import name of the distribution. The layers live in the repository's top-level folders and are
mapped under this name by ``pyproject.toml`` (``package-dir``): ``thoughtwave.engine`` is ``engine/``,
``thoughtwave.vision`` is ``vision/``, ``thoughtwave.calibration`` is ``calibration/``, ``thoughtwave.webui``
is ``webui/``. This folder holds what sits between or beside them.
"""

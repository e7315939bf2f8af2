"""Which pair of opposite rim sides a player joins: west and east, or north and south.

The notation is the two letters, ``WE`` or ``NS`` (as in ``--red-sides`` and a record's ``Red-Sides``
header). Everything outside the engine names the pairs through this type, never through the strings.

>>> Sides.parse("ns") is Sides.NS
True
>>> Sides.WE.other is Sides.NS, Sides.WE.names
(True, 'west and east')
"""

from __future__ import annotations

import enum

from thoughtwave.engine.pieces import E, N, NotationError, S, W


class Sides(enum.StrEnum):
    """A pair of opposite sides; its value is the notation (``"WE"``/``"NS"``), so JSON stays as it was."""

    WE = "WE"
    NS = "NS"

    @classmethod
    def parse(cls, text: object) -> Sides:
        """``WE``/``NS`` in any case (also ``EW``/``SN``); NotationError otherwise."""
        if isinstance(text, Sides):
            return text
        if isinstance(text, str):
            letters = "".join(sorted(text.strip().upper()))
            if letters == "EW":
                return cls.WE
            if letters == "NS":
                return cls.NS
        raise NotationError(f"sides must be WE or NS, not {text!r}")

    @property
    def bits(self) -> int:
        """The two sides as N/E/S/W direction bits."""
        return W | E if self is Sides.WE else N | S

    @property
    def other(self) -> Sides:
        """The other pair (the opponent's)."""
        return Sides.NS if self is Sides.WE else Sides.WE

    @property
    def names(self) -> str:
        """``"west and east"`` or ``"north and south"``."""
        return "west and east" if self is Sides.WE else "north and south"


#: Every pair, in the order forms and options list them.
ALL_SIDES: tuple[Sides, ...] = (Sides.WE, Sides.NS)

"""Sentences for players as a code and language-neutral values, so a display can say them in any language.

The engine words its reasons and advice in English (the CLI's JSON ``reason`` and ``message``, unchanged);
each also carries a ``Phrase``: a code naming the sentence and its values (cells, moves, colours, pieces,
kinds, direction names, numbers, or other phrases). ``thoughtwave.i18n.phrases`` says a phrase in French or
German; the engine knows no language library.

>>> p = Phrase.of("taken", "E5 is already taken by ne", cell="E5", piece="ne")
>>> str(p), p.code, p.values["cell"]
('E5 is already taken by ne', 'taken', 'E5')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Phrase:
    """A sentence: ``code`` names it, ``values`` fill it, ``english`` is how the engine says it (``str()``)."""

    code: str
    english: str
    items: tuple[tuple[str, Any], ...]    # (name, value) pairs: a tuple, so a phrase copies and pickles

    @classmethod
    def of(cls, code: str, english: str, **values: Any) -> Phrase:
        """The phrase ``code`` with these values, worded ``english`` in English."""
        return cls(code, english, tuple(values.items()))

    @property
    def values(self) -> dict[str, Any]:
        """The values by name (a new dict each time)."""
        return dict(self.items)

    def __str__(self) -> str:
        return self.english

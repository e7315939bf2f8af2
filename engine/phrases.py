"""Sentences for players as a code and language-neutral values, so a display can say them in any language.

The engine words its reasons and advice in English (the CLI's JSON ``reason`` and ``message``, unchanged);
each also carries a ``Phrase``: a code naming the sentence and its values (cells, moves, colours, pieces,
kinds, direction names, numbers, or other phrases). ``thoughtwave.i18n.phrases`` says a phrase in French or
German; the engine knows no language library.

>>> p = Phrase.of("taken", "E5 is already taken by ne", cell="E5", piece="ne")
>>> str(p), p.code, p.values["cell"]
('E5 is already taken by ne', 'taken', 'E5')

Where a sentence must stay a plain ``str`` (a calibration check's measure and advice, an unreadable cell's
reason: the CLI prints them, profiles and JSON store them), it is given as ``Words``: the English text, which
also remembers its phrase for a display that speaks another language.

>>> w = Words(Phrase.of("glare", "glare on E5", cell="E5"))
>>> w == "glare on E5", w.phrase.code, said_as(w).values, said_as("plain")
(True, 'glare', {'cell': 'E5'}, None)
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


class Words(str):
    """The English words of ``phrase`` as a ``str`` (equal to, printed and stored as the English text) that
    keeps the phrase, so a display can say it in another language. Copies and pickles keep it too."""

    phrase: Phrase

    def __new__(cls, phrase: Phrase) -> Words:
        words = super().__new__(cls, phrase.english)
        words.phrase = phrase
        return words

    def __getnewargs__(self) -> tuple[Phrase]:  # type: ignore[override]
        return (self.phrase,)


def said_as(text: object) -> Phrase | None:
    """The phrase ``text`` was worded from (a ``Words``), or None for any other text."""
    return text.phrase if isinstance(text, Words) else None

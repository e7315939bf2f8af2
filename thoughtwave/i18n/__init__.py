"""The players' languages: English, French and German catalogs shared by the display, the kit and the terminal.

The catalogs are ``locale/<lang>/LC_MESSAGES/messages.po`` beside this file (one domain, ``messages``, for the
Python, Jinja and JavaScript strings; ``babel.cfg`` at the project root says where they are extracted from).
The compiled ``.mo`` files are made at install (``setup.py``'s build step), never kept in git; a catalog whose
``.mo`` is missing or older than its ``.po`` (an edited catalog in an editable install) is compiled in memory
from the ``.po`` when first loaded, so what is shown is always what the ``.po`` says.

Messages use ``%(name)s`` placeholders, filled after translation: a sentence is translated whole.

>>> Text("fr").pgettext("player", "Red")
'Rouge'
>>> negotiate(["de-AT", "en"]), negotiate(["pt"]), terminal_language({"LANG": "fr_FR.UTF-8"})
('de', 'en', 'fr')
"""

from __future__ import annotations

import functools
import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

#: The languages the companion speaks, the default first.
LANGUAGES: tuple[str, ...] = ("en", "fr", "de")
DEFAULT = "en"
#: Each language in its own words, for the page's switch and ``--lang`` help.
NATIVE_NAMES: dict[str, str] = {"en": "English", "fr": "Français", "de": "Deutsch"}
DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def catalog_path(lang: str, suffix: str = ".po") -> Path:
    """Where the catalog of ``lang`` lives (``.po`` source or compiled ``.mo``)."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def compile_catalog(po: Path, mo: Path | None = None) -> bytes:
    """The ``.mo`` bytes of ``po`` (written to ``mo`` when given): what the install step and the fallback use."""
    with po.open("rb") as source:
        catalog = read_po(source)
    out = io.BytesIO()
    write_mo(out, catalog)
    data = out.getvalue()
    if mo is not None:
        mo.write_bytes(data)
    return data


@functools.cache
def translations(lang: str) -> NullTranslations:
    """The translations of ``lang`` (English, or an unknown language: the messages as written)."""
    if lang not in LANGUAGES or lang == DEFAULT:
        return NullTranslations()
    po, mo = catalog_path(lang), catalog_path(lang, ".mo")
    if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as compiled:
            return Translations(compiled, domain=DOMAIN)
    if not po.is_file():
        return NullTranslations()
    return Translations(io.BytesIO(compile_catalog(po)), domain=DOMAIN)


def language(text: str | None) -> str | None:
    """``"fr"`` for ``fr``, ``fr-CA``, ``fr_FR.UTF-8``; None for a language the companion does not speak."""
    if not text:
        return None
    base = text.strip().replace("_", "-").split(".")[0].split("-")[0].lower()
    return base if base in LANGUAGES else None


def negotiate(accepted: Iterable[str], default: str = DEFAULT) -> str:
    """The first of ``accepted`` (best first, e.g. a browser's Accept-Language) the companion speaks."""
    for text in accepted:
        found = language(text)
        if found:
            return found
    return default


def terminal_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the terminal's locale: ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext
    reads them (the first one set decides; ``C``/``POSIX`` or an unknown language: English)."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            first = value.split(":")[0]
            return language(first) or DEFAULT
    return DEFAULT


class Text:
    """The messages of one language, with their placeholders filled: ``Text("de").gettext("Red")``.

    ``gettext``/``ngettext``/``pgettext`` are the names Babel extracts from the Python sources."""

    def __init__(self, lang: str = DEFAULT) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT
        self._t = translations(self.lang)

    def gettext(self, message: str, **values: Any) -> str:
        text = self._t.gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, num: int, **values: Any) -> str:
        text = self._t.ngettext(singular, plural, num)
        return text % {"num": num, **values}

    def pgettext(self, context: str, message: str, **values: Any) -> str:
        text = self._t.pgettext(context, message)
        return text % values if values else text

    def clauses(self, parts: list[str]) -> str:
        """Independent clauses joined as this language punctuates them: "a; b" (French: "a ; b")."""
        return self.pgettext("between clauses", "; ").join(parts)

    def number(self, value: float, pattern: str = "0.##") -> str:
        """``value`` as this language writes it (``pattern`` as Babel's: ``0.0`` one decimal): 24,5 in French."""
        return format_decimal(value, pattern, locale=self.lang)


__all__ = ["DEFAULT", "LANGUAGES", "LOCALE_DIR", "NATIVE_NAMES", "Text", "catalog_path", "compile_catalog",
           "language", "negotiate", "terminal_language", "translations"]

"""The page's language: Flask-Babel wired to the shared catalogs (``thoughtwave.i18n``).

The language of a request is the config's ``[display] language`` when it pins one; else the player's choice
from the page's switch (``?lang=fr`` on any page, kept in a cookie); else the browser's Accept-Language among
en, fr and de; else English. Templates get ``_()``/``ngettext()`` (Flask-Babel's Jinja i18n), ``lang``
(for ``<html lang>``) and ``languages`` (the switch). The page scripts' messages in a language are served as
a script, ``/i18n/<lang>.js`` (a JSON catalog; no inline script, for the content security policy), which
``static/i18n.js`` reads.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from babel.messages.extract import extract_from_file
from flask import Flask, Response, current_app, request
from flask_babel import Babel, Domain, get_locale

from thoughtwave.i18n import DEFAULT, LANGUAGES, NATIVE_NAMES, Text, language, translations

#: The cookie that keeps a player's choice from the switch, and for how long (a year).
COOKIE = "thoughtwave-lang"
COOKIE_SECONDS = 365 * 24 * 3600
#: ``app.config`` key of the pinned language ("auto": none).
PINNED = "THOUGHTWAVE_LANGUAGE"
STATIC = Path(__file__).resolve().parent / "static"


class _SharedCatalogs(Domain):
    """Flask-Babel's domain, reading the catalogs the kit and the terminal use (compiled at install)."""

    def get_translations(self):  # type: ignore[override]
        return translations(current_language())


class _Babel(Babel):
    @functools.cached_property
    def domain_instance(self) -> Domain:  # type: ignore[override]
        return _SharedCatalogs()


def select_language() -> str:
    """The language of this request (see the module's docstring)."""
    pinned = current_app.config.get(PINNED, "auto")
    if pinned in LANGUAGES:
        return pinned
    chosen = language(request.args.get("lang")) or language(request.cookies.get(COOKIE))
    if chosen:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT) or DEFAULT


def current_language() -> str:
    """``"en"``, ``"fr"`` or ``"de"`` for the request being handled (English outside a request)."""
    locale = get_locale()
    return locale.language if locale is not None and locale.language in LANGUAGES else DEFAULT


def text() -> Text:
    """The messages of this request's language, for Python code of the web layer."""
    return Text(current_language())


@functools.cache
def script_messages() -> tuple[tuple[str, ...], ...]:
    """The messages the page scripts ask for (Babel's JavaScript extractor over ``static/*.js``): each a
    msgid, or (singular, plural)."""
    found: set[tuple[str, ...]] = set()
    for path in sorted(STATIC.glob("*.js")):
        for _line, message, _comments, _context in extract_from_file("javascript", str(path)):
            found.add(message if isinstance(message, tuple) else (message,))
    return tuple(sorted(found))


@functools.cache
def js_catalog(lang: str) -> dict:
    """The page scripts' messages in ``lang``: ``{"lang", "messages": {msgid: text or [forms]}}``."""
    t = translations(lang)
    messages: dict[str, str | list[str]] = {}
    for message in script_messages():
        if len(message) == 1:
            messages[message[0]] = t.gettext(message[0])
        else:
            singular, plural = message[0], message[1]
            messages[singular] = [t.ngettext(singular, plural, n) for n in (1, 2)]
    return {"lang": lang, "messages": messages}


def _remember_choice(response: Response) -> Response:
    chosen = language(request.args.get("lang"))
    if chosen and current_app.config.get(PINNED, "auto") not in LANGUAGES:
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_SECONDS, samesite="Lax", httponly=True)
    return response


def N_(message: str) -> str:  # noqa: N802 (gettext's name for a message marked, not translated, here)
    return message


#: The refusals the pages show as the web layer words them (English, also the API's ``error``), marked here so
#: the catalogs hold them; ``said()`` looks a refusal up in the page's language.
SHOWN_REFUSALS = (
    N_("wrong PIN"), N_("enter the PIN first"), N_("changes are locked: no PIN is set"),
    N_("missing or wrong CSRF token: reload the page"),
)


def said(message: str) -> str:
    """``message`` (an English refusal of the web layer) in the page's language when the catalog has it."""
    return text().gettext(message) if message in SHOWN_REFUSALS else message


def _template_values() -> dict:
    pinned = current_app.config.get(PINNED, "auto") in LANGUAGES
    return {"lang": current_language(), "said": said,
            "languages": [] if pinned else [(code, NATIVE_NAMES[code]) for code in LANGUAGES]}


def script_catalog(lang: str) -> Response:
    """``/i18n/<lang>.js``: the page scripts' messages in ``lang`` (404 for a language not spoken)."""
    if lang not in LANGUAGES:
        return Response("// no such language\n", status=404, mimetype="text/javascript")
    body = f"window.thoughtwaveCatalog = {json.dumps(js_catalog(lang), ensure_ascii=False)};\n"
    response = Response(body, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    return response


def install(app: Flask, pinned: str = "auto") -> None:
    """Give ``app`` its languages; ``pinned`` (the config's ``[display] language``) other than "auto" decides
    for every browser."""
    app.config[PINNED] = pinned
    _Babel(app, locale_selector=select_language)
    app.after_request(_remember_choice)
    app.context_processor(_template_values)
    app.add_url_rule("/i18n/<lang>.js", "i18n_catalog", script_catalog)

"""The web layer's refusals in the players' language: a bad request body, a field out of range, a calibration
that cannot be checked or saved. Each refusal is an ``engine.phrases.Phrase`` (the English words, which a
client without a language gets, and a code with values); ``refusal`` says it whole in French or German.

>>> from thoughtwave.engine.phrases import Phrase
>>> refusal(Text("de"), Phrase.of("field-too-long", "red must be at most 40 characters", field="red", limit=40))
'Name von Rot: höchstens 40 Zeichen'
"""

from __future__ import annotations

from collections.abc import Callable

from thoughtwave.engine.phrases import Phrase
from thoughtwave.i18n import Text
from thoughtwave.i18n.calibration import check_name
from thoughtwave.i18n.phrases import colour_name, kind_name_plural


def field_name(t: Text, field: str) -> str:
    """A request field (``"level"``, ``"red"``) as a player knows it; an unknown one as it is."""
    return {
        "pin": t.pgettext("field", "PIN"), "red": t.pgettext("field", "Red's name"),
        "black": t.pgettext("field", "Black's name"), "penalty": t.pgettext("field", "penalty"),
        "red_sides": t.pgettext("field", "Red's sides"), "first": t.pgettext("field", "first player"),
        "inventory": t.pgettext("field", "pieces"), "red_pieces": t.pgettext("field", "Red's pieces"),
        "black_pieces": t.pgettext("field", "Black's pieces"), "computer": t.pgettext("field", "computer"),
        "level": t.pgettext("field", "level"), "seconds": t.pgettext("field", "seconds a move"),
        "cell": t.pgettext("field", "cell"), "colour": t.pgettext("field", "colour"),
        "piece": t.pgettext("field", "piece"), "force": t.pgettext("field", "save anyway"),
    }.get(field, field)


_SAY: dict[str, Callable[[Text, dict], str]] = {
    # the body as a whole (``webui.apierrors``)
    "body-not-utf8": lambda t, v: t.gettext("the body must be UTF-8 JSON"),
    "body-too-deep": lambda t, v: t.gettext("the body is nested too deeply (at most %(depth)s levels)",
                                            depth=v["depth"]),
    "body-not-json": lambda t, v: t.gettext("the body must be a JSON object: %(detail)s", detail=v["detail"]),
    "body-not-object": lambda t, v: t.gettext("the body must be a JSON object"),
    "body-surrogate": lambda t, v: t.gettext("%(where)s: text with a lone surrogate cannot be stored",
                                             where=v["where"]),
    "bad-request": lambda t, v: t.gettext("bad request"),
    "not-found": lambda t, v: t.gettext("not found"),
    "method-not-allowed": lambda t, v: t.gettext("method not allowed"),
    "body-too-large": lambda t, v: t.gettext("the body is too large (at most %(kb)s KB)", kb=v["kb"]),
    "not-stored": lambda t, v: t.gettext("the change could not be saved (%(error)s); nothing was changed",
                                         error=v["error"]),
    "internal-error": lambda t, v: t.gettext("internal error (it has been logged)"),
    # one field (``webui.apierrors.text_field``, ``webui.schemas``)
    "field-not-text": lambda t, v: t.gettext("%(field)s: write it as text", field=field_name(t, v["field"])),
    "field-too-long": lambda t, v: t.gettext("%(field)s: at most %(limit)s characters", field=field_name(t, v["field"]),
                                               limit=v["limit"]),
    "field-not-number": lambda t, v: t.gettext("%(field)s: write it as a number", field=field_name(t, v["field"])),
    "field-too-large": lambda t, v: t.gettext("%(field)s: at most %(limit)s", field=field_name(t, v["field"]),
                                               limit=v["limit"]),
    "field-too-small": lambda t, v: t.gettext("%(field)s: at least %(limit)s", field=field_name(t, v["field"]),
                                               limit=v["limit"]),
    "field-not-bool": lambda t, v: t.gettext("%(field)s: true or false", field=field_name(t, v["field"])),
    "field-missing": lambda t, v: t.gettext("%(field)s is missing", field=field_name(t, v["field"])),
    "field-invalid": lambda t, v: t.gettext("%(field)s: this value is not accepted", field=field_name(t, v["field"])),
    "body-invalid": lambda t, v: t.gettext("the body is not accepted"),
    # the control page's new game and corrections (``webui.control``)
    "handicap-not-object": lambda t, v: t.gettext('the handicap must be an object like {"red": {"bend": 9}}'),
    "pieces-format": lambda t, v: t.gettext("%(field)s: write it like cross=1 bend=9",
                                            field=field_name(t, v["field"])),
    "pieces-unknown": lambda t, v: t.gettext("%(field)s: %(names)s is not a kind of piece",
                                             field=field_name(t, v["field"]), names=v["names"]),
    "pieces-count": lambda t, v: t.gettext("%(colour)s's %(kinds)s: a whole number from 0 to %(most)s",
                                           colour=colour_name(t, v["colour"]),
                                           kinds=kind_name_plural(t, v["kind"]), most=v["most"]),
    "pieces-too-many": lambda t, v: t.gettext("%(colour)s's %(kinds)s: at most %(most)s",
                                              colour=colour_name(t, v["colour"]),
                                              kinds=kind_name_plural(t, v["kind"]), most=v["most"]),
    "pieces-none": lambda t, v: t.gettext("%(field)s: a player needs at least one piece",
                                          field=field_name(t, v["field"])),
    "computer-invalid": lambda t, v: _computer_refusal(t, v["detail"]),
    "cell-format": lambda t, v: t.gettext("Cell: write it like E5."),
    # the calibration page (``webui.calibrate_page``, ``webui.calibration_desk``)
    "not-a-camera": lambda t, v: t.gettext("the companion is not reading a camera: there is no profile to change"),
    "no-state-dir": lambda t, v: t.gettext("no state directory is configured: the profile cannot be kept"),
    "no-picture": lambda t, v: t.gettext("no picture from the camera yet"),
    "cannot-write": lambda t, v: t.gettext("cannot write %(path)s: %(error)s", path=v["path"], error=v["error"]),
    "cannot-remove": lambda t, v: t.gettext("cannot remove %(path)s: %(error)s", path=v["path"], error=v["error"]),
    "check-running": lambda t, v: t.gettext("a check is already running: wait for its results"),
    "no-colour": lambda t, v: t.gettext("cannot check: calibration needs colour pictures from the camera"),
    "cannot-check": lambda t, v: t.gettext("cannot check this picture: %(error)s", error=v["error"]),
    "check-first": lambda t, v: t.gettext("press Check first: there is no checked profile to save"),
    "no-board-to-save": lambda t, v: t.gettext("the last check found no board: nothing to save"),
    "check-too-old": lambda t, v: t.ngettext("the last check is %(num)d minute old: check again before saving",
                                             "the last check is %(num)d minutes old: check again before saving",
                                             v["minutes"]),
    "check-failed": lambda t, v: t.gettext(
        "the last check failed (%(failed)s): put that right and check again, or save anyway",
        failed=", ".join(check_name(t, name) for name in v["failed"])),
}


def _computer_refusal(t: Text, detail: str) -> str:
    """The computer opponent's settings refused (``game.opponent.Opponent.from_json``), matched whole."""
    known = {
        "the computer opponent must be an object like {\"colour\": \"black\"}": t.gettext(
            'the computer opponent must be an object like {"colour": "black"}'),
        "the computer plays red or black (or nobody, for two people)": t.gettext(
            "the computer plays red or black (or nobody, for two people)"),
        "the computer's level is 1, 2 or 3 and its seconds a number like 1.5": t.gettext(
            "the computer's level is 1, 2 or 3 and its seconds a number like 1.5"),
        "the computer's seconds per move must be a number": t.gettext(
            "the computer's seconds per move must be a number"),
        "the computer's level must be 1, 2 or 3": t.gettext("the computer's level must be 1, 2 or 3"),
    }
    return known.get(detail, detail)


def refusal(t: Text, phrase: Phrase) -> str:
    """``phrase`` (a refusal of the web layer) in ``t``'s language; English, or an unknown code: as worded."""
    if t.lang == "en" or phrase.code not in _SAY:
        return phrase.english
    return _SAY[phrase.code](t, phrase.values)


def known_codes() -> frozenset[str]:
    """Every refusal code ``refusal`` words in another language."""
    return frozenset(_SAY)


__all__ = ["field_name", "known_codes", "refusal"]


"""One pydantic model per JSON request body, checked at the edge before a view reads it.

``apierrors.json_body`` has already refused what no field may hold (nesting deeper than ``MAX_DEPTH``,
``NaN``/``Infinity``, numbers past 64 bits, text SQLite cannot store); a model then checks its own fields'
types, lengths and ranges. ``body(Model)`` answers 400 naming the first bad field, and gives the view the
fields it was sent as a plain dict, so the view's own checks (rules, handicap, opponent) still run after.

Fields another module checks in its own words (the handicap texts, the rules' names) are only bounded
here, so its messages stay the ones players see.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thoughtwave.engine.phrases import Phrase
from thoughtwave.webui.apierrors import ApiError, json_body

#: Longest text a short field (a name, a cell, a colour) may be sent as; the views tidy and check further.
SHORT = 200
#: Longest text of a handicap field ("cross=1 bend=9 ...").
LONG = 400

Short = Annotated[str, Field(max_length=SHORT)]
#: A level or a number of seconds, as JSON sends it or as a form sends it (text).
Level = Annotated[int, Field(ge=-1_000_000, le=1_000_000)] | Annotated[str, Field(max_length=20)]
Seconds = Annotated[float, Field(ge=-1e6, le=1e6, allow_inf_nan=False)] | Annotated[str, Field(max_length=20)]
#: A handicap: {"red": {"bend": 9}, ...} (or anything: ``control`` says what is wrong in its own words).
Loose = Annotated[Any, Field(json_schema_extra={"description": "checked by the view"})]


class Body(BaseModel):
    """A request body: unknown fields are ignored, as before; text is never coerced from numbers."""

    model_config = ConfigDict(extra="ignore", strict=False, str_max_length=LONG)


class Empty(Body):
    """The body of an action that takes no fields (end a game, undo, log out): ``{}`` or nothing."""


class Login(Body):
    """``{"pin": "123456"}``."""

    pin: Annotated[str, Field(max_length=64)] | None = None


class NewGame(Body):
    """A new game: names, the rules' choices, the handicap and the computer opponent; absent fields keep
    the game in progress's choice."""

    red: Short | None = None
    black: Short | None = None
    penalty: Short | None = None
    red_sides: Short | None = None
    first: Short | None = None
    inventory: Loose = None
    red_pieces: Annotated[str, Field(max_length=LONG)] | None = None
    black_pieces: Annotated[str, Field(max_length=LONG)] | None = None
    computer: Short | None = None
    level: Level | None = None
    seconds: Seconds | None = None


class Correct(Body):
    """A misread cell: ``{"cell": "E5", "colour": "red", "piece": "ew"}`` (piece null or "": empty)."""

    cell: Annotated[str, Field(max_length=8)]
    colour: Short | None = None
    piece: Short | None = None


class Report(Body):
    """A misread reported from the control page: ``{"note": "E5 is red's bend"}`` (the note may be left out)."""

    note: Annotated[str, Field(max_length=LONG)] | None = None


#: The models by the (method, path) they check, for the OpenAPI description.
REQUESTS: dict[tuple[str, str], type[Body]] = {
    ("post", "/api/login"): Login,
    ("post", "/api/logout"): Empty,
    ("post", "/api/game/new"): NewGame,
    ("post", "/api/game/end"): Empty,
    ("post", "/api/undo"): Empty,
    ("post", "/api/correct"): Correct,
    ("post", "/api/cases/report"): Report,
}


def body(model: type[Body]) -> dict[str, Any]:
    """This request's JSON body checked against ``model``: the fields sent, as a dict. ApiError 400 naming
    the first bad field (or saying what is wrong with the body as a whole)."""
    data = json_body()
    try:
        checked = model.model_validate(data)
    except ValidationError as err:
        raise ApiError(400, describe(err), why=refusal_of(err)) from None
    sent = checked.model_dump(exclude_unset=True)
    # A field sent as null stays null: the views treat null as "not given", as before.
    return {key: sent[key] for key in data if key in sent}


def describe(err: ValidationError) -> str:
    """The first problem of ``err`` as one line: ``"level: Input should be less than ..."``."""
    first = err.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"] if not str(part).startswith(("function-", "constrained-")))
    message = str(first["msg"])
    return f"{where}: {message}" if where else message


#: Pydantic's error types -> the refusal codes (``thoughtwave.i18n.refusals``) that say them in every language,
#: with the limit a code names (from the error's context).
_CODES = {"string_type": "field-not-text", "string_too_long": "field-too-long", "int_type": "field-not-number",
          "int_parsing": "field-not-number", "float_type": "field-not-number", "float_parsing": "field-not-number",
          "finite_number": "field-not-number", "int_from_float": "field-not-number",
          "less_than_equal": "field-too-large", "less_than": "field-too-large",
          "greater_than_equal": "field-too-small", "greater_than": "field-too-small",
          "bool_type": "field-not-bool", "bool_parsing": "field-not-bool", "missing": "field-missing"}
_LIMITS = ("max_length", "le", "lt", "ge", "gt")


def refusal_of(err: ValidationError) -> Phrase:
    """The first problem of ``err`` as a refusal phrase: the field and what is wrong with it (worded in English
    as ``describe``)."""
    first = err.errors(include_url=False)[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    if not field:
        return Phrase.of("body-invalid", describe(err))
    ctx = first.get("ctx") or {}
    limit = next((ctx[k] for k in _LIMITS if k in ctx), None)
    code = _CODES.get(str(first["type"]), "field-invalid")
    if code in ("field-too-long", "field-too-large", "field-too-small") and limit is None:
        code = "field-invalid"
    return Phrase.of(code, describe(err), field=field, limit=limit)

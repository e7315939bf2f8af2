"""Control: the control page, and the API that changes the game (new game, end, undo, correct), each
behind the PIN and the CSRF token (``webui.auth``). Answers with the new state."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from thoughtwave.engine import Colour, Rules
from thoughtwave.engine.record import parse_inventory
from thoughtwave.game import ControlError, Opponent, Snapshot
from thoughtwave.webui.apierrors import ApiError, text_field
from thoughtwave.webui.auth import requires_pin
from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language
from thoughtwave.webui.schemas import Correct, Empty, NewGame, body

bp = Blueprint("control", __name__)


def _answer(snapshot: Snapshot) -> Response:
    return jsonify(web().messages.state(snapshot, current_language()))


@bp.get("/control")
def page() -> str:
    state = web().state(current_language())
    return render_template("control.html", state=state, rules=state.get("rules") or {})


def _rules(data: dict, base: Rules) -> Rules:
    """The rules a new game asks for: ``penalty``, ``red_sides``, ``first``, ``inventory`` and the
    ``red_pieces``/``black_pieces`` texts, the rest from ``base``."""
    rules_data: dict[str, Any] = {k: data[k] for k in ("penalty", "red_sides", "first") if k in data}
    inventory = data.get("inventory") or {}
    if not isinstance(inventory, dict):
        raise ApiError(400, "inventory must be an object: {\"red\": {\"bend\": 9}, ...}")
    inventory = dict(inventory)
    for colour in Colour:
        text = data.get(f"{colour.value}_pieces")
        if text:
            if not isinstance(text, str):
                raise ApiError(400, f"{colour.value}_pieces must be text like 'cross=1 bend=9'")
            try:
                inventory[colour.value] = {k.value: n for k, n in parse_inventory(text).items()}
            except ValueError as err:
                raise ApiError(400, f"{colour.value}_pieces: {err}") from None
    rules_data["inventory"] = {**base.to_json()["inventory"], **inventory}
    try:
        return Rules.from_json(rules_data, base)
    except (ValueError, TypeError) as err:
        raise ApiError(400, str(err)) from None


@bp.post("/api/game/new")
@requires_pin
def new_game() -> Response:
    data = body(NewGame)
    companion = web().companion
    rules = _rules(data, companion.game_rules())
    opponent = companion.game_opponent()      # absent: the same kind of game as now
    if "computer" in data:
        try:
            opponent = Opponent.from_json({"colour": data["computer"], "level": data.get("level", 3),
                                           "seconds": data.get("seconds", 1.0)})
        except ValueError as err:
            raise ApiError(400, str(err)) from None
    return _answer(companion.new_game(rules, text_field(data, "red"), text_field(data, "black"), opponent))


@bp.post("/api/game/end")
@requires_pin
def end_game() -> Response:
    body(Empty)
    return _answer(web().companion.end_game())


@bp.post("/api/undo")
@requires_pin
def undo() -> Response:
    body(Empty)
    try:
        return _answer(web().companion.undo())
    except ControlError as err:
        raise ApiError(409, str(err)) from None


@bp.post("/api/correct")
@requires_pin
def correct() -> Response:
    data = body(Correct)
    cell, colour, piece = data.get("cell"), data.get("colour"), data.get("piece")
    if not isinstance(cell, str):
        raise ApiError(400, "cell must be a string like \"E5\"")
    for name, value in (("colour", colour), ("piece", piece)):
        if value is not None and not isinstance(value, str):
            raise ApiError(400, f"{name} must be a string or null")
    if piece in ("", "empty", "none"):
        piece = None
    try:
        return _answer(web().companion.correct(cell, colour or None, piece))
    except ControlError as err:
        raise ApiError(400, str(err)) from None

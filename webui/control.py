"""Control: the control page, and the API that changes the game (new game, end, undo, correct) or reports a
misread (``/api/cases/report``: the last frame kept as a case), each behind the PIN and the CSRF token
(``webui.auth``). Each answers with the new state and ``done``: what the action did, in a player's words
(``status`` applied, rejected or waiting, ``message``, ``cell``); a refusal is a 4xx ``{"error": ...}``
whose message names the field as the page names it (503 when a case could not be written)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from thoughtwave.cases import DISK_FULL, NO_FRAME, NO_ROOM, NOT_KEPT, CaseError, CaseNotSaved
from thoughtwave.engine import KINDS, START_INVENTORY, Colour, Kind, Penalty, Rules, Sides
from thoughtwave.engine.record import parse_inventory
from thoughtwave.game import ControlError, Opponent
from thoughtwave.game.loop import Reply
from thoughtwave.game.session import APPLIED, Done
from thoughtwave.i18n import Text
from thoughtwave.i18n.phrases import colour_name, kind_name_plural, kind_plural, side_names
from thoughtwave.webui.apierrors import ApiError, refused, text_field
from thoughtwave.webui.auth import requires_pin
from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language, text
from thoughtwave.webui.localized import done_text, refusal_text
from thoughtwave.webui.schemas import Correct, Empty, NewGame, Report, body
from thoughtwave.webui.words import game_summary

bp = Blueprint("control", __name__)

#: The English the refusals are worded in (a viewer in another language gets them from the phrase).
ENGLISH = Text("en")


def _answer(reply: Reply) -> Response:
    t = text()
    return jsonify({**web().messages.state(reply.snapshot, t.lang),
                    "done": {**reply.done.to_json(), "message": done_text(t, reply.done)}})


@bp.get("/control")
def page() -> str:
    state = web().state(current_language())
    return render_template("control.html", state=state, rules=state.get("rules") or {},
                           summary=game_summary(state, text()),
                           penalties=[(p.value, penalty_words(text(), p)) for p in Penalty],
                           sides=[{"value": side.value, "names": side_names(text(), side)} for side in Sides])


def penalty_words(t: Text, penalty: Penalty) -> str:
    """What an illegal placement costs, as the page offers it, in ``t``'s language."""
    if penalty is Penalty.SKIP_TURN:
        return t.gettext("illegal piece: it is lost and the player misses a turn")
    if penalty is Penalty.FORFEIT:
        return t.gettext("illegal piece: it is lost, and play goes on")
    return t.gettext("illegal piece: it goes back to the player, who tries again (friendly)")


def handicap_from_form(data: dict) -> dict[str, dict[str, int]]:
    """Each player's pieces for a new game: the ``red_pieces``/``black_pieces`` texts ("bend=9 cross=1",
    kinds not named keep their standard count), else that colour of the ``inventory`` object, else the
    standard set: a blank field means no handicap. ApiError 400 naming the field as the page does when a
    count is not a number, above what a player has, or leaves a player no piece at all."""
    inventory = data.get("inventory") or {}
    if not isinstance(inventory, dict):
        raise refused(400, "handicap-not-object", "The handicap must be an object like {\"red\": {\"bend\": 9}}.")
    chosen: dict[str, dict[str, int]] = {}
    for colour in Colour:
        name = f"{colour.value}_pieces"
        field = f"{colour.title}'s pieces (handicap)"
        text = data.get(name)
        counts: dict[str, Any] = {k.value: n for k, n in START_INVENTORY.items()}
        if text:
            if not isinstance(text, str):
                raise refused(400, "pieces-format", f"{field}: write it like cross=1 bend=9.", field=name)
            try:
                counts = {k.value: n for k, n in parse_inventory(text).items()}
            except ValueError as err:
                raise refused(400, "pieces-format", f"{field}: {err}.", field=name) from None
        elif isinstance(inventory.get(colour.value), dict):
            counts = {**counts, **inventory[colour.value]}
        for kind in KINDS:
            count = counts.get(kind.value)
            most = START_INVENTORY[kind]
            kinds = f"{colour.title}'s {kind_name_plural(ENGLISH, kind)}"
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise refused(400, "pieces-count",
                              f"{kinds}: a whole number from 0 to {most}.",
                              colour=colour, kind=kind, most=most)
            if count > most:
                raise refused(400, "pieces-too-many", f"{kinds}: at most {most}.",
                              colour=colour, kind=kind, most=most)
        unknown = set(counts) - {k.value for k in KINDS}
        if unknown:
            names = ", ".join(sorted(str(u) for u in unknown))
            raise refused(400, "pieces-unknown", f"{field}: {names} is not a kind of piece.", field=name, names=names)
        if not any(counts.values()):
            raise refused(400, "pieces-none", f"{field}: a player needs at least one piece.", field=name)
        chosen[colour.value] = counts
    return chosen


def _rules(data: dict, base: Rules) -> Rules:
    """The rules a new game asks for: ``penalty``, ``red_sides``, ``first`` (else as ``base``) and the
    handicap (``handicap_from_form``)."""
    rules_data: dict[str, Any] = {k: data[k] for k in ("penalty", "red_sides", "first") if k in data}
    rules_data["inventory"] = handicap_from_form(data)
    try:
        return Rules.from_json(rules_data, base)
    except (ValueError, TypeError) as err:
        named = str(err).split(" ", 1)[0]
        field = named if named in ("penalty", "red_sides", "first") else "inventory"
        raise refused(400, "field-invalid", f"{err}.", field=field) from None


def _started(state: dict, rules: Rules, opponent: Opponent | None, t: Text) -> Done:
    """The new game in sentences: players, who moves first, the penalty, the computer and any handicap."""
    game = state["game"]
    red = game["red"] or colour_name(t, Colour.RED)
    black = game["black"] or colour_name(t, Colour.BLACK)
    said = t.gettext("Game %(id)s has started: %(red)s (red) against %(black)s (black); %(first)s moves first; "
                     "%(penalty)s.", id=game["id"], red=red, black=black, first=colour_name(t, rules.first),
                     penalty=penalty_words(t, rules.penalty))
    if opponent:
        said += " " + (t.gettext("The computer plays red at level %(level)s.", level=opponent.level)
                       if opponent.colour is Colour.RED
                       else t.gettext("The computer plays black at level %(level)s.", level=opponent.level))
    for colour in Colour:
        if rules.inventory[colour] != START_INVENTORY:
            said += " " + t.gettext("%(colour)s has %(counts)s.", colour=colour_name(t, colour),
                                    counts=_counts(rules.inventory[colour], t))
    return Done(APPLIED, said)


def _counts(inventory: dict[Kind, int], t: Text) -> str:
    """``"1 terminator, 8 bends, 5 straights, 6 junctions and 0 crosses"``."""
    parts = [kind_plural(t, k, inventory[k]) for k in KINDS]
    return t.gettext("%(first)s and %(second)s", first=", ".join(parts[:-1]), second=parts[-1])


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
            raise refused(400, "computer-invalid", f"The computer: {err}.", detail=str(err)) from None
    snapshot = companion.new_game(rules, text_field(data, "red"), text_field(data, "black"), opponent)
    state = web().messages.state(snapshot, current_language())
    return jsonify({**state, "done": _started(state, rules, opponent, text()).to_json()})


@bp.post("/api/game/end")
@requires_pin
def end_game() -> Response:
    body(Empty)
    try:
        return _answer(web().companion.end())
    except ControlError as err:
        raise ApiError(409, refusal_text(text(), err)) from None


@bp.post("/api/undo")
@requires_pin
def undo() -> Response:
    body(Empty)
    try:
        return _answer(web().companion.take_back())
    except ControlError as err:
        raise ApiError(409, refusal_text(text(), err)) from None


@bp.post("/api/correct")
@requires_pin
def correct() -> Response:
    data = body(Correct)
    cell, colour, piece = data.get("cell"), data.get("colour"), data.get("piece")
    if not isinstance(cell, str) or not cell.strip():
        raise refused(400, "cell-format", "Cell: write it like E5.")
    for name, value in (("colour", colour), ("piece", piece)):
        if value is not None and not isinstance(value, str):
            raise refused(400, "field-not-text", f"{name.title()}: write it as text.", field=name)
    if piece in ("", "empty", "none"):
        piece = None
    try:
        return _answer(web().companion.correct_cell(cell.strip(), colour or None, piece))
    except ControlError as err:
        raise ApiError(400, refusal_text(text(), err)) from None


def not_saved_text(t: Text, err: CaseNotSaved) -> tuple[int, str]:
    """Why a reported case was not saved, in one line of ``t``'s language, and the status to answer with:
    409 when it cannot be done now, 503 when the state directory cannot take it."""
    folder = str(err.folder or "")
    if err.reason == NOT_KEPT:
        return 409, t.gettext("Nothing was saved: this companion has no state directory to keep cases in.")
    if err.reason == NO_FRAME:
        return 409, t.gettext("Nothing was saved: the camera has not given a picture yet. Try again once it "
                              "shows the board.")
    if err.reason == NO_ROOM:
        return 409, t.gettext("Nothing was saved: %(folder)s already holds as many cases as it may. Export them "
                              "(thoughtwave cases export) and delete some.", folder=folder)
    if err.reason == DISK_FULL:
        return 503, t.gettext("Nothing was saved: the disk is full. Free space on the disk holding %(folder)s.",
                              folder=folder)
    return 503, t.gettext("Nothing was saved: %(folder)s cannot be written (%(reason)s).", folder=folder,
                          reason=err.detail or str(err))


@bp.post("/api/cases/report")
@requires_pin
def report_misread() -> Response:
    data = body(Report)
    note = text_field(data, "note", 400)
    t = text()
    companion = web().companion
    try:
        path = companion.report_misread(note)
    except CaseNotSaved as err:
        status, message = not_saved_text(t, err)
        raise ApiError(status, message) from None
    except CaseError as err:   # a picture that cannot be encoded, or one too large to keep
        raise ApiError(409, t.gettext("Nothing was saved: %(reason)s.", reason=str(err))) from None
    said = t.gettext("Saved the camera's last picture, what it read there and the board as case %(name)s in "
                     "%(folder)s. To send it: thoughtwave cases export.", name=path.name, folder=str(path.parent))
    state = web().messages.state(companion.state(), current_language())
    return jsonify({**state, "done": Done(APPLIED, said).to_json(), "case": {"name": path.name, "path": str(path)}})

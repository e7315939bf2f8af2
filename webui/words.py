"""Games and results in a player's words, for the control and games pages: "Red won, linking west and
east, in 31 moves", a game's one-line summary, and stored UTC times shown in the Pi's local time. Each sentence is
in the language of ``t`` (default English), whole, with its plural forms.
``static/control.js`` says the same for the live card (keep the sentences alike)."""

from __future__ import annotations

import datetime

from thoughtwave.engine import Colour, Rules
from thoughtwave.i18n import Text
from thoughtwave.i18n.phrases import colour_name, side_names
from thoughtwave.webui.localized import game_names

ONGOING, DRAW = "ongoing", "draw"


def moves_words(count: int, t: Text | None = None) -> str:
    """``"1 move"``, ``"31 moves"``."""
    return (t or Text()).ngettext("%(num)d move", "%(num)d moves", count)


def result_words(result: str, ended: bool, rules: Rules, moves: int, t: Text | None = None) -> str:
    """The outcome of a game as a sentence: a win (with the sides the winner linked), a draw, abandoned (ended
    by hand with no winner) or still being played."""
    t = t or Text()
    if result in (Colour.RED.value, Colour.BLACK.value):
        winner = Colour(result)
        return t.ngettext("%(colour)s won, linking %(sides)s, in %(num)d move.",
                          "%(colour)s won, linking %(sides)s, in %(num)d moves.", moves,
                          colour=colour_name(t, winner), sides=side_names(t, rules.sides_of(winner)))
    if result == DRAW:
        return t.ngettext("A draw, after %(num)d move.", "A draw, after %(num)d moves.", moves)
    if ended:
        return t.ngettext("Abandoned after %(num)d move, with no winner.",
                          "Abandoned after %(num)d moves, with no winner.", moves)
    return t.ngettext("Being played: %(num)d move so far.", "Being played: %(num)d moves so far.", moves)


def placed(moves: list[dict]) -> int:
    """The moves that count (legal or illegal placements; refused attempts are not moves)."""
    return sum(1 for m in moves if m.get("verdict") != "rejected")


def players_words(game: dict, t: Text | None = None) -> str:
    """``"Ann (red) against Black (black)"``."""
    t = t or Text()
    game = game_names(t, game)     # the computer's player in t's language
    return t.gettext("%(red)s (red) against %(black)s (black)", red=game.get("red") or colour_name(t, Colour.RED),
                     black=game.get("black") or colour_name(t, Colour.BLACK))


def local_time(stored: str | None) -> str:
    """A stored UTC time (ISO 8601) in the Pi's local time, to the minute; "" when there is none."""
    if not stored:
        return ""
    try:
        when = datetime.datetime.fromisoformat(stored)
    except ValueError:
        return stored
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def game_summary(state: dict, t: Text | None = None) -> str:
    """The live game in one or two sentences, from the display's state JSON (``/api/state``)."""
    t = t or Text()
    game = state["game"]
    moves = placed(state.get("moves") or [])
    rules = Rules.from_json(state["rules"]) if state.get("rules") else Rules()
    over = bool(state.get("winner") or state.get("draw"))
    if over or game.get("ended"):
        status = result_words(state.get("result") or ONGOING, True, rules, moves, t)
        if not over:
            status = t.ngettext("Ended with no winner after %(num)d move: clear the board to start the next game.",
                                "Ended with no winner after %(num)d moves: clear the board to start the next game.",
                                moves)
    elif state.get("next"):
        status = t.ngettext("%(colour)s to move; %(num)d move so far.", "%(colour)s to move; %(num)d moves so far.",
                            moves, colour=colour_name(t, Colour(state["next"])))
    else:
        status = t.ngettext("%(num)d move so far.", "%(num)d moves so far.", moves)
    computer = state.get("computer")
    summary = t.gettext("Game %(id)s: %(players)s. %(status)s", id=game["id"], players=players_words(game, t),
                        status=status)
    if computer:
        summary += " " + (t.gettext("The computer plays red at level %(level)s, up to %(seconds)s s a move.",
                                    level=computer["level"], seconds=computer["seconds"])
                          if computer["colour"] == "red" else
                          t.gettext("The computer plays black at level %(level)s, up to %(seconds)s s a move.",
                                    level=computer["level"], seconds=computer["seconds"]))
    return summary

"""Games and results in a player's words, for the control and games pages: "Red won, linking west and
east, in 31 moves", a game's one-line summary, and stored UTC times shown in the Pi's local time.
``static/control.js`` says the same for the live card (keep the sentences alike)."""

from __future__ import annotations

import datetime

from thoughtwave.engine import Colour, Rules

ONGOING, DRAW = "ongoing", "draw"


def moves_words(count: int) -> str:
    """``"1 move"``, ``"31 moves"``."""
    return "1 move" if count == 1 else f"{count} moves"


def result_words(result: str, ended: bool, rules: Rules, moves: int) -> str:
    """The outcome of a game as a sentence: a win (with the sides the winner linked), a draw, abandoned (ended
    by hand with no winner) or still being played."""
    if result in (Colour.RED.value, Colour.BLACK.value):
        winner = Colour(result)
        return f"{winner.title} won, linking {rules.side_names(winner)}, in {moves_words(moves)}."
    if result == DRAW:
        return f"A draw, after {moves_words(moves)}."
    if ended:
        return f"Abandoned after {moves_words(moves)}, with no winner."
    return f"Being played: {moves_words(moves)} so far."


def placed(moves: list[dict]) -> int:
    """The moves that count (legal or illegal placements; refused attempts are not moves)."""
    return sum(1 for m in moves if m.get("verdict") != "rejected")


def players_words(game: dict) -> str:
    """``"Ann (red) against Black (black)"``."""
    return f"{game.get('red') or 'Red'} (red) against {game.get('black') or 'Black'} (black)"


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


def game_summary(state: dict) -> str:
    """The live game in one or two sentences, from the display's state JSON (``/api/state``)."""
    game = state["game"]
    moves = placed(state.get("moves") or [])
    rules = Rules.from_json(state["rules"]) if state.get("rules") else Rules()
    over = bool(state.get("winner") or state.get("draw"))
    if over or game.get("ended"):
        status = result_words(state.get("result") or ONGOING, True, rules, moves)
        if not over:
            status = f"Ended with no winner after {moves_words(moves)}: clear the board to start the next game."
    else:
        status = f"{Colour(state['next']).title} to move; {moves_words(moves)} so far." if state.get("next") else \
            f"{moves_words(moves)} so far."
    computer = state.get("computer")
    against = (f" The computer plays {computer['colour']} at level {computer['level']}, up to {computer['seconds']} s "
               "a move." if computer else "")
    return f"Game {game['id']}: {players_words(game)}. {status}{against}"

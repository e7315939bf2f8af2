"""The game's words in the players' language: colours, pieces, sides, and the engine's phrases.

The engine gives every reason and flag as an ``engine.phrases.Phrase`` (a code and language-neutral values);
``say`` words it whole in one language, so no sentence is put together from translated bits. In English the
engine's own words are kept as they are (they are also the CLI's), so the English display does not change.

>>> from thoughtwave.engine import Referee
>>> verdict = Referee().play("black e@A1")
>>> say(Text("fr"), verdict.why), say(Text("de"), verdict.why)
("c'est au tour de Rouge, pas de Noir", 'Rot ist am Zug, nicht Schwarz')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from thoughtwave.engine import Colour, Kind, Piece, Sides
from thoughtwave.engine.phrases import Phrase, said_as
from thoughtwave.engine.pieces import DIRECTION_NAMES, DIRECTIONS
from thoughtwave.i18n import Text


def colour_name(t: Text, colour: Colour) -> str:
    """``"Red"``, ``"Rouge"``, ``"Rot"``: a player by colour, as a sentence names them."""
    if colour is Colour.RED:
        return t.pgettext("player", "Red")
    return t.pgettext("player", "Black")


def kind_name(t: Text, kind: Kind) -> str:
    """``"bend"``, ``"courbe"``, ``"Kurve"``: the kind of a piece, as the published rules call it."""
    return {
        Kind.TERMINATOR: t.pgettext("kind", "terminator"),
        Kind.BEND: t.pgettext("kind", "bend"),
        Kind.STRAIGHT: t.pgettext("kind", "straight"),
        Kind.JUNCTION: t.pgettext("kind", "junction"),
        Kind.CROSS: t.pgettext("kind", "cross"),
    }[kind]


def kind_plural(t: Text, kind: Kind, count: int) -> str:
    """``"10 bends"``, ``"10 courbes"``, ``"10 Kurven"``."""
    return {
        Kind.TERMINATOR: t.ngettext("%(num)d terminator", "%(num)d terminators", count),
        Kind.BEND: t.ngettext("%(num)d bend", "%(num)d bends", count),
        Kind.STRAIGHT: t.ngettext("%(num)d straight", "%(num)d straights", count),
        Kind.JUNCTION: t.ngettext("%(num)d junction", "%(num)d junctions", count),
        Kind.CROSS: t.ngettext("%(num)d cross", "%(num)d crosses", count),
    }[kind]


def kind_name_plural(t: Text, kind: Kind) -> str:
    """``"bends"``, ``"courbes"``, ``"Kurven"``: a kind in the plural, without a count."""
    return {
        Kind.TERMINATOR: t.pgettext("kinds", "terminators"),
        Kind.BEND: t.pgettext("kinds", "bends"),
        Kind.STRAIGHT: t.pgettext("kinds", "straights"),
        Kind.JUNCTION: t.pgettext("kinds", "junctions"),
        Kind.CROSS: t.pgettext("kinds", "crosses"),
    }[kind]


def the_piece(t: Text, colour: Colour, piece: Piece) -> str:
    """``"the red bend ne"``: one piece of one colour, with its arms in the notation."""
    arms = str(piece)
    red = colour is Colour.RED
    return {
        Kind.TERMINATOR: (t.gettext("the red terminator %(arms)s", arms=arms) if red
                          else t.gettext("the black terminator %(arms)s", arms=arms)),
        Kind.BEND: (t.gettext("the red bend %(arms)s", arms=arms) if red
                    else t.gettext("the black bend %(arms)s", arms=arms)),
        Kind.STRAIGHT: (t.gettext("the red straight %(arms)s", arms=arms) if red
                        else t.gettext("the black straight %(arms)s", arms=arms)),
        Kind.JUNCTION: (t.gettext("the red junction %(arms)s", arms=arms) if red
                        else t.gettext("the black junction %(arms)s", arms=arms)),
        Kind.CROSS: (t.gettext("the red cross %(arms)s", arms=arms) if red
                     else t.gettext("the black cross %(arms)s", arms=arms)),
    }[piece.kind]


def the_kind(t: Text, colour: Colour, kind: Kind) -> str:
    """``"the black bend"``: a piece by colour and kind, its arms not said (the speech, the computer's advice)."""
    red = colour is Colour.RED
    return {
        Kind.TERMINATOR: t.gettext("the red terminator") if red else t.gettext("the black terminator"),
        Kind.BEND: t.gettext("the red bend") if red else t.gettext("the black bend"),
        Kind.STRAIGHT: t.gettext("the red straight") if red else t.gettext("the black straight"),
        Kind.JUNCTION: t.gettext("the red junction") if red else t.gettext("the black junction"),
        Kind.CROSS: t.gettext("the red cross") if red else t.gettext("the black cross"),
    }[kind]


def direction_name(t: Text, name: str) -> str:
    """``"north"``, ``"nord"``, ``"Norden"`` for one of ``engine.pieces.DIRECTION_NAMES``."""
    return {
        "north": t.pgettext("direction", "north"), "east": t.pgettext("direction", "east"),
        "south": t.pgettext("direction", "south"), "west": t.pgettext("direction", "west"),
    }[name]


def side_names(t: Text, sides: Sides) -> str:
    """``"west and east"``: the pair of sides a player joins."""
    return t.gettext("west and east") if sides is Sides.WE else t.gettext("north and south")


def wave_words(t: Text, piece: Piece) -> str:
    """``"north and east"``: where the wave of ``piece`` runs, as a list in the language's own way."""
    names = [direction_name(t, DIRECTION_NAMES[d]) for d in DIRECTIONS if piece.arms & d]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return t.gettext("%(first)s and %(second)s", first=names[0], second=names[1])
    return t.gettext("%(first)s, %(second)s and %(third)s", first=names[0], second=names[1], third=names[2])


def _what(t: Text, value: Any) -> str:
    colour, piece = value
    return the_piece(t, colour, piece)


def _mismatch(t: Text, code: str, v: dict) -> str:
    move, other = v["move"], v["other"]
    if code == "wave-on-blank":
        return {
            "north": t.gettext("wave on the north edge of %(move)s touches the blank edge of %(other)s",
                               move=move, other=other),
            "east": t.gettext("wave on the east edge of %(move)s touches the blank edge of %(other)s",
                              move=move, other=other),
            "south": t.gettext("wave on the south edge of %(move)s touches the blank edge of %(other)s",
                               move=move, other=other),
            "west": t.gettext("wave on the west edge of %(move)s touches the blank edge of %(other)s",
                              move=move, other=other),
        }[v["side"]]
    return {
        "north": t.gettext("blank north edge of %(move)s touches the wave of %(other)s", move=move, other=other),
        "east": t.gettext("blank east edge of %(move)s touches the wave of %(other)s", move=move, other=other),
        "south": t.gettext("blank south edge of %(move)s touches the wave of %(other)s", move=move, other=other),
        "west": t.gettext("blank west edge of %(move)s touches the wave of %(other)s", move=move, other=other),
    }[v["side"]]


def _none_left(t: Text, v: dict) -> str:
    colour = colour_name(t, v["colour"])
    return {
        Kind.TERMINATOR: t.gettext("%(colour)s has no terminator left", colour=colour),
        Kind.BEND: t.gettext("%(colour)s has no bend left", colour=colour),
        Kind.STRAIGHT: t.gettext("%(colour)s has no straight left", colour=colour),
        Kind.JUNCTION: t.gettext("%(colour)s has no junction left", colour=colour),
        Kind.CROSS: t.gettext("%(colour)s has no cross left", colour=colour),
    }[v["kind"]]


def _illegal(t: Text, code: str, v: dict) -> str:
    what, cell, reason = _what(t, v["what"]), v["cell"], say(t, v["reason"])
    colour = colour_name(t, v["what"][0])
    if code == "illegal-retry":
        return t.gettext("take %(what)s off %(cell)s; %(colour)s tries again (%(reason)s)",
                         what=what, cell=cell, colour=colour, reason=reason)
    if code == "illegal-forfeit":
        return t.gettext("take %(what)s off %(cell)s; it is out of the game (%(reason)s)",
                         what=what, cell=cell, reason=reason)
    return t.gettext("take %(what)s off %(cell)s; it is out of the game; %(colour)s misses a turn (%(reason)s)",
                     what=what, cell=cell, colour=colour, reason=reason)


def _computer(t: Text, code: str, v: dict) -> str:
    cell = v["cell"]
    if code == "computer-not-chosen":
        return t.gettext("the computer has not chosen its move yet: take %(what)s off %(cell)s and wait for "
                         "its instruction", what=_what(t, v["what"]), cell=cell)
    if code == "computer-not-its-turn":
        mover = colour_name(t, v["mover"]) if v["mover"] else t.gettext("nobody")
        return t.gettext("it is %(mover)s's turn, not the computer's: take %(what)s off %(cell)s",
                         mover=mover, what=_what(t, v["what"]), cell=cell)
    if code == "computer-turn-it":
        return t.gettext("that is not the computer's move: turn %(what)s on %(cell)s to %(arms)s (its wave "
                         "running %(wave)s)", what=the_kind(t, v["colour"], v["kind_of"]), cell=cell,
                         arms=str(v["piece"]), wave=wave_words(t, v["piece"]))
    return t.gettext("that is not the computer's move: take %(what)s off %(cell)s and put %(want)s on %(to)s",
                     what=_what(t, v["what"]), cell=cell, want=_what(t, v["want"]), to=v["to"])


def _who(t: Text, value: Any) -> str:
    """A piece given as (colour, piece), or a move as typed (kept in the notation)."""
    return _what(t, value) if isinstance(value, tuple) else str(value)


def _reason(t: Text, value: Any) -> str:
    return say(t, value) if value is not None else t.gettext("it is not a move")


def _control(t: Text, code: str, v: dict) -> str:
    """The control actions' outcomes and refusals (``game.session``)."""
    cell = v.get("cell")
    match code:
        case "already-ended":
            return t.gettext("Game %(game)s has already ended.", game=v["game"])
        case "ended":
            return t.ngettext("Game %(game)s has ended after %(num)d move, with no winner. Clear the board to start "
                              "the next game, or start a new one below.", "Game %(game)s has ended after %(num)d "
                              "moves, with no winner. Clear the board to start the next game, or start a new one "
                              "below.", v["moves"], game=v["game"])
        case "ended-start-new":
            return t.gettext("Game %(game)s has ended: start a new game first.", game=v["game"])
        case "nothing-to-take-back":
            return t.gettext("There is no move to take back yet.")
        case "took-back":
            who = _who(t, v["who"])
            if cell and v["lift"]:
                return t.gettext("Took back move %(n)s: %(who)s on %(cell)s. Take that piece off %(cell)s.",
                                 n=v["n"], who=who, cell=cell)
            if cell:
                return t.gettext("Took back move %(n)s: %(who)s on %(cell)s.", n=v["n"], who=who, cell=cell)
            return t.gettext("Took back move %(n)s: %(who)s.", n=v["n"], who=who)
        case "say-whose":
            return t.gettext("Say whose piece it is: red or black.")
        case "taken-as":
            what = _what(t, v["what"]) if v["what"] else t.gettext("nothing")
            return t.gettext("%(cell)s is taken as %(what)s; the referee rules on it once the board is in order.",
                             cell=cell, what=what)
        case "nothing-to-take-away":
            return t.gettext("The game has nothing on %(cell)s to take away.", cell=cell)
        case "would-not-accept":
            return t.gettext("The referee would not accept %(what)s on %(cell)s: %(reason)s.",
                             what=_what(t, v["what"]), cell=cell, reason=_reason(t, v["reason"]))
        case "took-out":
            return t.gettext("Took the piece on %(cell)s out of the game; the moves after it were ruled again.",
                             cell=cell)
        case "corrected":
            return t.gettext("Corrected %(cell)s: %(verdict)s", cell=cell, verdict=say(t, v["verdict"]))
    who, reason = _who(t, v["who"]), _reason(t, v["reason"])
    if code == "done-legal":
        return (t.gettext("%(who)s on %(cell)s counts: a legal move.", who=who, cell=cell) if cell
                else t.gettext("%(who)s counts: a legal move.", who=who))
    if code == "done-illegal":
        return (t.gettext("%(who)s on %(cell)s is an illegal placement (%(reason)s); the penalty applies.",
                          who=who, cell=cell, reason=reason) if cell
                else t.gettext("%(who)s is an illegal placement (%(reason)s); the penalty applies.", who=who,
                               reason=reason))
    return (t.gettext("The referee refused %(who)s on %(cell)s: %(reason)s.", who=who, cell=cell, reason=reason)
            if cell else t.gettext("The referee refused %(who)s: %(reason)s.", who=who, reason=reason))


_CONTROL = ("already-ended", "ended", "ended-start-new", "nothing-to-take-back", "took-back", "say-whose", "taken-as",
            "nothing-to-take-away", "would-not-accept", "took-out", "corrected", "done-legal", "done-illegal",
            "done-refused")

#: Why the board cannot be seen and what to do (``vision.causes.lost_reason``), by ``vision.causes.Lost`` value: the
#: board-lost flag says it after "can't see the board, ", the calibration page as its advice.
_LOST_REASONS: dict[str, Callable[[Text, dict], str]] = {
    "lamp": lambda t, v: t.gettext(
        "a bright light in view leaves the rest of the picture dark: turn the lamp away from the camera"),
    "dark": lambda t, v: t.gettext("the picture is too dark: add light over the board"),
    "washed": lambda t, v: t.gettext("the picture is washed out: dim the light or turn it away from the board"),
    "blurred": lambda t, v: t.gettext(
        "the picture is blurred: hold the camera and the table still and check the focus"),
    "markers": lambda t, v: t.gettext(
        "it shows only %(seen)s of its %(markers)s markers: uncover the rest or aim the camera at the whole board",
        seen=v["seen"], markers=v["markers"]),
}


#: The causes a lost board is named for (``vision.causes.Lost`` values).
LOST_CAUSES = tuple(_LOST_REASONS)


def lost_reason(t: Text, cause: str, values: dict) -> str:
    """Why the board cannot be seen (``cause``, a ``vision.causes.Lost`` value) and what to do, in ``t``'s language
    (``values``: the markers ``seen`` and of how many)."""
    return _LOST_REASONS[cause](t, values)


_SAY: dict[str, Callable[[Text, dict], str]] = {
    "malformed": lambda t, v: t.gettext("“%(move)s” is not a move in the notation", move=v["move"]),
    "not-your-turn": lambda t, v: t.gettext("it is %(to_move)s's turn, not %(mover)s's",
                                            to_move=colour_name(t, v["to_move"]), mover=colour_name(t, v["mover"])),
    "taken": lambda t, v: t.gettext("%(cell)s is already taken by %(piece)s", cell=v["cell"], piece=v["piece"]),
    "none-left": _none_left,
    "wave-on-blank": lambda t, v: _mismatch(t, "wave-on-blank", v),
    "blank-on-wave": lambda t, v: _mismatch(t, "blank-on-wave", v),
    "over-won": lambda t, v: t.gettext("the game is over: %(winner)s has won", winner=colour_name(t, v["winner"])),
    "over-drawn": lambda t, v: t.gettext("the game is over: it was drawn"),
    "unreadable": lambda t, v: t.gettext("can't read %(cell)s: clear anything covering it or check the light",
                                         cell=v["cell"]),
    "unreadable-hand": lambda t, v: t.gettext("something covers %(cell)s: take hands and objects off the board",
                                              cell=v["cell"]),
    "unreadable-glare": lambda t, v: t.gettext("glare on %(cell)s: tilt the lamp or the board", cell=v["cell"]),
    "unreadable-shadow": lambda t, v: t.gettext("%(cell)s is in shadow: move what casts it or add light",
                                                cell=v["cell"]),
    "unreadable-motion": lambda t, v: t.gettext("%(cell)s is smeared, the camera moved: hold the table still",
                                                cell=v["cell"]),
    "unreadable-focus": lambda t, v: t.gettext("%(cell)s is blurred: focus the camera on the board", cell=v["cell"]),
    "unreadable-small": lambda t, v: t.gettext(
        "%(cell)s is too small in the picture: lower the camera or raise its resolution", cell=v["cell"]),
    "unreadable-unsteady": lambda t, v: t.gettext(
        "%(cell)s reads differently from frame to frame: keep hands and shadows off it", cell=v["cell"]),
    "unreadable-unclear": lambda t, v: t.gettext(
        "%(cell)s looks like neither an empty cell nor a whole tile: lay its tile flat or clear what is on it",
        cell=v["cell"]),
    "lifted": lambda t, v: t.gettext("put %(want)s back on %(cell)s", want=_what(t, v["want"]), cell=v["cell"]),
    "moved": lambda t, v: t.gettext("%(cell)s should hold %(want)s, not %(what)s: put it back as it was",
                                    cell=v["cell"], want=_what(t, v["want"]), what=_what(t, v["what"])),
    "differs": lambda t, v: t.gettext(
        "the stored game has nothing on %(cell)s but the camera sees %(what)s: take it off (lay it again if it "
        "was a move)", cell=v["cell"], what=_what(t, v["what"])),
    "held": lambda t, v: t.gettext("%(what)s on %(cell)s waits until the board is put right: %(first)s",
                                   what=_what(t, v["what"]), cell=v["cell"], first=say(t, v["first"])),
    "unexplained": lambda t, v: t.gettext(
        "several pieces appeared at once (%(cells)s) and no order of turns makes them all legal: take %(what)s "
        "off %(cell)s and lay the pieces one at a time", cells=", ".join(v["cells"]), what=_what(t, v["what"]),
        cell=v["cell"]),
    "illegal-skip-turn": lambda t, v: _illegal(t, "illegal-skip-turn", v),
    "illegal-forfeit": lambda t, v: _illegal(t, "illegal-forfeit", v),
    "illegal-retry": lambda t, v: _illegal(t, "illegal-retry", v),
    "rejected-piece": lambda t, v: t.gettext("take %(what)s off %(cell)s: %(reason)s", what=_what(t, v["what"]),
                                             cell=v["cell"], reason=say(t, v["reason"])),
    "undone": lambda t, v: t.gettext("take %(what)s off %(cell)s: its move was taken back",
                                     what=_what(t, v["what"]), cell=v["cell"]),
    "computer-not-chosen": lambda t, v: _computer(t, "computer-not-chosen", v),
    "computer-not-its-turn": lambda t, v: _computer(t, "computer-not-its-turn", v),
    "computer-turn-it": lambda t, v: _computer(t, "computer-turn-it", v),
    "computer-wrong": lambda t, v: _computer(t, "computer-wrong", v),
}


for _code in _CONTROL:
    _SAY[_code] = lambda t, v, code=_code: _control(t, code, v)
for _cause in _LOST_REASONS:
    _SAY[f"board-lost-{_cause}"] = lambda t, v, cause=_cause: t.gettext(
        "can't see the board, %(reason)s", reason=lost_reason(t, cause, v))


def say(t: Text, phrase: Phrase | None) -> str:
    """``phrase`` in the language of ``t`` (English: the engine's own words); "" for None."""
    if phrase is None:
        return ""
    if t.lang == "en":
        return phrase.english
    # An unreadable cell's flag is worded by the reader (``vision.causes``): its words carry the cause's phrase.
    cause = said_as(phrase.english) if phrase.code == "unreadable" else None
    if cause is not None and cause.code in _SAY:
        phrase = cause
    if phrase.code not in _SAY:
        return phrase.english
    return _SAY[phrase.code](t, dict(phrase.values))


def known_codes() -> frozenset[str]:
    """Every phrase code ``say`` words in another language (the tests check the engine's against it)."""
    return frozenset(_SAY)


__all__ = ["LOST_CAUSES", "colour_name", "direction_name", "kind_name", "kind_name_plural", "kind_plural",
           "known_codes", "lost_reason", "say", "side_names", "the_kind", "the_piece", "wave_words"]

"""The display's sentences in the viewer's language: the flags and notices, the verdicts' reasons, the sides,
and the computer's instructions. English keeps the game's own words (the engine's, the loop's) as they are.

>>> from thoughtwave.engine import Colour, Move
>>> from thoughtwave.game import Instruction
>>> told = Instruction(Move.parse("ne@F4"), Colour.BLACK, 0.5, ())
>>> instruction_words(Text("de"), told)["detail"]
'legen Sie die schwarze Kurve so, dass die Welle nach Norden und Osten läuft'
"""

from __future__ import annotations

import re

from thoughtwave.engine import Kind, Verdict
from thoughtwave.game import ControlError, Instruction, Notice
from thoughtwave.game.opponent import Opponent, opponent_of
from thoughtwave.game.session import Done
from thoughtwave.game.snapshot import Camera
from thoughtwave.i18n import Text
from thoughtwave.i18n.calibration import cell_list
from thoughtwave.i18n.phrases import colour_name, say, the_kind, the_piece, wave_words


def notice_text(t: Text, notice: Notice, camera: Camera) -> str:
    """What a flag or a notice of the loop says, in ``t``'s language."""
    if t.lang == "en":
        return notice.message
    if notice.why is not None:
        return say(t, notice.why)
    match notice.kind:
        case "hand":
            return t.gettext("a hand (or something) has been over the board for a while: please clear the board")
        case "board-lost":
            return t.gettext("can't see the board: check the camera and that all four corner markers are in view")
        case "board-moved":
            return t.gettext("the board moved: hold on while it is found again")
        case "camera":
            return t.gettext("camera lost; trying again in %(seconds)s s", seconds=camera.retry_in)
        case "storage":
            return t.gettext("could not save the game; the last move was not counted")
    return notice.message


def reason_text(t: Text, verdict: Verdict) -> str | None:
    """The verdict's reason in ``t``'s language (None for a legal placement)."""
    if verdict.reason is None:
        return None
    return verdict.reason if t.lang == "en" else say(t, verdict.why)


def instruction_words(t: Text, told: Instruction) -> dict[str, str]:
    """The computer's instruction as the display shows and says it: ``text``, ``detail``, ``spoken``."""
    if t.lang == "en":
        return {"text": told.text, "detail": told.detail, "spoken": told.spoken}
    piece, colour, cell = told.move.piece, told.colour, str(told.move.cell)
    player, kind, wave = colour_name(t, colour), the_kind(t, colour, piece.kind), wave_words(t, piece)
    if piece.kind is Kind.CROSS:
        detail = t.gettext("lay %(piece)s (any way round: its waves run to all four sides)", piece=kind)
    elif piece.kind is Kind.TERMINATOR:
        detail = t.gettext("lay %(piece)s so its wave runs %(wave)s from the middle", piece=kind, wave=wave)
    elif piece.kind is Kind.JUNCTION:
        detail = t.gettext("lay %(piece)s so its waves run %(wave)s", piece=kind, wave=wave)
    else:
        detail = t.gettext("lay %(piece)s so its wave runs %(wave)s", piece=kind, wave=wave)
    return {
        "text": t.gettext("%(player)s plays %(piece)s at %(cell)s", player=player,
                          piece=the_piece(t, colour, piece), cell=cell),
        "detail": detail,
        "spoken": t.gettext("%(player)s plays %(piece)s, %(wave)s, at %(cell)s", player=player, piece=kind,
                            wave=wave, cell=f"{cell[0]} {cell[1:]}"),
    }


def computer_name(t: Text, opponent: Opponent) -> str:
    """What the display calls the computer's player, ``"Ordinateur (niveau 3)"`` (English: ``Opponent.name``)."""
    return opponent.name if t.lang == "en" else t.gettext("Computer (level %(level)s)", level=opponent.level)


def game_names(t: Text, game: dict) -> dict:
    """A game's JSON (``GameRow.to_json``) with the computer's player named in ``t``'s language: the name
    a new game gives it is stored in English; a name the players typed stays as they typed it."""
    opponent = opponent_of(game["opponent"]) if game.get("opponent") else None
    if opponent is None or t.lang == "en":
        return game
    side = opponent.colour.value
    if game.get(side) != opponent.name:
        return game
    return {**game, side: computer_name(t, opponent)}


#: The computer's failures as the opponent words them (``game.opponent.Thinker``), matched whole.
_FAILED_SEARCH = re.compile(r"the computer could not choose a move \((\w+)\)")


def computer_error(t: Text, error: str | None) -> str | None:
    """Why the computer has no move (``ComputerTurn.error``) in ``t``'s language; unknown words as they are."""
    if error is None or t.lang == "en":
        return error
    known = {
        "the computer found no move": t.gettext("the computer found no move"),
        "the computer gave no usable move": t.gettext("the computer gave no usable move"),
        "the computer's worker process stopped; start a new game or restart to try again": t.gettext(
            "the computer's worker process stopped; start a new game or restart to try again"),
    }
    if error in known:
        return known[error]
    failed = _FAILED_SEARCH.fullmatch(error)
    if failed:
        return t.gettext("the computer could not choose a move (%(error)s)", error=failed.group(1))
    return error


def grouped_banner(t: Text, kind: str, cells: list[str]) -> str:
    """One banner for several flagged cells of one kind: what to do, the cells listed together."""
    n, where = len(cells), ", ".join(cells)
    match kind:
        case "illegal-piece":
            text = t.ngettext("Take the illegal piece off %(cells)s", "Take the %(num)d illegal pieces off %(cells)s",
                              n, cells=where)
        case "rejected-piece":
            text = t.ngettext("Take the piece that was not a move off %(cells)s",
                              "Take the %(num)d pieces that were not moves off %(cells)s", n, cells=where)
        case "lifted":
            text = t.ngettext("Put the missing piece back on %(cells)s",
                              "Put the %(num)d missing pieces back on %(cells)s", n, cells=where)
        case "moved":
            text = t.ngettext("Put the turned or swapped piece back as it was on %(cells)s",
                              "Put the %(num)d turned or swapped pieces back as they were on %(cells)s", n, cells=where)
        case "unexplained":
            text = t.ngettext("Take the piece that appeared off %(cells)s",
                              "Take the %(num)d pieces that appeared at once off %(cells)s, and lay them one at a time",
                              n, cells=where)
        case "undone":
            text = t.ngettext("Take the piece whose move was taken back off %(cells)s",
                              "Take the %(num)d pieces whose moves were taken back off %(cells)s", n, cells=where)
        case "differs":
            text = t.ngettext("The stored game does not have the piece on %(cells)s: take it off (lay it again if it "
                              "was a move)", "The stored game does not have the %(num)d pieces on %(cells)s: take them "
                              "off (lay again any that was a move)", n, cells=where)
        case "held":
            text = t.ngettext("The new piece on %(cells)s waits until the board is put right",
                              "The %(num)d new pieces on %(cells)s wait until the board is put right", n, cells=where)
        case _:
            text = t.gettext("Can't read %(cells)s: clear anything covering them or check the light", cells=where)
    return text


def unreadable_banner(t: Text, cells: list[tuple[str | None, str, str]]) -> str:
    """One banner for several unreadable cells, ``(cause or None, cell, the flag's words)`` each: the cells of
    one cause together, each cause with its own advice, in the order the causes first appear. A cause over many cells
    (a dark board: 57 cells in shadow) names its first few and counts the rest (``cell_list``): the board marks every
    one, and a list of 57 names would push the other banners off a 7-inch screen's flags."""
    by_cause: dict[str | None, list[tuple[str, str]]] = {}
    for cause, cell, message in cells:
        by_cause.setdefault(cause, []).append((cell, message))
    parts = []
    for cause, members in by_cause.items():
        if len(members) == 1:
            parts.append(members[0][1])
            continue
        where = cell_list(t, [cell for cell, _ in members])
        match cause:
            case "hand":
                parts.append(t.gettext("something covers %(cells)s: take hands and objects off the board", cells=where))
            case "glare":
                parts.append(t.gettext("glare on %(cells)s: tilt the lamp or the board", cells=where))
            case "shadow":
                parts.append(t.gettext("%(cells)s are in shadow: move what casts it or add light", cells=where))
            case "motion":
                parts.append(t.gettext("%(cells)s are smeared, the camera moved: hold the table still", cells=where))
            case "focus":
                parts.append(t.gettext("%(cells)s are blurred: focus the camera on the board", cells=where))
            case "small":
                parts.append(t.gettext("%(cells)s are too small in the picture: lower the camera or raise its "
                                       "resolution", cells=where))
            case "unsteady":
                parts.append(t.gettext("%(cells)s read differently from frame to frame: keep hands and shadows off "
                                       "them", cells=where))
            case "unclear":
                parts.append(t.gettext("%(cells)s look like neither empty cells nor whole tiles: lay their tiles "
                                       "flat or clear what is on them", cells=where))
            case _:
                parts.append(t.gettext("Can't read %(cells)s: clear anything covering them or check the light",
                                       cells=where))
    return t.clauses([part[:1].upper() + part[1:] for part in parts])


def worded_notice(t: Text, kind: str) -> str:
    """A notice of the loop reworded for the display so that it says what to do (``hand``)."""
    return t.gettext("Take your hand (or whatever lies there) off the board: the camera cannot see it")


def clear_board_banner(t: Text, cells: list[str]) -> str:
    """A new game with pieces still lying on the board: one instruction, whatever the flags' kinds."""
    return t.ngettext("Clear the board: a piece is still on it (%(cells)s)",
                      "Clear the board: %(num)d pieces are still on it (%(cells)s)", len(cells), cells=", ".join(cells))


def done_text(t: Text, done: Done) -> str:
    """What a control action did, in ``t``'s language, as a sentence."""
    said = say(t, done.why) if done.why is not None else done.message
    return said[:1].upper() + said[1:]


def refusal_text(t: Text, err: ControlError) -> str:
    """Why a control action cannot be done now, in ``t``'s language, as a sentence."""
    said = say(t, err.why) if err.why is not None else str(err)
    return said[:1].upper() + said[1:]


__all__ = ["clear_board_banner", "computer_error", "computer_name", "done_text", "game_names", "grouped_banner",
           "instruction_words", "notice_text", "reason_text", "refusal_text", "worded_notice"]

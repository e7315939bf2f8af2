"""The live game: its stored row and log, the watcher and table looking at the board, the computer
opponent, the notices shown beside the table's flags, and the control actions (new game, undo, correct).

A ``Session`` is not locked itself: the companion (``game.loop``) calls every method with its lock held,
from the camera thread (``handle``) and from request threads (the control actions). Every verdict is
committed to the store before the session shows it; a verdict that cannot be stored is not shown, and
the game goes back to what is stored.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from thoughtwave.engine import Cell, Colour, Move, NotationError, Outcome, Piece, Referee, Rules, Verdict
from thoughtwave.engine.analysis import Analysis, analyse, analyse_game
from thoughtwave.engine.phrases import Phrase, said_as
from thoughtwave.engine.table import Table
from thoughtwave.game.dbcheck import storage_failure
from thoughtwave.game.log import GameLog
from thoughtwave.game.opponent import InstructedTable, Opponent, Thinker, opponent_of, position_key
from thoughtwave.game.seams import MakeWatcher, Watch
from thoughtwave.game.snapshot import ComputerTurn, Notice
from thoughtwave.game.store import GameRow, Store
from thoughtwave.vision.events import (
    BoardChange,
    BoardSeen,
    Cleared,
    Event,
    Flagged,
    HandOver,
    Ruled,
    SourceWarning,
    Unreadable,
    from_table,
)

log = logging.getLogger(__name__)

HAND_MESSAGE = "a hand (or something) has been over the board for a while: please clear the board"
#: The board events that stand as a notice until the board is found again.
BOARD_NOTICES = (BoardChange.LOST, BoardChange.MOVED)


class ControlError(Exception):
    """A control action that cannot be done now; the message says why, for the player (``why``: the same as a
    phrase, for a display in another language)."""

    def __init__(self, message: str, why: Phrase | None = None) -> None:
        super().__init__(message)
        self.why = why


def refused(code: str, english: str, **values: object) -> ControlError:
    """A ControlError worded ``english``, with its phrase."""
    return ControlError(english, Phrase.of(code, english, **values))


#: What a control action did: ``APPLIED`` (the game changed), ``REJECTED`` (the referee refused it, the
#: game stands as it was or with a refused attempt), ``WAITING`` (the board must show it first: the
#: outcome comes later as a verdict on ``cell``).
APPLIED, REJECTED, WAITING = "applied", "rejected", "waiting"


@dataclass(frozen=True)
class Done:
    """The outcome of a control action for the player: ``status`` (APPLIED, REJECTED or WAITING), a whole
    sentence saying what happened, and the cell it concerns (for WAITING: the cell whose verdict to await)."""

    status: str
    message: str
    cell: str | None = None
    why: Phrase | None = None     # ``message`` as a phrase, for a display in another language

    def to_json(self) -> dict:
        return {"status": self.status, "message": self.message, "cell": self.cell}


def piece_words(colour: Colour | None, piece: Piece | None) -> str:
    """``"Red's bend (ne)"``, for sentences about a piece."""
    if piece is None:
        return "nothing"
    owner = f"{colour.title}'s" if colour else "a"
    return f"{owner} {piece.kind.value} ({piece})"


def verdict_words(verdict: Verdict) -> str:
    """What the referee said about one attempt, as a sentence for the player."""
    return str(verdict_phrase(verdict))


def verdict_phrase(verdict: Verdict) -> Phrase:
    """``verdict_words`` as a phrase: ``who`` is (colour, piece) or the move as typed, ``cell`` may be None."""
    who = piece_words(verdict.colour, verdict.piece) if verdict.piece else verdict.move
    where = f" on {verdict.cell}" if verdict.cell else ""
    values = {"who": (verdict.colour, verdict.piece) if verdict.piece and verdict.colour else verdict.move,
              "cell": str(verdict.cell) if verdict.cell else None, "reason": verdict.why}
    if verdict.outcome is Outcome.LEGAL:
        return Phrase.of("done-legal", f"{who}{where} counts: a legal move.", **values)
    if verdict.outcome is Outcome.ILLEGAL:
        return Phrase.of("done-illegal", f"{who}{where} is an illegal placement ({verdict.reason}); the penalty "
                         "applies.", **values)
    return Phrase.of("done-refused", f"The referee refused {who}{where}: {verdict.reason}.", **values)


def done(status: str, at: str | None, code: str, english: str, **values: object) -> Done:
    """A Done about the cell ``at`` (or None) worded ``english``, with its phrase."""
    return Done(status, english, at, Phrase.of(code, english, **values))


class AnalysisTrack:
    """The analysis of every position of a game (the chart), kept in step with the referee: a new verdict
    costs one ``analyse``, an undo drops positions, anything else replays the game."""

    def __init__(self) -> None:
        self._positions: list[Analysis] = []
        self._standing: list[tuple] = []

    def update(self, referee: Referee) -> tuple[Analysis, ...]:
        """One ``Analysis`` per position so far, the first before any move."""
        standing = [(v.n, v.colour, v.move, v.outcome) for v in referee.verdicts if v.outcome is not Outcome.REJECTED]
        have, positions = self._standing, self._positions
        same = 0
        while same < min(len(have), len(standing)) and have[same] == standing[same]:
            same += 1
        if positions and same == len(have) == len(standing):
            pass
        elif positions and same == len(have) and len(standing) == same + 1:
            positions.append(replace(analyse(referee), n=standing[-1][0]))
        elif positions and same == len(standing):
            del positions[same + 1:]          # taken back: the earlier positions are as they were
        else:
            self._positions = positions = analyse_game(referee)
        self._standing = standing
        return tuple(positions)

    def forget(self) -> None:
        self._positions, self._standing = [], []


class Session:
    """The game being played. ``make_watcher`` makes the watcher for each table the session sets up;
    ``thinker`` runs the computer opponent's searches; ``wall`` is the clock verdict times are read from."""

    def __init__(self, store: Store, default_rules: Rules, make_watcher: MakeWatcher, thinker: Thinker, *,
                 hand_warning_seconds: float = 10.0, auto_new_game: bool = True,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.default_rules = default_rules
        self.thinker = thinker
        self.hand_warning_seconds = hand_warning_seconds
        self.auto_new_game = auto_new_game
        self._make_watcher = make_watcher
        self._wall = wall
        self.board_notices: dict[str, Notice] = {}   # by kind: board lost or moved, a hand for too long
        self.storage_error: str | None = None
        self.seen = 0.0                 # wall time the frame behind the last verdict was read
        self.decided = 0.0              # wall time that verdict was decided
        self.frame_t: float | None = None
        # Corrections of cells the camera keeps misreading, for the new table once it has looked.
        self._truths: dict[Cell, tuple[Colour, Piece] | None] = {}
        self.analysis = AnalysisTrack()
        self.opponent: Opponent | None = None
        self._load_latest()

    # ---- games --------------------------------------------------------------------------------------
    def _load_latest(self) -> None:
        game = self.store.latest_game()
        if game is None or (game.ended and game.result == "ongoing"):
            game = self._create_game(self.default_rules, "", "")
        # A game with moves is being resumed: the table checks the board against it before ruling.
        self._start_game(game, resumed=bool(self.store.actions(game.id)))

    def _create_game(self, rules: Rules, red: str, black: str, opponent: Opponent | None = None,
                     ending: GameRow | None = None) -> GameRow:
        """Store a new game; with ``ending``, end that game in the same transaction (both or neither:
        a failure, StorageError, leaves ``ending`` in progress)."""
        if opponent is not None:     # the computer's side is named for the display and the records
            if opponent.colour is Colour.RED:
                red = red or opponent.name
            else:
                black = black or opponent.name
        opponent_json = opponent.to_json() if opponent else None
        if ending is None:
            game_id = self.store.new_game(rules, red, black, opponent_json)
        else:
            game_id = self.store.replace_game(ending.id, self.log.referee.result, rules, red, black, opponent_json)
        row = self.store.game(game_id)
        assert row is not None
        return row

    def _start_game(self, game: GameRow, resumed: bool) -> None:
        self.game = game
        self.log = GameLog.replay(game.rules, self.store.actions(game.id))
        self.opponent = opponent_of(game.opponent)
        self.thinker.forget()        # a restart or another game: the computer thinks again
        self.analysis.forget()
        # A restarted or changed game: the table checks the board against the stored game.
        self.watcher = self._new_watcher(resumed)
        self._truths = {}

    def _new_watcher(self, resumed: bool) -> Watch:
        """A watcher over a new table for the game; against the computer, the table accepts the computer's
        colour only as instructed."""
        referee = self.log.referee
        if self.opponent is None:
            table = Table(referee, resumed=resumed)
        else:
            table = InstructedTable(referee, resumed, self.opponent.colour, self._told)
        return self._make_watcher(table)

    def use_watchers(self, make_watcher: MakeWatcher) -> None:
        """Watch with watchers from ``make_watcher`` from now on; the game goes on, checked by a new table."""
        self._make_watcher = make_watcher
        self.watcher = self._new_watcher(True)

    def new_game(self, rules: Rules, red: str, black: str, resumed: bool, opponent: Opponent | None) -> None:
        """End the game as it stands and start another, in one transaction: on StorageError nothing changed.
        A storage problem shown for the game that ends is cleared with it."""
        self._start_game(self._create_game(rules, red, black, opponent, ending=self.game), resumed=resumed)
        self.storage_error = None

    def _next_game(self) -> None:
        """The board was cleared after a finished game: start the next with the same rules, players and
        opponent. When it cannot be stored (disk full, read-only) the camera thread goes on with this game,
        logs one line and shows the problem like any storage error."""
        try:
            self.new_game(self.game.rules, self.game.red, self.game.black, resumed=False, opponent=self.opponent)
        except Exception as err:  # StorageError, OSError: nothing changed (one transaction)
            why = storage_failure(err, self.store.path)
            log.warning("could not start the next game after game %s: %s", self.game.id, why)
            self.storage_error = (f"could not start the next game ({why}); game {self.game.id} stays on the "
                                  "display: start a new game on the control page")

    @property
    def ended(self) -> bool:
        """Whether the game was ended by hand before it was over (abandoned): nothing more is ruled."""
        return self.game.ended is not None and not self.log.referee.over

    def end(self) -> Done:
        """End the game as it stands, without starting another: the board is no longer ruled on, and the next
        game starts when the board is cleared (or a new game is asked for)."""
        if self.game.ended:
            raise refused("already-ended", f"Game {self.game.id} has already ended.", game=self.game.id)
        referee = self.log.referee
        self.store.set_result(self.game.id, referee.result, ended=True)
        self.game = self.store.game(self.game.id) or self.game
        if not referee.over:
            # The camera still looks (to see the board cleared), but its rulings go to a copy, never counted.
            self.watcher = self._make_watcher(Table(copy.deepcopy(referee), resumed=True))
        moves = sum(1 for v in referee.verdicts if v.outcome is not Outcome.REJECTED)
        if moves == 1:
            return done(APPLIED, None, "ended", f"Game {self.game.id} has ended after 1 move, with no winner. Clear "
                        "the board to start the next game, or start a new one below.", game=self.game.id, moves=1)
        return done(APPLIED, None, "ended", f"Game {self.game.id} has ended after {moves} moves, with no winner. Clear "
                    "the board to start the next game, or start a new one below.", game=self.game.id, moves=moves)

    def sync_result(self) -> None:
        referee = self.log.referee
        self.store.set_result(self.game.id, referee.result, ended=referee.over)
        self.game = self.store.game(self.game.id) or self.game

    # ---- what the watcher saw ------------------------------------------------------------------------
    def handle(self, events: list[Event], seen: float, frame_t: float | None = None) -> bool:
        """Store the verdicts (committed before anything is shown) and keep the notices; True if the
        display must change."""
        changed = False
        for event in events:
            match event:
                case Ruled() if self.ended:
                    pass                    # an ended game: the copy the table rules on is not the game
                case Ruled(verdict=verdict):
                    changed = True
                    if not self._store(verdict.colour, verdict.move, verdict.outcome, verdict.reason,
                                       bool(verdict.winner or verdict.draw)):
                        return True
                    self.seen, self.decided, self.frame_t = seen, self._wall(), frame_t
                case BoardSeen(change=BoardChange.LOST | BoardChange.MOVED as change, message=message):
                    # (A lost board's words may say why, as a phrase the display says in the players' language.)
                    self.board_notices[change.value] = Notice(change.value, None, message, said_as(message))
                    changed = True
                case BoardSeen(change=BoardChange.FOUND):
                    for change in BOARD_NOTICES:
                        self.board_notices.pop(change.value, None)
                    changed = True
                case BoardSeen(change=BoardChange.EMPTY):
                    if (self.log.referee.over or self.ended) and self.auto_new_game:
                        self._next_game()
                    changed = True
                case Flagged() | Unreadable() | Cleared():
                    changed = True          # shown from the table's own flags
                case HandOver() | SourceWarning():
                    pass                    # a hand is shown once it has stayed too long (hand_tick)
        return changed

    def _store(self, colour: Colour | None, move: str, outcome: Outcome, reason: str | None, decisive: bool) -> bool:
        name = colour.value if colour else None
        try:
            self.store.add_attempt(self.game.id, name, move, outcome.value, reason)
            self.log.observed(name, move, outcome.value)
            if decisive or self.game.ended:
                self.sync_result()
            self.storage_error = None
            return True
        except Exception as err:  # disk full, file gone: show nothing unsaved, go back to what is stored
            log.exception("could not store %s %s", name, move)
            self.storage_error = (f"could not save the game ({storage_failure(err, self.store.path)}); "
                                  "the last move was not counted")
            self._start_game(self.game, resumed=True)
            return False

    def apply_truths(self, seen: float) -> bool:
        """Once the table flags a corrected cell (the camera still reads it the old way), tell it the truth."""
        table = self.watcher.table
        changed = False
        for cell, truth in list(self._truths.items()):
            if cell in table.flags:
                del self._truths[cell]
                changed |= self.handle([from_table(e) for e in table.correct(cell, truth)], seen)
        return changed

    def hand_tick(self) -> bool:
        """Show (or drop) the notice of a hand left over the board; True if it changed."""
        showing = "hand" in self.board_notices
        due = self.watcher.hand_seconds >= self.hand_warning_seconds
        if due and not showing:
            self.board_notices["hand"] = Notice("hand", None, HAND_MESSAGE)
            return True
        if showing and not due:
            del self.board_notices["hand"]
            return True
        return False

    def notices(self) -> list[Notice]:
        """The table's flags, then the board notices (the loop puts its own camera and storage ones first)."""
        flags = [Notice(f.kind.value, f.cell, f.message, f.why) for f in self.watcher.table.flags.values()]
        return flags + list(self.board_notices.values())

    # ---- the computer opponent -------------------------------------------------------------------------
    def _told(self) -> Move | None:
        """The computer's instructed move for the position now, once it has chosen."""
        told = self.thinker.instruction(position_key(self.game.id, self.log.referee))
        return told.move if told else None

    def position(self) -> tuple:
        return position_key(self.game.id, self.log.referee)

    def think(self, answered: Callable, stopping: bool) -> None:
        """When the computer is to move, have it search this position in the background."""
        opponent, referee = self.opponent, self.log.referee
        if opponent is None or referee.over or referee.to_move is not opponent.colour or stopping:
            return
        self.thinker.think(self.position(), referee, opponent, answered)

    def computer_turn(self) -> ComputerTurn | None:
        opponent = self.opponent
        if opponent is None:
            return None
        referee = self.log.referee
        to_move = not referee.over and referee.to_move is opponent.colour
        told = self.thinker.instruction(self.position()) if to_move else None
        error = self.thinker.error if to_move and told is None else None
        return ComputerTurn(opponent, to_move, told, error)

    # ---- control -----------------------------------------------------------------------------------------
    def _playing(self) -> None:
        if self.ended:
            raise refused("ended-start-new", f"Game {self.game.id} has ended: start a new game first.",
                          game=self.game.id)

    def undo(self) -> Done:
        """Take back the last legal or illegal verdict (its piece must come off the board)."""
        self._playing()
        last = next((v for v in reversed(self.log.referee.verdicts) if v.outcome is not Outcome.REJECTED), None)
        if last is None or not any(e.outcome is not Outcome.REJECTED for e in self.log.entries):
            raise refused("nothing-to-take-back", "There is no move to take back yet.")
        self.store.add_undo(self.game.id)
        table = self.watcher.table
        if table.referee is self.log.referee:
            self.log.undo(apply=False)
            table.undo()
        else:   # the table rules on another referee (never expected): replay, and look at the board again
            self.log.undo()
            self.watcher = self._new_watcher(True)
        self.sync_result()
        who = piece_words(last.colour, last.piece) if last.piece else last.move
        where = f" on {last.cell}" if last.cell else ""
        lift = f" Take that piece off {last.cell}." if last.cell and last.outcome is Outcome.LEGAL else ""
        return done(APPLIED, str(last.cell) if last.cell else None, "took-back",
                    f"Took back move {last.n}: {who}{where}.{lift}", n=last.n,
                    who=(last.colour, last.piece) if last.piece and last.colour else last.move,
                    cell=str(last.cell) if last.cell else None, lift=bool(lift))

    def correct(self, cell: str, colour: str | None, piece: str | None, seen: float) -> Done:
        """The camera misread ``cell``: it really holds ``colour piece`` (piece None: nothing). The outcome:
        applied (the game record changed), rejected (the referee refused it) or waiting (the table now
        knows the truth and rules on it once the board is steady)."""
        self._playing()
        try:
            target = Cell.parse(cell)
            shown_piece = Piece.parse(piece) if piece else None
            shown_colour = Colour.parse(colour) if colour else None
        except NotationError as err:
            raise ControlError(f"{err}.") from None
        if shown_piece and not shown_colour:
            raise refused("say-whose", "Say whose piece it is: red or black.")
        truth = (shown_colour, shown_piece) if shown_piece and shown_colour else None
        standing = any(e.outcome is not Outcome.REJECTED and e.move.endswith(f"@{target}") for e in self.log.entries)
        if not standing:
            # Not yet ruled on: let the table see the truth and rule on it like any placement.
            before = len(self.log.referee.verdicts)
            events = self.watcher.table.correct(target, truth)
            self.handle([from_table(e) for e in events], seen)
            ruled = [v for v in self.log.referee.verdicts[before:] if v.cell == target]
            if ruled:
                status = REJECTED if ruled[-1].outcome is Outcome.REJECTED else APPLIED
                return Done(status, verdict_words(ruled[-1]), str(target), verdict_phrase(ruled[-1]))
            if events:
                return done(WAITING, str(target), "taken-as",
                            f"{target} is taken as {piece_words(shown_colour, shown_piece)}; the referee rules on it "
                            "once the board is in order.", cell=str(target),
                            what=(shown_colour, shown_piece) if shown_piece and shown_colour else None)
            if shown_piece is None:
                raise refused("nothing-to-take-away", f"The game has nothing on {target} to take away.",
                              cell=str(target))
        name = shown_colour.value if shown_colour else None
        text = str(shown_piece) if shown_piece else None
        # Tried on a copy first: a correction the referee would refuse is not written into the game.
        trial = copy.deepcopy(self.log)
        trial.correct(str(target), name, text)
        verdicts = trial.referee.verdicts
        now = next((v for v in reversed(verdicts) if v.cell == target or v.move.endswith(f"@{target}")), None)
        if not standing and verdicts and now is None:
            now = verdicts[-1]        # the appended attempt, refused before its cell was read
        if shown_piece is not None and (now is None or now.outcome is Outcome.REJECTED):
            reason = now.reason if now and now.reason else "it is not a move"
            raise refused("would-not-accept", f"The referee would not accept {piece_words(shown_colour, shown_piece)} "
                          f"on {target}: {reason}.", what=(shown_colour, shown_piece), cell=str(target),
                          reason=now.why if now and now.reason else None)
        self.store.add_correction(self.game.id, str(target), name, text)
        self.log.correct(str(target), name, text)
        self.watcher = self._new_watcher(True)
        self._truths[target] = truth
        self.sync_result()
        if shown_piece is None:
            return done(APPLIED, str(target), "took-out", f"Took the piece on {target} out of the game; the moves "
                        "after it were ruled again.", cell=str(target))
        assert now is not None
        return done(APPLIED, str(target), "corrected", f"Corrected {target}: {verdict_words(now)}", cell=str(target),
                    verdict=verdict_phrase(now))

"""The stabiliser: from a stream of per-frame readings to the few steady views of the board worth refereeing.

A view is accepted only when the board is found, nothing covers it and nothing in the picture has
moved for ``stable_seconds``. Hands, shadows, a passing arm or a lamp switched on therefore produce
no change at all; they only show in ``status`` while they last.

Two witnesses of a disturbance are used, because either alone misses cases:

* the reading: several cells the reader marks occluded, or many cells turning unreadable at once;
* a small grey signature of the (warped) board: any motion between frames, or drift away from the
  picture at the start of the quiet spell. The signature is normalised to zero mean and unit
  spread first, so a lamp switched on (a global change of brightness and contrast) does not read
  as a change, though a shadow sweeping across does, while it moves.

Within a quiet spell each cell is decided by its readable votes (a frame where the reader could not
read the cell is no vote, a frame where it read something else is a vote against): a cell read one way
is that content; a cell that is never read, or read in contradicting ways, is reported unreadable (the
table ignores it and the display says "can't read E5"), never guessed empty.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.vision.causes import Cause
from thoughtwave.vision.reading import BoardReading, CellReading, CellState
from thoughtwave.vision.tiles import LIGHT_ONLY_EMPTY

#: What a cell says, confidence aside, as one small integer: 0 empty, 1 unreadable, then tiles.
_EMPTY, _UNREADABLE = 0, 1
_NOT_READ = CellReading.unreadable()
#: An empty reading less sure than this does not take a tile off: the tile reader's confidence in paper told by the
#: shape of its light alone, which a hand of pale skin or a grey sleeve over tiles can show (on tuning seed 7, 19 of the
#: 26 tiles under a hand read empty were, and 3% of the visible empty cells).
GONE_CONFIDENCE_MIN = LIGHT_ONLY_EMPTY + 0.05
#: The board counts as covered when the reader marks at least this many cells occluded (``Stabiliser``'s default).
OCCLUDED_MIN = 3


def _codes(reading: BoardReading) -> np.ndarray:
    """The code of every cell, in board order."""
    cells = reading.cells
    return np.fromiter((_code(cells.get(c, _NOT_READ)) for c in CELLS), np.int16, len(CELLS))


def _unsure_empty(reading: BoardReading) -> np.ndarray:
    """Which cells are read empty with a confidence under ``GONE_CONFIDENCE_MIN``."""
    cells = reading.cells
    return np.fromiter(((r := cells.get(c, _NOT_READ)).state is CellState.EMPTY and r.confidence < GONE_CONFIDENCE_MIN
                        for c in CELLS), bool, len(CELLS))


def covered_alone(reading: BoardReading, occluded_min: int = OCCLUDED_MIN) -> bool:
    """Whether ``reading`` by itself shows the board covered, so that a ``Stabiliser`` sets the frame aside whatever
    came before it: the reader marks at least ``occluded_min`` cells occluded, or judges the board covered without
    naming cells. (A frame with many more cells unreadable than the last steady view is set aside too, for a while:
    that depends on the frames before it.)"""
    return len(reading.occluded_cells) >= occluded_min or (reading.occluded and not reading.occluded_cells)


def _code(reading: CellReading) -> int:
    if reading.state is CellState.TILE:
        return 2 + (16 if reading.colour is Colour.BLACK else 0) + reading.piece.arms
    return _EMPTY if reading.state is CellState.EMPTY else _UNREADABLE


NO_BOARD = "no board"
HAND = "hand over the board"
SETTLING = "settling"
STEADY = "steady"

SIGNATURE_SIZE = 40
#: Seconds the board must hold still before a change counts (``[vision] stable_seconds``'s default).
STABLE_SECONDS = 0.4
_EPS = 1e-6   # frame times are sums of 1/fps: 3.4 - 3.0 must count as 0.4 seconds


def board_signature(warped: np.ndarray, size: int = SIGNATURE_SIZE) -> np.ndarray:
    """A ``size`` x ``size`` grey thumbnail of a (warped) board image, the stabiliser's motion witness."""
    if warped.ndim == 3:
        grey = cv2.cvtColor(warped, cv2.COLOR_BGRA2GRAY if warped.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
    else:
        grey = warped
    return cv2.resize(grey, (size, size), interpolation=cv2.INTER_AREA)


def _normalised(signature: np.ndarray) -> np.ndarray:
    """Zero mean, unit spread: a global change of brightness or contrast leaves it unchanged."""
    s = signature.astype(np.float32)
    s -= s.mean()
    spread = float(s.std())
    return s / spread if spread > 1.0 else s   # a blank (black) picture has no spread to divide by


@dataclass(frozen=True)
class StableBoard:
    """A steady view of the board: every cell's reading and which cells differ from the previous view.

    The first view is compared with an empty board (a game starts on one). ``causes`` says why an
    unreadable cell is (``vision.causes``): what the frames showed, or ``UNSTEADY`` when they read it
    in different ways.
    """

    t: float
    cells: dict[Cell, CellReading]
    changed: frozenset[Cell]
    causes: dict[Cell, Cause] = field(default_factory=dict)

    def seen(self) -> dict[Cell, tuple[Colour, Piece] | None]:
        """Every readable cell -> (colour, piece) or None when empty: what ``Table.observe`` takes."""
        return {
            cell: (r.colour, r.piece) if r.state is CellState.TILE else None
            for cell, r in self.cells.items() if r.state is not CellState.UNREADABLE
        }

    def is_empty(self) -> bool:
        """Whether every cell is read as empty (none unreadable)."""
        return all(r.state is CellState.EMPTY for r in self.cells.values())

    def unreadable(self) -> list[Cell]:
        """The cells the camera cannot read, in board order."""
        return [c for c in CELLS if self.cells[c].state is CellState.UNREADABLE]


class Stabiliser:
    """Turns per-frame ``BoardReading``s into ``StableBoard``s; ``feed`` each frame in time order.

    ``motion_threshold`` is the mean absolute difference of normalised signatures (in units of the
    picture's spread) above which the picture is moving. The board counts as covered when the reader
    marks at least ``occluded_min`` cells occluded (fewer are only unreadable: a hand covers many), or
    when ``many_unreadable`` more cells than in the last steady view are unreadable (for at most
    ``blind_patience`` seconds, after which they are just unreadable). While that many more cells are unreadable than
    in the last view seen clearly, no tile of that view is taken as gone: a hand of pale skin reads as paper. Nor is
    a tile taken off by an empty reading under ``GONE_CONFIDENCE_MIN`` (paper by its light alone, not clean paper).

    A cell is decided by the frames of the current quiet spell (the last ``window_seconds`` of it): an
    unreadable frame is no vote; the readable votes must agree (``agreement`` share) and number at
    least 2 and ``min_share`` of the frames. An undecided cell keeps its last steady content for up to
    ``unreadable_seconds`` while it still sometimes reads that way; otherwise it is unreadable.
    """

    def __init__(self, stable_seconds: float = STABLE_SECONDS, unreadable_seconds: float | None = None,
                 motion_threshold: float = 0.15, many_unreadable: int = 4, agreement: float = 0.8,
                 blind_patience: float = 8.0, occluded_min: int = OCCLUDED_MIN, window_seconds: float | None = None,
                 min_share: float = 0.2) -> None:
        if stable_seconds <= 0:
            raise ValueError("stable_seconds must be positive")
        self.stable_seconds = stable_seconds
        self.unreadable_seconds = unreadable_seconds if unreadable_seconds is not None else 3 * stable_seconds
        self.window_seconds = max(stable_seconds, window_seconds if window_seconds is not None else 1.5)
        self.motion_threshold = motion_threshold
        self.many_unreadable = many_unreadable
        self.agreement = agreement
        self.min_share = min_share
        self.blind_patience = blind_patience
        self.occluded_min = occluded_min
        self.status = NO_BOARD
        self.accepted: StableBoard | None = None
        self._accepted_codes: np.ndarray | None = None
        self._clear_codes: np.ndarray | None = None     # the last view accepted while not many cells were unreadable
        self._known_codes: np.ndarray | None = None     # each cell as the last view that read it had it
        self._quiet_since: float | None = None
        self._window: deque[tuple[float, np.ndarray, BoardReading]] = deque()
        self._previous_signature: np.ndarray | None = None
        self._quiet_signature: np.ndarray | None = None
        self._hand_since: float | None = None
        self._undecided_since: dict[Cell, float] = {}
        self._blind_since: float | None = None
        self._t = 0.0

    @property
    def hand_seconds(self) -> float:
        """How long something has been covering the board (0 when nothing is)."""
        return 0.0 if self._hand_since is None else self._t - self._hand_since

    def feed(self, t: float, reading: BoardReading, image_signature: np.ndarray | None = None) -> StableBoard | None:
        """Take one frame's reading (and signature, see ``board_signature``); the newly accepted view
        when the board has just become steady in a state that differs from the last one, else None."""
        if t < self._t:             # the clock went back (a restarted source): start the quiet spell again
            self._disturbed(SETTLING)
            self._hand_since = self._blind_since = None
        self._t = t
        if not reading.board_found:
            self._disturbed(NO_BOARD)
            self._hand_since = None
            self._previous_signature = None
            return None
        codes = _codes(reading)
        for cell in reading.occluded_cells:      # whatever the reader says of a covered cell, it is unread
            codes[cell.index] = _UNREADABLE
        if self._covered(t, reading, codes):
            if self._hand_since is None:
                self._hand_since = t
            self._disturbed(HAND)
            self._previous_signature = self._normalise(image_signature)
            return None
        self._hand_since = None
        if self._blinder(codes):
            # Many cells unreadable for longer than ``blind_patience``: something may still cover the board, and a
            # hand of pale skin reads as empty paper between the cells it leaves unreadable. No tile of the last view
            # seen clearly is taken as gone then (once the cells read again, one taken off is seen gone).
            codes[(self._clear_codes > _UNREADABLE) & (codes == _EMPTY)] = _UNREADABLE
        if self._known_codes is not None and (gone := (self._known_codes > _UNREADABLE) & (codes == _EMPTY)).any():
            # An empty reading by the shape of its light alone (paper-pale skin, a grey sleeve) does not take a tile
            # off that a view last read there: only clean paper does. (Most frames read no known tile empty.)
            codes[gone & _unsure_empty(reading)] = _UNREADABLE
        signature = self._normalise(image_signature)
        if self._moving(signature):
            self._disturbed(SETTLING)
            self._previous_signature = signature
            return None
        self._previous_signature = signature
        if self._quiet_since is None:
            self._quiet_since, self._quiet_signature = t, signature
        self._window.append((t, codes, reading))
        while self._window and self._window[0][0] < t - self.window_seconds - _EPS:
            self._window.popleft()
        if t - self._quiet_since < self.stable_seconds - _EPS:
            self.status = SETTLING
            return None
        self.status = STEADY
        return self._decide(t)

    def unsettle(self) -> None:
        """Start a new quiet spell, as after motion (the board was bumped: wait before trusting it again)."""
        self._disturbed(SETTLING)
        self._previous_signature = None

    # ---- witnesses -----------------------------------------------------------------------------
    def _covered(self, t: float, reading: BoardReading, codes: np.ndarray) -> bool:
        if covered_alone(reading, self.occluded_min):
            return True
        before = int((self._accepted_codes == _UNREADABLE).sum()) if self._accepted_codes is not None else 0
        if int((codes == _UNREADABLE).sum()) - before < self.many_unreadable:
            self._blind_since = None
            return False
        # Many cells unreadable with no occlusion reported: a hand at first, but if it lasts
        # (the lamp went off, the camera fogged) those cells are simply unreadable.
        if self._blind_since is None:
            self._blind_since = t
        return t - self._blind_since < self.blind_patience - _EPS

    def _normalise(self, signature: np.ndarray | None) -> np.ndarray | None:
        return None if signature is None else _normalised(signature)

    def _moving(self, signature: np.ndarray | None) -> bool:
        if signature is None:
            return False
        for reference in (self._previous_signature, self._quiet_signature):
            if (reference is not None and reference.shape == signature.shape
                    and float(np.abs(signature - reference).mean()) > self.motion_threshold):
                return True
        return False

    def _disturbed(self, status: str) -> None:
        self.status = status
        self._quiet_since = None
        self._undecided_since.clear()
        self._quiet_signature = None
        self._window.clear()

    # ---- deciding ------------------------------------------------------------------------------
    def _decide(self, t: float) -> StableBoard | None:
        """Each cell by the readable votes of the quiet spell; a new StableBoard when any decision changed."""
        codes = np.stack([c for _, c, _ in self._window])                        # frames x cells
        if (self._accepted_codes is not None and not self._undecided_since
                and bool((codes == self._accepted_codes).all())):
            return None                     # the usual case: every recent frame agrees with the accepted view
        frames, columns = codes.shape[0], np.arange(codes.shape[1])
        readable = codes != _UNREADABLE
        # for every frame and cell, how many frames agree with it (an unreadable frame is no vote)
        agree = np.where(readable, (codes[:, None, :] == codes[None, :, :]).sum(axis=1), 0)
        best = agree.argmax(axis=0)
        mode, votes = codes[best, columns], agree[best, columns]
        needed = max(2, int(np.ceil(self.min_share * frames)))
        decided = readable.any(axis=0) & (votes >= needed) & (votes >= self.agreement * readable.sum(axis=0))
        previous = self.accepted.cells if self.accepted else None
        cells: dict[Cell, CellReading] = {}
        for i, cell in enumerate(CELLS):
            if decided[i]:
                self._undecided_since.pop(cell, None)
                # the latest reading that says the decided thing, with its confidence
                j = frames - 1 - int(np.argmax(codes[::-1, i] == mode[i]))
                cells[cell] = self._window[j][2].cells.get(cell, _NOT_READ)
                continue
            since = self._undecided_since.setdefault(cell, t)
            still_seen = previous is not None and bool((codes[:, i] == self._accepted_codes[i]).any())
            if still_seen and t - since < self.unreadable_seconds - _EPS:
                cells[cell] = previous[cell]    # give a doubtful cell time before calling it unreadable
            else:
                cells[cell] = CellReading.unreadable()
        before = previous or {c: CellReading.empty() for c in CELLS}
        changed = frozenset(c for c in CELLS if not cells[c].same_content(before[c]))
        if self.accepted is not None and not changed:
            return None
        causes = {c: cause for c in CELLS if cells[c].state is CellState.UNREADABLE
                  if (cause := self._cause(c, codes[:, c.index])) is not None}
        self.accepted = StableBoard(t, cells, changed, causes)
        self._accepted_codes = np.fromiter((_code(cells[c]) for c in CELLS), np.int16, len(CELLS))
        if not self._blinder(self._accepted_codes):
            self._clear_codes = self._accepted_codes
        read = self._accepted_codes != _UNREADABLE
        self._known_codes = np.where(read, self._accepted_codes, _UNREADABLE if self._known_codes is None
                                     else self._known_codes)
        return self.accepted

    def _blinder(self, codes: np.ndarray) -> bool:
        """Whether ``many_unreadable`` more cells are unreadable in ``codes`` than in the last view seen clearly."""
        clear = self._clear_codes
        if clear is None:
            return False
        return int((codes == _UNREADABLE).sum()) - int((clear == _UNREADABLE).sum()) >= self.many_unreadable

    def _cause(self, cell: Cell, codes: np.ndarray) -> Cause | None:
        """Why ``cell`` is unreadable: the latest cause a frame of the spell showed; else, or when that said
        no more than ``UNCLEAR``, ``UNSTEADY`` if the frames read it in more than one way; else None."""
        latest = next((r.causes[cell] for _, _, r in reversed(self._window) if cell in r.causes), None)
        if latest not in (None, Cause.UNCLEAR):
            return latest
        readable = codes[codes != _UNREADABLE]
        return Cause.UNSTEADY if len(np.unique(readable)) > 1 else latest

"""The previous computer (frozen for bench/ai.py's ladder): engine/ai.py's Computer as of commit 51f14e5.

Alpha-beta over the best six moves, two plies, judged by the connection race (see that commit's
engine/ai.py docstring for the design and its trials). Kept verbatim, apart from this docstring and the
simple players it no longer needs, so that the ladder can tell whether the current computer is
stronger than what came before; nothing imports it outside bench/.
"""

from __future__ import annotations

import copy
import math
import random
import time
from dataclasses import dataclass

from thoughtwave.engine.analysis import CELL_PORT, Paths, distance, paths, placeable_count, threats
from thoughtwave.engine.board import FITS, piece_bits
from thoughtwave.engine.cells import CELLS, SIZE
from thoughtwave.engine.moves import Move
from thoughtwave.engine.pieces import Colour, Kind, Piece
from thoughtwave.engine.referee import Outcome, Referee

WIN = 1000.0
_NO_PATH = 12          # a distance of None counts as this far: a little worse than any real path
_TEMPO = 0.5           # having the move is worth half a placement in the race
_DOUBLE_THREAT = 4.0   # each winning cell beyond the first, when the opponent has the move
#: What a piece in hand is worth (times ``keep``): versatile pieces finish waves that bends cannot.
_KIND_VALUE = {Kind.TERMINATOR: 0.5, Kind.BEND: 0.5, Kind.STRAIGHT: 1.0, Kind.JUNCTION: 1.5, Kind.CROSS: 2.5}


def _hand_value(counts: dict[Kind, int]) -> float:
    return sum(_KIND_VALUE[k] * n for k, n in counts.items())


def _spare_cells(ref: Referee, maps: Paths) -> int:
    """Empty cells on some shortest connection beyond the ones a single path needs (capped at 5)."""
    d = maps.distance
    if not d:
        return 0
    arms = ref.board.arms
    a, b = maps.from_first, maps.to_second
    on_path = 0
    for i in range(SIZE * SIZE):
        if arms[i]:
            continue
        n, e, s, w = CELL_PORT[i]
        if min(a[n], a[e], a[s], a[w]) + min(b[n], b[e], b[s], b[w]) >= d:   # cannot lie on one
            continue
        if maps.through(i) == d:
            on_path += 1
    return min(on_path - d, 5)


class _OutOfBudget(Exception):
    """Raised inside the search when the time or node budget is spent."""


@dataclass(frozen=True)
class Choice:
    """The computer's answer: the move, its win estimate in [0, 1] for the mover, and search figures."""

    move: Move
    colour: Colour
    score: float
    value: float
    depth: int
    nodes: int

    def to_json(self) -> dict:
        """``{"move": "nes@B2", "score": 0.73, "colour": "red"}``: what ``thoughtwave hint`` prints."""
        return {"move": str(self.move), "score": round(self.score, 3), "colour": self.colour.value}


def win_estimate(value: float) -> float:
    """Squash an evaluation (placements ahead in the race, or +-WIN) into [0, 1] for the mover.

    Not a measured probability: 0.5 is an even race, about 0.82 one placement ahead, 1.0 a forced win.
    """
    if value >= WIN - 100:
        return 1.0
    if value <= -WIN + 100:
        return 0.0
    return 1.0 / (1.0 + math.exp(-1.5 * value))


class Computer:
    """A computer player. ``choose(referee)`` returns a legal placement for the side to move.

    ``level``: 1 the best move by the evaluation alone; 2 checks the best three against the
    opponent's replies (two plies); 3 the best ``root_beam`` (six). ``max_nodes`` caps the
    positions evaluated (deterministic, for tests); ``seconds=None`` means no clock at all.
    ``seed`` makes the tie-breaking between equal moves repeatable. The tuned knobs: ``beam``
    (moves searched deeper per position), ``keep`` (weight of the pieces in hand), ``width``
    (weight of spare cells on the shortest connections; 0 switches the term and its cost off),
    ``blocks`` (placements beside the opponent's connection tried per position; 0: none),
    ``lead`` (the race lead beyond which blocking is worth nothing; None: no cap) and ``own``
    (weight of the mover's own distance beside the race). ``exact_threats`` checks, when a player
    is one placement from connecting and the other is to move, whether any placement stops them (a
    cross both waves need cannot be stopped: it connects both, and the mover wins); without it one
    threat cell counts as blockable. ``plies`` stays 2: against the greedy
    player, 3 plies (partial at 1 s) won 14/24 where 2 plies over the best six moves won 20/24,
    and 2 plies over the best fourteen won 15/24. Measured with ``bench/ai.py`` against greedy
    (40 games on seeds 1000-1039, then 60 on 5000-5059): blocks 12 alone 90%, with lead 4 and
    own 0.6 100% and 97%; lead 2 / own 0.3 100% then 90%; own 1.0 95% with 2 losses; keep 0.3
    or 0.6 (instead of 0.1) 88% and 72%.
    """

    def __init__(self, level: int = 3, seconds: float | None = 1.0, max_nodes: int | None = None,
                 seed: int | None = None, beam: int = 10, keep: float = 0.1, width: float = 0.1,
                 root_beam: int = 6, plies: int = 2, blocks: int = 12, lead: float | None = 4.0,
                 own: float = 0.6, exact_threats: bool = True) -> None:
        if level not in (1, 2, 3):
            raise ValueError(f"level must be 1, 2 or 3, not {level}")
        self.level = level
        self.seconds = seconds
        self.max_nodes = max_nodes
        self.beam = beam
        self.root_beam = root_beam
        self.plies = plies
        self.keep = keep
        self.width = width
        self.blocks = blocks
        self.lead = lead
        self.own = own
        self.exact_threats = exact_threats
        self.rng = random.Random(seed)
        self._deadline = math.inf
        self._nodes = 0
        self._limited = False
        self._root: Colour = Colour.RED

    # ---- the public face ---------------------------------------------------------------------
    def choose(self, referee: Referee) -> Move | None:
        """The move for the side to move, or None when the game is over."""
        choice = self.search(referee)
        return choice.move if choice else None

    def search(self, referee: Referee) -> Choice | None:
        """Search from the referee's position (left unchanged) and return the best move found."""
        if referee.over or referee.to_move is None:
            return None
        ref = copy.deepcopy(referee)       # the caller's referee is never touched, even on a crash
        mover = ref.to_move
        assert mover is not None
        self._root = mover
        self._nodes = 0
        deadline = time.monotonic() + self.seconds if self.seconds is not None else math.inf
        self._limited = False              # the first ranking always completes: there is always a move
        ranked = self._ranked(ref, wide=True)
        self._limited = True
        self._deadline = deadline
        if not ranked:
            return None
        best_value, best_move = ranked[0]
        depth = 1
        if self.level > 1 and abs(best_value) < WIN - 100 and len(ranked) > 1:
            moves = [m for _, m in ranked[: self.root_beam if self.level == 3 else max(1, self.root_beam // 2)]]
            for target in range(2, self.plies + 1):      # iterative deepening, the best move first
                try:
                    value, move = self._root_search(ref, moves, target)
                except _OutOfBudget as out:
                    if out.args and out.args[0] is not None:
                        best_value, best_move = out.args[0]
                    break
                best_value, best_move, depth = value, move, target
                if abs(value) >= WIN - 100:
                    break
                moves.remove(move)
                moves.insert(0, move)
        # the own-distance term is a plain offset for the estimate: count it from the root's distance
        # so that an even race still reads about 0.5
        root_distance = self._distance(ref, mover)
        offset = self.own * (_NO_PATH if root_distance is None else root_distance)
        return Choice(best_move, mover, win_estimate(best_value + offset), best_value, depth, self._nodes)

    # ---- search -------------------------------------------------------------------------------
    def _root_search(self, ref: Referee, moves: list[Move], depth: int) -> tuple[float, Move]:
        alpha, best = -math.inf, None
        for move in moves:
            try:
                value = self._after(ref, move, depth - 1, alpha, math.inf)
            except _OutOfBudget:
                raise _OutOfBudget(best) from None
            if value > alpha:
                alpha, best = value, (value, move)
        assert best is not None
        return best

    def _after(self, ref: Referee, move: Move, depth: int, alpha: float, beta: float) -> float:
        """The value (for the root's side) of playing ``move`` then searching ``depth`` more plies."""
        verdict = ref.attempt(move)
        assert verdict.outcome is Outcome.LEGAL, verdict.reason
        try:
            return self._value(ref, depth, alpha, beta)
        finally:
            ref.undo()

    def _value(self, ref: Referee, depth: int, alpha: float, beta: float) -> float:
        if ref.over or depth == 0:
            return self._evaluate(ref)
        ranked = self._ranked(ref, wide=False)
        if not ranked:
            return self._evaluate(ref)
        maximising = ref.to_move is self._root
        if depth == 1:      # the ranking already evaluated every child: no need to play them again
            values = [v if maximising else -v for v, _ in ranked]
            return max(values) if maximising else min(values)
        best = -math.inf if maximising else math.inf
        for _, move in ranked[: self.beam]:
            value = self._after(ref, move, depth - 1, alpha, beta)
            if maximising:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    def _tick(self) -> None:
        self._nodes += 1
        if not self._limited:
            return
        if self.max_nodes is not None and self._nodes > self.max_nodes:
            raise _OutOfBudget(None)
        if self._nodes & 3 == 0 and time.monotonic() > self._deadline:
            raise _OutOfBudget(None)

    # ---- evaluation -----------------------------------------------------------------------------
    def _paths(self, ref: Referee, colour: Colour) -> Paths:
        counts = ref.inventory[colour]
        return paths(ref.board, ref.rules.sides(colour), piece_bits(counts), placeable_count(counts))

    def _evaluate(self, ref: Referee) -> float:
        """The position's value for the root's side (positive: the root is ahead)."""
        self._tick()
        me = self._root
        if ref.winner is not None:
            return WIN if ref.winner is me else -WIN
        if ref.draw:
            return 0.0
        if not self.width:
            return self._race(ref, me, self._distance(ref, me), self._distance(ref, me.other))
        mine, theirs = self._paths(ref, me), self._paths(ref, me.other)
        value = self._race(ref, me, mine.distance, theirs.distance)
        if abs(value) < WIN - 100:
            value += self.width * (_spare_cells(ref, mine) - _spare_cells(ref, theirs))
        return value

    def _race(self, ref: Referee, me: Colour, mine: int | None, theirs: int | None) -> float:
        to_move = ref.to_move
        if mine == 1 and to_move is me:
            return WIN - 1
        if theirs == 1 and to_move is me.other:
            return -(WIN - 1)
        if mine is None and theirs is None:
            return 0.0
        mine_n = _NO_PATH if mine is None else mine
        theirs_n = _NO_PATH if theirs is None else theirs
        race = theirs_n - mine_n
        if self.lead is not None and race > self.lead:
            race = self.lead
        value = race - self.own * mine_n + (_TEMPO if to_move is me else -_TEMPO)
        # versatile pieces kept for later make the last placements possible (bends alone often fail)
        value += self.keep * (_hand_value(ref.inventory[me]) - _hand_value(ref.inventory[me.other]))
        # One block stops one threat: a player one placement away on several cells, with the other
        # side to move, is close to winning; when no placement stops them at all, they have won.
        if mine == 1:
            cells = self._threat_cells(ref, me)
            if cells and self.exact_threats and not self._can_stop(ref, me, cells):
                return WIN - 2
            value += _DOUBLE_THREAT * (len(cells) - 1)
        if theirs == 1:
            cells = self._threat_cells(ref, me.other)
            if cells and self.exact_threats and not self._can_stop(ref, me.other, cells):
                return -(WIN - 2)
            value -= _DOUBLE_THREAT * (len(cells) - 1)
        return value

    def _threat_cells(self, ref: Referee, colour: Colour) -> set[int]:
        found = threats(ref.board, ref.rules.sides(colour), ref.available(colour))
        return {m.cell.index for m in found}

    def _can_stop(self, ref: Referee, threat: Colour, cells: set[int]) -> bool:
        """Whether the other side (to move) has a placement after which ``threat`` has no winning
        placement left (or that wins outright). ``cells``: the threat's winning cells. Only
        placements on or beside a winning cell can stop one, so only those are tried; the first
        that stops it answers."""
        board = ref.board
        sides, theirs = ref.rules.sides(threat), ref.available(threat)
        defender = threat.other
        own_sides, available = ref.rules.sides(defender), ref.available(defender)
        near = cells | {n.index for i in cells for _, n in CELLS[i].neighbours() if not board.arms[n.index]}
        for move in board.placements_at(near, available):
            board.push(move)
            try:
                joined = board.sides_joined(move.cell)
                if joined & own_sides == own_sides:
                    return True               # the defender wins with it
                if joined & sides == sides:
                    continue                  # it would connect the threat instead
                if not threats(board, sides, theirs):
                    return True
            finally:
                board.pop()
        return False

    def _distance(self, ref: Referee, colour: Colour) -> int | None:
        counts = ref.inventory[colour]
        return distance(ref.board, ref.rules.sides(colour), piece_bits(counts), placeable_count(counts))

    # ---- candidates ------------------------------------------------------------------------------
    def _blocks(self, ref: Referee, theirs: Paths, available: int) -> list[Move]:
        """The mover's best placements *beside* the opponent's shortest connections: a piece there
        decides which pieces still fit on the connection's empty cells (a blank edge facing a gap
        that only a straight could then fill, when the opponent has none left, cuts the wave).
        Ranked by the opponent's distance after the placement; the ``blocks`` best that lengthen it."""
        mover = ref.to_move
        assert mover is not None
        d = theirs.distance
        assert d is not None
        board = ref.board
        arms = board.arms
        on_path = [i for i in range(SIZE * SIZE) if not arms[i] and theirs.through(i) <= d]
        beside = {n.index for i in on_path for _, n in CELLS[i].neighbours() if not arms[n.index]}
        beside.difference_update(on_path)
        counts = ref.inventory[mover.other]
        sides, bits, left = ref.rules.sides(mover.other), piece_bits(counts), placeable_count(counts)
        found: list[tuple[float, Move]] = []
        for move in board.placements_at(beside, available):
            board.push(move)
            try:
                after = distance(board, sides, bits, left)
            finally:
                board.pop()
            gain = (_NO_PATH if after is None else after) - d
            if gain > 0:
                found.append((gain + self.rng.random() * 0.1, move))
        found.sort(key=lambda x: -x[0])
        return [m for _, m in found[: self.blocks]]

    def _ranked(self, ref: Referee, wide: bool) -> list[tuple[float, Move]]:
        """Candidate moves for the side to move, best first, each with its evaluation for the mover.

        A winning placement, when there is one, is the only candidate.
        """
        mover = ref.to_move
        assert mover is not None
        mine, theirs = self._paths(ref, mover), self._paths(ref, mover.other)
        available = ref.available(mover)
        board = ref.board
        arms, fixed, need = board.arms, board.fixed, board.need
        scored: list[tuple[float, Move]] = []
        d_mine = mine.distance if mine.distance is not None else _NO_PATH
        d_theirs = theirs.distance if theirs.distance is not None else _NO_PATH
        forced: set[int] = set()
        if d_theirs <= 2:
            # the opponent is close: every cell on or next to their short connections is a candidate
            for i in range(SIZE * SIZE):
                if not arms[i] and theirs.through(i) <= d_theirs:
                    forced.add(i)
                    for _, n in CELLS[i].neighbours():
                        if not arms[n.index]:
                            forced.add(n.index)
        for i in range(SIZE * SIZE):
            if arms[i]:
                continue
            bits = FITS[fixed[i]][need[i]] & available
            if not bits:
                continue
            through_mine = mine.through(i)
            through_theirs = theirs.through(i)
            on_mine = through_mine <= d_mine + 1
            on_theirs = through_theirs <= d_theirs
            if not (on_mine or on_theirs or i in forced):
                continue
            for piece_arms in range(1, 16):
                if not bits >> piece_arms & 1:
                    continue
                after_mine = mine.through(i, piece_arms)
                if after_mine == 0:        # joins the mover's sides: nothing else matters
                    return [(WIN, Move(Piece(piece_arms), CELLS[i]))]
                after_theirs = theirs.through(i, piece_arms)
                gain = d_mine - min(d_mine, after_mine)
                helps = d_theirs - min(d_theirs, after_theirs)
                blocks = 1 if on_theirs and after_theirs >= d_theirs else 0
                cheap = 2 * gain - 3 * helps + blocks + (2 if i in forced else 0) + self.rng.random() * 0.1
                scored.append((cheap, Move(Piece(piece_arms), CELLS[i])))
        if not scored:      # nothing near any connection (a blocked board): any legal placement will do
            scored = [(self.rng.random(), m) for m in board.legal_placements(available)]
        scored.sort(key=lambda x: -x[0])
        keep = len(scored) if wide and len(scored) <= 80 else (60 if wide else 2 * self.beam + 4)
        forced_moves = [m for _, m in scored[keep:] if m.cell.index in forced]
        shortlist = [m for _, m in scored[:keep]] + forced_moves
        if self.blocks and theirs.distance is not None:
            seen = set(shortlist)
            shortlist += [m for m in self._blocks(ref, theirs, available) if m not in seen]
        out: list[tuple[float, Move]] = []
        for move in shortlist:
            verdict = ref.attempt(move)
            assert verdict.outcome is Outcome.LEGAL, verdict.reason
            try:
                value = self._evaluate(ref)
            finally:
                ref.undo()
            if mover is not self._root:
                value = -value
            out.append((value + self.rng.random() * 1e-3, move))
        out.sort(key=lambda x: -x[0])
        return out

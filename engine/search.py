"""Alpha-beta search with iterative deepening, a transposition table and move ordering.

Every position in the search is the real ``Referee`` (``attempt`` then ``undo`` on a private copy),
so turn order, missed turns, automatic passes, wins and draws are exactly the referee's; only
placements from the side to move's pieces that fit now are ever tried. Values are from the root
player's side (``engine.evaluate``), maximised on its turns and minimised on the opponent's (a pass
can give one side two turns in a row, so the sides are not simply alternating).

Each position has a Zobrist key (a random number per colour, cell and piece, XOR-ed together, and
one for the side to move); the table keeps, per key, the deepest value found with its bound and the
best move, which is tried first when the position comes back (deeper in the next iteration, or by
another order of the same placements). Move ordering: at the last ply the candidates are evaluated
in their cheap order and the search stops at the first one past the window (the opponent's blocks
are only computed when nothing cut off before); higher up the candidates are ranked by their
evaluation (kept per key, so each ranking is computed once a search) and the best ``beam`` searched.
With ``Limits.root_all`` the root's ranking covers every legal placement, not only the candidates.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from thoughtwave.engine.analysis import Paths
from thoughtwave.engine.candidates import Candidates
from thoughtwave.engine.evaluate import Evaluator, Stats, decided
from thoughtwave.engine.moves import Move
from thoughtwave.engine.pieces import Colour
from thoughtwave.engine.referee import Outcome, Referee

_KEYS = random.Random(20260417)
#: ZOBRIST[colour is BLACK][cell * 16 + arms]
ZOBRIST = [[_KEYS.getrandbits(64) for _ in range(100 * 16)] for _ in range(2)]
BLACK_TO_MOVE = _KEYS.getrandbits(64)
_EXACT, _LOWER, _UPPER = 0, 1, 2


class OutOfBudget(Exception):
    """Raised inside the search when the time or node budget is spent."""


@dataclass
class Limits:
    """How much the search may do: a monotonic deadline, evaluations, the candidates it keeps."""

    deadline: float = math.inf
    max_nodes: int | None = None
    beam: int = 10              # moves searched deeper per position
    keep: int = 24              # cheap candidates kept per position beyond the root
    root_keep: int = 60         # at the root
    blocks: int = 12            # blocking placements beside the opponent's connection per position
    root_all: bool = False      # rank every legal placement at the root, not only the candidates ...
    root_deadline: float = math.inf   # ... those beyond the candidates until this monotonic time


class Search:
    """One search from one root position (a private referee the search plays on and takes back)."""

    def __init__(self, ref: Referee, evaluator: Evaluator, limits: Limits, rng: random.Random) -> None:
        self.ref = ref
        self.evaluator = evaluator
        self.limits = limits
        self.rng = rng
        self.root = evaluator.me
        self.nodes = 0
        self.limited = False
        self.table: dict[int, tuple[int, float, int, Move | None]] = {}
        self.rankings: dict[int, list[tuple[float, Move]]] = {}
        self.evaluations: dict[int, float] = {}

    # ---- budget ----------------------------------------------------------------------------------
    def tick(self) -> None:
        self.nodes += 1
        if not self.limited:
            return
        limits = self.limits
        if limits.max_nodes is not None and self.nodes > limits.max_nodes:
            raise OutOfBudget
        if self.nodes & 3 == 0 and time.monotonic() > limits.deadline:
            raise OutOfBudget

    # ---- positions -------------------------------------------------------------------------------
    def play(self, move: Move, key: int) -> int:
        """Play ``move`` for the side to move; return the new position's key (without the side to move)."""
        mover = self.ref.to_move
        verdict = self.ref.attempt(move)
        assert verdict.outcome is Outcome.LEGAL, verdict.reason
        return key ^ ZOBRIST[mover is Colour.BLACK][move.cell.index * 16 + move.piece.arms]

    def full_key(self, key: int) -> int:
        return key ^ BLACK_TO_MOVE if self.ref.to_move is Colour.BLACK else key

    def evaluate(self, key: int, ply: int, known: dict[Colour, Stats] | None = None,
                 before: tuple[int, dict[Colour, Paths]] | None = None) -> float:
        """The static value of the position on the board (cached by key), a quicker win worth more;
        ``known``: the sides whose figures the last move left unchanged (``Candidates.unchanged``);
        ``before``: the last move's cell and the maps of the position before it (``Candidates.reusable``)."""
        full = self.full_key(key)
        value = self.evaluations.get(full)
        if value is None:
            self.tick()
            value = self.evaluations[full] = self.evaluator.value(self.ref, known, before)
        if decided(value):
            value -= math.copysign(ply, value)
        return value

    def _value_after(self, candidates: Candidates, move: Move, key: int, ply: int) -> float:
        """The evaluation of the position after ``move`` (played and taken back), reusing what
        ``candidates`` knows the move leaves unchanged."""
        known = candidates.unchanged(move)
        before = (move.cell.index, candidates.reusable(move))
        child = self.play(move, key)
        try:
            return self.evaluate(child, ply + 1, known, before)
        finally:
            self.ref.undo()

    def ranked(self, key: int, ply: int, wide: bool) -> list[tuple[float, Move]]:
        """The side to move's candidates, each with its evaluation after the move, best first for the
        mover; kept per key. A winning placement is the only candidate."""
        full = self.full_key(key)
        found = self.rankings.get(full)
        if found is not None:
            return found
        ref, limits = self.ref, self.limits
        maximising = ref.to_move is self.root
        candidates = Candidates(ref, self.rng, limits.root_keep if wide else limits.keep, limits.blocks)
        moves = candidates.moves + candidates.blocks()
        others: list[Move] = []
        if wide and limits.root_all and candidates.win is None:
            listed = set(moves)
            others = [m for m in ref.board.legal_placements(ref.available(ref.to_move)) if m not in listed]
        out: list[tuple[float, Move]] = []
        for k, move in enumerate(moves + others):
            # The placements beyond the candidates are ranked while the root's share of the clock lasts.
            if k >= len(moves) and (k - len(moves)) % 16 == 0 and time.monotonic() > limits.root_deadline:
                break
            value = self._value_after(candidates, move, key, ply)
            out.append((value + self.rng.random() * 1e-3, move))
        out.sort(key=lambda x: -x[0] if maximising else x[0])
        self.rankings[full] = out
        return out

    # ---- alpha-beta --------------------------------------------------------------------------------
    def value(self, key: int, depth: int, ply: int, alpha: float, beta: float) -> float:
        """The value of the position (``key`` without the side to move) searched ``depth`` plies deep."""
        ref = self.ref
        if ref.over or depth == 0:
            return self.evaluate(key, ply)
        full = self.full_key(key)
        entry = self.table.get(full)
        tt_move = None
        if entry is not None:
            e_depth, e_value, e_flag, tt_move = entry
            if e_depth >= depth:
                if e_flag == _EXACT:
                    return e_value
                if e_flag == _LOWER and e_value >= beta:
                    return e_value
                if e_flag == _UPPER and e_value <= alpha:
                    return e_value
        maximising = ref.to_move is self.root
        if depth == 1:
            value, best = self._frontier(key, ply, alpha, beta, maximising)
        else:
            value, best = self._interior(key, depth, ply, alpha, beta, maximising, tt_move)
        if best is not None:
            flag = _EXACT
            if value <= alpha:
                flag = _UPPER
            elif value >= beta:
                flag = _LOWER
            self.table[full] = (depth, value, flag, best)
        return value

    def _interior(self, key: int, depth: int, ply: int, alpha: float, beta: float, maximising: bool,
                  tt_move: Move | None) -> tuple[float, Move | None]:
        ranked = self.ranked(key, ply, wide=False)
        if not ranked:
            return self.evaluate(key, ply), None
        moves = [m for _, m in ranked[: self.limits.beam]]
        if decided(ranked[0][0]) and ranked[0][0] * (1 if maximising else -1) > 0:
            return ranked[0][0], ranked[0][1]          # a win in one: nothing deeper matters
        if tt_move is not None and tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        best_value, best = (-math.inf if maximising else math.inf), None
        ref = self.ref
        for move in moves:
            child = self.play(move, key)
            try:
                value = self.value(child, depth - 1, ply + 1, alpha, beta)
            finally:
                ref.undo()
            if maximising:
                if value > best_value:
                    best_value, best = value, move
                alpha = max(alpha, value)
            else:
                if value < best_value:
                    best_value, best = value, move
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best_value, best

    def _frontier(self, key: int, ply: int, alpha: float, beta: float,
                  maximising: bool) -> tuple[float, Move | None]:
        """One ply to go: evaluate the candidates in their cheap order, stopping at a cut-off."""
        full = self.full_key(key)
        ranked = self.rankings.get(full)
        if ranked is not None:
            if not ranked:
                return self.evaluate(key, ply), None
            return ranked[0]
        ref, limits = self.ref, self.limits
        candidates = Candidates(ref, self.rng, limits.keep, limits.blocks)
        best_value, best = (-math.inf if maximising else math.inf), None
        seen: list[tuple[float, Move]] = []
        for batch in (candidates.moves, None):
            for move in batch if batch is not None else candidates.blocks():
                value = self._value_after(candidates, move, key, ply)
                seen.append((value + self.rng.random() * 1e-3, move))
                if maximising:
                    if value > best_value:
                        best_value, best = value, move
                    if best_value >= beta:
                        return best_value, best
                else:
                    if value < best_value:
                        best_value, best = value, move
                    if best_value <= alpha:
                        return best_value, best
        seen.sort(key=lambda x: -x[0] if maximising else x[0])
        self.rankings[full] = seen
        if best is None:
            return self.evaluate(key, ply), None
        return best_value, best

    def search_root(self, moves: list[Move], depth: int) -> tuple[float, Move, bool]:
        """Search the root's ``moves`` (best first) ``depth`` plies deep; returns the best value and move
        and whether the iteration completed (when the budget ran out, the best fully searched so far)."""
        alpha, best = -math.inf, None
        ref = self.ref
        for move in moves:
            child = self.play(move, 0)
            try:
                value = self.value(child, depth - 1, 1, alpha, math.inf)
            except OutOfBudget:
                if best is None:
                    raise
                return best[0], best[1], False
            finally:
                ref.undo()
            if value > alpha:
                alpha, best = value, (value, move)
        assert best is not None
        return best[0], best[1], True

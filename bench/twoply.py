"""The two-ply benchmark searcher of issue 17: a plain, fixed-work opponent for the computer's ladder.

As the issue describes it: every legal placement is scored by the difference in the empty cells each
side still needs to connect (``engine.analysis.distance``, which counts a cell only when one of the
player's remaining pieces can enter it from that side and fits its neighbours), plus small terms for
spare routes (empty cells on a shortest connection beyond the ones a single connection needs) and
scarce pieces (a versatile piece spent is worth a little less than a bend); then, for its best
``candidates`` placements, the opponent's best reply (scored the same way, every reply tried) is
checked, and the placement whose best reply leaves it best off is played. A placement that connects
its sides wins at once; one that connects only the opponent's is never chosen. It has no clock: the
same position and seed give the same move (about 1 s a move here, more under load).
"""

from __future__ import annotations

import random

from thoughtwave.engine.analysis import CELL_PORT, distance, paths, placeable_count
from thoughtwave.engine.board import piece_bits
from thoughtwave.engine.cells import SIZE
from thoughtwave.engine.moves import Move
from thoughtwave.engine.pieces import Colour, Kind
from thoughtwave.engine.referee import Referee

NO_PATH = 12                 # a player who cannot connect counts as this far away
WIN = 1000.0
SPARE = 0.1                  # per spare cell on the shortest connections (capped at 5)
#: What spending one piece of a kind costs: crosses and junctions finish waves that bends cannot.
SPEND = {Kind.TERMINATOR: 0.05, Kind.BEND: 0.0, Kind.STRAIGHT: 0.05, Kind.JUNCTION: 0.1, Kind.CROSS: 0.25}


def _distance(referee: Referee, colour: Colour) -> int:
    counts = referee.inventory[colour]
    d = distance(referee.board, referee.rules.sides(colour), piece_bits(counts), placeable_count(counts))
    return NO_PATH if d is None else d


def _spare(referee: Referee, colour: Colour) -> int:
    counts = referee.inventory[colour]
    maps = paths(referee.board, referee.rules.sides(colour), piece_bits(counts), placeable_count(counts))
    d = maps.distance
    if not d:
        return 0
    arms = referee.board.arms
    a, b = maps.from_first, maps.to_second
    on_path = 0
    for i in range(SIZE * SIZE):
        if arms[i]:
            continue
        n, e, s, w = CELL_PORT[i]
        if min(a[n], a[e], a[s], a[w]) + min(b[n], b[e], b[s], b[w]) >= d:
            continue
        if maps.through(i) == d:
            on_path += 1
    return min(on_path - d, 5)


def _scores(referee: Referee, rng: random.Random, spares: bool) -> list[tuple[float, Move]]:
    """Every legal placement of the side to move with its one-ply score for the mover, best first."""
    mover = referee.to_move
    assert mover is not None
    out: list[tuple[float, Move]] = []
    for move in list(referee.board.legal_placements(referee.available(mover))):
        referee.attempt(move, mover)
        try:
            if referee.winner is mover:
                score = WIN
            elif referee.winner is not None:
                score = -WIN
            elif referee.draw:
                score = 0.0
            else:
                score = float(_distance(referee, mover.other) - _distance(referee, mover))
                score -= SPEND[move.piece.kind]
                if spares:
                    score += SPARE * (_spare(referee, mover) - _spare(referee, mover.other))
        finally:
            referee.undo()
        out.append((score + rng.random() * 1e-3, move))
    out.sort(key=lambda x: -x[0])
    return out


def two_ply_move(referee: Referee, rng: random.Random, candidates: int = 6) -> Move | None:
    """The benchmark searcher's move for the side to move (None when the game is over)."""
    if referee.over or referee.to_move is None:
        return None
    mover = referee.to_move
    ranked = _scores(referee, rng, spares=False)
    if not ranked:
        return None
    if ranked[0][0] >= WIN - 1:
        return ranked[0][1]
    # the spare-route term only for the placements worth a closer look (it costs a full distance map)
    shortlist = ranked[: 3 * candidates]
    rescored = []
    for score, move in shortlist:
        referee.attempt(move, mover)
        try:
            if not referee.over:
                score += SPARE * (_spare(referee, mover) - _spare(referee, mover.other))
        finally:
            referee.undo()
        rescored.append((score, move))
    rescored.sort(key=lambda x: -x[0])
    best_value, best = -2 * WIN, rescored[0][1]
    for score, move in rescored[:candidates]:
        referee.attempt(move, mover)
        try:
            if referee.over or referee.to_move is not mover.other:   # over, or the opponent must pass
                value = score
            else:
                replies = _scores(referee, rng, spares=False)
                value = -replies[0][0] if replies else score
        finally:
            referee.undo()
        if value > best_value:
            best_value, best = value, move
    return best

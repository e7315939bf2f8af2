"""The computer's judgement of a position: the connection race, in placements, for one side.

The value is the opponent's connection distance minus the player's (``engine.analysis``: only through
cells the player's remaining pieces can enter and leave), half a placement for having the move, and a
won position when the side to move is one placement away. The player's own distance can also count on
its own (weighted ``own``; 0.3 until ``norm`` replaced it): without either, two players who both value a
block as much as a step forward block each other until the pieces run out (a draw); with too much of it
the player races when it is behind and loses. The race can be capped at a lead of ``lead`` placements
(further ahead, hurting the opponent is worth nothing): measured useful against the greedy player, not
against one that blocks, so off by default. ``norm`` scales the lead by how short the race left is
(``NORM_LENGTH`` over the mean distance): the same lead is surer near the end, so ahead a step beats a
block, and behind a block (a longer race, drawn when the pieces run out) beats a step; with it the own
term is not needed (measured: norm 1 with own 0 scored 60% of 24 games against the two-ply
searcher at a fixed budget where own 0.3 without it scored 48%). Two small terms were measured to matter
against a player who blocks: spare cells on the shortest connections (``width``: a wide front survives
one block, the two-distance idea of Hex programs) and the pieces kept in hand (``keep``: versatile
pieces finish waves that bends cannot; running out is how games end drawn). When a player is one
placement from connecting and the other is to move, the threat is checked exactly: whether any placement
stops it (a cross both waves need cannot be stopped: it connects both, and the mover wins); each winning
cell beyond the first counts as a near-win. A side that can no longer connect blocks for free, so the lead over
it is worth no more than the pieces the other side has beyond its distance and beyond the placements its blocks
are expected to add (``dead`` each, one per step but the last): with none to spare, cutting the opponent off is a
draw by exhaustion, not a lead of ``NO_PATH`` minus the distance (measured on the tuning seeds 1500 and 1520 at a
fixed budget: 10 of 80 openings better, 2 worse). Only that side's lead is capped: the side cut off keeps the
race's slope, or it would stop blocking (capping both lost 9 games in 40 instead of 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from thoughtwave.engine.analysis import CELL_PORT, Paths, distance, paths, paths_after, placeable_count, threats
from thoughtwave.engine.board import piece_bits
from thoughtwave.engine.cells import CELLS, SIZE
from thoughtwave.engine.pieces import Colour, Kind
from thoughtwave.engine.referee import Referee

WIN = 1000.0
NO_PATH = 12          # a distance of None counts as this far: a little worse than any real path
TEMPO = 0.5           # having the move is worth half a placement in the race
NORM_LENGTH = 8.0     # with ``norm``: the race length (mean of the two distances) where a lead counts as itself
DOUBLE_THREAT = 4.0   # each winning cell beyond the first, when the opponent has the move
#: What a piece in hand is worth (times ``keep``): versatile pieces finish waves that bends cannot.
KIND_VALUE = {Kind.TERMINATOR: 0.5, Kind.BEND: 0.5, Kind.STRAIGHT: 1.0, Kind.JUNCTION: 1.5, Kind.CROSS: 2.5}


def decided(value: float) -> bool:
    """Whether a value is a win or a loss rather than a race."""
    return abs(value) >= WIN - 100


def hand_value(counts: dict[Kind, int]) -> float:
    """The pieces in hand, weighted by how many waves each kind can finish."""
    return sum(KIND_VALUE[k] * n for k, n in counts.items())


def spare_cells(ref: Referee, maps: Paths) -> int:
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


def player_paths(ref: Referee, colour: Colour) -> Paths:
    """``colour``'s distance maps with the pieces it holds."""
    counts = ref.inventory[colour]
    return paths(ref.board, ref.rules.sides(colour), piece_bits(counts), placeable_count(counts))


def player_distance(ref: Referee, colour: Colour) -> int | None:
    """``colour``'s connection distance with the pieces it holds (None: it cannot connect)."""
    counts = ref.inventory[colour]
    return distance(ref.board, ref.rules.sides(colour), piece_bits(counts), placeable_count(counts))


class Stats(NamedTuple):
    """One side's connection distance (None: cannot connect) and spare cells on its shortest connections."""

    distance: int | None
    spare: int


@dataclass(frozen=True)
class Weights:
    """The evaluation's knobs (see the module docstring; tuned with bench/ai.py)."""

    keep: float = 0.1
    width: float = 0.1
    lead: float | None = None
    own: float = 0.0
    exact_threats: bool = True
    norm: float = 1.0
    dead: float = 1.0


class Evaluator:
    """Values positions for ``me``. ``value(ref)``: positive when ``me`` is ahead, +-WIN decided."""

    def __init__(self, me: Colour, weights: Weights) -> None:
        self.me = me
        self.w = weights

    def value(self, ref: Referee, known: dict[Colour, Stats] | None = None,
              before: tuple[int, dict[Colour, Paths]] | None = None) -> float:
        """``known``: a side's distance and spare cells when the caller knows them unchanged; ``before``:
        the cell of the last placement and sides' maps of the position before it, which the new maps
        are resumed from (``analysis.paths_after``) rather than searched again."""
        me = self.me
        if ref.winner is not None:
            return WIN if ref.winner is me else -WIN
        if ref.draw:
            return 0.0
        stats = {}
        for colour in (me, me.other):
            found = known.get(colour) if known else None
            if found is None:
                if self.w.width:
                    parent = before[1].get(colour) if before else None
                    if parent is None:
                        maps = player_paths(ref, colour)
                    else:
                        counts = ref.inventory[colour]
                        maps = paths_after(parent, ref.board, before[0], ref.rules.sides(colour), piece_bits(counts),
                                           placeable_count(counts))
                    found = Stats(maps.distance, spare_cells(ref, maps))
                else:
                    found = Stats(player_distance(ref, colour), 0)
            stats[colour] = found
        mine, theirs = stats[me], stats[me.other]
        value = self.race(ref, mine.distance, theirs.distance)
        if not decided(value):
            value += self.w.width * (mine.spare - theirs.spare)
        return value

    def offset(self, ref: Referee) -> float:
        """The own-distance term of the root position: added back before squashing a value into a win
        estimate, so that an even race still reads about 0.5."""
        d = player_distance(ref, self.me)
        return self.w.own * (NO_PATH if d is None else d)

    def margin(self, ref: Referee, colour: Colour, d: int) -> float:
        """Against a side that can no longer connect: ``colour``'s pieces beyond its distance ``d`` and
        beyond the placements the free blocks before its last step are expected to add (``dead`` each)."""
        return placeable_count(ref.inventory[colour]) - d - self.w.dead * (d - 1)

    def race(self, ref: Referee, mine: int | None, theirs: int | None) -> float:
        w, me = self.w, self.me
        to_move = ref.to_move
        if mine == 1 and to_move is me:
            return WIN - 1
        if theirs == 1 and to_move is me.other:
            return -(WIN - 1)
        if mine is None and theirs is None:
            return 0.0
        mine_n = NO_PATH if mine is None else mine
        theirs_n = NO_PATH if theirs is None else theirs
        race = theirs_n - mine_n
        if w.lead is not None and race > w.lead:
            race = w.lead
        lead = race + (TEMPO if to_move is me else -TEMPO)
        value = lead - w.own * mine_n
        if w.norm:
            # a lead counts for more the shorter the race left: ahead, a step beats a block; behind, a
            # block (a longer race, a drawn one when the pieces run out) beats a step
            value += w.norm * lead * (NORM_LENGTH / max(1.0, (mine_n + theirs_n) / 2) - 1.0)
        value += w.keep * (hand_value(ref.inventory[me]) - hand_value(ref.inventory[me.other]))
        if w.dead and theirs is None and mine is not None:
            # The opponent can no longer connect and blocks for free: we win only if our pieces outlast its
            # blocks, so the lead is worth no more than that margin (none: a draw by exhaustion). One-sided:
            # when we are the side cut off, the race keeps its slope, so blocking the opponent still counts.
            value = min(value, max(0.0, self.margin(ref, me, mine)))
        # One block stops one threat: a player one placement away on several cells, with the other
        # side to move, is close to winning; when no placement stops them at all, they have won.
        if mine == 1:
            cells = threat_cells(ref, me)
            if cells and w.exact_threats and not can_stop(ref, me, cells):
                return WIN - 2
            value += DOUBLE_THREAT * (len(cells) - 1)
        if theirs == 1:
            cells = threat_cells(ref, me.other)
            if cells and w.exact_threats and not can_stop(ref, me.other, cells):
                return -(WIN - 2)
            value -= DOUBLE_THREAT * (len(cells) - 1)
        return value


def threat_cells(ref: Referee, colour: Colour) -> set[int]:
    """The cells where one placement of ``colour``'s connects it."""
    found = threats(ref.board, ref.rules.sides(colour), ref.available(colour))
    return {m.cell.index for m in found}


def can_stop(ref: Referee, threat: Colour, cells: set[int]) -> bool:
    """Whether the other side (to move) has a placement after which ``threat`` has no winning
    placement left (or that wins outright). ``cells``: the threat's winning cells. Only placements on
    or beside a winning cell can stop one, so only those are tried; the first that stops it answers."""
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


def win_estimate(value: float) -> float:
    """Squash an evaluation (placements ahead in the race, or +-WIN) into [0, 1] for the mover.

    Not a measured probability: 0.5 is an even race, about 0.82 one placement ahead, 1.0 a forced win.
    """
    if value >= WIN - 100:
        return 1.0
    if value <= -WIN + 100:
        return 0.0
    return 1.0 / (1.0 + math.exp(-1.5 * value))

"""The placements worth searching in a position, best first by a cheap look at the distance maps.

A placement is a candidate when its cell lies on a short connection of either player (cells on or
beside the opponent's connections all count once the opponent is two placements away), ranked by
how much it shortens the mover's connection and how much it lengthens the opponent's (measured: a
block that forces a detour of two placements is worth two steps of one's own; scored as a flat bonus,
below any step, the opponent's best reply was missing from its 24 candidates in 23% of the positions
of lost and drawn games, 6% now), or fails to help it; then the
placements *beside* the opponent's shortest connections that lengthen it most (a blank edge facing
a gap decides which pieces still fit there, and a player out of straights cannot fill a gap that
only a straight fits). Near the end (the opponent within ``WAIT_WITHIN`` placements of joining, counted
whatever it holds: a side short of pieces can still be helped across) waiting moves join them: placements away
from both connections, one for each kind of piece in hand, as the placements near the connections may all lose
(found in two games lost at seed 94000), and a search that lets a side only step or block believes in wins that
waiting stops (found in games of seeds 98000 and 1520). A placement that connects the mover's sides is the only
candidate.
"""

from __future__ import annotations

import random

from thoughtwave.engine.analysis import UNREACHED, Paths, distance_after, empty_reach, placeable_count
from thoughtwave.engine.board import FITS, NEIGHBOUR, piece_bits
from thoughtwave.engine.cells import CELLS, SIZE
from thoughtwave.engine.evaluate import NO_PATH, Stats, player_paths, spare_cells
from thoughtwave.engine.moves import Move
from thoughtwave.engine.pieces import DIRECTIONS, OPPOSITE, Colour, Kind, Piece
from thoughtwave.engine.referee import Referee

CELL_COUNT = SIZE * SIZE
_SIDES = [tuple((d, NEIGHBOUR[i][d]) for d in DIRECTIONS if NEIGHBOUR[i][d] >= 0) for i in range(CELL_COUNT)]
_NEAR = [tuple(j for _, j in _SIDES[i]) for i in range(CELL_COUNT)]
_NO_REACH = (0, 0, 0, 0)
#: A placement on the opponent's shortest connection scores this much per placement it lengthens it by
BLOCK_WEIGHT = 2.0
#: Waiting moves are candidates once the opponent is this close to joining (the end of the race, where the side that
#: steps first can lose; earlier a step or a block is always better, and the search saves the placements)
WAIT_WITHIN = 4
#: _MOVE[cell * 16 + arms]: one Move object per placement, built once (the search's hot path)
_MOVE: list[Move | None] = [Move(Piece(a), CELLS[i]) if a else None for i in range(CELL_COUNT) for a in range(16)]


class Candidates:
    """The side to move's candidates in one position. ``win``: a placement that wins at once, or None;
    ``moves``: the candidates best first (blocks last); ``mine``/``theirs``: the distance maps used."""

    __slots__ = ("win", "moves", "mine", "theirs", "_ref", "_rng", "_blocks_wanted", "_block_limit", "_stats")

    def __init__(self, ref: Referee, rng: random.Random, keep: int, blocks: int) -> None:
        mover = ref.to_move
        assert mover is not None
        self._ref, self._rng, self._block_limit = ref, rng, blocks
        self._stats: dict[Colour, Stats] = {}
        self.win: Move | None = None
        mine = self.mine = player_paths(ref, mover)
        theirs = self.theirs = player_paths(ref, mover.other)
        available = ref.available(mover)
        board = ref.board
        arms, fixed, need = board.arms, board.fixed, board.need
        d_mine = mine.distance if mine.distance is not None else NO_PATH
        d_theirs = theirs.distance if theirs.distance is not None else NO_PATH
        forced: set[int] = set()
        if d_theirs <= 2:
            # the opponent is close: every cell on or next to their short connections is a candidate
            for i in range(CELL_COUNT):
                if not arms[i] and theirs.through(i) <= d_theirs:
                    forced.add(i)
                    forced.update(j for j in _NEAR[i] if not arms[j])
        scored: list[tuple[float, Move]] = []
        noise = rng.random
        their_counts = ref.inventory[mover.other]
        their_sides, their_bits = ref.rules.sides(mover.other), piece_bits(their_counts)
        their_left = placeable_count(their_counts)
        for i in range(CELL_COUNT):
            if arms[i]:
                continue
            bits = FITS[fixed[i]][need[i]] & available
            if not bits:
                continue
            on_mine = mine.through(i) <= d_mine + 1
            on_theirs = theirs.through(i) <= d_theirs
            if not (on_mine or on_theirs or i in forced):
                continue
            bonus = 2 if i in forced else 0
            for piece_arms in range(1, 16):
                if not bits >> piece_arms & 1:
                    continue
                after_mine = mine.through(i, piece_arms)
                if after_mine == 0:        # joins the mover's sides: nothing else matters
                    self.win = _MOVE[i * 16 + piece_arms]
                    self.moves = [self.win]
                    self._blocks_wanted = 0
                    return
                after_theirs = theirs.through(i, piece_arms)
                gain = d_mine - min(d_mine, after_mine)
                helps = d_theirs - min(d_theirs, after_theirs)
                block = 0.0
                if on_theirs and after_theirs >= d_theirs:
                    block = 1.0
                    if theirs.distance is not None:
                        # how far it really lengthens their connection: a detour is worth a step of one's own
                        after = distance_after(theirs, board, i, piece_arms, their_sides, their_bits, their_left)
                        block += BLOCK_WEIGHT * ((NO_PATH if after is None else after) - d_theirs)
                scored.append((2 * gain - 3 * helps + block + bonus + noise() * 0.1, _MOVE[i * 16 + piece_arms]))
        if not scored:      # nothing near any connection (a blocked board): any legal placement will do
            scored = [(noise(), m) for m in board.legal_placements(available)]
        scored.sort(key=lambda x: -x[0])
        self.moves = [m for _, m in scored[:keep]] + [m for _, m in scored[keep:] if m.cell.index in forced]
        if theirs.shortest <= WAIT_WITHIN:
            listed = set(self.moves)
            self.moves += [m for m in self._waiting(available) if m not in listed]
        self._blocks_wanted = blocks if theirs.distance is not None else 0

    def _waiting(self, available: int) -> list[Move]:
        """Placements away from both sides' short connections, one for each kind of piece in hand: waiting
        moves. Near the end, when both sides are two placements away, the side that steps first can leave the
        other one placement away with the move, and every placement near the connections may lose; measured in
        two lost games (seed 94000), where it played such a step. A cell whose neighbours are on neither
        connection either is taken first; a crowded board late in the game may have none, and then a cell off
        both will do, with a piece that opens the opponent no connection as short as theirs (a piece laid carries
        both waves). One a kind, as a piece's blank edges can cut the mover's own connection where another
        piece's would not: with a single waiting move (or none), a side that could wait was assumed to have to
        help the other, and the search saw wins that were not there (a drawn game of seed 98000, a lost one of
        seed 1520)."""
        board, mine, theirs = self._ref.board, self.mine, self.theirs
        arms = board.arms
        # A side that cannot connect for want of pieces may still be helped across: its distance whatever it holds
        # (no way across at all: no cell is near its connection).
        d_mine, d_theirs = mine.shortest, theirs.shortest
        mine_open = d_mine < UNREACHED

        seen: dict[int, bool] = {}

        def near(i: int) -> bool:
            found = seen.get(i)
            if found is None:
                found = seen[i] = (mine_open and mine.through(i) <= d_mine + 1) or theirs.through(i) <= d_theirs + 1
            return found

        kinds = {k for k, n in self._ref.inventory[self._ref.to_move].items() if n}
        found: dict[Kind, Move] = {}
        quiet = [i for i in range(CELL_COUNT) if not arms[i] and not near(i)]
        apart = [i for i in quiet if not any(not arms[j] and near(j) for j in _NEAR[i])]
        taken = set(apart)
        for cells in (apart, [i for i in quiet if i not in taken]):
            for i in cells:
                for move in board.placements_at((i,), available):
                    kind = move.piece.kind
                    if kind not in found and theirs.through(i, move.piece.arms) > d_theirs:
                        found[kind] = move
                if len(found) == len(kinds):
                    return list(found.values())
        return list(found.values())

    def blocks(self) -> list[Move]:
        """The mover's best placements *beside* the opponent's shortest connections, not already
        among ``moves``: ranked by the opponent's distance after the placement, the ``blocks`` best
        that lengthen it. Computed on demand (a search that cuts off early never needs them).

        Only the edges facing the opponent's connection change what fits on it, so the placements
        are grouped by those edges and the distance is computed once a group; a group that changes
        no connection cell's crossing cannot lengthen it and costs nothing."""
        if not self._blocks_wanted:
            return []
        ref, theirs = self._ref, self.theirs
        mover = ref.to_move
        assert mover is not None
        d = theirs.distance
        assert d is not None
        board = ref.board
        arms, fixed, need = board.arms, board.fixed, board.need
        counts = ref.inventory[mover.other]
        sides, their_bits, left = ref.rules.sides(mover.other), piece_bits(counts), placeable_count(counts)
        on_path = {i for i in range(CELL_COUNT) if not arms[i] and theirs.through(i) <= d}
        beside = sorted({j for i in on_path for j in _NEAR[i] if not arms[j]} - on_path)
        reach = theirs.table.reach
        seen = set(self.moves)
        gains: dict[tuple[int, int], int] = {}
        found: list[tuple[float, Move]] = []
        available = ref.available(mover)
        for i in beside:
            facing = [(dd, j) for dd, j in _SIDES[i] if j in on_path]
            for move in board.placements_at((i,), available):
                if move in seen:
                    continue
                a = move.piece.arms
                group = (i, sum(dd for dd, _ in facing if a & dd))
                gain = gains.get(group)
                if gain is None:
                    changed = False
                    for dd, j in facing:
                        back = OPPOSITE[dd]
                        fits = FITS[fixed[j] | back][need[j] | (back if a & dd else 0)] & their_bits
                        if (empty_reach(fits) if fits else _NO_REACH) != reach[j]:
                            changed = True
                            break
                    if not changed:
                        gain = 0
                    else:
                        after = distance_after(theirs, board, i, a, sides, their_bits, left)
                        gain = (NO_PATH if after is None else after) - d
                    gains[group] = gain
                if gain > 0:
                    found.append((gain + self._rng.random() * 0.1, move))
        found.sort(key=lambda x: -x[0])
        self._blocks_wanted = 0
        return [m for _, m in found[: self._block_limit]]

    def reusable(self, move: Move) -> dict[Colour, Paths]:
        """The distance maps of this position that ``analysis.paths_after`` can carry past ``move``: the
        opponent's always, the mover's unless it lays its last piece of a kind (its crossings change
        everywhere)."""
        ref = self._ref
        mover = ref.to_move
        assert mover is not None
        if ref.inventory[mover][move.piece.kind] > 1:
            return {mover: self.mine, mover.other: self.theirs}
        return {mover.other: self.theirs}

    def unchanged(self, move: Move) -> dict[Colour, Stats]:
        """The sides whose distance and spare cells ``move`` (by the side to move, not yet played)
        cannot change, with those figures: a side keeps them when the move's cell and its neighbours
        lie on none of its shortest connections, the piece opens no new one as short, and the pieces it
        can use are the same. Call before playing the move (the spare cells are counted on this board)."""
        ref = self._ref
        mover = ref.to_move
        assert mover is not None
        i, arms = move.cell.index, move.piece.arms
        out: dict[Colour, Stats] = {}
        for colour, maps in ((mover, self.mine), (mover.other, self.theirs)):
            d = maps.distance
            if d is None:
                continue
            if colour is mover:
                counts = ref.inventory[mover]
                kind = move.piece.kind
                if counts[kind] <= 1 or placeable_count(counts) - (kind is not Kind.TERMINATOR) < d:
                    continue
            through = maps.through
            if through(i) <= d or through(i, arms) <= d:
                continue
            board_arms = ref.board.arms
            if any(not board_arms[j] and through(j) <= d for j in _NEAR[i]):
                continue
            found = self._stats.get(colour)
            if found is None:
                found = self._stats[colour] = Stats(d, spare_cells(ref, maps))
            out[colour] = found
        return out

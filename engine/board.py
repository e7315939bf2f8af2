"""The board: 100 cells, placement with undo (push/pop), edge matching, legal placements, connections.

The board knows the rules of fitting and joining, not whose turn it is: the referee adds that.
Search, replay and refereeing all move through ``push``/``pop``, so they cannot disagree.

Connections are kept in a union-find with rollback: a placement joins the new piece's wave to the
waves of the neighbours it touches, so only the component through the new piece can change, and
``pop`` undoes exactly what ``push`` did.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from thoughtwave.engine.cells import CELLS, SIZE, Cell
from thoughtwave.engine.moves import Move
from thoughtwave.engine.pieces import (
    DIRECTION_NAMES,
    DIRECTIONS,
    KINDS,
    OPPOSITE,
    PIECES_OF_KIND,
    E,
    Kind,
    N,
    Piece,
    S,
    W,
)

CELL_COUNT = SIZE * SIZE
_NO_CELL = -1

# For each cell index and direction: the neighbour's index, or -1 past the rim.
NEIGHBOUR: list[dict[int, int]] = []
# For each cell index: the rim sides it lies on (N for row 1, W for column A, ...).
RIM: list[int] = []
for _cell in CELLS:
    NEIGHBOUR.append({d: (n.index if (n := _cell.neighbour(d)) else _NO_CELL) for d in DIRECTIONS})
    RIM.append(
        (N if _cell.row == 0 else 0) | (S if _cell.row == SIZE - 1 else 0)
        | (W if _cell.col == 0 else 0) | (E if _cell.col == SIZE - 1 else 0)
    )

#: LINKS[cell index]: (direction, neighbour index, direction back) for every neighbour on the board.
LINKS: list[tuple[tuple[int, int, int], ...]] = [
    tuple((d, NEIGHBOUR[i][d], OPPOSITE[d]) for d in DIRECTIONS if NEIGHBOUR[i][d] != _NO_CELL)
    for i in range(CELL_COUNT)
]
# _MOVE[i * 16 + arms]: the one Move object for that piece on that cell. Moves are immutable, so sharing
# them saves building a Piece and a Move for every placement listed or chosen (the hot path of search).
_MOVE: list[Move | None] = [
    Move(Piece(arms), CELLS[i]) if arms else None for i in range(CELL_COUNT) for arms in range(16)
]

#: FITS[fixed][need]: bit set (bit ``arms``) of the pieces whose arms agree with the neighbours,
#: where ``fixed`` has a bit per side with a neighbouring piece and ``need`` a bit per side where
#: that neighbour's wave points here.
FITS: list[list[int]] = [
    [sum(1 << arms for arms in range(1, 16) if arms & fixed == need) for need in range(16)]
    for fixed in range(16)
]
#: KIND_BITS[kind]: bit set of that kind's pieces, in the same encoding as FITS.
KIND_BITS: dict[Kind, int] = {k: sum(1 << p.arms for p in PIECES_OF_KIND[k]) for k in KINDS}
ALL_PIECE_BITS = sum(KIND_BITS.values())


def piece_bits(counts: dict[Kind, int]) -> int:
    """The bit set of pieces available from an inventory (kinds with at least one left)."""
    bits = 0
    for kind, count in counts.items():
        if count > 0:
            bits |= KIND_BITS[kind]
    return bits


def bits_to_pieces(bits: int) -> list[Piece]:
    """Expand a piece bit set into pieces, ordered by arm mask."""
    return [Piece(arms) for arms in range(1, 16) if bits >> arms & 1]


class Board:
    """A 10x10 board with placement, undo and connection tracking.

    >>> b = Board(); b.push(Move.parse("ew@A1")); b.sides_joined(Cell.parse("A1")) == W | E
    False
    """

    __slots__ = ("arms", "need", "fixed", "_free", "_parent", "_size", "_sides", "_history")

    def __init__(self) -> None:
        self.arms: list[int] = [0] * CELL_COUNT      # 0 = empty
        self.need: list[int] = [0] * CELL_COUNT      # sides whose neighbour's wave points here
        self.fixed: list[int] = [0] * CELL_COUNT     # sides that have a neighbouring piece
        self._free = CELL_COUNT                      # empty cells with no neighbouring piece
        self._parent = list(range(CELL_COUNT))
        self._size = [1] * CELL_COUNT
        self._sides = [0] * CELL_COUNT               # per component root: rim sides its wave leaves by
        self._history: list[tuple[int, list[tuple[int, int, int]]]] = []

    # ---- reading -------------------------------------------------------------------------
    def __getitem__(self, cell: Cell) -> Piece | None:
        arms = self.arms[cell.index]
        return Piece(arms) if arms else None

    def pieces(self) -> Iterator[tuple[Cell, Piece]]:
        """Every (cell, piece) on the board, row by row."""
        for i, arms in enumerate(self.arms):
            if arms:
                yield CELLS[i], Piece(arms)

    def __len__(self) -> int:
        return len(self._history)

    def moves(self) -> list[Move]:
        """The placements on the board, oldest first."""
        return [_MOVE[i * 16 + self.arms[i]] for i, _ in self._history]

    def fits(self, move: Move) -> bool:
        """Whether ``move`` goes on an empty cell and agrees with every neighbouring edge."""
        i = move.cell.index
        return self.arms[i] == 0 and move.piece.arms & self.fixed[i] == self.need[i]

    def mismatch(self, move: Move) -> tuple[int, Cell] | None:
        """The first side (n, e, s, w order) where ``move`` disagrees with a neighbour, or None."""
        i = move.cell.index
        for d in DIRECTIONS:
            if self.fixed[i] & d and (move.piece.arms & d) != (self.need[i] & d):
                return d, CELLS[NEIGHBOUR[i][d]]
        return None

    def mismatch_sentence(self, move: Move) -> str | None:
        """``"blank west edge of nes@B2 touches the wave of A2"``, or None when it fits."""
        found = self.mismatch(move)
        if found is None:
            return None
        d, other = found
        side = DIRECTION_NAMES[d]
        if move.piece.arms & d:
            return f"wave on the {side} edge of {move} touches the blank edge of {other}"
        return f"blank {side} edge of {move} touches the wave of {other}"

    def fitting_bits(self, cell: Cell) -> int:
        """Bit set of the pieces that fit on ``cell`` (0 when it is taken)."""
        i = cell.index
        return 0 if self.arms[i] else FITS[self.fixed[i]][self.need[i]]

    def legal_pieces(self, cell: Cell, available: int = ALL_PIECE_BITS) -> list[Piece]:
        """The pieces from the ``available`` bit set that may go on ``cell``."""
        return bits_to_pieces(self.fitting_bits(cell) & available)

    def legal_placements(self, available: int = ALL_PIECE_BITS) -> Iterator[Move]:
        """Every legal placement of a piece from ``available``, cell by cell (a cheap generator)."""
        return self.placements_at(range(CELL_COUNT), available)

    def placements_at(self, cells: Iterable[int], available: int = ALL_PIECE_BITS) -> Iterator[Move]:
        """The legal placements of a piece from ``available`` on the cells with these indices."""
        arms, fixed, need = self.arms, self.fixed, self.need
        for i in cells:
            if arms[i] == 0:
                bits = FITS[fixed[i]][need[i]] & available
                base = i * 16
                while bits:
                    low = bits & -bits
                    yield _MOVE[base + low.bit_length() - 1]
                    bits ^= low

    def has_legal_placement(self, available: int) -> bool:
        """Whether any piece from ``available`` may go anywhere."""
        if not available:
            return False
        if self._free:
            return True
        arms, fixed, need = self.arms, self.fixed, self.need
        for i in range(CELL_COUNT):
            if arms[i] == 0 and FITS[fixed[i]][need[i]] & available:
                return True
        return False

    def random_placement(self, available: int, rng: random.Random) -> Move | None:
        """A uniformly random (cell, then piece) legal placement from ``available``, or None."""
        arms, fixed, need = self.arms, self.fixed, self.need
        random = rng.random
        for _ in range(24):
            i = int(random() * CELL_COUNT)
            if arms[i] == 0:
                bits = FITS[fixed[i]][need[i]] & available
                if bits:
                    return _MOVE[i * 16 + _random_bit(bits, rng)]
        options = [i for i in range(CELL_COUNT) if arms[i] == 0 and FITS[fixed[i]][need[i]] & available]
        if not options:
            return None
        i = options[int(random() * len(options))]
        return _MOVE[i * 16 + _random_bit(FITS[fixed[i]][need[i]] & available, rng)]

    # ---- connections ------------------------------------------------------------------------
    def _find(self, i: int) -> int:
        parent = self._parent
        while parent[i] != i:
            i = parent[i]
        return i

    def sides_joined(self, cell: Cell) -> int:
        """The rim sides (N/E/S/W bits) that the wave through ``cell`` leaves the board by."""
        if not self.arms[cell.index]:
            return 0
        return self._sides[self._find(cell.index)]

    def joins(self, sides: int) -> bool:
        """Whether one wave leaves the board by every side in ``sides`` (e.g. ``W | E``)."""
        for i in range(CELL_COUNT):
            if self.arms[i] and self._parent[i] == i and self._sides[i] & sides == sides:
                return True
        return False

    def wave(self, cell: Cell) -> list[Cell]:
        """Every cell whose wave is joined to the wave through ``cell`` (for highlighting)."""
        if not self.arms[cell.index]:
            return []
        root = self._find(cell.index)
        return [CELLS[i] for i in range(CELL_COUNT) if self.arms[i] and self._find(i) == root]

    def joining_wave(self, sides: int) -> list[Cell]:
        """The cells of a wave that leaves by every side in ``sides``, or [] when none does."""
        for i in range(CELL_COUNT):
            if self.arms[i] and self._parent[i] == i and self._sides[i] & sides == sides:
                return self.wave(CELLS[i])
        return []

    # ---- changing ---------------------------------------------------------------------------
    def push(self, move: Move) -> None:
        """Lay ``move`` on the board. The cell must be empty; edges are not checked here
        (the referee checks them first), but only matching arms join waves."""
        i = move.cell.index
        if self.arms[i]:
            raise ValueError(f"{move.cell} is already taken")
        arms = move.piece.arms
        self.arms[i] = arms
        if not self.fixed[i]:
            self._free -= 1
        undo: list[tuple[int, int, int]] = []
        parent, size, sides = self._parent, self._size, self._sides
        board_arms, fixed, need = self.arms, self.fixed, self.need
        sides[i] = arms & RIM[i]
        for d, j, back in LINKS[i]:
            if board_arms[j] == 0:
                if not fixed[j]:
                    self._free -= 1
                fixed[j] |= back
                if arms & d:
                    need[j] |= back
            elif arms & d and board_arms[j] & back:
                a, b = self._find(i), self._find(j)
                if a != b:
                    if size[a] < size[b]:
                        a, b = b, a
                    undo.append((b, a, sides[a]))
                    parent[b] = a
                    size[a] += size[b]
                    sides[a] |= sides[b]
        self._history.append((i, undo))

    def pop(self) -> Move:
        """Take back the last placement and return it."""
        i, undo = self._history.pop()
        arms = self.arms[i]
        parent, size, sides = self._parent, self._size, self._sides
        for b, a, old_sides in reversed(undo):
            parent[b] = b
            size[a] -= size[b]
            sides[a] = old_sides
        sides[i] = 0
        board_arms, fixed, need = self.arms, self.fixed, self.need
        for _, j, back in LINKS[i]:
            if board_arms[j] == 0:
                fixed[j] &= ~back
                need[j] &= ~back
                if not fixed[j]:
                    self._free += 1
        board_arms[i] = 0
        if not fixed[i]:
            self._free += 1
        return _MOVE[i * 16 + arms]

    def snapshot(self) -> tuple:
        """Everything the board holds, for comparing two boards exactly (tests, resumption)."""
        return (
            tuple(self.arms), tuple(self.need), tuple(self.fixed), self._free,
            tuple(self._parent), tuple(self._size), tuple(self._sides),
            tuple((i, tuple(u)) for i, u in self._history),
        )

    def copy(self) -> Board:
        """An independent board with the same placements (and the same undo history)."""
        other = Board.__new__(Board)
        other.arms, other.need, other.fixed = self.arms[:], self.need[:], self.fixed[:]
        other._free = self._free
        other._parent, other._size, other._sides = self._parent[:], self._size[:], self._sides[:]
        other._history = [(i, list(u)) for i, u in self._history]
        return other


def _random_bit(bits: int, rng: random.Random) -> int:
    """The position of a uniformly chosen set bit."""
    for _ in range(int(rng.random() * bits.bit_count())):
        bits &= bits - 1          # drop the lowest set bit
    return (bits & -bits).bit_length() - 1

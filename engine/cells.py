"""Cells of the 10x10 board, named ``A1``..``J10``: columns A-J west to east, rows 1-10 north to south."""

from __future__ import annotations

from dataclasses import dataclass

from thoughtwave.engine.pieces import DIRECTIONS, E, N, NotationError, S, W

SIZE = 10
COLUMNS = "ABCDEFGHIJ"
_STEP = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}


@dataclass(frozen=True, slots=True, order=True)
class Cell:
    """A square of the board by 0-based column and row. ``str(Cell(4, 4)) == "E5"``."""

    row: int
    col: int

    def __post_init__(self) -> None:
        if not (0 <= self.col < SIZE and 0 <= self.row < SIZE):
            raise NotationError(f"({self.col}, {self.row}) is off the board")

    @property
    def index(self) -> int:
        """Position in a row-major list of the 100 cells: ``Cell.parse("B1").index == 1``."""
        return self.row * SIZE + self.col

    @classmethod
    def from_index(cls, index: int) -> Cell:
        """Inverse of ``index``."""
        return CELLS[index]

    @classmethod
    def parse(cls, text: str) -> Cell:
        """``Cell.parse("e5") == Cell(row=4, col=4)``; any case, surrounding spaces ignored."""
        t = text.strip().upper()
        digits = t[1:]
        # isascii: str.isdigit also accepts "²" and other digits that int() cannot read
        if len(t) < 2 or t[0] not in COLUMNS or not (digits.isascii() and digits.isdigit()):
            raise NotationError(f"{text.strip()!r} is not a cell: use a letter A-J and a number 1-10")
        if len(digits) > 2 or not 1 <= int(digits) <= SIZE:
            raise NotationError(f"{text.strip()!r} is not a cell: rows go from 1 to 10")
        return CELLS[(int(digits) - 1) * SIZE + COLUMNS.index(t[0])]

    def neighbour(self, direction: int) -> Cell | None:
        """The cell next to this one in ``direction``, or None past the rim."""
        dc, dr = _STEP[direction]
        c, r = self.col + dc, self.row + dr
        if 0 <= c < SIZE and 0 <= r < SIZE:
            return CELLS[r * SIZE + c]
        return None

    def neighbours(self) -> list[tuple[int, Cell]]:
        """(direction, cell) for each neighbour on the board."""
        out = []
        for d in DIRECTIONS:
            n = self.neighbour(d)
            if n is not None:
                out.append((d, n))
        return out

    def __str__(self) -> str:
        return f"{COLUMNS[self.col]}{self.row + 1}"

    def __repr__(self) -> str:
        return f"Cell.parse({str(self)!r})"


CELLS: tuple[Cell, ...] = tuple(
    object.__new__(Cell) for _ in range(SIZE * SIZE)
)
for _i, _c in enumerate(CELLS):
    object.__setattr__(_c, "row", _i // SIZE)
    object.__setattr__(_c, "col", _i % SIZE)

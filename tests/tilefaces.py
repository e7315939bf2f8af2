"""Tiles drawn onto the reader's own top-down board: a tile face at the reader's scale and where a cell's
centre falls (the tile-reader tests paint faces there, then disturb the light)."""

from __future__ import annotations

import numpy as np

from thoughtwave.engine import Cell, Colour, Piece
from thoughtwave.vision.artwork import BoardLayout, tile_image
from thoughtwave.vision.finder import BoardFinder

GEOMETRY = BoardFinder().geometry
P, M = GEOMETRY.px_per_cell, GEOMETRY.margin_px


def face(colour: Colour, piece: str) -> np.ndarray:
    """The printed face of a ``colour`` tile holding ``piece`` ("ew"), 4 px a millimetre."""
    return tile_image(colour, Piece.parse(piece), int(round(BoardLayout().tile_mm * 4.0))).copy()


def centre(cell: Cell) -> tuple[float, float]:
    """Where ``cell``'s centre falls on the reader's top-down board, in pixels."""
    return M + (cell.col + 0.5) * P, M + (cell.row + 0.5) * P

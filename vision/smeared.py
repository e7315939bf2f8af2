"""Tiles of a frame smeared by a shaken camera, read again from the frame with the motion blur deconvolved.

When a shaken camera smears the markers too much to decode, the finder estimates the straight-line motion
blur and finds the board in a deconvolved copy (``vision.deblur``, ``FinderResult.motion``). The tiles are
first read from the smeared frame itself, and the cells the blur keeps from being read are named
``Cause.MOTION``. This module deconvolves the board's part of the frame (each colour channel, in linear
light, Wiener) with that blur, warps it with the same pose and reads it with the same reader and the same
confidence rules; a cell unreadable for motion in the smeared picture takes the deconvolved picture's
reading when that one is sure (an empty cell or a whole tile). So does a tile the smeared picture reads with less
than ``SMEARED_TILE_MIN`` confidence (it keeps its first reading where the deconvolved picture says nothing). Every
other cell keeps its first reading: deconvolution rings, and a cell the smeared picture already reads surely gains
nothing from it. Once a smear is known, though, no cell is read empty surely enough to take a tile off
(``paper_unsure_smeared``).

A smaller shake leaves the markers readable while it smears the tiles past reading: there the blur is measured on
the decoded markers (``vision.markerblur``) and every unreadable cell no hand covers is read again the same way.
The deconvolved board keeps some of the blur (the estimate is not exact), so it is read as a blurred picture.

Only a frame whose markers needed deconvolving, or a soft one with cells left unreadable, pays for this (a crop
around the board, three FFTs, or for a few cells a small crop around each; measuring the blur on the markers 20-40
ms): a sharp frame costs nothing.
"""

from __future__ import annotations

import math

import numpy as np

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.vision.causes import Cause
from thoughtwave.vision.deblur import Motion, deblurred_colour
from thoughtwave.vision.tilemodel import WASHED_OUT, TileReadout
from thoughtwave.vision.tiles import LIGHT_ONLY_EMPTY

#: A tile read from a frame whose markers needed deconvolving with less confidence than this (0.5 + half its least
#: margin) is read again from the deconvolved board, which has the last word where it reads the cell: a 7.4 px smear
#: across a wave's end read seed 11's scene 76624 I10, a black nsw, as black nw at 0.51 from the smeared picture, and
#: an 8.1 px one with a hand's shadow over the wave's end seed 83's frame 174 J7, a black nes, as black ns at 0.63.
SMEARED_TILE_MIN = 0.65
#: A part of a frame: x0, y0, x1, y1 (px, the end excluded).
Box = tuple[int, int, int, int]
#: The crop around the board reaches this many blur lengths (and ``REACH_PX``) beyond the grid image's extent,
#: so the reflected border of the deconvolution rings outside what is read.
REACH_LENGTHS = 2.0
REACH_PX = 12
#: A few cells read again are deconvolved each with this much of a cell around it (what their reading looks at) ...
CELL_MARGIN = 0.5
#: ... when their parts of the frame add up to less than this share of the board's (each costs about its area).
PARTS_SHARE = 0.6


def board_box(corners_px: np.ndarray, motion: Motion, shape: tuple[int, ...]) -> Box:
    """(x0, y0, x1, y1): the part of a frame of ``shape`` to deconvolve, around ``corners_px`` (the grid image's
    corners in the frame, (N, 2)) widened by the blur's reach, clipped to the frame."""
    reach = int(math.ceil(REACH_LENGTHS * motion.length_px)) + REACH_PX
    lo = np.floor(np.min(corners_px, axis=0)).astype(int) - reach
    hi = np.ceil(np.max(corners_px, axis=0)).astype(int) + reach
    h, w = shape[:2]
    return max(0, int(lo[0])), max(0, int(lo[1])), min(w, int(hi[0])), min(h, int(hi[1]))


def cell_boxes(corners_px: np.ndarray, cells: list[int], motion: Motion,
               shape: tuple[int, ...]) -> list[tuple[Box, Box]]:
    """For each of ``cells`` (by ``Cell.index``; ``corners_px``: the (11, 11, 2) cell corners in the frame), the part
    of a frame of ``shape`` the reader looks at to read it (the cell and ``CELL_MARGIN`` of a cell around it: the
    second opinion's view, the paper-white estimate's reach) and the part to deconvolve for it (that, widened as
    ``board_box`` widens the board), both (x0, y0, x1, y1) clipped to the frame."""
    boxes = []
    for i in cells:
        row, col = divmod(i, 10)
        quad = corners_px[row:row + 2, col:col + 2].reshape(4, 2)
        lo, hi = quad.min(axis=0), quad.max(axis=0)
        grow = CELL_MARGIN * (hi - lo)
        x0, y0 = np.floor(lo - grow).astype(int)
        x1, y1 = np.ceil(hi + grow).astype(int)
        read = max(0, int(x0)), max(0, int(y0)), min(shape[1], int(x1)), min(shape[0], int(y1))
        boxes.append((read, board_box(np.array([lo - grow, hi + grow]), motion, shape)))
    return boxes


def deblurred_frame(frame: np.ndarray, motion: Motion, box: Box,
                    parts: list[tuple[Box, Box]] | None = None) -> np.ndarray:
    """A copy of the BGR ``frame`` with ``motion`` deconvolved from each channel inside ``box`` (x0, y0, x1, y1), or,
    given ``parts`` (``cell_boxes``) that cover less than ``PARTS_SHARE`` of it, only inside each part's first box
    (each deconvolved in its second: the blur's reach around it, so the reflected border rings outside what is kept)."""
    out = frame.copy()
    if parts is not None and sum(_area(outer) for _, outer in parts) < PARTS_SHARE * _area(box):
        inverses: dict[tuple[int, int], np.ndarray] = {}    # the blur's inverse by padded size: crops share a few
        for (x0, y0, x1, y1), (u0, v0, u1, v1) in parts:
            if x1 - x0 >= 8 and y1 - y0 >= 8:
                sharper = deblurred_colour(frame[v0:v1, u0:u1], motion, inverses=inverses)
                out[y0:y1, x0:x1] = sharper[y0 - v0:y1 - v0, x0 - u0:x1 - u0]
        return out
    x0, y0, x1, y1 = box
    if x1 - x0 < 8 or y1 - y0 < 8:
        return out
    out[y0:y1, x0:x1] = deblurred_colour(frame[y0:y1, x0:x1], motion)
    return out


def _area(box: Box) -> int:
    return max(0, box[2] - box[0]) * max(0, box[3] - box[1])


def smeared_cells(readout: TileReadout) -> list[int]:
    """Indices (``Cell.index``) of the cells unreadable only because the picture is smeared."""
    return [i for i, cell in enumerate(CELLS) if readout.causes.get(cell) is Cause.MOTION
            and readout.state[cell.row, cell.col] == 2]


def unsure_tiles_smeared(readout: TileReadout, minimum: float = SMEARED_TILE_MIN) -> dict[int, float]:
    """Set aside the tiles ``readout`` (of a frame smeared past decoding its markers) read with a confidence under
    ``minimum``: unreadable for the motion, so the deconvolved re-read reads them (``take_sharper``). Returns their
    confidences by ``Cell.index``, for ``restore_unsure``."""
    unsure = {}
    for i in np.flatnonzero(((readout.state == 1) & (readout.confidence < minimum)).ravel()):
        cell = CELLS[i]
        unsure[int(i)] = float(readout.confidence[cell.row, cell.col])
        _unread(readout, cell, "smeared: no sure reading", Cause.MOTION)
    return unsure


def _unread(readout: TileReadout, cell: Cell, why: str, cause: Cause) -> None:
    """Leave ``cell`` of ``readout`` unreadable, for ``why`` (the reader's reason) and ``cause`` (the players')."""
    readout.state[cell.row, cell.col] = 2
    readout.confidence[cell.row, cell.col] = 0.0
    readout.why[cell] = why
    readout.causes[cell] = cause


def restore_unsure(readout: TileReadout, unsure: dict[int, float]) -> int:
    """Give the tiles set aside (``unsure_tiles_smeared``) that the re-read left unreadable their first reading back
    (its arms and colour stayed): the deconvolved board is the better judge of a smeared tile, but where it says
    nothing the smeared reading stands as before. Returns how many."""
    back = 0
    for i, confidence in unsure.items():
        cell = CELLS[i]
        if readout.state[cell.row, cell.col] == 2 and readout.causes.get(cell) is Cause.MOTION:
            readout.state[cell.row, cell.col] = 1
            readout.confidence[cell.row, cell.col] = confidence
            readout.why.pop(cell, None)
            readout.causes.pop(cell, None)
            back += 1
    return back


def uncovered_unreadable(readout: TileReadout) -> list[int]:
    """Indices (``Cell.index``) of the cells unreadable, not covered by a hand and not where a tile may be washed out
    whole: its ink is not there to bring back, and a deconvolved clipped picture can look like clean paper."""
    return [int(i) for i in np.flatnonzero((readout.state == 2) & ~readout.occluded)
            if readout.why.get(CELLS[i]) != WASHED_OUT]


def traceless_smeared(readout: TileReadout) -> int:
    """Leave unreadable, for the glare, the cells ``readout`` read empty though their clipped middle shows nothing
    (``TileReadout.traceless``), once a smear is measured on the markers: it spreads the light the clip hides into a
    washed tile's faint trace (``cellmeasures.traceless``), so such a middle may hold a tile. Returns how many."""
    if readout.traceless is None:
        return 0
    at = np.flatnonzero((readout.traceless & (readout.state == 0)).ravel())
    for i in at:
        _unread(readout, CELLS[i], WASHED_OUT, Cause.GLARE)
    return int(at.size)


def paper_unsure_smeared(readout: TileReadout) -> int:
    """Read every empty cell of ``readout`` at ``LIGHT_ONLY_EMPTY`` at most, once a smear is known (the finder
    deconvolved the markers, or a blur is measured on them): what tells paper from pale skin over a tile, the paper's
    grain and the printed grid line at its borders, is what a smear wipes out first, so such a cell is paper by its
    light alone (seed 179 frame 81 D7, a red nw under a pale hand in a frame smeared 5.5 px, read empty at 1.00: the
    rules saw no hand, the networks saw the cell uncovered, and the line measure found half the board's line at its
    blurred borders). Too unsure to take a tile off (``vision.stabiliser.GONE_CONFIDENCE_MIN``); a still frame, once
    the shake has passed, can. Returns how many were lowered."""
    lowered = (readout.state == 0) & (readout.confidence > LIGHT_ONLY_EMPTY)
    readout.confidence[lowered] = LIGHT_ONLY_EMPTY
    return int(lowered.sum())


def take_sharper(readout: TileReadout, again: TileReadout, cells: list[int]) -> int:
    """Give ``readout``'s ``cells`` (unreadable, by ``Cell.index``) the readings of ``again`` (the same board read
    from the deconvolved picture) where that one is sure; their reason and cause go. Returns how many were taken."""
    taken = 0
    for i in cells:
        cell = CELLS[i]
        if again.state[cell.row, cell.col] == 2 or readout.state[cell.row, cell.col] != 2:
            continue
        for name in ("state", "arms", "red", "confidence", "occluded", "centre", "angle"):
            # (10, 10, ...) or (100, ...) arrays alike: row-major, so a cell's index is its place in either.
            target = getattr(readout, name).reshape(100, -1)
            target[i] = getattr(again, name).reshape(100, -1)[i]
        readout.why.pop(cell, None)
        readout.causes.pop(cell, None)
        taken += 1
    return taken

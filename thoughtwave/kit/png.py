"""The kit as PNGs: board.png with its pixel map board.json, one PNG per tile face and per calibration sheet."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from thoughtwave.engine.cells import SIZE
from thoughtwave.engine.pieces import ALL_PIECES, Colour
from thoughtwave.engine.sides import Sides
from thoughtwave.kit.sheets import Progress, quiet
from thoughtwave.vision.artwork import BoardLayout, SheetArt, board_image, tile_image

#: White paper kept around a calibration sheet in its PNG (its detector needs a quiet zone).
SHEET_QUIET_MM = 10.0


def sheet_image(sheet: SheetArt, px_per_mm: float, quiet_mm: float = SHEET_QUIET_MM) -> np.ndarray:
    """The sheet as a grey uint8 image at ``px_per_mm`` with ``quiet_mm`` of white around it (pixel (0, 0)'s
    centre sits at mm (0.5 / px_per_mm - quiet_mm) of the sheet): edges drawn at 4x and averaged down."""
    sw, sh = sheet.size_mm
    w = int(round((sw + 2 * quiet_mm) * px_per_mm))
    h = int(round((sh + 2 * quiet_mm) * px_per_mm))
    fine = 4
    shift = 4  # fillPoly's sub-pixel bits
    image = np.full((h * fine, w * fine), 255, np.uint8)
    scale = px_per_mm * fine * (1 << shift)
    rects = (np.asarray(sheet.black_mm, np.float64) + quiet_mm) * scale
    x0, y0, x1, y1 = rects.T
    # A fine pixel is covered when its centre is inside: the corners move half a fine pixel in.
    half = 0.5 * (1 << shift)
    quads = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                      np.stack([x0, y1], 1)], axis=1) - half
    cv2.fillPoly(image, list(np.round(quads).astype(np.int32)), 0, lineType=cv2.LINE_8, shift=shift)
    return cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)


def board_map(layout: BoardLayout, dpi: float) -> dict:
    """The pixel map of board.png at ``dpi``, in OpenCV coordinates (integers are pixel centres)."""
    ppm = dpi / 25.4

    def px(point_mm: tuple[float, float] | np.ndarray) -> list[float]:
        return [round(float(v) * ppm - 0.5, 3) for v in point_mm]

    return {
        "dpi": int(dpi) if float(dpi).is_integer() else dpi,
        "cell_mm": layout.cell_mm,
        "cell_px": round(layout.cell_mm * ppm, 4),
        "tile_px": round(layout.tile_mm * ppm, 4),
        "grid_origin_px": px(layout.grid_origin_mm),
        "cols": SIZE,
        "rows": SIZE,
        "size_px": [int(round(layout.width_mm * ppm)), int(round(layout.height_mm * ppm))],
        "markers": [{"id": m.id, "corners_px": [px(c) for c in m.corners_mm()]} for m in layout.markers],
    }


def _save_png(path: Path, image_bgr: np.ndarray, dpi: float) -> None:
    from PIL import Image  # reportlab's own dependency; writes the pHYs chunk so viewers print at size

    Image.fromarray(np.ascontiguousarray(image_bgr[..., ::-1])).save(path, dpi=(dpi, dpi), optimize=False)


def write_png_set(directory: str | Path, layout: BoardLayout, dpi: float = 200, red_sides: Sides = Sides.WE,
                  progress: Progress = quiet, sheets: tuple[SheetArt, ...] = ()) -> list[Path]:
    """Write board.png, board.json and tile-<colour>-<piece>.png for both colours and all 15 pieces, and
    <name>.png for each calibration sheet in ``sheets``."""
    red_sides = Sides.parse(red_sides)  # the notation given for it is accepted too; board.json gets the notation
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    ppm = dpi / 25.4
    written = []
    board = out / "board.png"
    _save_png(board, board_image(layout, ppm, red_sides), dpi)
    written.append(board)
    progress("board.png")
    mapping = out / "board.json"
    mapping.write_text(json.dumps({**board_map(layout, dpi), "red_sides": red_sides}, indent=1) + "\n")
    written.append(mapping)
    size = max(1, int(round(layout.tile_mm * ppm)))
    for colour in Colour:
        for piece in ALL_PIECES:
            path = out / f"tile-{colour.value}-{piece}.png"
            _save_png(path, tile_image(colour, piece, size, layout.tile), dpi)
            written.append(path)
        progress(f"{colour} tiles")
    for sheet in sheets:
        path = out / f"{sheet.name}.png"
        _save_png(path, cv2.cvtColor(sheet_image(sheet, ppm), cv2.COLOR_GRAY2BGR), dpi)
        written.append(path)
        progress(path.name)
    return written

"""The printed board and tiles: the single source of truth for print, the synthetic camera and the reader.

Geometry is in millimetres on the board sheet: origin at its top-left corner, x right (east), y down
(south). A raster image at ``px_per_mm`` maps pixel ``(x, y)`` (OpenCV's convention: integers are pixel
centres) to mm ``((x + 0.5) / ppm, (y + 0.5) / ppm)``.

The artwork is described once as shapes (rectangles, discs, ArUco markers, labels) by ``board_shapes``
and ``tile_shapes``; ``board_image``/``tile_image`` rasterise them and ``thoughtwave.kit`` draws the
same shapes as PDF vectors, so print and camera can never disagree.

Tile design (the reader relies on it): the face is the player colour to the edge; the wave is a cream
band from the centre to each armed edge, plus a cream hub disc; red tiles also carry four cream dots
near the corners, so colour can be told by shape when glare or a cheap printer spoils the hue. Every
proportion of it is a field of ``TileGeometry`` (``TILE`` is the printed one): the printer draws it, the
synthetic camera renders it and the reader (``vision.tileframe``) samples it from there.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from thoughtwave.engine.cells import CELLS, COLUMNS, SIZE, Cell
from thoughtwave.engine.pieces import DIRECTIONS, Colour, E, N, Piece, S, W
from thoughtwave.engine.sides import Sides

#: The ArUco dictionary of the board's markers (ids 0..7 are used).
ARUCO_DICTIONARY: int = cv2.aruco.DICT_4X4_50

BGR = tuple[int, int, int]
RED_BGR: BGR = (40, 30, 200)
BLACK_BGR: BGR = (35, 35, 35)
WAVE_BGR: BGR = (225, 240, 245)
PAPER_BGR: BGR = (245, 248, 250)
GRID_BGR: BGR = (200, 200, 200)
LABEL_BGR: BGR = (70, 70, 70)
CELL_NAME_BGR: BGR = (222, 226, 228)
MARKER_BGR: BGR = (0, 0, 0)
QUIET_BGR: BGR = (255, 255, 255)



@dataclass(frozen=True)
class TileGeometry:
    """A tile's artwork as fractions of its edge; ``size`` is the tile's edge as a fraction of the cell's.

    The default (``TILE``) is the printed design: a cream wave band 0.30 of the edge wide, a hub disc of
    diameter 0.44 and, on red tiles, dots of diameter 0.12 centred 0.17 in from each side; tiles are cut
    0.96 of a cell so they drop in without jamming. ``BoardLayout(tile=...)`` carries another one to the
    printer, the synthetic camera and the reader alike. The reader finds a tile's centre where the hub
    stands out of the band: with a band within about 0.1 of the hub's diameter it loses the centre of
    straight tiles (they read as unreadable, never wrong).
    """

    size: float = 0.96
    wave_width: float = 0.30
    hub_diameter: float = 0.44
    dot_diameter: float = 0.12
    dot_inset: float = 0.17

    def __post_init__(self) -> None:
        for name in ("size", "wave_width", "hub_diameter", "dot_diameter", "dot_inset"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < value < 1.0:
                raise ValueError(f"tile {name} must be a fraction between 0 and 1, not {value!r}")
        if not self.wave_width < self.hub_diameter:
            raise ValueError("the hub must be wider than the wave band")
        if not self.dot_diameter / 2 < self.dot_inset:
            raise ValueError("the corner dots must lie inside the tile")

    @property
    def wave_half(self) -> float:
        """Half the wave band's width: the band runs this far either side of the centre line."""
        return self.wave_width / 2

    @property
    def hub_radius(self) -> float:
        return self.hub_diameter / 2

    @property
    def dot_radius(self) -> float:
        return self.dot_diameter / 2

    @property
    def dot_offset(self) -> float:
        """How far each corner dot's centre is from the tile's centre, along both axes."""
        return 0.5 - self.dot_inset


#: The printed tile.
TILE = TileGeometry()
#: Board margin bands in cell edges, from the grid outward: gap, colour bar, gap, labels, marker quiet
#: zone, marker, outer quiet zone. The quiet zones are one marker module (a marker is 6 modules).
_GAP_TO_BAR = 0.04
_BAR = 0.14
_GAP_TO_LABELS = 0.04
_LABELS = 0.26
_MARKER = 1.2
_QUIET = _MARKER / 6
MARGIN_CELLS = _GAP_TO_BAR + _BAR + _GAP_TO_LABELS + _LABELS + _QUIET + _MARKER + _QUIET
_GRID_LINE_MM = 0.3
_LABEL_HEIGHT = 0.18
_CELL_NAME_HEIGHT = 0.09
_CELL_NAME_INSET = 0.07



@dataclass(frozen=True)
class Marker:
    """A square ArUco marker on the board, axis aligned and upright (its top edge faces north)."""

    id: int
    center_mm: tuple[float, float]
    size_mm: float

    def corners_mm(self) -> np.ndarray:
        """(4, 2) float32 corners in OpenCV's order: top-left, top-right, bottom-right, bottom-left."""
        cx, cy = self.center_mm
        h = self.size_mm / 2
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32)


@dataclass(frozen=True)
class BoardLayout:
    """Where everything is on the printed board, in mm. ``BoardLayout(25.0).width_mm == 354.0``."""

    cell_mm: float = 25.0
    tile: TileGeometry = TILE
    markers: tuple[Marker, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.cell_mm, bool) or not isinstance(self.cell_mm, numbers.Real):
            raise ValueError(f"cell size must be a number of mm, not {self.cell_mm!r}")
        if not 20.0 <= self.cell_mm <= 40.0:  # also refuses NaN
            raise ValueError(f"cell size {self.cell_mm!r} mm is outside 20..40 mm")
        object.__setattr__(self, "cell_mm", float(self.cell_mm))
        if not isinstance(self.tile, TileGeometry):
            raise ValueError(f"tile must be a TileGeometry, not {self.tile!r}")
        c = self.cell_mm
        w, h = self.width_mm, self.height_mm
        inset = (_QUIET + _MARKER / 2) * c  # marker centre from the sheet edge
        centres = [
            (inset, inset), (w / 2, inset), (w - inset, inset), (w - inset, h / 2),
            (w - inset, h - inset), (w / 2, h - inset), (inset, h - inset), (inset, h / 2),
        ]
        markers = tuple(Marker(i, (float(x), float(y)), _MARKER * c) for i, (x, y) in enumerate(centres))
        object.__setattr__(self, "markers", markers)

    @property
    def margin_mm(self) -> float:
        """Width of the rim around the grid (labels, colour bars, markers)."""
        return MARGIN_CELLS * self.cell_mm

    @property
    def width_mm(self) -> float:
        """Width of the whole printed board."""
        return SIZE * self.cell_mm + 2 * self.margin_mm

    @property
    def height_mm(self) -> float:
        """Height of the whole printed board."""
        return self.width_mm

    @property
    def grid_origin_mm(self) -> tuple[float, float]:
        """(x, y) of A1's top-left corner."""
        return (self.margin_mm, self.margin_mm)

    @property
    def tile_mm(self) -> float:
        """Edge of a cut tile: a little smaller than a cell."""
        return self.tile.size * self.cell_mm

    def cell_center_mm(self, cell: Cell) -> tuple[float, float]:
        """Centre of ``cell`` on the sheet."""
        x0, y0 = self.grid_origin_mm
        return (x0 + (cell.col + 0.5) * self.cell_mm, y0 + (cell.row + 0.5) * self.cell_mm)

    def cell_corners_mm(self, cell: Cell) -> np.ndarray:
        """(4, 2) float32 corners of ``cell``: top-left, top-right, bottom-right, bottom-left."""
        x0, y0 = self.grid_origin_mm
        c = self.cell_mm
        left, top = x0 + cell.col * c, y0 + cell.row * c
        return np.array([[left, top], [left + c, top], [left + c, top + c], [left, top + c]], np.float32)


# --- shapes: the one description of the artwork --------------------------------------------------


@dataclass(frozen=True)
class Rect:
    """An axis-aligned filled rectangle from (x0, y0) to (x1, y1)."""

    x0: float
    y0: float
    x1: float
    y1: float
    bgr: BGR


@dataclass(frozen=True)
class Disc:
    """A filled disc."""

    cx: float
    cy: float
    r: float
    bgr: BGR


@dataclass(frozen=True)
class Label:
    """Text centred on (cx, cy) with capital letters ``height`` tall."""

    text: str
    cx: float
    cy: float
    height: float
    bgr: BGR


Shape = Rect | Disc | Marker | Label


@dataclass(frozen=True, eq=False)
class SheetArt:
    """A printed calibration sheet (e.g. ``calibration.lens.sheet_art()``): black rectangles in sheet mm
    (``black_mm`` (N, 4): x0, y0, x1, y1, origin top-left, y down) on white, with the words printed above it."""

    name: str
    title: str
    size_mm: tuple[float, float]
    black_mm: np.ndarray
    instruction: str
    caption: str = ""


@lru_cache(maxsize=64)
def marker_bits(marker_id: int) -> np.ndarray:
    """The 6x6 module matrix of a marker, black border included: True where the module is black."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    image = dictionary.generateImageMarker(marker_id, 6, borderBits=1)
    bits = image < 128
    bits.setflags(write=False)
    return bits


def _side_of(direction: int) -> str:
    return {N: "N", E: "E", S: "S", W: "W"}[direction]


def board_shapes(layout: BoardLayout, red_sides: Sides = Sides.WE) -> list[Shape]:
    """The board artwork as shapes in mm, painted in order (later shapes cover earlier ones).

    ``red_sides`` may also be given in its notation; anything else raises ValueError."""
    red = Sides.parse(red_sides).bits  # NotationError is a ValueError
    c = layout.cell_mm
    gx, gy = layout.grid_origin_mm
    g = SIZE * c
    shapes: list[Shape] = [Rect(0.0, 0.0, layout.width_mm, layout.height_mm, PAPER_BGR)]
    for marker in layout.markers:  # white quiet zones first, so nothing else may creep into them
        q = _QUIET * c
        (x0, y0), (x1, y1) = marker.corners_mm()[0], marker.corners_mm()[2]
        shapes.append(Rect(float(x0) - q, float(y0) - q, float(x1) + q, float(y1) + q, QUIET_BGR))
    for cell in CELLS:
        x, y = gx + cell.col * c, gy + cell.row * c
        h = _CELL_NAME_HEIGHT * c
        # centred label: half a text width (about 0.9 of the height per character) in from the corner
        shapes.append(Label(str(cell), x + _CELL_NAME_INSET * c + 0.45 * h * len(str(cell)),
                            y + _CELL_NAME_INSET * c + h / 2, h, CELL_NAME_BGR))
    half = _GRID_LINE_MM / 2
    for k in range(SIZE + 1):
        shapes.append(Rect(gx + k * c - half, gy - half, gx + k * c + half, gy + g + half, GRID_BGR))
        shapes.append(Rect(gx - half, gy + k * c - half, gx + g + half, gy + k * c + half, GRID_BGR))
    near, far = _GAP_TO_BAR * c, (_GAP_TO_BAR + _BAR) * c
    for d in DIRECTIONS:
        bgr = RED_BGR if d & red else BLACK_BGR
        if d == N:
            shapes.append(Rect(gx, gy - far, gx + g, gy - near, bgr))
        elif d == S:
            shapes.append(Rect(gx, gy + g + near, gx + g, gy + g + far, bgr))
        elif d == W:
            shapes.append(Rect(gx - far, gy, gx - near, gy + g, bgr))
        else:
            shapes.append(Rect(gx + g + near, gy, gx + g + far, gy + g, bgr))
    label_mid = (_GAP_TO_BAR + _BAR + _GAP_TO_LABELS + _LABELS / 2) * c
    lh = _LABEL_HEIGHT * c
    for i in range(SIZE):
        along = (i + 0.5) * c
        shapes.append(Label(COLUMNS[i], gx + along, gy - label_mid, lh, LABEL_BGR))
        shapes.append(Label(COLUMNS[i], gx + along, gy + g + label_mid, lh, LABEL_BGR))
        shapes.append(Label(str(i + 1), gx - label_mid, gy + along, lh, LABEL_BGR))
        shapes.append(Label(str(i + 1), gx + g + label_mid, gy + along, lh, LABEL_BGR))
    shapes.extend(layout.markers)
    return shapes


def tile_shapes(colour: Colour, piece: Piece, tile: TileGeometry = TILE) -> list[Rect | Disc]:
    """A tile face as shapes in units of the tile edge (0..1), painted in order."""
    background = RED_BGR if colour is Colour.RED else BLACK_BGR
    shapes: list[Rect | Disc] = [Rect(0.0, 0.0, 1.0, 1.0, background)]
    lo, hi = 0.5 - tile.wave_half, 0.5 + tile.wave_half
    arms = {N: Rect(lo, 0.0, hi, 0.5, WAVE_BGR), E: Rect(0.5, lo, 1.0, hi, WAVE_BGR),
            S: Rect(lo, 0.5, hi, 1.0, WAVE_BGR), W: Rect(0.0, lo, 0.5, hi, WAVE_BGR)}
    shapes.extend(arms[d] for d in DIRECTIONS if piece.has(d))
    shapes.append(Disc(0.5, 0.5, tile.hub_radius, WAVE_BGR))
    if colour is Colour.RED:
        for x in (tile.dot_inset, 1 - tile.dot_inset):
            for y in (tile.dot_inset, 1 - tile.dot_inset):
                shapes.append(Disc(x, y, tile.dot_radius, WAVE_BGR))
    return shapes


# --- rasterising -----------------------------------------------------------------------------------


def _coverage(a: float, b: float, scale: float, n: int) -> tuple[int, np.ndarray]:
    """First pixel index and the fraction of each pixel in [first, ...) covered by the span [a, b]."""
    first = max(0, int(np.floor(a * scale)))
    last = min(n, int(np.ceil(b * scale)))
    if last <= first:
        return first, np.zeros(0, np.float32)
    edges = np.arange(first, last + 1, dtype=np.float64) / scale
    cover = (np.minimum(edges[1:], b) - np.maximum(edges[:-1], a)) * scale
    return first, np.clip(cover, 0.0, 1.0).astype(np.float32)


def _blend(image: np.ndarray, y0: int, x0: int, alpha: np.ndarray, bgr: BGR) -> None:
    if alpha.size == 0:
        return
    h, w = alpha.shape
    region = image[y0:y0 + h, x0:x0 + w].astype(np.float32)
    a = alpha[..., None]
    region = region * (1.0 - a) + np.asarray(bgr, np.float32) * a
    image[y0:y0 + h, x0:x0 + w] = np.rint(region).astype(np.uint8)


def _paint_rect(image: np.ndarray, rect: Rect, scale: float) -> None:
    h, w = image.shape[:2]
    x0, cx = _coverage(rect.x0, rect.x1, scale, w)
    y0, cy = _coverage(rect.y0, rect.y1, scale, h)
    full_x, full_y = np.flatnonzero(cx >= 1.0), np.flatnonzero(cy >= 1.0)
    if full_x.size == 0 or full_y.size == 0:
        _blend(image, y0, x0, np.outer(cy, cx), rect.bgr)
        return
    # Fully covered pixels form one block (coverage is 1 everywhere inside a span): assign it, blend the rim.
    fx0, fx1, fy0, fy1 = full_x[0], full_x[-1] + 1, full_y[0], full_y[-1] + 1
    image[y0 + fy0:y0 + fy1, x0 + fx0:x0 + fx1] = rect.bgr
    _blend(image, y0, x0, np.outer(cy[:fy0], cx), rect.bgr)
    _blend(image, y0 + fy1, x0, np.outer(cy[fy1:], cx), rect.bgr)
    _blend(image, y0 + fy0, x0, np.outer(cy[fy0:fy1], cx[:fx0]), rect.bgr)
    _blend(image, y0 + fy0, x0 + fx1, np.outer(cy[fy0:fy1], cx[fx1:]), rect.bgr)


def _paint_disc(image: np.ndarray, disc: Disc, scale: float) -> None:
    h, w = image.shape[:2]
    r = disc.r * scale
    cx, cy = disc.cx * scale, disc.cy * scale
    x0, x1 = max(0, int(np.floor(cx - r - 1))), min(w, int(np.ceil(cx + r + 1)))
    y0, y1 = max(0, int(np.floor(cy - r - 1))), min(h, int(np.ceil(cy + r + 1)))
    if x1 <= x0 or y1 <= y0:
        return
    xs = np.arange(x0, x1, dtype=np.float32) + 0.5 - cx
    ys = np.arange(y0, y1, dtype=np.float32) + 0.5 - cy
    dist = np.sqrt(ys[:, None] ** 2 + xs[None, :] ** 2)
    _blend(image, y0, x0, np.clip(r - dist + 0.5, 0.0, 1.0), disc.bgr)


def _paint_marker(image: np.ndarray, marker: Marker, scale: float) -> None:
    h, w = image.shape[:2]
    bits = marker_bits(marker.id).astype(np.float32)
    left, top = float(marker.corners_mm()[0][0]), float(marker.corners_mm()[0][1])
    module = marker.size_mm / 6
    # Exact area coverage of every pixel by every module, separable per axis: alpha = Cy @ bits @ Cx.T
    x0, _ = _coverage(left, left + marker.size_mm, scale, w)
    y0, _ = _coverage(top, top + marker.size_mm, scale, h)
    x1 = min(w, int(np.ceil((left + marker.size_mm) * scale)))
    y1 = min(h, int(np.ceil((top + marker.size_mm) * scale)))
    cx = np.zeros((x1 - x0, 6), np.float32)
    cy = np.zeros((y1 - y0, 6), np.float32)
    for m in range(6):
        fx, covx = _coverage(left + m * module, left + (m + 1) * module, scale, w)
        cx[fx - x0:fx - x0 + covx.size, m] = covx
        fy, covy = _coverage(top + m * module, top + (m + 1) * module, scale, h)
        cy[fy - y0:fy - y0 + covy.size, m] = covy
    _blend(image, y0, x0, np.clip(cy @ bits @ cx.T, 0.0, 1.0), MARKER_BGR)


def _paint_label(image: np.ndarray, label: Label, scale: float) -> None:
    height_px = label.height * scale
    if height_px < 6:  # below ~6 px text is a smudge that helps nobody and could look like a mark
        return
    font = cv2.FONT_HERSHEY_SIMPLEX
    (tw, th), _ = cv2.getTextSize(label.text, font, 1.0, 1)
    font_scale = height_px / th
    thickness = max(1, int(round(height_px / 9)))
    (tw, th), _ = cv2.getTextSize(label.text, font, font_scale, thickness)
    org = (int(round(label.cx * scale - tw / 2)), int(round(label.cy * scale + th / 2)))
    cv2.putText(image, label.text, org, font, font_scale, label.bgr, thickness, cv2.LINE_AA)


def _paint(image: np.ndarray, shapes: list, scale: float) -> None:
    for shape in shapes:
        if isinstance(shape, Rect):
            _paint_rect(image, shape, scale)
        elif isinstance(shape, Disc):
            _paint_disc(image, shape, scale)
        elif isinstance(shape, Marker):
            _paint_marker(image, shape, scale)
        else:
            _paint_label(image, shape, scale)


def board_image(layout: BoardLayout, px_per_mm: float, red_sides: Sides = Sides.WE) -> np.ndarray:
    """The printed board as a BGR uint8 image of shape (round(h * ppm), round(w * ppm), 3)."""
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be positive, not {px_per_mm!r}")
    shape = (int(round(layout.height_mm * px_per_mm)), int(round(layout.width_mm * px_per_mm)), 3)
    image = np.empty(shape, np.uint8)
    image[:] = PAPER_BGR  # the first shape is this paper sheet: filled directly, no blend over the whole image
    _paint(image, board_shapes(layout, red_sides)[1:], px_per_mm)
    return image


def tile_image(colour: Colour, piece: Piece, size_px: int, tile: TileGeometry = TILE) -> np.ndarray:
    """The face of one tile (edge = ``tile_mm``) as a BGR uint8 image (size_px, size_px, 3)."""
    if size_px < 1:
        raise ValueError(f"size_px must be at least 1, not {size_px!r}")
    image = np.empty((size_px, size_px, 3), np.uint8)
    _paint(image, tile_shapes(colour, piece, tile), float(size_px))
    return image

"""Why a cell cannot be read, as far as the picture shows it, and what the players can do about it.

The reader says ``unreadable`` rather than guess; this module names the cause it can see, in the order
a player would fix them: something covers the cell (``HAND``), a reflection washes it out (``GLARE``),
it lies in shadow or the light is too dim (``SHADOW``), the picture is smeared by a shaken camera or
table (``MOTION``) or out of focus (``FOCUS``), the cell is too few pixels in the picture (``SMALL``),
it reads differently from frame to frame (``UNSTEADY``, decided by the stabiliser over time), or, when
none of those shows, the cell looks like neither clean paper nor a whole tile (``UNCLEAR``: a tile lifted,
pushed or covered in part, or a soft mark on the paper). ``explain`` gives every unreadable cell one of them;
``None`` (a caller that never asked) keeps the old message ("can't read E5: ...").

Everything here is measured only when a frame has an unreadable cell, so a good frame costs nothing.

>>> from thoughtwave.engine.cells import Cell
>>> cause_message(Cause.GLARE, Cell.parse("E5"))
'glare on E5: tilt the lamp or the board'
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.phrases import Phrase, Words


class Cause(enum.StrEnum):
    """What keeps a cell from being read (the value is the JSON word)."""

    HAND = "hand"
    GLARE = "glare"
    SHADOW = "shadow"
    MOTION = "motion"
    FOCUS = "focus"
    SMALL = "small"
    UNSTEADY = "unsteady"
    UNCLEAR = "unclear"


_MESSAGES = {
    Cause.HAND: "something covers {cell}: take hands and objects off the board",
    Cause.GLARE: "glare on {cell}: tilt the lamp or the board",
    Cause.SHADOW: "{cell} is in shadow: move what casts it or add light",
    Cause.MOTION: "{cell} is smeared, the camera moved: hold the table still",
    Cause.FOCUS: "{cell} is blurred: focus the camera on the board",
    Cause.SMALL: "{cell} is too small in the picture: lower the camera or raise its resolution",
    Cause.UNSTEADY: "{cell} reads differently from frame to frame: keep hands and shadows off it",
    Cause.UNCLEAR: "{cell} looks like neither an empty cell nor a whole tile: lay its tile flat or clear what is on it",
}


def cause_message(cause: Cause | None, cell: Cell) -> str:
    """The flag message for an unreadable ``cell``, in a player's words, with advice: English ``Words`` that
    keep the phrase ``unreadable-<cause>`` with the cell, so a display says it in the players' language."""
    if cause is None:
        return f"can't read {cell}: clear anything covering it or check the light"
    return Words(Phrase.of(f"unreadable-{cause.value}", _MESSAGES[cause].format(cell=cell), cell=str(cell)))


class Lost(enum.StrEnum):
    """Why no board was found in a frame, as far as the whole picture shows it (the value is the JSON word):
    a bright light in view leaves the rest dark (``LAMP``: its exposure is set by the light), the picture is too
    dark (``DARK``) or washed out (``WASHED``), it is blurred (``BLURRED``: a shaken camera or table, or out of focus),
    or some of the board's markers show but too few to place it by (``MARKERS``). None: nothing of these shows (the
    camera points elsewhere, or the markers are covered)."""

    LAMP = "lamp"
    DARK = "dark"
    WASHED = "washed"
    BLURRED = "blurred"
    MARKERS = "markers"


#: The message when no cause shows (``Lost`` None): the loop's own words since before causes were named.
LOST_MESSAGE = "can't see the board: check the camera and that all four corner markers are in view"

#: Why the board cannot be seen and what to do, after "can't see the board, " (``lost_message``).
_LOST_REASONS = {
    Lost.LAMP: "a bright light in view leaves the rest of the picture dark: turn the lamp away from the camera",
    Lost.DARK: "the picture is too dark: add light over the board",
    Lost.WASHED: "the picture is washed out: dim the light or turn it away from the board",
    Lost.BLURRED: "the picture is blurred: hold the camera and the table still and check the focus",
    Lost.MARKERS: "it shows only {seen} of its {markers} markers: uncover the rest or aim the camera at the whole "
                  "board",
}

#: A picture whose median grey level is under this is too dark to find the board in (the finder looks at it again
#: brightened, ``vision.finder.DARK_MEDIAN``; a board it still does not find is lost in the dark) ...
DARK_PICTURE = 48
#: ... and one that dark with this share of it at ``LAMP_LEVEL`` or brighter has a light in view, which sets the
#: exposure (path-traced seeds 179 frame 56, 199 frame 160 and 227 frame 17: the lamp's sphere over 4-25% of the
#: picture at 200 and more, the board's paper at grey 3-5).
LAMP_SHARE, LAMP_LEVEL = 0.005, 200
#: A picture whose median grey level is this or more is washed out.
WASHED_PICTURE = 235
#: A picture whose edges are wider than this (px, ``sharpness`` of the whole frame) is blurred: sharp path-traced
#: frames measure 1.5-4.1 px whatever their depth of field, those smeared 7-9 px 4.8-11.5 (seed 149's first 80 frames
#: and the boards the reader loses to a smear: seeds 149 frame 48, 179 frame 68, 191 frame 183).
BLURRED_PICTURE_PX = 4.5
#: ... where the finder saw at least this many marker-like squares it could not decode (a smooth picture, a wall or a
#: bare table, has wide edges and none).
BLURRED_SQUARES = 4


def lost_cause(image: np.ndarray, seen: int, undecoded: int = 0) -> Lost | None:
    """Why no board was found in ``image`` (BGR or grey, uint8) where ``seen`` of the board's markers were decoded and
    ``undecoded`` marker-like squares were not (``BoardFinder.undecoded``), as far as the picture shows it (``Lost``),
    or None. Looked at only in a frame without a board."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA) if min(grey.shape) >= 64 else grey
    median = _quantile(small, 0.5)
    if median < DARK_PICTURE:
        return Lost.LAMP if np.count_nonzero(small >= LAMP_LEVEL) >= LAMP_SHARE * small.size else Lost.DARK
    if median >= WASHED_PICTURE:
        return Lost.WASHED
    if undecoded >= BLURRED_SQUARES and sharpness(grey).width > BLURRED_PICTURE_PX:
        return Lost.BLURRED
    return Lost.MARKERS if seen else None


def lost_message(lost: Lost | None, seen: int = 0, markers: int = 8) -> str:
    """What the players are told when the board is lost for ``lost`` (``seen`` of its ``markers`` showing): English
    ``Words`` that keep the phrase ``board-lost-<cause>``, so a display says it in the players' language; the loop's
    old words (``LOST_MESSAGE``) for None."""
    if lost is None:
        return LOST_MESSAGE
    return Words(Phrase.of(f"board-lost-{lost.value}", f"can't see the board, {lost_reason(lost, seen, markers)}",
                           seen=seen, markers=markers))


def lost_reason(lost: Lost, seen: int = 0, markers: int = 8) -> str:
    """Why the board cannot be seen and what to do, in English (``lost_message`` without its opening words)."""
    return _LOST_REASONS[lost].format(seen=seen, markers=markers)


@dataclass(frozen=True)
class LostBoard:
    """Why a frame showed no board: ``cause`` (``Lost``; None: nothing in the picture shows why), and ``seen`` of the
    board's ``markers`` decoded."""

    cause: Lost | None
    seen: int = 0
    markers: int = 8

    def message(self) -> str:
        """What the players are told (``lost_message``)."""
        return lost_message(self.cause, self.seen, self.markers)

    def reason(self) -> str | None:
        """Why, and what to do, in English (``lost_reason``); None where the picture does not show why."""
        return None if self.cause is None else lost_reason(self.cause, self.seen, self.markers)


#: A cell whose paper white is under this share of the board's median white is in shadow ...
SHADOW_LIGHT = 0.7
#: ... and so is one whose paper is darker than this (grey levels): the light is too dim there.
DARK_PAPER = 60.0
#: ... and so is one across which the light falls below this share of its brightest (a shadow's edge).
SHADOW_EDGE = 0.85
#: Paper this bright (its mean grey level, near clipping) is over-lit: the ink on it washes out.
BRIGHT_PAPER = 245.0
#: Share of a cell clipped white (every channel at or above ``CLIPPED_LEVEL``) that counts as glare.
GLARE_SHARE = 0.02
CLIPPED_LEVEL = 250
#: The grid image is blurred when its edges are wider than this share of a cell (about 3 px when sharp,
#: at 32 px a cell) ...
BLUR_WIDTH = 0.16
#: ... or this many times wider than the recent sharp frames' edges (a drop in sharpness).
BLUR_DROP = 1.6
#: Edges this one-sided (0 the same in every direction, 1 along one direction only) are motion blur.
MOTION_ANISOTROPY = 0.7
#: Edges wider than this share of a cell blur a small dot or a thin blank enough to leave a cell in doubt,
#: though the rest of the board reads (about 3.8 px at 32 px a cell; sharp frames measure 2-3.5 px): a
#: cell no other cause explains is then named blurred.
SOFT_BLUR_WIDTH = 0.12
#: A cell no other cause explains whose middle spans less than this from its bright to its dark end and
#: shows no colour holds no ink: a soft shade (a hand's or a lamp's, softer than ``SHADOW_EDGE`` sees)
#: or a grey object darkens it.
SOFT_SPREAD = 2.3
#: ... and one whose paper is this much brighter than the board's median white lies in the lamp's sheen.
SHEEN_LIGHT = 1.18
#: Paper lit this much above the board's white is in a sheen whatever else the cell shows: a hand's own white is never
#: taken for paper so bright (none of 901 cells under a hand on the tuning sets; 22 cells in a sheen named hand).
SHEEN_FAR = 1.3
#: A hand reaches beyond the cells the reader sees it over and those beside them: its shadow falls a cell or two off
#: it, and pale skin (a fingertip's, a palm's edge) shows too little colour to be seen as a hand. A cell no other cause
#: explains (else named ``UNCLEAR``, or ``SMALL`` for its size alone) within this many cells of one the reader sees
#: covered is named ``HAND``: taking the hand off is what makes it readable. (Tuning sets 149-67 and 7's first 60: of 63
#: such cells two cells off a hand the reader saw, 60 lay within two cells of one the hand truly covered, 46 beside
#: one, and one three cells off; one more lay in a frame whose hand covered no cell whole, and one in a frame with no
#: hand, a tile whose why already says something beside it may cover a wave's end.)
HAND_REACH = 2
#: Cells narrower than this in the camera's picture (px) are too small to read surely (calibration's
#: check wants the same: ``calibration.checks`` takes it from here).
GOOD_CELL_PX = 28.0


@dataclass(frozen=True)
class Sharpness:
    """How sharp a grid image is: ``width`` of its edges in grid px (the widest direction) and how
    one-sided the blur is (``anisotropy`` 0..1: motion blur smears along one direction)."""

    width: float
    anisotropy: float


def _quantile(values: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` (any shape) by one partition: cheaper than ``np.percentile``."""
    return _quantiles(values, q)[0]


def _quantiles(values: np.ndarray, *qs: float) -> list[float]:
    """The ``qs`` quantiles of ``values`` (any shape), each as ``_quantile`` takes it, by one partition for all."""
    flat = values.ravel()
    ks = [min(flat.size - 1, max(0, int(q * flat.size))) for q in qs]
    ordered = np.partition(flat, ks)
    return [float(ordered[k]) for k in ks]


def sharpness(grid: np.ndarray) -> Sharpness:
    """The edge width and blur direction of a (BGR or grey) grid image."""
    grey = grid if grid.ndim == 2 else cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY)
    grey = grey.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    # Every other pixel each way: the quantiles of a quarter of the pixels are as good and four times cheaper.
    gx, gy, sample = gx[::2, ::2], gy[::2, ::2], grey[::2, ::2]
    high, low = _quantiles(sample, 0.95, 0.05)
    contrast = high - low
    widths = []
    # The board's edges run along the grid (0 and 90 degrees): across the diagonals they look wider
    # by about the square root of two even when sharp, which the factor takes out.
    for angle, factor in ((0, 1.0), (45, 0.75), (90, 1.0), (135, 0.75)):
        a = np.radians(angle)
        # Along x, ``gx * 1.0 + gy * 0.0`` in float64 is ``gx`` itself (signed zeros aside, which ``abs`` takes): its
        # quantile is taken on ``gx`` as it is, the same number. (Along y, cos 90 degrees is 6e-17, not 0.)
        across = np.abs(gx) if angle == 0 else np.abs(gx * np.cos(a) + gy * np.sin(a))
        steepest = _quantile(across, 0.995)
        widths.append(factor * contrast / max(steepest, 1e-3))
    magnitude = cv2.magnitude(gx, gy)
    strong = magnitude > _quantile(magnitude, 0.97)
    # The structure tensor of the strongest edges: motion keeps only the edges across its path sharp.
    sx, sy = gx[strong], gy[strong]
    jxx, jyy, jxy = float(sx @ sx), float(sy @ sy), float(sx @ sy)
    trace = jxx + jyy
    spread = np.sqrt(max(0.0, (jxx - jyy) ** 2 / 4 + jxy * jxy))
    return Sharpness(float(max(widths)), float(2 * spread / trace) if trace > 0 else 0.0)


@dataclass(frozen=True)
class CellLight:
    """Per cell (arrays indexed by ``Cell.index``): the paper white as a share of the board's median
    white (``light``, the dimmest around the cell's middle, so a shadow's edge across it counts), the
    paper's grey level (``paper``), the share clipped white (``clipped``) and the dimmest light across
    the cell and its rim against the brightest (``evenness``: low where a shadow's edge crosses it)."""

    light: np.ndarray
    paper: np.ndarray
    clipped: np.ndarray
    evenness: np.ndarray


def blur_cause(sharp: Sharpness | None, px_per_cell: int, reference: float | None = None,
               limit: float = BLUR_WIDTH) -> Cause | None:
    """``MOTION`` or ``FOCUS`` when the grid image is blurred (edges wider than ``limit`` of a cell, or
    against ``reference``, the edge width of recent sharp frames), else None."""
    if sharp is None:
        return None
    blurred = sharp.width > limit * px_per_cell or (reference is not None and sharp.width > BLUR_DROP * reference)
    if not blurred:
        return None
    return Cause.MOTION if sharp.anisotropy > MOTION_ANISOTROPY else Cause.FOCUS


def diagnose(unreadable: np.ndarray, occluded: np.ndarray, glare: np.ndarray, light: CellLight,
             blur: Cause | None = None, cell_px: np.ndarray | None = None,
             glare_max: float = 1.10, plain: np.ndarray | None = None) -> dict[Cell, Cause]:
    """The cause of each unreadable cell (arrays of 100 by ``Cell.index``; ``glare`` the reader's white
    against its neighbourhood, ``cell_px`` each cell's width in the camera's picture, ``plain`` whether
    its middle holds no ink: an even, colourless middle); cells with no visible cause are left out."""
    out: dict[Cell, Cause] = {}
    # A hand covers cells in part beyond those it hides, and shades the ones beside them.
    beside = cv2.dilate(np.asarray(occluded, np.uint8).reshape(10, 10), np.ones((3, 3), np.uint8)).ravel() > 0
    # A picture dark all over (a dim room, or a bright lamp in view that the exposure follows) looks like a hand
    # everywhere to the occlusion test: there the dim light is the cause the players can fix.
    dim = float(np.median(light.paper)) < DARK_PAPER
    for i in np.flatnonzero(unreadable):
        # Clipped white is glare whatever else (a glossy highlight in a warm lamp's colour looks as hand-like as skin;
        # on tuning seed 7 no cell named hand in a frame with a hand clipped); a cell merely brighter than its
        # neighbourhood may be the lit side of a shadow's edge, so shadow is judged first. A small cell, warped up to
        # the grid, looks blurred: small comes before blur.
        if light.clipped[i] > GLARE_SHARE or light.light[i] >= SHEEN_FAR:
            cause = Cause.GLARE
        elif occluded[i] and not (dim and light.paper[i] < DARK_PAPER):
            cause = Cause.HAND
        elif light.light[i] < SHADOW_LIGHT or light.paper[i] < DARK_PAPER or light.evenness[i] < SHADOW_EDGE:
            cause = Cause.SHADOW
        elif glare[i] > glare_max or (light.paper[i] >= BRIGHT_PAPER and blur is None):
            cause = Cause.GLARE     # (bright paper that shows no clipping in a blurred picture: the blur's cell)
        elif beside[i]:
            cause = Cause.HAND
        elif cell_px is not None and cell_px[i] < GOOD_CELL_PX:
            cause = Cause.SMALL
        elif blur is not None:
            cause = blur
        elif plain is not None and plain[i] and light.light[i] < SHEEN_LIGHT:
            cause = Cause.SHADOW
        elif light.light[i] >= SHEEN_LIGHT:
            cause = Cause.GLARE
        else:
            continue
        out[CELLS[i]] = cause
    return out


def explain(unreadable: np.ndarray, occluded: np.ndarray, glare: np.ndarray, light: CellLight, *,
            glare_max: float, cell_px: np.ndarray | None, moved: bool, measure: Callable[[], Sharpness],
            px_per_cell: int, reference: float | None = None, plain: np.ndarray | None = None,
            unplaced: np.ndarray | None = None, overlaid: np.ndarray | None = None,
            shadowed: np.ndarray | None = None) -> tuple[dict[Cell, Cause], Sharpness | None]:
    """A cause for EVERY unreadable cell (see ``diagnose``), and the grid image's sharpness when it was
    measured (``measure`` is called only when some cell is not explained by hands, light or size).

    ``moved``: the finder saw the camera move (every cell smeared, so not judged small either). A cell
    still unexplained is named blurred when the picture is a little soft (``SOFT_BLUR_WIDTH``), else
    ``UNCLEAR``; one so named, or named ``SMALL``, within ``HAND_REACH`` cells of a covered one is the hand's.

    ``unplaced``: cells the pose is too unsure to place, resting on too few markers. Smeared ones when the picture
    is even a little soft (a smear that leaves the tiles readable still drags markers past decoding: seed 61 frame
    101, 7.9 px, measured under ``BLUR_WIDTH``), else hidden ones (``HAND``). ``overlaid``: tiles a hand beside may
    cover the end of a wave of (``HAND``, but in a picture dark all over, where everything looks like a hand, the dim
    light: ``SHADOW``); ``shadowed``: tiles with a wave's end in a shadow (``SHADOW``)."""
    causes = diagnose(unreadable, occluded, glare, light, Cause.MOTION if moved else None,
                      None if moved else cell_px, glare_max, plain)
    sharp = None
    if len(causes) < int(np.count_nonzero(unreadable)) and not moved:
        sharp = measure()
        blur = blur_cause(sharp, px_per_cell, reference)
        if blur is not None:
            causes = diagnose(unreadable, occluded, glare, light, blur, cell_px, glare_max, plain)
    soft = blur_cause(sharp, px_per_cell, None, SOFT_BLUR_WIDTH) or Cause.UNCLEAR
    for i in np.flatnonzero(unreadable):
        causes.setdefault(CELLS[i], soft)
    # Near a hand the reader sees (not in a picture dark all over, where all looks like a hand: see ``diagnose``).
    covered = np.asarray(occluded, bool).ravel()
    if covered.any() and float(np.median(light.paper)) >= DARK_PAPER:
        reach = np.ones((2 * HAND_REACH + 1,) * 2, np.uint8)
        near = cv2.dilate(covered.astype(np.uint8).reshape(10, 10), reach).ravel() > 0
        for i in np.flatnonzero(np.asarray(unreadable, bool).ravel() & near):
            if causes[CELLS[i]] in (Cause.UNCLEAR, Cause.SMALL):
                causes[CELLS[i]] = Cause.HAND
    if unplaced is not None and unplaced.any():
        sharp = sharp or measure()
        cause = blur_cause(sharp, px_per_cell, reference, SOFT_BLUR_WIDTH) or Cause.HAND
        causes.update({CELLS[i]: cause for i in np.flatnonzero(unplaced)})
    placed = np.ones(len(CELLS), bool) if unplaced is None else ~unplaced
    if shadowed is not None:
        causes.update({CELLS[i]: Cause.SHADOW for i in np.flatnonzero(shadowed & placed)})
    if overlaid is not None:
        dim = float(np.median(light.paper)) < DARK_PAPER         # see ``diagnose``
        causes.update({CELLS[i]: Cause.SHADOW if dim else Cause.HAND for i in np.flatnonzero(overlaid & placed)})
    return causes, sharp


def cell_sizes(corners_px: np.ndarray) -> np.ndarray:
    """(100,) width in picture px of each cell, from the (11, 11, 2) grid corners in the picture."""
    q = np.asarray(corners_px, np.float64).reshape(11, 11, 2)
    across = np.linalg.norm(q[:, 1:] - q[:, :-1], axis=2)     # (11, 10): top and bottom edges
    down = np.linalg.norm(q[1:] - q[:-1], axis=2)             # (10, 11): left and right edges
    sides = (across[:-1] + across[1:] + down[:, :-1] + down[:, 1:]) / 4
    return sides.ravel()

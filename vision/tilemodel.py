"""What the tile reader decides with and answers: the ``ColourModel`` (its thresholds, which a calibration
profile may override) and the ``TileReadout`` (its per-cell arrays, turned into ``CellReading``s)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.vision.causes import Cause
from thoughtwave.vision.reading import BoardReading, CellReading

#: Why a cell is unreadable when its middle may hold a tile glare washed out whole (``cellmeasures.washed_whole``).
WASHED_OUT = "washed out: a tile there would look as white as paper"


@dataclass(frozen=True)
class ColourModel:
    """Thresholds on the light-normalised image. A calibration profile may override any of them."""

    light_min: float = 0.85        # min channel above this: paper or cream
    paper_chroma_max: float = 0.14  # max minus min channel above this: not paper or cream
    skin_chroma_min: float = 0.10  # max minus min channel above this (and not red ink): hand-like
    shade_blue_min: float = 0.03   # ... but blue minus red above this with chroma under shade_chroma_max: shade lit
    shade_chroma_max: float = 0.2  # ... by a cooler light (a window in a cast shadow of the lamp), not skin
    red_min: float = 0.30          # red minus max(green, blue) above this: red ink
    red_ink_saturation: float = 0.58  # (red - blue) / red above this: red ink too
    dot_red_min: float = 0.06      # corner dots' mean contrast (scaled, against body) above this: red
    dot_black_max: float = 0.035   # ... below this: black (blur leaves a dot 0.1-0.6 of full contrast)
    redness_split: float = 0.16    # body redness between black (~0, 0.12 in harsh light) and red (0.18-0.6)
    redness_gap: float = 0.03      # body redness this close to the split: the hue cue abstains
    red_by_hue_min: float = 0.25   # body redness above this reads red alone when the corner dots fade (blur)
    dot_dark_max: float = 0.15     # ... unless a dot is this much darker than its ring (something over it)
    black_contrast_min: float = 0.45  # hub minus body for a black reading (blur fading red dots pales red too)
    occupied_min: float = 0.12     # body share of the cell's middle for a tile
    empty_max: float = 0.025       # body share of the cell's middle for an empty cell
    flat_spread_max: float = 1.2   # ... or a middle this even (bright end over dark end): paper in shadow
    patternless_spread_max: float = 1.45  # ... or this even where no hub stands out of a body ...
    hub_faint: float = 0.2         # ... by more than this (hub minus body cream level)
    plane_residual_max: float = 0.04  # ... or a middle this near a plane in log light (each channel): paper in shade
    shade_plane_max: float = 0.09  # ... this near it where the light is dim (noise weighs more in the log)
    bright_plane_max: float = 0.03  # ... and this near it in even light above the board's white: paper in a sheen
    hand_min_cells: float = 1.2    # a hand-like blob covers at least this many cells' area
    other_max: float = 0.08        # share of hand-like pixels a cell may hold and still be read
    arm_margin: float = 0.22       # each arm's scaled cream level must be this far from 0.5 (x2)
    hub_contrast_min: float = 0.30  # hub minus body cream level: below this it is no tile
    glare_max: float = 1.10        # a cell's white this many times its neighbourhood's: glare
    residual_max: float = 0.165    # mean difference between the patch and the ideal tile picture
    shade_light: float = 0.9       # a cell's light (share of the board's white, or across it) below this: shaded
    blank_in_shade_max: float = 0.15  # ... where a blank arm's scaled cream level must stay below this
    blank_ratio_max: float = 2.0   # a blank arm half at most this many times as light as the body beside it
    blank_red_share: float = 0.4   # a red tile's blank side shows this share of its body's redness (0.75+ seen)
    shadowed_ratio_min: float = 1.4  # a blank side this many times as light as its flanks, dark beyond: in doubt

    @classmethod
    def from_profile(cls, profile: dict | None) -> ColourModel:
        """Defaults, overridden by ``profile["colour_model"]`` keys that name a field."""
        model = cls()
        values = (profile or {}).get("colour_model") or {}
        if not isinstance(values, dict):
            return model
        known = {k: float(v) for k, v in values.items() if k in cls.__dataclass_fields__ and _is_number(v)}
        return cls(**{**model.__dict__, **known}) if known else model


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value)


@dataclass
class TileReadout:
    """The reader's arrays, indexed [row, col]: ``state`` 0 empty, 1 tile, 2 unreadable; ``arms``
    (bit mask), ``red`` (bool), ``confidence``, ``occluded``; tile ``centre`` (x, y) and ``angle``
    (radians) in grid-image pixels, for overlays and diagnosis; ``why`` says why a cell is unreadable
    (the reader's own words), ``causes`` the cause a player can fix (``vision.causes``) where one shows;
    ``paper_white`` is the board's median paper white (BGR) in the grid image; ``sharpness`` the grid
    image's edge width when it was measured (a frame with an unreadable cell)."""

    state: np.ndarray
    arms: np.ndarray
    red: np.ndarray
    confidence: np.ndarray
    occluded: np.ndarray
    centre: np.ndarray
    angle: np.ndarray
    why: dict[Cell, str]
    paper_white: np.ndarray | None = None
    causes: dict[Cell, Cause] = field(default_factory=dict)
    sharpness: float | None = None
    #: (10, 10) bool, or None: cells read empty whose clipped middle shows nothing of what lies there
    #: (``cellmeasures.traceless``), left unreadable where a smear is measured on the markers (``vision.smeared``).
    traceless: np.ndarray | None = None

    def cells(self) -> dict[Cell, CellReading]:
        """All 100 cells as ``CellReading``s."""
        out: dict[Cell, CellReading] = {}
        # As Python lists: the same numbers (a float32 confidence made a float alike), without a numpy lookup a cell.
        state, red, arms, confidence = (a.tolist() for a in (self.state, self.red, self.arms, self.confidence))
        for cell in CELLS:
            r, c = cell.row, cell.col
            conf = float(confidence[r][c])
            if state[r][c] == 0:
                out[cell] = CellReading.empty(conf)
            elif state[r][c] == 1:
                colour = Colour.RED if red[r][c] else Colour.BLACK
                out[cell] = CellReading.tile(colour, Piece(int(arms[r][c])), conf)
            else:
                out[cell] = CellReading.unreadable(conf)
        return out

    def board_reading(self, ms: float = 0.0) -> BoardReading:
        """The ``BoardReading`` for a found board."""
        covered = self.occluded.tolist()
        occluded = frozenset(c for c in CELLS if covered[c.row][c.col])
        return BoardReading(True, self.cells(), occluded=bool(occluded), occluded_cells=occluded, ms=ms,
                            causes=dict(self.causes))


def why_unread(i: int, occluded: np.ndarray, occupied: np.ndarray, contrast: np.ndarray, mdl: ColourModel,
               arms: np.ndarray, arm_margin: np.ndarray, colour_ok: np.ndarray, residual: np.ndarray,
               dim_blank: np.ndarray) -> str:
    """Why cell ``i`` (by ``Cell.index``) was not read, in a few words, from the reader's measures."""
    if occluded[i]:
        return "something covers it"
    if not occupied[i]:
        return "neither clearly empty nor clearly a tile"
    if contrast[i] <= mdl.hub_contrast_min or arms[i] == 0:
        return "no tile pattern found"
    if arm_margin[i] <= mdl.arm_margin:
        return "an arm is neither clearly wave nor blank"
    if dim_blank[i]:
        return "in dim or uneven light an arm read blank may be a darkened wave"
    if not colour_ok[i]:
        return "colour cues disagree"
    return "does not look like the piece read"

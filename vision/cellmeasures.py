"""Per-cell measures the tile reader decides with beyond a tile's own patch: how far a cell's middle ranges in
light (paper in shadow against ink), where glare may have washed a tile out whole, and where read tiles lie against
each other (overlaps, footprints)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.tileframe import in_tile_frames

if TYPE_CHECKING:
    from thoughtwave.vision.tilemodel import ColourModel

#: The middle of a cell (shares of a cell) where occupancy is judged: a tile covers it however it was laid.
MIDDLE = (0.18, 0.82)
#: The share of a cell's middle left out at each end of its brightness range (``middle_spread``).
SPREAD_QUANTILE = 0.02
#: How far ``darkest_near`` looks from each cell's centre, in cells either way.
INK_REACH = 1.0


def cell_shares(mask: np.ndarray, geometry: GridGeometry, lo: float, hi: float) -> np.ndarray:
    """(100,) share of ``mask`` pixels in the square of each cell from ``lo`` to ``hi`` (shares of a cell)."""
    p, m = geometry.px_per_cell, geometry.margin_px
    total = cv2.integral(mask.view(np.uint8))
    a0, a1 = int(round(lo * p)), int(round(hi * p))
    starts = m + np.arange(10) * p
    y0, y1 = np.ix_(starts + a0, starts + a0)[0], np.ix_(starts + a1, starts + a1)[0]
    x0, x1 = (starts + a0)[None, :], (starts + a1)[None, :]
    sums = total[y1, x1] - total[y0, x1] - total[y1, x0] + total[y0, x0]
    return (sums / float((a1 - a0) ** 2)).astype(np.float32).ravel()


def cell_middles(image: np.ndarray, geometry: GridGeometry) -> np.ndarray:
    """(100, pixels) the middle of each cell (``MIDDLE``, whole pixels within it) of a one-channel grid image, by
    ``Cell.index``."""
    p, m = geometry.px_per_cell, geometry.margin_px
    lo, hi = int(MIDDLE[0] * p), int(MIDDLE[1] * p)
    middles = image[m:m + 10 * p, m:m + 10 * p].reshape(10, p, 10, p)[:, lo:hi, :, lo:hi]
    return middles.transpose(0, 2, 1, 3).reshape(100, -1)


def middle_spread(dark: np.ndarray, geometry: GridGeometry) -> tuple[np.ndarray, np.ndarray]:
    """(100,) how far the middle of each cell ranges in ``dark`` (the light-normalised grid image's darkest
    channel): its bright end over its dark end (robust quantiles, lightly smoothed against noise). Paper in a
    soft shadow ranges near 1 whatever the shadow's depth; any ink (a tile's body against its cream) several times.
    And (100,) that bright end."""
    p, m = geometry.px_per_cell, geometry.margin_px
    lo, hi = int(round(MIDDLE[0] * p)), int(round(MIDDLE[1] * p))
    smooth = cv2.blur(dark, (3, 3))
    rows = (m + np.arange(10)[:, None] * p + np.arange(lo, hi)[None, :]).ravel()
    block = smooth[np.ix_(rows, rows)].reshape(10, hi - lo, 10, hi - lo).transpose(0, 2, 1, 3).reshape(100, -1)
    n = block.shape[1]
    k = int(SPREAD_QUANTILE * n)
    ordered = np.sort(block, axis=1)        # a few hundred values a cell: sorting beats a two-point partition
    top = ordered[:, n - 1 - k]
    return top / np.maximum(ordered[:, k], 1e-3), top


def darkest_near(dark: np.ndarray, geometry: GridGeometry, reach: float = INK_REACH) -> np.ndarray:
    """(100,) the darkest value of ``dark`` (a uint8 grey grid image) in the square ``reach`` cells either way of each
    cell's centre: how dark any ink around the cell still shows, where glare may wash ink out."""
    p, m = geometry.px_per_cell, geometry.margin_px
    k = int(2 * reach * p) | 1
    centres = (m + (np.arange(10) + 0.5) * p).astype(int)
    return cv2.erode(dark, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))[np.ix_(centres, centres)].ravel()


#: A middle clipped white over this share, with nothing darker than ``WASHED_INK`` (grey level) within a cell of it,
#: may hold a tile washed out whole (``washed_whole``) where ink lifted to under ``WASHED_TRACE`` lies that near or the
#: board's paper is under ``PAPER_DIM`` (clipping then takes light 40% above the board's), unless this share of all
#: the board's middles clips. (A twentieth, not a tenth: seed 73 frame 100 J6, a red tile in a lamp's spot, clipped a
#: tenth of its middle and read empty; 10 empty cells of 125,000 on the tuning sets pay for it.)
WASHED_MIDDLE, WASHED_INK, WASHED_TRACE, PAPER_DIM, OVEREXPOSED = 0.05, 120, 200, 180, 0.5
#: ... and so may a middle clipped over this share where the paper is under ``PAPER_HALF_DIM``: clipping there takes
#: light a fifth above the board's paper, more than a lamp's broad sheen lifts it (``causes.SHEEN_LIGHT``), so the
#: cell is in glare and a tile in it would be as white as paper (seed 67 frame 84 I5, a red ns read empty).
WASHED_MOST, PAPER_HALF_DIM = 0.5, 210
#: On an over-exposed picture a clipped middle whose darkest twentieth (unclipped) is under this share of the paper
#: level may hold a tile washed out whole (fast camera, shaken frames with a wide glare spot: five tiles read empty).
FAINT_SHARE = 0.95
#: ... and so may one beside such a middle, clipped in part: no more than this share of it (``washed_whole``; the two
#: tiles that set it, 74% and 91%; the empty middles round them, 98% and more).
WASHED_PART = 0.95


def over_exposed(middle_clipped: np.ndarray) -> bool:
    """Whether a picture is over-exposed: ``OVEREXPOSED`` of the board's middles clipped in part (over
    ``WASHED_MIDDLE``; ``middle_clipped``, the clipped share of each), a plateau of clipped paper."""
    return bool(np.mean(middle_clipped > WASHED_MIDDLE) >= OVEREXPOSED)


def washed_whole(middle_clipped: np.ndarray, dark: np.ndarray, geometry: GridGeometry,
                 paper: Callable[[], float]) -> np.ndarray:
    """(100,) cells whose middle may hold a tile washed out whole by glare: clipped white in part (``middle_clipped``,
    the clipped share of each middle) with no dark ink within a cell in ``dark`` (the grid image's darkest channel,
    uint8), where a glare spot shows: ink lifted grey within a cell (its fall-off), or clipping where the board's paper
    (``paper()``, darkest channel) is far below it. Paper a little brighter than the board's clips in specks and no
    ink washes out there. On a plateau of clipped paper where most middles clip (an over-exposed picture) neither shows:
    there a middle whose unclipped part is faintly below the paper (``FAINT_SHARE``) may hold one."""
    clipped = middle_clipped > WASHED_MIDDLE
    if not clipped.any():
        return clipped
    near = darkest_near(dark, geometry)
    level = paper()
    if over_exposed(middle_clipped):
        # An over-exposed picture: a tile washed whole by glare over it still leaves its middle's unclipped part a
        # little below the clipped paper, where an empty middle is paper to its darkest pixels.
        faint = np.percentile(cell_middles(dark, geometry), 5, axis=1) < FAINT_SHARE * level
        washed = clipped & (near > WASHED_INK) & faint
        # A glare that lifts a tile's ink to within a few percent of the paper reaches past it, and lifts the ink of a
        # tile beside it as far or further: a middle clipped in part beside one (eight ways) may hold a tile as white as
        # paper (shaken seed 20, scene 97108: a red ns and a black nesw beside such tiles, their middles' unclipped
        # parts at 0.98 and 1.00 of the board's paper, 74% and 91% clipped, read empty surely; empty middles there:
        # 1.02 and more). In the light that leaves the washed tile's ink short of clipping, a tile beside it clips in
        # part, paper whole (``WASHED_PART``): a middle clipped whole there is paper. (Without that, the shaken sweeps
        # lost 0.5-1.5 points and the flat bench's medium hands 1.6; with it, 0.05-0.2 and 3 cells of 'hard'.)
        return washed | (clipped & (near > WASHED_INK) & around(washed) & (middle_clipped <= WASHED_PART))
    return clipped & (near > WASHED_INK) & ((near <= WASHED_TRACE) | (level <= PAPER_DIM)
                                            | ((middle_clipped > WASHED_MOST) & (level <= PAPER_HALF_DIM)))


def traceless(middle_clipped: np.ndarray, dark: np.ndarray, geometry: GridGeometry,
              clipped: np.ndarray) -> np.ndarray:
    """(100,) cells of an over-exposed picture (``over_exposed``) whose middle shows
    nothing of what lies there: clipped over ``WASHED_MOST`` where the darkest ink within a cell in ``dark`` (the grid
    image's darkest channel, uint8) is lifted to ``WASHED_TRACE`` or more, the cell not clipped whole in ``clipped``
    (the grid image's clipped pixels; a cell clipped to its border is the reader's ``blind``). Glare that lifts ink a
    cell away to within a fifth of clipping takes a tile's past it a little further in, and what is left unclipped of
    a middle is all ``washed_whole`` has to find its faint trace by (``FAINT_SHARE``). A blur before the sensor clips (a
    shake's smear, soft focus) takes even that: it mixes a tile's faint ink with the light along the smear, the spot's
    light above the clip too, which the picture does not show, and lifts it to the paper's level or past clipping
    (shaken 'hard' frames, fast camera: tiles 75-100% clipped, what is left at 0.96-1.00 of the paper, read empty
    surely; seed 22's scene 56878 D10, a red ew, 83% clipped and faint when sharp, 100% smeared 3.8 px)."""
    candidates = middle_clipped > WASHED_MOST
    if not candidates.any() or not over_exposed(middle_clipped):
        return np.zeros(100, bool)
    candidates &= darkest_near(dark, geometry) >= WASHED_TRACE
    if candidates.any():
        candidates &= cell_shares(clipped, geometry, 0.0, 1.0) < 1.0
    return candidates


def overlapping(tiles: np.ndarray, cx: np.ndarray, cy: np.ndarray, residual: np.ndarray, tile_px: float) -> np.ndarray:
    """(100,) tiles read so close to a neighbour's that the two would overlap (real tiles cannot):
    of each such pair the one less like its ideal picture is doubt (a "tile" pieced together from
    the edges of its neighbours, seen through blur)."""
    ok = tiles.reshape(10, 10)
    x, y = cx.reshape(10, 10), cy.reshape(10, 10)
    bad = residual.reshape(10, 10)
    out = np.zeros((10, 10), bool)
    # Two squares of side s turned up to 15 degrees cannot have centres closer than ~0.8 s in both axes.
    limit = 0.8 * tile_px
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        a = np.s_[0:10 - dr, max(0, -dc):10 - max(0, dc)]
        b = np.s_[dr:10, max(0, dc):10 - max(0, -dc)]
        near = np.maximum(np.abs(x[a] - x[b]), np.abs(y[a] - y[b])) < limit
        clash = ok[a] & ok[b] & near
        out[a] |= clash & (bad[a] >= bad[b])
        out[b] |= clash & (bad[b] > bad[a])
    return out.ravel()


def footprints(tiles: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray, tile_px: float,
               shape: tuple[int, int]) -> np.ndarray:
    """uint8 image: each read tile's outline (a little enlarged for blur) filled with its cell index + 1."""
    out = np.zeros(shape, np.uint8)
    half = 0.5 * tile_px * 1.08 + 1
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    for i in np.flatnonzero(tiles):
        c, s = np.cos(angle[i]), np.sin(angle[i])
        corners = square @ np.array([[c, s], [-s, c]]) + (cx.ravel()[i], cy.ravel()[i])
        cv2.fillConvexPoly(out, np.rint(corners * 16).astype(np.int32), int(i) + 1, cv2.LINE_8, 4)
    return out


#: Where ``beyond_edges`` looks: across each side from this share of a tile from its centre to the next, along the
#: middle of the side (where a wave leaves the tile) this share either way.
BEYOND_ACROSS, BEYOND_ALONG = (0.62, 0.75), 0.17
#: The strip right outside a side's edge where its wave would end (``at_edges``): from the edge out (tile edges from the
#: centre; a tenth of a tile, short of the next cell's middle however the tiles lie), as wide as the wave band (0.30 of
#: the edge) either side of the side's middle, in this many columns along it.
EDGE_STRIP, EDGE_ALONG, EDGE_COLUMNS = (0.5, 0.6), 0.15, 7


def beyond_edges(mask: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray, tile_px: float) -> np.ndarray:
    """(100, 4) the share of ``mask`` just beyond the middle of each tile's sides (n, e, s, w), in the tile's own
    frame (centre ``cx``, ``cy`` in grid px, turned by ``angle``)."""
    along = np.linspace(-BEYOND_ALONG, BEYOND_ALONG, 7)
    across = np.linspace(*BEYOND_ACROSS, 3)
    a, b = (g.ravel() for g in np.meshgrid(along, across))
    # (u east, v south) of the samples beyond n, e, s, w: (4, k) each
    u = np.stack([a, b, a, -b]) * tile_px
    v = np.stack([-b, a, b, a]) * tile_px
    return in_tile_frames(mask.astype(np.float32), cx, cy, angle, u, v).mean(axis=(2, 3))


def at_edges(image: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray, tile_px: float) -> np.ndarray:
    """(n, 4, ``EDGE_COLUMNS``) ``image`` (one channel) on the strip right outside the middle of each tile's sides (n,
    e, s, w: from the edge ``EDGE_STRIP`` out, as wide as the wave band), each column across it averaged: what crosses
    a side's edge where its wave would end, column by column along it."""
    along = np.linspace(-EDGE_ALONG, EDGE_ALONG, EDGE_COLUMNS)
    a, b = (g.ravel() for g in np.meshgrid(along, np.linspace(*EDGE_STRIP, 3)))
    # (u east, v south) of the samples past n, e, s, w: (4, 3 across, columns) each
    u = (np.stack([a, b, a, -b]) * tile_px).reshape(4, 3, EDGE_COLUMNS)
    v = (np.stack([-b, a, b, a]) * tile_px).reshape(4, 3, EDGE_COLUMNS)
    return in_tile_frames(image.astype(np.float32, copy=False), cx, cy, angle, u, v).mean(axis=2)[..., 0]


def cell_shade(luma: np.ndarray, geometry: GridGeometry) -> tuple[np.ndarray, np.ndarray]:
    """(100,) each cell's light from ``luma``, the paper white's brightness at quarter size as a share of the board's
    median white (``TileReader.normalise``): the dimmest paper white around its middle, and the dimmest light across
    the cell and its rim against the brightest (low where a shadow's edge crosses it)."""
    p, m = geometry.px_per_cell, geometry.margin_px
    q = p / 4
    centres = (m / 4 + (np.arange(10) + 0.5) * q).astype(int)
    at = np.ix_(centres, centres)
    # The dimmest light around each cell's middle (3x3 quarter-size pixels: most of the middle), and
    # how much the light changes across the cell and its rim (5x5: a shadow's edge runs through it).
    box = cv2.erode(luma, np.ones((3, 3), np.uint8))[at].ravel()
    five = np.ones((5, 5), np.uint8)
    edge = (cv2.erode(luma, five)[at] / np.maximum(cv2.dilate(luma, five)[at], 1e-3)).ravel()
    return box.astype(np.float32), edge.astype(np.float32)


def facing(cells: np.ndarray) -> np.ndarray:
    """(100, 4) whether the neighbour of each cell across its n, e, s, w side is one of ``cells`` ((100,) bool; off the
    board: no)."""
    padded = np.pad(np.asarray(cells, bool).reshape(10, 10), 1)
    return np.stack([padded[:-2, 1:-1], padded[1:-1, 2:], padded[2:, 1:-1], padded[1:-1, :-2]], axis=-1).reshape(100, 4)


def around(cells: np.ndarray) -> np.ndarray:
    """(100,) ``cells`` ((100,) bool) and the cells beside them, eight ways."""
    return cv2.dilate(np.asarray(cells, np.uint8).reshape(10, 10), np.ones((3, 3), np.uint8)).ravel() > 0


#: Samples a side of each cell's middle that ``middle_unevenness`` fits a plane to.
PLANE_SAMPLES = 6


@lru_cache(maxsize=4)
def _plane_projector(n: int) -> np.ndarray:
    """(n*n, n*n) the residual projection of a least-squares plane over an n x n grid of samples."""
    u, v = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    x = np.column_stack([np.ones(n * n), u.ravel(), v.ravel()])
    projector = (np.eye(n * n) - x @ np.linalg.pinv(x)).astype(np.float32)
    projector.flags.writeable = False       # kept for the next call (a cache)
    return projector


_RESIDUAL = _plane_projector(PLANE_SAMPLES)


def middle_unevenness(grid: np.ndarray, geometry: GridGeometry) -> np.ndarray:
    """(100,) how far the middle of each cell departs from a plane in the log of each colour channel of ``grid`` (the
    raw BGR grid image; root mean square of the residual, the largest of the three channels). Light, however it
    falls across paper (a shadow's soft edge, a lamp's fall-off, a tint), is near a plane there; ink is not."""
    p, m = geometry.px_per_cell, geometry.margin_px
    n = PLANE_SAMPLES
    lo, hi = MIDDLE[0] * p, MIDDLE[1] * p
    k = max(1, int(round((hi - lo) / n)))
    at = ((np.arange(n) + 0.5) * (hi - lo) / n + lo).astype(int)
    rows = (m + np.arange(10)[:, None] * p + at[None, :]).ravel()
    # Each sample the mean of a block around it (noise averages out), and the log of the samples alone.
    samples = cv2.blur(grid, (k, k))[np.ix_(rows, rows)].astype(np.float32)
    block = np.log(samples + 4.0).reshape(10, n, 10, n, 3).transpose(0, 2, 4, 1, 3).reshape(300, n * n)
    rest = block @ _RESIDUAL.T
    return np.sqrt((rest * rest).mean(axis=1)).reshape(100, 3).max(axis=1)


#: Samples a side of each cell's middle that ``middle_edge_unevenness`` fits a plane and one soft straight edge to,
#: and the edges it tries: every ``EDGE_TURN`` radians, crossing the middle at ``EDGE_PLACES`` (in half-middles from
#: its centre, a little beyond it too: the fall-off of an edge just outside), soft over ``EDGE_WIDTHS`` (half-middles
#: from the edge's middle to where three quarters of its step is done: from under a pixel to a sixth of a cell).
EDGE_SAMPLES = 8
EDGE_TURN = np.pi / 24
EDGE_PLACES = np.linspace(-1.2, 1.2, 13)
EDGE_WIDTHS = (0.08, 0.16, 0.3, 0.5)


def _edge_steps(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The residual projection of a least-squares plane over an n x n grid of samples (n*n, n*n), and every soft
    straight edge tried, with the plane taken out and scaled to unit length (edges, n*n)."""
    plane = _plane_projector(n)
    u, v = (g.ravel() for g in np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n)))
    steps = []
    for turn in np.arange(0.0, np.pi, EDGE_TURN):
        across = u * np.cos(turn) + v * np.sin(turn)
        for place in EDGE_PLACES:
            for width in EDGE_WIDTHS:
                step = plane @ np.tanh((across - place) / width).astype(np.float32)
                size = float(np.linalg.norm(step))
                if size > 0.1:                  # an edge outside the middle is no edge in it
                    steps.append(step / size)
    return plane, np.array(steps, np.float32)


_EDGE_PLANE, _EDGE_STEPS = _edge_steps(EDGE_SAMPLES)


def middle_edge_unevenness(grid: np.ndarray, geometry: GridGeometry, cells: np.ndarray) -> np.ndarray:
    """(100,) how far the middle of each of ``cells`` ((100,) bool; the others: inf) departs from a plane plus one soft
    straight step in the log of each colour channel of ``grid`` (the raw BGR grid image; root mean square of the
    residual, the largest of the three channels, the step the same for all three). A shadow cast across paper has a soft
    straight edge at a cell's scale (the penumbra of something far larger than a cell, a hand or an arm): across it the
    light is a plane on either side and a smooth step between, and a shadow only scales the light, so in the log of
    each channel the step is added to the paper's own even light. A tile's hub is a disc in the middle, which no
    straight edge explains."""
    out = np.full(100, np.inf, np.float32)
    at_cells = np.flatnonzero(cells)
    if at_cells.size == 0:
        return out
    p, m = geometry.px_per_cell, geometry.margin_px
    n = EDGE_SAMPLES
    lo, hi = MIDDLE[0] * p, MIDDLE[1] * p
    k = max(1, int(round((hi - lo) / n)))
    at = ((np.arange(n) + 0.5) * (hi - lo) / n + lo).astype(int)
    rows, cols = np.divmod(at_cells, 10)
    ys = (m + rows[:, None] * p + at[None, :])                     # (cells, n)
    xs = (m + cols[:, None] * p + at[None, :])
    smooth = cv2.blur(grid, (k, k))
    samples = smooth[ys[:, :, None], xs[:, None, :]].astype(np.float32)   # (cells, n, n, 3)
    logs = np.log(samples + 4.0).transpose(0, 3, 1, 2).reshape(len(at_cells), 3, n * n)
    rest = logs @ _EDGE_PLANE.T                                     # the plane taken out
    total = (rest * rest).sum(axis=2)                               # (cells, 3)
    along = rest @ _EDGE_STEPS.T                                    # (cells, 3, edges)
    left = total[:, :, None] - along * along
    best = left.sum(axis=1).argmin(axis=1)                          # one edge for all three channels
    left = np.take_along_axis(left, best[:, None, None].repeat(3, axis=1), axis=2)[..., 0]
    out[at_cells] = np.sqrt(np.maximum(left, 0.0) / (n * n)).max(axis=1)
    return out


#: Box a cell's middle is smoothed over before ``middle_relief`` (shares of a cell: noise averages out, while a tile's
#: hub, 0.42 of a cell across, and its dark body between hub and wave bands, about 0.17, keep their levels), and the
#: share left out at each end of its range.
RELIEF_BOX, RELIEF_QUANTILE = 0.16, 0.02


def linear(level: np.ndarray | float) -> np.ndarray:
    """Linear light (0..1) of grey levels (0..255, any float), by the sRGB curve."""
    s = np.asarray(level, np.float64) / 255.0
    return np.where(s <= 0.04045, s / 12.92, ((np.maximum(s, 0.0) + 0.055) / 1.055) ** 2.4)


#: Each grey level's linear light (``linear``), for uint8 pictures.
LINEAR = linear(np.arange(256)).astype(np.float32)


def middle_corners(geometry: GridGeometry, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The middles (``MIDDLE``) of the cells ``at`` (indices): each one's top row and left column in the grid image,
    and their side (px)."""
    p, m = geometry.px_per_cell, geometry.margin_px
    lo, hi = int(round(MIDDLE[0] * p)), int(round(MIDDLE[1] * p))
    return m + (at // 10) * p + lo, m + (at % 10) * p + lo, hi - lo


def middle_relief(dark: np.ndarray, geometry: GridGeometry, cells: np.ndarray) -> tuple[np.ndarray, ...]:
    """For the ``cells`` (100,) bool, of ``dark`` (the grid image's darkest channel, uint8) smoothed over a small box:
    the dark and bright ends of each cell's middle (grey levels, robust quantiles) and its relief, how far the middle
    ranges in linear light once the plane that fits it best is taken out (a sheen's slope across the cell). Other cells
    get zeros. A sheen adds light: in linear light it leaves the difference between a tile's cream and its ink as the
    diffuse light makes it, and a smooth sheen over paper adds little relief beyond its slope."""
    p, m = geometry.px_per_cell, geometry.margin_px
    lo, hi = int(round(MIDDLE[0] * p)), int(round(MIDDLE[1] * p))
    n = hi - lo
    k = max(3, int(round(RELIEF_BOX * p)) | 1)
    smooth = cv2.blur(dark, (k, k))
    out = np.zeros((3, 100), np.float32)
    idx = np.flatnonzero(cells)
    if idx.size == 0:
        return out[0], out[1], out[2]
    rows, cols = m + (idx // 10) * p + lo, m + (idx % 10) * p + lo
    block = np.stack([smooth[r:r + n, c:c + n].ravel() for r, c in zip(rows, cols, strict=True)])  # (cells, n*n)
    q = int(RELIEF_QUANTILE * n * n)
    ordered = np.sort(block, axis=1)
    light = LINEAR[block]
    rest = np.sort(light @ _plane_projector(n).T, axis=1)
    out[0, idx], out[1, idx] = ordered[:, q], ordered[:, n * n - 1 - q]
    out[2, idx] = rest[:, n * n - 1 - q] - rest[:, q]
    return out[0], out[1], out[2]


#: A glare spot is the lamp's reflection blurred by the paper's gloss: a smooth lift of light a cell or more across.
#: On paper what it leaves unclipped of a cell's middle is smooth at a tile's scale, where a tile's unclipped ink dips
#: below its cream (and below a clipped cream) by the tile's relief. ``paper_in_glare`` closes the middle's light
#: (linear, smoothed over ``RELIEF_BOX``) with a square this share of a cell wide (wider than any patch of a tile's body
#: ink, 0.37 of a cell at most) and takes the dips left: a middle is paper where its deepest dip is under
#: ``GLARE_DIP_SHARE`` of a tile's relief at the board's paper light and under ``1 / GLARE_DIP_DEPTH`` of how far its
#: dark end lies below clipping, and where its light nowhere changes faster than ``GLARE_EDGE_MAX`` tile reliefs a cell
#: (a tile's ink joined to a neighbour's dark is no dip the square fills, but its edge is a step). (Washed-out cells of
#: the tuning sets: tiles dip 0.7 to 2.1 of the depth of their dark end, or lie within noise of clipping; paper a median
#: 0.07 of a tile's relief, and changes by 3.9 reliefs a cell at most; pbr101 frame 135 I5, a black tile whose blank
#: side's ink joins its neighbours', dips 0.25 of the depth, a quarter of a relief, but steps by 6.7 a cell.)
GLARE_CLOSE, GLARE_DIP_SHARE, GLARE_DIP_DEPTH, GLARE_EDGE_MAX = 0.66, 0.25, 3.0, 5.0
#: A tile is 0.96 of its cell and its ink reaches the edge of it (the body's corners and blank sides), so the same
#: argument holds over the tile's whole footprint as over the middle: where the spot's light falls off toward a
#: cell's edge, unclipped, a tile there would show its ink, where paper's light stays smooth. ``paper_in_glare`` asks
#: it of this square of the cell too (shares of a cell: short of the printed grid line at the border, whose dark the
#: box smooths 2-3 px into the cell, and of a neighbour's ink pushed over the border, both of which only make paper
#: fail).
GLARE_FOOTPRINT = (0.08, 0.92)


def _ranked(image: np.ndarray, rows: np.ndarray, cols: np.ndarray, n: int, k: int) -> np.ndarray:
    """The ``k``-th lowest value of ``image`` in each n x n square whose top left corner is (``rows``, ``cols``)."""
    squares = np.stack([image[r:r + n, c:c + n].ravel() for r, c in zip(rows, cols, strict=True)])
    return np.partition(squares, k, axis=1)[:, k]


def _light_and_dips(dark: np.ndarray, geometry: GridGeometry,
                    idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``dark`` (uint8) smoothed over ``RELIEF_BOX`` in linear light, and how far it dips below the light round it (a
    black-hat of a square ``GLARE_CLOSE`` of a cell wide), over only the part of the picture the cells ``idx``
    (indices) need (the box, the closing and a light's change a pixel reach this far round each); with each cell's top
    and left in that part."""
    p, m = geometry.px_per_cell, geometry.margin_px
    k = max(3, int(round(RELIEF_BOX * p)) | 1)
    s = int(round(GLARE_CLOSE * p)) | 1
    top, left = m + (idx // 10) * p, m + (idx % 10) * p
    y0, x0 = max(0, int(top.min()) - s - k), max(0, int(left.min()) - s - k)
    light = LINEAR[cv2.blur(dark[y0:int(top.max()) + p + s + k, x0:int(left.max()) + p + s + k], (k, k))]
    dips = cv2.morphologyEx(light, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (s, s)))
    return light, dips, top - y0, left - x0


def paper_in_glare(dark: np.ndarray, geometry: GridGeometry, cells: np.ndarray, clip: int,
                   relief: float) -> np.ndarray:
    """(100,) of ``cells`` ((100,) bool: middles clipped in part, ``washed_whole``) those whose middle is paper by the
    shape of its light: ``dark`` the grid image's darkest channel (uint8), ``clip`` the grey level it clips at,
    ``relief`` a tile's relief (cream over ink, linear light) at the board's paper light.

    A tile's ink that is not clipped dips below the cream around it by the tile's relief, or, where the cream clips,
    by as much as it lies below clipping: a dip at most a little short of how far the middle's dark end lies below
    clipping. A tile that shows none must have its ink, and so all of it, within noise of clipping. Paper's light in a
    glare spot is smooth across the middle, so the dark end of a middle that dips far less than it lies below clipping,
    and less than a tile's relief, is paper: a tile there would show its ink. (Ink joined to a dark wider than the
    square, a neighbour's, shows no dip, but its edge steps by a relief over a few pixels, far faster than a spot's
    light changes: a middle whose light changes that fast anywhere is not said paper. Like ``middle_relief``'s, the
    argument takes a tile in a lamp's light as lit by the board's paper light at least.) The same is asked of the
    square of the cell a tile's ink would reach (``GLARE_FOOTPRINT``): a middle clipped whole, or to within noise of
    clipping, may show nothing, while the cell's edge, where the spot's light falls off, shows a tile's ink or paper's
    smooth light; either square so read says paper. The step test wants a sharp picture: a smear or soft focus ramps an
    ink edge as slowly as a spot's light falls off, so the reader does not ask this of a blurred one."""
    out = np.zeros(100, bool)
    idx = np.flatnonzero(cells)
    if idx.size == 0:
        return out
    p = geometry.px_per_cell
    light, dips, top, left = _light_and_dips(dark, geometry, idx)
    # The light's change a pixel (Sobel's sums over the 3 x 3 taken to a difference of neighbouring pixels).
    change = np.hypot(cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3)) / 8
    for lo_share, hi_share in (MIDDLE, GLARE_FOOTPRINT):
        lo, hi = int(round(lo_share * p)), int(round(hi_share * p))
        n = hi - lo
        rows, cols = top + lo, left + lo
        q, top_q = int(RELIEF_QUANTILE * n * n), n * n - 1 - int(RELIEF_QUANTILE * n * n)
        deepest, dark_end, steepest = (_ranked(image, rows, cols, n, k)
                                       for image, k in ((dips, top_q), (light, q), (change, top_q)))
        out[idx] |= ((deepest < GLARE_DIP_SHARE * relief) & (LINEAR[clip] - dark_end > GLARE_DIP_DEPTH * deepest)
                     & (steepest * p < GLARE_EDGE_MAX * relief))
    return out


#: Paper in shadow reads empty by its even middle only where its light (a share of the board's white) is below this ...
FLAT_LIGHT_MAX = 1.1
#: ... and paper in even light brighter than that (a lamp's broad sheen) only below this, by its plane alone.
BRIGHT_FLAT_LIGHT_MAX = 1.25
#: Under this light the plane may be further off (``ColourModel.shade_plane_max``): noise and JPEG weigh more in the log
#: of dim paper (empty cells of the tuning sets under 0.7: median 0.02-0.044, 90th percentile 0.066-0.08), while tiles
#: keep their ink's ratios (0.197 and more under 0.8).
SHADE_PLANE_LIGHT = 0.8


def paper_by_its_light(spreads: np.ndarray, faint: np.ndarray, tinged: np.ndarray, uneven: np.ndarray,
                       light: np.ndarray, model: ColourModel, dim: np.ndarray | bool = False,
                       edge_fit: np.ndarray | None = None) -> np.ndarray:
    """(100,) cells whose middle is paper by the shape of its light alone, where the white estimate (which cannot
    follow a shadow inside a cell) left it too dark or too bright to count as paper: ``spreads`` (``middle_spread``),
    ``faint`` (no hub stands out of a body), ``tinged`` (share of the middle coloured), ``uneven``
    (``middle_unevenness``) and ``light`` (the cell's white as a share of the board's). The caller still wants the
    middle unclipped and free of hand and glare.

    Paper in a soft shadow ranges little from bright to dark whatever the shadow's depth, while any ink spans a ratio
    of several. A tile washed pale by a reflection is flat too, but keeps a tinge of its ink: paper in shadow is flat
    and colourless (no pixel of its middle coloured). A little less flat is paper too where no hub stands out of a body
    (a black tile's does by 0.35 at least, however blurred, shaded or lit by a sheen); so is a middle near a plane in
    the log of each channel (light on paper, tinted or across a shadow's soft edge; never ink). Paper in shadow is never
    lit above the board's white: a flat middle in a lamp's sheen may be a black tile washed pale. Yet a sheen that
    washes ink to a few percent of its contrast lifts the cell far above the board's white and clips it; up to a
    quarter above it, unclipped, a tile keeps several times the unevenness of paper, so a middle very near a plane
    there is paper (visible tiles of the tuning sets measure 0.099 and more at any light; the limit is 0.03). In dim
    light (``SHADE_PLANE_LIGHT``) noise and JPEG weigh more in the log: the plane may be further off there, and so where
    the paper is ``dim`` in grey levels (a bright lamp in view dims the whole picture: pbr97 frames 60 and 185, paper
    at 15-28, empty middles 0.035-0.084 off a plane, visible tiles 0.27 and more).

    ``edge_fit`` (``middle_edge_unevenness``, where the caller measured it: a picture not blurred): a colourless middle
    within the same tolerance of a plane plus one soft straight edge is paper with a shadow's edge across it. (Not in a
    blurred picture: a smear or defocus blurs a tile's hub into its band, and a tile smeared along its waves comes near
    a plane and a step: 0.013 and more. In sharp pictures of seeds 97, 89, 83 and 67 the visible tiles this could take
    measure 0.085 and more, and 0.154 and more under ``SHADE_PLANE_LIGHT``; the paper left unreadable a median 0.046,
    and 0.085 under it. Pale skin with its own edge fits as well as paper: the caller has the second opinion look.)
    """
    even = ((spreads < model.flat_spread_max) | ((spreads < model.patternless_spread_max) & faint)) & (tinged == 0)
    plane = np.where((light < SHADE_PLANE_LIGHT) | dim, model.shade_plane_max, model.plane_residual_max)
    if edge_fit is not None:
        even |= (edge_fit < plane) & (tinged == 0)
    shaded = (even | (uneven < plane)) & (light < FLAT_LIGHT_MAX)
    return shaded | ((uneven < model.bright_plane_max) & (light < BRIGHT_FLAT_LIGHT_MAX))


#: A tile's body ink covers much of its middle (the body between its hub and its arms), so in a sheen, where it is not
#: clipped, a broad share of the middle dips below the cream within a square of ``GLARE_CLOSE`` by the tile's relief;
#: paper's light dips there by its texture's and the picture's noise alone, in a few pixels. ``ink_dips`` takes the dip
#: this share of the middle's pixels reach (robust to noise, which a top quantile is not).
INK_DIP_SHARE = 0.15


def ink_dips(dark: np.ndarray, geometry: GridGeometry, cells: np.ndarray) -> np.ndarray:
    """(100,) for the ``cells`` ((100,) bool) how far ``INK_DIP_SHARE`` of each middle's pixels dip below the light
    round them (linear light, ``dark`` the grid image's darkest channel smoothed over ``RELIEF_BOX``, closed by a
    square ``GLARE_CLOSE`` of a cell wide); other cells 0. A sheen adds light alike to a tile's cream and its ink, so
    where neither clips the tile's ink dips so by its relief under the diffuse light, however bright the sheen."""
    out = np.zeros(100, np.float32)
    idx = np.flatnonzero(cells)
    if idx.size == 0:
        return out
    p = geometry.px_per_cell
    _, dips, top, left = _light_and_dips(dark, geometry, idx)
    lo, hi = int(round(MIDDLE[0] * p)), int(round(MIDDLE[1] * p))
    n = hi - lo
    out[idx] = _ranked(dips, top + lo, left + lo, n, n * n - 1 - int(INK_DIP_SHARE * n * n))
    return out

"""Light that falls unevenly across paper without ink: a hand's shadow whose edge runs through a cell's middle, tinted
by another light, reads empty, while tiles in the same light never do."""

import cv2
import numpy as np
from test_tiles import grid_image
from tilefaces import P, centre, face

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision import tiles as tiles_module
from thoughtwave.vision.cellmeasures import middle_edge_unevenness, middle_unevenness, paper_by_its_light
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.second import SecondOpinion
from thoughtwave.vision.tiles import LIGHT_ONLY_EMPTY, TileReader


def edge_shadow(grid: np.ndarray, x: float, depth: float, soft: float, tint: tuple[float, float, float]) -> np.ndarray:
    """A shadow beyond the line x (grid px) down the board: ``depth`` of the light left, lit there by a light of
    another colour (``tint`` per BGR channel), with an edge ``soft`` px wide."""
    xx = np.arange(grid.shape[1], dtype=np.float32)[None, :, None]
    inside = 0.5 + 0.5 * np.tanh((xx - x) / (2 * soft))      # the logistic, without overflow for a sharp edge
    shaded = depth * np.asarray(tint, np.float32)[None, None, :]
    light = 1.0 - inside * (1.0 - shaded)
    return np.clip(grid.astype(np.float32) * light, 0, 255).astype(np.uint8)


BLUE_WINDOW = (1.1, 1.0, 0.9)


def test_paper_across_a_shadows_edge_reads_empty_and_tiles_in_the_same_light_never_do():
    # The edge runs down column G, through its middles: less than half the board is in the shadow, as with a hand's.
    tiles = {Cell.parse(n): p for n, p in (("G2", "nw"), ("G6", "ne"), ("G8", "ns"), ("I4", "ew"))}
    grid = grid_image({c: face(Colour.BLACK, p) for c, p in tiles.items()})
    empties = [Cell.parse(f"G{r}") for r in (1, 3, 4, 5, 7, 9, 10)]
    x, _ = centre(Cell.parse("G1"))
    for depth in (0.35, 0.5):
        for soft, offset in ((0.2, -0.2), (0.2, 0.0), (0.2, 0.2), (0.3, 0.0)):
            shaded = edge_shadow(grid, x + offset * P, depth, soft * P, BLUE_WINDOW)
            cells = TileReader().read(shaded).cells()
            assert {c: cells[c].state for c in empties} == {c: CellState.EMPTY for c in empties}, (depth, soft, offset)
            assert all(cells[c].label() in (f"black {p}", "unreadable") for c, p in tiles.items()), (depth, soft)


def test_unevenness_is_near_nothing_on_paper_in_any_light_and_large_on_every_tile():
    pieces = ("n", "ns", "ne", "nes", "nesw")
    tiles = {Cell(row, col): p for row, p in enumerate(pieces) for col in (2, 7)}
    grid = grid_image({c: face(Colour.RED if c.col == 7 else Colour.BLACK, p) for c, p in tiles.items()})
    x, _ = centre(Cell.parse("B1"))
    shaded = edge_shadow(grid, x + 0.3 * P, 0.4, 0.25 * P, BLUE_WINDOW)
    uneven = middle_unevenness(shaded, GridGeometry())
    paper = [c.index for c in (Cell(r, k) for r in range(10) for k in range(10)) if c not in tiles]
    assert uneven[paper].max() < 0.5 * TileReader().model.plane_residual_max
    assert uneven[[c.index for c in tiles]].min() > 2 * TileReader().model.plane_residual_max


def test_a_plane_and_one_soft_straight_edge_fit_paper_across_a_sharp_shadows_edge_and_never_a_tile():
    # A shadow's edge a few pixels soft is no plane (the plane test refuses the paper), but a plane and one soft
    # straight step explain it as well as a plane explains a broad shade; a tile's hub is a disc no straight edge does.
    pieces = ("n", "ns", "ne", "nes", "nesw")
    tiles = {Cell(row, col): p for row, p in enumerate(pieces) for col in (2, 7)}
    grid = grid_image({c: face(Colour.RED if c.col == 7 else Colour.BLACK, p) for c, p in tiles.items()})
    model, geometry = TileReader().model, GridGeometry()
    x, _ = centre(Cell.parse("B1"))
    paper = [c.index for c in (Cell(r, k) for r in range(10) for k in range(10)) if c not in tiles and c.col == 1]
    for offset, soft in ((-0.15, 0.05), (0.1, 0.08), (0.25, 0.1)):
        shaded = edge_shadow(grid, x + offset * P, 0.4, soft * P, BLUE_WINDOW)
        fit = middle_edge_unevenness(shaded, geometry, np.ones(100, bool))
        assert middle_unevenness(shaded, geometry)[paper].min() > model.plane_residual_max, offset
        assert fit[paper].max() < 0.5 * model.plane_residual_max, offset
        assert fit[[c.index for c in tiles]].min() > 4 * model.plane_residual_max, offset
    asked = np.zeros(100, bool)
    asked[paper[:2]] = True
    assert np.isinf(middle_edge_unevenness(grid, geometry, asked)[~asked]).all()   # measured only where asked


def test_paper_across_a_sharp_shadows_edge_reads_empty_only_where_the_second_opinion_sees_it_clear():
    # Without the second opinion the rules leave such paper unreadable (pale skin with its own edge looks the same);
    # with it, some reads empty, and no cell is ever read as what it is not.
    tiles = {Cell.parse(n): p for n, p in (("G2", "nw"), ("G6", "ne"), ("G8", "ns"), ("I4", "ew"))}
    grid = grid_image({c: face(Colour.BLACK, p) for c, p in tiles.items()})
    empties = [Cell.parse(f"G{r}") for r in (1, 3, 4, 5, 7, 9, 10)]
    x, _ = centre(Cell.parse("G1"))
    read_empty = 0
    for depth in (0.35, 0.5):
        for soft, offset in ((0.03, -0.2), (0.08, 0.1)):
            shaded = edge_shadow(grid, x + offset * P, depth, soft * P, BLUE_WINDOW)
            rules = TileReader()
            rules.second = None
            assert all(rules.read(shaded).cells()[c].state is CellState.UNREADABLE for c in empties), (depth, soft)
            cells = TileReader().read(shaded).cells()
            assert all(cells[c].label() in ("empty", "unreadable") for c in empties), (depth, soft)
            assert all(cells[c].label() in (f"black {p}", "unreadable") for c, p in tiles.items()), (depth, soft)
            read_empty += sum(cells[c].state is CellState.EMPTY for c in empties)
    assert read_empty >= len(empties)


def test_paper_is_told_by_the_shape_of_its_light_a_little_above_the_boards_white_but_never_a_washed_tile():
    model = TileReader().model
    flat_spread, ink_spread = np.float32(1.05), np.float32(3.0)

    def paper(spread, uneven, light, tinged=0.0, faint=False):
        one = [np.full(1, v, np.float32) for v in (spread, tinged, uneven, light)]
        return bool(paper_by_its_light(one[0], np.full(1, faint), one[1], one[2], one[3], model)[0])

    assert paper(flat_spread, 0.02, 0.6)                 # deep, even shade
    assert paper(ink_spread, 0.03, 0.8)                  # across a shadow's soft edge: uneven in range, a plane in log
    assert paper(flat_spread, 0.02, 0.8, tinged=0.1)     # tinted light: a plane in each channel
    assert not paper(flat_spread, 0.1, 0.8, tinged=0.1)  # flat but tinged and no plane: a tile washed pale
    assert paper(flat_spread, 0.02, 1.2)                 # a lamp's even sheen over paper, unclipped (tuning seed 7)
    assert not paper(flat_spread, 0.04, 1.2)             # ... where a tile washed to a sixth of its contrast would be
    assert not paper(flat_spread, 0.02, 1.4)             # ... and far above the board's white, a washed tile may be
    assert not paper(ink_spread, 0.1, 0.8)               # ink, however lit
    assert paper(ink_spread, 0.07, 0.6, tinged=0.3)      # deep shade: noise weighs more in the log of dim paper
    assert not paper(ink_spread, 0.07, 0.85)             # ... not in fair light
    assert not paper(ink_spread, 0.15, 0.5)              # a tile in deep shade keeps its ink's ratios (0.197 and more)

    def edged(fit, uneven, light, tinged=0.0):
        one = [np.full(1, v, np.float32) for v in (ink_spread, tinged, uneven, light)]
        return bool(paper_by_its_light(one[0], np.full(1, False), one[1], one[2], one[3], model,
                                       edge_fit=np.full(1, fit, np.float32))[0])

    assert edged(0.02, 0.15, 0.9)                        # a shadow's sharp edge: no plane, a plane and an edge
    assert not edged(0.02, 0.15, 0.9, tinged=0.1)        # ... colourless only
    assert not edged(0.02, 0.15, 1.15)                   # ... never lit above the board's white
    assert not edged(0.06, 0.15, 0.9) and edged(0.06, 0.15, 0.7)   # dim paper is noisier in the log


def lamp_shadow(grid: np.ndarray, corners: tuple[str, str], depth: float, tint: tuple[float, float, float],
                soft: float) -> np.ndarray:
    """The lamp's shadow cast by a hand over the cells from one corner to the other (an ellipse through their
    middles and half a cell beyond), lit there by the window alone: ``depth`` of the light left, of ``tint``."""
    (x0, y0), (x1, y1) = (centre(Cell.parse(c)) for c in corners)
    mask = np.zeros(grid.shape[:2], np.float32)
    axes = (int((x1 - x0) / 2 + P / 2), int((y1 - y0) / 2 + P / 2))
    cv2.ellipse(mask, (int((x0 + x1) / 2), int((y0 + y1) / 2)), axes, 0, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), soft)[..., None]
    light = 1.0 - mask * (1.0 - depth * np.asarray(tint, np.float32)[None, None, :])
    return np.clip(grid.astype(np.float32) * light, 0, 255).astype(np.uint8)


def test_paper_in_a_hands_shadow_lit_by_a_cooler_window_is_paper_not_a_hand():
    # Tuning seed 43, frame 51: the lamp's shadow of a hand, lit by the window alone, is bluer than the paper around
    # it and was taken for a hand (every cell in it unreadable, "something covers"). Skin is never bluer than paper.
    tiles = {Cell.parse(n): (c, p) for n, c, p in (("E4", Colour.BLACK, "nw"), ("F5", Colour.RED, "ne"),
                                                   ("D6", Colour.BLACK, "ns"))}
    grid = grid_image({cell: face(c, p) for cell, (c, p) in tiles.items()})
    inside = [Cell(r, c) for r in range(3, 8) for c in range(3, 7) if Cell(r, c) not in tiles]
    for depth in (0.5, 0.65):
        cells = TileReader().read(lamp_shadow(grid, ("D4", "G8"), depth, (1.15, 1.0, 0.85), 0.3 * P)).cells()
        assert [c for c in inside if cells[c].state is not CellState.EMPTY] == [], depth
        assert all(cells[c].label() in (f"{k.value} {p}", "unreadable") for c, (k, p) in tiles.items()), depth


def test_in_deep_noisy_shade_no_cell_is_read_as_what_it_is_not_and_half_the_paper_reads_empty():
    # Dim paper is noisier in the log, so its plane may be further off there (SHADE_PLANE_LIGHT); tiles in the same
    # shade keep their ink's ratios and are never taken for paper.
    tiles = {Cell.parse(n): (c, p) for n, c, p in (("E4", Colour.BLACK, "nw"), ("F5", Colour.RED, "ne"),
                                                   ("D6", Colour.BLACK, "ns"), ("E7", Colour.RED, "nesw"))}
    grid = grid_image({cell: face(c, p) for cell, (c, p) in tiles.items()})
    inside = [Cell(r, c) for r in range(3, 8) for c in range(3, 7) if Cell(r, c) not in tiles]
    for depth, noise, quality in ((0.3, 3.0, 70), (0.4, 5.0, 85), (0.5, 5.0, 70)):
        shaded = lamp_shadow(grid, ("D4", "G8"), depth, BLUE_WINDOW, 0.3 * P).astype(np.float32)
        shaded = np.clip(shaded + np.random.default_rng(3).normal(0, noise, shaded.shape), 0, 255).astype(np.uint8)
        shaded = cv2.imdecode(cv2.imencode(".jpg", shaded, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
        cells = TileReader().read(shaded).cells()
        assert all(cells[c].label() in ("empty", "unreadable") for c in inside), depth
        assert all(cells[c].label() in (f"{k.value} {p}", "unreadable") for c, (k, p) in tiles.items()), depth
        assert sum(cells[c].state is CellState.EMPTY for c in inside) >= len(inside) // 2, depth   # 5 of 16 before


def test_paper_across_a_shadows_edge_reads_empty_by_the_papers_hue_where_the_second_opinion_sees_cover(monkeypatch):
    # The second opinion may see a shadow over paper as something covering it. Where the markers' paper gives the
    # board's hue and the middle is of it, the paper across the shadow's edge reads empty all the same (too unsure to
    # take a tile off); pale skin with its own edge, over tiles, is of another hue and stays unreadable.
    monkeypatch.setattr(SecondOpinion, "uncovered",
                        lambda self, norm, px, margin, cells, *_: np.zeros(len(cells), bool))
    tiles = {Cell.parse(n): p for n, p in (("G2", "nw"), ("G6", "ne"), ("G8", "ns"), ("I4", "ew"))}
    grid = grid_image({c: face(Colour.BLACK, p) for c, p in tiles.items()})
    paper = np.median(grid.reshape(-1, 3), axis=0).astype(np.float64)
    size = grid.shape[0]
    at = np.array([[-P, -P], [size + P, -P], [-P, size + P], [size + P, size + P]], np.float64)
    hues = (at, np.tile(paper, (len(at), 1)))
    empties = [Cell.parse(f"G{r}") for r in (1, 3, 4, 5, 7, 9, 10)]
    x, _ = centre(Cell.parse("G1"))
    skin = grid.copy()          # pale skin (seed 103 frame 54's against the paper) laid flat over G2, G6 and G8
    for cell in (Cell.parse("G2"), Cell.parse("G6"), Cell.parse("G8")):
        cx, cy = centre(cell)
        skin[int(cy - P / 2):int(cy + P / 2), int(cx - P / 2):int(cx + P / 2)] = np.clip(
            paper * (0.84, 0.90, 0.99), 0, 255).astype(np.uint8)
    read_empty = 0
    for depth in (0.35, 0.5):
        for soft, offset in ((0.03, -0.2), (0.08, 0.1)):
            shaded = edge_shadow(grid, x + offset * P, depth, soft * P, (1.0, 1.0, 1.0))
            plain = TileReader().read(shaded).cells()
            assert all(plain[c].state is CellState.UNREADABLE for c in empties), (depth, soft)
            cells = TileReader().read(shaded, paper_hues=hues).cells()
            assert all(cells[c].label() in ("empty", "unreadable") for c in empties), (depth, soft)
            assert all(cells[c].confidence <= np.float32(LIGHT_ONLY_EMPTY) for c in empties), (depth, soft)
            assert all(cells[c].label() in (f"black {p}", "unreadable") for c, p in tiles.items()), (depth, soft)
            read_empty += sum(cells[c].state is CellState.EMPTY for c in empties)
            covered = TileReader().read(edge_shadow(skin, x + offset * P, depth, soft * P, (1.0, 1.0, 1.0)),
                                        paper_hues=hues).cells()
            assert all(covered[c].state is not CellState.EMPTY for c in tiles if c.col == 6), (depth, soft)
    assert read_empty >= 2 * len(empties)


def round_shadows(grid: np.ndarray, spots: list[tuple[float, float, float]], depth: float, soft: float,
                  tint: tuple[float, float, float] = BLUE_WINDOW) -> np.ndarray:
    """Fingertips' shadows: discs (x, y, radius in grid px) with ``depth`` of the light left, of ``tint``, soft over
    ``soft`` px: curved edges, which neither a plane nor a plane and one straight edge explain."""
    mask = np.zeros(grid.shape[:2], np.float32)
    for x, y, r in spots:
        cv2.circle(mask, (int(x), int(y)), int(r), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), soft)[..., None]
    light = 1.0 - mask * (1.0 - depth * np.asarray(tint, np.float32)[None, None, :])
    return np.clip(grid.astype(np.float32) * light, 0, 255).astype(np.uint8)


def test_paper_in_round_shadows_reads_empty_by_its_hue_and_the_networks_and_no_tile_or_skin_is_taken_for_it(
        monkeypatch):
    # A finger's shadow has a curved edge: paper across it fits no plane, nor a plane and one straight edge, so the
    # rules leave it. Of the paper's hue, with no tile in any view of the networks (SHADE_NO_TILE), it is paper; tiles
    # in the same shadows, and pale skin over paper in them, never read empty.
    tiles = {Cell.parse(n): (c, p) for n, c, p in (("E4", Colour.BLACK, "nw"), ("F5", Colour.RED, "ne"),
                                                   ("D6", Colour.BLACK, "ns"), ("E7", Colour.RED, "nesw"),
                                                   ("C4", Colour.BLACK, "ew"))}
    grid = grid_image({cell: face(c, p) for cell, (c, p) in tiles.items()})
    paper = np.median(grid.reshape(-1, 3), axis=0).astype(np.float64)
    size = grid.shape[0]
    at = np.array([[-P, -P], [size + P, -P], [-P, size + P], [size + P, size + P]], np.float64)
    hues = (at, np.tile(paper, (len(at), 1)))
    skin = Cell.parse("H2")     # pale skin (seed 103 frame 54's against the paper) laid over an empty cell
    sx, sy = centre(skin)
    grid[int(sy - P / 2):int(sy + P / 2), int(sx - P / 2):int(sx + P / 2)] = np.clip(
        paper * (0.84, 0.90, 0.99), 0, 255).astype(np.uint8)
    rng = np.random.default_rng(5)
    taken = 0
    for depth in (0.3, 0.45):
        for k in range(4):
            spots = [(rng.uniform(2, 8) * P + 30, rng.uniform(2, 8) * P + 30, rng.uniform(0.3, 0.6) * P)
                     for _ in range(6)] + [(sx + 0.3 * P, sy, 0.5 * P)]
            shaded = round_shadows(grid, spots, depth, 0.08 * P).astype(np.float32)
            shaded = np.clip(shaded + np.random.default_rng(k).normal(0, 3, shaded.shape), 0, 255).astype(np.uint8)
            cells = TileReader().read(shaded, paper_hues=hues).cells()
            assert all(cells[c].label() in (f"{k.value} {p}", "unreadable") for c, (k, p) in tiles.items()), depth
            assert cells[skin].state is not CellState.EMPTY, (depth, k)
            assert all(cells[c].label() in ("empty", "unreadable") for c in cells if c not in tiles), (depth, k)
            monkeypatch.setattr(tiles_module, "SHADE_NO_TILE", 0.0)       # no view gives a tile under nothing
            rules = TileReader().read(shaded, paper_hues=hues).cells()
            monkeypatch.undo()
            taken += sum(cells[c].state is CellState.EMPTY and rules[c].state is CellState.UNREADABLE for c in cells)
            assert all(rules[c].state is cells[c].state or rules[c].state is CellState.UNREADABLE for c in cells)
    assert taken >= 2


NEUTRAL = (1.0, 1.0, 1.0)


def test_tiles_with_a_shadows_edge_across_them_are_placed_in_log_light_and_read():
    # A hand's shadow whose sharp edge runs down column G a tenth or a quarter of a cell west of the tiles' centres:
    # most of each tile lies in the shade, a strip of its west side and the paper beyond in full light. Divided by a
    # white that cannot follow the edge inside a cell, the hub's template slides toward that lit strip and the tile's
    # arms are read off their place. Placed in log light (shade multiplies the light), levelled against its own hub,
    # and each arm in doubt read by its ratio over the ink beside it, every tile reads what it is.
    tiles = {Cell.parse(n): p for n, p in (("G3", "nw"), ("G5", "ns"), ("G7", "esw"))}
    x, _ = centre(Cell.parse("G1"))
    for colour in Colour:
        grid = grid_image({c: face(colour, p) for c, p in tiles.items()})
        for offset in (0.25, 0.1):
            shaded = cv2.GaussianBlur(edge_shadow(grid, x - offset * P, 0.35, 0.1 * P, NEUTRAL), (0, 0), 0.7)
            cells = TileReader().read(shaded).cells()
            assert {c: cells[c].label() for c in tiles} == {c: f"{colour.value} {p}" for c, p in tiles.items()}, (
                colour, offset)


def test_tile_centres_worked_out_for_a_few_cells_are_those_worked_out_for_all():
    reader, rng = TileReader(), np.random.default_rng(5)
    size = reader.geometry.size
    for _ in range(5):
        response = cv2.GaussianBlur(rng.normal(size=(size, size)).astype(np.float32), (0, 0), 3)
        cells = rng.random(100) < 0.2
        every, few = np.stack(reader._centres(response)), np.stack(reader._centres(response, cells))
        assert np.array_equal(few.reshape(3, 100)[:, cells], every.reshape(3, 100)[:, cells])
        assert (few[2].ravel()[~cells] == -1).all()

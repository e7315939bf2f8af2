"""One tile geometry: changing a number of ``vision.artwork.TileGeometry`` moves the printed tile, the synthetic
camera's tile and the reader's sample regions together, and the reader still reads what was printed."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.kit import write_pdf, write_png_set
from thoughtwave.kit.page import draw_tile
from thoughtwave.synth import Scene, render
from thoughtwave.vision.artwork import TILE, WAVE_BGR, BoardLayout, TileGeometry, tile_image
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.recognizer import Recognizer
from thoughtwave.vision.tileframe import region_masks, sampling

#: The printed tile with one number changed each.
CHANGED = [replace(TILE, wave_width=0.34), replace(TILE, hub_diameter=0.50), replace(TILE, dot_inset=0.20)]
EW = Piece.parse("ew")
TILES = {Cell.parse(name): (colour, Piece.parse(piece)) for name, colour, piece in [
    ("B2", Colour.RED, "nes"), ("E3", Colour.BLACK, "n"), ("H2", Colour.RED, "ew"), ("C6", Colour.BLACK, "nesw"),
    ("F6", Colour.RED, "sw"), ("I8", Colour.BLACK, "esw"), ("D9", Colour.RED, "ns"), ("G9", Colour.BLACK, "ne"),
]}


class _Recorder:
    """Stands in for a PDF page: keeps what the printer draws."""

    def __init__(self) -> None:
        self.rects: list[tuple[float, float, float, float]] = []
        self.discs: list[tuple[float, float, float]] = []

    def rect(self, x0: float, y0: float, x1: float, y1: float, bgr: tuple) -> None:
        self.rects.append((x0, y0, x1, y1))

    def disc(self, cx: float, cy: float, r: float, bgr: tuple) -> None:
        self.discs.append((cx, cy, r))


def _band_px(image: np.ndarray) -> int:
    """Width in pixels of the wave band across the east arm (a column between hub and edge)."""
    column = image[:, int(image.shape[1] * 0.88)]
    return int((np.abs(column.astype(int) - WAVE_BGR).max(axis=1) < 40).sum())


def _read_all(frame: np.ndarray, layout: BoardLayout) -> dict[str, str]:
    reading = Recognizer(layout=layout).read(frame)
    assert reading.board_found
    return {str(c): r.label() for c, r in reading.cells.items() if r.state is not CellState.EMPTY}


def _truth_labels() -> dict[str, str]:
    return {str(c): f"{colour.value} {piece}" for c, (colour, piece) in TILES.items()}


def test_a_wider_wave_band_is_printed_filmed_and_sampled_wider(tmp_path):
    wide = replace(TILE, wave_width=0.34)
    layout = BoardLayout(tile=wide)
    # Printed, raster: the band across the east arm is 0.34 of the tile, not 0.30.
    assert _band_px(tile_image(Colour.BLACK, EW, 100)) == pytest.approx(30, abs=1)
    assert _band_px(tile_image(Colour.BLACK, EW, 100, wide)) == pytest.approx(34, abs=1)
    # Printed, PDF vectors: the east arm's rectangle spans the new band.
    page = _Recorder()
    draw_tile(page, Colour.BLACK, EW, 0.0, 0.0, 10.0, layout.tile)
    assert any(x1 >= 10.0 and y1 - y0 == pytest.approx(3.4) for x0, y0, x1, y1 in page.rects)
    # The kit takes it from the layout: its PNG is the new tile and its PDF is another one.
    written = write_png_set(tmp_path / "png", layout, dpi=100)
    png = next(p for p in written if p.name == f"tile-black-{EW}.png")
    printed = cv2.imread(str(png))
    assert np.array_equal(printed, tile_image(Colour.BLACK, EW, printed.shape[0], wide))
    write_pdf(tmp_path / "old.pdf", BoardLayout())
    write_pdf(tmp_path / "new.pdf", layout)
    assert (tmp_path / "old.pdf").read_bytes() != (tmp_path / "new.pdf").read_bytes()
    # Filmed: the synthetic camera draws the same board with the wider band.
    scene = Scene.random(5, tiles=TILES, level="clean", hand=False, resolution=(640, 480))
    old, _ = render(scene)
    new, _ = render(replace(scene, layout=layout))
    assert not np.array_equal(old, new)
    # Sampled: the reader's arm regions are wider across the band.
    before, after = region_masks(TILE)["arm_e_in"], region_masks(wide)["arm_e_in"]
    assert after.any(axis=1).sum() > before.any(axis=1).sum()
    assert Recognizer(layout=layout).reader.sampling.tile == wide


@pytest.mark.parametrize("tile", CHANGED, ids=["wave", "hub", "dots"])
def test_each_number_moves_print_camera_and_reader_and_the_reader_reads_the_print(tile):
    layout = BoardLayout(tile=tile)
    assert not np.array_equal(tile_image(Colour.RED, EW, 64), tile_image(Colour.RED, EW, 64, tile))
    scene = Scene.random(8, tiles=TILES, level="clean", hand=False, resolution=(800, 600))
    old, _ = render(scene)
    frame, _ = render(replace(scene, layout=layout))
    assert not np.array_equal(old, frame)
    before = sampling(TILE).masks
    moved = [name for name, mask in sampling(tile).masks.items() if not np.array_equal(mask, before[name])]
    assert moved, "the reader samples where it did before"
    assert _read_all(frame, layout) == _truth_labels()


def test_a_geometry_that_leaves_no_body_to_sample_is_refused():
    with pytest.raises(ValueError):
        TileGeometry(wave_width=0.5)            # no wider than the hub
    with pytest.raises(ValueError):
        TileGeometry(dot_inset=0.05)             # dots off the tile
    with pytest.raises(ValueError):
        region_masks(TileGeometry(wave_width=0.40, hub_diameter=0.45, dot_inset=0.25))

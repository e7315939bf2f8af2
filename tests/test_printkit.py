"""The print kit: exact page and cell sizes in the PDF, sheets that fit the paper, PNGs the detector agrees with."""

import json
import re

import cv2
import numpy as np
import pytest
from pdfpages import pdf_pages
from PIL import Image

from thoughtwave.cli import main
from thoughtwave.engine.pieces import ALL_PIECES, KINDS, START_INVENTORY, Colour
from thoughtwave.kit import (
    GLUE_MM,
    PAPER_MM,
    PRINT_MARGIN_MM,
    TILE_BLEED_MM,
    plan_board_sheets,
    tile_set,
    write_pdf,
)
from thoughtwave.vision.artwork import ARUCO_DICTIONARY, PAPER_BGR, BoardLayout

PT = 72 / 25.4  # points per mm


def _pdf_pages(path) -> list[tuple[tuple[float, float], str]]:
    return pdf_pages(path.read_bytes())


def _rects(content: str) -> list[tuple[float, float, float, float]]:
    number = r"(-?[\d.]+)"
    return [tuple(float(v) for v in m) for m in re.findall(rf"{number} {number} {number} {number} re", content)]


@pytest.fixture(scope="module")
def a4_kit(tmp_path_factory):
    path = tmp_path_factory.mktemp("kit") / "kit.pdf"
    summary = write_pdf(path, BoardLayout(), paper="a4")
    return path, summary


def test_every_page_is_exactly_the_paper_size(a4_kit):
    path, summary = a4_kit
    pages = _pdf_pages(path)
    assert len(pages) == summary.pages == 1 + summary.board_sheets + 2  # instructions, board, red, black
    w, h = PAPER_MM["a4"][0] * PT, PAPER_MM["a4"][1] * PT
    for size, _ in pages:
        assert sorted(size) == pytest.approx(sorted((w, h)), abs=0.01)
    assert pages[0][0] == pytest.approx((595.2756, 841.8898), abs=0.01)


@pytest.mark.parametrize("cell_mm", [25.0, 32.0])
def test_the_cell_measures_cell_mm_on_every_board_sheet(tmp_path, cell_mm):
    path = tmp_path / "kit.pdf"
    summary = write_pdf(path, BoardLayout(cell_mm), paper="a3")
    line = 0.3 * PT
    for _, content in _pdf_pages(path)[1:1 + summary.board_sheets]:
        verticals = sorted(x for x, _, w, h in _rects(content) if abs(w - line) < 0.01 and h > 9 * cell_mm * PT)
        horizontals = sorted(y for _, y, w, h in _rects(content) if abs(h - line) < 0.01 and w > 9 * cell_mm * PT)
        assert len(verticals) == len(horizontals) == 11
        assert np.diff(verticals) == pytest.approx([cell_mm * PT] * 10, abs=0.01)
        assert np.diff(horizontals) == pytest.approx([cell_mm * PT] * 10, abs=0.01)


def test_each_tile_page_holds_one_full_set(a4_kit):
    path, summary = a4_kit
    side = (BoardLayout().tile_mm + 2 * TILE_BLEED_MM) * PT
    for _, content in _pdf_pages(path)[1 + summary.board_sheets:]:
        faces = [r for r in _rects(content) if abs(r[2] - side) < 0.01 and abs(r[3] - side) < 0.01]
        assert len(faces) == 24


@pytest.mark.parametrize("paper, cell_mm", [("letter", 40.0), ("a3", 20.0)])
def test_all_48_tiles_are_printed_whatever_the_paper(tmp_path, paper, cell_mm):
    path = tmp_path / "kit.pdf"
    layout = BoardLayout(cell_mm)
    summary = write_pdf(path, layout, paper=paper)
    side = (layout.tile_mm + 2 * TILE_BLEED_MM) * PT
    faces = 0
    for size, content in _pdf_pages(path)[1 + summary.board_sheets:]:
        assert size == pytest.approx(tuple(v * PT for v in PAPER_MM[paper]), abs=0.01)
        faces += sum(abs(r[2] - side) < 0.01 and abs(r[3] - side) < 0.01 for r in _rects(content))
    assert faces == 48


def test_a_tile_set_matches_the_starting_inventory():
    for colour in Colour:
        pieces = tile_set(colour)
        assert {k: sum(p.kind is k for p in pieces) for k in KINDS} == START_INVENTORY


def test_the_kit_is_small_because_it_is_drawn_as_vectors(a4_kit):
    path, _ = a4_kit
    assert path.stat().st_size < 200_000


@pytest.mark.parametrize("paper, sheets", [("a3", 2), ("a4", 4), ("letter", 4)])
def test_the_25_mm_board_splits_into_few_sheets(paper, sheets):
    assert plan_board_sheets(BoardLayout(25.0), paper).sheets == sheets


@pytest.mark.parametrize("cell_mm", [20.0, 25.0, 30.0, 40.0])
@pytest.mark.parametrize("paper", list(PAPER_MM))
def test_sheets_fit_the_printable_area_and_no_seam_crosses_a_marker(paper, cell_mm):
    layout = BoardLayout(cell_mm)
    plan = plan_board_sheets(layout, paper)
    room_w, room_h = (v - 2 * PRINT_MARGIN_MM for v in plan.page_mm)
    for edges, room, axis in ((plan.xs, room_w, 0), (plan.ys, room_h, 1)):
        assert edges[0] == 0 and edges[-1] == pytest.approx(layout.width_mm)
        widths = np.diff(edges)
        assert all(w + GLUE_MM <= room + 1e-9 for w in widths[:-1]) and widths[-1] <= room + 1e-9
        for seam in edges[1:-1]:
            for m in layout.markers:
                quiet_half = m.size_mm / 2 + m.size_mm / 6
                assert abs(seam - m.center_mm[axis]) >= quiet_half, f"seam {seam} crosses marker {m.id}"


def test_png_set_has_every_file_and_the_map_matches_the_image(tmp_path, capsys):
    out = tmp_path / "png"
    assert main(["print-kit", "--png", str(out), "--dpi", "100"]) == 0
    expected = {"board.png", "board.json"} | {f"tile-{c.value}-{p}.png" for c in Colour for p in ALL_PIECES}
    assert {p.name for p in out.iterdir()} == expected
    summary = json.loads(capsys.readouterr().out)
    assert summary["files"] == 32

    mapping = json.loads((out / "board.json").read_text())
    assert {"dpi", "cell_px", "grid_origin_px", "cols", "rows", "markers"} <= set(mapping)
    assert (mapping["dpi"], mapping["cols"], mapping["rows"]) == (100, 10, 10)
    assert mapping["cell_px"] == pytest.approx(25.0 * 100 / 25.4, abs=1e-3)
    board = cv2.imread(str(out / "board.png"))
    assert list(board.shape[1::-1]) == mapping["size_px"]
    with Image.open(out / "board.png") as png:  # pHYs set, so an image viewer prints it at true size
        assert png.info["dpi"] == pytest.approx((100, 100), abs=0.01)

    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(board)
    assert ids is not None and sorted(ids.ravel().tolist()) == list(range(8))
    said = {m["id"]: np.array(m["corners_px"]) for m in mapping["markers"]}
    for found, marker_id in zip(corners, ids.ravel(), strict=True):
        assert np.abs(found[0] - said[int(marker_id)]).max() < 1.5

    # the map finds the grid: paper at every cell centre, a grey line at every cell boundary
    x0, y0 = mapping["grid_origin_px"]
    c = mapping["cell_px"]
    green = board[..., 1].astype(int)
    for k in range(11):
        x, y = int(round(x0 + k * c)), int(round(y0 + k * c))
        mid = int(round(y0 + 5.5 * c))
        assert green[mid, x - 1:x + 2].min() < 235 and green[y - 1:y + 2, mid].min() < 235
    for row in range(10):
        for col in range(10):
            px = board[int(round(y0 + (row + 0.5) * c)), int(round(x0 + (col + 0.5) * c))]
            assert tuple(int(v) for v in px) == PAPER_BGR

    tile = cv2.imread(str(out / "tile-red-nes.png"))
    assert tile.shape == (round(24.0 * 100 / 25.4), round(24.0 * 100 / 25.4), 3)


@pytest.mark.parametrize("argv", [
    ["print-kit"],
    ["print-kit", "--out", "kit.pdf", "--cell-mm", "19"],
    ["print-kit", "--out", "kit.pdf", "--cell-mm", "nan"],
    ["print-kit", "--out", "kit.pdf", "--paper", "b5"],
    ["print-kit", "--png", "dir", "--dpi", "0"],
    ["print-kit", "--out", "no-such-folder/kit.pdf"],
])
def test_bad_arguments_exit_2_with_one_line(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error:")
    assert not (tmp_path / "kit.pdf").exists()


def test_cli_writes_the_pdf_and_says_what_it_wrote(tmp_path, capsys):
    out = tmp_path / "kit.pdf"
    assert main(["print-kit", "--out", str(out), "--paper", "letter"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["pages"] == len(_pdf_pages(out)) and summary["board_sheets"] == 4
    assert _pdf_pages(out)[0][0] == pytest.approx((612.0, 792.0), abs=0.01)


def test_the_kit_never_breaks_a_line_at_a_no_break_space():
    # French sets a no-break space before : ; ! ? so that the mark never starts a line.
    from thoughtwave.kit.instructions import _wrap
    text = "Imprimez à 100\u00a0% puis vérifiez avec la règle\u00a0: elle doit mesurer 100\u00a0mm exactement\u00a0!"
    for width in range(20, 120, 5):
        lines = _wrap(text, width, 3.0)
        assert " ".join(lines) == text                                  # every word kept, in order
        assert not any(line.startswith((":", "!", "%", "mm")) for line in lines), (width, lines)

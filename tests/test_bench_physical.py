"""bench/physical_set.py on a folder of frames from the fast synthetic camera: the score counts the cells under the hand
apart (and what was read there), the cost is CPU time a read, and two readers' readings are compared cell by cell
against the truth."""

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from physical_set import compare, cost, lamp_cover, readings, score, smooth_line_kernel, touched_cells  # noqa: E402

from thoughtwave.engine.cells import Cell  # noqa: E402
from thoughtwave.synth import Scene, render  # noqa: E402
from thoughtwave.synth.camera import Projector  # noqa: E402
from thoughtwave.synth.physical import Lamp, camera_centre  # noqa: E402
from thoughtwave.synth.render import _occlusion  # noqa: E402
from thoughtwave.vision.deblur import line_psf  # noqa: E402
from thoughtwave.vision.reading import CellState  # noqa: E402
from thoughtwave.vision.recognizer import Recognizer  # noqa: E402

DRAW = {"motion_px": 0.0, "gloss_alpha": 0.3, "window_power": 0.0, "aperture_mm": 0.1, "lamp_radius": 30.0}


def a_set(folder: Path) -> int:
    """Two mild frames, the second with a hand; the number of cells the hand covers."""
    covered = 0
    for i, hand in enumerate((False, True)):
        frame, truth = render(Scene.random(4400 + i, level="mild", hand=hand, resolution=(960, 720)))
        cells = sorted(str(c) for c in truth.occluded_cells)
        covered += len(cells)
        cv2.imwrite(str(folder / f"frame-{i:05d}.png"), frame)
        (folder / f"frame-{i:05d}.json").write_text(json.dumps(
            {"board": truth.board_state(), "hand": hand, "occluded_cells": cells, "draw": DRAW}))
    return covered


def test_the_score_counts_the_cells_under_the_hand_apart_and_what_was_read_there(tmp_path):
    covered = a_set(tmp_path)
    assert covered > 0
    lines = score(tmp_path)
    assert lines[0].startswith("Frames 2, board found 2")
    table = next(line for line in lines if line.startswith("| all |"))
    assert table.split(" | ")[1] == str(200 - covered)             # the covered cells are not scored ...
    under = next(line for line in lines if line.startswith("Cells under the hand"))
    assert under.startswith(f"Cells under the hand or behind the lamp (not scored above): {covered}, read anyway as "
                            "what they are ")
    anyway, wrongly, acted_on = (int(n) for n in re.findall(r"(\d+)(?=\)|,|$| \()", under.split(": ", 1)[1])[1:])
    assert anyway + wrongly <= covered                                # ... but what was read there is counted
    assert acted_on <= wrongly            # of those misread, the ones surely enough to take a tile off or put one down
    assert sum("(under the hand): read " in line for line in lines) == min(wrongly, 20)   # each named, 20 at most


def test_the_cost_is_cpu_time_a_read_with_the_machine(tmp_path):
    a_set(tmp_path)
    first, machine = cost(tmp_path, rounds=1)
    assert first.startswith(f"CPU time a read over 2 frames of {tmp_path} (best of 1, one thread): median ")
    assert " cores, load average " in machine and "OpenCV" in machine


def test_two_readings_are_compared_cell_by_cell_against_the_truth(tmp_path):
    a_set(tmp_path)
    before = readings(tmp_path)
    assert len(before) == 200                                   # two boards found, a line a cell
    assert compare(before, before) == ["gained 0, lost 0, wrong 0, hidden 0, other 0"]
    records = {str(tmp_path / f"frame-{i:05d}.json"): json.loads((tmp_path / f"frame-{i:05d}.json").read_text())
               for i in range(2)}

    def misread(record: str, cell: str) -> str:
        is_ = records[record]["board"].get(cell, "empty")
        return "red ne" if is_ == "empty" else "black nesw" if is_ == "red ne" else "empty"

    first, second = records
    right = [t.split() for t in before if t.startswith(first)
             and " ".join(t.split()[2:-3]) == records[first]["board"].get(t.split()[1], "empty")]
    assert any(len(t) == 7 for t in right)                  # tiles among them, their labels two words ("red ne")
    hidden = records[second]["occluded_cells"][0]
    right.sort(key=len, reverse=True)                       # a tile first
    changed = {(first, right[0][1]): f"{misread(first, right[0][1])} tile",      # a visible cell read wrong
               (first, right[1][1]): "- unreadable",                              # one no longer read
               (second, hidden): f"{misread(second, hidden)} tile"}               # a hidden cell read wrong
    after = []
    for text in before:
        record, cell = text.split()[:2]
        after.append(f"{record} {cell} {changed[record, cell]} 0.900 -" if (record, cell) in changed else text)
    got = compare(before, after)
    assert got[-1] == "gained 0, lost 1, wrong 1, hidden 1, other 0"
    assert sorted(change.split()[0] for change in got[:-1]) == ["hidden", "lost", "wrong"]
    assert compare(after, before)[-1].startswith("gained 2, lost 0, wrong 0, hidden 0")   # both visible ones mended
    lost = [t for t in before if not t.startswith(second)] + [f"{second} lost"]
    assert compare(before, lost) == [f"other {second}: the board lost now",
                                     "gained 0, lost 0, wrong 0, hidden 0, other 1"]


def test_the_cells_behind_a_lamp_hung_between_the_camera_and_the_board_are_hidden():
    scene = Scene.random(4402, level="mild", physical=True, resolution=(960, 720))
    assert lamp_cover(scene, 40.0) == set()                          # the lamp beside the board hides nothing
    # Hung halfway down the sight line from the camera to E5's middle.
    middle = (camera_centre(scene.camera) + np.array([*scene.layout.cell_center_mm(Cell.parse("E5")), 0.0])) / 2
    lamp = Lamp((float(middle[0]), float(middle[1])), float(-middle[2]))
    hung = replace(scene, physical=replace(scene.physical, lamp=lamp))
    hidden = lamp_cover(hung, 40.0)
    assert "E5" in hidden and 1 < len(hidden) < 100                   # the cells behind it, not the whole board
    assert lamp_cover(hung, 1.0) == set()                             # a small bulb hides no cell's middle


def test_a_frame_the_lamps_sphere_fills_is_not_scored_nor_a_board_lost(tmp_path, monkeypatch):
    # Seed 67, frame 59: the camera inside the lamp's sphere sees it and nothing else; every cell is behind the lamp.
    import physical_set

    from thoughtwave.engine.cells import CELLS

    a_set(tmp_path)
    monkeypatch.setattr(physical_set, "_scene_of", lambda record, frame: record["hand"])
    monkeypatch.setattr(physical_set, "lamp_cover", lambda inside, radius: {str(c) for c in CELLS} if inside else set())
    lines = score(tmp_path)
    assert lines[0].startswith("Frames 1, board found 1")
    assert "Boards lost (0): none" in lines
    assert any(line.startswith("Frames with nothing of the board in view") and line.endswith("(1): frame-00001")
               for line in lines)


def _spread_along(kernel: np.ndarray, angle_deg: float) -> tuple[float, float]:
    """The kernel's centroid's distance from its middle, and its spread (px) along ``angle_deg``."""
    ys, xs = np.mgrid[:kernel.shape[0], :kernel.shape[1]] - (kernel.shape[0] - 1) / 2
    a = np.radians(angle_deg)
    along = xs * np.cos(a) + ys * np.sin(a)
    return float(np.hypot((kernel * xs).sum(), (kernel * ys).sum())), float(np.sqrt((kernel * along ** 2).sum()))


def test_a_smooth_shake_spreads_the_light_as_far_as_its_length_says_and_any_length_counts():
    spreads = []
    for length, angle in ((2.0, 45.0), (5.2, 0.0), (6.8, 0.0), (7.25, 105.0)):
        kernel = smooth_line_kernel(length, angle)
        off, spread = _spread_along(kernel, angle)
        assert abs(float(kernel.sum()) - 1) < 1e-5 and off < 1e-4
        # A segment's spread is its length over sqrt(12); sharing between two pixels adds at most 1/4 px^2.
        assert length / np.sqrt(12) <= spread <= np.sqrt(length ** 2 / 12 + 1 / 4)
        spreads.append(spread)
    assert spreads[2] - spreads[1] > 0.4
    # The reader's model of a shake is the same smooth line (the drawn one made 5.2 and 6.8 px one line).
    for length, angle in ((2.0, 45.0), (5.2, 0.0), (6.8, 0.0), (7.25, 105.0)):
        assert np.array_equal(line_psf(length, angle), smooth_line_kernel(length, angle))


def test_the_cells_a_hand_lies_over_at_the_rim_only_are_recorded_as_touched():
    # A fingertip over the corner where E5, F5, E6 and F6 meet covers none of their middles (the bench scores them as
    # visible), yet lies over each one's rim, where a wave ends.
    scene = Scene.random(4401, level="mild", hand=False, resolution=(960, 720))
    projector = Projector(scene.camera)
    mask = np.zeros((720, 960), bool)
    e5 = scene.layout.cell_center_mm(Cell.parse("E5"))
    corner = projector.project(np.array([[e5[0] + scene.layout.cell_mm / 2, e5[1] + scene.layout.cell_mm / 2]]))[0]
    radius = 0.1 * scene.layout.cell_mm * 960 / 300      # about a tenth of a cell in px at most
    cv2.circle(mask.view(np.uint8), tuple(int(round(v)) for v in corner), max(2, int(radius)), 1, -1)
    assert touched_cells(scene, projector, mask) == ["E5", "E6", "F5", "F6"]
    assert _occlusion(scene.layout, projector, mask.astype(np.float32), (960, 720)) == {}
    assert touched_cells(scene, projector, np.zeros_like(mask)) == []


def test_the_score_says_how_many_unreadable_cells_the_hand_lies_over_where_the_set_records_it(tmp_path):
    # A medium frame with a hand (scene 4406) leaves visible cells unreadable beside it.
    frame, truth = render(Scene.random(4406, level="medium", hand=True, resolution=(960, 720)))
    hidden = sorted(str(c) for c in truth.occluded_cells)
    record = {"board": truth.board_state(), "hand": True, "occluded_cells": hidden, "draw": DRAW}
    cv2.imwrite(str(tmp_path / "frame-00000.png"), frame)
    (tmp_path / "frame-00000.json").write_text(json.dumps(record))
    assert not any("the hand lies over part of" in line for line in score(tmp_path))    # no record says: nothing said
    reading = Recognizer().read(frame)
    unread = [str(c) for c in reading.unreadable() if str(c) not in record["occluded_cells"]]
    assert len(unread) >= 4
    read = next(str(c) for c, got in reading.cells.items()
                if got.state is not CellState.UNREADABLE and str(c) not in record["occluded_cells"])
    record["touched_cells"] = unread[:3] + [read]          # a cell read counts nowhere, touched or not
    (tmp_path / "frame-00000.json").write_text(json.dumps(record))
    line = next(line for line in score(tmp_path) if line.startswith("Unreadable visible cells on found boards"))
    assert line.endswith("; the hand lies over part of 3 of them")


def test_the_score_counts_apart_the_misreads_in_frames_the_referee_sets_aside_as_covered(tmp_path, monkeypatch):
    # The same mild frame twice; the reader made to misread E5 in both, and to mark three cells covered in the first:
    # the stabiliser sets that frame aside (a hand over the board), so its misread never reaches the game.
    import physical_set

    from thoughtwave.engine.cells import CELLS
    from thoughtwave.engine.pieces import Colour, Piece
    from thoughtwave.vision.reading import CellReading
    from thoughtwave.vision.stabiliser import OCCLUDED_MIN

    frame, truth = render(Scene.random(4400, level="mild", hand=False, resolution=(960, 720)))
    record = {"board": truth.board_state(), "hand": False, "occluded_cells": [], "draw": DRAW}
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"frame-{i:05d}.png"), frame)
        (tmp_path / f"frame-{i:05d}.json").write_text(json.dumps(record))
    e5 = Cell.parse("E5")
    wrong = (CellReading.tile(Colour.RED, Piece.parse("e"), 0.9) if "E5" not in record["board"]
             else CellReading.empty(1.0))
    covered = frozenset(Cell.parse(n) for n in ("A1", "A2", "A3", "A4")[:OCCLUDED_MIN])
    frames_read = []

    class Misreading(Recognizer):
        def read(self, image):
            reading = super().read(image)
            first = not frames_read
            frames_read.append(image)
            return replace(reading, cells={**reading.cells, e5: wrong}, occluded=first,
                           occluded_cells=covered if first else frozenset())

    monkeypatch.setattr(physical_set, "Recognizer", Misreading)
    lines = score(tmp_path)
    table = next(line for line in lines if line.startswith("| all |"))
    assert table.endswith("| 2 |")                                     # both misreads count as confidently wrong
    aside = next(line for line in lines if line.startswith("Of these misreads"))
    assert f"marks {OCCLUDED_MIN} or more cells covered" in aside
    assert "1 of the 2 confidently wrong visible cells, 0 of the 0 hidden ones" in aside
    named = [line for line in lines if line.startswith("- frame-") and " E5: " in line]
    # Hidden cells: twelve tiles a frame read empty unsurely, named before an empty cell the second frame reads as a
    # tile (surely enough to act on): that one is named first all the same.
    free = [str(c) for c in CELLS if c != e5 and c not in covered]
    tiles = [n for n in free if n in record["board"]][:12]
    acted_at = [n for n in free if n not in record["board"]][-1]
    assert len(tiles) == 12
    record["occluded_cells"] = tiles + [acted_at]
    for i in range(2):
        (tmp_path / f"frame-{i:05d}.json").write_text(json.dumps(record))
    acted = CellReading.tile(Colour.BLACK, Piece.parse("ns"), 0.9)
    frames_read.clear()

    class HiddenMisreads(Recognizer):
        def read(self, image):
            reading = super().read(image)
            frames_read.append(image)
            cells = {**reading.cells, **{Cell.parse(n): CellReading.empty(0.6) for n in tiles}}
            if len(frames_read) == 2:
                cells[Cell.parse(acted_at)] = acted
            return replace(reading, cells=cells)

    monkeypatch.setattr(physical_set, "Recognizer", HiddenMisreads)
    lines = score(tmp_path)
    hidden_lines = [line for line in lines if "(under the hand): read " in line]
    assert len(hidden_lines) == 20                                      # 25 misread, 20 named
    assert hidden_lines[0].startswith(f"- frame-00001 {acted_at} (under the hand): read {acted.label()}, is empty")
    assert hidden_lines[0].endswith(", surely enough to act on")
    assert named == [f"- frame-00000 E5: read {wrong.label()}, is {record['board'].get('E5', 'empty')} (a frame the "
                     "referee sets aside: a hand over the board)",
                     f"- frame-00001 E5: read {wrong.label()}, is {record['board'].get('E5', 'empty')}"]

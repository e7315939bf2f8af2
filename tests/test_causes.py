"""Why a cell cannot be read: each cause the picture shows, named on rendered frames and carried to the flag."""

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.engine.referee import Referee, Rules
from thoughtwave.engine.table import FlagKind, Table
from thoughtwave.synth import Glare, Optics, Scene, Shadow, render
from thoughtwave.vision.causes import (
    Cause,
    CellLight,
    Sharpness,
    blur_cause,
    cause_message,
    cell_sizes,
    diagnose,
    explain,
)
from thoughtwave.vision.cellmeasures import traceless, washed_whole
from thoughtwave.vision.events import Unreadable, to_json
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.reading import BoardReading, CellReading, CellState
from thoughtwave.vision.recognizer import Recognizer
from thoughtwave.vision.sources import Frame
from thoughtwave.vision.stabiliser import Stabiliser
from thoughtwave.vision.watch import Watcher

BASE = Scene.random(21, level="mild", hand=False)


def causes_of(scene: Scene) -> tuple[BoardReading, Counter]:
    """The reading of ``scene`` after one frame of the undisturbed scene (the sharpness reference), by the rules alone:
    the second opinion reads many of the cells they leave (``tests/test_second_opinion.py``), and the causes of those
    that stay unreadable are named the same way."""
    recognizer = Recognizer()
    recognizer.reader.second = None
    assert recognizer.read(render(BASE)[0]).unreadable() == []
    reading = recognizer.read(render(scene)[0])
    assert reading.board_found
    return reading, Counter(reading.causes.get(c) for c in reading.unreadable())


def test_glare_is_named_glare_where_the_lamp_reflects():
    lamp = Glare((0.5, 0.5), 0.08, 250, 1.5, 20)
    reading, causes = causes_of(replace(BASE, light=replace(BASE.light, glare=(lamp,))))
    assert len(reading.unreadable()) >= 5
    assert causes[Cause.GLARE] >= 0.9 * len(reading.unreadable())


def test_tiles_washed_out_whole_by_a_wide_glare_are_glare_never_empty():
    # A glare spot three cells and more across clips the tiles under it to paper white: wider than the neighbourhood
    # the reader's glare measure compares with, so only the clipped middles with no dark ink near say it. (The paper
    # elsewhere is well below clipping, as a camera exposed for the board has it.)
    dimmer = replace(BASE, light=replace(BASE.light, exposure=0.6))
    scene = replace(dimmer, light=replace(dimmer.light, glare=(Glare((0.5, 0.5), 0.04, 400),)))
    recognizer = Recognizer()
    assert recognizer.read(render(dimmer)[0]).unreadable() == []
    reading = recognizer.read(render(scene)[0])
    causes = Counter(reading.causes.get(c) for c in reading.unreadable())
    truth = render(scene)[1]
    expected = {c: f"{truth.tiles[c][0].value} {truth.tiles[c][1]}" if c in truth.tiles else "empty" for c in CELLS}
    said = {c: reading.get(c) for c in CELLS if reading.get(c).state is not CellState.UNREADABLE}
    assert [c for c, got in said.items() if got.label() != expected[c]] == []       # never a tile read as empty
    assert len([c for c in truth.tiles if c not in said]) >= 12
    assert causes[Cause.GLARE] >= 0.8 * len(reading.unreadable())
    assert sum(reading.get(c).state is CellState.EMPTY for c in CELLS) >= 20     # the board beyond the spot reads


def test_tiles_washed_out_by_glare_on_paper_a_fifth_below_clipping_are_never_empty():
    # The paper at about 194 (darkest channel): a glare spot clips the tiles in its middle whole, and the ink it lifts
    # around them stays lighter than a trace. Most of each middle clipped says glare all the same.
    exposed = replace(BASE, light=replace(BASE.light, exposure=0.8))
    scene = replace(exposed, light=replace(exposed.light, glare=(Glare((0.5, 0.5), 0.04, 400),)))
    recognizer = Recognizer()
    recognizer.reader.second = None
    assert recognizer.read(render(exposed)[0]).unreadable() == []
    reading = recognizer.read(render(scene)[0])
    truth = render(scene)[1]
    expected = {c: f"{truth.tiles[c][0].value} {truth.tiles[c][1]}" if c in truth.tiles else "empty" for c in CELLS}
    assert [c for c in CELLS if reading.get(c).state is not CellState.UNREADABLE
            and reading.get(c).label() != expected[c]] == []
    assert Counter(reading.causes.get(c) for c in reading.unreadable())[Cause.GLARE] >= 10


def test_on_an_over_exposed_picture_a_clipped_middle_beside_a_washed_tile_may_hold_one_too():
    # Shaken seed 20, scene 97108: a wide glare spot over a board whose paper is at 246; a red ns and a black nesw
    # lifted to the paper's own level in their middles' unclipped parts (0.98 and 1.00 of it) beside tiles lifted to
    # within a few percent of it (0.92-0.94): read empty surely. Most middles clip (an over-exposed picture).
    geometry = GridGeometry()
    p, m = geometry.px_per_cell, geometry.margin_px
    dark = np.full((geometry.size, geometry.size), 255, np.uint8)
    clipped = np.ones(100)
    washed_tile, beside, far = Cell.parse("F9"), Cell.parse("F10"), Cell.parse("B2")
    for cell, level, share in ((washed_tile, 227, 0.66), (beside, 247, 0.91), (far, 247, 0.91)):
        y, x = m + cell.row * p, m + cell.col * p
        dark[y + 6:y + p - 6, x + 6:x + p - 6] = level              # the unclipped part of its middle
        dark[y + 10:y + p - 10, x + 10:x + p - 10] = 255
        clipped[cell.index] = share
    out = washed_whole(clipped, dark, geometry, lambda: 246.0)
    assert out[washed_tile.index]               # ink faintly below the paper: may be a tile washed out
    assert out[beside.index]                    # as white as paper, but beside it: the glare reaches it too
    assert not out[far.index]                   # as white as paper, and no washed tile near: paper
    # Beside it too, but clipped whole: in the light that leaves the washed tile's ink short of clipping, a tile beside
    # it would clip in part: paper.
    assert not out[Cell.parse("G10").index] and not out[Cell.parse("E9").index]


def test_on_an_over_exposed_picture_a_middle_clipped_where_ink_near_is_lifted_near_clipping_shows_nothing():
    # Shaken 'hard' seed 22, scene 56878: a smear spreads the light the clip hides into a washed tile's faint ink, so
    # its middle clips 80-100% and what is left is at the paper's level (no trace for ``washed_whole``). Where the
    # darkest ink within a cell is lifted to ``WASHED_TRACE`` or more, such a middle shows nothing of what lies there;
    # not where that ink is darker, nor where the cell is clipped whole (its border too: the reader's ``blind``), nor
    # on a board whose middles mostly do not clip.
    geometry = GridGeometry()
    p, m = geometry.px_per_cell, geometry.margin_px
    dark = np.full((geometry.size, geometry.size), 255, np.uint8)
    clipped = np.ones(100)
    lifted, darker, whole = Cell.parse("D10"), Cell.parse("D2"), Cell.parse("H5")
    for cell, ink, share in ((lifted, 236, 0.9), (darker, 150, 0.9), (whole, None, 1.0)):
        y, x = m + cell.row * p, m + cell.col * p
        if ink is not None:
            dark[y + 7:y + p - 7, x + 7:x + p - 7] = 252              # the middle's unclipped part: paper-level
            dark[y + 10:y + p - 10, x + 10:x + p - 10] = 255
            dark[y + 1:y + 3, x + 1:x + p - 1] = ink                   # ink within the cell, lifted by the glare
        clipped[cell.index] = share
    out = traceless(clipped, dark, geometry, dark >= 250)
    assert out[lifted.index] and not out[darker.index] and not out[whole.index]
    assert not washed_whole(clipped, dark, geometry, lambda: 254.0)[lifted.index]      # no trace to find a tile by
    partly = np.where(np.arange(100) < 60, 0.0, clipped)                               # most middles unclipped
    partly[lifted.index] = 0.9
    assert not traceless(partly, dark, geometry, dark >= 250).any()


def test_a_tile_clipped_only_in_a_corner_of_its_middle_by_a_spot_that_lifts_the_ink_beside_it_may_be_washed_out():
    # Seed 73 frame 100 J6: a red tile under a lamp's spot, a tenth of its middle clipped and the rest lifted to half
    # again the board's paper (darkest channel 242 over 149), the black tile beside it lifted to 172. No paper lit
    # there shows more, so the cell may hold a tile: a twentieth of the middle clipped is enough to say so.
    geometry = GridGeometry()
    dark = np.full((geometry.size, geometry.size), 235, np.uint8)     # everything in the spot's light lifted
    p, m = geometry.px_per_cell, geometry.margin_px
    dark[m + 5 * p + 8:m + 6 * p - 8, m + 8 * p + 4:m + 9 * p - 4] = 172  # the black tile beside, its ink lifted
    index = Cell.parse("J6").index
    clipped = np.zeros(100)
    for share, washed in ((0.1, True), (0.06, True), (0.0, False)):
        clipped[index] = share
        assert washed_whole(clipped, dark, geometry, lambda: 149.0)[index] == washed


def test_a_deep_shadow_is_named_shadow_and_never_blur():
    # At a tenth of the light: at a fifth, the rules place most tiles by their template in log light and read them by
    # their hub's light (the test after the next). At a tenth they read about half of the dozen cells they leave
    # unreadable without that (a tile pulled off its cell's centre by the band's edge is placed in log light too), none
    # wrong; what is left is named.
    band = Shadow(30, 0.0, 0.05, 0.9)
    scene = replace(BASE, light=replace(BASE.light, shadow=band))
    reading, causes = causes_of(scene)
    assert_none_wrong(reading, scene)
    assert len(reading.unreadable()) >= 5
    assert causes[Cause.SHADOW] >= 0.7 * len(reading.unreadable())
    assert causes[Cause.FOCUS] == causes[Cause.MOTION] == 0


def assert_none_wrong(reading, scene) -> None:
    """Every cell ``reading`` reads empty or as a tile is what ``scene`` holds there."""
    tiles = render(scene)[1].tiles
    for cell, seen in reading.cells.items():
        if seen.state == CellState.EMPTY:
            assert cell not in tiles
        elif seen.state == CellState.TILE:
            assert (seen.colour, seen.piece) == tiles[cell]


@pytest.mark.parametrize(("band", "most"), [(Shadow(30, 0.0, 0.12, 0.8), 7), (Shadow(30, 0.0, 0.05, 0.8), 8)],
                         ids=["wide", "narrow"])
def test_tiles_in_a_deep_shadow_are_read_by_their_hubs_light_and_none_wrong(band, most):
    # A band of shade at a fifth of the light, which the white estimate (taken over a cell) does not follow: the
    # rules alone left 14 cells unreadable in the wide band, 13 in the narrow. Each tile's hub, printed cream, stands
    # for its own white (``_hub_gain``). In the narrow band, divided by the white beside it, a tile's cream is crushed
    # toward its ink and the hub's template finds too little (or the lit paper at the band's edge); shade multiplies
    # the light, so in log light the template finds the tile's printed ratio of cream over ink: the tile is placed so.
    scene = replace(BASE, light=replace(BASE.light, shadow=band))
    reading, _ = causes_of(scene)
    assert len(reading.unreadable()) <= most
    assert_none_wrong(reading, scene)


@pytest.mark.parametrize(("optics", "cause"), [(Optics(defocus=3.0), Cause.FOCUS),
                                               (Optics(motion_px=10, motion_angle_deg=30), Cause.MOTION)])
def test_blur_is_told_apart_from_a_shaken_camera(optics, cause, monkeypatch):
    # The cells a smear leaves: without the re-read of the board deconvolved by the blur measured on its markers,
    # which reads most of them (tests/test_markerblur.py).
    monkeypatch.setattr("thoughtwave.vision.recognizer.marker_blur", lambda *args: None)
    reading, causes = causes_of(replace(BASE, optics=optics))
    assert len(reading.unreadable()) >= 3
    assert causes == Counter({cause: len(reading.unreadable())})


def test_a_board_too_small_in_the_picture_says_so():
    reading, causes = causes_of(replace(BASE, camera=replace(BASE.camera, resolution=(400, 300))))
    assert reading.unreadable()
    assert causes == Counter({Cause.SMALL: len(reading.unreadable())})


def test_cells_under_a_hand_are_covered():
    frame, truth = render(Scene.random(57, level="mild", hand=True))
    reading = Recognizer().read(frame)
    covered = [c for c in truth.occluded_cells if truth.occlusion[c] > 0.6]
    assert covered and all(reading.causes.get(c) is Cause.HAND for c in covered)


def test_a_good_frame_has_no_causes_and_the_recognize_json_is_unchanged():
    reading = Recognizer().read(render(BASE)[0])
    assert reading.causes == {}
    assert set(reading.to_json()) == {"board_found", "cells", "unreadable", "ms"}


def test_the_recognize_json_names_causes_of_unreadable_cells_only():
    e5, f6 = Cell.parse("E5"), Cell.parse("F6")
    cells = {c: CellReading.empty() for c in CELLS} | {e5: CellReading.unreadable()}
    reading = BoardReading(True, cells, causes={e5: Cause.GLARE, f6: Cause.SHADOW})
    assert reading.to_json()["causes"] == {"E5": "glare"}


def test_a_drop_in_sharpness_against_the_reference_counts_as_blur():
    soft = Sharpness(width=4.0, anisotropy=0.2)
    assert blur_cause(soft, 32) is None                      # under the absolute limit
    assert blur_cause(soft, 32, reference=2.2) is Cause.FOCUS  # but much softer than before
    assert blur_cause(Sharpness(4.0, 0.9), 32, reference=2.2) is Cause.MOTION


def test_cell_sizes_follow_the_grid_corners():
    xs, ys = np.meshgrid(np.arange(11) * 30.0, np.arange(11) * 20.0)
    sizes = cell_sizes(np.stack([xs, ys], axis=-1))
    assert sizes.shape == (100,) and np.allclose(sizes, 25.0)


def test_messages_are_in_a_players_words_with_advice():
    e5 = Cell.parse("E5")
    assert cause_message(Cause.GLARE, e5) == "glare on E5: tilt the lamp or the board"
    assert cause_message(Cause.SHADOW, e5).startswith("E5 is in shadow")
    assert "hold the table still" in cause_message(Cause.MOTION, e5)
    assert cause_message(None, e5).startswith("can't read E5")
    assert all("E5" in cause_message(cause, e5) for cause in Cause)


# -- from the reader to the flag: stabiliser, table, watcher, JSON ------------------------------------

def board(unreadable: dict[str, Cause | None], tile: CellReading | None = None) -> BoardReading:
    cells = {c: CellReading.empty() for c in CELLS}
    causes = {}
    for name, cause in unreadable.items():
        cells[Cell.parse(name)] = tile or CellReading.unreadable()
        if cause is not None and tile is None:
            causes[Cell.parse(name)] = cause
    return BoardReading(True, cells, causes=causes)


class Scripted:
    pose_moved = False

    def __init__(self, readings):
        self.readings = iter(readings)

    def read(self, image):
        return next(self.readings)

    def draw_overlay(self, image):
        return image


def run_watcher(readings: list[BoardReading]) -> list[dict]:
    watcher = Watcher(Rules(), reader=Scripted(readings))
    out = []
    for i in range(len(readings)):
        out += [to_json(e) for e in watcher.feed(Frame(i, i / 10, np.zeros((4, 4, 3), np.uint8)))]
    return out


def test_an_unreadable_event_carries_its_cause_and_advice():
    events = run_watcher([board({})] * 10 + [board({"G7": Cause.GLARE})] * 20)
    unreadable = [e for e in events if e["event"] == "unreadable"]
    assert unreadable == [{"frame": unreadable[0]["frame"], "event": "unreadable", "flag": "unreadable",
                           "cell": "G7", "message": "glare on G7: tilt the lamp or the board", "cause": "glare"}]


def test_an_unreadable_event_without_a_cause_keeps_the_old_shape():
    events = run_watcher([board({})] * 10 + [board({"G7": None})] * 20)
    unreadable = [e for e in events if e["event"] == "unreadable"]
    assert set(unreadable[0]) == {"frame", "event", "flag", "cell", "message"}
    assert unreadable[0]["message"].startswith("can't read G7")


RED_EW = CellReading.tile(Colour.RED, Piece.parse("ew"))
BLACK_EW = CellReading.tile(Colour.BLACK, Piece.parse("ew"))


def settled(readings):
    """The last view a fresh stabiliser fed ``readings`` a tenth of a second apart gave."""
    stabiliser = Stabiliser()
    view = None
    for i, reading in enumerate(readings):
        view = stabiliser.feed(i / 10, reading) or view
    return view


def test_a_cell_read_two_ways_in_turn_is_unsteady():
    view = settled(board({"G7": None}, tile=RED_EW if i % 2 else BLACK_EW) for i in range(20))
    assert view is not None and view.cells[Cell.parse("G7")].state.value == "unreadable"
    assert view.causes == {Cell.parse("G7"): Cause.UNSTEADY}


def test_a_cell_read_two_ways_between_unclear_frames_is_unsteady_not_unclear():
    # Every third frame cannot read G7 and names no better cause than "unclear"; the others disagree.
    view = settled(board({"G7": Cause.UNCLEAR}) if i % 3 == 2
                   else board({"G7": None}, tile=RED_EW if i % 3 else BLACK_EW) for i in range(21))
    assert view is not None and view.cells[Cell.parse("G7")].state.value == "unreadable"
    assert view.causes == {Cell.parse("G7"): Cause.UNSTEADY}
    steady = settled(board({"G7": Cause.UNCLEAR}) for _ in range(20))
    assert steady is not None and steady.causes == {Cell.parse("G7"): Cause.UNCLEAR}


def test_the_table_takes_the_reason_as_the_flag_and_a_new_reason_changes_it():
    table = Table(Referee(Rules()))
    g7 = Cell.parse("G7")
    seen = {c: None for c in CELLS if c != g7}
    first = table.observe(seen, [g7], {g7: "glare on G7: tilt the lamp or the board"})
    assert [e.flag.message for e in first] == ["glare on G7: tilt the lamp or the board"]
    assert table.observe(seen, [g7], {g7: "glare on G7: tilt the lamp or the board"}) == []
    changed = table.observe(seen, [g7], {g7: "G7 is in shadow: move what casts it or add light"})
    assert [(e.flag.kind, e.flag.message) for e in changed] == [
        (FlagKind.UNREADABLE, "G7 is in shadow: move what casts it or add light")]
    assert table.observe(seen, [g7]) == []          # no reason given: the standing flag stays


def test_unreadable_events_keep_their_cause_in_the_type():
    event = Unreadable(Cell.parse("E5"), "glare on E5: tilt the lamp or the board", 4, "glare")
    assert to_json(event)["cause"] == "glare"


# -- every unreadable cell is explained ---------------------------------------------------------------

def test_every_unreadable_cell_of_a_found_board_names_a_cause():
    unreadable = 0
    for seed in range(6):
        # Hard fast-camera scenes, half with the physical disturbances (lamp, thick tiles, gloss, the hand's shadow).
        reading = Recognizer().read(render(Scene.random(seed, level="hard", physical=seed in (0, 2, 4)))[0])
        if reading.board_found:
            assert set(reading.unreadable()) <= set(reading.causes), f"seed {seed}"
            unreadable += len(reading.unreadable())
    assert unreadable >= 5        # the scenes are hard enough to leave cells to explain


SHARP = Sharpness(2.5, 0.2)


def one_cell(light: float = 1.0, plain: bool = False, *, moved: bool = False,
             sharp: Sharpness = SHARP, unplaced: bool = False) -> tuple[Cause, list[Sharpness]]:
    """The cause ``explain`` gives one unreadable cell (E5) that no hand, clipping, shade or size explains (or, with
    ``unplaced``, one the pose is too unsure to place), and the sharpness measures it asked for."""
    unread = np.zeros(100, bool)
    unread[Cell.parse("E5").index] = True
    lights = np.ones(100, np.float32)
    lights[Cell.parse("E5").index] = light
    asked: list[Sharpness] = []

    def measure() -> Sharpness:
        asked.append(sharp)
        return sharp

    cell_light = CellLight(lights, lights * 200, np.zeros(100, np.float32), np.ones(100, np.float32))
    plains = np.zeros(100, bool)
    plains[Cell.parse("E5").index] = plain
    causes, _ = explain(unread, np.zeros(100, bool), np.ones(100, np.float32), cell_light, glare_max=1.1,
                        cell_px=np.full(100, 40.0), moved=moved, measure=measure, px_per_cell=32, plain=plains,
                        unplaced=unread if unplaced else None)
    assert set(causes) == {Cell.parse("E5")}
    return causes[Cell.parse("E5")], asked


def test_a_cell_nothing_explains_is_unclear_not_left_without_a_cause():
    assert one_cell() == (Cause.UNCLEAR, [Sharpness(2.5, 0.2)])


def test_a_slightly_soft_picture_names_the_blur_of_cells_nothing_else_explains():
    assert one_cell(sharp=Sharpness(4.2, 0.2))[0] is Cause.FOCUS          # under BLUR_WIDTH, over SOFT_BLUR_WIDTH
    assert one_cell(sharp=Sharpness(4.2, 0.9))[0] is Cause.MOTION
    assert blur_cause(Sharpness(4.2, 0.2), 32) is None                    # the whole-board test is unchanged


def test_a_cell_a_pose_on_too_few_markers_cannot_place_is_the_blurs_in_a_slightly_soft_picture_else_a_hands():
    # Seed 61 frame 101 (no hand in it): a 7.9 px smear left three markers; the board read soft but under BLUR_WIDTH,
    # and the 46 cells the pose could not place were said to be under a hand.
    assert one_cell(unplaced=True, sharp=Sharpness(4.9, 0.95))[0] is Cause.MOTION
    assert one_cell(unplaced=True, sharp=Sharpness(4.2, 0.2))[0] is Cause.FOCUS
    assert one_cell(unplaced=True)[0] is Cause.HAND                     # a sharp picture: the markers are hidden


def test_an_even_inkless_middle_is_shade_and_a_bright_one_is_the_lamps_sheen_without_measuring_sharpness():
    assert one_cell(plain=True) == (Cause.SHADOW, [])
    assert one_cell(light=1.25) == (Cause.GLARE, [])
    assert one_cell(light=1.25, plain=True)[0] is Cause.GLARE              # bright paper is no shade


def test_a_cell_nothing_else_explains_two_cells_off_a_hand_is_the_hands_and_three_off_is_unclear():
    # Seed 149 frame 144: the hand's shadow two cells below the cells the reader saw covered, named small or unclear.
    unread, covered = np.zeros(100, bool), np.zeros(100, bool)
    covered[Cell.parse("E1").index] = True
    for name in ("E3", "G3", "E4"):
        unread[Cell.parse(name).index] = True
    lights = np.ones(100, np.float32)
    cell_light = CellLight(lights, lights * 200, np.zeros(100, np.float32), lights)
    px = np.full(100, 40.0)
    px[Cell.parse("G3").index] = 20.0                                    # too small as well: still the hand's
    causes, _ = explain(unread, covered, lights, cell_light, glare_max=1.1, cell_px=px, moved=False,
                        measure=lambda: SHARP, px_per_cell=32)
    assert causes == {Cell.parse("E3"): Cause.HAND, Cell.parse("G3"): Cause.HAND, Cell.parse("E4"): Cause.UNCLEAR}


def test_a_moved_camera_names_motion_without_measuring():
    assert one_cell(moved=True) == (Cause.MOTION, [])


def test_a_hand_like_patch_clipped_white_is_glare_and_one_that_is_not_is_a_hand():
    # A glossy highlight in a warm lamp's colour reads as hand-like as skin (tuning seed 7, frame 14, no hand in it).
    unread, covered = np.ones(100, bool), np.ones(100, bool)
    clipped = np.zeros(100, np.float32)
    clipped[Cell.parse("E5").index] = 0.5
    light = CellLight(np.ones(100, np.float32), np.full(100, 200.0, np.float32), clipped, np.ones(100, np.float32))
    causes = diagnose(unread, covered, np.ones(100, np.float32), light)
    assert causes[Cell.parse("E5")] is Cause.GLARE
    assert causes[Cell.parse("E6")] is Cause.HAND


def test_a_picture_dark_all_over_is_dim_light_not_a_hand_but_a_bright_cover_in_it_is_still_covered():
    # An underexposed picture (a bright lamp in view, path-traced seed 43 frame 17) looks hand-covered everywhere to
    # the occlusion test; the lamp's own bright disc over some cells still covers them (seed 47, frame 199).
    unread, covered = np.ones(100, bool), np.ones(100, bool)
    paper = np.full(100, 20.0, np.float32)
    paper[Cell.parse("E5").index] = 230.0
    light = CellLight(np.ones(100, np.float32), paper, np.zeros(100, np.float32), np.ones(100, np.float32))
    causes = diagnose(unread, covered, np.ones(100, np.float32), light)
    assert causes[Cell.parse("E6")] is Cause.SHADOW
    assert causes[Cell.parse("E5")] is Cause.HAND
    # In a well lit picture a dark covered cell is a hand, as before.
    paper[:50] = 200.0
    assert diagnose(unread, covered, np.ones(100, np.float32), light)[Cell.parse("J10")] is Cause.HAND


def test_paper_lit_far_above_the_boards_white_is_glare_even_where_it_looks_like_a_hand():
    # A warm lamp's broad sheen, 1.4-1.6 times the board's white, looks hand-like (tuning seed 7, frame 89, no hand).
    unread, covered = np.ones(100, bool), np.ones(100, bool)
    lights = np.ones(100, np.float32)
    lights[Cell.parse("E5").index] = 1.45
    light = CellLight(lights, np.full(100, 200.0, np.float32), np.zeros(100, np.float32), np.ones(100, np.float32))
    causes = diagnose(unread, covered, np.ones(100, np.float32), light)
    assert causes[Cell.parse("E5")] is Cause.GLARE
    assert causes[Cell.parse("E6")] is Cause.HAND


def dimmed(seed: int, share: float, hand: bool, sigma: float, level: str = "mild"):
    """A fast-camera frame of ``seed`` at ``share`` of its light, with ``sigma`` of noise (a lamp in view dims the rest
    of the picture so), and the truth."""
    frame, truth = render(Scene.random(seed, level=level, hand=hand, resolution=(960, 720)))
    noise = np.random.default_rng(seed).normal(0, sigma, frame.shape)
    return np.clip(frame.astype(np.float32) * share + noise, 0, 255).round().astype(np.uint8), truth


def misread(reading, truth) -> list[str]:
    expected = truth.board_state()
    return [str(c) for c in CELLS if reading.get(c).state is not CellState.UNREADABLE
            and reading.get(c).label() != expected.get(str(c), "empty")]


def test_paper_dimmed_all_over_keeps_its_hue_and_reads_empty():
    # Path-traced seed 97 frames 60 and 185, the lamp in view: paper at 11-30 grey levels. The paper white's floor
    # was one grey level for every channel, which turned dim paper orange, skin-like, over whole rows; and the noise
    # kept empty middles off the plane the paper test asks of them. Now every cell of such a picture reads.
    frame, truth = dimmed(6, 0.06, hand=False, sigma=1.0)
    reading = Recognizer().read(frame)
    assert reading.board_found and misread(reading, truth) == []
    assert len(reading.unreadable()) <= 5


@pytest.mark.parametrize(("seed", "level", "share"), [(6, "mild", 0.12), (10, "medium", 1.0)])
def test_a_hand_the_rules_take_for_paper_by_its_light_is_not_read_as_paper(seed, level, share):
    # Skin flat like paper and showing too little colour to tell from it (pale in warm light; dim and noisy): where the
    # rules read a middle paper by its light alone, the second opinion is asked whether something covers it (seed 6
    # dimmed: H10 under the hand; seed 10: C1; path-traced seed 97 frame 54: nine tiles under a pale arm).
    frame, truth = dimmed(seed, share, hand=True, sigma=1.2 if share < 1.0 else 0.0, level=level)
    reading = Recognizer().read(frame)
    assert reading.board_found and misread(reading, truth) == []


def test_no_cell_of_a_picture_dark_all_over_is_said_to_be_under_a_hand_where_there_is_none():
    # Path-traced seed 73 frame 109, the lamp in view and no hand: six tiles were said to have "a hand beside" them, as
    # everything looks hand-like in the dark. The players can fix the light, not a hand that is not there.
    frame, _ = render(Scene.random(6, level="mild", hand=False, resolution=(960, 720)))
    noise = np.random.default_rng(6).normal(0, 1.0, frame.shape)
    # (At 0.06 of its light the reader now reads every cell: the white's floor keeps the paper's hue.)
    dark = np.clip(frame.astype(np.float32) * 0.03 + noise, 0, 255).round().astype(np.uint8)
    reading = Recognizer().read(dark)
    assert reading.board_found and reading.unreadable()
    assert Cause.HAND not in set(reading.causes.values())

"""The stabiliser: hands, shadows and lamps change nothing; a new tile is one change once steady; a cell the
camera cannot read is reported unreadable, never guessed empty. Readings here are synthetic."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.vision.reading import BoardReading, CellReading, CellState
from thoughtwave.vision.stabiliser import (
    HAND,
    NO_BOARD,
    OCCLUDED_MIN,
    SETTLING,
    STEADY,
    Stabiliser,
    board_signature,
    covered_alone,
)

FPS = 10
E5, F5 = Cell.parse("E5"), Cell.parse("F5")
RED_EW = CellReading.tile(Colour.RED, Piece.parse("ew"), 0.97)
RNG = np.random.default_rng(7)
BOARD = RNG.integers(40, 140, (40, 40)).astype(np.uint8)    # the board's signature: a fixed texture


def board(tiles: dict | None = None, unreadable=(), occluded=False, occluded_cells=()) -> BoardReading:
    cells = {c: CellReading.empty(0.95) for c in CELLS}
    cells.update(tiles or {})
    for c in unreadable:
        cells[c] = CellReading.unreadable(0.2)
    return BoardReading(True, cells, occluded=occluded, occluded_cells=frozenset(occluded_cells))


def with_hand(signature: np.ndarray, x: int) -> np.ndarray:
    """A dark forearm reaching in from the east edge to column ``x``."""
    out = signature.copy()
    out[12:28, x:] = 20
    return out


def run(stabiliser: Stabiliser, frames, t0: float = 0.0):
    """Feed (reading, signature) pairs at FPS; the (t, StableBoard) pairs accepted."""
    accepted = []
    for i, (reading, signature) in enumerate(frames):
        t = t0 + i / FPS
        got = stabiliser.feed(t, reading, signature)
        if got is not None:
            accepted.append((t, got))
    return accepted


def settle(stabiliser: Stabiliser, reading=None, seconds: float = 1.0, t0: float = 0.0):
    return run(stabiliser, [(reading or board(), BOARD)] * int(seconds * FPS), t0)


def test_a_steady_empty_board_is_accepted_once_after_stable_seconds():
    st = Stabiliser(stable_seconds=0.4)
    accepted = settle(st, seconds=2.0)
    assert len(accepted) == 1
    t, view = accepted[0]
    assert t == pytest.approx(0.4) and view.changed == frozenset()
    assert all(r.state is CellState.EMPTY for r in view.cells.values())
    assert st.status == STEADY


def test_a_new_tile_is_one_change_after_stable_seconds_once_the_hand_has_gone():
    st = Stabiliser(stable_seconds=0.4)
    settle(st)
    under = [c for c in CELLS if c.row in (3, 4, 5) and c.col >= 4]
    hand = [(board(occluded=True, occluded_cells=under), with_hand(BOARD, x)) for x in (30, 20, 15, 15, 22, 32)]
    after = BOARD.copy()
    after[18:22, 18:22] = 200   # the tile now shows on E5
    placed = [(board({E5: RED_EW}), after)] * 12
    accepted = run(st, hand + placed, t0=1.0)
    assert len(accepted) == 1
    t, view = accepted[0]
    assert view.changed == {E5}
    assert view.cells[E5] == RED_EW and view.seen()[E5] == (Colour.RED, Piece.parse("ew"))
    hand_gone = 1.0 + len(hand) / FPS
    assert hand_gone + 0.4 <= t <= hand_gone + 0.4 + 1.5 / FPS   # the hand's going is itself one frame of motion


def test_a_hand_resting_over_the_board_for_five_seconds_changes_nothing():
    st = Stabiliser(stable_seconds=0.4)
    settle(st)
    # under the hand the reader half-sees things: misread tiles, unreadable cells
    misread = {Cell.parse("G5"): CellReading.tile(Colour.BLACK, Piece.parse("n"), 0.5)}
    under = [c for c in CELLS if c.row in (3, 4, 5) and c.col >= 4]
    resting = [(board(misread, unreadable=[E5], occluded=True, occluded_cells=under), with_hand(BOARD, 15))] * 50
    assert run(st, resting, t0=1.0) == []
    assert st.status == HAND
    assert st.hand_seconds == pytest.approx(4.9)
    assert settle(st, seconds=2.0, t0=6.0) == []        # the hand leaves: the board is as it was
    assert st.status == STEADY and st.hand_seconds == 0.0


def test_a_hand_the_reader_does_not_flag_still_changes_nothing():
    st = Stabiliser(stable_seconds=0.4)
    settle(st)
    covered = [c for c in CELLS if c.row in (4, 5) and c.col >= 5]    # ten cells under the forearm
    frames = [(board(unreadable=covered), with_hand(BOARD, x)) for x in (35, 28, 22)]
    frames += [(board(unreadable=covered), with_hand(BOARD, 22))] * 50    # resting, perfectly still
    assert run(st, frames, t0=1.0) == []
    assert st.status == HAND


def test_a_lamp_switched_on_changes_nothing_and_is_not_even_motion():
    st = Stabiliser(stable_seconds=0.4)
    settle(st)
    ramp = [(board(), np.clip(BOARD * g + 25 * (g - 1), 0, 255).astype(np.uint8)) for g in (1.1, 1.25, 1.4)]
    frames = ramp + [(board(), ramp[-1][1])] * 20
    statuses = []
    for i, (reading, signature) in enumerate(frames):
        assert st.feed(1.0 + i / FPS, reading, signature) is None
        statuses.append(st.status)
    assert set(statuses) == {STEADY}


def test_a_shadow_sweeping_across_is_motion_while_it_moves_and_then_nothing():
    st = Stabiliser(stable_seconds=0.4)
    settle(st)
    frames = []
    for x in range(0, 40, 5):
        shadow = BOARD.astype(np.float32)
        shadow[:, x:x + 12] *= 0.5
        frames.append((board(), shadow.astype(np.uint8)))
    frames += [(board(), BOARD)] * 10
    statuses = []
    for i, (reading, signature) in enumerate(frames):
        assert st.feed(1.0 + i / FPS, reading, signature) is None
        statuses.append(st.status)
    assert SETTLING in statuses[:8] and statuses[-1] == STEADY


def test_a_cell_unreadable_for_a_long_time_is_reported_unreadable_not_empty():
    st = Stabiliser(stable_seconds=0.4, unreadable_seconds=1.0)
    settle(st)
    accepted = settle(st, board(unreadable=[E5]), seconds=3.0, t0=1.0)
    assert len(accepted) == 1
    t, view = accepted[0]
    # older frames of the same quiet spell still vote "empty" for a while (window_seconds), never longer
    assert 1.0 + 1.0 <= t <= 1.0 + st.window_seconds + 1.0 + 1.5 / FPS
    assert view.changed == {E5} and view.unreadable() == [E5]
    assert E5 not in view.seen() and view.seen()[F5] is None


def test_a_flickering_new_tile_is_unreadable_never_empty_and_then_read_when_it_settles():
    st = Stabiliser(stable_seconds=0.4, unreadable_seconds=1.0)
    settle(st, board({E5: RED_EW}))
    black = CellReading.tile(Colour.BLACK, Piece.parse("ew"), 0.6)
    frames = [(board({E5: black if i % 2 else RED_EW}), BOARD) for i in range(20)]   # red? black? can't say
    accepted = run(st, frames, t0=1.0)
    assert [view.cells[E5].state for _, view in accepted] == [CellState.UNREADABLE]
    assert accepted[0][1].changed == {E5}
    back = settle(st, board({E5: RED_EW}), seconds=1.0, t0=3.0)
    assert len(back) == 1 and back[0][1].cells[E5] == RED_EW


def test_a_cell_unreadable_from_the_start_is_unreadable_at_once():
    st = Stabiliser(stable_seconds=0.4)
    accepted = settle(st, board(unreadable=[E5]))
    assert accepted[0][1].unreadable() == [E5]


def test_a_clock_that_goes_back_starts_the_quiet_spell_again_rather_than_hanging():
    st = Stabiliser(stable_seconds=0.4)
    settle(st, seconds=3.0)
    assert settle(st, board({E5: RED_EW}), seconds=1.0, t0=0.0)[0][1].changed == {E5}


def test_no_board_means_no_view_and_the_status_says_so():
    st = Stabiliser(stable_seconds=0.4)
    for i in range(10):
        assert st.feed(i / FPS, BoardReading(False), None) is None
    assert st.status == NO_BOARD


def test_many_cells_unreadable_for_long_become_unreadable_rather_than_a_hand_forever():
    st = Stabiliser(stable_seconds=0.4, blind_patience=2.0)
    settle(st)
    dark = [c for c in CELLS if c.row < 3]
    accepted = settle(st, board(unreadable=dark), seconds=4.0, t0=1.0)
    assert len(accepted) == 1 and set(accepted[0][1].unreadable()) == set(dark)
    assert accepted[0][0] > 3.0


def test_board_signature_is_a_small_grey_thumbnail():
    image = np.zeros((300, 300, 3), np.uint8)
    image[:, 150:] = (255, 255, 255)
    sig = board_signature(image)
    assert sig.shape == (40, 40) and sig[:, :19].max() == 0 and sig[:, 21:].min() == 255


def _rendered_signatures(seed: int = 3):
    """Signatures of rendered frames (board warped by the true pose): plain, lamp on, a hand over it."""
    from dataclasses import replace

    import cv2

    from thoughtwave.synth import Scene, render

    scene = Scene.random(seed, level="medium", hand=False, resolution=(320, 240))
    layout = scene.layout

    def signature(s):
        frame, truth = render(s)
        to_board = truth.board_to_image @ np.diag([layout.width_mm / 200, layout.height_mm / 200, 1.0])
        return board_signature(cv2.warpPerspective(frame, to_board, (200, 200), flags=cv2.WARP_INVERSE_MAP))

    plain = [signature(replace(scene, noise_seed=i)) for i in range(3)]
    brighter = replace(scene.light, exposure=scene.light.exposure * 1.25)
    lamp = [signature(replace(scene, light=brighter, noise_seed=10 + i)) for i in range(3)]
    with_hand = Scene.random(seed, tiles=scene.tiles, level="medium", hand=True, resolution=(320, 240))
    return plain, lamp, signature(with_hand)


def test_on_rendered_frames_a_lamp_is_no_change_and_a_hand_is_motion():
    plain, lamp, hand = _rendered_signatures()
    st = Stabiliser(stable_seconds=0.4)
    t = 0.0
    accepted = []
    for sig in plain * 3 + lamp * 4:
        accepted.append(st.feed(t, board(), sig))
        t += 1 / FPS
    assert sum(a is not None for a in accepted) == 1          # the first steady view, then nothing
    assert st.status == STEADY
    st.feed(t, board(), hand)
    assert st.status == SETTLING                               # the reader missed it; the motion did not


def test_one_cell_the_reader_sometimes_calls_covered_is_no_hand():
    st = Stabiliser(stable_seconds=0.4)
    settle(st, board({E5: RED_EW}))
    frames = [(board({E5: RED_EW}) if i % 3 else board(unreadable=[E5], occluded=True, occluded_cells=[E5]), BOARD)
              for i in range(20)]
    statuses = []
    accepted = []
    for i, (reading, signature) in enumerate(frames):
        accepted.append(st.feed(1.0 + i / FPS, reading, signature))
        statuses.append(st.status)
    assert HAND not in statuses and set(accepted) == {None}       # E5 still read as the red tile


def test_a_frame_that_shows_the_board_covered_by_itself_is_set_aside_whatever_it_reads():
    three = [Cell.parse(n) for n in ("A1", "A2", "A3")][:OCCLUDED_MIN]
    assert covered_alone(board(occluded=True, occluded_cells=three))
    assert not covered_alone(board(occluded=True, occluded_cells=three[:-1]))
    assert covered_alone(board(occluded=True))                  # covered, the cells not named
    assert not covered_alone(board())
    # Such a frame reaches no view, even from a steady board and with a tile misread elsewhere in it (the bench counts
    # a misread there apart: ``bench/physical_set.py score``).
    st = Stabiliser(stable_seconds=0.4)
    settle(st, board({E5: RED_EW}))
    misread = board({E5: CellReading.tile(Colour.RED, Piece.parse("e"), 0.97)}, occluded=True, occluded_cells=three)
    assert run(st, [(misread, BOARD)] * 20, t0=1.0) == [] and st.status == HAND
    assert st.accepted.cells[E5] == RED_EW


def test_a_tile_read_only_now_and_then_is_still_read_when_nothing_contradicts_it():
    st = Stabiliser(stable_seconds=0.4)
    settle(st)
    frames = [(board({E5: RED_EW}) if i % 2 else board(unreadable=[E5]), BOARD) for i in range(15)]
    accepted = run(st, frames, t0=1.0)
    assert accepted and accepted[-1][1].cells[E5] == RED_EW
    assert all(view.cells[E5].state is not CellState.EMPTY for _, view in accepted)


def test_a_tile_seen_once_in_a_long_spell_is_unreadable_at_once_not_empty():
    st = Stabiliser(stable_seconds=0.4, unreadable_seconds=5.0)
    settle(st)
    hand = [(board(occluded=True), with_hand(BOARD, 10))]
    frames = [(board({E5: RED_EW}) if i == 7 else board(unreadable=[E5]), BOARD) for i in range(20)]
    accepted = run(st, hand + frames, t0=1.0)
    assert [view.cells[E5].state for _, view in accepted] == [CellState.UNREADABLE]


# ---- property: whatever passes over a board that does not change, the board is accepted once, as it is ----
_DISTURBANCES = hs.sampled_from(["still", "hand", "arm", "lamp", "shadow", "noise", "blind", "no board"])


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.tuples(_DISTURBANCES, hs.integers(1, 12)), max_size=12), hs.integers(0, 2**16))
def test_a_board_that_never_changes_is_accepted_once_whatever_passes_over_it(spells, seed):
    rng = np.random.default_rng(seed)
    placed = board({E5: RED_EW, F5: CellReading.tile(Colour.BLACK, Piece.parse("ns"))})
    under = [c for c in CELLS if c.row in (4, 5) and c.col >= 3]
    stab = Stabiliser(stable_seconds=0.4)
    t, accepted = 0.0, []
    for kind, frames in [("still", 6), *spells, ("still", 6)]:
        for k in range(frames):
            reading, sig = placed, BOARD
            if kind == "hand":
                reading = board(unreadable=under[:8], occluded=True, occluded_cells=under)
                sig = with_hand(BOARD, 10 + 3 * (k % 5))
            elif kind == "arm":            # the reader misses the arm; only the motion tells
                sig = with_hand(BOARD, 5 + 4 * (k % 8))
            elif kind == "lamp":
                gain = 1.0 + 0.1 * (k % 4)
                sig = np.clip(BOARD * gain + 10 * (gain - 1), 0, 255).astype(np.uint8)
            elif kind == "shadow":
                shade = BOARD.astype(np.float32)
                shade[:, 4 * k % 40:] *= 0.6
                sig = shade.astype(np.uint8)
            elif kind == "noise":
                sig = np.clip(BOARD + rng.normal(0, 2, BOARD.shape), 0, 255).astype(np.uint8)
            elif kind == "blind":          # many cells unread for a moment, as when glare flashes
                reading = board({E5: RED_EW}, unreadable=under)
            elif kind == "no board":
                reading, sig = BoardReading(False), None
            view = stab.feed(t, reading, sig)
            if view is not None:
                accepted.append(view)
            t += 1 / FPS
    assert len(accepted) == 1
    assert {c: r.label() for c, r in accepted[0].cells.items() if r.state is CellState.TILE} == {
        E5: "red ew", F5: "black ns"}


def test_a_pale_hand_resting_long_over_tiles_never_takes_them_off():
    # A hand of pale skin in warm light reads as paper where it covers tiles, and leaves the cells at its rim
    # unreadable (tuning seed 7, frames 36, 45, 60, 72). Resting past the blind patience, its tiles are not gone.
    st = Stabiliser(stable_seconds=0.4, blind_patience=2.0)
    tiles = {Cell.parse(n): RED_EW for n in ("E5", "F5", "G5")}
    settle(st, board(tiles))
    rim = [Cell.parse(n) for n in ("D4", "E4", "F4", "G4", "H4", "D6", "H6")]
    accepted = settle(st, board(unreadable=rim), seconds=4.0, t0=1.0)     # the tiles under it read empty
    # A tile laid elsewhere meanwhile is seen, and the hand's tiles are still not gone.
    accepted += settle(st, board({Cell.parse("A1"): RED_EW}, unreadable=rim), seconds=2.0, t0=5.0)
    assert accepted[-1][1].cells[Cell.parse("A1")] == RED_EW
    assert all(view.cells[c].state is not CellState.EMPTY for _, view in accepted for c in tiles)
    # Once it has gone, a tile that was really taken off is seen gone.
    gone = settle(st, board({Cell.parse(n): RED_EW for n in ("A1", "E5", "F5")}), seconds=2.0, t0=7.0)
    assert gone and gone[-1][1].cells[Cell.parse("G5")].state is CellState.EMPTY


def test_an_empty_reading_by_the_light_alone_never_takes_a_tile_off_but_clean_paper_does():
    # Paper told by the shape of its light alone (the reader's confidence 0.6) is how a hand of pale skin or a grey
    # sleeve over tiles reads (tuning seed 7: 19 of the 26 tiles under a hand read empty); no hand in view holds it.
    st = Stabiliser(stable_seconds=0.4)
    tiles = {E5: RED_EW, F5: RED_EW}
    settle(st, board(tiles))
    unsure = board({F5: RED_EW, E5: CellReading.empty(0.6)})
    accepted = settle(st, unsure, seconds=4.0, t0=1.0)
    assert all(view.cells[E5].state is not CellState.EMPTY for _, view in accepted)
    assert st.accepted.cells[E5].state is CellState.UNREADABLE                    # can't read E5, not gone
    # Where no tile was, such a reading is empty as before; clean paper over the tile takes it off.
    assert st.accepted.cells[Cell.parse("A1")].state is CellState.EMPTY
    gone = settle(st, board({F5: RED_EW}), seconds=2.0, t0=5.0)
    assert gone and gone[-1][1].cells[E5].state is CellState.EMPTY
    # A cell that was unreadable in the last view but held a tile in the view seen clearly is guarded too.
    st = Stabiliser(stable_seconds=0.4)
    settle(st, board(tiles))
    settle(st, board({F5: RED_EW}, unreadable=[E5]), seconds=3.0, t0=1.0)
    settle(st, unsure, seconds=3.0, t0=4.0)
    assert st.accepted.cells[E5].state is CellState.UNREADABLE

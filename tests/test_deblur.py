"""A shaken camera: a frame smeared past the point where any marker decodes is still found (its motion blur
estimated and deconvolved for the finder), its cells read right or unreadable for the motion, never wrong;
a sharp frame, or one whose last pose stands in, never pays for the search."""

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from thoughtwave.engine.cells import CELLS
from thoughtwave.synth import Scene, render
from thoughtwave.synth.camera import Optics, line_kernel
from thoughtwave.vision.artwork import ARUCO_DICTIONARY
from thoughtwave.vision.causes import Cause
from thoughtwave.vision.deblur import (
    DECONVOLVED_MIN_OUTLINE_PX,
    WIENER_NSR,
    Motion,
    MotionEstimator,
    SmearSeeds,
    _centred,
    _unit_spectrum,
    _wiener,
    _wiener_filter,
    by_guess,
    deblurred,
    deconvolved_detector,
    finer_blurs,
    kernel_spectra,
    line_psf,
    spectral_guess,
)
from thoughtwave.vision.finder import SMEAR_ENOUGH_MARKERS, SMEAR_PAUSE_FRAMES, BoardFinder
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.recognizer import Recognizer
from thoughtwave.vision.tiles import TileReader

#: (seed, blur length px, direction degrees) of synthetic frames whose blur leaves no marker pose.
SMEARED = [(1, 9.0, 37.0), (2, 9.0, 74.0), (6, 7.0, 42.0)]


def smeared(seed: int, length: float, angle: float, smooth: bool = False):
    scene = Scene.random(seed, level="medium", hand=False, resolution=(960, 720))
    return render(replace(scene, optics=Optics(motion_px=length, motion_angle_deg=angle, motion_smooth=smooth)))


class CountingEstimator(MotionEstimator):
    """The finder's motion estimator, counting how often the finder asks it."""

    def __init__(self) -> None:
        finder = BoardFinder()
        super().__init__(cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)),
                         {m.id for m in finder.layout.markers})
        self.calls = 0

    def ranked(self, grey, candidates, scale=1.0):
        self.calls += 1
        return super().ranked(grey, candidates, scale)


def misread(reading, truth) -> list[str]:
    """The cells ``reading`` reads as what the rendered ``truth`` says they are not (unreadable ones aside)."""
    expected = truth.board_state()
    return [str(c) for c in CELLS if reading.get(c).state is not CellState.UNREADABLE
            and reading.get(c).label() != expected.get(str(c), "empty")]


def angle_apart(a: float, b: float) -> float:
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def test_the_psf_is_a_line_of_the_asked_length_summing_to_one():
    for length, angle in ((7.0, 37.0), (5.5, 120.0), (9.0, 0.0)):
        psf = line_psf(length, angle)
        assert psf.shape[0] == psf.shape[1] and psf.shape[0] % 2 == 1
        assert abs(float(psf.sum()) - 1.0) < 1e-5
        # The light spread evenly along the segment: its spread along the line is the length over sqrt(12) (bilinear
        # sharing adds at most 1/4 px^2), centred, and the lengths between two whole numbers of px are other blurs.
        ys, xs = np.mgrid[:psf.shape[0], :psf.shape[1]] - (psf.shape[0] - 1) / 2
        a = math.radians(angle)
        along = xs * math.cos(a) + ys * math.sin(a)
        assert math.hypot((psf * xs).sum(), (psf * ys).sum()) < 1e-4
        assert length / math.sqrt(12) <= math.sqrt((psf * along ** 2).sum()) <= math.sqrt(length ** 2 / 12 + 0.25)
        assert not np.array_equal(line_psf(length + 0.25, angle), psf)


def test_deconvolving_the_known_blur_brings_a_marker_back():
    frame, _ = smeared(1, 9.0, 37.0)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    finder = BoardFinder()
    assert finder.fit_pose(finder.detect_markers(grey)) is None
    assert finder.fit_pose(finder.detect_markers(deblurred(grey, Motion(9.0, 37.0)))) is not None


# A real shake's blur is smooth (no whole number of pixels, as the reader's ``line_psf``); the older pictures' line is
# drawn in whole pixels, and the reader must find a board under that too.
@pytest.mark.parametrize(("seed", "length", "angle", "smooth"), [(1, 9.0, 37.0, False), (2, 9.0, 74.0, True),
                                                                  (3, 9.0, 120.0, True)])
def test_a_smeared_frame_is_found_and_read_right_or_unreadable_for_the_motion(seed, length, angle, smooth):
    frame, truth = smeared(seed, length, angle, smooth)
    plain = BoardFinder()
    assert plain.fit_pose(plain.detect_markers(frame)) is None, "the ordinary detection must fail here"
    recognizer = Recognizer()
    reading = recognizer.read(frame)
    assert reading.board_found
    found = BoardFinder().find(frame)          # a fresh finder: the recognizer's has a pose to reuse now
    assert found.motion is not None
    # The search ends at the first blur that decodes enough markers: up to 2 px shorter than the shake.
    assert abs(found.motion.length_px - length) <= 2.0 and angle_apart(found.motion.angle_deg, angle) <= 15
    # The pose is the one the same scene gives unblurred, within a tenth of a cell at every grid corner.
    still, _ = smeared(seed, 0.0, angle, smooth)
    sharp_pose = BoardFinder().find(still).pose
    corners = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]) * 10 * plain.layout.cell_mm
    corners += np.asarray(plain.layout.grid_origin_mm)
    shift = np.linalg.norm(found.pose.project(corners) - sharp_pose.project(corners), axis=1)
    assert shift.max() < 0.1 * plain.cell_px(sharp_pose)
    expected = truth.board_state()
    right, wrong, causes = 0, [], set()
    for cell in CELLS:
        got = reading.get(cell)
        if got.state is CellState.UNREADABLE:
            causes.add(reading.causes.get(cell))
        elif got.label() == expected.get(str(cell), "empty"):
            right += 1
        else:
            wrong.append(f"{cell}: read {got.label()}, is {expected.get(str(cell), 'empty')}")
    assert wrong == []
    assert right >= 60
    # Every cell it cannot read says why; a smeared frame is never blamed on focus.
    assert None not in causes and Cause.FOCUS not in causes


def test_smeared_cells_name_the_motion():
    frame, _ = smeared(1, 9.0, 37.0)
    reading = Recognizer().read(frame)
    assert Cause.MOTION in set(reading.causes.values())


def test_measured_motion_is_named_before_small_cells():
    frame, _ = smeared(1, 9.0, 37.0)
    finder = BoardFinder()
    grid = finder.warp(frame, finder.find(frame).pose)
    small = np.full(100, 20.0)                 # every cell under the size calibration wants
    told = set(TileReader().read(grid, small, moved=True).causes.values())
    guessed = set(TileReader().read(grid, small).causes.values())
    assert Cause.MOTION in told and Cause.SMALL not in told
    assert Cause.SMALL in guessed


def test_a_sharp_frame_takes_the_normal_path():
    frame, _ = render(Scene.random(1, level="medium", hand=False, resolution=(960, 720)))
    estimator = CountingEstimator()
    finder = BoardFinder(motion=estimator)
    found = finder.find(frame)
    assert found.found and found.motion is None
    assert estimator.calls == 0


def test_a_frame_whose_last_pose_stands_in_is_not_searched():
    sharp, _ = render(Scene.random(1, level="clean", hand=False, resolution=(960, 720)))
    estimator = CountingEstimator()
    finder = BoardFinder(motion=estimator)
    assert finder.find(sharp).found
    blank = np.full_like(sharp, 200)          # the markers all hidden (a cloth over the board)
    found = finder.find(blank)
    assert found.reused and estimator.calls == 0


def test_no_board_is_made_up_from_a_smeared_desk():
    rnd = np.random.default_rng(3)
    desk = cv2.GaussianBlur(rnd.uniform(0, 255, (720, 960)).astype(np.uint8), (0, 0), 3)
    desk = cv2.filter2D(desk, -1, line_kernel(8.0, 30.0))
    estimator = CountingEstimator()
    found = BoardFinder(motion=estimator).find(cv2.cvtColor(desk, cv2.COLOR_GRAY2BGR))
    assert not found.found and estimator.calls >= 1


def test_a_failed_search_is_not_repeated_on_the_next_frames():
    rnd = np.random.default_rng(4)
    desk = cv2.cvtColor(cv2.GaussianBlur(rnd.uniform(0, 255, (480, 640)).astype(np.uint8), (0, 0), 3),
                        cv2.COLOR_GRAY2BGR)
    estimator = CountingEstimator()
    finder = BoardFinder(motion=estimator)
    assert not finder.find(desk).found
    first = estimator.calls
    assert first >= 1
    for _ in range(SMEAR_PAUSE_FRAMES):
        assert not finder.find(desk).found
    assert estimator.calls == first
    finder.find(desk)
    assert estimator.calls > first


class CountingDetector:
    """An ArUco detector counting its calls, by the size of the picture it is given."""

    def __init__(self, detector: cv2.aruco.ArucoDetector) -> None:
        self.detector, self.calls = detector, []

    def detectMarkers(self, image):  # noqa: N802 - OpenCV's name
        self.calls.append(image.shape)
        return self.detector.detectMarkers(image)


def test_a_blur_found_from_the_detectors_candidates_costs_no_second_thorough_pass_and_no_dark_squares(monkeypatch):
    # The thorough pass already looked at the downscaled frame: its rejected candidates are the search's first seeds.
    # The dark squares, the second seeds, are looked for only when those fail.
    import thoughtwave.vision.deblur as deblur_module

    frame, _ = smeared(1, 9.0, 37.0)
    finder = BoardFinder()
    counting = CountingDetector(finder._thorough)
    finder._thorough = counting
    squares = []
    monkeypatch.setattr(deblur_module, "dark_squares", lambda small, scale: squares.append(1) or [])
    found = finder.find(frame)
    assert found.found and found.motion is not None
    small, _ = finder._small(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert counting.calls.count(small.shape) == 1 and not squares


def test_a_frame_the_detectors_candidates_do_not_bring_back_looks_for_dark_squares(monkeypatch):
    import thoughtwave.vision.deblur as deblur_module

    frame, _ = smeared(1, 9.0, 37.0)
    squares = []
    real = deblur_module.dark_squares
    monkeypatch.setattr(deblur_module, "dark_squares", lambda small, scale: squares.append(1) or real(small, scale))
    assert not BoardFinder(motion=FixedBlurs([])).find(frame).found
    assert squares == [1]          # once, though the seeds are asked for at two scales


class FixedBlurs(MotionEstimator):
    """An estimator that proposes the given blurs, best first, whatever the frame."""

    def __init__(self, motions: list[Motion]) -> None:
        self.motions = motions

    def ranked(self, grey, candidates, scale=1.0):
        return list(self.motions)


def test_when_the_best_blur_in_the_crops_gives_no_pose_the_next_one_is_tried():
    # A few crops can favour a blur that brings back only their own markers; the whole frame decides.
    frame, _ = smeared(1, 9.0, 37.0)
    wrong, right = Motion(9.0, 127.0), Motion(9.0, 37.0)
    assert not BoardFinder(motion=FixedBlurs([wrong])).find(frame).found
    found = BoardFinder(motion=FixedBlurs([wrong, right])).find(frame)
    assert found.found and found.motion == right


def test_a_pose_on_three_markers_does_not_end_the_search_when_a_later_blur_brings_back_more():
    # A pose fitted to two or three markers of a smeared frame can be a cell off on the far side (seed 800011 of the
    # flat 'hard' level: the first blur tried gave markers 5 and 7, a later one 0, 3, 4 and 5).
    frame, _ = smeared(2, 9.0, 74.0, smooth=True)
    few, more = Motion(7.0, 44.0), Motion(9.0, 74.0)
    assert len(BoardFinder(motion=FixedBlurs([few])).find(frame).pose.marker_ids) == 3
    found = BoardFinder(motion=FixedBlurs([few, more])).find(frame)
    assert found.motion == more and len(found.pose.marker_ids) >= SMEAR_ENOUGH_MARKERS


def test_a_noisy_smeared_frame_whose_full_size_crops_decode_nothing_is_found_on_the_detection_scale():
    # Deconvolution lifts the sensor noise: at full size no crop decodes under any blur (so before the
    # scaled pass this board was lost, as seed 67's frame 93 of the path-traced set was); scaled down as the
    # finder scales a frame for detection, the noise averages away and the markers decode.
    scene = Scene.random(4, level="medium", hand=False, resolution=(960, 720))
    scene = replace(scene, optics=Optics(motion_px=7.6, motion_angle_deg=179.9, motion_smooth=True),
                    sensor=replace(scene.sensor, shot=4.0, read=3.0))
    frame, truth = render(scene)
    finder = BoardFinder()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert finder.fit_pose(finder.detect_markers(grey)) is None
    small, scale = finder._small(grey)
    seeds = SmearSeeds(finder._thorough, small, scale)
    assert scale < 1.0 and all(finder.motion.ranked(grey, c) == [] for c in seeds)
    assert any(finder.motion.ranked(grey, c, scale=scale) for c in seeds)
    found = finder.find(frame)
    assert found.found and found.motion is not None
    still, _ = render(replace(scene, optics=Optics()))
    sharp = BoardFinder().find(still).pose
    centres = finder._cell_centres_mm
    shift = np.linalg.norm(found.pose.project(centres) - sharp.project(centres), axis=1)
    # Found at two thirds of the frame's size, a marker corner is placed to about a px and a half.
    assert shift.max() < 0.15 * finder.cell_px(sharp)
    reading = Recognizer().read(frame)
    assert misread(reading, truth) == []


def small_soft_smeared(seed: int, shrink: float, length: float, angle: float, noise: float = 5.0,
                       smooth: bool = False):
    """A board far from the camera (a sharp frame shrunk by ``shrink`` amid the table), soft and smeared: the
    marker modules 2-3 px, like path-traced seed 97's frame 145. ``noise``: the sensor's (grey levels); ``smooth``: a
    shake spread smoothly over the pixels (``line_psf``), not drawn in whole ones."""
    frame, truth = render(Scene.random(seed, level="clean", hand=False, resolution=(960, 720)))
    small = cv2.resize(frame, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    canvas = np.full_like(frame, np.median(frame.reshape(-1, 3), axis=0).astype(np.uint8))
    h, w = small.shape[:2]
    canvas[(720 - h) // 2:(720 - h) // 2 + h, (960 - w) // 2:(960 - w) // 2 + w] = small
    linear = cv2.GaussianBlur(np.power(canvas.astype(np.float32) / 255.0, 2.2), (0, 0), 1.2)
    linear = cv2.filter2D(linear, -1, (line_psf if smooth else line_kernel)(length, angle))
    noisy = np.power(linear, 1 / 2.2) * 255.0 + np.random.default_rng(seed).normal(0.0, noise, linear.shape)
    return np.clip(noisy + 0.5, 0, 255).astype(np.uint8), truth


def test_a_small_soft_smeared_board_is_found_by_deconvolving_the_whole_frame_harder(monkeypatch):
    # The crops, scaled, point to the blur, yet the whole frame deconvolved with it as gently as the crops brings
    # back one marker: the modules are 2-3 px, and the noise the scaling averages away is less than the blur the
    # gentle inverse leaves. Deconvolved harder (``SMALL_NSR``), the scaled copy decodes enough for a pose.
    frame, truth = small_soft_smeared(2, 0.42, 5.5, 67.0)
    gentle = BoardFinder()
    monkeypatch.setattr("thoughtwave.vision.finder.SMALL_NSR", WIENER_NSR)
    assert gentle.find(frame).pose is None
    monkeypatch.undo()
    found = BoardFinder().find(frame)
    assert found.found and found.motion is not None
    assert abs(found.motion.length_px - 5.5) <= 1.5 and angle_apart(found.motion.angle_deg, 67.0) <= 15
    reading = Recognizer().read(frame)
    assert reading.board_found
    assert misread(reading, truth) == []


def test_a_small_smeared_board_whose_full_size_crops_find_the_blur_is_found_by_deconvolving_harder():
    # Path-traced seed 211's frame 53: a board a third of the frame wide, soft and smeared 7.5 px. The crops at full
    # size point to the blur, yet the frame deconvolved with it as gently as the crops brings back one marker; scaled,
    # the crops point to a blur further off, under which none decodes. Deconvolved harder (``SMALL_NSR``) in the first
    # round too, the frame gives the pose, and every cell read is read right.
    frame, truth = small_soft_smeared(3, 0.4, 7.5, 174.0, noise=2.0, smooth=True)
    found = BoardFinder().find(frame)
    assert found.found and found.motion is not None
    reading = Recognizer().read(frame)
    assert reading.board_found
    assert misread(reading, truth) == []


@pytest.mark.parametrize(("seed", "length", "angle"), [*SMEARED, (3, 6.0, 120.0), (5, 5.0, 160.0)])
def test_the_crops_spectrum_guesses_the_blurs_direction_and_length(seed, length, angle):
    frame, _ = smeared(seed, length, angle)
    finder = BoardFinder()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    small, scale = finder._small(grey)
    crops, _ = finder.motion.crops(grey, SmearSeeds(finder._thorough, small, scale)[0])
    guess = spectral_guess(crops)
    # On 144 path-traced smeared frames: within 10 degrees in 86% and 20 in 99%; the length within 1.5 px in 58%.
    assert angle_apart(guess.angle_deg, angle) <= 20.0 and abs(guess.length_px - length) <= 2.0


def search_of_a_smeared_frame():
    """A finder, a grey frame smeared 9 px at 37 degrees, and the detector's rejected candidates in it (the seeds the
    smear search crops first): what the tests of ``MotionEstimator.ranked`` ask."""
    frame, _ = smeared(1, 9.0, 37.0)
    finder = BoardFinder()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    small, scale = finder._small(grey)
    return finder, grey, SmearSeeds(finder._thorough, small, scale)[0]


def test_the_search_asks_about_the_blurs_near_the_guess_first_and_no_further_once_one_decoded():
    finder, grey, candidates = search_of_a_smeared_frame()
    asked = []

    class Asked(MotionEstimator):
        def score(self, spectra, size, motion, scale=1.0):
            asked.append(motion)
            return super().score(spectra, size, motion, scale)

    best = Asked(finder.motion.detector, finder.motion.marker_ids).ranked(grey, candidates)[0]
    assert angle_apart(best.angle_deg, 37.0) <= 10.0 and abs(best.length_px - 9.0) <= 1.5
    assert angle_apart(asked[0].angle_deg, 37.0) <= 15.0          # the guess's direction first
    # The guess's coarse direction and those either side (five lengths each), then the finer set: not all 60.
    # (The finer set: five lengths in three directions near the best, none asked about before.)
    coarse = 3 * 5
    assert coarse < len(asked) <= coarse + 14
    # Each blur asked about once: line_psf draws every length and direction differently.
    assert len(set(asked)) == len(asked)
    assert len({line_psf(m.length_px, m.angle_deg).tobytes() for m in asked}) == len(asked)


@pytest.mark.parametrize("short", [0, 1])
def test_a_blur_under_which_every_crop_decodes_ends_the_search_without_the_finer_set(short):
    finder, grey, candidates = search_of_a_smeared_frame()
    crops, size = finder.motion.crops(grey, candidates)
    assert 4 <= len(crops) < len(finder.marker_mm)
    asked = []

    class FirstDecodes(MotionEstimator):      # the first blur asked about decodes every crop, or all but one
        def score(self, spectra, size, motion, scale=1.0):
            asked.append(motion)
            return len(crops) - short if len(asked) == 1 else 0

    FirstDecodes(finder.motion.detector, finder.motion.marker_ids).ranked(grey, candidates)
    assert asked[1:] == ([] if short == 0 else finer_blurs(asked[0], {asked[0]}))


def test_where_no_blur_near_the_guess_decodes_a_marker_the_search_asks_no_further():
    # Crops that are no smeared markers (or a blur no deconvolution undoes) decode nothing under any blur: the search
    # stops after the guess's direction and those either side, not after all 60 coarse blurs (seed 149's boards lost
    # to an 8.5 px shake spent about 0.6 s there, the further directions decoding nothing on any set).
    finder, grey, candidates = search_of_a_smeared_frame()
    asked = []

    class NoneDecodes(MotionEstimator):
        def score(self, spectra, size, motion, scale=1.0):
            asked.append(motion)
            return 0

    assert NoneDecodes(finder.motion.detector, finder.motion.marker_ids).ranked(grey, candidates) == []
    assert len(asked) == 3 * 5 == len(set(asked))           # five lengths in three directions
    assert len({m.angle_deg for m in asked}) == 3



def test_the_finer_set_asks_about_lengths_near_the_best_in_three_directions_once():
    # The reader's line is smooth: every length is a different blur, so the finer set steps through them (a line of
    # whole pixels drew one line for all of 5-7 px along a row; the set had to look for the lengths drawing others).
    near = finer_blurs(Motion(7.0, 105.0))
    lines = [line_psf(m.length_px, m.angle_deg).tobytes() for m in near]
    assert len(set(lines)) == len(lines) == len(near) == 15         # fifteen blurs, each drawn differently
    assert near[0] == Motion(7.0, 105.0) and Motion(7.375, 105.0) in near
    for m in near:
        assert 6.25 <= m.length_px <= 7.75 and angle_apart(m.angle_deg, 105.0) <= 7.5
    centre = Motion(7.0, 105.0)
    assert centre not in finer_blurs(centre, {centre})    # tried: not again


def test_the_guess_ranks_by_direction_then_length():
    near = by_guess([Motion(4.0, 0.0), Motion(10.0, 45.0), Motion(7.0, 45.0), Motion(4.0, 135.0)], Motion(6.5, 40.0))
    assert [(turn, m.length_px, m.angle_deg) for turn, m in near] == [(0, 7.0, 45.0), (0, 10.0, 45.0),
                                                                      (3, 4.0, 0.0), (6, 4.0, 135.0)]


def test_the_wiener_filter_reuses_the_unit_spectrum_and_is_the_same_numbers():
    for shape in ((96, 80), (64, 64)):
        psf = line_psf(6.5, 37.0)
        k = cv2.dft(_centred(psf, shape))
        one = np.zeros(shape, np.float32)
        one[0, 0] = 1.0
        expected = cv2.mulSpectrums(cv2.dft(one) / (cv2.mulSpectrums(k, k, 0, conjB=True) + WIENER_NSR), k, 0,
                                    conjB=True)
        assert np.array_equal(_wiener_filter(psf, shape), expected)
        assert _unit_spectrum(shape) is _unit_spectrum(shape) and not _unit_spectrum(shape).flags.writeable


def test_the_kernels_spectra_and_the_crops_inverse_are_numpys_own_numbers():
    # Only the rows a kernel reaches are transformed along the rows, and only the rows asked for back to real.
    shape = (88, 88)
    psfs = [line_psf(length, angle) for length, angle in ((2.0, 0.0), (6.0, 37.5), (10.5, 165.0))]
    want = np.fft.rfft2(np.stack([_centred(psf, shape) for psf in psfs]))
    got = kernel_spectra(psfs, shape)
    assert got.dtype == want.dtype and np.array_equal(got.view(np.uint32), want.view(np.uint32))   # signed zeros too
    spectra = np.fft.rfft2(np.random.default_rng(5).random((3, *shape), dtype=np.float32))
    k = kernel_spectra(psfs[1:2], shape)[0]
    whole = np.fft.irfft2(spectra * (np.conj(k) / (np.abs(k) ** 2 + WIENER_NSR)), s=shape, axes=(-2, -1))
    assert np.array_equal(_wiener(spectra, shape, psfs[1]), whole)
    assert np.array_equal(_wiener(spectra, shape, psfs[1], slice(16, 72)), whole[:, 16:72])


def test_a_deconvolved_picture_is_searched_for_no_square_too_small_to_carry_a_markers_bits():
    # Under 24 px round a marker's six modules are under a pixel each: OpenCV's own floor (2% of the longer side) is
    # raised to that, never lowered, with OpenCV's rounding.
    finder = BoardFinder()
    base = finder._quick.getDetectorParameters().minMarkerPerimeterRate
    for side in (200, 640, 1100, 2000):
        floored = deconvolved_detector(finder._quick, (side // 2, side)).getDetectorParameters()
        assert int(floored.minMarkerPerimeterRate * side) == max(int(base * side), DECONVOLVED_MIN_OUTLINE_PX)
    stand_in = CountingDetector(finder._quick)       # a test's stand-in is used as it is
    assert deconvolved_detector(stand_in, (100, 100)) is stand_in

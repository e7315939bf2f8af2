"""A frame smeared by a shaken camera whose markers still decode: the blur is measured on the markers themselves
(their printed picture, put in the frame by the pose, smeared to match what the camera saw), and the cells the smear
left unreadable are read again from the deconvolved board, right and never wrong. A sharp frame measures no blur."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from test_repose import tally

from thoughtwave.synth import Scene, render
from thoughtwave.synth.camera import Optics
from thoughtwave.vision.deblur import Motion, kernel_spectra, line_psf
from thoughtwave.vision.finder import SMEAR_PAUSE_FRAMES, BoardFinder
from thoughtwave.vision.markerblur import COARSE_LINES, MODULE_PX, _kept_spectra, _Marker, _spectra, marker_blur
from thoughtwave.vision.recognizer import Recognizer


def shaken(seed: int, length: float, angle: float):
    scene = Scene.random(seed, level="medium", hand=False, resolution=(960, 720))
    return render(replace(scene, optics=Optics(motion_px=length, motion_angle_deg=angle)))


def measured(frame):
    finder = BoardFinder()
    found = finder.find(frame)
    assert found.pose is not None and found.motion is None       # the finder needed no deblurring
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return marker_blur(grey, found.pose.homography, finder.marker_mm, found.pose.marker_ids)


@pytest.mark.parametrize(("seed", "length", "angle"), [(3864, 6.82, 58.5), (49892, 8.03, 83.9), (12, 6.0, 120.0)])
def test_the_blur_measured_on_decoded_markers_is_near_the_true_one(seed, length, angle):
    motion = measured(shaken(seed, length, angle)[0])
    assert motion is not None
    assert abs(motion.length_px - length) <= 1.5
    assert min(abs(motion.angle_deg - angle), 180 - abs(motion.angle_deg - angle)) <= 12


@pytest.mark.parametrize("seed", [3864, 12])
def test_a_sharp_frame_measures_no_blur(seed):
    assert measured(shaken(seed, 0.0, 0.0)[0]) is None


def test_the_cells_a_smear_left_unreadable_are_read_from_the_deconvolved_board(monkeypatch):
    frame, truth = shaken(3864, 6.82, 58.5)
    right, wrong = tally(Recognizer().read(frame), truth)
    assert wrong == [] and right >= 98
    monkeypatch.setattr("thoughtwave.vision.recognizer.marker_blur", lambda *args: None)
    before, wrong_before = tally(Recognizer().read(frame), truth)
    # Without it, the smeared picture leaves at least four cells unreadable (the second opinion reads a few of those it
    # left: 85 -> 90 once faded corner dots no longer deny it red, 95 once dots the blur darkens against their rings
    # no longer do).
    assert wrong_before == [] and before <= right - 4


def test_a_wave_left_faint_by_a_deconvolution_with_an_estimated_blur_is_never_read_blank():
    # The finder's blur for this frame (7 px at 135 degrees, the truth 7.8 at 133.8) left B6's east wave at a quarter
    # of the way to cream in the deconvolved board, and its re-read said "black n" for a black ne: the deconvolved
    # board keeps some blur and is read as blurred.
    frame, truth = shaken(79723, 7.8, 133.8)
    _, wrong = tally(Recognizer().read(frame), truth)
    assert wrong == []


@pytest.mark.parametrize(("seed", "length", "angle"), [(32064, 5.77, 54.6), (28480, 5.52, 46.4)])
def test_tiles_glare_washed_out_whole_on_an_over_exposed_shaken_frame_are_never_read_empty(seed, length, angle):
    # The paper clipped nearly everywhere (an over-exposed picture) and a wide glare spot over the middle of the board:
    # five tiles were read empty, sure. The unclipped part of a washed tile's middle stays a little below the paper;
    # and the deconvolved re-read is not asked about such a cell (it read D7, a red nesw, empty).
    frame, truth = shaken(seed, length, angle)
    _, wrong = tally(Recognizer().read(frame), truth)
    assert wrong == []


def test_a_soft_camera_that_measures_no_blur_is_not_measured_again_for_a_few_frames(monkeypatch):
    # A slightly soft picture with cells left unreadable, where the markers show no shake: each measurement costs
    # 0.1-0.2 s here, several times that on a Pi, and a camera out of focus would pay it on every frame.
    frame, _ = shaken(3864, 6.82, 58.5)
    calls = []
    monkeypatch.setattr("thoughtwave.vision.recognizer.marker_blur", lambda *args: calls.append(1))
    recognizer = Recognizer()
    recognizer.read(frame)
    assert len(calls) == 1
    for _ in range(SMEAR_PAUSE_FRAMES):
        recognizer.read(frame)
    assert len(calls) == 1
    recognizer.read(frame)
    assert len(calls) == 2


def test_the_misfit_is_the_same_numbers_as_from_the_whole_inverse_transform():
    # Only the rows the compared pixels lie in are transformed back along the rows.
    frame, _ = shaken(12, 6.0, 120.0)
    finder = BoardFinder()
    found = finder.find(frame)
    corners = finder.marker_mm[found.pose.marker_ids[0]]
    ex, ey = (corners[1] - corners[0]) / 6, (corners[3] - corners[0]) / 6
    origin = corners[0] - ex - ey
    to_mm = np.array([[ex[0] / MODULE_PX, ey[0] / MODULE_PX, origin[0]],
                      [ex[1] / MODULE_PX, ey[1] / MODULE_PX, origin[1]], [0, 0, 1]])
    marker = _Marker(frame, found.pose.homography @ to_mm, found.pose.marker_ids[0])
    assert marker.ok
    spectra = kernel_spectra([line_psf(length, angle) for length in (2.0, 6.0, 9.75) for angle in (0.0, 60.0, 165.0)],
                             (marker.n, marker.n))
    blurred = np.fft.irfft2(marker.spectrum[None] * spectra, s=(marker.n, marker.n))[:, marker.mask]
    x = blurred - blurred.mean(axis=1, keepdims=True)
    o = marker.seen - marker.seen.mean()
    want = 1.0 - (x @ o / o.size) ** 2 / (np.maximum((x * x).mean(axis=1), 1e-12) * float(np.mean(o * o)))
    assert np.array_equal(marker.misfit(spectra), want)


def test_the_coarse_lines_kept_between_frames_are_the_same_spectra_as_drawn_afresh():
    # Kept in part by one call and in part by the next (each line's spectrum its own, whatever it is made with), at
    # two sizes at once.
    first, then = list(COARSE_LINES[10:30]), list(COARSE_LINES[20:50:3]) + [COARSE_LINES[0]]
    for lines in (first, then, first):
        kept = _kept_spectra(lines, {88, 104})
        afresh = _spectra([line_psf(m.length_px, m.angle_deg) for m in lines], {88, 104})
        for n in (88, 104):
            assert np.array_equal(kept[n].view(np.uint32), afresh[n].view(np.uint32))


@pytest.mark.parametrize(("seed", "length", "angle"), [(12, 6.0, 120.0), (12, 7.0, 40.0)])
def test_refined_with_the_lens_in_the_model_the_blur_of_a_soft_camera_comes_out_nearer_the_shake(seed, length, angle):
    # A lens as soft as a Gaussian of 1 px, and a smooth shake: a line alone takes the lens's share too.
    scene = Scene.random(seed, level="medium", hand=False, resolution=(960, 720))
    frame, _ = render(replace(scene, optics=Optics(defocus=1.0, motion_px=length, motion_angle_deg=angle,
                                                   motion_smooth=True)))
    finder = BoardFinder()
    found = finder.find(frame)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    plain = marker_blur(grey, found.pose.homography, finder.marker_mm, found.pose.marker_ids)
    refined = marker_blur(grey, found.pose.homography, finder.marker_mm, found.pose.marker_ids, refine=True)
    assert plain is not None and refined is not None
    apart = lambda m: min(abs(m.angle_deg - angle), 180 - abs(m.angle_deg - angle))  # noqa: E731
    assert abs(refined.length_px - length) <= 0.25 and apart(refined) <= 2.0
    assert abs(refined.length_px - length) < abs(plain.length_px - length)


def test_a_frame_whose_markers_needed_deconvolving_is_read_again_with_the_measured_blur_then_the_finders(monkeypatch):
    scene = Scene.random(1, level="medium", hand=False, resolution=(960, 720))
    frame, _ = render(replace(scene, optics=Optics(motion_px=9.0, motion_angle_deg=37.0)))
    measured_blur = Motion(8.5, 36.0)
    monkeypatch.setattr("thoughtwave.vision.recognizer.marker_blur", lambda *args: measured_blur)
    used = []
    real = Recognizer._read_deblurred

    def read_deblurred(self, frame, found, *args, **kwargs):
        used.append(found.motion)
        return real(self, frame, found, *args, **kwargs)

    monkeypatch.setattr(Recognizer, "_read_deblurred", read_deblurred)
    recognizer = Recognizer()
    assert recognizer.read(frame).board_found
    finders = recognizer._seen.found.motion
    assert finders is not None and finders != measured_blur
    assert used == [measured_blur, finders]

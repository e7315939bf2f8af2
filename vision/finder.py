"""The board finder: ArUco markers in a camera frame -> the board's pose -> a top-down grid image.

The printed board carries eight ArUco markers (ids 0-7, outside the grid). Every detected marker corner is matched
to its printed position in millimetres and a homography (board mm -> image px) is fitted with RANSAC. Any two
markers suffice unless they sit along one side of the board (or one centre line): those fix the board along that
line but not its tilt across it (a cell or more off on the far side), so, like one marker alone, they can only
confirm the last good pose. When too few markers are seen (a hand over them) the last good pose is reused, as long
as the markers still seen agree with it, and ``FinderResult.reused`` says so. A pose that differs from the last
one by more than a quarter of a cell at any grid corner sets ``moved``. When the markers give no pose and no
earlier one can stand in, the frame may be smeared by a shaken camera: the finder then estimates the motion blur,
looks for the markers in a deconvolved copy (``vision.deblur``) and says so in ``FinderResult.motion``; a sharp
frame never pays for that. An underexposed frame (a bright lamp in view) is searched again brightened.

>>> finder = BoardFinder()                                   # doctest: +SKIP
>>> found = finder.find(frame)                               # doctest: +SKIP
>>> grid = finder.warp(frame, found.pose)                    # doctest: +SKIP
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from thoughtwave.engine.cells import CELLS
from thoughtwave.vision.artwork import ARUCO_DICTIONARY, BoardLayout
from thoughtwave.vision.deblur import SMALL_NSR, Motion, MotionEstimator, SmearSeeds, deblurred, deconvolved_detector
from thoughtwave.vision.posedoubt import cell_shifts, noise_bound

#: Canonical grid image: pixels per cell and the margin kept around the grid (in cells), so that a
#: tile pushed 20% off a rim cell is still wholly inside the image.
PX_PER_CELL = 32
MARGIN_CELLS = 0.25
#: Marker detection runs on a copy scaled so that its longer side is at most this many pixels;
#: corners are then refined at full resolution. A marker is 1.2 cells, so on a board that fills a
#: third of the frame it is still ~20 px (3 px a module) there: enough for the detector.
DETECT_LONG_SIDE = 640
#: A pose that moves any grid corner by more than this share of a cell counts as a moved board.
MOVED_CELLS = 0.25
#: A fresh pose within this share of a cell of the last one is taken as the same pose.
STEADY_CELLS = 0.04
#: RANSAC inlier threshold: this many pixels of the full-resolution frame, or this share of a marker's
#: side if more.
RANSAC_PX = 4.0
RANSAC_SIDE = 0.12


@dataclass(frozen=True)
class GridGeometry:
    """How the canonical grid image is laid out: ``px_per_cell`` and ``margin_px`` on every side."""

    px_per_cell: int = PX_PER_CELL
    margin_px: int = round(PX_PER_CELL * MARGIN_CELLS)

    @property
    def size(self) -> int:
        """Width (= height) of the grid image in pixels."""
        return 10 * self.px_per_cell + 2 * self.margin_px

    def cell_origin(self, row: int, col: int) -> tuple[int, int]:
        """Top-left pixel (x, y) of a cell in the grid image."""
        return self.margin_px + col * self.px_per_cell, self.margin_px + row * self.px_per_cell


@dataclass(frozen=True)
class BoardPose:
    """Where the board is: ``homography`` maps board mm to (undistorted) image px."""

    homography: np.ndarray
    marker_ids: tuple[int, ...]
    reprojection_px: float
    #: The corners the fit used (undistorted frame px, (4, 2) each, in ``marker_ids`` order): what
    #: ``BoardFinder.cell_doubt`` propagates the corner noise from.
    corners_px: tuple[np.ndarray, ...] = field(default=(), compare=False, repr=False)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Board mm points (N, 2) -> image px (N, 2), lens distortion not applied."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)


@dataclass
class FinderResult:
    """One frame's answer: the ``pose`` (None: no board), whether it was ``reused`` from an
    earlier frame, whether the board ``moved`` since the last good pose, and the marker ids seen."""

    pose: BoardPose | None
    reused: bool = False
    moved: bool = False
    markers_seen: tuple[int, ...] = ()
    marker_corners: dict[int, np.ndarray] = field(default_factory=dict)
    #: The camera's motion blur, when the markers could only be read with it deconvolved (else None).
    motion: Motion | None = None

    @property
    def found(self) -> bool:
        return self.pose is not None


def _detector_parameters(window_sizes: tuple[int, int, int]) -> cv2.aruco.DetectorParameters:
    params = cv2.aruco.DetectorParameters()
    # Each adaptive-threshold window size is one pass over the image, and detection is the finder's
    # main cost: one pass first, more only when that finds too few markers.
    params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax, params.adaptiveThreshWinSizeStep = window_sizes
    params.minMarkerPerimeterRate = 0.02
    params.maxMarkerPerimeterRate = 4.0  # relative to the image side: a crop around one marker needs > 1
    params.polygonalApproxAccuracyRate = 0.05
    # Motion blur smears a module into its neighbours: read bits from the middle of each module and
    # correct as many bit errors as the dictionary allows. A wrong id would still have to fit the
    # pose of the others (RANSAC), and only ids 0-7 count.
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    params.errorCorrectionRate = 1.0
    # Corners are refined at full resolution below, so none here.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    return params


#: The smear search takes the first blur that gives a pose on this many markers; under it, it tries the rest and keeps
#: the pose on the most.
SMEAR_ENOUGH_MARKERS = 4
#: (min, max, step) adaptive-threshold windows of the quick pass and of the thorough retry, which runs when the
#: quick pass finds fewer markers than ``RETRY_BELOW``.
QUICK_WINDOWS, THOROUGH_WINDOWS, RETRY_BELOW = (13, 13, 10), (5, 25, 10), 4
#: A frame under this median grey with fewer than ``RETRY_BELOW`` markers found is underexposed (a bright lamp in view,
#: a dim room: markers fainter than the detector's fixed thresholds): it is searched again brightened ``DARK_GAIN``
#: times. (Not only when under two: a pose on the two or three the detector still sees doubts the far cells.)
DARK_MEDIAN, DARK_GAIN = 48, 6.0
#: A search for motion blur that found no board (0.1-1.5 s on a cluttered frame) is not tried again for this
#: many frames: a table with no board on it must not slow every frame down.
SMEAR_PAUSE_FRAMES = 4


def _grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


class BoardFinder:
    """Finds the board in frames, keeping the last good pose between calls.

    ``lens`` is an optional ``(camera_matrix, dist_coeffs)`` pair from a calibration profile; with
    it, marker corners are undistorted before the fit and the warp follows the lens. ``motion`` estimates
    the blur of a shaken camera's frame (see ``vision.deblur``; by default from this finder's detector).
    """

    def __init__(self, layout: BoardLayout | None = None, geometry: GridGeometry | None = None,
                 lens: tuple[np.ndarray, np.ndarray] | None = None, motion: MotionEstimator | None = None) -> None:
        self.layout = layout or BoardLayout()
        self.geometry = geometry or GridGeometry()
        self.lens = None if lens is None else (np.asarray(lens[0], np.float64), np.asarray(lens[1], np.float64))
        dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
        self._quick = cv2.aruco.ArucoDetector(dictionary, _detector_parameters(QUICK_WINDOWS))
        self._thorough = cv2.aruco.ArucoDetector(dictionary, _detector_parameters(THOROUGH_WINDOWS))
        self.marker_mm = {m.id: np.asarray(m.corners_mm(), np.float64) for m in self.layout.markers}  # id: corners mm
        self._cell_centres_mm = np.array([self.layout.cell_center_mm(c) for c in CELLS], np.float64)
        self.motion = motion or MotionEstimator(self._quick, set(self.marker_mm))
        self._smear_pause = 0    # frames left before a failed motion-blur search may run again
        # The thorough pass's rejected candidates on the grey frame it last looked at whole (the smear search's first
        # seeds: the same call on the same picture).
        self._rejected: tuple[np.ndarray, Any] | None = None
        self.last_pose: BoardPose | None = None
        self._remap_cache: tuple[BoardPose, tuple[np.ndarray, np.ndarray]] | None = None
        # The loose fit ``_markers`` last made to look for missing markers: of which markers (and how many), its pose.
        self._loose: tuple[dict[int, np.ndarray], int, BoardPose | None] | None = None

    # -- markers ---------------------------------------------------------------------------------

    @staticmethod
    def _small(grey: np.ndarray) -> tuple[np.ndarray, float]:
        """The frame scaled down for detection, and the scale."""
        scale = min(1.0, DETECT_LONG_SIDE / max(grey.shape[:2]))
        small = grey if scale == 1.0 else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        return small, scale

    def detect_markers(self, image: np.ndarray, deconvolved: bool = False) -> dict[int, np.ndarray]:
        """Board markers seen in a BGR or grey frame: id -> (4, 2) corners TL, TR, BR, BL in image px. ``deconvolved``:
        the frame is a deconvolved copy (``vision.deblur``), whose specks too small to carry a marker's bits are not
        looked at (``DECONVOLVED_MIN_OUTLINE_PX``)."""
        grey = _grey(image)
        small, scale = self._small(grey)
        quick, thorough = self._quick, self._thorough
        if deconvolved:
            quick, thorough = deconvolved_detector(quick, small.shape), deconvolved_detector(thorough, small.shape)
        found = self._detect(quick, small, scale)
        if len(found) < RETRY_BELOW:
            corners, ids, rejected = thorough.detectMarkers(small)
            self._rejected = (grey, rejected)
            found = {**found, **self._board_markers(corners, ids, scale)}
        if len(found) < RETRY_BELOW and float(np.median(small)) < DARK_MEDIAN:   # underexposed: see DARK_MEDIAN
            found = {**found, **self._detect(thorough, cv2.convertScaleAbs(small, alpha=DARK_GAIN), scale)}
        if found and scale < 1.0:
            self._refine(grey, found, scale)
        return found

    @property
    def undecoded(self) -> int:
        """How many marker-like squares the last whole frame's thorough look found but could not decode (0 where the
        quick look found enough markers): a board smeared or out of focus past decoding leaves many (18-19 on the
        path-traced frames whose board is lost to a smear), a blank or smooth picture none."""
        return 0 if self._rejected is None else len(self._rejected[1])

    def _search_missing(self, grey: np.ndarray, markers: dict[int, np.ndarray], pose: BoardPose,
                        deconvolved: bool = False) -> None:
        """Look again, at full resolution, where ``pose`` says each missing marker is (a far, small
        marker under a steep tilt is lost on the downscaled copy). Found ones are added to ``markers``. ``deconvolved``:
        as for ``detect_markers``."""
        h, w = grey.shape
        for marker_id, corners_mm in self.marker_mm.items():
            if marker_id in markers:
                continue
            expected = self.to_frame(pose, corners_mm)
            side = float(np.max(np.linalg.norm(np.roll(expected, -1, axis=0) - expected, axis=1)))
            pad = 0.6 * side + 8
            (x0, y0), (x1, y1) = expected.min(axis=0) - pad, expected.max(axis=0) + pad
            x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(np.ceil(x1))), min(h, int(np.ceil(y1)))
            if x1 - x0 < 16 or y1 - y0 < 16 or side < 8 or (x1 - x0) * (y1 - y0) > 0.1 * h * w:
                continue  # off the frame, too small to decode, or so large that the first pass saw it
            crop = grey[y0:y1, x0:x1]
            quick = deconvolved_detector(self._quick, crop.shape) if deconvolved else self._quick
            again = self._detect(quick, crop, 1.0, (x0, y0)).get(marker_id)
            if again is not None and np.max(np.linalg.norm(again - expected, axis=1)) < 0.3 * side:
                markers[marker_id] = again

    def _detect(self, detector: cv2.aruco.ArucoDetector, small: np.ndarray, scale: float,
                offset: tuple[int, int] = (0, 0)) -> dict[int, np.ndarray]:
        corners, ids, _ = detector.detectMarkers(small)
        return self._board_markers(corners, ids, scale, offset)

    def _board_markers(self, corners, ids: np.ndarray | None, scale: float,
                       offset: tuple[int, int] = (0, 0)) -> dict[int, np.ndarray]:
        """The board's markers among a detector's ``corners`` and ``ids`` (of a copy scaled by ``scale``, at
        ``offset`` in the frame): id -> (4, 2) corners in frame px."""
        if ids is None:
            return {}
        found: dict[int, np.ndarray] = {}
        duplicated: set[int] = set()
        for quad, marker_id in zip(corners, ids.ravel(), strict=True):
            marker_id = int(marker_id)
            if marker_id not in self.marker_mm:
                continue  # another dictionary member lying about: not part of this board
            if marker_id in found:
                duplicated.add(marker_id)
            # Pixel centres: (x + 0.5) / scale - 0.5 maps a downscaled position back to full size.
            found[marker_id] = (quad.reshape(4, 2).astype(np.float64) + 0.5) / scale - 0.5 + offset
        for marker_id in duplicated:  # two markers with one id: neither can be trusted
            del found[marker_id]
        return found

    @staticmethod
    def _refine(grey: np.ndarray, found: dict[int, np.ndarray], scale: float) -> None:
        ids = list(found)
        pts = np.concatenate([found[i] for i in ids]).astype(np.float32).reshape(-1, 1, 2)
        side = min(float(np.linalg.norm(found[i][0] - found[i][1])) for i in ids)
        # The window must stay inside one marker bit (a 4x4 marker with border is 6 bits wide).
        half = int(max(2, min(1.5 / scale + 1, side / 12)))
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 20, 0.05)
        refined = cv2.cornerSubPix(grey, pts.copy(), (half, half), (-1, -1), criteria).reshape(-1, 4, 2)
        for marker_id, quad, before in zip(ids, refined, (found[i] for i in ids), strict=True):
            # A refinement that wandered off (blur, glare) is dropped in favour of the coarse corner.
            if np.max(np.linalg.norm(quad - before, axis=1)) <= 1.5 / scale + 1:
                found[marker_id] = quad.astype(np.float64)

    # -- pose ------------------------------------------------------------------------------------

    def _undistort(self, pts: np.ndarray) -> np.ndarray:
        if self.lens is None:
            return pts
        k, dist = self.lens
        return cv2.undistortPoints(pts.reshape(-1, 1, 2), k, dist, P=k).reshape(-1, 2)

    def fit_pose(self, markers: dict[int, np.ndarray], strict: bool = True) -> BoardPose | None:
        """A pose from two or more markers, or None when they do not agree on one. ``strict`` also
        refuses markers that all sit along one side (or one centre line) of the board: they fix the
        board along that line but not its tilt across it (a cell or more off on the far side)."""
        if len(markers) < 2:
            return None
        ids = sorted(markers)
        image = {i: self._undistort(markers[i]) for i in ids}
        # Blur drags corners and an uncorrected lens bends the rim: the tolerance grows with the markers.
        side = float(np.median([np.linalg.norm(markers[i][0] - markers[i][1]) for i in ids]))
        tolerance = max(RANSAC_PX, RANSAC_SIDE * side)
        # RANSAC over whole markers: every pair proposes a pose from its eight corners, the pose most
        # markers agree with wins. (Four-corner samples of blurred markers can crown a wrong pose that
        # two markers happen to share.)
        src = np.concatenate([self.marker_mm[i] for i in ids])
        dst = np.concatenate([image[i] for i in ids])

        def agreeing(h: np.ndarray | None) -> list[int]:
            if h is None:
                return []
            projected = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 4, 2)
            rms = np.sqrt(np.mean(np.sum((projected - dst.reshape(-1, 4, 2)) ** 2, axis=2), axis=1))
            return [i for i, e in zip(ids, rms, strict=True) if e < tolerance]

        whole = self._homography(ids, image)
        best = agreeing(whole)      # usually every marker agrees at once
        if len(best) < len(ids):
            for pair in itertools.combinations(ids, 2):
                agree = agreeing(self._homography(list(pair), image))
                if len(agree) > len(best):
                    best = agree
        # At least two markers, and most of those seen: a pose only two of seven agree with is a guess.
        if len(best) < 2 or 2 * len(best) < len(ids) or (strict and not self._spread(best)):
            return None
        # (Every marker agreeing: the fit to them all is the one made first, the same call.)
        h = whole if best == ids else self._homography(best, image)
        if h is None:
            return None
        error = float(np.sqrt(np.mean([self._marker_error(h, i, image[i]) ** 2 for i in best])))
        pose = BoardPose(h, tuple(best), error, tuple(image[i] for i in best))
        return pose if error < tolerance and self._plausible(pose) else None

    def cell_doubt(self, pose: BoardPose) -> np.ndarray:
        """(100,) how far each cell's centre may be from where ``pose`` puts it, in cells (by ``Cell.index``): the
        corner noise of its fit, bounded from its residual, carried to the cells (``vision.posedoubt``)."""
        if len(pose.corners_px) != len(pose.marker_ids) or pose.reprojection_px <= 0:
            return np.zeros(len(self._cell_centres_mm))
        src = np.concatenate([self.marker_mm[i] for i in pose.marker_ids])
        shifts = cell_shifts(src, np.concatenate(pose.corners_px), self._cell_centres_mm)
        return shifts * pose.reprojection_px * noise_bound(len(src)) / self.cell_px(pose)

    def _homography(self, ids: list[int], image: dict[int, np.ndarray]) -> np.ndarray | None:
        """Least-squares homography from the corners of ``ids``."""
        src = np.concatenate([self.marker_mm[i] for i in ids])
        dst = np.concatenate([image[i] for i in ids])
        h, _ = cv2.findHomography(src, dst, 0)
        return h

    def _marker_error(self, h: np.ndarray, marker_id: int, corners: np.ndarray) -> float:
        """RMS distance in px between a marker's corners as seen and as ``h`` places them."""
        projected = cv2.perspectiveTransform(self.marker_mm[marker_id].reshape(-1, 1, 2), h).reshape(-1, 2)
        return float(np.sqrt(np.mean(np.sum((projected - corners) ** 2, axis=1))))

    def _spread(self, ids: list[int]) -> bool:
        """Whether the markers' centres span a third of the board both ways."""
        centres = np.array([self.marker_mm[i].mean(axis=0) for i in ids])
        span = centres.max(axis=0) - centres.min(axis=0)
        return bool(np.all(span >= self.layout.width_mm / 3))

    def _grid_corners_mm(self) -> np.ndarray:
        x0, y0 = self.layout.grid_origin_mm
        side = 10 * self.layout.cell_mm
        return np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float64)

    def _plausible(self, pose: BoardPose) -> bool:
        """The grid must come out as a convex, unmirrored quadrilateral with cells of a few pixels at least."""
        quad = pose.project(self._grid_corners_mm())
        edges = np.roll(quad, -1, axis=0) - quad
        cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        # Turning one way all round (all negative: mirrored, seen from below or a fit gone wrong).
        return bool(np.all(cross > 0) and np.min(np.linalg.norm(edges, axis=1)) >= 10 * 6)

    def cell_px(self, pose: BoardPose) -> float:
        """The mean side of a cell in image pixels under ``pose``."""
        quad = pose.project(self._grid_corners_mm())
        return float(np.mean(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)) / 10)

    def _shift_cells(self, old: BoardPose, new: BoardPose) -> float:
        """How far the grid corners moved between two poses, in cells (the largest of the four)."""
        corners = self._grid_corners_mm()
        shift = np.linalg.norm(old.project(corners) - new.project(corners), axis=1)
        return float(np.max(shift) / self.cell_px(new))

    def _confirms(self, pose: BoardPose, markers: dict[int, np.ndarray], slack_px: float = 0.0) -> bool:
        """Whether the markers seen sit where ``pose`` says they should (within a fifth of a cell, and
        ``slack_px`` more: a motion blur drags a corner by up to half its length)."""
        tolerance = 0.2 * self.cell_px(pose) + slack_px
        for marker_id, quad in markers.items():
            expected = pose.project(self.marker_mm[marker_id])
            if np.max(np.linalg.norm(expected - self._undistort(quad), axis=1)) > tolerance:
                return False
        return True

    def _markers(self, grey: np.ndarray, deconvolved: bool = False) -> dict[int, np.ndarray]:
        markers = self.detect_markers(grey, deconvolved)
        self._loose = None
        if len(markers) < len(self.marker_mm):
            # Where to look again for the missing markers: any fit will do for that.
            loose = self.fit_pose(markers, strict=False)
            hint = loose or (self.last_pose if markers else None)
            seen = len(markers)
            if hint is not None:
                self._search_missing(grey, markers, hint, deconvolved)
            if len(markers) == seen:        # none found: the pose is fitted to these very markers (``_fit``)
                self._loose = (markers, seen, loose)
        return markers

    def _fit(self, markers: dict[int, np.ndarray]) -> BoardPose | None:
        """``fit_pose(markers)`` (strict), from the loose fit ``_markers`` made of these very markers where it made one:
        the two fit alike and differ only in that the strict one refuses markers that do not spread (``_spread``), so
        the loose pose, or None, is the strict one where its markers spread (the same pose, not fitted twice)."""
        loose = self._loose
        if loose is None or loose[0] is not markers or loose[1] != len(markers):
            return self.fit_pose(markers)
        pose = loose[2]
        return pose if pose is None or self._spread(list(pose.marker_ids)) else None

    def _smeared(self, grey: np.ndarray,
                 seen: dict[int, np.ndarray]) -> tuple[dict[int, np.ndarray], Motion, BoardPose] | None:
        """The markers of a frame smeared by a shaken camera, read with its motion blur deconvolved (see
        ``vision.deblur``), that blur and the pose; None when no blur found lets the markers give a pose that
        the markers ``seen`` without deconvolving agree with."""
        small, scale = self._small(grey)
        rejected = self._rejected[1] if self._rejected is not None and self._rejected[0] is grey else None
        seeds = SmearSeeds(self._thorough, small, scale, rejected)
        # Crops at full size first, then (a frame still lost) at the detection scale, averaging the lifted noise away.
        tried: set[Motion] = set()      # a blur that gave no pose gives none the second time either
        best = None
        for at, k in [(1.0, 0), (1.0, 1)] + ([(scale, 0), (scale, 1)] if scale < 1.0 else []):
            candidates = seeds[k]
            for motion in (m for m in self.motion.ranked(grey, candidates, scale=at) if m not in tried):
                tried.add(motion)
                markers = self._markers(deblurred(grey, motion), deconvolved=True)
                pose = self._fit(markers)
                if pose is None:
                    markers = self._markers(deblurred(grey, motion, SMALL_NSR), deconvolved=True)
                    pose = self._fit(markers)
                if pose is not None and self._confirms(pose, seen, motion.length_px / 2):
                    if len(pose.marker_ids) >= SMEAR_ENOUGH_MARKERS:
                        return markers, motion, pose
                    # A pose on two or three markers may be a cell off on the far side: another blur may find more.
                    if best is None or len(pose.marker_ids) > len(best[2].marker_ids):
                        best = markers, motion, pose
        return best

    def find(self, image: np.ndarray) -> FinderResult:
        """The board's pose in a frame; updates ``last_pose`` when markers give a fresh one. Only when the
        markers give no pose and no earlier pose can stand in is the frame searched for motion blur."""
        grey = _grey(image)
        self._rejected = None
        markers = self._markers(grey)
        pose = self._fit(markers)
        motion = None
        contradicted = False
        if pose is None:
            # What little is visible contradicts the last pose: the board moved and cannot be re-found yet.
            contradicted = self.last_pose is not None and bool(markers) and not self._confirms(self.last_pose, markers)
            if self.last_pose is None or contradicted:
                if self._smear_pause > 0:
                    self._smear_pause -= 1
                elif (smeared := self._smeared(grey, markers)) is not None:
                    markers, motion, pose = smeared
                else:
                    self._smear_pause = SMEAR_PAUSE_FRAMES
        seen = tuple(sorted(markers))
        if pose is not None:
            last = self.last_pose
            shift = None if last is None else self._shift_cells(last, pose)
            if shift is not None and shift < STEADY_CELLS:
                # The same pose up to detection noise: keep the old one, so the warp (and a cached
                # lens map) stay put and readings do not flicker.
                return FinderResult(last, reused=False, moved=False, markers_seen=seen, marker_corners=markers,
                                    motion=motion)
            moved = shift is not None and shift > MOVED_CELLS
            self.last_pose = pose
            return FinderResult(pose, reused=False, moved=moved, markers_seen=seen, marker_corners=markers,
                                motion=motion)
        if self.last_pose is not None:
            if contradicted:
                return FinderResult(None, moved=True, markers_seen=seen, marker_corners=markers)
            return FinderResult(self.last_pose, reused=True, markers_seen=seen, marker_corners=markers)
        return FinderResult(None, markers_seen=seen, marker_corners=markers)

    def to_frame(self, pose: BoardPose, points_mm: np.ndarray) -> np.ndarray:
        """Board mm points (N, 2) -> frame px (N, 2), through the lens model when there is one."""
        undistorted = pose.project(points_mm)
        if self.lens is None:
            return undistorted
        k, dist = self.lens
        rays = np.linalg.solve(k, np.vstack([undistorted.T, np.ones(len(undistorted))])).T
        distorted, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, dist)
        return distorted.reshape(-1, 2)

    def forget(self) -> None:
        """Drop the last good pose (the next frame must find the board afresh)."""
        self.last_pose = None

    # -- warp ------------------------------------------------------------------------------------

    def grid_to_mm(self) -> np.ndarray:
        """3x3 affine: grid-image px -> board mm."""
        g = self.geometry
        mm_per_px = self.layout.cell_mm / g.px_per_cell
        x0, y0 = self.layout.grid_origin_mm
        # A pixel's centre (u + 0.5) sits at mm x0 + (u + 0.5 - margin) * mm_per_px.
        return np.array([[mm_per_px, 0, x0 + (0.5 - g.margin_px) * mm_per_px],
                         [0, mm_per_px, y0 + (0.5 - g.margin_px) * mm_per_px],
                         [0, 0, 1]], np.float64)

    def grid_to_image(self, pose: BoardPose) -> np.ndarray:
        """3x3 homography: grid-image px -> (undistorted) frame px."""
        return pose.homography @ self.grid_to_mm()

    def warp(self, image: np.ndarray, pose: BoardPose) -> np.ndarray:
        """The board seen from straight above: ``geometry.size`` square, grid plus margin."""
        size = self.geometry.size
        m = self.grid_to_image(pose)
        if self.lens is None:
            return cv2.warpPerspective(image, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                       borderMode=cv2.BORDER_REPLICATE)
        map_x, map_y = self._lens_maps(pose, m, size)
        return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _lens_maps(self, pose: BoardPose, m: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        if self._remap_cache is not None and self._remap_cache[0] is pose:
            return self._remap_cache[1]
        k, dist = self.lens
        u, v = np.meshgrid(np.arange(size, dtype=np.float64), np.arange(size, dtype=np.float64))
        pts = np.stack([u.ravel(), v.ravel()], axis=1).reshape(-1, 1, 2)
        undistorted = cv2.perspectiveTransform(pts, m).reshape(-1, 2)
        # Undistorted px -> normalised camera rays -> through the lens model -> distorted px.
        rays = np.linalg.solve(k, np.vstack([undistorted.T, np.ones(len(undistorted))])).T
        distorted, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, dist)
        distorted = distorted.reshape(size, size, 2).astype(np.float32)
        maps = (np.ascontiguousarray(distorted[..., 0]), np.ascontiguousarray(distorted[..., 1]))
        self._remap_cache = (pose, maps)
        return maps

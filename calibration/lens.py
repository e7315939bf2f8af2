"""The optional lens model: a printed ChArUco sheet photographed from several angles -> camera matrix and distortion.

A wide Pi lens bends straight lines near the picture's edges by several pixels; the board finder fits a
flat homography, so rim cells are then looked for a little off their true place. A lens model (from
``cv2.calibrateCamera`` on the sheet's chessboard corners) lets ``vision.finder.BoardFinder(lens=...)``
straighten the picture first.

The sheet's markers come from a 5x5 dictionary, never the game board's 4x4 one, so neither detector
mistakes one printout for the other.

>>> model = calibrate_lens(read_image(p) for p in photos)     # doctest: +SKIP
>>> model.check().line()                                        # doctest: +SKIP
'ok    lens model: reprojection 0.31 px ...'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from thoughtwave.calibration.profile import CheckResult
from thoughtwave.engine.phrases import Phrase, Words
from thoughtwave.vision.artwork import SheetArt

#: The sheet: 8 x 6 chessboard squares of 30 mm (240 x 180 mm, on A4 or Letter landscape with margins),
#: 22 mm markers from a dictionary the game board does not use.
SHEET_DICTIONARY = cv2.aruco.DICT_5X5_100
SHEET_SQUARES = (8, 6)
SQUARE_MM = 30.0
MARKER_MM = 22.0
#: Pictures that must show the sheet for a lens model, and chessboard corners a picture must show to count.
MIN_VIEWS = 6
MIN_CORNERS = 8
#: Reprojection error (px) judged good, and the most still accepted (with a warning between).
GOOD_RMS_PX, MAX_RMS_PX = 1.0, 2.0
#: A picture whose own error is above this many times the median (and above MAX_RMS_PX) is left out:
#: a blurred shot or a bent sheet.
OUTLIER_FACTOR = 3.0
#: Share of the picture (on a COVERAGE_GRID x COVERAGE_GRID grid) the sheet's corners must have reached
#: in some picture: distortion is strongest at the edges, and is only learnt where it was seen.
COVERAGE_GRID, MIN_COVERAGE = 4, 0.6
#: Most views a live capture keeps, and how far (share of the picture's diagonal) the sheet's corners must have
#: moved from every kept view for a new one to count (the same shot twice teaches nothing).
MAX_VIEWS, NEW_VIEW_SHARE = 15, 0.06
#: A live frame counts only when the sheet's corners moved less than this (median, px) since the frame before:
#: a sheet on the move is smeared.
STILL_PX = 1.5
#: Pictures with the sheet tilted by at least TILT_DEG the focal length needs (a flat-on sheet cannot tell
#: a long lens far away from a short lens close up).
TILT_DEG, MIN_TILTED = 15.0, 3

INSTRUCTION = "Glue flat on card; for a lens model take 10 photos holding it at different angles and places."


_NO_MODEL = "the pictures gave no sensible lens model; take them again from different angles and places"


class LensError(ValueError):
    """The pictures cannot give a lens model; the message says what to photograph instead."""


class SheetNotSeen(LensError):
    """Too few pictures show the lens sheet well enough."""


@functools.cache
def charuco_board() -> cv2.aruco.CharucoBoard:
    """The one ChArUco board printed as the lens sheet (board mm, origin at the top-left square, y down)."""
    dictionary = cv2.aruco.getPredefinedDictionary(SHEET_DICTIONARY)
    return cv2.aruco.CharucoBoard(SHEET_SQUARES, SQUARE_MM, MARKER_MM, dictionary)


def sheet_size_mm() -> tuple[float, float]:
    """(width, height) of the printed chessboard in mm."""
    return SHEET_SQUARES[0] * SQUARE_MM, SHEET_SQUARES[1] * SQUARE_MM


def sheet_black_mm() -> np.ndarray:
    """Every black area of the sheet as (N, 4) rectangles ``x0, y0, x1, y1`` in sheet mm.

    Taken from the board object itself (marker squares are the white ones, the rest are black), so the
    print always matches what the detector expects.
    """
    board = charuco_board()
    cols, rows = SHEET_SQUARES
    dictionary = board.getDictionary()
    bits_per_side = dictionary.markerSize + 2
    module = MARKER_MM / bits_per_side
    white = set()
    rects = []
    for marker_id, corners in zip(board.getIds().ravel(), board.getObjPoints(), strict=True):
        corners = np.asarray(corners, np.float64).reshape(4, 3)[:, :2]
        cx, cy = corners.mean(axis=0)
        white.add((int(cy // SQUARE_MM), int(cx // SQUARE_MM)))
        left, top = corners[0]
        bits = dictionary.generateImageMarker(int(marker_id), bits_per_side) == 0
        for r, c in zip(*np.nonzero(bits), strict=True):
            rects.append((left + c * module, top + r * module, left + (c + 1) * module, top + (r + 1) * module))
    for r in range(rows):
        for c in range(cols):
            if (r, c) not in white:
                rects.append((c * SQUARE_MM, r * SQUARE_MM, (c + 1) * SQUARE_MM, (r + 1) * SQUARE_MM))
    return np.array(rects, np.float64)


def sheet_art() -> SheetArt:
    """The lens sheet as print-kit draws it (a PDF page at exact size, and ``charuco.png``)."""
    w, h = sheet_size_mm()
    return SheetArt(
        name="charuco",
        title="Thoughtwave lens sheet (optional)",
        size_mm=(w, h),
        black_mm=sheet_black_mm(),
        instruction=INSTRUCTION,
        caption=f"Squares {SQUARE_MM:g} mm ({w:g} x {h:g} mm in all): measure one to check the print is at 100%.",
    )


@functools.cache
def _detector() -> cv2.aruco.CharucoDetector:
    return cv2.aruco.CharucoDetector(charuco_board())


def detect(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sheet's chessboard corners seen in a BGR or grey picture: ``(corners (N, 2) px, ids (N,))``, N may be 0."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = _detector().detectBoard(grey)
    if ids is None or corners is None or len(ids) == 0:
        return np.empty((0, 2), np.float64), np.empty(0, np.int32)
    return corners.reshape(-1, 2).astype(np.float64), ids.ravel().astype(np.int32)


@dataclass(frozen=True, eq=False)
class LensModel:
    """A camera's lens: ``camera_matrix`` (3x3) and ``dist_coeffs`` (k1, k2, p1, p2, k3) at ``image_size`` (w, h),
    with the rms reprojection error it left and how many pictures it was made from."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    rms_px: float
    image_size: tuple[int, int]
    views_used: int
    views_given: int
    coverage: float = 1.0
    tilted_views: int = MIN_TILTED

    def as_pair(self) -> tuple[np.ndarray, np.ndarray]:
        """``(camera_matrix, dist_coeffs)``, what ``BoardFinder(lens=...)`` takes."""
        return self.camera_matrix, self.dist_coeffs

    def to_profile(self) -> dict:
        """The ``Profile.lens`` dict (plain lists, JSON-ready)."""
        return {
            "camera_matrix": [[float(v) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [float(v) for v in self.dist_coeffs.ravel()],
            "rms_px": round(float(self.rms_px), 4),
            "image_size": [int(v) for v in self.image_size],
            "views_used": int(self.views_used),
        }

    def check(self) -> CheckResult:
        """The lens model judged: ok below GOOD_RMS_PX, a warning up to MAX_RMS_PX, failed above."""
        k1 = float(self.dist_coeffs.ravel()[0])
        fit = {"rms": round(float(self.rms_px), 2), "used": int(self.views_used), "given": int(self.views_given),
               "focal": round(float(self.camera_matrix[0, 0])), "k1": round(k1, 3)}
        english = (f"reprojection {self.rms_px:.2f} px from {self.views_used} of {self.views_given} pictures "
                   f"(focal {self.camera_matrix[0, 0]:.0f} px, k1 {k1:+.3f})")
        measured = _w("lens-fit", english, **fit)
        retake = ("retake the sheet pictures: sharp, the sheet glued flat on card, the camera still, "
                  "in good light")
        if self.rms_px > MAX_RMS_PX:
            return CheckResult("lens model", False, measured, _w("lens-retake", retake))
        tilt = _w("lens-tilt", f"add pictures with the sheet tilted {TILT_DEG:g}-45 degrees toward the camera",
                  degrees=float(TILT_DEG))
        if self.tilted_views == 0:
            # Sheets all facing the camera cannot tell a long lens far away from a short one close up.
            return CheckResult("lens model", False, _w("lens-fit-flat", english + ", no tilted picture", **fit), tilt)
        if self.rms_px > GOOD_RMS_PX:
            return CheckResult("lens model", True, measured, _w("lens-retake-usable", retake + " (usable as it is)"),
                               warning=True)
        if self.coverage < MIN_COVERAGE:
            reached = _w("lens-fit-coverage", english + f", the sheet reached {self.coverage:.0%} of the picture",
                         **fit, percent=round(self.coverage * 100))
            return CheckResult("lens model", True, reached, _w("lens-corners", "add pictures with the sheet near the "
                                                              "corners and edges of the picture"), warning=True)
        if self.tilted_views < MIN_TILTED:
            few = _w("lens-fit-few-tilted", english + f", only {self.tilted_views} tilted picture(s)", **fit,
                     num=int(self.tilted_views))
            return CheckResult("lens model", True, few, tilt, warning=True)
        return CheckResult("lens model", True, measured)


def _w(code: str, english: str, **values: object) -> Words:
    """The English ``english``, also the phrase ``code`` with ``values`` (the calibration page's languages)."""
    return Words(Phrase.of(code, english, **values))


class ViewCollector:
    """Picks the pictures worth calibrating on from a live stream: the sheet seen well, held still (as in the
    frame before), and placed or tilted differently from every picture already kept. ``offer(frame)`` says
    whether the frame was kept."""

    def __init__(self, max_views: int = MAX_VIEWS) -> None:
        self.max_views = max_views
        self.views: list[np.ndarray] = []
        self._corners: list[dict[int, np.ndarray]] = []
        self._last: dict[int, np.ndarray] = {}

    @property
    def full(self) -> bool:
        """Whether enough views are kept that more would add little."""
        return len(self.views) >= self.max_views

    def offer(self, image: np.ndarray) -> bool:
        """Keep ``image`` if it shows the sheet well and somewhere new; True when kept."""
        if self.full:
            return False
        corners, ids = detect(image)
        seen = dict(zip(ids.tolist(), corners, strict=True))
        last, self._last = self._last, seen
        if len(ids) < MIN_CORNERS or charuco_board().checkCharucoCornersCollinear(ids.reshape(-1, 1)):
            return False
        if _moved(seen, last) > STILL_PX:
            return False
        step = NEW_VIEW_SHARE * float(np.hypot(*image.shape[:2]))
        if any(_moved(seen, kept) < step for kept in self._corners):
            return False
        self.views.append(image.copy())
        self._corners.append(seen)
        return True


def _moved(a: dict[int, np.ndarray], b: dict[int, np.ndarray]) -> float:
    """Median distance the corners two detections share moved (infinite when they share too few to say)."""
    common = a.keys() & b.keys()
    if len(common) < MIN_CORNERS:
        return float("inf")
    return float(np.median([np.linalg.norm(a[i] - b[i]) for i in common]))


def _image_size(image: object, index: int) -> tuple[int, int]:
    if (not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3)
            or min(image.shape[:2]) < 32):
        raise LensError(f"picture {index + 1} is not a usable picture")
    return int(image.shape[1]), int(image.shape[0])


def _calibrate(objects: list[np.ndarray], points: list[np.ndarray], size: tuple[int, int]):
    # k3 stays 0: with a dozen hand-held pictures it only fits noise at the rim, where it then extrapolates badly.
    flags = cv2.CALIB_FIX_K3
    criteria = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-9)
    try:
        rms, k, dist, rvecs, _, _, _, per_view = cv2.calibrateCameraExtended(
            objects, points, size, None, None, flags=flags, criteria=criteria)
    except cv2.error:
        raise LensError(_NO_MODEL) from None
    return float(rms), k, dist.ravel(), rvecs, np.asarray(per_view, np.float64).ravel()


def calibrate_lens(images: Iterable[np.ndarray]) -> LensModel:
    """A lens model from pictures of the lens sheet (all at one resolution); LensError when they cannot give one."""
    board = charuco_board()
    objects: list[np.ndarray] = []
    points: list[np.ndarray] = []
    size: tuple[int, int] | None = None
    given = 0
    for index, image in enumerate(images):
        given += 1
        this = _image_size(image, index)
        if size is None:
            size = this
        elif this != size:
            raise LensError(f"picture {index + 1} is {this[0]}x{this[1]} but the first is {size[0]}x{size[1]}: "
                            "take every picture at the resolution the camera plays at")
        corners, ids = detect(image)
        if len(ids) < MIN_CORNERS or board.checkCharucoCornersCollinear(ids.reshape(-1, 1)):
            continue
        obj, img = board.matchImagePoints(corners.reshape(-1, 1, 2).astype(np.float32), ids.reshape(-1, 1))
        objects.append(np.asarray(obj, np.float32).reshape(-1, 1, 3))
        points.append(np.asarray(img, np.float32).reshape(-1, 1, 2))
    if given == 0 or size is None:
        raise LensError("no pictures of the lens sheet given")
    if len(objects) < MIN_VIEWS:
        shown = f"{len(objects)} of {given}" if given > len(objects) else f"{given}"
        verb = "picture shows" if shown == "1" else "pictures show"
        raise SheetNotSeen(f"only {shown} {verb} the sheet; take {MIN_VIEWS} or more from different angles, "
                        "filling different parts of the picture")
    rms, k, dist, rvecs, per_view = _calibrate(objects, points, size)
    # One round of leaving out pictures that disagree with the rest (motion blur, a curled sheet).
    bad = per_view > max(OUTLIER_FACTOR * float(np.median(per_view)), MAX_RMS_PX)
    if bad.any() and len(objects) - int(bad.sum()) >= MIN_VIEWS:
        objects = [o for o, b in zip(objects, bad, strict=True) if not b]
        points = [p for p, b in zip(points, bad, strict=True) if not b]
        rms, k, dist, rvecs, per_view = _calibrate(objects, points, size)
    if not (np.all(np.isfinite(k)) and np.all(np.isfinite(dist)) and k[0, 0] > 0 and k[1, 1] > 0):
        raise LensError(_NO_MODEL)
    return LensModel(k, dist, rms, size, len(objects), given, _coverage(points, size), _tilted(rvecs))


def _coverage(points: list[np.ndarray], size: tuple[int, int]) -> float:
    """Share of the picture's COVERAGE_GRID x COVERAGE_GRID regions that some sheet corner fell in."""
    xy = np.concatenate([p.reshape(-1, 2) for p in points])
    cols = np.clip((xy[:, 0] * COVERAGE_GRID / size[0]).astype(int), 0, COVERAGE_GRID - 1)
    rows = np.clip((xy[:, 1] * COVERAGE_GRID / size[1]).astype(int), 0, COVERAGE_GRID - 1)
    return len(set(zip(rows.tolist(), cols.tolist(), strict=True))) / COVERAGE_GRID ** 2


def _tilted(rvecs: Iterable[np.ndarray]) -> int:
    """Pictures in which the sheet leans at least TILT_DEG away from facing the camera."""
    count = 0
    for rvec in rvecs:
        rotation, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
        if np.degrees(np.arccos(np.clip(abs(rotation[2, 2]), 0.0, 1.0))) >= TILT_DEG:
            count += 1
    return count

"""Markers in a frame smeared by a shaken camera: estimate the straight-line motion blur, deconvolve, look again.

A camera (or table) that moves during the exposure smears the picture along one direction. Past about
5 px the marker bits (4-5 px each on a board a third of the frame wide) run into each other and no
marker decodes, so the board is lost although its outline is plain to see. The detector still finds
the markers' dark squares (its rejected candidates); this module:

1. crops the picture around those candidates (or, failing them, the dark squares a threshold finds)
   and, for each straight-line blur in a small set (a length and a direction), deconvolves every crop
   at once (Wiener, in linear light) and asks the detector which board markers it now decodes (looking at no square
   too small to carry a marker's bits, ``DECONVOLVED_MIN_OUTLINE_PX``: deconvolving leaves specks of ringing): the
   blur that lets most markers decode wins, then a finer set around it. The crops' own spectrum says
   which blurs to ask about first (``spectral_guess``: a straight blur leaves dark lines across it):
   the search stops at the first under which enough markers decode, and goes no further than the
   directions next to the guess once one decoded, so a frame costs 9-23 deconvolutions of its crops,
   not 68. The crops are first looked at as they are, then, if no blur found that way gives a pose,
   scaled down as the finder scales a frame for detection: deconvolution lifts the sensor noise, and
   averaging it away brings back markers that no crop decoded at full size;
2. deconvolves the whole frame with it, for the finder to detect the markers again; when that gives no
   pose, with the next blurs under which a marker decoded (up to ``ALTERNATIVES`` in all): a handful of
   small crops can favour a blur that brings back only their own markers. A blur that gives no pose is tried once
   more, deconvolved harder (``SMALL_NSR``: a small board's modules), in either round.

The tiles are read first from the picture as taken: deconvolution rings, and ringing can draw a dot or a
wave that is not there. The blur found (``Motion``) tells the finder where the board is, and only the cells
the smeared picture cannot show are read again from the board deconvolved with it (``vision.smeared``,
``deblurred_colour``), by the same reader and confidence rules; those still unreadable are named ``MOTION``.

All of it runs only when the ordinary detection found too few markers for a pose, so a sharp frame
costs nothing. Plain numpy FFTs and OpenCV's ArUco detector: no further library is needed.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

#: The blurs tried first: lengths (frame px) and directions (degrees, image x right, y down) ...
COARSE_LENGTHS = (4.0, 5.5, 7.0, 8.5, 10.0)
COARSE_ANGLE_STEP = 15
COARSE_ANGLES = tuple(range(0, 180, COARSE_ANGLE_STEP))
#: ... then around the best of those, these steps either side.
FINE_LENGTH_STEP = 0.75
FINE_ANGLE_STEP = 7.5
#: ... in lengths this far apart (px; ``finer_blurs``).
FINE_LENGTH_SCAN_PX = 0.375
#: Points a pixel along a line that ``line_psf`` spreads over the pixels around it.
LINE_SAMPLES_PX = 32
#: Wiener's noise-to-signal ratio: low enough to restore a 4-px module, high enough not to amplify the
#: sensor noise and JPEG blocks into false bits.
WIENER_NSR = 0.01
#: ... and the one a whole frame is deconvolved with once the gentle inverse gave no pose: a small board's 2-3 px
#: modules need more restoring, and the detection copy's downscaling averages the lifted noise away (seed 97's frame
#: 145: one marker at 0.01, five at this). In the first round too, where the crops at full size point to the blur:
#: scaled, they may point to one further off (seed 211's frame 53, smeared 7.5 px at 174 degrees: at full size 7.4 px
#: at 172.5, one marker gently, a pose at this; scaled, 8.5 px at 165, none).
SMALL_NSR = 0.003
#: The sRGB-like curve undone before deconvolving (the blur happened to light, not to grey levels).
GAMMA = 2.2
#: At most this many marker candidates are cropped (the darkest, squarest first) ...
MAX_CROPS = 24
#: ... each this many marker sides wide (the marker, its quiet zone and the blur's reach), 24 px more, and
#: at most ``MAX_CROP_PX``.
CROP_SIDES = 1.8
MAX_CROP_PX = 192
#: Adaptive-threshold windows (px of the detection copy) and the least area (px²) of a dark square.
SQUARE_BLOCKS = (15, 31)
SQUARE_MIN_AREA = 36
#: Candidates smaller than this share of the largest are not markers.
MARKER_SHARE = 0.6
#: Reflected border added to each crop before deconvolving (px).
CROP_PAD = 16
#: The coarse search stops at a blur that lets this many markers decode (or every crop).
ENOUGH_MARKERS = 4
#: Blurs tried on the whole frame when the best one gives no pose.
ALTERNATIVES = 3
#: The guess from the crops' spectrum (``spectral_guess``): the lengths (px) and directions (degrees) it weighs, the
#: band of frequencies it looks at (cycles a px: below it the picture's own content, above it noise and JPEG), the
#: side of the grid the spectrum is resampled to, the bands of radii whose mean is taken off, at most how many crops
#: are looked at, and how much longer than the blur its guess comes out (on 144 smeared frames of four path-traced
#: sets: 1.4 px at the median; the direction within 10 degrees in 86%, 20 in 98%).
GUESS_LENGTHS = np.arange(3.0, 11.01, 0.5)
GUESS_ANGLES = np.arange(0.0, 180.0, 5.0)
GUESS_BAND = (0.04, 0.4)
GUESS_GRID = 96
GUESS_BANDS = 24
GUESS_CROPS = 12
GUESS_BIAS_PX = 1.4
#: Coarse directions this many steps either side of the guess's are tried, and no others: where none of their blurs
#: decodes a marker, the crops are not markers smeared by a blur this search can undo. (The further ones were tried
#: while none decoded: of 50 such searches on the path-traced tuning sets and three shaken sweeps, one further blur
#: decoded a marker, 45 degrees off, and changed nothing read; a board lost paid 0.3-0.5 s for them, seed 149's
#: frames 10 and 48.)
GUESS_NEAR_STEPS = 1
#: Unit spectra kept (``_unit_spectrum``): the frame's size and the few sizes of the cells a soft frame re-reads.
UNIT_SPECTRA = 16
#: The least outline (contour px) of a square the detector is asked about in a deconvolved picture (the crops' mosaic,
#: the frame the finder looks at again): a marker is 6 modules wide, so under 24 px round its modules are under a pixel
#: and cannot carry its bits. The detector's own floor, 2% of the picture's longer side (5-7 px on a mosaic, 12 on the
#: detection copy, 1-2 on a crop around a missing marker), lets through the specks of ringing and lifted noise that
#: deconvolving leaves, whose decoding took three quarters of a mosaic's detection; what one decodes as is noise (on the
#: rendered sets' 9,087 mosaics such specks decoded 179 times, never as one of the board's ids).
DECONVOLVED_MIN_OUTLINE_PX = 24


@dataclass(frozen=True)
class Motion:
    """A straight-line motion blur: ``length_px`` long in frame pixels, along ``angle_deg`` (0-180,
    image x right and y down)."""

    length_px: float
    angle_deg: float


#: ``line_psf`` keeps this many kernels: the candidate blurs of the searches are the same few hundred lines from frame
#: to frame (on seed 149's first 60 frames, 520 distinct lines of 1,379 drawn), each a few hundred bytes.
KEPT_LINES = 1024


@functools.lru_cache(maxsize=KEPT_LINES)
def line_psf(length: float, angle_deg: float) -> np.ndarray:
    """The point spread function of a straight-line motion ``length`` px long along ``angle_deg``: an odd square
    kernel summing to 1, the light spread evenly along the segment and shared between the pixels each point of it
    falls among (bilinear, ``LINE_SAMPLES_PX`` points a px), so any length and direction counts. A shake moves the
    picture by no whole number of pixels; a line drawn in whole pixels (``cv2.line`` does not anti-alias a float
    image: every length over 5 px up to 7 along a row is one 7-pixel line) matched only the sets blurred with that
    same line. ``bench/physical_set.py`` renders a shake with this construction (``smooth_line_kernel``)."""
    n = int(math.ceil(length)) + 2 | 1
    c = (n - 1) / 2
    a = math.radians(angle_deg)
    t = np.linspace(-length / 2, length / 2, max(64, int(math.ceil(LINE_SAMPLES_PX * length))))
    x, y = c + t * math.cos(a), c + t * math.sin(a)
    x0, y0 = np.floor(x).astype(np.intp), np.floor(y).astype(np.intp)
    fx, fy = x - x0, y - y0
    kernel = np.zeros((n, n), np.float64)
    for dy, dx, w in ((0, 0, (1 - fx) * (1 - fy)), (0, 1, fx * (1 - fy)), (1, 0, (1 - fx) * fy), (1, 1, fx * fy)):
        np.add.at(kernel, (y0 + dy, x0 + dx), w)
    kernel = (kernel / kernel.sum()).astype(np.float32)
    kernel.flags.writeable = False      # kept for the next call (``KEPT_LINES``)
    return kernel


def _centred(psf: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``psf`` in an image of ``shape``, its centre at the origin (wrapped round), float32."""
    padded = np.zeros(shape, np.float32)
    n = psf.shape[0]
    if n > min(shape):
        padded[:n, :n] = psf
        return np.roll(padded, (-(n // 2), -(n // 2)), (0, 1))
    # Placed where ``np.roll`` would take it (the same array, without moving the whole picture).
    rows, cols = (np.arange(n) - n // 2) % shape[0], (np.arange(n) - n // 2) % shape[1]
    padded[np.ix_(rows, cols)] = psf
    return padded


def psf_spectrum(psf: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The real FFT of ``psf`` centred at the origin of an image of ``shape``."""
    return kernel_spectra([psf], shape)[0]


def kernel_spectra(psfs: list[np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    """(len(psfs), h, w // 2 + 1) ``psf_spectrum`` of each of ``psfs`` (kernels drawn once, for a few sizes).

    ``np.fft.rfft2`` of each of ``psfs`` centred (``_centred``), the same numbers: numpy's 2-D real FFT transforms
    along the rows, then along the columns, and every row no kernel reaches is zero, so only the rows a kernel reaches
    are transformed along the rows (the rest take a zero row's transform, signed zeros and all) before the columns.
    Those rows are filled in directly, each kernel where ``_centred`` puts it, without making each whole picture."""
    h, w = shape
    placed = [(np.arange(psf.shape[0]) - psf.shape[0] // 2) for psf in psfs]
    rows = np.unique(np.concatenate([at % h for at in placed]))
    if 2 * len(rows) > h or max(psf.shape[0] for psf in psfs) > min(shape):
        stack = np.stack([_centred(psf, shape) for psf in psfs])
        if 2 * len(rows) > h:
            return np.fft.rfft2(stack)
        reached = stack[:, rows]
    else:
        reached = np.zeros((len(psfs), len(rows), w), np.float32)
        for k, (psf, at) in enumerate(zip(psfs, placed, strict=True)):
            reached[k][np.ix_(np.searchsorted(rows, at % h), at % w)] = psf
    half = np.empty((len(psfs), h, w // 2 + 1), np.complex64)
    half[:] = np.fft.rfft(np.zeros((1, w), np.float32))
    half[:, rows] = np.fft.rfft(reached)
    return np.fft.fft(half, axis=-2)


@functools.cache
def _linear_table() -> np.ndarray:
    return np.power(np.arange(256, dtype=np.float32) / 255.0, GAMMA)


def _linear(grey: np.ndarray) -> np.ndarray:
    """uint8 grey levels in linear light (float32): looked up, the same numbers as computing them at a fifth of the
    time (a 960 x 720 colour frame: 4 ms against 22)."""
    if grey.dtype != np.uint8:
        return np.power(grey.astype(np.float32) / 255.0, GAMMA)
    if grey.size == 0:
        return np.take(_linear_table(), grey)
    # OpenCV's table look-up: the same numbers as numpy's ``take``, at a third of its time (as one channel per row).
    return cv2.LUT(grey.reshape(grey.shape[0], -1), _linear_table()).reshape(grey.shape)


def _to_grey(linear: np.ndarray) -> np.ndarray:
    out = np.clip(linear, 0.0, 1.0)
    np.power(out, 1.0 / GAMMA, out=out)
    out *= 255.0
    out += 0.5
    return out.astype(np.uint8)


def _wiener(spectra: np.ndarray, shape: tuple[int, int], psf: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
    """Wiener deconvolution of images given by their real FFTs (..., h, w // 2 + 1): their ``rows`` (all by default).
    ``np.fft.irfft2`` as numpy does it, along the columns and then back to real along the rows, the second step on those
    rows only: the same numbers."""
    k = psf_spectrum(psf, shape)
    half = np.fft.ifft(spectra * (np.conj(k) / (np.abs(k) ** 2 + WIENER_NSR)), shape[0], axis=-2)[..., rows, :]
    return np.fft.irfft(half, shape[1], axis=-1)


def deblurred(grey: np.ndarray, motion: Motion, nsr: float = WIENER_NSR) -> np.ndarray:
    """A grey frame (uint8) with ``motion`` deconvolved away (``deblurred_colour`` of its one channel)."""
    return deblurred_colour(grey, motion, nsr)


def deblurred_colour(image: np.ndarray, motion: Motion, nsr: float = WIENER_NSR,
                     inverses: dict[tuple[int, int], np.ndarray] | None = None) -> np.ndarray:
    """An (h, w[, channels]) uint8 picture with ``motion`` deconvolved from every channel, in linear light, its edges
    padded by reflection (the border widened to sizes the FFT factors well, so any crop costs about the same per
    pixel). ``inverses``: the Wiener inverses of this ``motion`` and ``nsr`` already made, by padded size (for crops
    deconvolved one after another, whose padded sizes often agree; filled in)."""
    pad = int(math.ceil(motion.length_px)) + 8
    h, w = image.shape[:2]
    full_h, full_w = cv2.getOptimalDFTSize(h + 2 * pad), cv2.getOptimalDFTSize(w + 2 * pad)
    top, left = (full_h - h) // 2, (full_w - w) // 2
    linear = cv2.copyMakeBorder(_linear(image), top, full_h - h - top, left, full_w - w - left, cv2.BORDER_REFLECT)
    inverse = None if inverses is None else inverses.get((full_h, full_w))
    if inverse is None:
        inverse = _wiener_filter(line_psf(motion.length_px, motion.angle_deg), (full_h, full_w), nsr)
        if inverses is not None:
            inverses[full_h, full_w] = inverse
    out = [_to_grey(cv2.idft(cv2.mulSpectrums(cv2.dft(channel), inverse, 0),
                             flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)[top:top + h, left:left + w])
           for channel in (cv2.split(linear) if linear.ndim == 3 else [linear])]
    return out[0].reshape(image.shape) if len(out) == 1 else cv2.merge(out)


def _wiener_filter(psf: np.ndarray, shape: tuple[int, int], nsr: float = WIENER_NSR) -> np.ndarray:
    """Wiener's inverse of ``psf`` for pictures of ``shape``, as OpenCV's DFT of a real picture packs a spectrum (CCS,
    the same size; half the work of a complex one): conj(K) / (|K|² + ``nsr``). On a whole frame OpenCV's DFT
    takes under half the time numpy's FFT does; on the small crops (``_wiener``) numpy's, which takes them all at once,
    is as fast."""
    k = cv2.dft(_centred(psf, shape))
    scale = _unit_spectrum(shape) / (cv2.mulSpectrums(k, k, 0, conjB=True) + nsr)
    return cv2.mulSpectrums(scale, k, 0, conjB=True)


@functools.lru_cache(maxsize=UNIT_SPECTRA)
def _unit_spectrum(shape: tuple[int, int]) -> np.ndarray:
    """The packed spectrum of a unit impulse at the origin: 1 in every real place of the packing and 0 in every
    imaginary one (kept for the last few sizes: a whole frame's DFT is a few ms)."""
    one = np.zeros(shape, np.float32)
    one[0, 0] = 1.0
    spectrum = cv2.dft(one)
    spectrum.flags.writeable = False
    return spectrum


def deconvolved_detector(detector: cv2.aruco.ArucoDetector, shape: tuple[int, ...]) -> cv2.aruco.ArucoDetector:
    """``detector`` asked about no square under ``DECONVOLVED_MIN_OUTLINE_PX`` round in a deconvolved picture of
    ``shape`` (OpenCV takes its least outline as a share of the picture's longer side; never lowered). A stand-in
    without parameters (a test's) is given back as it is."""
    if not hasattr(detector, "getDetectorParameters"):
        return detector
    params = detector.getDetectorParameters()
    params.minMarkerPerimeterRate = max(params.minMarkerPerimeterRate,
                                        (DECONVOLVED_MIN_OUTLINE_PX + 0.5) / max(shape[:2]))
    return cv2.aruco.ArucoDetector(detector.getDictionary(), params)


class MotionEstimator:
    """Finds the motion blur that lets the most board markers decode around the marker candidates.

    ``detector`` is the ArUco detector to decode crops with, ``marker_ids`` the ids that belong to the board
    (others decoded from ringing do not count)."""

    def __init__(self, detector: cv2.aruco.ArucoDetector, marker_ids: set[int]) -> None:
        self.detector = detector
        self.marker_ids = set(marker_ids)

    def crops(self, grey: np.ndarray, candidates: list[np.ndarray]) -> tuple[np.ndarray, int]:
        """(n, s, s) linear-light crops of ``grey`` around the candidate quads (frame px), and ``s``."""
        quads = [np.asarray(q, np.float64).reshape(4, 2) for q in candidates]
        sides = [np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1) for q in quads]
        # a square under perspective: sides that differ by at most a factor of two, 8 px long on average
        squarish = [(q, float(s.mean())) for q, s in zip(quads, sides, strict=True)
                    if s.mean() >= 8 and s.min() > 0.5 * s.max()]
        if not squarish:
            return np.zeros((0, 0, 0), np.float32), 0
        # The markers are the largest squares on the board (1.2 cells, larger than a tile): smaller candidates
        # are bits of tiles and markers. The largest of which two others at least are about as large: one
        # square larger than all (the board's outline) is no marker.
        sizes = np.array([s for _, s in squarish])
        alike = [(s, int(np.sum(np.abs(sizes - s) <= 0.3 * s))) for s in sizes]
        largest = max((s for s, n in alike if n >= 3), default=float(np.median(sizes)))
        squarish = [(q, s) for q, s in squarish if s >= MARKER_SHARE * largest]
        size = int(min(MAX_CROP_PX, math.ceil(CROP_SIDES * largest + 24))) // 2 * 2
        h, w = grey.shape
        # Darkest inside first: a marker's black border and bits beat a tile's mid-tone body.
        scored = []
        for q, _ in squarish:
            cx, cy = q.mean(axis=0)
            x0, y0 = int(round(cx)) - size // 2, int(round(cy)) - size // 2
            if x0 < 0 or y0 < 0 or x0 + size > w or y0 + size > h:
                continue
            inner = grey[y0 + size // 3:y0 + 2 * size // 3, x0 + size // 3:x0 + 2 * size // 3]
            scored.append((float(inner.mean()), x0, y0))
        scored.sort()
        kept, taken = [], []
        for _, x0, y0 in scored:
            if any(abs(x0 - a) < size // 3 and abs(y0 - b) < size // 3 for a, b in taken):
                continue  # the same square found twice
            taken.append((x0, y0))
            kept.append(grey[y0:y0 + size, x0:x0 + size])
            if len(kept) >= MAX_CROPS:
                break
        if not kept:
            return np.zeros((0, 0, 0), np.float32), 0
        # Reflected borders, so the FFT's wrap-around does not ring into the marker.
        pad = CROP_PAD
        return _linear(np.stack([cv2.copyMakeBorder(c, pad, pad, pad, pad, cv2.BORDER_REFLECT) for c in kept])), size

    def score(self, spectra: np.ndarray, size: int, motion: Motion, scale: float = 1.0) -> int:
        """How many distinct board markers decode in the crops with ``motion`` deconvolved, looked for in a copy
        scaled by ``scale`` (the finder's detection scale: the copy the whole frame's markers are looked for in,
        where downscaling averages away the noise deconvolution lifts)."""
        pad = CROP_PAD
        full = size + 2 * pad
        psf = line_psf(motion.length_px, motion.angle_deg)
        out = _to_grey(_wiener(spectra, (full, full), psf, slice(pad, full - pad))[:, :, pad:-pad])
        # One detector call over a mosaic of the crops (white between them) is far cheaper than one a crop.
        n = len(out)
        cols = int(math.ceil(math.sqrt(n)))
        rows = int(math.ceil(n / cols))
        gap = size // 4
        mosaic = np.full((rows * (size + gap) + gap, cols * (size + gap) + gap), 255, np.uint8)
        for k, crop in enumerate(out):
            r, c = divmod(k, cols)
            y, x = gap + r * (size + gap), gap + c * (size + gap)
            mosaic[y:y + size, x:x + size] = crop
        if scale < 1.0:
            mosaic = cv2.resize(mosaic, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        _, ids, _ = deconvolved_detector(self.detector, mosaic.shape).detectMarkers(mosaic)
        if ids is None:
            return 0
        seen = [int(i) for i in ids.ravel() if int(i) in self.marker_ids]
        # Two crops decoding the same id: one of them is a false decode; count the id once.
        return len(set(seen))

    def ranked(self, grey: np.ndarray, candidates: list[np.ndarray], scale: float = 1.0) -> list[Motion]:
        """The blurs worth deconvolving the whole frame with, best first (at most ``ALTERNATIVES``): the one
        under which most markers decode in the crops, refined, then others under which one decoded at least.
        The crops are few and small: the blur that decodes most of them is not always the one that brings
        back the whole board's markers, so a caller tries the next when the first gives no pose. ``scale``: the
        caller's detection scale (see ``score``)."""
        crops, size = self.crops(grey, candidates)
        if not len(crops):
            return []
        spectra = np.fft.rfft2(crops)
        scores: list[tuple[int, Motion]] = []
        coarse = [Motion(length, float(angle)) for length in COARSE_LENGTHS for angle in COARSE_ANGLES]
        # Those the crops' spectrum points to first: the search stops at the first that decodes enough markers, or
        # past the directions next to the guess (the guess is rarely further off: ``GUESS_NEAR_STEPS``).
        for turn, motion in by_guess(coarse, spectral_guess(crops)):
            if turn > GUESS_NEAR_STEPS:
                break
            scores.append((self.score(spectra, size, motion, scale), motion))
            if scores[-1][0] >= min(ENOUGH_MARKERS, len(crops)):
                break  # near enough: the finer set around it does the rest
        scores.sort(key=lambda sm: -sm[0])              # stable: equal scores keep the order tried
        best_score, centre = scores[0]
        if best_score == 0:
            return []
        best = centre
        # A blur under which every crop (or every board marker) decodes is bettered by none: no finer set then.
        if best_score < min(len(crops), len(self.marker_ids)):
            for motion in finer_blurs(centre, {m for _, m in scores}):
                got = self.score(spectra, size, motion, scale)
                if got > best_score:
                    best, best_score = motion, got
        return [best, *(m for n, m in scores[1:] if n > 0)][:ALTERNATIVES]


def finer_blurs(centre: Motion, tried: set[Motion] = frozenset()) -> list[Motion]:
    """The finer set around ``centre``: along its direction and ``FINE_ANGLE_STEP`` either side, the lengths within
    ``FINE_LENGTH_STEP`` of its length (at least 2 px) ``FINE_LENGTH_SCAN_PX`` apart, none in ``tried``, nearest
    ``centre`` first. ``line_psf`` draws a smooth line, so every length and direction is a blur of its own."""
    seen = set(tried)
    out = []
    steps = int(round(FINE_LENGTH_STEP / FINE_LENGTH_SCAN_PX))
    for turn in (0.0, -FINE_ANGLE_STEP, FINE_ANGLE_STEP):
        angle = (centre.angle_deg + turn) % 180.0
        lengths = sorted({round(max(2.0, centre.length_px + k * FINE_LENGTH_SCAN_PX), 3)
                          for k in range(-steps, steps + 1)}, key=lambda length: abs(length - centre.length_px))
        for motion in (Motion(length, angle) for length in lengths):
            if motion not in seen:
                seen.add(motion)
                out.append(motion)
    return out


@functools.cache
def _guess_grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bins of ``spectral_guess``'s spectrum (``GUESS_GRID`` square, rows shifted so 0 is the middle) in its band,
    which of ``GUESS_BANDS`` bands of radii each is in, and for each candidate blur (lengths * angles) its log sinc² on
    them, less its mean and of unit length."""
    fy, fx = np.meshgrid(np.fft.fftshift(np.fft.fftfreq(GUESS_GRID)), np.fft.rfftfreq(GUESS_GRID), indexing="ij")
    radius = np.hypot(fx, fy).ravel()
    ring = np.flatnonzero((radius > GUESS_BAND[0]) & (radius < GUESS_BAND[1]))
    bands = np.minimum((radius[ring] - GUESS_BAND[0]) / (GUESS_BAND[1] - GUESS_BAND[0]) * GUESS_BANDS,
                       GUESS_BANDS - 1).astype(int)
    angles = np.radians(GUESS_ANGLES)
    along = fx.ravel()[ring] * np.cos(angles)[:, None] + fy.ravel()[ring] * np.sin(angles)[:, None]
    template = np.log(np.sinc(GUESS_LENGTHS[:, None, None] * along[None]) ** 2 + 1e-3).reshape(-1, ring.size)
    template -= template.mean(axis=1, keepdims=True)
    template /= np.linalg.norm(template, axis=1, keepdims=True)
    # Rounded to float32 as made, held as float64: the level it meets is float64, and numpy would widen it so each call.
    return ring, bands, template.astype(np.float32).astype(np.float64)


def spectral_guess(crops: np.ndarray) -> Motion:
    """The straight blur whose spectrum best explains the zeros in the spectra of ``crops`` (``MotionEstimator.crops``:
    square, linear light, ``CROP_PAD`` reflected around each; here windowed, without it, the window's fall-off in place
    of the crop's edges).

    A straight blur ``L`` px long multiplies the picture's spectrum by a sinc across its direction, dark lines ``1/L``
    apart. The log power, averaged over the crops (the same shake smears every marker alike), resampled to a fixed
    grid and less each band of radii's mean (the picture's own fall-off), is matched against each candidate's log
    sinc². 3-4 ms here, and used only to choose which blurs the detector is asked about first."""
    # The middle of each crop, at most the grid's side (the marker's own edges, its bits, are there), of the darkest
    # few: enough to average, at a fraction of the FFTs' cost on 24 crops 224 px square (26 ms).
    side = crops.shape[1] - 2 * CROP_PAD
    cut = (side - min(side, GUESS_GRID)) // 2
    inner = crops[:GUESS_CROPS, CROP_PAD + cut:CROP_PAD + side - cut, CROP_PAD + cut:CROP_PAD + side - cut]
    inner = inner - inner.mean(axis=(1, 2), keepdims=True)
    window = np.hanning(inner.shape[1]).astype(np.float32)
    spectra = np.fft.rfft2(inner * np.outer(window, window))
    power = np.log(np.mean(np.abs(spectra) ** 2, axis=0) + 1e-12).astype(np.float32)
    power = cv2.resize(np.fft.fftshift(power, axes=0), (GUESS_GRID // 2 + 1, GUESS_GRID),
                       interpolation=cv2.INTER_AREA if power.shape[0] > GUESS_GRID else cv2.INTER_LINEAR)
    ring, bands, template = _guess_grid()
    level = power.ravel()[ring]
    level = level - (np.bincount(bands, level, GUESS_BANDS)
                     / np.maximum(np.bincount(bands, minlength=GUESS_BANDS), 1))[bands]
    fit = template @ level
    i, j = divmod(int(np.argmax(fit)), len(GUESS_ANGLES))
    return Motion(float(GUESS_LENGTHS[i]) - GUESS_BIAS_PX, float(GUESS_ANGLES[j]))


def by_guess(motions: list[Motion], guess: Motion) -> list[tuple[int, Motion]]:
    """``motions`` nearest ``guess`` first, each with how far its direction is from the guess's in coarse steps: by
    direction, then by length (a stable sort)."""
    def turn(m: Motion) -> int:
        away = abs(m.angle_deg - guess.angle_deg) % 180.0
        return round(min(away, 180.0 - away) / COARSE_ANGLE_STEP)
    return sorted(((turn(m), m) for m in motions), key=lambda tm: (tm[0], abs(tm[1].length_px - guess.length_px)))


def dark_squares(small: np.ndarray, scale: float) -> list[np.ndarray]:
    """Quads (frame px) around the dark, nearly square blobs of a grey frame downscaled by ``scale``: where
    smeared markers may be. (The detector's own candidates miss many: blur rounds a marker's corners.)"""
    out = []
    for block in SQUARE_BLOCKS:
        mask = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 7)
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < SQUARE_MIN_AREA:
                continue
            rect = cv2.minAreaRect(contour)
            w, h = rect[1]
            if min(w, h) < 0.6 * max(w, h) or area < 0.6 * w * h:
                continue  # long, or far from filling its box: no square
            out.append((cv2.boxPoints(rect).astype(np.float64) + 0.5) / scale - 0.5)
    return out


class SmearSeeds:
    """Where the smeared markers of a grey frame downscaled by ``scale`` may be: ``seeds[0]`` the rejected candidates
    of the detector, ``seeds[1]``, as blur rounds a marker's corners, the dark squares a threshold finds (quads, frame
    px). The dark squares are looked for only when asked for: the rejected candidates are usually enough. ``rejected``:
    the detector's rejected candidates on ``small`` when already known (the same call on the same picture gives the
    same)."""

    def __init__(self, detector: cv2.aruco.ArucoDetector, small: np.ndarray, scale: float, rejected=None) -> None:
        if rejected is None:
            _, _, rejected = detector.detectMarkers(small)
        self._small, self._scale = small, scale
        self._seeds: list[list[np.ndarray]] = [[(np.asarray(q, np.float64).reshape(4, 2) + 0.5) / scale - 0.5
                                                for q in rejected]]

    def __getitem__(self, k: int) -> list[np.ndarray]:
        if k == 1 and len(self._seeds) == 1:
            self._seeds.append(dark_squares(self._small, self._scale))
        return self._seeds[k]


"""The motion blur of a shaken frame whose markers still decode, measured on the markers themselves.

The finder estimates a shaken camera's blur only when it needs it to find the markers (``vision.deblur``). A smaller
shake leaves the markers readable while it smears the tiles' dots and waves past reading; the cells are named
``Cause.MOTION`` and nothing deconvolves them. Yet every decoded marker is a known picture at a known place: the pose
puts its printed modules in the frame, and the blur is the straight line that, smearing that ideal picture, best
matches what the camera saw (gain and offset fitted, in linear light). Each candidate blur costs one product of
spectra per marker; a line of middling length is turned through the coarse directions to find the blur's, the coarse
lengths are tried in that direction and those either side, then a finer set around the best (57 candidates, not 99:
on 82 measurements over seeds 7, 61, 71, 73 and 79, 79 came out the same, two nearer the true blur and one poor
estimate none).

On the path-traced seed 61 (frames smeared 3 px or more, markers decoded) the estimate is mostly within 10 degrees
and 1.5 px of the true blur, and no blur is measured on its sharp frames. Re-reading the cells left unreadable from the
board deconvolved with it: seed 67 (held out) 97.70% -> 97.75% right, seed 61 98.23% -> 98.34%, none wrong; 120
shaken fast-camera frames (3-9 px) 93.72% -> 94.88%.

Asked to ``refine`` (the recogniser does, for a frame whose markers needed deconvolving), the blur found is refined with
the camera's own blur in the model (``OPTICS_SIGMAS``): a line alone takes the lens's share too, coming out long and
turned towards the board's axes.
"""

from __future__ import annotations

import functools
import math
import mmap

import cv2
import numpy as np

from thoughtwave.vision.artwork import marker_bits
from thoughtwave.vision.deblur import GAMMA, Motion, kernel_spectra, line_psf

#: Candidate blurs: a coarse grid, then a finer one around the best.
COARSE_LENGTHS = (3.0, 4.5, 6.0, 7.5, 9.0, 10.5)
COARSE_ANGLES = tuple(range(0, 180, 15))
#: ... of which the lengths are tried only in these directions (degrees) from the one where a line this long fits best.
COARSE_TURNS = (-15.0, 0.0, 15.0)
TOWARDS_LENGTH_PX = 6.0
FINE_LENGTHS = (-0.75, 0.0, 0.75)
FINE_ANGLES = (-10.0, -5.0, 0.0, 5.0, 10.0)
#: A camera's own blur (lens, sensor, demosaicing) matches a short line too: the estimate must be this long to count.
MIN_LENGTH_PX = 3.0
#: ... and fit this much better than a blur of ``MIN_LENGTH_PX`` - 1 (the share of its residual left).
BETTER_FIT = 0.8
#: How far below 0 a marker's misfit (a share of what was seen, 1 - r^2) may fall by rounding alone, where a blur fits
#: it exactly (float64 sums of a few thousand pixels: far less).
MISFIT_ROUNDING = 1e-9
#: The camera's own blur (lens, focus, sensor, demosaicing) as a round Gaussian of one of these widths (sigma, px):
#: the measured line is refined with the ideal picture blurred by each first, else the line takes the lens's share too
#: and comes out long (0.45 px at the median on the five smooth smeared sets' 184 frames) and turned towards the
#: board's axes (the direction 3.9 degrees off at the median, 14 at the 90th percentile; with the lens modelled 0.05
#: px, 1.4 and 5.1 degrees).
OPTICS_SIGMAS = (0.4, 0.7, 1.0)
#: ... the refinement: directions this far either side of the line found without it (degrees), in coarse steps, and
#: lengths this far either side (px), then two finer rounds around the best.
REFINE_ANGLES = (-20.0, -15.0, -10.0, -5.0, 0.0, 5.0, 10.0, 15.0, 20.0)
REFINE_LENGTHS = (-1.5, -0.75, 0.0, 0.75)
REFINE_FINE = ((0.375, 2.5), (0.125, 1.25))
#: Markers measured at most (the largest in the frame), and the px per module of their ideal picture.
MARKERS = 4
MODULE_PX = 8
#: The crop around a marker reaches this far beyond its quiet zone, px.
PAD_PX = 8
#: The spectra of the coarse candidates (the same 96 lines whatever the frame) are kept for this many crop sizes: a
#: camera that stays where it is sees its markers at the same few sizes, so a shaken frame after the first draws and
#: transforms only the candidates around its own blur (seed 7's soft frames: 4 ms of 13 saved; the same numbers). A size
#: keeps at most 96 spectra: 2.5 MB for the crops of 80 px a 960 x 720 frame gives its markers (56-104 px seen).
KEPT_SIZES = 4


@functools.cache
def _ideal(marker_id: int) -> np.ndarray:
    """The marker's printed picture with its one-module quiet zone, 1 paper and 0 ink, ``MODULE_PX`` a module."""
    picture = np.ones((8 * MODULE_PX, 8 * MODULE_PX), np.float32)
    ink = np.kron(marker_bits(marker_id).astype(np.float32), np.ones((MODULE_PX, MODULE_PX), np.float32))
    picture[MODULE_PX:7 * MODULE_PX, MODULE_PX:7 * MODULE_PX] = 1.0 - ink
    picture.setflags(write=False)       # shared by every call (cached)
    return picture


class _Marker:
    """One decoded marker: its ideal picture warped into a crop of the frame (its spectrum), what the camera saw
    there, and the pixels compared (inside the quiet zone, away from the crop's wrapped border)."""

    def __init__(self, image: np.ndarray, to_frame: np.ndarray, marker_id: int) -> None:
        side = 8 * MODULE_PX
        square = np.array([[[0, 0]], [[side, 0]], [[side, side]], [[0, side]]], np.float64)
        quad = cv2.perspectiveTransform(square, to_frame).reshape(-1, 2)
        x0, y0 = (np.floor(quad.min(axis=0)) - PAD_PX).astype(int)
        x1, y1 = (np.ceil(quad.max(axis=0)) + PAD_PX).astype(int)
        h, w = image.shape[:2]
        self.ok = x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h
        if not self.ok:
            return
        self.n = n = -(-max(x1 - x0, y1 - y0) // 8) * 8        # a size pocketfft handles fast
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ to_frame
        self._shift, self._id = shift, marker_id      # the ideal picture is warped only if measured (``spectrum``)
        inside = cv2.warpPerspective(np.ones((side, side), np.float32), shift, (n, n), borderValue=0.0) > 0.99
        self.mask = cv2.erode(inside.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
        # The rows the mask reaches: only those of a blurred picture are transformed back along the rows (``misfit``).
        reached = np.flatnonzero(self.mask.any(axis=1))
        self.rows = slice(int(reached[0]), int(reached[-1]) + 1) if reached.size else slice(0, 0)
        crop = image[y0:y1, x0:x1]
        seen = np.power((crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)) / 255.0, GAMMA)
        self.seen = seen[self.mask[:seen.shape[0], :seen.shape[1]]]
        self.ok = self.seen.size > 64 and float(np.var(self.seen)) > 1e-6
        if self.ok:     # what was seen, less its mean, and its mean square: the same for every blur ``misfit`` weighs
            self._centred_seen = self.seen - self.seen.mean()
            self._seen_power = float(np.mean(self._centred_seen * self._centred_seen))

    @functools.cached_property
    def spectrum(self) -> np.ndarray:
        """The real FFT of the ideal picture warped into the crop (made for the markers measured only)."""
        ideal = cv2.warpPerspective(_ideal(self._id), self._shift, (self.n, self.n), flags=cv2.INTER_AREA,
                                    borderValue=1.0)
        return np.fft.rfft2(ideal)

    def misfit(self, spectra: np.ndarray) -> np.ndarray:
        """(len(spectra),) the share of what was seen that each blur (``spectra``: their spectra at this crop's size)
        leaves unexplained of the ideal picture."""
        # ``np.fft.irfft2`` as numpy does it (along the columns, then back to real along the rows), the second step on
        # the rows the mask reaches only: the same numbers.
        half = np.fft.ifft(self.spectrum[None] * spectra, self.n, axis=-2)[:, self.rows]
        blurred = np.fft.irfft(half, self.n, axis=-1)[:, self.mask[self.rows]]
        x = blurred - blurred.mean(axis=1, keepdims=True)
        o = self._centred_seen
        cov = x @ o / o.size
        var_x = np.maximum((x * x).mean(axis=1), 1e-12)
        return 1.0 - cov ** 2 / (var_x * self._seen_power)


def marker_blur(image: np.ndarray, homography: np.ndarray, marker_mm: dict[int, np.ndarray],
                ids: tuple[int, ...], refine: bool = False) -> Motion | None:
    """The straight-line motion blur of ``image`` (BGR or grey, uint8; only the markers' crops are looked at), measured
    on the decoded markers ``ids`` (``marker_mm``: their printed corners TL, TR, BR, BL in board mm; ``homography``:
    board mm -> frame px), or None when none is measurable or the best fit is a blur no longer than a camera's own."""
    markers = []
    for marker_id in ids:
        corners = marker_mm[marker_id]
        ex, ey = (corners[1] - corners[0]) / 6, (corners[3] - corners[0]) / 6
        origin = corners[0] - ex - ey                     # the quiet zone's corner
        to_mm = np.array([[ex[0] / MODULE_PX, ey[0] / MODULE_PX, origin[0]],
                          [ex[1] / MODULE_PX, ey[1] / MODULE_PX, origin[1]], [0, 0, 1]])
        marker = _Marker(image, homography @ to_mm, marker_id)
        if marker.ok:
            markers.append(marker)
    markers = sorted(markers, key=lambda m: -m.seen.size)[:MARKERS]
    if not markers:
        return None

    def best(motions: list[Motion], sigma: float = 0.0, kept: bool = False) -> tuple[Motion, float]:
        sizes = {m.n for m in markers}                      # the crops share a size or two
        spectra = (_kept_spectra(motions, sizes) if kept else
                   _spectra([_with_optics(line_psf(m.length_px, m.angle_deg), sigma) for m in motions], sizes))
        misfit = np.sum([m.misfit(spectra[m.n]) for m in markers], axis=0)
        k = int(np.argmin(misfit))
        return motions[k], float(misfit[k])

    # A line of middling length that fits best points along the blur, whatever its length: the other lengths are tried
    # only in its direction and the coarse directions either side of it.
    towards, _ = best([Motion(TOWARDS_LENGTH_PX, float(angle)) for angle in COARSE_ANGLES], kept=True)
    coarse, _ = best([Motion(length, (towards.angle_deg + turn) % 180) for length in COARSE_LENGTHS
                      for turn in COARSE_TURNS], kept=True)
    found, misfit = best([Motion(coarse.length_px + dl, (coarse.angle_deg + da) % 180)
                          for dl in FINE_LENGTHS for da in FINE_ANGLES])
    if found.length_px < MIN_LENGTH_PX:
        return None
    if not _fits_better(markers, [Motion(MIN_LENGTH_PX - 1, float(angle)) for angle in COARSE_ANGLES], misfit):
        return None
    if not refine:
        return found
    # A shake there is: which one, with the camera's own blur in the model (``OPTICS_SIGMAS``), the line alone being
    # what is deconvolved: the line refined under the middle width, the width that fits it best, the line once more.
    sigma = OPTICS_SIGMAS[len(OPTICS_SIGMAS) // 2]
    line, _ = best([Motion(max(MIN_LENGTH_PX - 1, found.length_px + dl), (found.angle_deg + da) % 180)
                    for dl in REFINE_LENGTHS for da in REFINE_ANGLES], sigma)
    for k, (step_px, step_deg) in enumerate(REFINE_FINE):
        if k == len(REFINE_FINE) - 1:
            fits = [best([line], s)[1] for s in OPTICS_SIGMAS]
            sigma = OPTICS_SIGMAS[int(np.argmin(fits))]
        line, _ = best([Motion(max(MIN_LENGTH_PX - 1, line.length_px + dl * step_px),
                               (line.angle_deg + da * step_deg) % 180)
                        for dl in (-1, 0, 1) for da in (-1, 0, 1)], sigma)
    return line if line.length_px >= MIN_LENGTH_PX else found


def _fits_better(markers: list[_Marker], shorts: list[Motion], misfit: float) -> bool:
    """Whether a blur of summed ``misfit`` over ``markers`` fits better than any of ``shorts`` (lines a camera's own
    blur matches): ``misfit`` <= ``BETTER_FIT`` times the least of their summed misfits. Each marker's misfit is a
    share, 0 to 1 (less a rounding error, ``MISFIT_ROUNDING``, where a line fits exactly), so a line's sum over the
    markers so far can only grow with the rest: once every line's is past ``misfit`` / ``BETTER_FIT`` by more than the
    rest's rounding, the rest are not measured (the same answer; 26 of the 38 such measurements on the first 60
    frames of seed 7 and of sm83s stopped after one to three markers of four).
    """
    spectra = _kept_spectra(shorts, {m.n for m in markers})
    total = 0.0
    for k, marker in enumerate(markers):
        # Summed in the order ``np.sum`` over the markers' axis sums them (first to last): the same numbers.
        total = marker.misfit(spectra[marker.n]) if k == 0 else total + marker.misfit(spectra[marker.n])
        if misfit <= BETTER_FIT * (float(total.min()) - MISFIT_ROUNDING * (len(markers) - 1 - k)):
            return True
    return False


def _spectra(psfs: list[np.ndarray], sizes: set[int]) -> dict[int, np.ndarray]:
    """``kernel_spectra`` of ``psfs`` (drawn once for every size) at each of ``sizes`` (square crops), by size."""
    return {n: kernel_spectra(psfs, (n, n)) for n in sizes}


#: Every line the coarse stages may try (the middling line and the short one in every coarse direction, every coarse
#: length in every coarse direction turned by ``COARSE_TURNS``): the ones whose spectra are kept.
COARSE_LINES = tuple(dict.fromkeys(
    [Motion(TOWARDS_LENGTH_PX, float(angle)) for angle in COARSE_ANGLES]
    + [Motion(MIN_LENGTH_PX - 1, float(angle)) for angle in COARSE_ANGLES]
    + [Motion(length, (angle + turn) % 180) for angle in COARSE_ANGLES for length in COARSE_LENGTHS
       for turn in COARSE_TURNS]))
_COARSE_ROW = {line: k for k, line in enumerate(COARSE_LINES)}


@functools.lru_cache(maxsize=KEPT_SIZES)
def _kept_at(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The coarse lines' spectra at crop size ``n`` (rows of ``COARSE_LINES``), and which are made (filled by
    ``_kept_spectra``). In memory of their own (an anonymous map), not numpy's heap: arrays kept there from one frame to
    the next left the allocator handing the reader's large passing arrays fresh pages every frame (1,300 page faults a
    frame on seed 7, a millisecond of system time, on frames that measure no blur at all)."""
    shape = (len(COARSE_LINES), n, n // 2 + 1)
    block = mmap.mmap(-1, int(np.prod(shape)) * np.dtype(np.complex64).itemsize)
    return np.frombuffer(block, np.complex64).reshape(shape), np.zeros(len(COARSE_LINES), bool)


def _kept_spectra(motions: list[Motion], sizes: set[int]) -> dict[int, np.ndarray]:
    """``_spectra`` of ``motions`` (of ``COARSE_LINES``; no optics) at ``sizes``, those made before taken as kept
    (``KEPT_SIZES``): each line's spectrum is its own, whatever others are transformed with it (``kernel_spectra``)."""
    rows = np.array([_COARSE_ROW[m] for m in motions])
    out = {}
    for n in sizes:
        kept, made = _kept_at(n)
        missing = np.unique(rows[~made[rows]])
        if missing.size:
            kept[missing] = kernel_spectra([line_psf(COARSE_LINES[k].length_px, COARSE_LINES[k].angle_deg)
                                            for k in missing], (n, n))
            made[missing] = True
        out[n] = kept[rows]
    return out


def _with_optics(psf: np.ndarray, sigma: float) -> np.ndarray:
    """``psf`` (odd, square) further blurred by a round Gaussian of ``sigma`` px (none for 0), widened to hold it."""
    if sigma <= 0:
        return psf
    grow = int(math.ceil(2.5 * sigma))
    wide = cv2.copyMakeBorder(psf, grow, grow, grow, grow, cv2.BORDER_CONSTANT, value=0.0)
    return cv2.GaussianBlur(wide, (wide.shape[0], wide.shape[0]), sigma, borderType=cv2.BORDER_CONSTANT)

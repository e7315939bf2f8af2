"""The recogniser: one camera frame in, a ``BoardReading`` out (finder -> warp -> tile reader).

>>> recognizer = Recognizer()                        # doctest: +SKIP
>>> reading = recognizer.read(frame)                 # doctest: +SKIP
>>> reading.get(Cell.parse("E5")).label()            # doctest: +SKIP
'red ew'

The recogniser keeps the board's last good pose between frames: when a hand hides the markers the
pose is reused (``pose_reused``), and when the board is found somewhere else ``pose_moved`` is set for
that frame. A frame that is not an image, or shows no board, reads as ``board_found=False``.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from thoughtwave.engine.cells import CELLS
from thoughtwave.vision.artwork import BoardLayout
from thoughtwave.vision.causes import SOFT_BLUR_WIDTH, Cause, LostBoard, cell_sizes, lost_cause, sharpness
from thoughtwave.vision.channels import median_colour
from thoughtwave.vision.deblur import Motion
from thoughtwave.vision.finder import SMEAR_PAUSE_FRAMES, BoardFinder, BoardPose, FinderResult
from thoughtwave.vision.markerblur import marker_blur
from thoughtwave.vision.reading import BoardReading
from thoughtwave.vision.repose import Reposer
from thoughtwave.vision.smeared import (
    board_box,
    cell_boxes,
    deblurred_frame,
    paper_unsure_smeared,
    restore_unsure,
    smeared_cells,
    take_sharper,
    traceless_smeared,
    uncovered_unreadable,
    unsure_tiles_smeared,
)
from thoughtwave.vision.tiles import POSE_DOUBT_TILE, ColourModel, TileReader, TileReadout

#: Largest profile file read (a real one is a few kilobytes).
_MAX_PROFILE_BYTES = 256 * 1024
#: A frame read whole refreshes the sharpness reference at most once in this many frames.
SHARPNESS_EVERY = 25


def reader_profile(profile: Any) -> dict:
    """The reader's view of a calibration profile given as None, a dict, an object with
    ``reader_profile()``, or the path of a profile JSON file (OSError/ValueError when unusable)."""
    if profile is None:
        return {}
    if hasattr(profile, "reader_profile"):
        profile = profile.reader_profile()
    if isinstance(profile, str | Path):
        path = Path(profile)
        if path.stat().st_size > _MAX_PROFILE_BYTES:
            raise ValueError(f"{path} is too large to be a calibration profile")
        try:
            profile = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"{path} is not a calibration profile ({err})") from None
    if not isinstance(profile, dict):
        raise ValueError("a calibration profile must be a JSON object")
    return profile


def lens_of(profile: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """``(camera_matrix, dist_coeffs)`` from ``profile["lens"]``, or None when absent or malformed."""
    lens = profile.get("lens")
    if not isinstance(lens, dict):
        return None
    try:
        k = np.asarray(lens["camera_matrix"], np.float64)
        dist = np.asarray(lens["dist_coeffs"], np.float64).ravel()
    except (KeyError, TypeError, ValueError):
        return None
    if k.shape != (3, 3) or not 4 <= dist.size <= 14 or not (np.all(np.isfinite(k)) and np.all(np.isfinite(dist))):
        return None
    return k, dist


#: Where the paper around a marker is sampled: half a module (a sixth of its side) outside each of its sides.
_QUIET_RING = np.concatenate([
    np.column_stack([np.linspace(0.0, 1.0, 16), np.full(16, v)]) for v in (-1 / 12, 13 / 12)] + [
    np.column_stack([np.full(16, u), np.linspace(0.0, 1.0, 16)]) for u in (-1 / 12, 13 / 12)]).astype(np.float32)


def marker_papers(frame: np.ndarray, corners: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The paper white around each marker decoded in ``frame`` (their corners in frame px, as the finder gives them):
    the median colour (BGR) of its quiet zone, by marker id (a marker half out of the frame left out). The quiet zone
    is the board's printed paper by construction, so this is paper however much of the board is hidden."""
    papers = {}
    h, w = frame.shape[:2]
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    for marker_id, quad in corners.items():
        to_frame = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32).reshape(4, 2))
        at = np.rint(cv2.perspectiveTransform(_QUIET_RING[None], to_frame)[0]).astype(int)
        inside = (at[:, 0] >= 0) & (at[:, 0] < w) & (at[:, 1] >= 0) & (at[:, 1] < h)
        if inside.sum() >= len(at) // 2:
            papers[marker_id] = median_colour(frame[at[inside, 1], at[inside, 0]])
    return papers


def brightest_paper(papers: dict[int, np.ndarray]) -> np.ndarray | None:
    """The most brightly lit of ``papers`` (BGR by marker id), None if none."""
    return max(papers.values(), key=lambda white: float(white.mean())) if papers else None


@functools.cache
def _blas() -> ThreadpoolController:
    """numpy's BLAS, held to one thread while a frame is read: its products here are small (the second opinion's, the
    blur guess's, the pose fits'), and a second thread that finds the other core free spins after each for far more
    CPU than the product took (seed 7's smeared frames: 0.71 s of CPU for frame 47 against 0.48 s on one thread).
    The limit holds for the whole process while a read runs; two readers in two threads at once may leave it at one
    thread after both (harmless: nothing else here leans on BLAS)."""
    return ThreadpoolController()


@dataclass(frozen=True)
class _Seen:
    """What the last frame gave, kept together so the overlay never mixes two frames."""

    found: FinderResult
    readout: TileReadout | None


def as_bgr(image: Any) -> np.ndarray | None:
    """A frame as a BGR uint8 array, or None when it is no usable picture (too small, wrong shape)."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or min(image.shape[:2]) < 32:
        return None
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        elif np.issubdtype(image.dtype, np.floating) and np.all(np.isfinite(image)):
            image = np.clip(image * (255.0 if image.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
        else:
            return None
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] == 1:
        return cv2.cvtColor(image[..., 0], cv2.COLOR_GRAY2BGR)
    return image if image.shape[2] == 3 else None


class Recognizer:
    """Reads the board from frames. ``profile``: a calibration profile (dict, object or path) or None."""

    def __init__(self, profile: Any = None, layout: BoardLayout | None = None) -> None:
        values = reader_profile(profile)
        self.finder = BoardFinder(layout, lens=lens_of(values))
        size = (values.get("lens") or {}).get("image_size") if isinstance(values.get("lens"), dict) else None
        #: The frame size the lens model was made at; frames of another size are read without it.
        self.lens_size: tuple[int, int] | None = tuple(size) if self.finder.lens is not None and size else None
        #: Set when the lens model was dropped, saying why (for the display and the logs).
        self.lens_warning: str | None = None
        self.reader = TileReader(self.finder.geometry, ColourModel.from_profile(values), self.finder.layout.tile)
        self.pose_moved = False
        self.pose_reused = False
        self._seen: _Seen | None = None
        self._paper: np.ndarray | None = None
        #: Edge width of the last sharp frame measured (grid px): a later frame much blurrier than it
        #: says "the camera moved" or "out of focus" for its unreadable cells.
        self.sharp_reference: float | None = None
        self._frames_since_sharpness = 0     # the first reference after a few frames, not on the first
        self._lock = threading.Lock()
        self._doubt: tuple[BoardPose, np.ndarray] | None = None   # the last pose's doubt per cell
        self._reposer: Reposer | None = None     # made the first time a smeared frame needs a surer pose
        self._blur_pause = 0        # frames left before the markers are measured for blur again (none found last)
        self._papers: tuple[np.ndarray, dict, dict] | None = None    # the frame's markers' paper (``_marker_paper``)
        self._corners: tuple[BoardLayout, np.ndarray] | None = None   # the cells' corners in mm (``_cell_corners_mm``)

    @property
    def pose(self) -> BoardPose | None:
        """The board's last good pose (board mm -> frame px), or None before the board was found."""
        return self.finder.last_pose

    def read(self, image: np.ndarray) -> BoardReading:
        """The board in one frame. Never raises for a bad frame: it reads as ``board_found=False``."""
        start = time.perf_counter()
        frame = as_bgr(image)
        if frame is None:
            self.pose_moved = self.pose_reused = False
            return BoardReading(False, ms=(time.perf_counter() - start) * 1e3)
        with self._lock, _blas().limit(limits=1, user_api="blas"):
            if self.lens_size is not None and (frame.shape[1], frame.shape[0]) != self.lens_size:
                self._drop_lens(frame.shape[1], frame.shape[0])
            found = self.finder.find(frame)
            self.pose_moved, self.pose_reused = found.moved, found.reused
            readout = None
            if found.pose is not None:
                grid = self.finder.warp(frame, found.pose)
                cell_px, doubt = self._cell_px(found.pose), self._cell_doubt(found.pose)
                readout = self.reader.read(grid, cell_px, self.sharp_reference, moved=found.motion is not None,
                                           doubt=doubt, **self._marker_paper(frame, found.marker_corners))
                self._keep_sharpness(grid, readout)
                in_doubt = self._misplaced_by_motion(found.pose, readout, doubt, frame.shape)
                # The finder's blur is the one of a search (7.5-degree steps at the finest) under which most markers
                # decoded; the one measured on the decoded markers (a known picture at a known place, the lens's own
                # blur modelled) is nearer the truth (the 63 such frames of the smooth smeared sets: 1.0 degree and
                # 0.12 px off at the median, against 5.1 and 0.36): the reposer tries it first, and the smeared cells
                # are read again with it first.
                measured = None
                if in_doubt:
                    if found.motion is not None:
                        measured = (found.pose, self._measured_blur(frame, found))
                    again = self._repose(frame, found, first=None if measured is None else measured[1])
                    if again is not None:
                        found, readout, cell_px, doubt = again
                if found.motion is None:
                    again = self._read_marker_deblurred(frame, found, readout, grid, cell_px, doubt, in_doubt)
                    if again is not None:
                        found, readout, cell_px, doubt = again
                if found.motion is not None:
                    unsure = unsure_tiles_smeared(readout)
                    # The blur measured on the markers the pose rests on first; the cells it leaves, with the finder's
                    # (or the reposer's): each is an estimate, and a cell the one leaves the other may read.
                    if smeared_cells(readout):
                        blur = (measured[1] if measured is not None and measured[0] is found.pose
                                else self._measured_blur(frame, found))
                        if blur is not None:
                            self._read_deblurred(frame, replace(found, motion=blur), readout, cell_px, doubt)
                    self._read_deblurred(frame, found, readout, cell_px, doubt)
                    restore_unsure(readout, unsure)
                    paper_unsure_smeared(readout)
                if not found.reused:
                    self._paper = readout.paper_white
                elif not self._same_paper(readout.paper_white):
                    # No markers and no paper where the board was: it is gone or covered, and an
                    # empty-looking cloth must not read as an empty board.
                    readout = None
            self._seen = _Seen(found, readout)
            self._papers = None
            # No board: why, as far as the whole picture shows it (a lamp in view, too dark, a smear...).
            lost = None if readout is not None else LostBoard(
                lost_cause(frame, len(found.markers_seen), self.finder.undecoded), len(found.markers_seen),
                len(self.finder.layout.markers))
        ms = (time.perf_counter() - start) * 1e3
        if readout is None:
            return BoardReading(False, ms=ms, lost=lost)
        return readout.board_reading(ms)

    def _misplaced_by_motion(self, pose: BoardPose, readout: TileReadout, doubt: np.ndarray,
                             shape: tuple[int, ...]) -> bool:
        """Whether cells are unreadable for blur on a pose a smeared frame left too few markers for: one that may
        misplace them (``doubt``), or one on fewer than half the markers in view (``Reposer.few``)."""
        if len(pose.marker_ids) >= len(self.finder.layout.markers):
            return False
        few = self._reposer_for().few(pose, shape)
        # A blur measured as even in every direction may still be a shake's (a short one, or along a diagonal).
        return any(readout.causes.get(CELLS[i]) in (Cause.MOTION, Cause.FOCUS) and (few or doubt[i] > POSE_DOUBT_TILE)
                   for i in range(len(CELLS)))

    def _read_marker_deblurred(self, frame: np.ndarray, found: FinderResult, readout: TileReadout, grid: np.ndarray,
                               cell_px: np.ndarray, doubt: np.ndarray, in_doubt: bool = False
                               ) -> tuple[FinderResult, TileReadout, np.ndarray, np.ndarray] | None:
        """The markers decoded, yet cells are left unreadable in a picture at least a little soft (``SOFT_BLUR_WIDTH``;
        its sharpness measured on ``grid`` when the reader did not need it): the blur measured on the markers
        themselves (``vision.markerblur``), and every such cell read again from the board deconvolved with it (named
        for the blur or not: a smear also looks like shade or glare). A soft camera whose markers show no shake is not
        measured again for the next ``SMEAR_PAUSE_FRAMES`` frames. Where the pose is ``in_doubt`` and that blur finds
        more markers, the frame read on the surer pose (as ``_repose``) is returned for the caller to finish; else None.
        """
        if self._blur_pause > 0:
            self._blur_pause -= 1
            return None
        cells = uncovered_unreadable(readout)
        if not cells:
            return None
        width = readout.sharpness if readout.sharpness is not None else sharpness(grid).width
        if width <= SOFT_BLUR_WIDTH * self.finder.geometry.px_per_cell:
            return None
        motion = marker_blur(frame, found.pose.homography, self.finder.marker_mm, found.pose.marker_ids)
        if motion is None:
            self._blur_pause = SMEAR_PAUSE_FRAMES
            return None
        if in_doubt:
            # The pose is in doubt (``_misplaced_by_motion``) and the search around the missing markers found no
            # blur: the one measured on the decoded markers may bring them back (seed 89 frame 17: two markers, 60
            # cells in doubt).
            again = self._repose(frame, found, [motion])
            if again is not None:
                return again            # read again on the surer pose; its smeared cells follow as the finder's
        traceless_smeared(readout)
        self._read_deblurred(frame, replace(found, motion=motion), readout, cell_px, doubt, cells)
        paper_unsure_smeared(readout)
        return None

    def _measured_blur(self, frame: np.ndarray, found: FinderResult) -> Motion | None:
        """The motion blur measured on the markers ``found``'s pose rests on (``vision.markerblur``), or None."""
        return marker_blur(frame, found.pose.homography, self.finder.marker_mm, found.pose.marker_ids, True)

    def _reposer_for(self) -> Reposer:
        if self._reposer is None or self._reposer.finder is not self.finder:
            self._reposer = Reposer(self.finder)
        return self._reposer

    def _repose(self, frame: np.ndarray, found: FinderResult, motions: list[Motion] | None = None,
                first: Motion | None = None) -> tuple[FinderResult, TileReadout, np.ndarray, np.ndarray] | None:
        """The frame read again on a pose from more markers, found with its motion blur deconvolved
        (``vision.repose``; with ``motions``, those blurs only; ``first``, a blur measured on the markers, tried before
        the search's): the finder's result, the readout, cell sizes and pose doubt; None when none is found."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        reposer = self._reposer_for()
        better = (reposer.repose(grey, found.pose, found.marker_corners, first=first) if motions is None
                  else reposer.with_blurs(grey, found.pose, found.marker_corners, motions))
        if better is None:
            return None
        pose, motion, markers = better
        found = replace(found, pose=pose, motion=motion, marker_corners=markers, markers_seen=tuple(sorted(markers)))
        cell_px, doubt = self._cell_px(pose), self._cell_doubt(pose)
        readout = self.reader.read(self.finder.warp(frame, pose), cell_px, self.sharp_reference, moved=True,
                                   doubt=doubt, **self._marker_paper(frame, markers))
        return found, readout, cell_px, doubt

    def _read_deblurred(self, frame: np.ndarray, found: FinderResult, readout: TileReadout, cell_px: np.ndarray,
                        doubt: np.ndarray, cells: list[int] | None = None) -> None:
        """Cells the finder's motion blur smeared past reading (or ``cells``), read again from the board with that
        blur deconvolved (``vision.smeared``): only a frame whose markers needed deconvolving, or whose smeared tiles
        left cells unreadable, pays for it."""
        cells = smeared_cells(readout) if cells is None else cells
        if not cells:
            return
        size = self.finder.geometry.size
        edge = np.linspace(0.0, size, 5)
        rim = np.concatenate([np.column_stack([edge, np.zeros(5)]), np.column_stack([edge, np.full(5, size)]),
                              np.column_stack([np.zeros(5), edge]), np.column_stack([np.full(5, size), edge])])
        to_mm = self.finder.grid_to_mm()
        box = board_box(self.finder.to_frame(found.pose, rim @ to_mm[:2, :2].T + to_mm[:2, 2]), found.motion,
                        frame.shape)
        parts = cell_boxes(self.finder.to_frame(found.pose, self._cell_corners_mm()).reshape(11, 11, 2), cells,
                           found.motion, frame.shape)
        sharper = self.finder.warp(deblurred_frame(frame, found.motion, box, parts), found.pose)
        # Deconvolved with an estimate, the picture keeps some of the blur: read as blurred (``moved``).
        wanted = np.zeros(len(CELLS), bool)
        wanted[cells] = True
        take_sharper(readout, self.reader.read(sharper, cell_px, doubt=doubt, moved=True, wanted=wanted,
                                               **self._marker_paper(frame, found.marker_corners)), cells)

    def _marker_paper(self, frame: np.ndarray, corners: dict[int, np.ndarray]) -> dict[str, object]:
        """The board's paper as the markers decoded in ``frame`` show it, for ``TileReader.read``: the brightest
        marker's (``brightest_paper``), and each one's with its centre in the grid image (``paper_hues``)."""
        # A soft or smeared frame is read again (deconvolved) with the same markers: their paper is measured once.
        if self._papers is not None and self._papers[0] is frame and self._papers[1] is corners:
            return self._papers[2]
        papers = marker_papers(frame, corners)
        if not papers:
            paper = {"marker_paper": None, "paper_hues": None}
        else:
            to_grid = np.linalg.inv(self.finder.grid_to_mm())
            centres = np.array([self.finder.marker_mm[i].mean(axis=0) for i in papers])
            paper = {"marker_paper": brightest_paper(papers),
                     "paper_hues": (centres @ to_grid[:2, :2].T + to_grid[:2, 2], np.array(list(papers.values())))}
        self._papers = (frame, corners, paper)
        return paper

    def _cell_doubt(self, pose: BoardPose) -> np.ndarray:
        """(100,) how far the pose may misplace each cell, in cells (worked out once a pose: a steady board keeps
        its pose from frame to frame)."""
        if self._doubt is None or self._doubt[0] is not pose:
            self._doubt = (pose, self.finder.cell_doubt(pose))
        return self._doubt[1]

    def _cell_px(self, pose: BoardPose) -> np.ndarray:
        """(100,) each cell's width in the frame, by ``Cell.index``."""
        return cell_sizes(self.finder.to_frame(pose, self._cell_corners_mm()))

    def _cell_corners_mm(self) -> np.ndarray:
        """(121, 2) the board's cell corners in mm, row by row (made once a layout: every frame asks)."""
        layout = self.finder.layout
        if self._corners is None or self._corners[0] is not layout:
            x0, y0 = layout.grid_origin_mm
            steps = np.arange(11) * layout.cell_mm
            corners = np.array([[x0 + sx, y0 + sy] for sy in steps for sx in steps])
            corners.flags.writeable = False
            self._corners = (layout, corners)
        return self._corners[1]

    def _keep_sharpness(self, grid: np.ndarray, readout: TileReadout) -> None:
        """Keep the edge width of a frame read whole as the reference, now and then (it costs a few ms)."""
        self._frames_since_sharpness += 1
        if readout.why or self._frames_since_sharpness < SHARPNESS_EVERY:
            return
        self._frames_since_sharpness = 0
        self.sharp_reference = sharpness(grid).width

    def _drop_lens(self, width: int, height: int) -> None:
        """A lens model made at another resolution would bend the picture wrongly: read without it."""
        w, h = self.lens_size
        self.lens_warning = (f"the lens model was made at {w}x{h} but the camera gives {width}x{height}: "
                             "reading without it; calibrate again at this resolution")
        self.finder = BoardFinder(self.finder.layout, self.finder.geometry)
        self.lens_size = None

    def _same_paper(self, white: np.ndarray | None) -> bool:
        """Whether the paper under a reused pose looks like the paper last seen with the markers."""
        if white is None or self._paper is None:
            return False
        ratio = (white + 1.0) / (self._paper + 1.0)
        return bool(0.6 < ratio.mean() < 1.6 and ratio.max() < 1.15 * ratio.min())

    def draw_overlay(self, image: np.ndarray) -> np.ndarray:
        """A copy of ``image`` with what the last read saw: the grid (green; amber when the pose was
        reused), the markers found, a dot on each tile in its colour and a cross on unreadable cells."""
        frame = as_bgr(image)
        if frame is None:
            return image.copy() if isinstance(image, np.ndarray) else np.zeros((32, 32, 3), np.uint8)
        out = frame.copy()
        seen = self._seen
        if seen is None:
            return out
        for quad in seen.found.marker_corners.values():
            cv2.polylines(out, [np.rint(quad).astype(np.int32).reshape(-1, 1, 2)], True, (255, 160, 0), 2)
        pose = seen.found.pose
        if pose is None:
            return out
        colour = (0, 190, 255) if seen.found.reused else (0, 200, 0)
        layout, finder = self.finder.layout, self.finder
        x0, y0 = layout.grid_origin_mm
        side = 10 * layout.cell_mm
        steps = np.linspace(0.0, side, 41)
        lines = []
        for k in range(11):
            at = k * layout.cell_mm
            lines.append(np.column_stack([np.full_like(steps, x0 + at), y0 + steps]))
            lines.append(np.column_stack([x0 + steps, np.full_like(steps, y0 + at)]))
        points = finder.to_frame(pose, np.concatenate(lines)).reshape(len(lines), -1, 2)
        cv2.polylines(out, [np.rint(line).astype(np.int32).reshape(-1, 1, 2) for line in points], False, colour, 1,
                      cv2.LINE_AA)
        readout = seen.readout
        if readout is None:
            return out
        # Cell marks at the tile centres the reader found (grid-image px -> board mm -> frame px).
        grid_to_mm = finder.grid_to_mm()
        centres = readout.centre.reshape(-1, 2).astype(np.float64)
        centres_mm = centres @ grid_to_mm[:2, :2].T + grid_to_mm[:2, 2]
        at = np.rint(finder.to_frame(pose, centres_mm)).astype(int)
        radius = max(2, int(round(finder.cell_px(pose) * 0.12)))
        states, red = readout.state.ravel(), readout.red.ravel()
        for i in range(100):
            x, y = int(at[i, 0]), int(at[i, 1])
            if states[i] == 1:
                fill = (40, 30, 220) if red[i] else (40, 40, 40)
                cv2.circle(out, (x, y), radius, (255, 255, 255), -1, cv2.LINE_AA)
                cv2.circle(out, (x, y), radius - 1, fill, -1, cv2.LINE_AA)
            elif states[i] == 2:
                cv2.drawMarker(out, (x, y), (0, 0, 255), cv2.MARKER_TILTED_CROSS, 2 * radius, 2)
        return out

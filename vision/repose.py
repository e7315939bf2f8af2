"""A surer pose for a smeared frame whose blur left only a few markers decoded.

A shaken camera can smear the smaller or farther markers past decoding while two or three still decode: the
board is found, but a pose from so few markers may misplace the far cells. The reader leaves the cells it may
misplace unreadable ("too few of its markers were seen sharply", named ``Cause.MOTION``), yet the fit's residual
can hide the error: the smear drags the corners of the markers it leaves readable all one way (``few``). The
finder searches for the motion blur only when no pose is found at all; here, for such a frame (cells unreadable
for blur, and a doubtful pose or one on fewer than half the markers in view), the blur is estimated around where
the pose puts the missing markers (the finder's ``MotionEstimator``: the blur under which most of them decode),
the frame deconvolved with it (gently, then harder while no sure pose is found: ``NSRS``) and its markers detected
again (the blur measured on the decoded markers, ``vision.markerblur``, is tried first, the search's when it brings
none back or leaves the pose in doubt; or, from the recogniser, that blur alone). Of the new poses, one is taken only
when it rests on more markers and puts the markers first seen where the first pose put them (within a fifth of a
cell and half the blur's length: a blur drags a corner): it refines that pose, never contradicts it; the first sure
enough for tiles is taken, else the least in doubt.

Only a frame with cells unreadable for blur and markers missing pays for it (0.1-0.3 s here, and 0.1-0.3 s more
where no sure pose comes back gently and the blur is restored harder), and a search that found nothing is not
tried again for the next few frames (``SMEAR_PAUSE_FRAMES``, as the finder's own search): a marker hidden for good
under a cup must not slow every blurred frame down.
"""

from __future__ import annotations

import numpy as np

from thoughtwave.vision.deblur import SMALL_NSR, WIENER_NSR, Motion, deblurred
from thoughtwave.vision.finder import SMEAR_PAUSE_FRAMES, BoardFinder, BoardPose
from thoughtwave.vision.tiles import POSE_DOUBT_TILE

#: The new pose may move a marker first seen by this share of a cell (and half the blur's length) at most.
AGREE_CELLS = 0.2
#: Each blur deconvolves the frame with these noise-to-signal ratios in turn, the gentle one first (the finder's two,
#: then a harder one still): markers of 20-27 px smeared 7-9 px, two to three modules, decode only when restored hard
#: (seed 211 frame 53, two markers gently, four at 0.001; seed 149 frame 7, three and four). A harder inverse lifts
#: more noise, so it is asked only while no pose sure enough for tiles (``POSE_DOUBT_TILE``) has been found.
NSRS = (WIENER_NSR, SMALL_NSR, 0.001)


class Reposer:
    """Finds a pose on more markers for a smeared frame (see the module's docstring) for ``finder``."""

    def __init__(self, finder: BoardFinder) -> None:
        self.finder = finder
        self._pause = 0          # frames left before a search that found nothing may run again

    def missing(self, pose: BoardPose, shape: tuple[int, ...]) -> list[np.ndarray]:
        """The frame quads (4, 2) where ``pose`` puts the board's markers it was not fitted to (inside the frame)."""
        h, w = shape[:2]
        quads = []
        for marker_id, corners in self.finder.marker_mm.items():
            if marker_id in pose.marker_ids:
                continue
            quad = self.finder.to_frame(pose, corners)
            if quad.min() >= 0 and np.all(quad[:, 0] < w) and np.all(quad[:, 1] < h):
                quads.append(quad)
        return quads

    def few(self, pose: BoardPose, shape: tuple[int, ...]) -> bool:
        """Whether ``pose`` rests on fewer than half the markers it puts inside the frame: a smear drags the corners
        of those it leaves readable all one way, and a pose fitted to them can be a cell off on the far side with no
        residual to show it (seed 73 frame 115: two markers, 0.4 px of residual, the far corner 1.3 cells off)."""
        return len(pose.marker_ids) < len(self.missing(pose, shape))

    def repose(self, grey: np.ndarray, pose: BoardPose, seen: dict[int, np.ndarray],
               first: Motion | None = None) -> tuple[BoardPose, Motion, dict[int, np.ndarray]] | None:
        """A pose on more markers than ``pose``, the blur deconvolved to find them and all markers it rests on;
        None when no blur brings back a marker that agrees (``grey`` the frame, ``seen`` its markers as found).
        ``first``: a blur tried before those the search around the missing markers finds (the one measured on the
        decoded markers: the search is made only if it brings none back)."""
        if self._pause > 0:
            self._pause -= 1
            return None
        quads = self.missing(pose, grey.shape)
        if not quads:
            return None
        self._pause = SMEAR_PAUSE_FRAMES          # unless a pose is found below
        found, doubt = (None, np.inf) if first is None else self._tries(grey, pose, seen, [first])
        if doubt > POSE_DOUBT_TILE:
            # Still in doubt after the measured blur: the search's blurs may find a surer pose (seed 149 frame 10:
            # the measured blur, restored hard, four markers along two sides, a cell misplaced by up to 0.74; the
            # search's first blur, four spread, 0.13).
            # (The search's first blur restored harder as well; the rest, gently only: each try costs 60-90 ms.)
            searched, least = self._tries(grey, pose, seen, self.finder.motion.ranked(grey, quads), hard=1)
            if least < doubt:
                found = searched
        if found is not None:
            self._pause = 0
        return found

    def with_blurs(self, grey: np.ndarray, pose: BoardPose, seen: dict[int, np.ndarray], motions: list[Motion],
                   hard: int | None = None) -> tuple[BoardPose, Motion, dict[int, np.ndarray]] | None:
        """``repose`` with the given blurs, whatever the pause: of the poses on more markers that agree with ``pose``,
        each blur deconvolved with each of ``NSRS`` in turn (the first ``hard`` blurs; the rest gently only, all
        of them by default), the first sure enough for tiles (``POSE_DOUBT_TILE``), else the least in doubt; None
        when none brings back a marker that agrees. The recogniser gives the blur measured on the decoded markers
        (``vision.markerblur``) when the search found none."""
        return self._tries(grey, pose, seen, motions, hard)[0]

    def _tries(self, grey: np.ndarray, pose: BoardPose, seen: dict[int, np.ndarray], motions: list[Motion],
               hard: int | None = None) -> tuple[tuple[BoardPose, Motion, dict[int, np.ndarray]] | None, float]:
        """``with_blurs``, and how far its pose may misplace its worst cell (``inf`` for none)."""
        best, least = None, np.inf
        for k, motion in enumerate(motions):
            for nsr in NSRS if hard is None or k < hard else NSRS[:1]:
                markers = dict(seen)
                sharper = deblurred(grey, motion, nsr)
                for marker_id, quad in self.finder.detect_markers(sharper, deconvolved=True).items():
                    markers.setdefault(marker_id, quad)
                if len(markers) <= len(pose.marker_ids):
                    continue
                better = self.finder.fit_pose(markers)
                if (better is None or len(better.marker_ids) <= len(pose.marker_ids)
                        or not self.agrees(pose, better, motion)):
                    continue
                doubt = self._doubt(better)
                if doubt < least:
                    best, least = (better, motion, markers), doubt
                if least <= POSE_DOUBT_TILE:
                    return best, least
        return best, least

    def _doubt(self, pose: BoardPose) -> float:
        """How far ``pose`` may misplace its worst cell, in cells (``BoardFinder.cell_doubt``)."""
        return float(self.finder.cell_doubt(pose).max())

    def agrees(self, first: BoardPose, better: BoardPose, motion: Motion) -> bool:
        """Whether ``better`` puts the markers ``first`` rests on where ``first`` puts them."""
        tolerance = AGREE_CELLS * self.finder.cell_px(first) + motion.length_px / 2
        for marker_id in first.marker_ids:
            corners = self.finder.marker_mm[marker_id]
            shift = np.linalg.norm(first.project(corners) - better.project(corners), axis=1)
            if shift.max() > tolerance:
                return False
        return True

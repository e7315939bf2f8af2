"""Rendering a scene: the camera frame, bit for bit the same for the same scene, and its ground truth."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.engine.sides import Sides
from thoughtwave.synth.camera import Projector, blurred, noise_sigma, noisy, project_points, texture_maps
from thoughtwave.synth.hands import composite_hand, hand_mask
from thoughtwave.synth.light import lit
from thoughtwave.synth.physical import depth_of_field, draw_relief, hand_shadow_px, physical_light, tile_relief
from thoughtwave.synth.recent import Recent
from thoughtwave.synth.scene import Scene, TileLay
from thoughtwave.synth.surface import desk_texture, printed
from thoughtwave.vision.artwork import TILE, BoardLayout, TileGeometry, board_image, tile_image

#: A cell counts as occluded when the hand covers this share of its central area (the middle 60%).
OCCLUDED_SHARE = 0.2


@dataclass(frozen=True, eq=False)
class GroundTruth:
    """What a frame shows, exactly: the board's pose, the tiles, the hand's cover and visible markers."""

    board_to_image: np.ndarray      # 3x3 homography, board mm -> undistorted frame px
    camera_matrix: np.ndarray       # K
    distortion: np.ndarray          # OpenCV (k1, k2, p1, p2, k3)
    resolution: tuple[int, int]
    tiles: dict[Cell, tuple[Colour, Piece]]
    occluded_cells: frozenset[Cell]
    occlusion: dict[Cell, float]    # share of each touched cell's central area the hand covers
    markers_visible: frozenset[int]
    hand_mask: np.ndarray | None = field(default=None, repr=False)   # float32 0..1 per pixel, or None

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 2) board mm -> (N, 2) frame pixel coordinates, lens distortion included (NaN behind the camera)."""
        return project_points(self.board_to_image, self.camera_matrix, self.distortion[0], self.distortion[1],
                              points_mm)

    def board_state(self) -> dict[str, str]:
        """``{"E5": "red ew"}`` for every tile on the board."""
        return {str(c): f"{colour.value} {piece}" for c, (colour, piece) in sorted(self.tiles.items())}

    def to_json(self) -> dict:
        """Plain values for a dataset's per-frame JSON."""
        return {
            "resolution": list(self.resolution),
            "board": self.board_state(),
            "board_to_image": self.board_to_image.tolist(),
            "camera_matrix": self.camera_matrix.tolist(),
            "distortion": self.distortion.tolist(),
            "occluded_cells": sorted(str(c) for c in self.occluded_cells),
            "occlusion": {str(c): round(v, 3) for c, v in sorted(self.occlusion.items())},
            "markers_visible": sorted(self.markers_visible),
        }


def render(scene: Scene) -> tuple[np.ndarray, GroundTruth]:
    """The camera frame of ``scene`` (BGR uint8 at the camera's resolution) and its ground truth."""
    # A still camera over a still board differs from frame to frame only by sensor noise: keep the last
    # noiseless picture and its noise level, so such frames cost just the noise and the JPEG round trip.
    still = replace(scene, noise_seed=0)
    with _LAST_LOCK:
        last = _LAST_CLEAN[0]
    if last is not None and last[0] == still:
        _, image, truth, sigma = last
    else:
        image, truth = _noiseless(scene)
        sigma = noise_sigma(image, scene.sensor)
        for array in (image, sigma):
            if array is not None:
                array.setflags(write=False)
        with _LAST_LOCK:
            _LAST_CLEAN[0] = (still, image, truth, sigma)
    if sigma is not None:
        image = noisy(image, sigma, scene.noise_seed)
    frame = np.clip(image + 0.5, 0, 255).astype(np.uint8)
    if scene.sensor.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(scene.sensor.jpeg_quality)])
        if ok:
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return frame, truth


_LAST_CLEAN: list = [None]
_LAST_LOCK = threading.Lock()


def _noiseless(scene: Scene) -> tuple[np.ndarray, GroundTruth]:
    """The frame as float32 BGR before the sensor (light and blur applied), and its ground truth."""
    camera = scene.camera
    w, h = camera.resolution
    projector = Projector(camera)
    ppm = _texture_ppm(projector, scene.layout)
    texture = _board_with_tiles(scene, ppm)
    map_xy, map_fraction = texture_maps(camera, ppm)
    board = cv2.remap(texture, map_xy, map_fraction, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    board = board.astype(np.float32)
    alpha = board[..., 3:4] * (1.0 / 255.0)
    colour = printed(board[..., :3], alpha, scene.printing, scene.seed, (w, h))
    desk = desk_texture(scene.desk, (w, h))
    image = desk * (1.0 - alpha) + colour

    mask = None
    physical = scene.physical
    if scene.hand is not None:
        hand = scene.hand
        if physical is not None and physical.lamp_shadows:
            hand = replace(hand, shadow_px=hand_shadow_px(physical, camera, hand.tip_mm))
        mask = hand_mask(hand, projector, (w, h))
        image = composite_hand(image, mask, hand)
        mask.setflags(write=False)
    image = lit(image, scene.light, (w, h))
    if physical is not None:
        image = physical_light(image, physical, camera)
    image = blurred(image, scene.optics)
    if physical is not None:
        image = depth_of_field(image, physical, camera)

    occlusion = _occlusion(scene.layout, projector, mask, (w, h))
    truth = GroundTruth(
        board_to_image=projector.homography, camera_matrix=projector.k, distortion=camera.distortion(),
        resolution=(w, h), tiles=dict(scene.tiles),
        occluded_cells=frozenset(c for c, share in occlusion.items() if share >= OCCLUDED_SHARE),
        occlusion=occlusion, markers_visible=_markers_visible(scene.layout, projector, mask, (w, h)),
        hand_mask=mask,
    )
    return image, truth


def _texture_ppm(projector: Projector, layout: BoardLayout) -> int:
    """Texture px/mm: at least 1.6 texture pixels per frame pixel where the board is nearest (3, 4, 6 or 8)."""
    size = layout.width_mm
    grid = np.array([[x, y] for x in (0, size / 2, size) for y in (0, size / 2, size)], float)
    step = np.array([[5.0, 0.0]])
    a, b = projector.project(grid), projector.project(grid + step)
    frame_ppm = float(np.nanmax(np.linalg.norm(b - a, axis=1)) / 5.0)
    # A few fixed steps, so that the cached board textures and tile images cover every camera.
    return next((ppm for ppm in _TEXTURE_PPMS if ppm >= 1.6 * frame_ppm), _TEXTURE_PPMS[-1])


_TEXTURE_PPMS = (3, 4, 6, 8)


_BOARD_CACHE = Recent(4)


def _board_texture(layout: BoardLayout, ppm: int, red_sides: Sides) -> np.ndarray:
    """The printed board as BGRA at ``ppm`` (cached: it is the same every frame)."""

    def make() -> np.ndarray:
        bgr = board_image(layout, ppm, red_sides)
        bgra = np.dstack([bgr, np.full(bgr.shape[:2], 255, np.uint8)])
        bgra.setflags(write=False)
        return bgra

    return _BOARD_CACHE.get((layout, ppm, red_sides), make)


@lru_cache(maxsize=2 * 15 * len(_TEXTURE_PPMS))
def _tile(colour: Colour, piece: Piece, size_px: int, tile: TileGeometry = TILE) -> np.ndarray:
    image = tile_image(colour, piece, size_px, tile)
    image.setflags(write=False)
    return image


def _board_with_tiles(scene: Scene, ppm: int) -> np.ndarray:
    """The board texture with every tile laid on it, each with a thin soft shadow (tiles are card)."""
    texture = _board_texture(scene.layout, ppm, scene.red_sides)
    if not scene.tiles:
        return texture
    texture = texture.copy()
    layout = scene.layout
    tile_px = max(4, int(round(layout.tile_mm * ppm)))
    half = tile_px / 2
    relief = scene.physical.relief if scene.physical is not None else None
    th, tw = texture.shape[:2]
    for cell, (colour, piece) in sorted(scene.tiles.items()):
        lay = scene.lays.get(cell, TileLay())
        cx, cy = layout.cell_center_mm(cell)
        cx = (cx + lay.offset[0] * layout.cell_mm) * ppm - 0.5
        cy = (cy + lay.offset[1] * layout.cell_mm) * ppm - 0.5
        reach = int(math.ceil(half * 1.5)) + 3
        x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
        x1, y1 = min(tw, int(cx) + reach + 1), min(th, int(cy) + reach + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        angle = math.radians(lay.turn_deg)
        scale = layout.tile_mm * ppm / tile_px
        ca, sa = math.cos(angle) * scale, math.sin(angle) * scale
        # tile pixel (u, v) -> ROI pixel: rotate about the tile centre, then move to the cell centre
        centre_src = (tile_px - 1) / 2
        m = np.array([[ca, -sa, 0.0], [sa, ca, 0.0]])
        m[:, 2] = [cx - x0, cy - y0] - m[:, :2] @ [centre_src, centre_src]
        size = (x1 - x0, y1 - y0)
        face = cv2.warpAffine(_tile(colour, piece, tile_px, layout.tile), m, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)
        ones = np.ones((tile_px, tile_px), np.float32)
        cover = cv2.warpAffine(ones, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        if relief is not None:
            how = tile_relief(scene.physical, scene.camera, ((cx + 0.5) / ppm, (cy + 0.5) / ppm), ppm)
            roi = draw_relief(texture[y0:y1, x0:x1, :3].astype(np.float32), _tile(colour, piece, tile_px, layout.tile),
                              cover, m, relief, how)
            texture[y0:y1, x0:x1, :3] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
            continue
        shifted = m.copy()
        shifted[:, 2] += 0.4 * ppm
        shade = cv2.warpAffine(ones, shifted, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        shade = cv2.GaussianBlur(shade, (0, 0), 0.5 * ppm)
        roi = texture[y0:y1, x0:x1, :3].astype(np.float32)
        roi *= (1.0 - 0.35 * shade)[..., None]
        roi = roi * (1.0 - cover[..., None]) + face
        texture[y0:y1, x0:x1, :3] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
    return texture


def cell_middle_points(layout: BoardLayout) -> np.ndarray:
    """(100 * 25, 2) board mm points: 5x5 samples over the middle 60% of each cell, cell by cell in ``CELLS`` order."""
    steps = (np.arange(5) - 2) / 4 * 0.6 * layout.cell_mm
    offsets = np.array([[dx, dy] for dy in steps for dx in steps])
    centres = np.array([layout.cell_center_mm(c) for c in CELLS])
    return (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 2)


def _occlusion(layout: BoardLayout, projector: Projector, mask: np.ndarray | None,
               size: tuple[int, int], points: np.ndarray | None = None) -> dict[Cell, float]:
    """Share of each cell's central area (``cell_middle_points``; or ``points``, board mm, as many a cell in ``CELLS``
    order) under the hand; cells it misses are left out."""
    if mask is None:
        return {}
    w, h = size
    px = projector.project(cell_middle_points(layout) if points is None else points)
    inside = np.isfinite(px).all(axis=1)
    xi = np.clip(np.nan_to_num(px[:, 0]).round().astype(int), 0, w - 1)
    yi = np.clip(np.nan_to_num(px[:, 1]).round().astype(int), 0, h - 1)
    covered = (mask[yi, xi] > 0.5) & inside
    share = covered.reshape(len(CELLS), -1).mean(axis=1)
    return {c: float(s) for c, s in zip(CELLS, share, strict=True) if s > 0}


def _markers_visible(layout: BoardLayout, projector: Projector, mask: np.ndarray | None,
                     size: tuple[int, int]) -> frozenset[int]:
    """Markers wholly inside the frame and untouched by the hand."""
    w, h = size
    seen = set()
    for marker in layout.markers:
        (x0, y0), (x1, y1) = marker.corners_mm()[0], marker.corners_mm()[2]
        g = np.linspace(0, 1, 6)
        points = np.array([[x0 + (x1 - x0) * a, y0 + (y1 - y0) * b] for a in g for b in g])
        px = projector.project(points)
        if not np.isfinite(px).all():
            continue
        if np.any((px[:, 0] < 1) | (px[:, 0] > w - 2) | (px[:, 1] < 1) | (px[:, 1] > h - 2)):
            continue
        if mask is not None:
            xi, yi = px[:, 0].round().astype(int), px[:, 1].round().astype(int)
            if np.any(mask[yi, xi] > 0.1):
                continue
        seen.add(marker.id)
    return frozenset(seen)

"""The synthetic camera: a camera frame of any board state, with the disturbances of a real table.

A ``Scene`` holds everything that decides a frame: the tiles and how each was laid, the camera (pose,
lens, distortion), the light (gradient, colour cast, exposure, a shadow band, glare), blur, sensor
noise, JPEG, paper and printer, the table and an optional hand. ``Scene.random(seed, level=...)``
draws one from a seed; ``render(scene)`` gives the BGR frame and its ``GroundTruth`` (where the board
is, which cells the hand covers, which markers can be seen). The same scene renders to the same
frame, bit for bit.

>>> frame, truth = render(Scene.random(7, level="medium"))     # doctest: +SKIP
>>> truth.project(np.array([[177.0, 177.0]]))                  # board mm -> frame px  # doctest: +SKIP

Coordinates: board mm have x east and y south from the sheet's top-left corner (as in
``vision.artwork``); the camera is an OpenCV pinhole (x right, y down, z forward) with radial
distortion ``x_d = x_u (1 + k1 r^2 + k2 r^4)`` in normalised coordinates, so ``cv2.projectPoints``
and ``cv2.undistortPoints`` agree with ``GroundTruth`` given ``camera_matrix`` and ``distortion``.
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from thoughtwave.engine.board import Board, piece_bits
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import START_INVENTORY, Colour, E, Piece, S, W
from thoughtwave.vision.artwork import BoardLayout, board_image, tile_image

#: Named disturbance levels; a float in 0..1 works too.
LEVELS: dict[str, float] = {"clean": 0.0, "mild": 0.35, "medium": 0.65, "hard": 1.0}
#: A cell counts as occluded when the hand covers this share of its central area (the middle 60%).
OCCLUDED_SHARE = 0.2
#: The widest horizontal field of view a random camera gets, in degrees.
MAX_FOV_DEG = 105.0
#: A game has 24 tiles a side, so no real board holds more than this.
MAX_TILES = 2 * sum(START_INVENTORY.values())

#: Skin tones (BGR) from light to dark, for hands.
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (160, 180, 228), (132, 158, 210), (105, 135, 190), (78, 105, 150), (55, 75, 110), (42, 55, 80),
)
#: Table tops (BGR) and how much grain each shows: oak, walnut, grey laminate, white laminate, slate, baize.
TABLE_TONES: tuple[tuple[tuple[int, int, int], float], ...] = (
    ((95, 145, 190), 0.9), ((45, 70, 105), 0.9), ((150, 150, 145), 0.25), ((215, 218, 220), 0.15),
    ((60, 60, 58), 0.3), ((60, 110, 50), 0.2),
)
#: How far a tile may stray toward a neighbouring tile (share of a cell) and turn beside one (degrees):
#: the neighbour's card edge stops it.
NEIGHBOUR_SLACK = 0.01
NEIGHBOUR_TURN = 2.0


def level_amount(level: str | float) -> float:
    """``"medium"`` -> 0.65; a number is clipped to 0..1."""
    if isinstance(level, str):
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)} or a number 0..1, not {level!r}")
        return LEVELS[level]
    return min(1.0, max(0.0, float(level)))


# ---- the scene ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TileLay:
    """How a hand laid one tile: ``offset`` from the cell centre in cells (east, south), ``turn_deg`` clockwise."""

    offset: tuple[float, float] = (0.0, 0.0)
    turn_deg: float = 0.0


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the board plane, with radial lens distortion.

    ``yaw_deg`` turns the board clockwise in the picture; ``tilt_deg`` leans the optical axis away from
    straight down, toward ``tilt_toward_deg`` (0 = the top of the picture); ``aim_mm`` is the board
    point the optical axis goes through; ``fov_deg`` is the horizontal field of view.
    """

    resolution: tuple[int, int] = (1280, 960)
    fov_deg: float = 60.0
    height_mm: float = 600.0
    tilt_deg: float = 0.0
    tilt_toward_deg: float = 0.0
    yaw_deg: float = 0.0
    aim_mm: tuple[float, float] = (177.0, 177.0)
    k1: float = 0.0
    k2: float = 0.0

    def matrix(self) -> np.ndarray:
        """The 3x3 camera matrix K (principal point at the centre of the frame)."""
        w, h = self.resolution
        f = (w / 2) / math.tan(math.radians(self.fov_deg) / 2)
        return np.array([[f, 0.0, (w - 1) / 2], [0.0, f, (h - 1) / 2], [0.0, 0.0, 1.0]])

    def distortion(self) -> np.ndarray:
        """OpenCV's distortion vector (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(R, t) taking board mm (z = 0, z pointing into the table) to camera coordinates."""
        yaw = math.radians(-self.yaw_deg)
        cz, sz = math.cos(yaw), math.sin(yaw)
        turn = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
        # Tilting toward the top of the picture turns the camera about its own x axis.
        toward = math.radians(self.tilt_toward_deg)
        axis = np.array([math.cos(toward), math.sin(toward), 0.0]) * math.radians(self.tilt_deg)
        lean, _ = cv2.Rodrigues(axis)
        cam_to_board = turn @ lean
        look = cam_to_board[:, 2]
        aim = np.array([self.aim_mm[0], self.aim_mm[1], 0.0])
        centre = aim - look * (self.height_mm / look[2])
        rotation = cam_to_board.T
        return rotation, -rotation @ centre

    def board_to_image(self) -> np.ndarray:
        """3x3 homography from board mm to undistorted frame pixels."""
        rotation, t = self.pose()
        h = self.matrix() @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
        return h / h[2, 2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 2) board mm -> (N, 2) frame px, lens distortion included (NaN behind the camera)."""
        return _project(self.board_to_image(), self.matrix(), self.k1, self.k2, points_mm)


@dataclass(frozen=True)
class Shadow:
    """A soft dark band across the frame (a lamp arm, a bottle): a line at ``angle_deg`` through a point
    ``offset`` (share of the diagonal) from the centre, ``width`` (share of the diagonal), ``depth`` 0..1."""

    angle_deg: float
    offset: float
    width: float
    depth: float


@dataclass(frozen=True)
class Glare:
    """A specular blob: ``centre`` as shares of the frame (x, y), ``radius`` share of the diagonal,
    ``strength`` grey levels added at its middle, stretched ``stretch`` times along ``angle_deg``."""

    centre: tuple[float, float]
    radius: float
    strength: float
    stretch: float = 1.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Light:
    """Illumination: ``exposure`` gain, a linear ``gradient`` (gain change across the frame) toward
    ``gradient_angle_deg``, ``vignette`` (darkening at the corners), a colour cast as per-channel gains."""

    exposure: float = 0.94
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    vignette: float = 0.0
    cast_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow: Shadow | None = None
    glare: tuple[Glare, ...] = ()


@dataclass(frozen=True)
class Optics:
    """Blur: ``defocus`` Gaussian sigma in px; motion blur ``motion_px`` long at ``motion_angle_deg``."""

    defocus: float = 0.0
    motion_px: float = 0.0
    motion_angle_deg: float = 0.0


@dataclass(frozen=True)
class Sensor:
    """Noise sigma^2 = ``shot`` * intensity + ``read``^2 (grey levels), then a JPEG round trip (None: none)."""

    shot: float = 0.0
    read: float = 0.0
    jpeg_quality: int | None = None


@dataclass(frozen=True)
class Printing:
    """How the home printer did: ``paper_texture`` (relative grain), ``colour_shift`` 0..1 (red comes out
    orange-brown, black greyish), ``ink_lift`` (grey levels the darkest ink is lifted by)."""

    paper_texture: float = 0.0
    colour_shift: float = 0.0
    ink_lift: float = 0.0


@dataclass(frozen=True)
class Hand:
    """A hand and forearm over the board, flat in its plane: the middle fingertip at ``tip_mm``, the
    arm going out toward ``angle_deg`` (board mm, 90 = south), casting a shadow ``shadow_px`` away."""

    tip_mm: tuple[float, float]
    angle_deg: float
    skin_bgr: tuple[int, int, int] = SKIN_TONES[1]
    length_mm: float = 185.0
    width_mm: float = 85.0
    right: bool = True
    shadow_px: tuple[float, float] = (12.0, 10.0)
    shadow_depth: float = 0.35


@dataclass(frozen=True)
class Table:
    """The table around the board: base colour, wood grain strength 0..1 and direction, its own seed."""

    bgr: tuple[int, int, int] = TABLE_TONES[0][0]
    grain: float = 0.5
    angle_deg: float = 0.0
    seed: int = 0


@dataclass(frozen=True)
class Scene:
    """Everything that decides a frame. Build one with ``Scene.random`` and vary it with ``replace``."""

    tiles: dict[Cell, tuple[Colour, Piece]] = field(default_factory=dict)
    lays: dict[Cell, TileLay] = field(default_factory=dict)
    camera: Camera = Camera()
    light: Light = Light()
    optics: Optics = Optics()
    sensor: Sensor = Sensor()
    printing: Printing = Printing()
    hand: Hand | None = None
    table: Table = Table()
    layout: BoardLayout = BoardLayout()
    red_sides: str = "WE"
    seed: int = 0          # paper grain
    noise_seed: int = 0    # sensor noise: change it per frame for a live camera

    @classmethod
    def random(cls, seed: int, tiles: dict[Cell, tuple[Colour, Piece]] | None = None,
               level: str | float = "medium", hand: bool | Cell | None = None,
               resolution: tuple[int, int] = (1280, 960), layout: BoardLayout | None = None,
               red_sides: str = "WE") -> Scene:
        """A scene drawn from ``seed``; ``level`` scales every disturbance (``clean`` has none).

        ``tiles`` None draws a plausible position of 0..48 tiles from the seed; ``hand`` None lets the
        seed decide (more often at higher levels), a ``Cell`` puts the fingers over that cell. The same
        seed at another level gives the same board,
        camera and hand, with disturbances scaled: compare ``clean`` and ``hard`` of one seed.
        """
        amount = level_amount(level)
        layout = layout or BoardLayout()
        rnd = random.Random(seed)
        if tiles is None:
            tiles = random_position(random.Random(rnd.getrandbits(64)), rnd.randint(0, MAX_TILES))

        def u(lo: float = 0.0, hi: float = 1.0) -> float:
            return lo + (hi - lo) * rnd.random()

        def signed(span: float) -> float:
            return u(-span, span)

        lays = {}
        for cell in sorted(tiles):
            lays[cell] = TileLay((signed(0.2) * amount, signed(0.2) * amount), signed(15.0) * amount)
        lays = fit_lays(tiles, lays)
        camera = _random_camera(rnd, amount, resolution, layout)

        kelvin = u(2700, 7500)
        fluorescent = rnd.random() < 0.3
        cast = cast_gains(kelvin, fluorescent, amount * u(0.3, 1.0))
        shadow_draw = (rnd.random(), u(0, 180), signed(0.35), u(0.04, 0.16), u(0.25, 0.6))
        shadow = (Shadow(shadow_draw[1], shadow_draw[2], shadow_draw[3], shadow_draw[4] * amount)
                  if shadow_draw[0] < 0.8 * amount else None)
        glares = []
        glare_count = rnd.choice((0, 1, 1, 2))
        # Every number is drawn whatever the level, so that one seed gives one scene at every level.
        for _ in range(2):
            g = Glare((u(0.15, 0.85), u(0.15, 0.85)), u(0.03, 0.1), u(60, 200) * amount, u(1.0, 3.0), u(0, 180))
            shows = rnd.random() < 1.2 * amount
            if len(glares) < glare_count and shows:
                glares.append(g)
        light = Light(
            exposure=0.94 + u(-0.3, 0.25) * amount,
            gradient=u(0.1, 0.5) * amount, gradient_angle_deg=u(0, 360),
            vignette=u(0.05, 0.35) * amount, cast_bgr=cast, shadow=shadow, glare=tuple(glares),
        )
        motion_on = rnd.random() < 0.5 * amount
        motion = u(2.0, 14.0) * amount
        optics = Optics(defocus=u(0.0, 2.2) * amount, motion_px=motion if motion_on else 0.0,
                        motion_angle_deg=u(0, 180))
        jpeg = int(round(96 - u(10, 60) * amount))
        sensor = Sensor(shot=u(0.05, 0.7) * amount, read=u(0.5, 4.0) * amount,
                        jpeg_quality=jpeg if amount > 0 else None)
        printing = Printing(paper_texture=u(0.01, 0.05) * amount, colour_shift=u(0.2, 1.0) * amount,
                            ink_lift=u(0, 40) * amount)
        hand_draw = _random_hand(rnd, layout)
        with_hand = rnd.random() < 0.5 * amount if hand is None else bool(hand)
        if isinstance(hand, Cell):
            hand_draw = hand_over(hand, hand_draw, layout)
        tone, grain = rnd.choice(TABLE_TONES)
        table = Table(tone, grain * u(0.3, 1.0), u(0, 180), rnd.getrandbits(31))
        return cls(
            tiles=dict(tiles), lays=lays, camera=camera, light=light, optics=optics, sensor=sensor,
            printing=printing, hand=hand_draw if with_hand else None, table=table, layout=layout,
            red_sides=red_sides, seed=rnd.getrandbits(31), noise_seed=rnd.getrandbits(31),
        )

    def describe(self) -> dict:
        """The scene as plain JSON-ready values (tiles as ``{"E5": "red ew"}``)."""
        out = asdict(replace(self, tiles={}, lays={}))
        out["tiles"] = {str(c): f"{colour.value} {piece}" for c, (colour, piece) in sorted(self.tiles.items())}
        out["lays"] = {str(c): asdict(lay) for c, lay in sorted(self.lays.items())}
        out["layout"] = {"cell_mm": self.layout.cell_mm}
        return out


def fit_lays(tiles: dict[Cell, tuple[Colour, Piece]], lays: dict[Cell, TileLay]) -> dict[Cell, TileLay]:
    """``lays`` with each tile kept out of its neighbours' cells: beside a tile a tile strays at most
    ``NEIGHBOUR_SLACK`` toward it and turns at most ``NEIGHBOUR_TURN`` degrees."""
    out = {}
    for cell, lay in lays.items():
        (dx, dy), turn = lay.offset, lay.turn_deg
        crowded = False
        for direction, other in cell.neighbours():
            if other not in tiles:
                continue
            crowded = True
            if direction == E:
                dx = min(dx, NEIGHBOUR_SLACK)
            elif direction == W:
                dx = max(dx, -NEIGHBOUR_SLACK)
            elif direction == S:
                dy = min(dy, NEIGHBOUR_SLACK)
            else:
                dy = max(dy, -NEIGHBOUR_SLACK)
        if crowded:
            turn = min(NEIGHBOUR_TURN, max(-NEIGHBOUR_TURN, turn))
        out[cell] = TileLay((dx, dy), turn)
    return out


def random_position(rnd: random.Random, count: int) -> dict[Cell, tuple[Colour, Piece]]:
    """A plausible position of up to ``count`` tiles: legal placements, colours taking turns, each side
    within its 24 pieces (``count`` is capped at 48; fewer when nothing fits any more)."""
    board = Board()
    left = {colour: dict(START_INVENTORY) for colour in Colour}
    tiles: dict[Cell, tuple[Colour, Piece]] = {}
    colour = rnd.choice((Colour.RED, Colour.BLACK))
    for _ in range(min(count, MAX_TILES)):
        move = board.random_placement(piece_bits(left[colour]), rnd)
        if move is None:
            colour = colour.other
            move = board.random_placement(piece_bits(left[colour]), rnd)
            if move is None:
                break
        board.push(move)
        left[colour][move.piece.kind] -= 1
        tiles[move.cell] = (colour, move.piece)
        colour = colour.other
    return tiles


def cast_gains(kelvin: float, fluorescent: bool = False, strength: float = 1.0) -> tuple[float, float, float]:
    """Per-channel gains (B, G, R) of a lamp of colour temperature ``kelvin`` that the camera's white balance
    corrects all but ``strength`` of (0: none left, 1: none corrected); green is kept at 1."""
    t = kelvin / 100.0
    red = 1.0 if t <= 66 else min(1.0, 1.292936 * (t - 60) ** -0.1332047592)
    green = (0.39008157 * math.log(t) - 0.63184144) if t <= 66 else 1.129890861 * (t - 60) ** -0.0755148492
    blue = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.54320679 * math.log(t - 10) - 1.19625409)
    bgr = np.clip(np.array([blue, green, red]), 0.05, 1.0)
    if fluorescent:
        bgr = bgr * np.array([0.95, 1.08, 0.9])
    bgr = bgr / bgr[1]
    gains = 1.0 + strength * (bgr - 1.0)
    return tuple(float(g) for g in gains)


_cast_gains = cast_gains  # the name tests/test_calibration.py imports


def _random_camera(rnd: random.Random, amount: float, resolution: tuple[int, int],
                   layout: BoardLayout) -> Camera:
    """A camera 40-80 cm up that sees the whole board; focal length chosen so the board fills the frame."""
    w, h = resolution
    height = 400.0 + 400.0 * rnd.random()
    tilt = 30.0 * amount * rnd.random()
    toward = 360.0 * rnd.random()
    yaw_draw = rnd.random()
    yaw = (yaw_draw * 360.0 - 180.0) * min(1.0, amount / 0.5)
    fill = 0.93 - 0.5 * amount * rnd.random()
    size = layout.width_mm
    aim = (size / 2 + size * 0.25 * amount * (2 * rnd.random() - 1),
           size / 2 + size * 0.25 * amount * (2 * rnd.random() - 1))
    k1 = (-0.22 + 0.28 * rnd.random()) * amount
    k2 = 0.3 * k1 * rnd.random()
    camera = Camera(resolution, 60.0, height, tilt, toward, yaw, aim, k1, k2)
    corners = np.array([[0, 0], [size, 0], [size, size], [0, size]], float)
    # With f = 1 the corners' normalised coordinates scale linearly with the focal length.
    rotation, t = camera.pose()
    points = corners @ rotation[:, :2].T + t
    normal = points[:, :2] / points[:, 2:3]
    filled = min((w / 2) / np.max(np.abs(normal[:, 0])), (h / 2) / np.max(np.abs(normal[:, 1])))
    # No wider than a wide-angle Pi camera (about 105 degrees): a low camera sees the board bigger instead.
    widest = (w / 2) / math.tan(math.radians(MAX_FOV_DEG) / 2)
    f = min(max(fill * filled, widest), 0.95 * filled)
    fov = math.degrees(2 * math.atan((w / 2) / f))
    camera = replace(camera, fov_deg=fov)
    # Pincushion distortion pushes the corners outward: widen the view a little until they are back inside.
    for _ in range(20):
        px = camera.project(corners)
        if np.all((px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)):
            break
        camera = replace(camera, fov_deg=camera.fov_deg * 1.03)
    return camera


def hand_over(cell: Cell, hand: Hand, layout: BoardLayout) -> Hand:
    """``hand`` moved so that its fingers cover ``cell`` (fingertips a little past the centre), arm as before."""
    a = math.radians(hand.angle_deg)
    cx, cy = layout.cell_center_mm(cell)
    reach = 0.35 * layout.cell_mm
    return replace(hand, tip_mm=(cx - math.cos(a) * reach, cy - math.sin(a) * reach))


def _random_hand(rnd: random.Random, layout: BoardLayout) -> Hand:
    """A hand reaching in from a random side with its fingertips over (or near) the grid."""
    gx, gy = layout.grid_origin_mm
    c = layout.cell_mm
    tip = (gx + c * (-0.5 + 11 * rnd.random()), gy + c * (-0.5 + 11 * rnd.random()))
    side = rnd.choice((90.0, 270.0, 90.0, 270.0, 0.0, 180.0))  # players sit south and north, mostly
    return Hand(
        tip_mm=tip, angle_deg=side + rnd.uniform(-35, 35), skin_bgr=rnd.choice(SKIN_TONES),
        length_mm=rnd.uniform(165, 200), width_mm=rnd.uniform(75, 95), right=rnd.random() < 0.85,
        shadow_px=(rnd.uniform(-25, 25), rnd.uniform(-25, 25)), shadow_depth=rnd.uniform(0.2, 0.5),
    )


# ---- ground truth -----------------------------------------------------------------------------------


def _project(homography: np.ndarray, k: np.ndarray, k1: float, k2: float, points_mm: np.ndarray) -> np.ndarray:
    """(N, 2) board mm -> frame px: the homography, then radial distortion; NaN behind the camera."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
    ideal = pts @ homography[:, :2].T + homography[:, 2]
    depth = ideal[:, 2:3]
    ideal = ideal[:, :2] / np.where(np.abs(depth) < 1e-9, 1e-9, depth)
    f, cx, cy = k[0, 0], k[0, 2], k[1, 2]
    x, y = (ideal[:, 0] - cx) / f, (ideal[:, 1] - cy) / f
    r2 = x * x + y * y
    scale = 1 + k1 * r2 + k2 * r2 * r2
    out = np.column_stack([x * scale * f + cx, y * scale * f + cy])
    out[depth[:, 0] <= 0] = np.nan
    return out


class _Projector:
    """Board mm -> frame pixels through one camera."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self.homography = camera.board_to_image()
        self.k = camera.matrix()

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        return _project(self.homography, self.k, self.camera.k1, self.camera.k2, points_mm)


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
        return _project(self.board_to_image, self.camera_matrix, self.distortion[0], self.distortion[1], points_mm)

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


# ---- rendering --------------------------------------------------------------------------------------


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
        sigma = _noise_sigma(image, scene.sensor)
        for array in (image, sigma):
            if array is not None:
                array.setflags(write=False)
        with _LAST_LOCK:
            _LAST_CLEAN[0] = (still, image, truth, sigma)
    if sigma is not None:
        image = _noisy(image, sigma, scene.noise_seed)
    frame = np.clip(image + 0.5, 0, 255).astype(np.uint8)
    if scene.sensor.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(scene.sensor.jpeg_quality)])
        if ok:
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return frame, truth


_LAST_CLEAN: list = [None]
_LAST_LOCK = threading.Lock()


class _Recent:
    """A small thread-safe cache of the most recently used values (textures, maps, tables)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: object, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


def _noiseless(scene: Scene) -> tuple[np.ndarray, GroundTruth]:
    """The frame as float32 BGR before the sensor (light and blur applied), and its ground truth."""
    camera = scene.camera
    w, h = camera.resolution
    projector = _Projector(camera)
    ppm = _texture_ppm(projector, scene.layout)
    texture = _board_with_tiles(scene, ppm)
    map_xy, map_fraction = _texture_maps(camera, ppm)
    board = cv2.remap(texture, map_xy, map_fraction, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    board = board.astype(np.float32)
    alpha = board[..., 3:4] * (1.0 / 255.0)
    colour = _printed(board[..., :3], alpha, scene.printing, scene.seed, (w, h))
    table = _table_texture(scene.table, (w, h))
    image = table * (1.0 - alpha) + colour

    hand_mask = None
    if scene.hand is not None:
        hand_mask = _hand_mask(scene.hand, projector, (w, h))
        image = _composite_hand(image, hand_mask, scene.hand)
        hand_mask.setflags(write=False)
    image = _lit(image, scene.light, (w, h))
    image = _blurred(image, scene.optics)

    occlusion = _occlusion(scene.layout, projector, hand_mask, (w, h))
    truth = GroundTruth(
        board_to_image=projector.homography, camera_matrix=projector.k, distortion=camera.distortion(),
        resolution=(w, h), tiles=dict(scene.tiles),
        occluded_cells=frozenset(c for c, share in occlusion.items() if share >= OCCLUDED_SHARE),
        occlusion=occlusion, markers_visible=_markers_visible(scene.layout, projector, hand_mask, (w, h)),
        hand_mask=hand_mask,
    )
    return image, truth


def _texture_ppm(projector: _Projector, layout: BoardLayout) -> int:
    """Texture px/mm: at least 1.6 texture pixels per frame pixel where the board is nearest (3, 4, 6 or 8)."""
    size = layout.width_mm
    grid = np.array([[x, y] for x in (0, size / 2, size) for y in (0, size / 2, size)], float)
    step = np.array([[5.0, 0.0]])
    a, b = projector.project(grid), projector.project(grid + step)
    frame_ppm = float(np.nanmax(np.linalg.norm(b - a, axis=1)) / 5.0)
    # A few fixed steps, so that the cached board textures and tile images cover every camera.
    return next((ppm for ppm in _TEXTURE_PPMS if ppm >= 1.6 * frame_ppm), _TEXTURE_PPMS[-1])


_TEXTURE_PPMS = (3, 4, 6, 8)


_BOARD_CACHE = _Recent(4)


def _board_texture(layout: BoardLayout, ppm: int, red_sides: str) -> np.ndarray:
    """The printed board as BGRA at ``ppm`` (cached: it is the same every frame)."""

    def make() -> np.ndarray:
        bgr = board_image(layout, ppm, red_sides)
        bgra = np.dstack([bgr, np.full(bgr.shape[:2], 255, np.uint8)])
        bgra.setflags(write=False)
        return bgra

    return _BOARD_CACHE.get((layout, ppm, red_sides), make)


@lru_cache(maxsize=2 * 15 * len(_TEXTURE_PPMS))
def _tile(colour: Colour, piece: Piece, size_px: int) -> np.ndarray:
    image = tile_image(colour, piece, size_px)
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
        face = cv2.warpAffine(_tile(colour, piece, tile_px), m, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)
        ones = np.ones((tile_px, tile_px), np.float32)
        cover = cv2.warpAffine(ones, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        shifted = m.copy()
        shifted[:, 2] += 0.4 * ppm
        shade = cv2.warpAffine(ones, shifted, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        shade = cv2.GaussianBlur(shade, (0, 0), 0.5 * ppm)
        roi = texture[y0:y1, x0:x1, :3].astype(np.float32)
        roi *= (1.0 - 0.35 * shade)[..., None]
        roi = roi * (1.0 - cover[..., None]) + face
        texture[y0:y1, x0:x1, :3] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
    return texture


_MAP_CACHE = _Recent(4)


def _texture_maps(camera: Camera, ppm: int) -> tuple[np.ndarray, np.ndarray]:
    """For every frame pixel, where it looks on the board texture (cached per camera: a fixed camera
    renders every frame with the same maps)."""
    return _MAP_CACHE.get((camera, ppm), lambda: _make_texture_maps(camera, ppm))


def _make_texture_maps(camera: Camera, ppm: int) -> tuple[np.ndarray, np.ndarray]:
    w, h = camera.resolution
    # The map is smooth (a homography after a radial distortion), so it is computed every STEP pixels and
    # scaled up. The coarse grid reaches one sample beyond each frame edge, so that after cv2.resize
    # (which puts coarse sample i at fine pixel (i + 0.5) * STEP - 0.5) the frame is pure interpolation.
    step = _MAP_STEP
    cw, ch = math.ceil(w / step) + 2, math.ceil(h / step) + 2
    xs, ys = np.meshgrid((np.arange(cw) - 0.5) * step - 0.5, (np.arange(ch) - 0.5) * step - 0.5)
    ideal_x, ideal_y = undistorted(camera, xs, ys)
    inverse = np.linalg.inv(camera.board_to_image())
    bx = inverse[0, 0] * ideal_x + inverse[0, 1] * ideal_y + inverse[0, 2]
    by = inverse[1, 0] * ideal_x + inverse[1, 1] * ideal_y + inverse[1, 2]
    bw = inverse[2, 0] * ideal_x + inverse[2, 1] * ideal_y + inverse[2, 2]
    # Rays above the horizon never meet the board: send them off the texture.
    ahead = bw > 1e-9
    bw = np.where(ahead, bw, 1.0)
    coarse_x = np.where(ahead, bx / bw * ppm - 0.5, -1e4).astype(np.float32)
    coarse_y = np.where(ahead, by / bw * ppm - 0.5, -1e4).astype(np.float32)
    fine = (cw * step, ch * step)
    map_x = cv2.resize(coarse_x, fine, interpolation=cv2.INTER_LINEAR)[step:step + h, step:step + w]
    map_y = cv2.resize(coarse_y, fine, interpolation=cv2.INTER_LINEAR)[step:step + h, step:step + w]
    return cv2.convertMaps(np.ascontiguousarray(map_x), np.ascontiguousarray(map_y), cv2.CV_16SC2)


#: Spacing of the exactly computed samples of the texture map, in frame pixels.
_MAP_STEP = 4


def undistorted(camera: Camera, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Undistorted pixel coordinates of frame pixel coordinates (the inverse of the radial model)."""
    if camera.k1 == 0 and camera.k2 == 0:
        return xs, ys
    k = camera.matrix()
    f, cx, cy = k[0, 0], k[0, 2], k[1, 2]
    xd, yd = (xs - cx) / f, (ys - cy) / f
    xu, yu = xd.copy(), yd.copy()
    for _ in range(20):
        r2 = xu * xu + yu * yu
        scale = 1 + camera.k1 * r2 + camera.k2 * r2 * r2
        xu, yu = xd / scale, yd / scale
    return xu * f + cx, yu * f + cy


def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth random field in -1..1-ish of ``size`` (w, h) from a ``cells`` grid of random values."""
    coarse = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(coarse, size, interpolation=cv2.INTER_CUBIC)


def _printed(board: np.ndarray, alpha: np.ndarray, printing: Printing, seed: int,
             size: tuple[int, int]) -> np.ndarray:
    """The board layer (premultiplied by ``alpha``) as the home printer and paper made it."""
    out = board
    s = printing.colour_shift
    if s > 0:
        # Rows sum to one, so white paper stays white while saturated red drifts to orange-brown.
        matrix = np.array([
            [1 - 0.10 * s, 0.10 * s, 0.0],
            [0.0, 1 - 0.22 * s, 0.22 * s],
            [0.0, 0.12 * s, 1 - 0.12 * s],
        ], np.float32)
        out = cv2.transform(out, matrix)
    if printing.ink_lift > 0:
        lift = printing.ink_lift
        out = out * (1 - lift / 255.0) + lift * alpha
    if printing.paper_texture > 0:
        out = out * _paper_grain(seed, size, printing.paper_texture)
    return out


@lru_cache(maxsize=2)
def _paper_grain(seed: int, size: tuple[int, int], amount: float) -> np.ndarray:
    """Multiplicative paper grain, (h, w, 3) float32 (cached: a fixed camera sees the same paper every frame)."""
    rng = np.random.default_rng(seed)
    w, h = size
    fine = rng.standard_normal((h // 2 + 1, w // 2 + 1)).astype(np.float32)
    fine = cv2.resize(fine, size, interpolation=cv2.INTER_LINEAR)
    blotch = _smooth_noise(rng, size, (24, 18))
    grain = 1.0 + amount * (0.6 * fine + 0.8 * blotch)
    out = cv2.merge([grain, grain, grain])
    out.setflags(write=False)
    return out


_TABLE_CACHE = _Recent(4)


def _table_texture(table: Table, size: tuple[int, int]) -> np.ndarray:
    """The table top as float32 BGR: streaky wood-like grain along ``angle_deg`` (cached per table)."""
    return _TABLE_CACHE.get((table, size), lambda: _make_table_texture(table, size))


def _make_table_texture(table: Table, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    rng = np.random.default_rng(table.seed)
    # The grain is broad, so a quarter-size field scaled up loses nothing.
    qw, qh = max(2, w // 4), max(2, h // 4)
    ys, xs = np.mgrid[0:qh, 0:qw].astype(np.float32)
    a = math.radians(table.angle_deg)
    across = (-xs * math.sin(a) + ys * math.cos(a)) / max(qw, qh)
    along = (xs * math.cos(a) + ys * math.sin(a)) / max(qw, qh)
    # Grain lines run along the board's planks: a gently wandering stripe pattern plus fine streaks.
    wander = cv2.resize(rng.standard_normal((4, 4)).astype(np.float32), (qw, qh), interpolation=cv2.INTER_CUBIC)
    rings = np.sin(across * 160.0 + 2.0 * wander + 1.5 * np.sin(along * 7.0 + wander)) * 0.5 + 0.5
    fine = cv2.GaussianBlur(rng.standard_normal((qh, qw)).astype(np.float32), (0, 0), 0.7)
    streaks = cv2.filter2D(fine, -1, _line_kernel(25.0, table.angle_deg)) * 3.0
    shade = cv2.resize(1.0 + table.grain * (0.16 * rings ** 3 - 0.05 + 0.07 * streaks), size,
                       interpolation=cv2.INTER_LINEAR)
    out = cv2.merge([shade * float(c) for c in table.bgr])
    out.setflags(write=False)
    return out


def _capsule(a: np.ndarray, b: np.ndarray, radius: float, steps: int = 8) -> np.ndarray:
    """Outline of a rounded bar from ``a`` to ``b`` (2D points), as a polygon."""
    d = b - a
    angle = math.atan2(d[1], d[0])
    arc1 = [a + radius * np.array([math.cos(t), math.sin(t)])
            for t in np.linspace(angle + math.pi / 2, angle + 3 * math.pi / 2, steps)]
    arc2 = [b + radius * np.array([math.cos(t), math.sin(t)])
            for t in np.linspace(angle - math.pi / 2, angle + math.pi / 2, steps)]
    return np.array(arc1 + arc2)


def hand_outline_mm(hand: Hand) -> list[np.ndarray]:
    """The hand's convex parts (fingers, thumb, palm) as polygons in board mm."""
    tip = np.asarray(hand.tip_mm, float)
    a = math.radians(hand.angle_deg)
    along = np.array([math.cos(a), math.sin(a)])    # from the fingertips toward the wrist
    across = np.array([-along[1], along[0]])
    length, width = hand.length_mm, hand.width_mm
    side = 1.0 if hand.right else -1.0

    def at(u: float, v: float) -> np.ndarray:
        return tip + along * (u * length) + across * (v * width * side)

    parts = []
    finger_r = 0.115 * width
    for offset, start in ((-0.33, 0.07), (-0.11, 0.0), (0.11, 0.04), (0.33, 0.15)):
        parts.append(_capsule(at(start, offset) + along * finger_r, at(0.5, offset), finger_r))
    # The palm: a rounded box (a superellipse) from the knuckles to the wrist, a little narrower there.
    palm = []
    for t in np.linspace(0, 2 * math.pi, 32, endpoint=False):
        c, s = math.cos(t), math.sin(t)
        u = 0.71 - 0.29 * math.copysign(abs(c) ** 0.5, c)
        palm.append(at(u, 0.5 * math.copysign(abs(s) ** 0.5, s) * (1.0 - 0.2 * (u - 0.42))))
    parts.append(np.array(palm))
    parts.append(_capsule(at(0.78, -0.42), at(0.45, -0.68), 0.13 * width))
    return parts


def _hand_mask(hand: Hand, projector: _Projector, size: tuple[int, int]) -> np.ndarray:
    """Where the hand and forearm cover the frame: float32 0..1, soft-edged."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    shift = 4
    one = 1 << shift
    for part in hand_outline_mm(hand):
        px = projector.project(part)
        if np.isnan(px).any():
            continue
        cv2.fillConvexPoly(mask, np.round(px * one).astype(np.int32), 255, cv2.LINE_AA, shift)
    # The forearm runs on from the wrist, straight out of the frame.
    a = math.radians(hand.angle_deg)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    wrist = np.asarray(hand.tip_mm) + along * 0.92 * hand.length_mm
    ends = projector.project(np.array([wrist - across * 0.4 * hand.width_mm, wrist + across * 0.4 * hand.width_mm,
                                       wrist + along * 40.0]))
    if not np.isnan(ends).any():
        centre = (ends[0] + ends[1]) / 2
        out = ends[2] - centre
        out /= max(1e-6, float(np.linalg.norm(out)))
        far = 2.5 * math.hypot(w, h)
        spread = (ends[1] - ends[0]) * 0.12
        arm = np.array([ends[0], ends[1], ends[1] + out * far + spread, ends[0] + out * far - spread])
        cv2.fillConvexPoly(mask, np.round(arm * one).astype(np.int32), 255, cv2.LINE_AA, shift)
    soft = cv2.GaussianBlur(mask, (0, 0), 1.2)
    return soft.astype(np.float32) * (1.0 / 255.0)


def _composite_hand(image: np.ndarray, mask: np.ndarray, hand: Hand) -> np.ndarray:
    """The hand's shadow on the table and board, then the hand itself, rounded by shading."""
    h, w = mask.shape
    qw, qh = max(1, w // 4), max(1, h // 4)
    small = cv2.resize(mask, (qw, qh), interpolation=cv2.INTER_AREA)
    dx, dy = hand.shadow_px
    moved = cv2.warpAffine(small, np.float32([[1, 0, dx / 4], [0, 1, dy / 4]]), (qw, qh))
    moved = cv2.GaussianBlur(moved, (0, 0), 3.0)
    # Brighter along the middle of the fingers and arm, darker at the rims: a cheap roundness.
    depth = cv2.distanceTransform((small > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.72 + 0.33 * np.sqrt(np.minimum(depth / 6.0, 1.0))
    # Work on quarter-size fields and build the two full-size factors once: image * keep + skin * cover.
    shadow = cv2.resize(moved, (w, h), interpolation=cv2.INTER_LINEAR)
    keep = (1.0 - mask) * (1.0 - hand.shadow_depth * shadow)
    cover = cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR) * mask
    out = image * cv2.merge([keep, keep, keep])
    out += cv2.merge([cover * float(c) for c in hand.skin_bgr])
    return out


def _lit(image: np.ndarray, light: Light, size: tuple[int, int]) -> np.ndarray:
    """Multiply by the illumination field (gradient, vignette, shadow band, cast, exposure), add glare."""
    w, h = size
    cw, ch = 64, 48
    ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
    # coarse sample positions in frame shares (0..1), aligned as cv2.resize expects
    fx, fy = (xs + 0.5) / cw, (ys + 0.5) / ch
    diag = math.hypot(w, h)
    px, py = (fx - 0.5) * w / diag, (fy - 0.5) * h / diag   # centred, in diagonals
    a = math.radians(light.gradient_angle_deg)
    gain = 1.0 + light.gradient * (px * math.cos(a) + py * math.sin(a)) * 2.0
    gain *= 1.0 - light.vignette * (px * px + py * py) * 4.0
    if light.shadow is not None:
        s = light.shadow
        b = math.radians(s.angle_deg)
        distance = -px * math.sin(b) + py * math.cos(b) - s.offset
        gain *= 1.0 - s.depth * np.exp(-0.5 * (distance / max(1e-3, s.width / 2)) ** 2)
    glare = np.zeros_like(gain)
    for g in light.glare:
        gx, gy = (fx - g.centre[0]) * w / diag, (fy - g.centre[1]) * h / diag
        c, sn = math.cos(math.radians(g.angle_deg)), math.sin(math.radians(g.angle_deg))
        u, v = (gx * c + gy * sn) / g.stretch, -gx * sn + gy * c
        glare += g.strength * np.exp(-0.5 * (u * u + v * v) / (g.radius ** 2))
    field_gain = gain[..., None] * (light.exposure * np.asarray(light.cast_bgr, np.float32))
    full_gain = cv2.resize(field_gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    out = image * full_gain
    if light.glare:
        out += cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    return out


def _blurred(image: np.ndarray, optics: Optics) -> np.ndarray:
    """A little lens softness always (it also hides texture aliasing), then defocus and motion blur."""
    sigma = math.hypot(0.5, optics.defocus)
    image = cv2.GaussianBlur(image, (0, 0), sigma)
    if optics.motion_px >= 1.0:
        image = cv2.filter2D(image, -1, _line_kernel(optics.motion_px, optics.motion_angle_deg))
    return image


def _line_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A normalised straight-line kernel ``length`` px long at ``angle_deg`` (motion blur, wood streaks)."""
    n = int(math.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    a = math.radians(angle_deg)
    half = length / 2
    p0 = (c - half * math.cos(a), c - half * math.sin(a))
    p1 = (c + half * math.cos(a), c + half * math.sin(a))
    cv2.line(kernel, (round(p0[0] * 16), round(p0[1] * 16)), (round(p1[0] * 16), round(p1[1] * 16)),
             1.0, 1, cv2.LINE_AA, 4)
    return kernel / max(1e-6, float(kernel.sum()))


def _noise_sigma(image: np.ndarray, sensor: Sensor) -> np.ndarray | None:
    """Per-pixel noise sigma: shot noise grows with brightness, read noise does not (None: no noise)."""
    if sensor.shot <= 0 and sensor.read <= 0:
        return None
    sigma = np.maximum(image, 0.0)
    sigma *= sensor.shot
    sigma += sensor.read ** 2
    np.sqrt(sigma, out=sigma)
    return sigma


def _noisy(image: np.ndarray, sigma: np.ndarray, seed: int) -> np.ndarray:
    """``image`` plus Gaussian noise of ``sigma``, from the frame's own seed."""
    # OpenCV's generator, seeded right before use, is deterministic and a few times faster than numpy's here.
    noise = np.empty_like(image)
    cv2.setRNGSeed(int(seed) & 0x7FFFFFFF)
    cv2.randn(noise, (0.0,) * image.shape[2], (1.0,) * image.shape[2])
    noise *= sigma
    noise += image
    return noise


def _occlusion(layout: BoardLayout, projector: _Projector, mask: np.ndarray | None,
               size: tuple[int, int]) -> dict[Cell, float]:
    """Share of each cell's central area (middle 60%, 5x5 samples) under the hand; cells it misses are left out."""
    if mask is None:
        return {}
    w, h = size
    steps = (np.arange(5) - 2) / 4 * 0.6 * layout.cell_mm
    offsets = np.array([[dx, dy] for dy in steps for dx in steps])
    centres = np.array([layout.cell_center_mm(c) for c in CELLS])
    points = (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    px = projector.project(points)
    inside = np.isfinite(px).all(axis=1)
    xi = np.clip(np.nan_to_num(px[:, 0]).round().astype(int), 0, w - 1)
    yi = np.clip(np.nan_to_num(px[:, 1]).round().astype(int), 0, h - 1)
    covered = (mask[yi, xi] > 0.5) & inside
    share = covered.reshape(len(CELLS), -1).mean(axis=1)
    return {c: float(s) for c, s in zip(CELLS, share, strict=True) if s > 0}


def _markers_visible(layout: BoardLayout, projector: _Projector, mask: np.ndarray | None,
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

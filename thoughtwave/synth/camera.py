"""The camera of the synthetic scene: pose and projection, lens distortion, blur and sensor noise.

Board mm have x east and y south from the sheet's top-left corner (as in ``vision.artwork``); the
camera is an OpenCV pinhole (x right, y down, z forward) with radial distortion
``x_d = x_u (1 + k1 r^2 + k2 r^4)`` in normalised coordinates, so ``cv2.projectPoints`` and
``cv2.undistortPoints`` agree with ``GroundTruth`` given ``camera_matrix`` and ``distortion``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import cv2
import numpy as np

from thoughtwave.synth.recent import Recent
from thoughtwave.vision.artwork import BoardLayout
from thoughtwave.vision.deblur import line_psf

#: The widest horizontal field of view a random camera gets, in degrees.
MAX_FOV_DEG = 105.0


def line_kernel(length: float, angle_deg: float) -> np.ndarray:
    """The motion blur (and wood streak) kernel of the synthetic pictures: a straight line ``length`` px long along
    ``angle_deg`` drawn in whole pixels (an odd square summing to 1; ``cv2.line`` does not anti-alias a float picture,
    so every length over 5 px up to 7 along a row is one 7-pixel line). The unit tests' pictures and the sets rendered
    with ``--blur drawn`` were made with it and keep it; the reader deconvolves with a smooth line
    (``vision.deblur.line_psf``), as a real shake is no whole number of pixels: ``Optics.motion_smooth`` blurs with
    that one."""
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
        return project_points(self.board_to_image(), self.matrix(), self.k1, self.k2, points_mm)



@dataclass(frozen=True)
class Optics:
    """Blur: ``defocus`` Gaussian sigma in px; motion blur ``motion_px`` long at ``motion_angle_deg``, a line drawn in
    whole pixels (``line_kernel``) or, ``motion_smooth``, spread smoothly as a real shake's (``deblur.line_psf``)."""

    defocus: float = 0.0
    motion_px: float = 0.0
    motion_angle_deg: float = 0.0
    motion_smooth: bool = False


@dataclass(frozen=True)
class Sensor:
    """Noise sigma^2 = ``shot`` * intensity + ``read``^2 (grey levels), then a JPEG round trip (None: none)."""

    shot: float = 0.0
    read: float = 0.0
    jpeg_quality: int | None = None



def project_points(homography: np.ndarray, k: np.ndarray, k1: float, k2: float, points_mm: np.ndarray) -> np.ndarray:
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


class Projector:
    """Board mm -> frame pixels through one camera."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self.homography = camera.board_to_image()
        self.k = camera.matrix()

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        return project_points(self.homography, self.k, self.camera.k1, self.camera.k2, points_mm)



def random_camera(rnd: random.Random, amount: float, resolution: tuple[int, int],
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


_MAP_CACHE = Recent(4)


def texture_maps(camera: Camera, ppm: int) -> tuple[np.ndarray, np.ndarray]:
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


def blurred(image: np.ndarray, optics: Optics) -> np.ndarray:
    """A little lens softness always (it also hides texture aliasing), then defocus and motion blur."""
    sigma = math.hypot(0.5, optics.defocus)
    image = cv2.GaussianBlur(image, (0, 0), sigma)
    if optics.motion_px >= 1.0:
        kernel = line_psf if optics.motion_smooth else line_kernel
        image = cv2.filter2D(image, -1, kernel(optics.motion_px, optics.motion_angle_deg))
    return image


def noise_sigma(image: np.ndarray, sensor: Sensor) -> np.ndarray | None:
    """Per-pixel noise sigma: shot noise grows with brightness, read noise does not (None: no noise)."""
    if sensor.shot <= 0 and sensor.read <= 0:
        return None
    sigma = np.maximum(image, 0.0)
    sigma *= sensor.shot
    sigma += sensor.read ** 2
    np.sqrt(sigma, out=sigma)
    return sigma


def noisy(image: np.ndarray, sigma: np.ndarray, seed: int) -> np.ndarray:
    """``image`` plus Gaussian noise of ``sigma``, from the frame's own seed."""
    # OpenCV's generator, seeded right before use, is deterministic and a few times faster than numpy's here.
    noise = np.empty_like(image)
    cv2.setRNGSeed(int(seed) & 0x7FFFFFFF)
    cv2.randn(noise, (0.0,) * image.shape[2], (1.0,) * image.shape[2])
    noise *= sigma
    noise += image
    return noise

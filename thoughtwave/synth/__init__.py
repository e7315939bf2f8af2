"""The synthetic camera: a camera frame of any board state, with the disturbances of a real table.

A ``Scene`` holds everything that decides a frame: the tiles and how each was laid, the camera (pose,
lens, distortion), the light (gradient, colour cast, exposure, a shadow band, glare), blur, sensor
noise, JPEG, paper and printer, the desk and an optional hand; optionally (``Scene.physical``) a lamp
over the table, thick card tiles, glossy paper, mixed light colours and depth of field.
``Scene.random(seed, level=...)`` draws one from a seed; ``render(scene)`` gives the BGR frame and
its ``GroundTruth`` (where the board is, which cells the hand covers, which markers can be seen). The
same scene renders to the same frame, bit for bit. The printed board and tiles come from
``vision.artwork`` (``Scene.layout``), so the camera films exactly what the kit prints and the reader
expects.

>>> frame, truth = render(Scene.random(7, level="medium"))     # doctest: +SKIP
>>> truth.project(np.array([[177.0, 177.0]]))                  # board mm -> frame px  # doctest: +SKIP

Modules: ``scene`` (the scene and how a seed draws it), ``camera`` (pose, projection, lens, blur,
noise), ``light`` (lamps, glare, shadows), ``physical`` (thick tiles, gloss, mixed light, depth of
field, the lamp's shadows), ``hands``, ``surface`` (paper, printer, desk), ``render``
(the frame and its ground truth) and ``demo`` (a camera filming a scripted game, a ``FrameSource``).
"""

from thoughtwave.synth.camera import MAX_FOV_DEG, Camera, Optics, Sensor, undistorted
from thoughtwave.synth.demo import DEMO_EXPECTED, DEMO_SCRIPT, DEMO_WINNER, DemoCamera, script_frames
from thoughtwave.synth.hands import SKIN_TONES, Hand, hand_outline_mm, hand_over
from thoughtwave.synth.light import Glare, Light, Shadow, cast_gains
from thoughtwave.synth.physical import DISTURBANCES, Gloss, Lamp, MixedLight, Physical, Relief
from thoughtwave.synth.render import OCCLUDED_SHARE, GroundTruth, render
from thoughtwave.synth.scene import LEVELS, MAX_TILES, Scene, TileLay, fit_lays, level_amount, random_position
from thoughtwave.synth.surface import DESK_TONES, Desk, Printing

__all__ = [
    "DEMO_EXPECTED", "DEMO_SCRIPT", "DEMO_WINNER", "DESK_TONES", "DISTURBANCES", "Gloss", "Lamp", "LEVELS",
    "MixedLight", "Physical", "Relief", "MAX_FOV_DEG", "MAX_TILES",
    "OCCLUDED_SHARE", "SKIN_TONES", "Camera", "DemoCamera", "Desk", "Glare", "GroundTruth", "Hand", "Light",
    "Optics", "Printing", "Scene", "Sensor", "Shadow", "TileLay", "cast_gains", "fit_lays", "hand_outline_mm",
    "hand_over", "level_amount", "random_position", "render", "script_frames", "undistorted",
]

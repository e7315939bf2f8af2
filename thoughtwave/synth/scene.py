"""The scene: everything that decides a frame (the tiles and how each was laid, camera, light, blur,
sensor, paper and printer, the desk, an optional hand), drawn from a seed by ``Scene.random``."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field, replace

from thoughtwave.engine.board import Board, piece_bits
from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import START_INVENTORY, Colour, E, Piece, S, W
from thoughtwave.engine.sides import Sides
from thoughtwave.synth.camera import Camera, Optics, Sensor, random_camera
from thoughtwave.synth.hands import Hand, hand_over, random_hand
from thoughtwave.synth.light import Glare, Light, Shadow, cast_gains
from thoughtwave.synth.physical import Physical
from thoughtwave.synth.surface import DESK_TONES, Desk, Printing
from thoughtwave.vision.artwork import BoardLayout

#: Named disturbance levels; a float in 0..1 works too.
LEVELS: dict[str, float] = {"clean": 0.0, "mild": 0.35, "medium": 0.65, "hard": 1.0}
#: A game has 24 tiles a side, so no real board holds more than this.
MAX_TILES = 2 * sum(START_INVENTORY.values())
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


@dataclass(frozen=True)
class TileLay:
    """How a hand laid one tile: ``offset`` from the cell centre in cells (east, south), ``turn_deg`` clockwise."""

    offset: tuple[float, float] = (0.0, 0.0)
    turn_deg: float = 0.0



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
    desk: Desk = Desk()
    layout: BoardLayout = BoardLayout()
    red_sides: Sides = Sides.WE
    seed: int = 0          # paper grain
    noise_seed: int = 0    # sensor noise: change it per frame for a live camera
    physical: Physical | None = None   # a lamp, thick tiles, gloss, mixed light, depth of field (synth.physical)

    @classmethod
    def random(cls, seed: int, tiles: dict[Cell, tuple[Colour, Piece]] | None = None,
               level: str | float = "medium", hand: bool | Cell | None = None,
               resolution: tuple[int, int] = (1280, 960), layout: BoardLayout | None = None,
               red_sides: Sides = Sides.WE, physical: bool | str = False) -> Scene:
        """A scene drawn from ``seed``; ``level`` scales every disturbance (``clean`` has none).

        ``tiles`` None draws a plausible position of 0..48 tiles from the seed; ``hand`` None lets the
        seed decide (more often at higher levels), a ``Cell`` puts the fingers over that cell. The same
        seed at another level gives the same board,
        camera and hand, with disturbances scaled: compare ``clean`` and ``hard`` of one seed.
        ``physical`` True adds every disturbance of ``synth.physical`` (a lamp, thick tiles, gloss, mixed
        light, depth of field, the hand's shadow from the lamp) at full strength whatever the level, a name
        of ``DISTURBANCES`` adds that one only; they are drawn from their own stream of the seed, so the
        rest of the scene is the same.
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
        camera = random_camera(rnd, amount, resolution, layout)

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
        hand_draw = random_hand(rnd, layout)
        with_hand = rnd.random() < 0.5 * amount if hand is None else bool(hand)
        if isinstance(hand, Cell):
            hand_draw = hand_over(hand, hand_draw, layout)
        tone, grain = rnd.choice(DESK_TONES)
        desk = Desk(tone, grain * u(0.3, 1.0), u(0, 180), rnd.getrandbits(31))
        extra = None
        if physical:
            extra = Physical.random(seed, 1.0, None if physical is True else str(physical))
        return cls(
            tiles=dict(tiles), lays=lays, camera=camera, light=light, optics=optics, sensor=sensor,
            printing=printing, hand=hand_draw if with_hand else None, desk=desk, layout=layout,
            red_sides=red_sides, seed=rnd.getrandbits(31), noise_seed=rnd.getrandbits(31), physical=extra,
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

"""The tile reader: a top-down grid image -> per cell empty | tile(colour, arms) | unreadable.

Everything is computed on whole arrays (the 100 cells at once); the steps are:

1. Light: each pixel is divided by a local paper-white estimate (a max filter over a cell, which always holds paper
   or a tile's cream hub or wave), so uneven light, narrow shadows and colour casts drop out. A local white far from
   the board's median white in brightness or hue (a hand has no paper in reach) is replaced by the paper white near.
   A median white far above the paper around the markers decoded is a lamp in view, not paper: their paper is taken
   instead, and cells lit far beyond it are unreadable.
2. Occupancy: the share of not-paper pixels (not light, or not colourless) in the middle of each cell; a tile covers
   the middle even when pushed 20% off centre and turned, and what a neighbour's tile (as read) pushes into the middle
   is discounted before a cell is called empty. No cell is called empty under glare (its white well above the white
   around it, or its middle clipped white with no dark ink near) unless it is paper by its relief: lifted to the
   paper's level at its darkest, unclipped, yet ranging in linear light far less than a tile's cream over its ink
   (a sheen adds light, so it keeps that difference), or, where its middle clips in part in a sharp picture, by the
   shape of its light: smooth as a glare spot's over its middle or over the whole of a tile's footprint, where a tile's
   unclipped ink would dip below its cream and its edge step (``paper_in_glare``; a blur ramps an ink edge as slowly as
   a spot's light falls off). On an over-exposed board a middle clipped past showing even a washed tile's faint trace
   (``traceless``) is empty only too unsure to take a tile off, and unreadable in a smeared picture. Two tiles read
   closer than real tiles can lie: the one less like its ideal picture is doubt. A cell read as clean paper whose
   borders show none of the printed grid lines the board shows elsewhere is paper by its light alone
   (``vision.gridlines``: a pale hand over a tile), too unsure to take a tile off.
3. Pose of each tile: its centre is where the cream hub sits among four dark diagonal patches (a box-filter template,
   argmax near the cell centre), its angle is the 4-fold symmetric mean of the edge directions (measured twice). A
   (32, 32) patch in each tile's own frame is resampled for all 100 cells in one remap.
4. Reading a patch: each arm is the cream level between hub and edge (inner and outer halves, which must agree),
   scaled between the tile's own body (0) and hub (1) levels; the colour needs two cues to agree (body hue AND the
   four cream corner dots red tiles carry, each against its own ring of body; where blur takes some dots, a body red
   in each of its four quarters apart, which no black tile shows, stands for them); the patch must then match the ideal
   picture of what was read. Any small margin or any disagreement gives ``unreadable``, never a guess.
5. Occlusion: pixels that are neither paper/cream nor tile inks (a hand), in blobs wider than a blurred edge, make a
   cell unreadable and mark it occluded; so does a pose that may misplace the cell, unexplained dark just beyond
   a blank side of a tile beside a hand (a finger over its wave), and a blank side that may be a wave's end in a
   shadow (on a red tile, one showing no red; on any, one lighter than the ink beside it with dark beyond it). A blank
   side with such dark beyond it facing a cell left unreadable (a pale finger shows no hand, but leaves that) stands
   only where the second opinion (step 6) reads it blank too.
6. A second opinion: a cell left unreadable is read by a small network that sees the whole cell, when it is sure
   (``vision.second``); otherwise it stays unreadable and its cause is named (``vision.causes``).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from thoughtwave.engine.cells import CELLS
from thoughtwave.engine.pieces import E, N, S, W
from thoughtwave.vision.artwork import BLACK_BGR, PAPER_BGR, RED_BGR, TILE, WAVE_BGR, TileGeometry
from thoughtwave.vision.causes import (
    CLIPPED_LEVEL,
    DARK_PAPER,
    SHADOW_EDGE,
    SHADOW_LIGHT,
    SHEEN_LIGHT,
    SOFT_SPREAD,
    CellLight,
    Sharpness,
    blur_cause,
    explain,
    sharpness,
)
from thoughtwave.vision.cellmeasures import (
    FLAT_LIGHT_MAX,
    LINEAR,
    MIDDLE,
    SPREAD_QUANTILE,
    WASHED_MOST,
    around,
    at_edges,
    beyond_edges,
    cell_shade,
    cell_shares,
    facing,
    footprints,
    ink_dips,
    linear,
    middle_corners,
    middle_edge_unevenness,
    middle_relief,
    middle_spread,
    middle_unevenness,
    over_exposed,
    overlapping,
    paper_by_its_light,
    paper_in_glare,
    traceless,
    washed_whole,
)
from thoughtwave.vision.channels import (
    brightest,
    darkest,
    hue_field,
    median_colour,
    off_paper_hue,
    paper_hue_offsets,
)
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.gridlines import unlined
from thoughtwave.vision.second import SECOND_CONFIDENCE, SURE, SecondOpinion, amend, second_opinion
from thoughtwave.vision.tileframe import (
    ANGLE_EXTENT,
    ARM_BITS,
    PATCH,
    RESIDUAL_INDEX,
    TileSampling,
    frame_coords,
    in_tile_frames,
    pale_sides,
    read_arms,
    sampling,
)
from thoughtwave.vision.tilemodel import WASHED_OUT, ColourModel, TileReadout, why_unread

__all__ = ["ColourModel", "TileReader", "TileReadout"]

#: A local white whose hue (log per channel) is this far off the board's smooth hue field is left out of
#: the fit, and one whose channels against that field differ by this factor is no paper (a hand).
HUE_OUTLIER, HUE_SPREAD = 0.12, 1.15
#: A middle read as paper by a shadow's edge across it is paper, not pale skin, where its mean colour is within this
#: factor of the hue of the paper round the markers (``paper_hued``): half the spread (in log) that ``HUE_SPREAD``
#: allows a local white.
PAPER_HUE_CLOSE = HUE_SPREAD ** 0.5
#: A pixel whose every channel is at least this is washed out (glare, over-exposure): its ink is lost.
WASHED_LEVEL = 250
#: ... and so is a rim this wide (share of a cell) around such pixels.
WASHED_RIM = 0.08
#: Corner dots fade evenly (and abstain on colour) where the grid image's edges are this many dot diameters wide.
DOT_FADE = 1.2
#: A sample region with less than this share left after washed-out pixels is not read, nor one whose clipped share is
#: this much above its hub's (blank ink washed to look like cream).
WASHED_REGION, WASHED_BEYOND_HUB = 0.6, 0.25
#: A tile with something hand-like over at most this share of its cell is read from what shows of it, as under glare.
PART_COVERED_MAX = 0.5
#: A cell a hand covers in part is empty where its middle clear of the hand and of a rim this wide round it (a share
#: of a cell: the hand's soft edge, the dark right under a finger's edge) is clean paper of the paper's hue ...
HAND_RIM = 0.16
#: ... and that clear part is at least this share of the middle: a tile (0.96 of the cell, its hub a small square of
#: cream in its middle) shows its body's ink over any such part.
SHOWN_MIN = 0.5
#: Where the board's pose may misplace a cell by more than this share of a cell (few markers seen, smeared:
#: ``BoardFinder.cell_doubt``), no tile is read, and nothing at all beyond the second.
POSE_DOUBT_TILE, POSE_DOUBT_ANY = 0.2, 0.5
#: The confidence of a cell read empty by the shape of its light alone (``paper_by_its_light``), not as clean paper.
LIGHT_ONLY_EMPTY = 0.6
#: The board's paper white (the median of its local whites) is taken as the paper's only within this factor (grey
#: levels, mean of the channels) of the paper around the markers decoded in the frame, the same printed paper under the
#: same lights: a lamp's sphere hung between camera and board over most of it is the median instead (seed 103 frame 26:
#: 12.5 times the markers' paper, 70% of the board hidden; 1,190 other frames of seeds 67-103 measure 0.58-1.23).
MARKER_PAPER_RATIO = 3.0
#: The paper white is at least this grey level in its brightest channel, the others in the board's hue (a floor on each
#: alone turns dim paper orange: seed 97 frame 185, paper at 11-18 with the lamp in view, read as skin over three rows).
WHITE_FLOOR = 16.0
#: A tile's relief in the darkest channel, in linear light as a share of the paper's: its cream hub and wave over its
#: ink (of black and red, the one whose darkest channel is lighter: the smaller relief), as printed (0.81). A sheen
#: adds light alike to both, so it keeps this relief under the diffuse light that falls on the tile.
TILE_RELIEF = float((LINEAR[min(WAVE_BGR)] - LINEAR[max(min(BLACK_BGR), min(RED_BGR))]) / LINEAR[min(PAPER_BGR)])
#: A middle lifted to the paper's level is paper where its relief is under this share of a tile's at the board's paper
#: light (which errs low: a quarter of the board's whites lie below it; visible tiles so lifted on the tuning sets
#: pbr67-pbr101 measure 1.08 of it and more, empty cells in a sheen a median 0.22) ...
LIFTED_RELIEF_SHARE = 1 / 3
#: ... and its bright end below this grey level: the camera's tone curve is taken as sRGB's up to it (many cameras
#: roll the last levels before clipping off, which would take a tile's cream toward its lifted ink).
SHEEN_TOP = 235
#: A middle in a sheen read empty by its ink share that dips over a broad share of it (``ink_dips``) by at least this
#: share of a tile's relief at the board's paper light is a tile's ink, lifted to pass for paper, not paper.
INK_DIP_MIN = 0.4
#: Share of dark ink no tile explains, just beyond a tile's side, that may be a hand's over the wave's end; share of
#: hand-like pixels in either half of a side that may hide its wave (the second opinion may not call it blank).
BEYOND_DARK, HAND_ON_SIDE = 0.5, 0.1
#: Two surfaces lit alike measure within this factor of each other across a tile. A blank side facing a hand, with dark
#: beyond it, is the tile's own ink only where it is lit no more than this above the tile's body (a finger over a wave,
#: in its own shade, is lighter than ink: seeds 67 and 103, 1.30 and 1.45; blank sides beside a hand read right, median
#: 1.05), and the dark beyond it is lit more than this above the side (a finger or sleeve over the whole arm, as dark as
#: ink, runs on beyond the tile's edge as dark as it is over the side; paper in the hand's shadow is lit more than ink).
LIT_ALIKE = 1.2
#: A blank side whose strip right past its edge is this dark against the side's own light, or darker, may hide a wave's
#: end under a finger's shade (``TileReader.read``: the tile is left unreadable, the cause a hand).
SHADE_BEYOND = 0.6
#: A half of a side in doubt beside a hand reads as a wave in the hand's shade (``TileReader._shaded_waves``) where its
#: light is at least this many times its flanks' (``ColourModel.blank_ratio_max``: no blank half is lit so over its
#: flanks) and this share of the ratio of the tile's hub over its body, its flanks under this share of the hub's light;
#: it is then read at this level (a wave's, past the margin a reading needs; the ratio says only wave or not).
SHADED_WAVE_RATIO, SHADED_WAVE_SHARE, SHADED_WAVE_FLANK, SHADED_WAVE_LEVEL = 2.0, 0.5, 0.5, 0.75
#: Share of red ink (``classes``) in each half of a red tile's blank side that makes it the tile's own ink, not a hand's
#: or a shadow's dark over a wave's end (blank sides beside a hand: 0.7-1.0 outer, 0.2-1.0 inner; a wave's end in a
#: hand's shadow: 0.0).
RED_INK_SIDE = 0.5
#: A tile in a lamp's sheen (``vision.causes.SHEEN_LIGHT``) stands out by its hub's relief over its body in linear
#: light, as a share of a tile's (``TILE_RELIEF``) at the board's paper light, where its normalised contrast is lost to
#: the lift: at least this (seed 101: unclipped sheen tiles left unreadable 0.77-1.27 but for two of 23; cells left
#: unreadable for want of contrast, blurred or shaded, not in a sheen: 0.55 at most; tiles read: 5th percentile 0.78).
SHEEN_RELIEF_MIN = 0.65
#: Under a lamp's light, a tile's arm half left in doubt is read by its difference to its flanks in linear light, as a
#: share of the hub's relief over the body (``TileReader.read``), where that relief is within these shares of a tile's
#: at the board's paper light (nothing clips the hub, no shade dims the tile; glare-lit tiles of the tuning sets with
#: hub and body unclipped: median 1.17, 1st percentile 0.79), ``LIN_SEEN`` of each region's samples lie below
#: ``SHEEN_TOP`` and were not masked, and each of the tile's eight halves so measured lies this far (x2) from a half:
#: at 0.25 of the relief or less, or 0.75 or more. (Glare-lit tiles of the 92 tuning frames with a tile named glare left
#: unread, all eight halves measured: 132 of 160 so clear, their 1056 halves on the wrong side for 3, all on one tile
#: placed off its print that the light-divided levels read the same way; halves read so: 34 on 22 tiles, none wrong.)
GLARE_RELIEF, LIN_SEEN, GLARE_ARM_MARGIN = (0.75, 1.5), 0.9, 0.5
#: A wave's cream is printed as its hub's and lit by the same light: in linear light, where a light added smoothly
#: across the tile (a sheen's slope too) cancels against the ink beside it, each of a wave's halves stands over its
#: flanks by about the hub's relief over the body. Where a lamp lights a tile, a half lit above the board's paper that
#: stands over its flanks by more than ``SPOT_RELIEF_MAX`` of that relief is lit by a small spot of the lamp's light,
#: and a half that stands over its flanks by less than ``SPOT_WAVE_MIN`` of it is no cream printed from the hub to the
#: edge (``TileReader.read``). (Tuning sets 149 and 101, the 143 wave sides of tiles read in a lamp's light or glare:
#: 0.75-1.17, but for one tile beside the lamp's sphere, not asked; no reading there changes. Drawn spots a tenth of a
#: cell wide, clipping, on a blank side: up to 2.3.)
SPOT_RELIEF_MAX, SPOT_WAVE_MIN = 1.5, 0.6
#: A tile in a sheen is placed by its template in linear light where that place is this far (a share of a cell) from
#: the one found in the light-divided picture.
RECENTRE_MIN = 0.1
#: In a sheen where the hue abstains, a tile is red by its corner dots alone where each of the four stands above its
#: ring by this many times what their mean must (``ColourModel.dot_red_min``): the noise of one dot is twice that of
#: the mean of four. (Sheen tiles of seeds 101, 67, 83: black ones' least dot 0.051 at most, paper's 0.093; red ones
#: so read 0.24-0.50.)
DOT_ALONE = 2.0
#: A middle clipped over this share of it, with any ink the tiles read do not explain in the rest, is washed out.
WASHED_HIDES = 0.25
#: A body surely of red's hue is red by three of its four corner dots standing this far above their rings, the fourth
#: not darker below its ring than something over it makes it: over twice the most a black tile's second-dimmest corner
#: stands (0.092 of 13,413 black tiles with four corners seen, tuning sets 173-193, 149's first 120 frames, 101's first
#: 35, 7's first 60, red ones 0.19 at the 5th percentile; 0.023 of 5,448 on the fast camera's shaken sweeps 17, 22-25).
THREE_DOTS_MIN = 0.2
#: A body of black's hue is black by the dimmer two of its corners standing under this above their rings, the hub
#: standing out: black tiles' dimmer two stand 0.046 at most (13,210 with such a body, not in a shadow, the same sets;
#: 0.014 at most of 4,948 on the fast camera's shaken sweeps 17 and 22-25); of red tiles whose hue says black, none
#: between 0.02 and 0.169 (one, in a lamp's sheen, 0.169; three on the hard sweeps, -0.093 to 0.020, read black before).
CORNERS_BLACK_MAX = 0.06
#: A black tile's hub is printed cream, yellower than the paper: in log blue over red 0.065 off it (``WAVE_BGR``
#: against ``PAPER_BGR``). Light falling on both alike keeps that. A hub lit as the board's paper (its
#: cell's white at least ``PAPER_HUB_LIGHT`` of the board's) within ``PAPER_HUB_HUE`` of the paper's hue, against its
#: local white and against the board's, is paper, not cream: a lit stripe between soft parallel shadows (a blind's, a
#: grille's) reads in luminance as a black tile's hub and wave on its body, ink being no darker there than shadow at
#: a cell of 32 px (sweep of such stripes: their hubs within 0.01 of paper's hue). Black tiles read right on pbr103,
#: 97, 67 and smeared 89, 67, 73, lit so: 99.8% measure below it (median -0.06); what takes the rest toward paper is
#: blur mixing colourless ink into the hub (not asked in a blurred picture), a veil, or a light of another hue on the
#: hub than on the paper that gives its white (mixed light). Paper's middles lit so: 81% above.
PAPER_HUB_HUE, PAPER_HUB_LIGHT = 0.015, 0.95
#: A channel at this grey level or above is at the sensor's last levels: clipped, its hue is lost (a paper white clipped
#: in red is yellower than the paper, and a tile's cream against it is of its hue).
HUE_CLIP = 254
#: The pieces a straight stripe of light through a cell passes for: straight through (ns, ew; the sweep's misreads 377
#: of 380) or ending in the hub (one arm). Only these are asked, so a black bend, T or cross whose hub happens to
#: measure near the paper's hue keeps its reading (of 17 black tiles the test took on the tuning sets, 11 were such).
STRIPE_PIECES = (N | S, E | W, N, E, S, W)
#: The share of a tile's cream samples as read (hub and waves), its brightest, whose hue ``TileReader._paper_hubs``
#: measures where a shadow's edge crosses the cream (``CREAM_SHADE_SPREAD``): where the light falls fullest. A
#: shadow's dimmer light may be of another hue than the light on the board's paper white (a room's warm walls, the
#: sky's blue): a lit band of paper with tinted shade beside it takes that hue into its mean, its fullest-lit part is
#: the paper's.
HUB_LIT_SHARE = 0.25
#: ... where the light across that cream spans this ratio or more (its brighter tenth over its dimmer tenth, linear
#: light): a shadow's edge within it. An evenly lit tile's cream spans less, and its mean hue is steadier: a lamp's
#: sheen, of the light's own hue, lifts its brightest samples toward the paper's hue, but weighs little in the mean.
#: Black straight tiles asked on the tuning sets (2,748): 99.9% under 1.95; the 26 whose fullest-lit cream measures
#: the paper's hue at most 1.76; the 2 above this bar (4.8 and 2.3) lit cream 0.037 or more off the paper's hue. A lit
#: band of paper between warm-shaded round shadows: 3.1-3.7, its fullest-lit part within 0.007 of the paper's hue.
CREAM_SHADE_SPREAD = 2.3
#: ... asked only where the hub's own square spans this ratio of light (as measured for the cream): a shade of another
#: hue pulls the hub's mean hue off only where it lies within the hub. Black straight tiles asked on seed 7's first 60
#: frames: median 1.26, 92% under this; a lit band between warm-shaded round shadows: 2.2-2.6.
HUB_SHADE_SPREAD = 1.5
#: A cell left unreadable in shade (as ``vision.causes`` names it: dim, a shadow's edge across it, or a middle even and
#: colourless), not lit above the board's white, in a sharp picture, whose middle has the paper's hue (``paper_hued``)
#: and spans less than ``SOFT_SPREAD`` from bright to dark, is paper where every view of both networks gives a tile
#: under this. A shadow only dims the paper and keeps its hue (pale skin and red ink do not); a black tile's colourless
#: ink may have the paper's hue, but shade keeps its ratio to its cream, so its middle spans several times (tiles so
#: asked on seeds 103-67 and 7's first 60: 2.2 and more, all but one 3.5 and more, in deep shade up to 49), and where
#: veiling light or fair light leaves it spanning little, the networks, seeing each cell scaled by its own light, see
#: its pattern (the one such tile: 0.998 a tile). In deep shade the networks may miss a tile (seed 103 frame 105 A6, a
#: black s at 0.056; seed 101 frame 72 F6, 0.11): its middle spans 20 and 6.4. Paper asked: a median 0.03.
SHADE_NO_TILE = 0.1
#: A tile the rules read with a blank side facing a cell they left unreadable stands only where every view of the
#: networks gives under this to something covering the tile: a hand that leaves that cell unreadable (pale skin, which
#: the light-divided picture makes paper-like and no pixel of which looks hand-like; or its shade) may lie over the
#: side, its edge or its shade dark like ink over a wave's end. The networks, seeing the cell and a quarter of one
#: beyond it, see something there a little (seed 233 frame 99 E1, a black ew whose east end a pale finger's edge and
#: shade cover: read "black w" at 0.76, every view under 0.004 for a wave there, up to 0.28 for a cover). On the tuning
#: sets 566 tiles were read right so, 23 of them with a view at 0.25 or more. Not in a blurred picture, where cells left
#: unreadable for the blur lie beside many tiles and the networks see a smeared tile as a little covered more often (the
#: fast camera's hard shaken sweep, seed 22: 49 cells of 12,000 more left unreadable where asked, 6 not; seed 193 frame
#: 156 I10, a hidden black ns under a hand read "black s" in a soft frame, is so left).
BESIDE_UNREAD_COVER_MAX = 0.25
#: Paper beside a hand, of the paper's hue clear of it, with the hand's shadow's edge across what shows of it, spans the
#: shadow's depth; a tile there, its hub and its body both in any half of its middle, spans its printed ratio of cream
#: over ink (6.4: ``TILE_LOG_RATIO`` is its log), which shade keeps. Spanning under this share of that ratio, in log
#: (3.05), with lit paper at its bright end (at least ``SHADOW_PAPER_TOP`` of the paper white, well above a black tile's
#: printed ink: a tile's ink alone, lit or shaded, has no such end), such a cell lit under ``FLAT_LIGHT_MAX`` is asked
#: of the networks as paper in shade is (``SHADE_NO_TILE``). (Tuning sets 149-67 and 7's first 60, cells of the paper's
#: hue beside a hand lit so: 21 tiles, spanning 3.8 (one, lit 1.09 of the board's white) and 4.7 to 49 clear of the
#: hand, a tile in some view at 0.83 and more; paper spanning 2.3-3.05 where the networks see no tile: 25 visible cells
#: read empty that were left unreadable.)
SHADOW_SPREAD_SHARE = 0.6
SHADOW_PAPER_TOP = 0.5
#: A middle spanning too little for ink is colourless, as paper in shade is, where no more than this share of it
#: shows colour (``classes``): a few specks of the picture's colour noise, or of a fringe along a hand's shadow, say
#: nothing of what lies under the shade (seed 149 frame 3 B9, paper in a hand's shadow: 0.015 of its middle, six
#: pixels, kept it unread). Red ink covers far more of a red tile's middle (visible red tiles of seeds 149 and 101: 0.11
#: and more, 99% of them 0.33 and more, but for one washed out whole by glare, which the glare keeps unread); pale skin
#: and black ink show no colour here, and the paper's hue and the networks tell them (``SHADE_NO_TILE``: the hidden
#: tiles this newly asks there measure 0.23 and more off the paper's hue, against 0.07). Visible paper of those seeds
#: spanning under ``SHADOW_SPREAD``: 1.9% show any colour, 99% under 0.03.
COLOUR_SPECKS = 0.05
#: A tile's hub, printed cream, in its darkest channel as a share of the paper's (``WAVE_BGR`` over ``PAPER_BGR``):
#: the light a hub shows, divided by the paper white, where the white estimate follows the light on it.
HUB_CREAM = float(min(WAVE_BGR) / min(PAPER_BGR))
#: A tile's printed ratio of cream over ink in the darkest channel, in log (its hub and wave over the lighter of black
#: and red ink): the gamma-encoded level keeps ratios as light does, so a shadow leaves it.
TILE_LOG_RATIO = float(np.log(min(WAVE_BGR) / max(min(BLACK_BGR), min(RED_BGR))))
#: The most paper with a shadow's edge across it may span (``SHADOW_SPREAD_SHARE`` of a tile's printed ratio, in log).
SHADOW_SPREAD = float(np.exp(SHADOW_SPREAD_SHARE * TILE_LOG_RATIO))
#: A shaded tile is placed by its template in log light where that stands at least this share of the printed ratio.
SHADE_RATIO_MIN = 0.3
#: ... and so is one the template in the light-divided picture found this far (a share of a cell) off its cell's centre,
#: whatever its peak: a shadow's edge across a tile pulls that template along the lit band (seed 149, tiles so left
#: unreadable: 0.17-0.27 of a cell off their cell's centre, 0.12-0.18 off their print; placed in log light, within 0.03
#: of it). Tiles are laid near their cell's centre, so few shaded tiles are asked (seed 149: 12 in 120 frames).
SHADE_PULL_MIN = 0.1
#: Light (over the paper white) below this is taken at it in log light (noise).
LOG_FLOOR = 0.02
#: A hub darker than this share of the paper white is not lifted (noise).
HUB_GAIN_FLOOR = 0.2
#: A pixel's cream level from its darkest channel over the paper white: 0 (a tile's body) at or under ``CREAM_FLOOR``,
#: 1 (paper, a wave's cream) ``CREAM_SPAN`` above it (``cream_level``).
CREAM_FLOOR, CREAM_SPAN = 0.3, 0.55


# -- the reader ----------------------------------------------------------------------------------

def cream_level(lo: np.ndarray) -> np.ndarray:
    """0 (a tile's body) .. 1 (paper, a wave's cream) from the darkest channel over the paper white, ``lo``."""
    return np.clip((lo - CREAM_FLOOR) * (1 / CREAM_SPAN), 0.0, 1.0)


@lru_cache(maxsize=4)
def _cream_samples(tile_sampling: TileSampling) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The samples of a tile's frame any of its cream may take (its hub, or an arm's wave, both halves): their offsets
    (u, v, in tile edges, float32), whether each is the hub's, and (4, samples) each arm's (n, e, s, w; uint8)."""
    masks = tile_sampling.masks
    arms = [(masks[f"arm_{d}_in"] | masks[f"arm_{d}_out"]).ravel() for d in "nesw"]
    where = np.flatnonzero(masks["hub"].ravel() | np.logical_or.reduce(arms))
    u, v = frame_coords()
    return (u.ravel()[where].astype(np.float32), v.ravel()[where].astype(np.float32), masks["hub"].ravel()[where],
            np.stack([m[where] for m in arms]).astype(np.uint8))


def paper_hued(grid: np.ndarray, geometry: GridGeometry, cells: np.ndarray, x: np.ndarray, y: np.ndarray,
               paper_hues: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """(100,) which of ``cells`` ((100,) bool) have a middle whose mean colour in ``grid`` (the raw BGR grid image) is
    the hue of the board's paper where it lies, within ``PAPER_HUE_CLOSE``: the plane through the hues of the paper
    round the decoded markers (``paper_hues``, as ``TileReader.read`` takes them; ``channels.off_paper_hue``), at the
    cells' centres ``x``, ``y`` (grid-image px, by ``Cell.index``). False where the markers place no plane.

    For a middle whose light is a plane and one soft straight edge (``cellmeasures.middle_edge_unevenness``): a shadow
    only dims the paper, and the light it leaves (sky or lamp beside the one it blocks) may tint it a little; pale skin
    over a tile is of another hue (seeds 103-67 and 7's first 60, sharp frames: middles of visible paper so read 0.003
    to 0.174 off in log, median 0.039, and 0.042 for those the second opinion saw covered; of hidden tiles so read 0.147
    and more, against 0.070 here). It does not tell a black tile from paper (its ink is colourless): the shape of the
    light does that."""
    out = np.zeros(100, bool)
    at = np.flatnonzero(cells)
    if at.size == 0:
        return out
    rows, cols, n = middle_corners(geometry, at)
    means = np.array([grid[r:r + n, c:c + n].reshape(-1, 3).mean(axis=0) for r, c in zip(rows, cols, strict=True)])
    return _of_paper_hue(at, means, x, y, paper_hues, geometry.size)


def _of_paper_hue(at: np.ndarray, means: np.ndarray, x: np.ndarray, y: np.ndarray,
                  paper_hues: tuple[np.ndarray, np.ndarray], size: float) -> np.ndarray:
    """(100,) True at the cells ``at`` (indices) whose middles' mean colours ``means`` (BGR) are the hue of the board's
    paper where they lie, within ``PAPER_HUE_CLOSE`` (``off_paper_hue``, through the paper round the markers); False
    elsewhere, and everywhere where the markers place no plane.

    Or cooler than it along the lights' own line, and within ``PAPER_HUE_CLOSE`` of it across that line: the board has
    two lights, a warm lamp and cooler daylight (and the room's colourless light), and the markers' paper shows their
    mix; paper in the lamp's shadow takes the light left to it, bluer and less red by the same log (a lamp's and
    daylight's colours differ along that line: blue up, red down, green about the mean of the two). Nothing on the
    board is bluer than the paper in the same light: pale skin and red ink are redder (skin 0.33 and more in log, red
    over blue), a tile's cream a little redder, black ink colourless (the shape of its light and the networks tell it).
    (Seeds 149-67 and 7's first 60, shade candidates this passes and the plain bar did not: 18 visible cells, all
    paper, 0.03-0.26 bluer and at most 0.062 off the line; of 443 cells under a hand or the lamp so asked, one bluer
    than 0.031, paper in a hand's blue shadow 0.17 bluer and 0.096 off the line.)"""
    out = np.zeros(100, bool)
    off = paper_hue_offsets(means, x[at], y[at], *paper_hues, size)
    if off is not None:
        close = np.log(PAPER_HUE_CLOSE)
        cooler = off[:, 0] - off[:, 2]
        across = np.abs(off[:, 1] - 0.5 * (off[:, 0] + off[:, 2]))
        out[at] = ((off.max(axis=1) - off.min(axis=1)) <= close) | ((cooler > 0) & (across <= close))
    return out


def near_hand(hand: np.ndarray, px_per_cell: int) -> np.ndarray:
    """``hand`` (the hand-like mask, bool) and a rim of ``HAND_RIM`` round it (a hand's soft edge and its own shade)."""
    w = int(round(HAND_RIM * px_per_cell)) | 1
    return cv2.dilate(hand.view(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (w, w))) > 0


def paper_beside_hand(grid: np.ndarray, geometry: GridGeometry, cells: np.ndarray, over: np.ndarray,
                      unexplained: np.ndarray | None, empty_max: float, x: np.ndarray, y: np.ndarray,
                      paper_hues: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """(100,) which of ``cells`` ((100,) bool) show, clear of ``over`` (the hand-like mask and a rim of ``HAND_RIM``
    round it: ``near_hand``), at least ``SHOWN_MIN`` of their middle, and that part clean paper: under ``empty_max`` of
    it ink no tile read explains (``unexplained``), and its mean colour in ``grid`` (the raw BGR grid image) the hue of
    the board's paper where it lies (``paper_hued``: pale skin, which shows no hand-like colour after the light's
    division, is of another hue). ``x``, ``y``: the cells' centres (grid-image px, by ``Cell.index``).

    A tile is 0.96 of its cell: over any half of the middle it shows its body's dark ink (or red), which is neither
    clean nor the paper's hue, wherever the hand covers the rest. ``unexplained`` None: no ink asked of that part, only
    its hue (paper in a hand's shadow, which the white estimate cannot follow: ink there says nothing)."""
    out = np.zeros(100, bool)
    at = np.flatnonzero(cells)
    if at.size == 0:
        return out
    rows, cols, n = middle_corners(geometry, at)
    means, shown = np.zeros((at.size, 3)), np.zeros(at.size, bool)
    for k, (r, c) in enumerate(zip(rows, cols, strict=True)):
        clear = ~over[r:r + n, c:c + n]
        seen = int(clear.sum())
        if seen < SHOWN_MIN * n * n or (unexplained is not None and np.count_nonzero(
                unexplained[r:r + n, c:c + n] & clear) >= empty_max * seen):
            continue
        shown[k] = True
        means[k] = grid[r:r + n, c:c + n][clear].reshape(-1, 3).mean(axis=0)
    if not shown.any():
        return out
    return _of_paper_hue(at[shown], means[shown], x, y, paper_hues, geometry.size)


def clear_spread(dark: np.ndarray, geometry: GridGeometry, cells: np.ndarray, over: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(len(cells),) how far what shows of the middle of each of ``cells`` (indices), clear of ``over`` (the hand-like
    mask and a rim of ``HAND_RIM`` round it: ``near_hand``), ranges in ``dark`` (as ``middle_spread``: its bright end
    over its dark end, robust quantiles, lightly smoothed): paper in a soft shadow near 1, a tile's ink against its
    cream several times. A middle with nothing clear of the hand ranges without bound (``inf``). And (len(cells),)
    that bright end (0 where nothing shows)."""
    smooth = cv2.blur(dark, (3, 3))
    rows, cols, n = middle_corners(geometry, cells)
    out, top = np.full(len(cells), np.inf), np.zeros(len(cells))
    for k, (r, c) in enumerate(zip(rows, cols, strict=True)):
        shown = np.sort(smooth[r:r + n, c:c + n][~over[r:r + n, c:c + n]])
        if shown.size:
            q = int(SPREAD_QUANTILE * shown.size)
            top[k] = shown[shown.size - 1 - q]
            out[k] = top[k] / max(float(shown[q]), 1e-3)
    return out, top


def spans_as_shaded_paper(spread: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Whether middles that range ``spread`` (``middle_spread``, ``clear_spread``), ``top`` their bright end, range as
    paper in shade does: under ``SOFT_SPREAD`` (a soft shadow), or, with a shadow's edge across them, lit paper at the
    bright end (``SHADOW_PAPER_TOP``) and under ``SHADOW_SPREAD``, well short of a tile's printed ratio, which shade
    keeps."""
    return (spread < SOFT_SPREAD) | ((spread < SHADOW_SPREAD) & (top >= SHADOW_PAPER_TOP))


class TileReader:
    """Reads every cell of a canonical grid image (see ``vision.finder.GridGeometry``).

    ``tile`` is the artwork's tile geometry (``BoardLayout.tile``): where the reader samples each tile,
    ``sampling``, follows from it. After ``read``, ``measures`` holds the per-cell numbers the decisions
    were made on (arm and dot levels, body redness, residual, ...; arrays indexed by ``Cell.index``), for
    calibration and diagnosis.
    """

    def __init__(self, geometry: GridGeometry | None = None, model: ColourModel | None = None,
                 tile: TileGeometry = TILE, second: SecondOpinion | None = None) -> None:
        self.geometry = geometry or GridGeometry()
        self.model = model or ColourModel()
        #: The second opinion on cells the rules leave unreadable (the shipped network unless one is given).
        self.second = second or second_opinion()
        self.sampling: TileSampling = sampling(tile)
        #: The sample indices of a tile's hub and of its body (``_hub_gain``).
        self._hub_body = tuple(np.flatnonzero(self.sampling.masks[name].ravel()) for name in ("hub", "body"))
        self.measures: dict[str, np.ndarray] = {}
        self.beyond_paper: np.ndarray | None = None      # set by ``normalise``
        self.off_hue: np.ndarray | None = None           # set by ``normalise`` (``off_paper_hue``)
        self._shade: tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None = None   # ``shade`` of a ``normalise``
        self._paper_level: tuple[np.ndarray, np.ndarray, float] | None = None   # ``paper_level`` of a ``normalise``
        p = self.geometry.px_per_cell
        self.tile_px = tile.size * p
        # A finger is most of a cell wide; the blurred rim of a wave is a few pixels.
        k = int(round(0.3 * p)) | 1
        self._open_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        # Glare falls off over a few pixels: the rim of a washed-out patch is lifted too.
        w = int(round(WASHED_RIM * p)) | 1
        self._washed_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (w, w))
        # Cell centres (x, y) in grid-image pixels, as (10, 10) arrays.
        m, idx = self.geometry.margin_px, np.arange(10, dtype=np.float32)
        self._cx, self._cy = np.meshgrid(m + (idx + 0.5) * p - 0.5, m + (idx + 0.5) * p - 0.5)

    # Step 1 --------------------------------------------------------------------------------------
    def normalise(self, grid: np.ndarray, marker_paper: np.ndarray | None = None,
                  paper_hues: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The grid image divided by a local paper-white estimate (paper and cream ~1, float32), and
        per cell how much brighter its white is than the board's white around it (glare: > 1). ``marker_paper`` (BGR):
        the paper around the markers decoded in the frame, if measured (the brightest of
        ``vision.recognizer.marker_papers``); ``paper_hues`` that round each marker and where (``off_paper_hue``)."""
        p = self.geometry.px_per_cell
        small = cv2.resize(grid, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        k = max(3, int(round(1.0 * p / 4)) | 1)
        brightest_near = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
        white = brightest_near.astype(np.float32)
        # A hand (or anything large) has no paper in reach, and its own brightest pixel would pass for white. Paper
        # white varies in brightness across the board (light falls off) and, slowly, in hue (a window on one side, a
        # warm lamp on the other), so a local white much darker or brighter than the board's median white, or of
        # another hue than the smooth field of hues around it, is replaced by the paper white around it.
        median = median_colour(brightest_near.reshape(-1, 3)) + 1.0
        anchored = False
        if marker_paper is not None and median.mean() > MARKER_PAPER_RATIO * (float(np.mean(marker_paper)) + 1.0):
            # Far brighter than the paper at every marker seen: not the board's paper but something bright over most of
            # it (a lamp in view). The markers' paper is the board's white then, and the bright thing no paper (its
            # local white is far above it: replaced below by the paper white near, so it reads as no paper at all).
            median, anchored = np.asarray(marker_paper, np.float64) + 1.0, True
        self.paper_white = median - 1.0
        m, q = self.geometry.margin_px // 4, p / 4
        centres = (m + (np.arange(10) + 0.5) * q).astype(int)
        at = np.ix_(centres, centres)
        self.off_hue = None if paper_hues is None else off_paper_hue(
            white[at].reshape(100, 3), self._cx.ravel(), self._cy.ravel(), *paper_hues, self.geometry.size, HUE_SPREAD)
        ratio = white / median
        # The mean of the three channels, summed in the order ``mean`` sums them (the same float32 numbers, faster).
        luma = (ratio[..., 0] + ratio[..., 1] + ratio[..., 2]) / 3
        self._white_luma = luma           # quarter size: where the light is dim or bright (vision.causes)
        hue = ratio / hue_field(ratio, luma, HUE_OUTLIER)
        valid = ((luma > 0.55) & (luma < 1.6)
                 & (brightest(hue) < HUE_SPREAD * darkest(hue))).astype(np.float32)
        if not valid.all():
            # Filled from valid white within about two cells (smooth: done on a quarter-size copy).
            size = (white.shape[1], white.shape[0])
            tiny = (max(1, size[0] // 4), max(1, size[1] // 4))
            support = cv2.GaussianBlur(cv2.resize(valid, tiny, interpolation=cv2.INTER_AREA), (0, 0), p / 8)
            spread = cv2.GaussianBlur(cv2.resize(white * valid[..., None], tiny, interpolation=cv2.INTER_AREA),
                                      (0, 0), p / 8)
            filled = np.where((support > 0.05)[..., None], spread / np.maximum(support, 1e-3)[..., None], median)
            filled = cv2.resize(filled.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
            white = np.where(valid[..., None] > 0, white, filled)
        # Glare adds light that the division cannot take out (dark ink turns paper-bright): find it
        # as white well above the median white of the neighbourhood, which follows slow gradients.
        bright = np.clip(brightest(white), 0, 255).astype(np.uint8)
        half = cv2.resize(bright, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        neighbourhood = cv2.medianBlur(half, max(3, int(round(5 * p / 8)) | 1))
        glare = bright[at].astype(np.float32) / np.maximum(neighbourhood[np.ix_(centres // 2, centres // 2)], 16)
        # (100,) cells lit far beyond the markers' paper (their white that many times theirs) where the board's white
        # was taken from the markers: no paper is lit so, so nothing of the board shows there (None: its own white).
        self.beyond_paper = (luma[at] > MARKER_PAPER_RATIO).ravel() if anchored else None
        white = cv2.GaussianBlur(white, (0, 0), p / 8)
        white = cv2.resize(white, (grid.shape[1], grid.shape[0]), interpolation=cv2.INTER_LINEAR)
        floor = (WHITE_FLOOR * median / median.max()).astype(np.float32)
        # Per channel against a scalar: the same numbers as numpy's broadcast maximum, at a fifth of its time.
        return cv2.divide(grid, cv2.max(white, (*map(float, floor), 0.0)), dtype=cv2.CV_32F), glare

    # Step 2 and 5 --------------------------------------------------------------------------------
    def classes(self, norm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per pixel: cream level (0 tile body .. 1 paper), redness, not-paper mask, hand-like mask."""
        mdl = self.model
        b, g, r = cv2.split(norm)
        lo, hi = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
        redness = cv2.subtract(r, cv2.max(b, g))
        cream = cream_level(lo)
        chroma = cv2.subtract(hi, lo)
        # Paper and cream are light and colourless once divided by the paper white (light skin: not colourless).
        coloured = chroma > mdl.paper_chroma_max
        not_paper = (lo < mdl.light_min) | coloured
        self._lo, self._coloured = lo, coloured      # for ``read``: the light level and which pixels show colour
        # Hand-like: not paper, not grey (black ink, however lifted), not saturated red ink. Red ink, however orange
        # the printer made it or lifted by glare, keeps red far above blue (skin: blue is at least half of red).
        red_ink = (redness > mdl.red_min) | (cv2.subtract(r, b) > mdl.red_ink_saturation * r)
        self._red_ink = red_ink           # for ``read``: a blank side of red ink is no hand's (``overlaid``)
        # Paper in the lamp's cast shadow, lit by the window only, is bluer than the paper white around it: skin is
        # always redder than paper under one light (tuning seed 43, frame 51: the hand's shadow read as a hand).
        cool = (cv2.subtract(b, r) > mdl.shade_blue_min) & (chroma < mdl.shade_chroma_max)
        other = (not_paper & (chroma > mdl.skin_chroma_min) & ~red_ink & ~cool).view(np.uint8)
        # Blurred borders between body and cream look hand-like for a pixel or two; a hand is wider.
        other = cv2.morphologyEx(other, cv2.MORPH_OPEN, self._open_kernel)
        # A hand or arm is a blob of several cells; a tinted patch of ink is at most about one tile.
        p = self.geometry.px_per_cell
        least = mdl.hand_min_cells * p * p
        if cv2.countNonZero(other) < least:
            # Too few such pixels in all for any blob of them to be that large (most frames: no hand).
            return cream, redness, not_paper, np.zeros(other.shape, bool)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(other, connectivity=8)
        big = stats[:, cv2.CC_STAT_AREA] >= least
        big[0] = False
        other = np.take(big, labels) if count > 1 else other.view(bool)
        return cream, redness, not_paper, other

    # Step 3 --------------------------------------------------------------------------------------
    def _hub_response(self, cream: np.ndarray) -> np.ndarray:
        t = self.tile_px
        k_hub = int(round(self.sampling.hub_kernel * t)) | 1
        k_patch = int(round(self.sampling.body_patch * t)) | 1
        d = int(round(self.sampling.body_offset * t))
        hub = cv2.blur(cream, (k_hub, k_hub))
        patch = cv2.copyMakeBorder(cv2.blur(cream, (k_patch, k_patch)), d, d, d, d, cv2.BORDER_REPLICATE)
        h, w = cream.shape
        diag = (patch[:h, :w] + patch[:h, 2 * d:] + patch[2 * d:, :w] + patch[2 * d:, 2 * d:]) * 0.25
        return hub - diag

    def _centres(self, response: np.ndarray, cells: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tile centres (x, y) near each cell centre, and the template response there, as (10, 10) arrays. ``cells``
        ((100,) bool): worked out for those alone (a template worked out round a few cells: ``_template_in``), the
        others given their cell's centre and no response (-1)."""
        p = self.geometry.px_per_cell
        reach = int(round(0.3 * p))
        at = np.arange(100) if cells is None else np.flatnonzero(cells)
        win = np.lib.stride_tricks.sliding_window_view(response, (2 * reach + 1, 2 * reach + 1))
        x0 = (np.rint(self._cx).astype(int) - reach).ravel()[at]
        y0 = (np.rint(self._cy).astype(int) - reach).ravel()[at]
        windows = win[y0, x0]                                     # (cells, 2r+1, 2r+1)
        flat = windows.reshape(at.size, -1)
        best = flat.argmax(axis=1)
        iy, ix = np.divmod(best, 2 * reach + 1)
        k = np.arange(at.size)
        peak = flat[k, best]

        def vertex(minus: np.ndarray, mid: np.ndarray, plus: np.ndarray) -> np.ndarray:
            denom = minus - 2 * mid + plus
            return np.where(denom < -1e-6, 0.5 * (minus - plus) / np.where(denom < -1e-6, denom, -1), 0.0)

        ixm, ixp = np.clip(ix - 1, 0, 2 * reach), np.clip(ix + 1, 0, 2 * reach)
        iym, iyp = np.clip(iy - 1, 0, 2 * reach), np.clip(iy + 1, 0, 2 * reach)
        dx = vertex(windows[k, iy, ixm], peak, windows[k, iy, ixp])
        dy = vertex(windows[k, iym, ix], peak, windows[k, iyp, ix])
        # A best match on the rim of the search window is the edge of something larger (neighbours
        # seen together), not a tile centred near this cell: its template response does not count.
        on_rim = (ix == 0) | (ix == 2 * reach) | (iy == 0) | (iy == 2 * reach)
        cx, cy = self._cx.astype(np.float32).ravel(), self._cy.astype(np.float32).ravel()
        cx[at] = x0 + ix + np.clip(dx, -0.5, 0.5)
        cy[at] = y0 + iy + np.clip(dy, -0.5, 0.5)
        found = np.where(on_rim, -1.0, peak)
        out = np.full(100, -1.0, found.dtype)
        out[at] = found
        return cx.reshape(10, 10), cy.reshape(10, 10), out.reshape(10, 10)

    def _template_in(self, image: np.ndarray, cells: np.ndarray, light) -> tuple[np.ndarray, np.ndarray]:
        """``light`` of ``image`` (float32: linear light, log light), and the hub's template response to it, over the
        bounding box of ``cells`` (100, bool) and a cell round it (further than the template and the centres' search
        reach); zero elsewhere."""
        p, m = self.geometry.px_per_cell, self.geometry.margin_px
        rows, cols = np.divmod(np.flatnonzero(cells), 10)
        y0, y1 = max(m + (rows.min() - 1) * p, 0), min(m + (rows.max() + 2) * p, image.shape[0])
        x0, x1 = max(m + (cols.min() - 1) * p, 0), min(m + (cols.max() + 2) * p, image.shape[1])
        lit, response = np.zeros(image.shape, np.float32), np.zeros(image.shape, np.float32)
        lit[y0:y1, x0:x1] = light(image[y0:y1, x0:x1])
        response[y0:y1, x0:x1] = self._hub_response(lit[y0:y1, x0:x1])
        return lit, response

    def _placed(self, cells: np.ndarray, found: tuple[np.ndarray, np.ndarray, np.ndarray],
                again: tuple[np.ndarray, np.ndarray, np.ndarray], angle: np.ndarray,
                picture: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the centres and peaks ``found`` (cx, cy, peak) and of ``angle``, with ``cells`` ((100,) bool) given
        those found ``again`` in another picture of the light, ``picture``, and their turn measured in it."""
        at = np.flatnonzero(cells)
        cx, cy, peak = (a.copy() for a in found)
        for old, new in zip((cx, cy, peak), again, strict=True):
            old.ravel()[at] = new.ravel()[at]
        angle = angle.copy()
        angle[at] = self._angles(picture, cx.ravel()[at], cy.ravel()[at])
        return cx, cy, peak, angle

    def _samples_in_linear(self, lowest: np.ndarray, at: np.ndarray, cx: np.ndarray, cy: np.ndarray,
                           angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tiles at ``at`` (indices) sampled in ``lowest`` (the grid image's darkest channel), (len(at), samples)
        grey levels, and each sample's linear light."""
        grey = self._patches(lowest.astype(np.float32), cx.ravel()[at], cy.ravel()[at], angle.ravel()[at])
        grey = grey.reshape(at.size, -1)
        return grey, LINEAR[np.clip(np.rint(grey), 0, 255).astype(np.uint8)]

    def _angles(self, cream: np.ndarray, cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
        """Each tile's turn in radians, from the 4-fold symmetric mean of its edge directions."""
        # Measured in a patch a little larger than the tile (its outer edges too), then once more in a patch turned
        # by that first answer: the measure is biased in proportion to the turn, so the second correction is near exact.
        angle = np.zeros(cx.size, np.float32)
        weight = self.sampling.angle_weight
        for _ in range(2):
            patch = self._patches(cream, cx, cy, angle, extent=ANGLE_EXTENT)[..., 0]
            gx = patch[:, 1:-1, 2:] - patch[:, 1:-1, :-2]
            gy = patch[:, 2:, 1:-1] - patch[:, :-2, 1:-1]
            # (gx + i gy)^4 / |g|^2: edges at 90 degrees to each other add up, weighted by strength. (Each product
            # made once and the rest in place: the same operations on the same numbers, in 0.7 of the time.)
            xx, yy = gx * gx, gy * gy
            a = xx - yy
            mag = np.add(xx, yy, out=xx)
            mag += 1e-6
            b = np.multiply(gx, 2, out=gx)
            b *= gy
            re = np.multiply(a, a, out=yy)
            re -= np.multiply(b, b, out=gy)
            re /= mag
            re *= weight
            im = np.multiply(a, 2, out=a)
            im *= b
            im /= mag
            im *= weight
            re, im = re.sum(axis=(1, 2)), im.sum(axis=(1, 2))
            angle = angle + (np.arctan2(im, re) / 4).astype(np.float32)
        return angle

    def _patches(self, image: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray,
                 extent: float = 1.0) -> np.ndarray:
        """(100, PATCH, PATCH, ch) samples of ``image`` in each tile's own frame, ``extent`` tiles wide."""
        u, v = frame_coords()
        return in_tile_frames(image, cx, cy, angle, u * (self.tile_px * extent), v * (self.tile_px * extent))

    # Step 4 --------------------------------------------------------------------------------------
    def read(self, grid: np.ndarray, cell_px: np.ndarray | None = None,
             sharp_reference: float | None = None, moved: bool = False,
             doubt: np.ndarray | None = None, wanted: np.ndarray | None = None,
             marker_paper: np.ndarray | None = None,
             paper_hues: tuple[np.ndarray, np.ndarray] | None = None) -> TileReadout:
        """Read all 100 cells of a grid image (BGR uint8, ``geometry.size`` square); ``wanted`` (100,) bool: the cells
        whose readings are used (the second opinion, per cell, is asked about no other, and the printed lines are
        measured only when one of them asks: another cell's confidence may stand higher than a whole read gives it; no
        causes are named, ``TileReadout.causes`` is left empty).

        For the causes of unreadable cells (``TileReadout.causes``): ``cell_px`` each cell's width in the picture
        (by ``Cell.index``), ``sharp_reference`` recent sharp frames' edge width, ``moved`` the finder saw motion.
        ``doubt`` (100,): how far the board's pose may misplace each cell, in cells (``BoardFinder.cell_doubt``).
        ``marker_paper`` (BGR): the paper around the markers decoded in the frame (``normalise``); ``paper_hues``: the
        paper round each of them, (N, 2) grid-image px and (N, 3) BGR (``off_paper_hue``)."""
        mdl = self.model
        norm, glare = self.normalise(grid, marker_paper, paper_hues)
        cream, redness, not_paper, other = self.classes(norm)

        middle_body = cell_shares(not_paper, self.geometry, *MIDDLE)
        cell_other = cell_shares(other, self.geometry, 0.0, 1.0)
        middle_other = cell_shares(other, self.geometry, *MIDDLE)

        cx, cy, peak = self._centres(self._hub_response(cream))
        angle = self._angles(cream, cx, cy)
        # Glare can wash part of a tile out to paper white: there its ink says nothing, so those samples
        # (and a rim around them, lifted but not yet clipped) are left out of every level below, and the
        # tile is read from its other arm halves and corner dots when enough of them remain.
        lowest = darkest(grid)
        clipped = lowest >= WASHED_LEVEL
        middle_washed = cell_shares(clipped, self.geometry, *MIDDLE)
        light, evenness = self.shade()
        # In shade as ``vision.causes`` names it: dim, or a shadow's edge across the cell.
        in_shadow = (light < SHADOW_LIGHT) | (evenness < SHADOW_EDGE)
        # A lamp's sheen lifts a tile's ink toward its cream: divided by the lifted white, the body's level nears the
        # cream's, where the cream level stops (1), and the hub's template finds little to place the tile by. A sheen
        # adds light, so in linear light the template (the hub less the body round it) answers to the diffuse relief
        # alone, whatever the sheen's level and its slope across the tile: there, unclipped, a tile the template found
        # too little contrast to read by (as the contrast below: the hub less the body round it) is placed so.
        # (Only cells with ink in their middle, as a tile needs below; the template is worked out round those alone.)
        recentred = ((light >= SHEEN_LIGHT) & (middle_washed == 0)
                     & (peak.ravel() <= self.model.hub_contrast_min) & (middle_body > self.model.occupied_min))
        if recentred.any():
            lin_grey, response = self._template_in(lowest, recentred, lambda grey: LINEAR[grey])
            lx, ly, lpeak = self._centres(response, recentred)
            # (Only where it finds a tile's relief there, as a tile in a sheen is read by below, and the two places
            # differ by more than the template's own play: elsewhere the sheen did not move it.)
            recentred &= ((lpeak.ravel() >= SHEEN_RELIEF_MIN * TILE_RELIEF * float(linear(self.paper_level())))
                          & (np.hypot(lx - cx, ly - cy).ravel() > RECENTRE_MIN * self.geometry.px_per_cell))
            if recentred.any():
                cx, cy, peak, angle = self._placed(recentred, (cx, cy, peak), (lx, ly, lpeak), angle, lin_grey)
        # A shadow dims a tile's cream and ink alike: where the white estimate cannot follow it (taken over a cell,
        # smoothed over half of one), the cream levels are crushed toward the body's and the hub's template finds too
        # little, or the lit paper beyond the shadow's edge, on the rim of its reach. Dimming multiplies the light, so
        # in log light the template (the hub less the body round it) answers to the tile's printed ratio of cream over
        # ink whatever the shade's depth and its slope across the tile: there, a shaded tile the template found too
        # little contrast to read by is placed where that finds a tile's ratio. So is one the template found far off
        # its cell's centre (``SHADE_PULL_MIN``): with a shadow's edge across the tile, the light-divided picture's
        # cream is lit on one side and crushed on the other, and the template slides along the lit band, taking the
        # lit paper or a lit wave beyond the tile's edge for part of its cream. (Its levels are then taken against its
        # own hub, ``_hub_gain``, its arms in doubt by their ratio over their flanks, ``_shaded_waves``, and every test
        # of a tile still applies.)
        off_centre = np.hypot(cx - self._cx, cy - self._cy).ravel() > SHADE_PULL_MIN * self.geometry.px_per_cell
        reshaded = (in_shadow & ~recentred & (middle_washed == 0) & (cell_other.ravel() <= mdl.other_max)
                    & ((peak.ravel() <= mdl.hub_contrast_min) | off_centre) & (middle_body > mdl.occupied_min))
        if reshaded.any():
            log_lo, response = self._template_in(self._lo, reshaded,
                                                   lambda lo: cv2.log(cv2.max(lo, LOG_FLOOR)))
            sx, sy, speak = self._centres(response, reshaded)
            reshaded &= speak.ravel() >= SHADE_RATIO_MIN * TILE_LOG_RATIO
            if reshaded.any():
                cx, cy, peak, angle = self._placed(reshaded, (cx, cy, peak), (sx, sy, speak), angle, log_lo)
        centred = (peak > 0).ravel()
        col = {name: k for k, name in enumerate(self.sampling.regions)}
        # Cream, redness, unclipped light (for ratios shade keeps) in one remap: 4 float channels remap fastest.
        patches = self._patches(cv2.merge([cream, redness, self._lo, other.astype(np.float32)]), cx, cy, angle)
        flat = patches.reshape(100, PATCH * PATCH, -1)
        # A tile's hub is printed cream, lit as the paper: in a shadow the white estimate cannot follow (it is taken
        # over a cell and smoothed over half of one), the hub is the tile's own white. Where a shaded tile's cream
        # levels are too compressed for its pattern, its light is divided by its hub's (shade dims all alike).
        hub_gain = self._hub_gain(flat, in_shadow & (middle_washed == 0) & (cell_other.ravel() <= mdl.other_max),
                                  reshaded)
        if hub_gain is not None:
            at, gain = hub_gain
            flat[at, :, 1] *= gain[:, None]
            flat[at, :, 2] *= gain[:, None]
            flat[at, :, 0] = cream_level(flat[at, :, 2])
        if clipped.any():
            spots, rims = clipped.astype(np.float32), cv2.dilate(clipped.view(np.uint8), self._washed_kernel)
            washed = self._patches(cv2.merge([spots, rims.astype(np.float32), spots, spots]), cx, cy, angle).reshape(
                100, PATCH * PATCH, 4)
        suspect = np.zeros((100, len(col)), bool)
        valid = np.ones(flat.shape[:2], np.float32)
        glare_seen = np.zeros(100, bool)
        unwashed = True     # every sample valid: a masked mean is the plain mean (x * 1 / 1: the same numbers)
        if clipped.any():
            clip_share = self.sampling.region_means(washed[..., 0])
            # Clipped cream is still cream (an over-exposed picture clips the hub and the waves alike). A
            # tile is under glare where its dark body clips: there the clipped samples and their rim say
            # nothing. A region clipped well beyond its hub may be blank ink washed to cream: not read.
            glared = clip_share[:, col["body"]] > 0.02
            valid = np.where(glared[:, None], washed[..., 1] < 0.5, True).astype(np.float32)
            suspect = clip_share > clip_share[:, col["hub"]][:, None] + WASHED_BEYOND_HUB
            suspect[:, [col["body"], col["hub"]]] = False        # the body is masked above; the hub is cream
            glare_seen = glared | suspect.any(axis=1)
            unwashed = not glared.any()
        # A tile covered in part by something hand-like (a finger over a corner or over a side's end) is read, as under
        # glare, from the samples clear of it and of a rim around it (its soft edge, the shadow beneath), where its hub
        # and body show and every arm shows a half (``read_arms``: a side covered whole leaves the tile in doubt).
        in_part = ((cell_other > mdl.other_max) & (cell_other <= PART_COVERED_MAX)).ravel()
        if in_part.any():
            at = np.flatnonzero(in_part)
            over = cv2.dilate(other.view(np.uint8), self._washed_kernel).astype(np.float32)
            clear = self._patches(over, cx.ravel()[at], cy.ravel()[at], angle.ravel()[at]).reshape(at.size, -1) < 0.5
            valid[at] *= clear
            unwashed = False
        seen = self.sampling.region_means(valid)                    # (100, regions) share not washed out

        def unwashed_means(samples: np.ndarray) -> np.ndarray:
            """(100, regions) the mean of ``samples`` over each region's samples not washed out."""
            if unwashed:
                return self.sampling.region_means(samples)
            return self.sampling.region_means(samples * valid) / np.maximum(seen, 1e-3)

        means = unwashed_means(flat[..., 0])
        red_means = unwashed_means(flat[..., 1])
        kept = (seen >= WASHED_REGION) & ~suspect
        # A flank is the body either side of an arm's half: half of it seen (the rest under glare or a hand, a finger
        # over a tile's corner) is the body beside the arm all the same.
        flank_cols = [col[f"flank_{d}_{part}"] for part in ("in", "out") for d in "nesw"]
        kept[:, flank_cols] |= (seen[:, flank_cols] >= WASHED_REGION / 2) & ~suspect[:, flank_cols]

        body_level = means[:, col["body"]]
        # The hub is cream: washed out, it still reads as cream.
        hub_level = (means if unwashed else self.sampling.region_means(flat[..., 0]))[:, col["hub"]]
        contrast = np.where(kept[:, col["body"]], hub_level - body_level, 0.0)
        scale = np.maximum(contrast, 1e-3)[:, None]
        # A lamp's sheen adds light alike to a tile's cream and its ink: divided by the lifted white, the hub's contrast
        # falls toward nothing, while in linear light the hub stands above the body by the relief the diffuse light
        # gives it (``TILE_RELIEF``), as long as nothing clips and the hub is short of the tone curve's shoulder. Blur
        # and shade take that relief away; a sheen does not. In a sheen, where the contrast is too little to read the
        # tile by (any tile's, or a black one's where the body shows no red), a hub standing out so is contrast enough.
        sheen_relief = np.zeros(100, bool)
        too_little = np.where(red_means[:, col["body"]] > mdl.redness_split, mdl.hub_contrast_min,
                              mdl.black_contrast_min)
        # A lamp's spot may clip a tile's cream (its hub, the far end of a wave, with the paper beyond it) while its ink
        # stays below clipping: clipped cream is the lamp's light by itself (the exposure keeps paper under the clip),
        # whatever the cell's white says. Clipping (and the tone curve's shoulder before it) takes the cream's light
        # down, never up: the relief measured between hub and body is then at most the tile's, so a hub standing out so
        # is a tile's all the same, as long as the ink it stands over is measured, not clipped: no sample of the body
        # (the flanks of every arm with it) clips, nor of a side read blank (below, ``washed_ink``). A half clipped
        # beyond its hub (``WASHED_BEYOND_HUB``: blank ink washed to cream, maybe) stays unread as elsewhere, but no
        # longer keeps the rest of the tile from its relief: a spot as wide as a lamp's reflection (over half a cell)
        # that clips a blank side's ink clips the same ink beside it, the side's flanks, too. Not with anything
        # hand-like in the cell (lit skin clips too); the second opinion must see the cell uncovered, as for any tile
        # read by its relief (``by_relief``). (Seeds 149 and 101: of 19 blank halves with clipping, none with its flanks
        # unclipped; 4 cells so asked, one tile read. Drawn spots narrower than that, a tenth to half a cell, do clip a
        # blank half alone: over 1,500 such pictures of tiles with a blank side under one, the readings are as before.)
        cream_clipped = np.zeros(100, bool)
        if clipped.any():
            cream_cols = [col["hub"]] + [col[f"arm_{d}_{part}"] for part in ("in", "out") for d in "nesw"]
            cream_clipped = ((clip_share[:, [col["body"]] + flank_cols].max(axis=1) == 0)
                             & (clip_share[:, cream_cols].max(axis=1) > 0) & (cell_other.ravel() == 0))
        sheened = ((((light.ravel() >= SHEEN_LIGHT) & ~glare_seen & (middle_washed == 0)) | cream_clipped)
                   & kept[:, col["body"]] & kept[:, col["hub"]] & (contrast <= too_little) & centred)
        if sheened.any():
            at = np.flatnonzero(sheened)
            grey, lin_px = self._samples_in_linear(lowest, at, cx, cy, angle)
            hub_grey = self.sampling.region_means(grey)[:, col["hub"]]
            lin = self.sampling.region_means(lin_px)
            relief = (lin[:, col["hub"]] - lin[:, col["body"]]) / (TILE_RELIEF * float(linear(self.paper_level())))
            sheen_relief[at] = ((hub_grey < SHEEN_TOP) | cream_clipped[at]) & (relief >= SHEEN_RELIEF_MIN)
            # There the sheen is taken out: each sample's linear light, between the body's and the hub's, stands for
            # the cream level the tile would show under the diffuse light alone (levels, dots and the ideal picture).
            if sheen_relief.any():
                ok = sheen_relief[at]
                at, lin_px, lin = at[ok], lin_px[ok], lin[ok]
                lin_body, lin_scale = lin[:, [col["body"]]], lin[:, [col["hub"]]] - lin[:, [col["body"]]]
                bl, sc = body_level[at, None], contrast[at, None]
                means[at] = bl + (lin - lin_body) / lin_scale * sc
                flat[at, :, 0] = bl + (lin_px - lin_body) / lin_scale * sc
        arm_cols = [col[f"arm_{d}_{part}"] for part in ("in", "out") for d in "nesw"]
        # On the wave or beside it (a hand's shadow over a wave's end is dark like ink, not hand-like).
        hand_share = self.sampling.region_means(flat[..., 3])[:, arm_cols + flank_cols]
        hand_on = (hand_share > HAND_ON_SIDE).reshape(100, 4, 4).any(axis=1)
        arm_levels = ((means[:, arm_cols] - body_level[:, None]) / scale).reshape(100, 2, 4)
        against_body = arm_levels
        # The same against the body right beside each half: where the two disagree about wave or blank (a glare spot
        # lifting a blank arm with its flanks), the half is in doubt.
        local = ((means[:, arm_cols] - means[:, flank_cols]) / scale).reshape(100, 2, 4)
        arm_levels = np.where((local > 0.5) == (arm_levels > 0.5), arm_levels, 0.5)
        # A shadow's edge across a tile darkens a wave toward the body's level, yet it stays several times
        # brighter than the body beside it (shade keeps ratios; the body is dark ink): a half read blank
        # that is that much brighter than its flanks is in doubt. Blur bleeds the hub's cream into the inner half
        # of a blank arm only: one whose outer half is seen clearly blank and as dark as its flanks is no wave.
        lights = unwashed_means(flat[..., 2])
        ratio = (lights[:, arm_cols] / np.maximum(lights[:, flank_cols], 1e-3)).reshape(100, 2, 4)
        lit = ratio > mdl.blank_ratio_max
        arm_kept = kept[:, arm_cols].reshape(100, 2, 4) & kept[:, flank_cols].reshape(100, 2, 4)
        lit[:, 0] &= ~(arm_kept[:, 1] & ~lit[:, 1] & (arm_levels[:, 1] < 0.5 - mdl.arm_margin / 2))
        arm_levels = np.where((arm_levels < 0.5) & lit, 0.5, arm_levels)
        # A lamp's light (a sheen, or glare seen in the cell) adds light alike to a tile's cream and its ink, lifted
        # with a slope across the tile: divided by the lifted white, the cream levels crowd toward their ceiling, so a
        # wave stands out of its flanks by too little, and against the body's mean a blank arm on the slope's bright
        # side stands halfway to cream. In linear light, where nothing nears clipping, an added light cancels in the
        # difference of a half and its flanks (the body either side of it, at the same distance from the hub: the
        # slope cancels too), which stands at the hub's own relief over the body for a wave and at none for a blank
        # side. So a half left in doubt here is read by that difference, where the hub's relief is a tile's at the
        # board's paper light (nothing clips it, no shade dims it), every half of the tile says wave or blank so by
        # ``GLARE_ARM_MARGIN`` (below), and the half's level against the body does not say the other (or is in doubt
        # itself). Not in shade (dim, or uneven and no brighter than the paper) nor where anything hand-like shows in
        # the cell: neither adds light. A half read before is never changed, and every later test of a tile still
        # applies (residual, colour, a hand beside it).
        in_doubt = np.abs(arm_levels - 0.5) * 2 <= mdl.arm_margin
        flank_read = np.zeros(0, int)       # tiles with a half read so, their samples' linear light and which count
        sloped = np.zeros(100, bool)        # tiles lit above the paper whose light's unevenness is a sheen's slope
        lamp_lit = (((light.ravel() >= SHEEN_LIGHT) | glare_seen | (glare.ravel() > mdl.glare_max))
                    & in_doubt.any(axis=(1, 2)) & (middle_body > mdl.occupied_min) & centred
                    & ~(in_shadow & (light < SHEEN_LIGHT)).ravel()
                    & (cell_other.ravel() == 0))
        if lamp_lit.any():
            at = np.flatnonzero(lamp_lit)
            grey, lin_px = self._samples_in_linear(lowest, at, cx, cy, angle)
            lin_seen = ((grey < SHEEN_TOP) & (valid[at] > 0)).astype(np.float32)
            lin_share = self.sampling.region_means(lin_seen)
            lin = self.sampling.region_means(lin_px * lin_seen) / np.maximum(lin_share, 1e-3)
            hub_relief = lin[:, col["hub"]] - lin[:, col["body"]]
            paper_relief = TILE_RELIEF * float(linear(self.paper_level()))
            measurable = ((lin_share[:, [col["hub"], col["body"]]] >= LIN_SEEN).all(axis=1)
                          & (hub_relief >= GLARE_RELIEF[0] * paper_relief)
                          & (hub_relief <= GLARE_RELIEF[1] * paper_relief))[:, None, None]
            measurable = measurable & (np.minimum(lin_share[:, arm_cols], lin_share[:, flank_cols]).reshape(-1, 2, 4)
                                       >= LIN_SEEN)
            by_flanks = ((lin[:, arm_cols] - lin[:, flank_cols]) / np.maximum(hub_relief, 1e-6)[:, None]).reshape(
                -1, 2, 4)
            # The print has two levels: every half of a tile so lit, all eight measured, stands clearly at the one or
            # the other. A half between says something else is at work there (blur that mixes a wave or a corner dot
            # into its flanks, a tile placed off its print, a finger or its shade), and then no half is read so.
            decisive = (measurable & (np.abs(by_flanks - 0.5) * 2 > GLARE_ARM_MARGIN)).all(axis=(1, 2))
            body_says = against_body[at]
            not_denied = (((by_flanks > 0.5) == (body_says > 0.5))
                          | (np.abs(body_says - 0.5) * 2 <= mdl.arm_margin))
            read_so = decisive[:, None, None] & in_doubt[at] & not_denied
            # A tile lit above the paper yet as uneven as a shadow's edge across it: a sheen's slope, steep beside its
            # spot (seed 181 frame 135, C4 and F4 beside a sheen, unreadable as in shade). A shadow across it would dim
            # some halves' relief by its depth and leave them between the print's two levels (not ``decisive``); every
            # half measured, each clearly at one of them, is read so, and the slope is no shade to doubt a blank side.
            sloped_at = decisive & in_shadow.ravel()[at]
            read_so |= sloped_at[:, None, None]          # (``decisive``: every half measurable)
            sloped[at[sloped_at]] = True
            arm_levels[at] = np.where(read_so, by_flanks, arm_levels[at])
            flank_read = read_so.any(axis=(1, 2))
            flank_read, flank_lin, flank_seen = at[flank_read], lin_px[flank_read], lin_seen[flank_read]
        corners = ("nw", "ne", "se", "sw")
        dot_levels = (means[:, [col[f"dot_{k}"] for k in corners]]
                      - means[:, [col[f"ring_{k}"] for k in corners]]) / scale
        dot_kept = kept[:, [col[f"dot_{k}"] for k in corners]] & kept[:, [col[f"ring_{k}"] for k in corners]]
        # Blur leaves a small dot a fraction of its contrast; the mean of those seen is steadier than any one.
        dots = np.where(dot_kept, dot_levels, 0.0).sum(axis=1) / np.maximum(dot_kept.sum(axis=1), 1)
        seen_blur: list[Sharpness] = []     # the picture's sharpness, measured once, when first asked for

        def measured() -> Sharpness:
            if not seen_blur:
                seen_blur.append(sharpness(grid))
            return seen_blur[0]

        def blurred() -> bool:
            return moved or blur_cause(measured(), self.geometry.px_per_cell, sharp_reference) is not None

        def dots_fade() -> bool:         # edges wider than a corner dot: blur takes its contrast evenly
            return measured().width > DOT_FADE * self.sampling.tile.dot_diameter * self.tile_px

        rims: list[np.ndarray] = []     # the hand-like mask and its rim (``near_hand``), made once, when first asked

        def hand_rim() -> np.ndarray:
            if not rims:
                rims.append(near_hand(other, self.geometry.px_per_cell))
            return rims[0]

        def sides_clear(at: np.ndarray) -> np.ndarray:
            """(len(at), 4) the sides of the tiles at ``at`` whose arm and flanks, both halves, show nothing of the
            hand-like mask nor its rim."""
            clear = (self._patches(hand_rim().astype(np.float32), cx.ravel()[at], cy.ravel()[at], angle.ravel()[at])
                     .reshape(at.size, -1) < 0.5).astype(np.float32)
            return (self.sampling.region_means(clear)[:, arm_cols + flank_cols] >= 1.0).reshape(-1, 4, 4).all(axis=1)

        # A cell with little ink in its middle reads no tile by the rules, and its arms say nothing there nor in why it
        # is unread (``why_unread``): they are read as in a sharp picture unless a cell with ink asks the picture's
        # sharpness (it costs more than reading every arm; a sharp picture's noise leaves some paper's arms in doubt).
        occupied = middle_body > mdl.occupied_min
        # A hand's shade multiplies the light: a wave in it stays as many times as light as the ink beside it as cream
        # is over ink, though its level against the tile's own hub and body (lit by other light) falls to the body's.
        # So, beside a hand, a half in doubt is a wave where it stands over its flanks by ``SHADED_WAVE_RATIO`` and by
        # ``SHADED_WAVE_SHARE`` of the ratio the tile's own hub stands over its body (a blank arm's ink is lit as its
        # flanks: near 1), where the ratio means what it says: both halves of the side seen and clear of anything
        # hand-like and its rim (skin over a blank side is lighter than ink), the flanks dark as ink (under half the
        # hub's light: the tile placed over its body, not paper), no glare, not in a shadow the reader sees (placement
        # slides across a shadow's edge) and a sharp picture (blur spreads the hub's cream over a blank arm). In such a
        # shadow, so too for a tile placed by its template in log light (``reshaded``), which answers to the print
        # whatever the shade, and levelled against its own hub: a shadow's edge across it leaves a wave beyond the
        # edge dimmer than the hub, yet as many times as light as the ink beside it. (Tiles so placed on seeds 149 and
        # 101's first 35 frames, 26: every blank side, visible or hidden, at most 0.57 of this bar; the waves of the
        # tiles it let read, 1.2 of it and more.)
        shaded_wave = self._shaded_waves(arm_levels, arm_kept, ratio, lights, col, flank_cols,
                                         occupied & ~glare_seen & (glare.ravel() <= mdl.glare_max)
                                         & ((~in_shadow & around(around(cell_other.ravel() > 0))) | reshaded),
                                         hand_share, mdl)
        if shaded_wave is not None and not blurred():
            at, wave = shaded_wave
            wave &= sides_clear(at)[:, None, :]
            arm_levels[at] = np.where(wave, np.maximum(arm_levels[at], SHADED_WAVE_LEVEL), arm_levels[at])
        arms, arm_margin = read_arms(arm_levels, arm_kept, glare_seen | (glare.ravel() > mdl.glare_max), mdl.arm_margin,
                                     blurred, occupied)

        # A small spot of a lamp's light (a bare bulb's reflection in a glossy board) on a blank side lifts its ink
        # toward cream, or past it to clipping, and leaves the ink beside it, a few samples off, little lit: against the
        # body and against its flanks alike the side reads as a wave (and to the network too). Printed cream is not lit
        # so: under one light a wave's halves stand over their flanks in linear light by the hub's relief over the body
        # (an added light, smooth over that distance, cancels), both of them, from the hub to the edge, and no cream is
        # lit above the board's paper but by an added light. So, where a lamp lights the tile (its sheen, glare, or
        # clipping in the cell), a half lit above the paper and standing over its flanks by more than
        # ``SPOT_RELIEF_MAX`` of the hub's relief is a spot's light (clipping only lowers it), and a half standing over
        # its flanks by less than ``SPOT_WAVE_MIN`` of it is no printed cream (a spot lit the other half, or the hub):
        # no tile is read with a wave side so, and the second opinion may call no side so a wave. Not with anything
        # hand-like in the cell (skin lit by the lamp is no print either, and is refused elsewhere).
        spotted, unlit = np.zeros((100, 4), bool), np.zeros((100, 4), bool)
        spot_lit = (((light.ravel() >= SHEEN_LIGHT) | (glare.ravel() > mdl.glare_max) | glare_seen | cream_clipped)
                    & occupied & centred & (cell_other.ravel() == 0))
        if spot_lit.any():
            at = np.flatnonzero(spot_lit)
            grey, lin_px = self._samples_in_linear(lowest, at, cx, cy, angle)
            lin, grey_means = self.sampling.region_means(lin_px), self.sampling.region_means(grey)
            hub_relief = np.maximum(lin[:, col["hub"]] - lin[:, col["body"]], 1e-6)[:, None]
            over_flanks = (lin[:, arm_cols] - lin[:, flank_cols]) / hub_relief
            spotted[at] = ((over_flanks > SPOT_RELIEF_MAX) & (grey_means[:, arm_cols] > self.paper_level())).reshape(
                -1, 2, 4).any(axis=1)
            # ... and, for the second opinion, a side one of whose halves stands over its flanks by too little for
            # cream printed from the hub to the edge (a spot lifting the other half, or the hub, alone).
            unlit[at] = (over_flanks < SPOT_WAVE_MIN).reshape(-1, 2, 4).any(axis=1)

        # Colour, cue 1: the body's hue. Cue 2: the corner dots (two at least, seen). Both must say the same.
        body_red = red_means[:, col["body"]]
        hue_red = body_red > mdl.redness_split
        hue_margin = np.clip(np.abs(body_red - mdl.redness_split) / mdl.redness_split, 0, 1)
        # Blur takes much of a small dot's contrast; a black tile's corners stay at body level.
        dots_seen = dot_kept.sum(axis=1) >= 2
        dots_red = dots_seen & (dots > mdl.dot_red_min) & (np.where(dot_kept, dot_levels, np.inf).min(axis=1) > 0)
        dots_black = dots_seen & (dots < mdl.dot_black_max)
        # A black tile has no dots: each of its corners is its body's ink. Cream beside a corner (a wave's channel, the
        # paper past the tile's edge) that the camera's blur spreads into it, or a small cell's noise, lifts a corner or
        # two, never all four as a red tile's four cream dots stand: with a body of black's hue, the dimmer two corners
        # seen near the body's level (under ``CORNERS_BLACK_MAX`` above their rings, neither as dark below them as
        # something over a corner makes it) say black as the mean of four at that level does, where the hub stands out
        # of the body in the diffuse light (not by its relief in a sheen alone: on the fast camera's hard shaken sweeps
        # a red nesw in a sheen, its body of black's hue, had its dimmer two at 0.042). Not in a shadow (as
        # ``vision.causes`` names it), where the dots' measure fails both ways and a red body pales toward black's hue,
        # nor with anything hand-like in the cell or beside it, which shades corners unevenly too: there the second
        # opinion, which sees what lies beyond the cell, is asked as before (flat bench, hard seed 800016 D7: a black ew
        # beside a hand it reads right, which the rules would leave unread, as a tile whose wave's end the hand may
        # cover). (Tuning sets 149-67 and 7's first 60: black tiles left unread for their colour had their dimmer two at
        # 0.001-0.031, a corner or two up to 0.25, hubs 0.46 of the cream level or more above the body; of about 16,000
        # red tiles, the 6 whose body reads black's hue with a hub standing out so read black by the mean of their
        # corners already, none by the dimmer two alone. Under ``dot_black_max`` at first: 4 black tiles of tuning sets
        # 149-193 were left unreadable, their dimmer two at 0.036-0.043.)
        corner_levels = np.sort(np.where(dot_kept, dot_levels, np.inf), axis=1)
        dimmer = corner_levels[:, :2].mean(axis=1)      # (inf where fewer than two are seen: no ``dots_seen``)
        corners_black = (dots_seen & ~dots_black & ~hue_red & (dimmer < CORNERS_BLACK_MAX)
                         & (corner_levels[:, 0] > -mdl.dot_dark_max) & (contrast > mdl.black_contrast_min)
                         & ~in_shadow
                         & ~around(cell_other.ravel() > 0))
        # A red tile's dot lost to what lies over its corner (a finger's shade, a neighbour's ink smeared over it at the
        # board's edge) leaves the mean of four asking every dot to stand above its ring in vain: three standing well
        # above theirs (``THREE_DOTS_MIN``), with a body surely red, say red all the same. (Tuning sets: 22 tiles so,
        # every one red; 8 left unreadable before.)
        three_dots = (dot_kept.all(axis=1) & (corner_levels[:, 1] > THREE_DOTS_MIN)
                      & (corner_levels[:, 0] > -mdl.dot_dark_max))
        dot_margin = np.where(corners_black, (mdl.dot_black_max - dimmer) / mdl.dot_black_max,
                              np.where(dots_red, (dots - mdl.dot_red_min) / mdl.dot_red_min,
                                       np.where(three_dots, (corner_levels[:, 1] - THREE_DOTS_MIN) / THREE_DOTS_MIN,
                                                (mdl.dot_black_max - dots) / mdl.dot_black_max)))
        hue_sure = np.abs(body_red - mdl.redness_split) > mdl.redness_gap
        # Blur takes a small dot's contrast away evenly (all four fade) but never makes dots of plain body:
        # faded dots abstain, and a body far redder than black ink ever reads is red by itself. Dots of which
        # one is clearly darker than its ring say something covers the tile: no reading from hue alone then.
        seen_dots = np.where(dot_kept, dot_levels, np.inf).min(axis=1)
        faded = dots_seen & (dots < mdl.dot_red_min) & (seen_dots > -mdl.dot_dark_max)
        red_by_hue = hue_red & faded & (body_red > mdl.red_by_hue_min) & ~dots_red
        # The converse does not hold: blur that fades the dots also pales a red body toward black's hue. Black
        # is said only where the tile is sharp enough (its hub standing out) for a red tile's dots to show.
        black_ok = ~hue_red & (dots_black | corners_black) & ((contrast > mdl.black_contrast_min) | sheen_relief)
        # In a lamp's sheen the hue is the cue the veil spoils: its light, of the lamp's colour, pales red ink toward
        # the split and tints black ink toward it. The corner dots are read from the relief in linear light that a
        # sheen leaves a tile (as its arms are): where the hue abstains, all four seen, each standing above its ring by
        # what the mean of four must for red, as surely (``DOT_ALONE`` times it: one dot is that much noisier than
        # their mean), say red by themselves; black ink's plain corners stand at its body's level. So too where the hue
        # says black: the veil, colourless or of a lamp's pale tint, mixes light far less red than red ink into the body
        # and may carry its redness past the split (a colourless sheen twice the diffuse light takes a red body to
        # 0.09-0.13), while it never prints a cream dot at each of a black tile's four plain corners. (Sheen tiles of
        # seeds 149-67, 7's first 60 and the smeared sets, four corners seen: 164 black, least corner 0.051 at most; red
        # ones whose hue said black so read, 0.22-0.48.)
        # Out of a sheen too, where the hue abstains (a red body paled toward the split by glare, shade, blur or a small
        # tile's mixing, or a black one tinted toward it), four such dots say red: no light that falls on a tile prints
        # cream at each of black ink's four plain corners, within its ring of body. Not with anything hand-like in the
        # cell (a pale fingertip is light as cream). (Seeds 149-67, 7's first 60 and the smooth smeared sets 67-89: of
        # 18,693 black tiles with four corners seen, in any light, the least corner 0.057 at most, and -0.011 at most of
        # the 8 in the hue's gap; the 41 red tiles in the gap with four dots so, least corner 0.145-0.63.)
        hue_abstains = ~hue_sure & (cell_other.ravel() == 0)
        dots_alone = ((sheen_relief | hue_abstains) & dot_kept.all(axis=1)
                      & (np.where(dot_kept, dot_levels, -np.inf).min(axis=1) > DOT_ALONE * mdl.dot_red_min))
        hue_red |= dots_alone
        red = hue_red.copy()     # the second opinion may colour cells in it (``amend``)

        # The patch must look like the ideal picture of what was read.
        scaled = np.clip((flat[..., 0] - body_level[:, None]) / scale, 0, 1)
        ideal = self.sampling.ideal[arms, red.astype(int)].reshape(100, -1)
        weight = valid[:, RESIDUAL_INDEX]
        residual = ((np.abs(scaled - ideal)[:, RESIDUAL_INDEX] * weight).sum(axis=1)
                    / np.maximum(weight.sum(axis=1), 1.0))
        # A tile whose arms the lamp's light left in doubt, read against their flanks in linear light (above), is
        # compared with its ideal picture there too: the lamp's added light, smooth across a tile, is taken out as a
        # plane fitted to the linear light of the samples the reading says are ink, and what stands above it is scaled
        # by the mean of those it says are cream.
        if flank_read.size:
            fu, fv = frame_coords()
            plane_design = np.stack([np.ones(fu.size), fu.ravel(), fv.ravel()], axis=1)
            for tk, ti in enumerate(flank_read.tolist()):
                pic_k, seen_k = ideal[ti], flank_seen[tk] > 0
                ink_k, cream_px = seen_k & (pic_k < 0.05), seen_k & (pic_k > 0.95)
                if ink_k.sum() < 3 * plane_design.shape[1] or not cream_px.any():
                    continue
                coef = np.linalg.lstsq(plane_design[ink_k], flank_lin[tk][ink_k], rcond=None)[0]
                lifted = flank_lin[tk] - plane_design @ coef
                relief_k = float(lifted[cream_px].mean())
                if relief_k > 0:
                    w_k = weight[ti] * seen_k[RESIDUAL_INDEX]
                    residual[ti] = (np.abs(np.clip(lifted / relief_k, 0, 1) - pic_k)[RESIDUAL_INDEX] * w_k).sum() / max(
                        w_k.sum(), 1.0)

        # A shadow only darkens: it can take a wave toward blank, never a blank toward wave. Where the light
        # is dim or a shadow's edge crosses the cell, a blank arm must look clearly blank: its outer half where
        # seen, as blur bleeds the lit hub into the inner half of every blank arm (and shade darkens both alike).
        shaded = (light < mdl.shade_light) | (evenness < mdl.shade_light)
        blank = (arms[:, None] & np.array(ARM_BITS)) == 0                                   # (100, 4)
        half = np.where(arm_kept[:, 1], arm_levels[:, 1], np.where(arm_kept[:, 0], arm_levels[:, 0], -np.inf))
        blank_level = np.where(blank, half, -np.inf).max(axis=1)
        dim_blank = shaded & ~sloped & (blank_level > mdl.blank_in_shade_max)

        # Lit far beyond the markers' paper (a lamp's sphere in view): no tile, no paper and no hand shows there. Such a
        # cell is unreadable, not occluded (a lamp stays: the stabiliser takes the board around it once it has waited
        # out a hand), and ``vision.causes`` names its light, far above the paper's, glare.
        lit_beyond = self.beyond_paper if self.beyond_paper is not None else np.zeros(100, bool)
        occluded = (cell_other > mdl.other_max).ravel() & ~lit_beyond
        in_part &= occluded & kept[:, col["hub"]] & kept[:, col["body"]]   # a tile may be read there, nothing else
        # A tile read by its relief with its cream clipped stands on its ink being measured: a side it reads blank that
        # clips anywhere is ink the spot lifted past clipping, whatever it reads.
        washed_ink = np.zeros(100, bool)
        if (cream_clipped & sheen_relief).any():
            washed_ink = cream_clipped & sheen_relief & (
                blank & (clip_share[:, arm_cols].reshape(100, 2, 4).max(axis=1) > 0)).any(axis=1)
        # A side read as a wave whose light is a lamp's spot's (``spotted``, ``unlit``, above) reads no tile.
        spot_waves = ((spotted | unlit) & ~blank).any(axis=1)
        shaped = (occupied & centred & (~occluded | in_part) & ((contrast > mdl.hub_contrast_min) | sheen_relief)
                  & (arms > 0) & (arm_margin > mdl.arm_margin) & ~dim_blank & (residual < mdl.residual_max)
                  & ~washed_ink & ~spot_waves)
        # Red from the body alone only where the picture is blurred enough to fade a dot: edges wider than the dot. In
        # a sharp picture a red tile without its dots is a misprint or something over it.
        if (red_by_hue & shaped & hue_sure).any() and not dots_fade():
            red_by_hue[:] = False
        # Red ink across the whole body: black ink is colourless, and nothing that mixes colourless light into it
        # (blur toward its cream, glare, shade) makes it red; a red neighbour smeared or pushed over it, or a hand,
        # reddens one side of it, not all four corners of its body. Where each quarter of the body alone is as surely
        # red as the hue cue asks of the whole (seeds 103-67, 7's first 60, smeared 67: black tiles left unreadable or
        # of cues in doubt, their quarters at most 0.13, against 0.19 asked; two black tiles with a red neighbour's ink
        # and dots over one side, bodies 0.22 and 0.25 red, under 0.09 in a quarter), and nothing hand-like lies over
        # the cell, the body is red without all four corner dots, which a small or smeared tile's blur may take (or
        # turn dark against their rings), as long as one of them shows cream or the picture is blurred enough to fade
        # a dot (a sharp red tile with no dot at all is a misprint or something over it, as for ``red_by_hue``).
        ink_red = np.zeros(100, bool)
        ask = shaped & hue_sure & hue_red & ~dots_red & ~red_by_hue & (cell_other.ravel() <= mdl.other_max)
        if ask.any():
            at, quarters = np.flatnonzero(ask), self.sampling.body_quarters
            seen_q = valid[at][:, quarters]                                         # (cells, 4, samples)
            red_q = (flat[at, :, 1][:, quarters] * seen_q).sum(axis=2) / np.maximum(seen_q.sum(axis=2), 1e-3)
            ink_red[at] = ((seen_q.mean(axis=2) >= WASHED_REGION).all(axis=1)
                           & (red_q.min(axis=1) > mdl.redness_split + mdl.redness_gap))
            a_dot = (dot_kept[at] & (dot_levels[at] > mdl.dot_red_min)).any(axis=1)
            if (ink_red[at] & ~a_dot).any() and not dots_fade():
                ink_red[at] &= a_dot
        colour_ok = (hue_sure & ((hue_red & (dots_red | red_by_hue | ink_red | three_dots)) | black_ok)) | dots_alone
        tile_ok = shaped & colour_ok & ~lit_beyond
        crowded = overlapping(tile_ok, cx, cy, residual, self.tile_px)
        tile_ok &= ~crowded
        # A neighbour pushed and turned reaches into a cell's middle: what its outline (as read) explains is not ink.
        # (Not a tile read by its relief in a sheen alone: the second opinion has yet to see it uncovered, below.)
        unexplained = not_paper & (footprints(tile_ok & ~sheen_relief, cx, cy, angle, self.tile_px,
                                              grid.shape[:2]) == 0)
        # A finger or its shadow over a wave's end looks like body ink, and the arm reads blank: no tile is read with
        # dark that no tile read explains across a blank side that faces a cell where a hand shows.
        beyond = beyond_edges(unexplained, cx, cy, angle, self.tile_px) > BEYOND_DARK
        doubtful = tile_ok[:, None] & blank & facing(cell_other.ravel() > 0) & beyond
        # (100, 4) each side's light, the brighter of its two halves seen (0 where neither is).
        side_lights = np.where(arm_kept, lights[:, arm_cols].reshape(100, 2, 4), 0.0).max(axis=1)
        # ... or, whatever the cell beyond shows (skin lit pale enough to pass for paper is not hand-like), where the
        # strip right outside the side's edge is far darker than the side itself (``SHADE_BEYOND``): a blank side's ink
        # ends at the edge and what lies past it is paper, a gap or another tile's ink, lit as much; a finger's shade
        # over a wave's end runs on past the edge deeper than the cream it darkened (seed 193 frame 69 A9, a black sw
        # whose south wave lay under a pale fingertip's shade, read "black w" at 0.72: its south side as light
        # as the ink beside it, the strip past it 0.49 of the side). Not at the board's rim, where the margin's bar is,
        # nor in a picture the finder saw smeared: deconvolving it rings dark past every edge.
        deep = np.zeros((100, 4), bool)
        ask = tile_ok[:, None] & blank & beyond & facing(np.ones(100, bool))
        if ask.any() and not moved:
            at = np.flatnonzero(ask.any(axis=1))
            edge_dark = at_edges(self._lo, cx.ravel()[at], cy.ravel()[at], angle.ravel()[at], self.tile_px).min(axis=2)
            deep[at] = ask[at] & (edge_dark <= SHADE_BEYOND * side_lights[at])
            doubtful |= deep

        def own_red_ink(sides: np.ndarray) -> np.ndarray:
            """(100, 4) of ``sides`` ((100, 4) bool, n e s w), those of red tiles (as read now) that are red ink over
            most of both their halves (``RED_INK_SIDE``): the tile's own ink, whatever lies beyond it. No hand is red
            ink (skin keeps blue at least half its red), and a wave's end under a finger, pale or not, or in its shadow
            shows skin or darkened cream, neither of them red (``pale_sides``). (Measured on those tiles alone.)"""
            out = sides & red[:, None]
            at = np.flatnonzero(out.any(axis=1))
            if at.size:
                ink = self.sampling.region_means(self._patches(self._red_ink.astype(np.float32), cx.ravel()[at],
                                                               cy.ravel()[at], angle.ravel()[at]).reshape(at.size, -1))
                out[at] &= (ink[:, arm_cols].reshape(-1, 2, 4) > RED_INK_SIDE).all(axis=1)
            return out

        # A red tile's blank side of red ink over most of both its halves is its own ink: no hand covers a wave's end
        # there.
        if (doubtful & red[:, None]).any():
            doubtful &= ~own_red_ink(doubtful)
        overlaid = doubtful.any(axis=1)
        # A red tile's blank side is red ink like its body: one that shows no red is a wave's end in a shadow. So is a
        # blank side a little lighter than the body beside it, in both halves, with dark no tile explains beyond it.
        pale = pale_sides(red_means[:, arm_cols], body_red, mdl.blank_red_share)
        shadowed = tile_ok & ((red & (blank & pale).any(axis=1))
                              | (blank & beyond & (ratio.min(axis=1) > mdl.shadowed_ratio_min)).any(axis=1))
        middle_unexplained = cell_shares(unexplained, self.geometry, *MIDDLE)
        # Empty is said only where a tile would have shown: not under measurable glare, nor where the middle is washed
        # out (a tile there would be paper white too). What is not clipped of a half-washed middle must be clean paper
        # by itself: a tile's lifted ink shows there before the rest clips. A middle clipped in part with no dark ink
        # within a cell may be a tile washed out whole by a spot of glare wider than the neighbourhood ``glare``
        # compares with (see ``washed_whole``: not where the whole board is lit near clipping, an over-exposed picture).
        unclipped = np.maximum(1.0 - middle_washed, 0.25)
        washed_out = washed_whole(middle_washed, lowest, self.geometry, self.paper_level)
        # A middle of an over-exposed picture clipped past showing even a washed tile's trace says nothing of what lies
        # there (``traceless``: glare that lifts ink a cell away to near clipping, a blur that spreads the light the
        # clip hides). In a picture the finder saw smeared it may hold a tile washed out whole; in another, paper is
        # read there by what a cell usually holds, too unsure to take a tile off (below), and the recogniser leaves it
        # unreadable where it measures a smear on the markers (``TileReadout.traceless``).
        no_trace = traceless(middle_washed, lowest, self.geometry, clipped) & ~washed_out
        if moved:
            washed_out |= no_trace
            no_trace[:] = False
        # ... unless its light's shape shows paper: a tile there would dip by its ink where it is not clipped, and its
        # ink's edge would step far faster than a spot's light. Not in a blurred picture: a smear or soft focus ramps
        # an ink edge as slowly as a spot falls off (seed 149 frame 25 B2: a red new in a lamp's spot, its blank side
        # smeared 8 px across into a ramp at the middle's foot, read empty).
        # Nor beside a middle with ink, edge to edge: a tile's body ink reaches its edge, and beside paper the paper's
        # lighter light encloses it, so it dips; beside another tile whose ink shows, their facing blank sides join
        # into a dark wider than the square that finds dips, and where a spot clips their cream the ink's edge steps
        # only as far as it lies below clipping (a black tile among four tiles under a broad spot a cell away read
        # empty: tests/test_tiles_glare.py).
        glare_paper = np.zeros(100, bool)
        shaped_by_light = washed_out & ~facing(occupied).any(axis=1)
        if shaped_by_light.any() and not blurred():
            glare_paper = paper_in_glare(lowest, self.geometry, shaped_by_light, WASHED_LEVEL,
                                         TILE_RELIEF * float(linear(self.paper_level())))
            washed_out &= ~glare_paper
        # A lamp's reflection on glossy card is as sharp as the lamp: it may wash a tile out whole while its neighbour's
        # ink, a few millimetres off, stays dark, so no glare lifts the ink around it (``washed_whole``). Where such a
        # reflection lifts a cell above the board's paper (``SHEEN_LIGHT``) and clips a quarter of its middle or more
        # (``WASHED_HIDES``), ink that no tile read there or beside explains in the rest, however little, is such a
        # tile's edge showing past the reflection: its middle is washed out, not paper (seed 199 frame 38 C2, a black
        # esw under a glossy board's small lamp reflection, 37% of its middle clipped and 1% of the rest its own ink,
        # lit 1.33 times the paper, read empty; the empty middles of tuning sets 149-199 with any such ink clipped 18%
        # at most). An over-exposed picture's paper clips at its own level, where the fast camera's shaken sweeps smear
        # ink into such middles, and no reflection stands above it (without this bar, 93 empty cells read right there
        # would be left unreadable).
        washed_out |= ((middle_washed >= WASHED_HIDES) & (middle_unexplained > 0) & (light.ravel() >= SHEEN_LIGHT)
                       & ~tile_ok)
        unglared = (glare.ravel() < mdl.glare_max) & ~washed_out & (middle_washed == 0)  # no glare, none clipped
        clean = (middle_other < 0.02) & (glare.ravel() < mdl.glare_max) & ~washed_out
        empty = (middle_unexplained / unclipped < mdl.empty_max) & clean
        # A lamp's sheen adds light alike to a tile's cream and its ink: divided by the lifted white, the ink turns
        # paper-bright and neither the ink share nor the glare measure tells (the sheen is broader than the
        # neighbourhood ``glare`` compares with), while in linear light, where it does not clip, the ink still dips
        # below its cream by the tile's relief under the diffuse light, over the broad share of the middle its body
        # covers (``ink_dips``). Paper's light there dips by its texture's and the picture's noise alone. So a middle in
        # a sheen read empty by its ink share that dips so is no paper: unreadable, never empty (nor paper by its light
        # alone, below). (Tiles of ``tests/test_tiles_glare.py`` lifted so measure 0.52 of a tile's relief and more;
        # visible empty cells so asked on seeds 149-67, 7's first 60 and the smooth smeared sets, 4023: a median 0.09,
        # 0.27 at the 99th percentile, one above ``INK_DIP_MIN``, 0.43, read empty all the same by what follows.)
        inked_sheen = empty & (light.ravel() >= SHEEN_LIGHT) & ~tile_ok
        if inked_sheen.any():
            inked_sheen &= (ink_dips(lowest, self.geometry, inked_sheen)
                            >= INK_DIP_MIN * TILE_RELIEF * float(linear(self.paper_level())))
            empty &= ~inked_sheen
        # Paper in a soft shadow (a hand's, a lamp's) is too dark for the white estimate, which cannot follow a
        # shadow inside a cell, so it counts as not paper above. Yet its middle ranges little from bright to dark
        # whatever the shadow's depth, while any ink spans a ratio of several: such a middle, unclipped, is empty.
        spreads, tops = middle_spread(self._lo, self.geometry)
        # Paper in shade, or in even light a little above the board's white, by the shape of its light alone.
        tinged = cell_shares(self._coloured, self.geometry, *MIDDLE)
        faint = (contrast < mdl.hub_faint) & kept[:, col["body"]]          # a washed-out body shows no hub
        flat = (middle_washed == 0) & clean & ~tile_ok & ~empty & ~inked_sheen
        edged = np.zeros(100, bool)         # paper by a shadow's edge across it: the second opinion must see it clear
        hued = np.zeros(100, bool)          # ... or its middle be of the paper's hue
        if flat.any():      # most frames have no such cell: its light's plane is measured only when one is left
            # Paper dim in grey levels (a bright lamp in view dims the whole picture): noise weighs more in its log.
            dim = light * float(np.mean(self.paper_white + 1.0)) < DARK_PAPER
            uneven = middle_unevenness(grid, self.geometry)
            by_light = paper_by_its_light(spreads, faint, tinged, uneven, light, mdl, dim)
            # A shadow's soft straight edge across the middle is no plane. In a sharp picture a plane and one such edge
            # may explain a colourless middle left, not lit above the board's white; but so may pale skin with its own
            # edge (a forearm's over paper): such a cell stays paper only where the second opinion sees nothing over it.
            edge_asked = flat & ~by_light & (tinged == 0) & (light < FLAT_LIGHT_MAX)
            if self.second is not None and edge_asked.any() and not blurred():
                fit = middle_edge_unevenness(grid, self.geometry, edge_asked)
                edged = edge_asked & paper_by_its_light(spreads, faint, tinged, uneven, light, mdl, dim, fit)
                by_light |= edged
                # Where its middle is the hue of the paper round the markers, closely, it is paper: no hand over it.
                if edged.any() and paper_hues is not None:
                    hued = edged & paper_hued(grid, self.geometry, edged, self._cx.ravel(), self._cy.ravel(),
                                              paper_hues)
            flat &= by_light
            # A smear or soft focus averages a tile's ink into its cream: in a blurred picture a tile's middle may
            # range as little as paper in shade and come as near a plane (seed 223 frame 89 B10, a black ns 18 px wide
            # smeared 8.6 px across its waves: 0.079 off a plane, read empty; drawn black tiles smeared 22 px across
            # theirs span 1.44 with a faint hub). There paper by its light alone is paper only where the networks, too,
            # see no tile in any view (``SHADE_NO_TILE``: that tile, 0.94 a tile in some view). (Tuning sets and seed
            # 223, 1,815 frames: that tile read, 18 visible empty cells left unreadable; the fast camera's shaken
            # sweeps: 5 black tiles read empty at 0.6 under a smear left unreadable, 27 empty cells too.) Without the
            # networks (their weights missing) no such cell is paper. (Asked about the cells wanted alone, as the second
            # opinion is everywhere here.)
            asked = flat if wanted is None else flat & wanted
            if asked.any() and blurred():
                at = np.flatnonzero(asked)
                flat[at] = (False if self.second is None else
                            self.second.no_tile(norm, self.geometry.px_per_cell, self.geometry.margin_px, at,
                                                SHADE_NO_TILE))
        empty |= flat
        # In a lamp's sheen the division by the lifted white takes a tile's ink toward paper: neither its ink share nor
        # the glare measure can tell, and paper at a sheen's edge, darker than the white beside it, shows as ink. But a
        # sheen adds light (specular over diffuse, in linear light): a tile's cream stands above its ink by
        # ``TILE_RELIEF`` of the diffuse light on it however bright the sheen, as long as neither clips. A middle
        # lifted to the board's paper level or above at its darkest (a shadow dims a lamp's sheen with its light, so a
        # tile there has the paper's light at least), colourless, unclipped and short of the tone curve's shoulder,
        # whose relief beyond a plane (a sheen's slope) is a fraction of a tile's at that light, is paper.
        lifted = ((middle_other < 0.02) & (tinged == 0) & ~washed_out & (middle_washed == 0) & ~tile_ok & ~empty
                  & ~inked_sheen)
        if lifted.any():
            level = self.paper_level()
            dark_end, bright_end, relief = middle_relief(lowest, self.geometry, lifted)
            lifted &= ((dark_end >= level) & (bright_end < SHEEN_TOP)
                       & (relief < LIFTED_RELIEF_SHARE * TILE_RELIEF * float(linear(level))))
            empty |= lifted
        # A middle clipped in part read empty because its light has the shape of paper in a glare spot is paper by its
        # light alone, as a sheen's is by its relief (``paper_in_glare``: what the clip hides is inferred).
        glare_paper &= empty & ~tile_ok
        state = np.where(tile_ok, 1, np.where(empty & ~occluded & ~lit_beyond, 0, 2))
        # A pose that may be off by a fifth of a cell puts an arm's inner half on the hub: no tile is read there.
        # An empty cell keeps a misplaced tile's ink in its middle up to half a cell off.
        doubt = np.zeros(100) if doubt is None else np.asarray(doubt, np.float64).ravel()
        misplaced = ((state == 1) & (doubt > POSE_DOUBT_TILE)) | (doubt > POSE_DOUBT_ANY)
        state[misplaced | overlaid | shadowed] = 2
        # Something hand-like over a cell's rim only, its middle clean paper: a tile there (0.96 of the cell) would show
        # its hub and body in the middle, so the cell is empty whatever lies over its rim, as long as the second opinion
        # sees it uncovered as surely as it must to read a cell itself (pale skin over a tile's middle reads clean too):
        # a finger's tip over an empty cell's edge (seeds 103 and 97: 8 cells of 42 such, none of them a tile).
        rimmed = (empty & occluded & ~lit_beyond & ~tile_ok & ~misplaced) if self.second is not None else np.zeros(
            100, bool)
        state[rimmed] = 0
        # A hand over part of a cell (its edge, or the dark right under it, in the middle too) may leave most of the
        # middle in view: clear of the hand and a rim round it, clean paper of the paper's hue over at least half the
        # middle is no tile's, whose body's ink would show there (``paper_beside_hand``; pale skin is of another hue).
        # It reads empty by what shows of it, too unsure to take a tile off, unless the second opinion sees it covered.
        beside = occluded & ~empty & ~tile_ok & ~lit_beyond & ~misplaced & (cell_other <= PART_COVERED_MAX) & unglared
        if beside.any() and paper_hues is not None:
            beside = paper_beside_hand(grid, self.geometry, beside, hand_rim(), unexplained, mdl.empty_max,
                                       self._cx.ravel(), self._cy.ravel(), paper_hues)
        else:
            beside[:] = False
        state[beside] = 0
        over = occluded.copy()              # what the rules see covered
        occluded &= ~(rimmed | beside)
        # A network that sees the whole cell may read what the rules leave unreadable, if sure and not against what they
        # saw; it may find cells they read covered (``vision.second.amend``) where they see a hand, and any they read
        # paper by its light alone (its shape, or its relief in a sheen): pale skin in warm light, or dim and noisy,
        # shows too little colour to tell from it.
        # No tile where a hand shows on a side: skin over a blank side is light like a wave's cream, and over a wave
        # it may hide its end (seed 101 frame 192 G7, a red ew under a hand's edge, read "red new" by the network).
        tile_may = ~overlaid & ~suspect.any(axis=1) & ~hand_on.any(axis=1)
        # The corner dots are measured against the hub's contrast, as if one light fell on the whole tile. In a shadow
        # (as ``vision.causes`` names it: deep, or its edge across the cell) that fails both ways (seed 67 frame 87 D8,
        # a black tile's corners at 0.64 of its hub; ten red tiles' dots under 0.035 on seeds 97-67): they deny the
        # network no colour there. The body's hue still does (shade takes red toward black, never black toward red).
        dots_deny = ~in_shadow
        # Nor do dots faded by blur wider than a dot (as for the rules' own red by hue alone).
        # (Asked only for a cell left unreadable: only there may the second opinion read a colour the dots deny.)
        if (dots_deny & faded & dots_black & (state == 2)).any() and dots_fade():
            dots_deny &= ~faded
        # Nor, in a picture blurred wider than a dot, do dots darker than their rings deny red: the blur carries the
        # bands' cream into each dot's ring of body (0.08 of a tile from the band) and the dot's own cream out of it, so
        # a red tile's dots read dark against their rings, as if something covered them (smooth smeared sets 67-89:
        # red tiles the network read right and surely, denied so). The body's hue still denies red. (Asked only where
        # the hue leaves red open: elsewhere the network may read no red whatever the dots say.)
        relieved = dots_deny & dots_black & ~(hue_sure & ~hue_red)
        if (relieved & (state == 2)).any() and dots_fade() and blurred():
            dots_deny &= ~relieved
        whole = wanted is None              # a whole read: its unreadable cells' causes are named too
        wanted = np.ones(100, bool) if whole else wanted
        asked = (over.any() | flat | lifted | glare_paper) & wanted
        # Where the rules see no hand, a hand they do not see (pale skin, smeared) shows as cells left unreadable: paper
        # read beside one is asked too whether something covers it, only to doubt it (``amend``'s ``cover_doubt``): a
        # glare spot beside it can look covered to the networks (seed 67 frame 107 B7), so it is not made unreadable.
        doubt_only = (state == 0) & around(state == 2) & wanted & ~asked
        # A tile read by its relief in a sheen may be a pale finger's lit skin over its own dark edge or shadow (seed
        # 103 frame 126 A4: an empty cell under a finger, relief 1.3 of a tile's): it stands only where the second
        # opinion sees the cell uncovered, as for paper by a shadow's edge.
        by_relief = sheen_relief & (state == 1)
        eligible = ~misplaced & ~lit_beyond & wanted
        read_empty = state == 0             # before the second opinion
        outer_wave = arm_kept[:, 1] & (arm_levels[:, 1] > 0.5 + mdl.arm_margin / 2)   # clearly a wave's light
        # A pale hand the rules do not see: its skin, divided by a local white that follows it, is as colourless as a
        # wave's cream, to the rules and to the network alike. What the rules left unreadable beyond a side may be such
        # skin reaching over it, so the network may call a side that faces a cell left unreadable a wave only where the
        # rules see a wave's light in its outer half too. (Seed 137 frame 162 G7, a red nw under a pale fingertip over
        # its south end, the hand unseen in a smeared frame: the network read "red nsw", surely. Seed 179 frame 54 B6,
        # a black ne with a fingertip over its west rim and the unreadable A6 beyond: "black new", every view 0.999
        # sure of the west wave and sure nothing covered the cell. Until then the rule asked too that both cells'
        # local whites be off the paper's hue, as pale skin's is; B6's was not, the finger over its rim only. Without
        # that, over seeds 179, 173, 149's first 120, 101's first 35 and 7's first 60, about 57,000 visible cells,
        # it refuses five right readings more and that wrong one; on seed 181, held out, six right readings.)
        not_wave = facing(state == 2) & ~outer_wave
        not_wave |= spotted | unlit
        cover_doubt = np.zeros(100, bool)
        second, covered = (amend(self.second, norm, self.geometry, state, arms, red, eligible, np.stack([
            ~glare_seen & unglared,
            tile_may & ~(hue_sure & ~hue_red) & ~(dots_black & dots_deny),
            tile_may & ~(hue_sure & hue_red) & ~(dots_red & dots_deny)]),
            asked, hand_on | outer_wave, pale, edged | by_relief | rimmed, not_wave, cover_doubt, doubt_only)
            if self.second is not None else (np.zeros(100, bool),) * 2)
        rimmed &= state == 0                # now: the cells it saw clear of a hand; the rest stay covered
        occluded |= covered | (over & ~rimmed & ~beside)
        # A pale finger shows no hand-like pixel, yet what it covers beside a tile is left unreadable, and its dark side
        # or shadow over a wave's end is dark like the tile's ink (seed 103 frame 126 B4, a black nw read "black n", its
        # west wave under a finger's dark edge). A blank side the rules read with dark no tile explains beyond it,
        # facing a cell left unreadable (by the second opinion too: a cell it reads surely and sees uncovered hides no
        # finger), stands only where the second opinion, seeing the whole cell and what lies beyond it, reads it blank
        # too, as surely as it must to read it so itself (``vision.second.BLANK_CONFIRM``). (The rules alone, with no
        # second opinion, read as before: what the network adds to them stays apart.) A cell read empty by what shows of
        # it beside a hand over its rim (``beside``) counts as unreadable here: the hand is there all the same.
        hidden_end = ((state == 1) & ~second & wanted)[:, None] & blank & beyond & facing((state == 2) | beside)
        # A red tile's blank side that is red ink over most of both its halves is no pale finger's dark edge nor its
        # shadow over a wave's end, whatever lies beyond it (``own_red_ink``, as beside a hand the rules see): it stands
        # by itself. (Tuning sets 149 and 101: 22 sides so taken out, every one of them blank, no tile under a hand,
        # their least half 0.67 red ink against 0.5 asked, a wave's half none; the networks had refused 4 of them.)
        if (hidden_end & red[:, None]).any():
            hidden_end &= ~own_red_ink(hidden_end)
        if self.second is not None and hidden_end.any():
            ends = np.flatnonzero(hidden_end.any(axis=1))
            seen_blank = self.second.blank(norm, self.geometry.px_per_cell, self.geometry.margin_px, ends,
                                           hidden_end[ends])
            state[ends[~seen_blank]] = 2
        hidden_end = hidden_end.any(axis=1) & (state == 2)      # now: the tiles whose blank sides it did not confirm
        # A blank side facing a cell left unreadable, whatever lies beyond it: the tile stands where the networks see
        # nothing over it, even a little (``BESIDE_UNREAD_COVER_MAX``; not asked in a blurred picture).
        beside_unread = np.zeros(100, bool)
        if self.second is not None:
            at = np.flatnonzero((((state == 1) & ~second & wanted)[:, None] & blank & facing(state == 2)).any(axis=1))
            if at.size and not blurred():
                clear = self.second.uncovered(norm, self.geometry.px_per_cell, self.geometry.margin_px, at,
                                              BESIDE_UNREAD_COVER_MAX)
                beside_unread[at[~clear]] = True
                state[beside_unread] = 2
        # A tile beside a hand the rules see (``overlaid``) is read where each blank side with dark beyond it (facing
        # the hand, or a cell left unreadable) shows no sign of the hand over it or at it, and the second opinion reads
        # it blank too. A finger over a wave's end either lies on the side (its skin, hand-like, on the side's arm or
        # flanks or within ``HAND_RIM`` of them: its soft edge and its own shade; seed 149 frame 126 F2, a black nsw
        # under a thumb's tip, 0.78 of its south side so masked, was read "black nw" at 0.78 where this was not asked)
        # or runs on over the tile's edge to the hand: there, just beyond the side, it shows its skin (hand-like: a tip
        # in its own shade over the wave with the lit finger just beyond, the networks call blank), or, in its own
        # shade, is as dark as over the side; paper in the hand's shadow there is lit more than ink (``LIT_ALIKE``).
        # The side itself is lit as the body (a finger lighter than ink is lighter than the body), and every view of
        # both networks calls it blank and sees nothing over the cell as surely as they must to read either themselves.
        confirm = overlaid & (state == 2) & ~second & ~covered & ~misplaced & ~shadowed & eligible & ~beside_unread
        if self.second is not None and confirm.any():
            at = np.flatnonzero(confirm)
            sides = (blank & beyond & (facing(cell_other.ravel() > 0) | facing((state == 2) | beside)))[at]
            x_at, y_at, a_at = cx.ravel()[at], cy.ravel()[at], angle.ravel()[at]
            side_light = side_lights[at]
            side_clear = sides_clear(at)
            hand_beyond = beyond_edges(other, x_at, y_at, a_at, self.tile_px)
            beyond_light = beyond_edges(self._lo, x_at, y_at, a_at, self.tile_px)
            # A wave runs to the middle of its side's edge: a finger over its end crosses that edge there, on its way to
            # the hand, as skin (hand-like) or, in its own shade, as dark as over the side. The side's own ink ends at
            # the edge, and paper or a shadow's paper past it is lit more than ink. So a side is clear where, column by
            # column along the strip right outside its edge's middle (``at_edges``: as wide as the wave band), nothing
            # hand-like shows and the light stays above the side's by ``LIT_ALIKE`` (a hand further off, however near,
            # covers no wave's end); or where, just beyond that, the dark that set the doubt shows neither (as before).
            on_side = ~side_clear | (side_light > LIT_ALIKE * lights[at][:, [col["body"]]])
            past = (hand_beyond >= HAND_ON_SIDE) | (beyond_light <= LIT_ALIKE * side_light)
            if (sides & ~on_side & past).any():     # (measured only where it may clear a side)
                past &= ((at_edges(other, x_at, y_at, a_at, self.tile_px).max(axis=2) >= HAND_ON_SIDE)
                         | (at_edges(self._lo, x_at, y_at, a_at, self.tile_px).min(axis=2) <= LIT_ALIKE * side_light))
            refused = (sides & (on_side | past)) | deep[at]
            at, sides = at[~refused.any(axis=1)], sides[~refused.any(axis=1)]
            if at.size:
                at = at[self.second.blank(norm, self.geometry.px_per_cell, self.geometry.margin_px, at, sides,
                                          uncovered=True)]
            state[at] = 1
            overlaid[at] = False
        occluded &= ~(in_part & (state == 1))   # a tile read from what shows of it: what covers the rest is beside it
        edged &= (state == 2) & ~covered    # now: the cells it did not see clear of a hand
        # Of those, a middle of the paper's hue is paper all the same (``paper_hued``): empty, by its light alone. (Only
        # now: a tile's blank side facing it was confirmed as beside any cell left unreadable.)
        hued &= edged & read_empty
        state[hued] = 0
        edged &= ~hued
        # Paper in a hand's shadow, beside a cell the rules see covered: the white estimate cannot follow the shadow, so
        # its paper counts as ink, and the network, seeing the hand beside it, may doubt what covers it. A shadow only
        # dims the paper (and the light it leaves may tint it a little); it keeps the paper's hue, which pale skin (and
        # a red tile's ink) does not: what shows of the middle clear of the hand (half of it at least) of the markers'
        # paper hue is no hand over it. A black tile's colourless ink may be of that hue; its pattern is not: where the
        # network, too, sees no tile there in every view as surely as it must to read a cell empty itself (whatever it
        # gives to a cover, beside the hand), the cell is paper: empty by what shows of it, too unsure to take a tile
        # off. (Tuning seeds 103 and 97, cells beside a hand: tiles of the paper's hue there, 0.987 a tile at least in
        # some view against the 0.01 asked; tiles the network sees no tile in, hidden under pale skin, 0.27 off the
        # paper's hue at least, against 0.07.) Only in a frame where the rules see a hand, and only next to it.
        # (Of the cells left unreadable, those no reading, refusal or glare accounts for: here and for paper in shade.)
        unaccounted = (~second & ~tile_ok & ~lit_beyond & ~misplaced & ~overlaid & ~shadowed & ~hidden_end & ~crowded
                       & unglared & wanted)
        hand_shade = (state == 2) & unaccounted & ~covered & (cell_other <= PART_COVERED_MAX) & around(over)
        if hand_shade.any() and paper_hues is not None and self.second is not None:
            hand_shade = paper_beside_hand(grid, self.geometry, hand_shade, hand_rim(), None, mdl.empty_max,
                                           self._cx.ravel(), self._cy.ravel(), paper_hues)
            if hand_shade.any():
                at = np.flatnonzero(hand_shade)
                # Paper in shade, too, by what shows of it: not lit above the board's white, in a sharp picture, and
                # spanning, clear of the hand and its rim, too little for ink (``clear_spread``: shade keeps a tile's
                # ratios, and a tile shows its ink over any half of its middle), it is paper where the networks see no
                # tile as surely as they must for paper in shade (``SHADE_NO_TILE``): a hand's rim over it leaves that
                # bar as it is. (Tuning sets 149-67 and 7's first 60: 130 cells so asked, every one paper; the 8 tiles
                # of the paper's hue beside a hand spanning under ``SOFT_SPREAD`` clear of it were lit 1.16-1.39 of the
                # board's white, a lamp's sheen lifting their ink, and a tile in every view, 0.87 at least.)
                soft = light.ravel()[at] < FLAT_LIGHT_MAX
                if soft.any():
                    # ... or spanning more, as paper does with the hand's own shadow's edge across what shows of it, lit
                    # paper at its bright end, but well short of a tile's printed ratio (``SHADOW_SPREAD_SHARE``).
                    soft[soft] = spans_as_shaded_paper(*clear_spread(self._lo, self.geometry, at[soft], hand_rim()))
                if soft.any() and blurred():
                    soft[:] = False
                hand_shade[at] = self.second.no_tile(norm, self.geometry.px_per_cell, self.geometry.margin_px, at,
                                                     np.where(soft, SHADE_NO_TILE, 1.0 - SURE))
        else:
            hand_shade[:] = False
        state[hand_shade] = 0
        occluded &= ~hand_shade
        # Paper in shade that no test of its light's shape passed (a finger's curved shadow, two edges, deep shade the
        # white estimate cannot follow): of the paper's hue (no skin, no red ink over it), spanning too little for ink
        # (shade keeps a tile's ratios), and no tile's pattern in any view of the networks (``SHADE_NO_TILE``), it is
        # paper: empty, too unsure to take a tile off.
        # In shade as ``vision.causes`` names it (dim, a shadow's edge across it, or, spanning so little, colourless: a
        # few coloured specks aside, ``COLOUR_SPECKS``).
        in_shade = in_shadow | (tinged <= COLOUR_SPECKS)
        # (Spanning under ``SOFT_SPREAD``, or more, as paper does with a hand's cast shadow's edge across its middle
        # where the hand itself lies further off, above the board or beyond its edge, no cell beside it covered: lit
        # paper at its bright end, but well short of a tile's printed ratio, as beside a hand:
        # ``spans_as_shaded_paper``.)
        shade_paper = ((state == 2) & unaccounted & ~occluded & in_shade & (light < FLAT_LIGHT_MAX)
                       & spans_as_shaded_paper(spreads, tops))
        if shade_paper.any() and paper_hues is not None and self.second is not None and not blurred():
            shade_paper = paper_hued(grid, self.geometry, shade_paper, self._cx.ravel(), self._cy.ravel(), paper_hues)
            if shade_paper.any():
                at = np.flatnonzero(shade_paper)
                shade_paper[at] = self.second.no_tile(norm, self.geometry.px_per_cell, self.geometry.margin_px, at,
                                                      SHADE_NO_TILE)
        else:
            shade_paper[:] = False
        state[shade_paper] = 0
        by_relief &= (state == 2) & ~covered
        # A black tile (by the rules or the second opinion) whose hub, lit as the board's paper, has the paper's hue and
        # not cream's is paper lit between shadows: unreadable (``PAPER_HUB_HUE``). A stripe of light is straight: it
        # passes for a straight wave through the hub, or one ending there (``STRIPE_PIECES``), never for a bend.
        paper_hub = self._paper_hubs(grid, norm, cx, cy, angle, arms, (state == 1) & ~red
                                     & (light.ravel() >= PAPER_HUB_LIGHT) & np.isin(arms, STRIPE_PIECES))
        if paper_hub.any() and blurred():
            # Blur mixes the body's colourless ink into the hub: its hue goes toward the paper's (smeared black tiles
            # of the tuning sets and the shaken bench): a measure of cream only in a sharp picture.
            paper_hub[:] = False
        state[paper_hub] = 2
        second &= ~paper_hub
        empty_conf = np.where(flat | lifted | rimmed | beside | hand_shade | shade_paper | glare_paper,
                              LIGHT_ONLY_EMPTY, np.clip(1 - middle_unexplained / mdl.empty_max * 0.5, 0, 1))
        if self.off_hue is not None:
            # Not the hue of the board's paper where it lies: something paper-pale over it (``off_paper_hue``).
            empty_conf = np.where(self.off_hue, np.minimum(empty_conf, LIGHT_ONLY_EMPTY), empty_conf)
        # Where the rules see a hand, or beside a cell left unreadable, paper the second opinion does not see uncovered
        # as surely as it must to read a cell itself (a view gave ``COVERED_MAX`` to something covering it) is paper by
        # the rules' measures alone: a hand of pale skin, whole over a tile, is lit and shaped like paper to them.
        # Empty, too unsure to take a tile off (``vision.stabiliser.GONE_CONFIDENCE_MIN``).
        empty_conf = np.where(cover_doubt, np.minimum(empty_conf, LIGHT_ONLY_EMPTY), empty_conf)
        # Nor is paper whose clipped middle shows nothing of what lies there (``traceless``, above).
        empty_conf = np.where(no_trace, np.minimum(empty_conf, LIGHT_ONLY_EMPTY), empty_conf)
        # Paper shows the printed grid line at its borders with other paper: a cell read as clean paper that shows none
        # where the board's lines stand clear of the noise is paper by its light alone (a hand of pale skin over a tile
        # reads clean), too unsure to take a tile off (``vision.gridlines``). Measured only where a cell wanted asks it.
        lines = np.full(100, np.nan)
        if ((state == 0) & ~second & (empty_conf > LIGHT_ONLY_EMPTY) & wanted).any():
            # (Not against paper read by its hue alone: the board's lines are measured on the same cells as without it;
            # nor against paper clipped by glare, which washes the line out with it, nor beside a hand over its border.)
            no_line, lines = unlined(grid, self.geometry, (state == 0) & ~hued & ~glare_paper & ~beside & ~hand_shade
                                     & ~shade_paper)
            empty_conf = np.where(no_line, np.minimum(empty_conf, LIGHT_ONLY_EMPTY), empty_conf)
        # Nor is paper most of whose middle clips where no line could be measured (no cell beside it read as
        # paper): what is left unclipped is all that says paper, and a lamp's sphere hung in view, white to a sharp
        # edge, hides a tile whole while ink a cell away stays dark, where ``washed_whole`` looks for a glare spot's
        # fall-off (seed 191 frame 127 C1, a red w behind the lamp, 88% of its middle clipped and every neighbour
        # unreadable: empty at 1.00). Not in an over-exposed picture, whose paper clips all over and washes the lines
        # out with it while a tile's ink stays dark (a board on a dark cloth): ``washed_whole`` weighs glare there.
        unseen_line = ((state == 0) & (middle_washed >= WASHED_MOST) & np.isnan(lines)
                       & (not over_exposed(middle_washed)))
        empty_conf = np.where(unseen_line, np.minimum(empty_conf, LIGHT_ONLY_EMPTY), empty_conf)
        # A cell every pixel of which, its borders' printed line too, is washed out shows nothing: glare adds light
        # alike to paper and to a tile's ink, and clipping takes away the difference that is left, so a tile there whose
        # ink the light lifts past the sensor's last levels looks as paper does, and how far above them it is lit cannot
        # be measured in the cell (flat bench seed 800007 'hard', an over-exposed board: red tiles at G2 and H2, every
        # pixel 253-255, read empty at 1.00). Paper there is read by what a cell usually holds, not by what shows:
        # empty, too unsure to take a tile off (``vision.stabiliser.GONE_CONFIDENCE_MIN``).
        if (middle_washed >= 1.0).any():        # most frames clip no middle whole
            blind = cell_shares(clipped, self.geometry, 0.0, 1.0) >= 1.0
            empty_conf = np.where(blind, np.minimum(empty_conf, LIGHT_ONLY_EMPTY), empty_conf)
        tile_conf = np.clip(np.minimum.reduce([arm_margin, np.minimum(hue_margin, 1), np.clip(dot_margin, 0, 1),
                                               1 - residual / mdl.residual_max]), 0, 1)
        confidence = np.where(second, SECOND_CONFIDENCE,
                              np.where(state == 0, empty_conf, np.where(state == 1, 0.5 + 0.5 * tile_conf, 0.0)))
        self.measures = {"body_red": body_red, "dots": dot_levels, "arms": arm_levels, "residual": residual,
                         "contrast": contrast, "middle": middle_body, "other": cell_other, "glare": glare.ravel(),
                         "spread": spreads, "arm_margin": arm_margin, "dot_mean": dots, "arm_bits": arms,
                         "lines": lines}
        # A tile found by its relief in a sheen has a pattern, whatever its contrast divided by the lifted white: its
        # why is what failed after (its arms, its colour cues, its likeness to the piece read).
        stands_out = np.where(sheen_relief, np.inf, contrast)
        why = {CELLS[i]: ("where the board lies is uncertain here: too few of its markers were seen sharply"
                          if misplaced[i] else "it is lit far beyond the paper around the markers: a lamp hangs in view"
                          if lit_beyond[i] else "a hand beside it may cover the end of a wave" if overlaid[i] else
                          "the end of a wave is in a shadow" if shadowed[i] else
                          "its light is paper's across a shadow's edge, but a hand's edge may look so" if edged[i] else
                          "a tile by its relief in a lamp's sheen, but a pale finger may look so" if by_relief[i] else
                          "something beside it may cover the end of a wave" if hidden_end[i] else
                          "its hub has the paper's hue, not a tile's cream: paper lit between shadows looks so"
                          if paper_hub[i] else
                          "it overlaps a neighbouring tile as read" if crowded[i] else
                          "a side it reads as a wave is lit as by a lamp's small spot, not as printed cream"
                          if spot_waves[i] and not tile_ok[i] and state[i] == 2 else
                          WASHED_OUT if washed_out[i] else
                          why_unread(i, occluded, occupied, stands_out, mdl, arms, arm_margin, colour_ok, residual,
                                     dim_blank)) for i in np.flatnonzero(state == 2)}
        readout = TileReadout(state.reshape(10, 10), arms.reshape(10, 10), red.reshape(10, 10),
                              confidence.reshape(10, 10).astype(np.float32), occluded.reshape(10, 10),
                              np.stack([cx, cy], axis=-1), angle, why, self.paper_white,
                              traceless=(no_trace & (state == 0)).reshape(10, 10))
        if why and whole:
            # Hands, glare, shadow, then measured motion (it smears every cell) or size; sharpness only if cells remain.
            # (Not for a read of a few cells wanted: its caller takes their readings alone, and the causes it names are
            # those of its own whole read.)
            readout.causes, _ = explain(
                state == 2, occluded, glare.ravel(), self.cell_light(grid, lowest), glare_max=mdl.glare_max,
                cell_px=cell_px, moved=moved, measure=measured, px_per_cell=self.geometry.px_per_cell,
                reference=sharp_reference, plain=(spreads < SOFT_SPREAD) & (tinged == 0), unplaced=misplaced,
                overlaid=overlaid, shadowed=shadowed)
            # Measured here or above: the recogniser need not again.
            readout.sharpness = seen_blur[0].width if seen_blur else None
        return readout

    @staticmethod
    def _shaded_waves(arm_levels: np.ndarray, arm_kept: np.ndarray, ratio: np.ndarray, lights: np.ndarray,
                      col: dict[str, int], flank_cols: list[int], cells: np.ndarray,
                      hand_share: np.ndarray, mdl: ColourModel) -> tuple[np.ndarray, np.ndarray] | None:
        """Of ``cells`` (100 bool), those with an arm half in doubt (``arm_levels`` within ``arm_margin`` of 0.5 or a
        half lit over its flanks) whose side, both halves seen, nothing hand-like on them or their flanks, has each
        half over its flanks by ``SHADED_WAVE_RATIO`` and ``SHADED_WAVE_SHARE`` of the hub's ratio over the body, the
        flanks under ``SHADED_WAVE_FLANK`` of the hub's light: their indices and (cells, 2, 4) which halves so read as
        waves (both halves of a side, or neither). None: no such cell."""
        doubt = (np.abs(arm_levels - 0.5) * 2 <= mdl.arm_margin) & arm_kept
        at = np.flatnonzero(cells & doubt.any(axis=(1, 2)))
        if at.size == 0:
            return None
        hub = lights[at, col["hub"]]
        need = np.maximum(SHADED_WAVE_RATIO, SHADED_WAVE_SHARE * hub / np.maximum(lights[at, col["body"]], 1e-3))
        flank = lights[at][:, flank_cols].reshape(-1, 2, 4)
        half = ((ratio[at] >= need[:, None, None]) & (flank <= SHADED_WAVE_FLANK * hub[:, None, None])
                & arm_kept[at] & (hand_share[at] == 0).reshape(-1, 2, 2, 4).all(axis=1))
        side = half.all(axis=1) & doubt[at].any(axis=1)
        if not side.any():
            return None
        keep = side.any(axis=1)
        return at[keep], np.repeat(side[keep][:, None, :], 2, axis=1)

    def _hub_gain(self, flat: np.ndarray, cells: np.ndarray, placed_in_log: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray] | None:
        """Of ``cells`` ((100,) bool: in shade, none of their middle clipped, nothing hand-like over them), those whose
        hub stands over the body by no more than a tile must (``ColourModel.hub_contrast_min``) in ``flat``'s cream
        levels (channel 0), or that were placed by the template in log light (``placed_in_log``, (100,) bool: the white
        estimate did not follow their shade, whatever contrast it left them), and whose hub's light (channel 2) is
        under cream's (``HUB_CREAM``) and at least ``HUB_GAIN_FLOOR``: their indices and the gain that lifts each hub's
        light to cream's (None: no such cell)."""
        at = np.flatnonzero(cells)
        if at.size == 0:
            return None
        hub_at, body_at = self._hub_body
        hub = flat[at[:, None], hub_at].mean(axis=1)                  # (cells, channels)
        body = flat[at[:, None], body_at, 0].mean(axis=1)
        ask = (((hub[:, 0] - body <= self.model.hub_contrast_min) | placed_in_log[at]) & (hub[:, 2] < HUB_CREAM)
               & (hub[:, 2] >= HUB_GAIN_FLOOR))
        if not ask.any():
            return None
        return at[ask], (HUB_CREAM / hub[ask, 2]).astype(np.float32)

    def _paper_hubs(self, grid: np.ndarray, norm: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray,
                    arms: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """(100,) of ``cells`` those whose hub (the square inside the hub's sample disc round the centre found) is of
        the paper's hue within ``PAPER_HUB_HUE`` in log blue over red, both against its local white (``norm``, the grid
        image divided by it: the light's own tint there) and against the board's paper white (in ``grid``, the raw
        image: a local white taken from a tile's cream, with no paper in reach, has the cream's hue): paper, where a
        tile's cream is 0.065 off. Not where the hub or either white clips in any channel (``HUE_CLIP``):
        clipping takes the hue away. Also, where the light across the cream as read (hub and the arms read as waves,
        with ``arms``) spans more than an evenly lit tile's does (``CREAM_SHADE_SPREAD``: a shadow's edge within it),
        those whose samples of it lit fullest (``HUB_LIT_SHARE``) are so: a shadow's light may be of another hue."""
        out = np.zeros(100, bool)
        at = np.flatnonzero(cells)
        paper = np.asarray(self.paper_white, np.float64) + 1.0
        if at.size == 0 or paper.max() - 1.0 >= HUE_CLIP:
            return out

        def hue(bgr: np.ndarray) -> np.ndarray:
            return np.log(np.maximum(bgr[:, 0], 1e-3) / np.maximum(bgr[:, 2], 1e-3))

        half = max(1, int(self.sampling.hub_kernel / 2 * self.tile_px / np.sqrt(2)))
        off = np.arange(-half, half + 1)
        h, w = norm.shape[:2]
        ys = np.clip(np.rint(cy.ravel()[at]).astype(int)[:, None] + off, 0, h - 1)[:, :, None]
        xs = np.clip(np.rint(cx.ravel()[at]).astype(int)[:, None] + off, 0, w - 1)[:, None, :]
        hub = grid[ys, xs].reshape(at.size, -1, 3)
        local = norm[ys, xs].reshape(at.size, -1, 3).mean(axis=1)                 # (cells, 3) BGR
        raw = hub.mean(axis=1)

        def of_paper(local: np.ndarray, raw: np.ndarray) -> np.ndarray:
            white = raw / np.maximum(local, 1e-3)                                  # the local white there, BGR
            board = hue(raw + 1.0) - float(np.log(paper[0] / paper[2]))
            return ((hue(local) > -PAPER_HUB_HUE) & (board > -PAPER_HUB_HUE) & (raw.max(axis=1) < HUE_CLIP)
                    & (white.max(axis=1) < HUE_CLIP))

        out[at] = of_paper(local, raw)
        # Where a shadow's edge crosses the cream, its fullest-lit part too (``CREAM_SHADE_SPREAD``): asked only where
        # the hub's light itself spans ``HUB_SHADE_SPREAD`` (a shade of another hue pulls the hub's mean off only
        # where it lies within the hub).
        lin = np.sort(LINEAR[hub.min(axis=2)], axis=1)
        count = lin.shape[1]
        spread = lin[:, int(count * 0.9)] >= HUB_SHADE_SPREAD * np.maximum(lin[:, int(count * 0.1)], 1e-4)
        rest = at[~out[at] & spread]
        if rest.size:
            shaded, lit_local, lit_raw = self._lit_cream(grid, norm, cx, cy, angle, arms, rest)
            out[rest] = shaded & of_paper(lit_local, lit_raw)
        return out

    def _lit_cream(self, grid: np.ndarray, norm: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray,
                   arms: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the cells ``at`` (indices), their cream as read (hub, and the arms their ``arms`` bits call waves) in the
        tile's frame: whether the light across it spans ``CREAM_SHADE_SPREAD`` or more (its brighter tenth over its
        dimmer tenth in linear light, darkest channel), and the mean (BGR) of its samples lit fullest (the brightest
        ``HUB_LIT_SHARE``) divided by the local white (``norm``) and raw (``grid``)."""
        u, v, hub, waves_at = _cream_samples(self.sampling)
        x, y, a = cx.ravel()[at], cy.ravel()[at], angle.ravel()[at]
        px = np.float32(self.tile_px)
        raw = in_tile_frames(grid, x, y, a, u * px, v * px)                             # (cells, samples, 3)
        local = in_tile_frames(norm, x, y, a, u * px, v * px)
        waves = (arms[at, None] & np.array(ARM_BITS)) > 0                                 # (cells, 4)
        cream = hub | (waves.astype(np.uint8) @ waves_at > 0)
        count = cream.sum(axis=1)
        rows = np.arange(at.size)
        lin = np.sort(np.where(cream, LINEAR[raw.min(axis=2)], np.inf), axis=1)        # cream first, dim to bright
        dim, bright = lin[rows, (count * 0.1).astype(int)], lin[rows, (count * 0.9).astype(int)]
        shaded = bright >= CREAM_SHADE_SPREAD * np.maximum(dim, 1e-4)
        luma = np.where(cream, raw.astype(np.float32).sum(axis=2), -np.inf)
        top = -np.sort(-luma, axis=1)[rows, np.maximum(np.rint(HUB_LIT_SHARE * count).astype(int), 1) - 1]
        lit = (cream & (luma >= top[:, None]))[..., None]
        return (shaded, (local * lit).sum(axis=1) / lit.sum(axis=1),
                (raw.astype(np.float64) * lit).sum(axis=1) / lit.sum(axis=1))

    def paper_level(self) -> float:
        """The grey level (darkest channel) of the board's paper where it is dimmer, as the last ``normalise`` measured
        it: a quarter of its whites lie below (a glare spot may lift much of the rest). Worked out once a ``normalise``
        (a read may ask it several times)."""
        cached = self._paper_level
        if cached is None or cached[0] is not self._white_luma or cached[1] is not self.paper_white:
            level = float(np.percentile(self._white_luma, 25) * self.paper_white.min())
            self._paper_level = cached = (self._white_luma, self.paper_white, level)
        return cached[2]

    def shade(self) -> tuple[np.ndarray, np.ndarray]:
        """(100,) each cell's light as the last ``normalise`` measured it (``cellmeasures.cell_shade``; worked out once
        a ``normalise``: ``read`` asks, and ``cell_light`` again for the causes)."""
        if self._shade is None or self._shade[0] is not self._white_luma:
            box, edge = cell_shade(self._white_luma, self.geometry)
            box.flags.writeable = edge.flags.writeable = False
            self._shade = (self._white_luma, (box, edge))
        return self._shade[1]

    def cell_light(self, grid: np.ndarray, lowest: np.ndarray | None = None) -> CellLight:
        """How the light falls on each cell of ``grid``, as the last ``normalise`` of it measured (shade
        and brightness) plus the share clipped white; see ``vision.causes.CellLight``. ``lowest``: ``grid``'s darkest
        channel, when already at hand."""
        box, edge = self.shade()
        paper = box * float(np.mean(self.paper_white + 1.0))
        clipped = cell_shares((darkest(grid) if lowest is None else lowest) >= CLIPPED_LEVEL, self.geometry, 0.0, 1.0)
        return CellLight(box, paper.astype(np.float32), clipped, edge)

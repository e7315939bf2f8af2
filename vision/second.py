"""A second opinion on the cells the rules leave unreadable: two small networks that look at the whole cell.

The tile reader (``vision.tiles``) reads a cell from measured parts of the artwork and refuses whenever a part is in
doubt: a wave's end in a shadow, a washed-out corner dot, a smeared hub. Many such cells are still plain to a person,
who takes in the whole tile at once. Each network does the same: it sees the cell (a quarter of a cell beyond each
side, on the reader's light-divided picture, 20 x 20 samples) and says how likely the cell holds a tile, the tile is
red, each of its four sides carries a wave, and a hand or an object covers it. It is asked about the cells the rules
left unreadable, and a reading is taken only when both networks are sure of every one of those, in each of the
four quarter turns of the cell (the picture turned and the sides turned back), sure nothing covers the cell, and the
rules saw nothing against it (``amend``: no empty cell under glare, no tile where a hand shows on a side or may
cover a wave's end, or glare may lift blank ink, no colour a colour cue denies, no blank side where they saw a
wave's light or a hand, nor a red tile's side that shows no red). Otherwise the cell stays unreadable, with the
reader's own cause. In a frame where the rules see a hand it is also asked about the cells they read: one it sees
covered becomes unreadable.

What it reads is given a modest confidence (``SECOND_CONFIDENCE``): an empty cell read by it never takes a tile off
the board in play (``vision.stabiliser.GONE_CONFIDENCE_MIN``), as a tile under a hand of pale skin can look empty.

The weights (``second_opinion.npz``, both networks, int8 per output with a scale) are made by
``bench/second_opinion.py`` from path-traced sets of known seeds (the two networks weigh the cells the rules leave
unreadable differently); the README's figures name them and the sets they were measured on.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from thoughtwave.vision.finder import GridGeometry

#: The weights, shipped beside this module.
WEIGHTS = Path(__file__).with_name("second_opinion.npz")
#: Samples a side of the picture the network sees, and how much of the cell's neighbours it takes in (cells a side).
SIDE, REACH = 20, 1.25
#: Asked about more cells than this, the features are cut from the picture halved once rather than crop by crop.
HALVED_FROM = 40
#: A reading is taken only where every output is this sure (or as sure of its opposite) in every view (each network,
#: each quarter turn) ... One network alone at 0.99 misread a wave's end (seed 67, frame 12 A4), and needed 0.999;
#: two trained apart agree on few wrong readings, so together they can read more cells surely.
SURE = 0.99
#: ... and no view gives this much to something covering the cell. (0.5 read seed 71 frame 150's H9, a red n with a
#: pale finger over its west side, as red nw at 0.48: over seeds 67, 71, 73 and 79 the readings at 0.4-0.5 were 48
#: visible cells, one of them wrong, and 17 under a hand, one wrong; none at 0.3-0.4 of 88 was.)
COVERED_MAX = 0.4
#: In a frame where the rules see a hand, a cell they read is taken as covered (unreadable) where every view gives
#: cover this much: a hand of pale skin in warm light looks like paper to them, and tiles under it read empty.
COVERED_SURE = 0.8
#: A side the rules read blank where a wave's end may be hidden (``TileReader.read``) stands only where every view
#: reads it blank as surely as the network must to read a side itself: gives it a wave under this. On the tuning sets
#: (seeds 103-67, 7, two smeared) two such sides hid a wave, each under a finger: seed 103 frame 126 B4 (visible; every
#: view gave the wave 0.75 or more) and seed 97 frame 189 E5 (hidden; 0.035 at most). This bar refuses both, and 39
#: visible cells read right of 126,000; a bar of 0.5 refuses 5, but leaves E5 read wrong.
BLANK_CONFIRM = 1.0 - SURE
#: The confidence a reading of the second opinion carries (under the stabiliser's bar for taking a tile off).
SECOND_CONFIDENCE = 0.6


def features(norm: np.ndarray, px_per_cell: int, margin_px: int, cells: np.ndarray) -> np.ndarray:
    """(len(cells), SIDE, SIDE, 3) float32: each cell (by ``Cell.index``) of a light-divided grid image, with
    ``REACH`` of a cell around its middle, scaled so its own light (the 90th percentile of its brightness) is 1."""
    crop = int(round(REACH * px_per_cell))
    pad = (crop - px_per_cell) // 2
    rows, cols = np.divmod(np.asarray(cells, np.int64), 10)
    y, x = margin_px + rows * px_per_cell, margin_px + cols * px_per_cell
    if pad <= margin_px and pad % 2 == 0:
        # Every cell's view lies inside the grid image (its margin is wider than the reach): no border to add, the
        # views taken where they are (the same samples; even, so the halved picture's 2 x 2 blocks are the same too).
        padded, y, x = norm, y - pad, x - pad
    else:
        padded = cv2.copyMakeBorder(norm, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    # Rounded through float16 as in training (``bench/second_opinion.py`` makes its samples here).
    if len(cells) > HALVED_FROM and crop == 2 * SIDE and margin_px % 2 == 0 and px_per_cell % 2 == 0:
        # Many cells: the picture halved once (area averaging of 2 x 2 blocks on even places, as for each crop), and
        # each cell's samples a window of it.
        half = cv2.resize(padded, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(np.float16)
        windows = np.lib.stride_tricks.sliding_window_view(half, (SIDE, SIDE), axis=(0, 1))
        out = np.moveaxis(windows[y // 2, x // 2], 1, -1).astype(np.float32)
    else:
        out = np.empty((len(cells), SIDE, SIDE, 3), np.float32)
        for k in range(len(cells)):
            out[k] = cv2.resize(padded[y[k]:y[k] + crop, x[k]:x[k] + crop], (SIDE, SIDE),
                                interpolation=cv2.INTER_AREA).astype(np.float16)
    # The mean of the three channels, summed in the order ``mean`` sums them (the same float32 numbers, 7x faster).
    light = (out[..., 0] + out[..., 1] + out[..., 2]) / 3
    top = np.percentile(light.reshape(len(cells), -1), 90, axis=1)
    return np.clip(out / np.maximum(top, 0.15)[:, None, None, None], 0.0, 1.5)


@dataclass(frozen=True)
class Opinion:
    """What the network is sure of, per cell asked: ``sure`` (it said something), ``tile`` (else empty), ``red`` and
    ``arms`` (n, e, s, w bits as ``engine.pieces``) for tiles; ``covered``: something covers the cell."""

    sure: np.ndarray
    tile: np.ndarray
    red: np.ndarray
    arms: np.ndarray
    covered: np.ndarray
    #: Some view asked gave ``COVERED_MAX`` or more to something covering the cell (of the views asked: a cell asked
    #: only whether it is covered mostly leaves after the first); None: not told.
    doubt: np.ndarray | None = None


class SecondOpinion:
    """The networks, loaded from ``path``: ``read`` gives their sure readings of a grid image's cells. The file holds
    ``nets`` networks trained apart (keys ``n{j}_w{k}``, ``n{j}_s{k}``, ``n{j}_b{k}``), or one (``w{k}``, ...)."""

    def __init__(self, path: Path = WEIGHTS) -> None:
        with np.load(path, allow_pickle=False) as data:
            count = int(data["layers"])
            prefixes = [f"n{j}_" for j in range(int(data["nets"]))] if "nets" in data else [""]
            self.nets = [([data[f"{p}w{k}"].astype(np.float32) * data[f"{p}s{k}"] for k in range(count)],
                          [data[f"{p}b{k}"].astype(np.float32) for k in range(count)]) for p in prefixes]

    def _view(self, samples: np.ndarray, net: int, k: int) -> np.ndarray:
        """(N, 7) network ``net``'s outputs for ``samples`` turned ``k`` quarter turns (turned back to their sides)."""
        weights, biases = self.nets[net]
        x = np.ascontiguousarray(np.rot90(samples, -k, axes=(1, 2))).reshape(len(samples), -1)
        for n, (w, b) in enumerate(zip(weights, biases, strict=True)):
            x = x @ w + b
            if n < len(weights) - 1:
                np.maximum(x, 0.0, out=x)
        p = 1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0)))
        p[:, 2:6] = p[:, 2 + (np.arange(4) + k) % 4]         # np.roll(p[:, 2:6], -k, axis=1), the same numbers
        return p

    def probabilities(self, samples: np.ndarray) -> np.ndarray:
        """(4 * nets, N, 7) the outputs of each network for each quarter turn (turned back to the cell's own sides):
        tile, red, n, e, s, w, covered."""
        return np.stack([self._view(samples, net, k) for net in range(len(self.nets)) for k in range(4)])

    def read(self, norm: np.ndarray, px_per_cell: int, margin_px: int, cells: np.ndarray,
             only_cover: np.ndarray | None = None, kinds: np.ndarray | None = None) -> Opinion:
        """Their sure readings of ``cells`` (indices) of a light-divided grid image (``TileReader.normalise``): sure in
        every view (each network, each quarter turn). ``only_cover`` (per cell asked): cells asked only whether they
        are covered (their readings are not wanted, and come out unsure); given, the other cells are asked only for
        their readings (whether they are covered is not wanted, and comes out not covered). ``kinds`` (3, per cell
        asked): the readings wanted of each, empty, a red tile, a black tile (``amend``'s ``may_be``); one that can
        only be read as another comes out unsure.

        The views are asked one after another, each only about the cells the views before left in play: a cell one
        view is unsure of (or sees covered) is read by none, and one a view sees uncovered is not surely covered, so
        most cells need one or two views, not eight. What is said is what all eight would say. A cell asked only for its
        reading leaves the views once one is unsure of it, though every view so far sees it covered (without
        ``only_cover`` it stays, to be said covered: on seed 7's first 60 frames two in five of the rows the networks
        took were such cells', under a hand), and once what it is so far is of no kind in ``kinds`` (sureness only
        falls from view to view: it would come out unsure, or of that kind). (Its products are small:
        ``Recognizer.read`` holds numpy's BLAS to one thread around it.)"""
        samples = features(norm, px_per_cell, margin_px, cells)
        n = len(samples)
        lo, hi = np.ones((n, 7), np.float32), np.zeros((n, 7), np.float32)
        doubt = np.zeros(n, bool)
        live = np.arange(n)
        for net in range(len(self.nets)):
            for k in range(4):
                if live.size == 0:
                    break
                p = self._view(samples[live], net, k)
                low, high = np.minimum(lo[live], p), np.maximum(hi[live], p)
                doubt[live] |= p[:, 6] >= COVERED_MAX
                lo[live], hi[live] = low, high
                # Still sure, with nothing over it, of an empty cell, or of a tile and all it is (each output yes in
                # every view so far, or no); or covered in every view so far.
                decided = ((low[:, :6] > SURE) | (high[:, :6] < 1.0 - SURE)).all(axis=1)
                empty, tile = high[:, 0] < 1.0 - SURE, (low[:, 0] > SURE) & decided
                if kinds is not None:
                    # Decided, a tile is red (its output yes so far) or black (no so far) as well.
                    wanted = kinds[:, live]
                    empty &= wanted[0]
                    tile &= ((low[:, 1] > SURE) & wanted[1]) | ((high[:, 1] < 1.0 - SURE) & wanted[2])
                may_read = (high[:, 6] < COVERED_MAX) & (empty | tile)
                may_cover = low[:, 6] > COVERED_SURE
                if only_cover is not None:
                    may_read &= ~only_cover[live]
                    may_cover &= only_cover[live]
                gone = live[~(may_read | may_cover)]
                lo[gone], hi[gone] = 0.5, 0.5       # undecided: neither read nor covered
                live = live[may_read | may_cover]
        yes, no = lo > SURE, hi < 1.0 - SURE
        decided = (yes | no)[:, :6]
        tile = yes[:, 0]
        arms = (yes[:, 2:6] * np.array([1, 2, 4, 8])).sum(axis=1)
        uncovered = hi[:, 6] < COVERED_MAX
        sure_tile = tile & decided.all(axis=1) & (arms > 0)
        sure = uncovered & (no[:, 0] | sure_tile)
        return Opinion(sure, sure & tile, yes[:, 1], arms.astype(np.int64), lo[:, 6] > COVERED_SURE, doubt)

    def _in_every_view(self, samples: np.ndarray, holds) -> np.ndarray:
        """Whether ``holds(probabilities, cells)`` is true of each of ``samples`` in every view (each network, each
        quarter turn); a view where it fails drops its cell from the views after it."""
        clear = np.ones(len(samples), bool)
        for net in range(len(self.nets)):
            for k in range(4):
                live = np.flatnonzero(clear)
                if live.size == 0:
                    return clear
                clear[live] = holds(self._view(samples[live], net, k), live)
        return clear

    def uncovered(self, norm: np.ndarray, px_per_cell: int, margin_px: int, cells: np.ndarray,
                  most: float = COVERED_MAX) -> np.ndarray:
        """Whether every view (each network, each quarter turn) gives under ``most`` to something covering each of
        ``cells`` (indices); by default ``COVERED_MAX``, the bar a reading of the networks' own must pass."""
        return self._in_every_view(features(norm, px_per_cell, margin_px, cells), lambda p, live: p[:, 6] < most)

    def no_tile(self, norm: np.ndarray, px_per_cell: int, margin_px: int, cells: np.ndarray,
                most: float | np.ndarray = 1.0 - SURE) -> np.ndarray:
        """Whether every view (each network, each quarter turn) gives each of ``cells`` (indices) a tile under ``most``
        (by default ``1 - SURE``: as surely as it must to read a cell empty itself; or one bar a cell, as ``cells``),
        whatever it gives to something covering it."""
        return self._in_every_view(features(norm, px_per_cell, margin_px, cells),
                                   lambda p, live: p[:, 0] < (most[live] if np.ndim(most) else most))

    def blank(self, norm: np.ndarray, px_per_cell: int, margin_px: int, cells: np.ndarray,
              sides: np.ndarray, uncovered: bool = False) -> np.ndarray:
        """Whether every view (each network, each quarter turn) calls each of ``sides`` ((len(cells), 4) bool, n e s w)
        of each of ``cells`` (indices) blank as surely as it must to read a side itself: gives it a wave under
        ``BLANK_CONFIRM``; ``uncovered``: and gives something covering the cell under ``COVERED_MAX`` too."""
        sides = np.asarray(sides, bool)
        cover_max = COVERED_MAX if uncovered else np.inf
        return self._in_every_view(features(norm, px_per_cell, margin_px, cells),
                                   lambda p, live: ~((p[:, 2:6] >= BLANK_CONFIRM) & sides[live]).any(axis=1)
                                   & (p[:, 6] < cover_max))

@functools.cache
def second_opinion() -> SecondOpinion | None:
    """The shipped network, loaded once; None (and the rules alone) if its weights are missing."""
    return SecondOpinion() if WEIGHTS.exists() else None


def amend(opinion: SecondOpinion, norm: np.ndarray, geometry: GridGeometry, state: np.ndarray, arms: np.ndarray,
          red: np.ndarray, eligible: np.ndarray, may_be: np.ndarray, hand_seen: bool | np.ndarray,
          not_blank: np.ndarray, pale: np.ndarray, doubted: np.ndarray | None = None,
          not_wave: np.ndarray | None = None, cover_doubt: np.ndarray | None = None,
          doubt_only: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Give the unreadable (``state`` 2) ``eligible`` cells the network's sure readings, in place (``state`` 0 empty,
    1 tile, with ``arms`` and ``red``), each only where the rules saw nothing against it:

    - ``may_be`` (3, 100) says where a cell may be read empty, a red tile, a black tile. The tile reader allows no
      empty cell where glare shows (a tile washed out whole looks like paper), no tile where a hand shows on a side
      (skin over a blank side looks like a wave's cream) or may cover a wave's end, or glare may lift blank ink to
      cream, and no colour that either colour cue (hue, corner dots) denies (the corner dots none in a shadow, where
      their measure fails both ways);
    - ``not_blank`` (100, 4): sides on which the rules saw a wave's light (a shadow only darkens) or a hand (it may
      hide a wave): no reading may call them blank;
    - ``pale`` (100, 4): sides that show too little red for red ink: no red reading may call them blank (a red tile's
      blank side is red like its body; the network has read a red tile's wave whose end lies in a shadow as blank);
    - ``not_wave`` (100, 4): sides no reading may call a wave (pale skin the rules did not see as a hand may lie
      beyond them, and looks like a wave's cream).

    Where the rules see a hand (``hand_seen``; per cell: of those the caller wants read), a cell they read that the
    network sees covered is made unreadable. A cell they read that is ``doubted`` (read on evidence a hand could give
    as well) stands only where the network sees it uncovered as surely as it must to read a cell itself
    (``SecondOpinion.uncovered``); otherwise it is made unreadable too (not said covered).
    ``cover_doubt`` (100 bool, filled in place if given): the cells the rules read, asked where they see a hand, that
    some view asked gave ``COVERED_MAX`` or more to something covering them: the bar past which the network reads no
    cell itself, so not surely uncovered (an empty reading there is paper by the rules' measures alone). ``doubt_only``
    (100 bool): cells the rules read, asked only for ``cover_doubt`` (never made unreadable, covered).
    Returns which cells it read, and which it found covered."""
    unread = (state == 2) & eligible
    only_doubt = np.zeros(len(state), bool) if doubt_only is None else doubt_only & (state != 2)
    asked = np.flatnonzero(unread | ((state != 2) & hand_seen) | only_doubt)
    taken, covered = np.zeros(len(state), bool), np.zeros(len(state), bool)
    unconfirmed = np.zeros(len(state), bool)
    if doubted is not None and (doubted & (state != 2)).any():
        read = np.flatnonzero(doubted & (state != 2))
        unconfirmed[read[~opinion.uncovered(norm, geometry.px_per_cell, geometry.margin_px, read)]] = True
    if asked.size == 0:
        state[unconfirmed] = 2
        return taken, covered
    said = opinion.read(norm, geometry.px_per_cell, geometry.margin_px, asked, only_cover=~unread[asked],
                        kinds=may_be[:, asked])
    covered[asked[said.covered & (state[asked] != 2) & ~only_doubt[asked]]] = True
    if cover_doubt is not None and said.doubt is not None:
        cover_doubt[asked[said.doubt & (state[asked] != 2)]] = True
    kind = np.where(said.tile, np.where(said.red, 1, 2), 0)
    blank = (said.arms[:, None] & np.array([1, 2, 4, 8])) == 0
    against = not_blank[asked] | (said.red[:, None] & pale[asked])
    refused = blank & against
    if not_wave is not None:
        refused |= ~blank & not_wave[asked]
    sure = said.sure & may_be[kind, asked] & unread[asked] & ~(said.tile & refused.any(axis=1))
    cells = asked[sure]
    state[cells] = np.where(said.tile[sure], 1, 0)
    arms[cells] = np.where(said.tile[sure], said.arms[sure], 0)
    red[cells] = said.tile[sure] & said.red[sure]
    taken[cells] = True
    state[covered | unconfirmed] = 2
    return taken, covered

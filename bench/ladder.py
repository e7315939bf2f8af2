"""Statistics for bench/ai.py's rating ladder: points with a confidence interval, Elo differences, ratings.

A game scores 1 (win), 0.5 (draw) or 0 (loss). The interval is the normal approximation on the mean
score with the per-game variance measured from the games themselves (draws shrink it), 95 %. The
ratings are the Elo-style maximum-likelihood fit over every pairing played, one player held at 0;
half a drawn game per pairing is added as a prior so that a clean sweep still gives a finite rating.

>>> round(points(30, 10, 0).score, 3)
0.875
>>> round(elo(0.75))
191
>>> sign_test(0, 5)
0.0625
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.96
_CLIP = 0.999      # scores of 0 or 1 would be infinite Elo: show them as +-1200


@dataclass(frozen=True)
class Points:
    """Wins, draws and losses of one side of a pairing, with its mean score and a 95 % interval."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Mean points a game (a draw is half a point)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def margin(self) -> float:
        """Half the width of the 95 % interval on ``score``."""
        n = self.games
        if n < 2:
            return 0.5
        p = self.score
        var = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p ** 2) / (n - 1)
        return Z95 * math.sqrt(var / n)

    def interval(self) -> tuple[float, float]:
        return max(0.0, self.score - self.margin), min(1.0, self.score + self.margin)


def points(wins: int, draws: int, losses: int) -> Points:
    return Points(wins, draws, losses)


def tally(results: list[str]) -> Points:
    """The points of a list of results, each "win", "draw" or "loss"."""
    return Points(results.count("win"), results.count("draw"), results.count("loss"))


def elo(score: float) -> float:
    """The Elo difference that predicts ``score`` (mean points a game)."""
    p = min(max(score, 1 - _CLIP), _CLIP)
    return -400.0 * math.log10(1.0 / p - 1.0)


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven between ``better`` and
    ``worse`` if either were equally likely (ties left out before calling)."""
    n = better + worse
    if n == 0:
        return 1.0
    k = min(better, worse)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def ratings(results: dict[tuple[str, str], Points], anchor: str) -> dict[str, float]:
    """Elo-style ratings from pairings ``(a, b) -> a's points against b``, ``anchor`` at 0.

    Maximum likelihood by Newton steps per player (a few hundred sweeps converge for ladders this small).
    """
    players = sorted({p for pair in results for p in pair})
    r = {p: 0.0 for p in players}
    games: list[tuple[str, str, float, int]] = []
    for (a, b), pts in results.items():
        n = pts.games + 1                       # the prior: half a point each from one extra drawn game
        games.append((a, b, (pts.wins + 0.5 * pts.draws + 0.5) / n, n))
    scale = math.log(10) / 400.0
    for _ in range(500):
        for p in players:
            if p == anchor:
                continue
            grad = hess = 0.0
            for a, b, s, n in games:
                if p not in (a, b):
                    continue
                mine, other, got = (r[a], r[b], s) if p == a else (r[b], r[a], 1 - s)
                e = 1.0 / (1.0 + 10 ** ((other - mine) / 400.0))
                grad += n * (got - e)
                hess += n * e * (1 - e) * scale
            if hess:
                r[p] += grad / hess
    shift = r.get(anchor, 0.0)
    return {p: v - shift for p, v in r.items()}

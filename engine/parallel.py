"""The root moves searched in several processes: each process deepens over its share of the moves.

The root's best moves are dealt round-robin to ``workers`` processes (the best to the first, the
second best to the second, ...); each runs the same iterative deepening (``engine.search``) over its
share until the deadline and reports, per completed depth, its best move and value. The answer is
the best move at the deepest depth every process completed (values at one depth are comparable: the
same evaluation from the same root). No table is shared, so two processes search about 1.6 times the
nodes of one, not twice, and the first iterations are done twice; it pays when the cores are idle.

The processes live in one pool per process and per count, started on first use (a fork costs tens of
milliseconds; the companion asks for a move every few seconds), from the standard library only.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import math
import multiprocessing
import os
import random
import time

from thoughtwave.engine.evaluate import Evaluator, Weights, decided
from thoughtwave.engine.moves import Move
from thoughtwave.engine.referee import Referee
from thoughtwave.engine.search import Limits, OutOfBudget, Search

_POOLS: dict[int, concurrent.futures.ProcessPoolExecutor] = {}


def default_workers() -> int:
    """Search processes when the caller does not say: the cores beyond two (the camera loop and the web
    server keep theirs), at most two, at least one. A Pi 4 (4 cores) gets 2; this 2-core machine 1."""
    return max(1, min(2, (os.cpu_count() or 1) - 2))


def _pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    pool = _POOLS.get(workers)
    if pool is None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        pool = _POOLS[workers] = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context(method))
    return pool


@atexit.register
def _close_pools() -> None:
    for pool in _POOLS.values():
        pool.shutdown(wait=False, cancel_futures=True)
    _POOLS.clear()


def deepen(ref: Referee, weights: Weights, limits: Limits, rng: random.Random, moves: list[Move],
           plies: int) -> tuple[list[tuple[int, float, Move]], int]:
    """Iterative deepening over ``moves`` (best first) from depth 2 to ``plies``, within ``limits``:
    (depth, value, move) for each depth completed (or cut short after the previous best was searched),
    and the positions evaluated."""
    mover = ref.to_move
    assert mover is not None
    search = Search(ref, Evaluator(mover, weights), limits, rng)
    search.limited = True
    return deepen_with(search, moves, plies), search.nodes


def deepen_with(search: Search, moves: list[Move], plies: int) -> list[tuple[int, float, Move]]:
    """``deepen`` on a search already made (its table and rankings reused)."""
    moves = list(moves)
    found: list[tuple[int, float, Move]] = []
    for target in range(2, plies + 1):
        try:
            value, move, complete = search.search_root(moves, target)
        except OutOfBudget:
            break
        found.append((target if complete else target - 1, value, move))
        if not complete or decided(value):
            break
        moves.remove(move)
        moves.insert(0, move)
    return found


def _share(ref: Referee, weights: Weights, limits: Limits, seconds: float | None, seed: int,
           moves: list[Move], plies: int) -> tuple[list[tuple[int, float, Move]], int]:
    """One process's part (module level, so the pool can run it): the deadline is counted from its
    start, as the clocks of two processes need not agree."""
    limits.deadline = time.monotonic() + seconds if seconds is not None else math.inf
    return deepen(ref, weights, limits, random.Random(seed), moves, plies)


def parallel_deepen(ref: Referee, weights: Weights, limits: Limits, seconds: float | None, seed: int,
                    moves: list[Move], plies: int, workers: int) -> tuple[tuple[int, float, Move] | None, int]:
    """``deepen`` with the moves shared among ``workers`` processes; the best (depth, value, move) at the
    deepest depth all completed (None when one completed nothing) and the positions evaluated in all."""
    shares = [moves[k::workers] for k in range(workers)]
    shares = [s for s in shares if s]
    pool = _pool(workers)
    futures = [pool.submit(_share, ref, weights, limits, seconds, seed + k, share, plies)
               for k, share in enumerate(shares)]
    results = [f.result() for f in futures]
    nodes = sum(n for _, n in results)
    if any(not found for found, _ in results):
        return None, nodes
    depth = min(found[-1][0] for found, _ in results)
    best: tuple[int, float, Move] | None = None
    for found, _ in results:
        at = [f for f in found if f[0] >= depth]
        candidate = at[0] if at else found[-1]
        if best is None or candidate[1] > best[1]:
            best = (depth, candidate[1], candidate[2])
    return best, nodes

"""Engine figures for the README: random full games per second, referee verdicts, legal-placement generation.

Run as ``.venv/bin/python bench/engine.py [--games N] [--seed S]``; prints a markdown table. Everything runs
on one core in this process and is timed in this process's CPU time, so other work on the machine slows the
figures less than it would wall-clock ones (it still shares caches and memory): the table prints the load
average so a reader can judge.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from thoughtwave.engine import Colour, Referee  # noqa: E402
from thoughtwave.engine.board import Board, piece_bits  # noqa: E402
from thoughtwave.engine.cells import CELLS  # noqa: E402
from thoughtwave.engine.moves import Move  # noqa: E402
from thoughtwave.engine.pieces import ALL_PIECES, START_INVENTORY  # noqa: E402

TARGET_GAMES_PER_SECOND = 1000


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (``platform.processor()`` as a fallback)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def random_game(rng: random.Random) -> tuple[int, str]:
    """One random full game on a bare Board: each side lays a random legal piece from its inventory,
    until someone joins their sides or neither can place. Returns (placements, result)."""
    board = Board()
    left = {c: dict(START_INVENTORY) for c in Colour}
    sides = {Colour.RED: 2 | 8, Colour.BLACK: 1 | 4}   # W|E for Red, N|S for Black
    mover = Colour.RED
    stuck = 0
    while stuck < 2:
        move = board.random_placement(piece_bits(left[mover]), rng)
        if move is None:              # automatic pass
            stuck += 1
            mover = mover.other
            continue
        stuck = 0
        board.push(move)
        left[mover][move.piece.kind] -= 1
        joined = board.sides_joined(move.cell)
        if joined & sides[mover] == sides[mover]:
            return len(board), mover.value
        if joined & sides[mover.other] == sides[mover.other]:
            return len(board), mover.other.value
        mover = mover.other
    return len(board), "draw"


def bench_games(n: int, seed: int) -> tuple[float, float, dict[str, int]]:
    """(games per second, mean placements per game, results tally) over ``n`` random games."""
    rng = random.Random(seed)
    tally = {"red": 0, "black": 0, "draw": 0}
    placements = 0
    start = time.process_time()
    for _ in range(n):
        count, result = random_game(rng)
        placements += count
        tally[result] += 1
    elapsed = time.process_time() - start
    return n / elapsed, placements / n, tally


def bench_verdicts(n_games: int, seed: int) -> tuple[float, int]:
    """(microseconds per Referee.attempt, attempts timed) over random games that mix legal placements
    with edge mismatches, so every kind of verdict is timed."""
    rng = random.Random(seed)
    attempts: list[list[Move]] = []
    for _ in range(n_games):   # choose the attempts first, so only the referee is timed
        referee = Referee()
        board = referee.board
        game: list[Move] = []
        while not referee.over and len(game) < 200:
            colour = referee.to_move
            assert colour is not None
            move = board.random_placement(referee.available(colour), rng)
            assert move is not None   # the referee passes a side that cannot place
            touching = [i for i in range(100) if board.arms[i] == 0 and board.fixed[i]]
            if touching and rng.random() < 0.2:   # an edge mismatch next to a piece
                cell = CELLS[rng.choice(touching)]
                misfits = [p for p in ALL_PIECES if not board.fits(Move(p, cell))
                           and referee.inventory[colour][p.kind] > 0]
                if misfits:
                    move = Move(rng.choice(misfits), cell)
            referee.attempt(move)
            game.append(move)
        attempts.append(game)
    total = sum(len(g) for g in attempts)
    start = time.process_time()
    for game in attempts:
        referee = Referee()
        attempt = referee.attempt
        for move in game:
            attempt(move)
    elapsed = time.process_time() - start
    return elapsed / total * 1e6, total


def bench_legal_placements(n_positions: int, seed: int, repeat: int = 20) -> tuple[float, float]:
    """(microseconds per full generation, mean placements listed) on mid-game positions (20-40 pieces)."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < n_positions:
        board = Board()
        target = rng.randint(20, 40)
        while len(board) < target:
            move = board.random_placement(piece_bits(START_INVENTORY), rng)
            if move is None:
                break
            board.push(move)
        boards.append(board)
    listed = sum(len(list(b.legal_placements())) for b in boards)
    start = time.process_time()
    for _ in range(repeat):
        for board in boards:
            list(board.legal_placements())
    elapsed = time.process_time() - start
    return elapsed / (repeat * len(boards)) * 1e6, listed / len(boards)


def main(argv: list[str] | None = None) -> int:
    """Print the figures as a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="random full games to time (default 3000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    games_per_s, mean_len, tally = bench_games(args.games, args.seed)
    us_verdict, verdicts = bench_verdicts(max(args.games // 10, 20), args.seed + 1)
    us_legal, mean_listed = bench_legal_placements(200, args.seed + 2)
    verdict_note = "met" if games_per_s >= TARGET_GAMES_PER_SECOND else "MISSED"
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = [
        ("machine", f"{cpu_model()}, {os.cpu_count()} cores, load average {load} (1/5/15 min) at the end"),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("random full games per second (one core, CPU time)",
         f"{games_per_s:,.0f} (target {TARGET_GAMES_PER_SECOND:,}: {verdict_note}; {args.games} games, "
         f"{mean_len:.1f} placements each; red {tally['red']}, black {tally['black']}, draw {tally['draw']})"),
        ("microseconds per referee verdict (Referee.attempt)", f"{us_verdict:.1f} ({verdicts:,} attempts, "
         "about 1 in 5 an edge mismatch)"),
        ("microseconds per legal-placement generation", f"{us_legal:.1f} (mid-game, 20-40 pieces, "
         f"{mean_listed:.0f} placements listed on average)"),
    ]
    print("| figure | value |")
    print("| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

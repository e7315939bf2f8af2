"""The computer player against simple players: results, time per move, and a legality check.

    .venv/bin/python bench/ai.py --seconds 1 --games 20

Each pairing plays ``--games`` games, the computer taking Red and Black in turn; the opponents are
``random`` (a uniformly random legal placement) and ``greedy`` (the placement that minimises its own
connection distance, ties broken by maximising the computer's, then at random). Prints a markdown
table. Uses at most two processes. ``--records DIR`` keeps every game the computer did not win as
a record (``thoughtwave referee --moves DIR/greedy-20041-black-draw.txt`` replays it); the search
runs against the clock, so the same seed need not give the same game twice.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from thoughtwave.engine import Colour, Outcome, Referee  # noqa: E402
from thoughtwave.engine.ai import Computer, greedy_move, random_move  # noqa: E402
from thoughtwave.engine.record import GameRecord  # noqa: E402

OPPONENTS = {"random": random_move, "greedy": greedy_move}


def play_one(job: tuple[str, int, str, int, float, int | None, dict]) -> dict:
    """One game; returns the result from the computer's side, its move times and any illegal attempt."""
    opponent, seed, colour_name, level, seconds, max_nodes, knobs = job
    computer_colour = Colour(colour_name)
    rng = random.Random(seed)
    computer = Computer(level=level, seconds=seconds, max_nodes=max_nodes, seed=seed, **knobs)
    referee = Referee()
    times: list[float] = []
    illegal = 0
    while not referee.over:
        mover = referee.to_move
        if mover is computer_colour:
            start = time.perf_counter()
            move = computer.choose(referee)
            times.append(time.perf_counter() - start)
            if move is None or move not in set(referee.board.legal_placements(referee.available(mover))):
                illegal += 1
            verdict = referee.attempt(move, mover) if move is not None else None
            if verdict is None or verdict.outcome is not Outcome.LEGAL:
                illegal += 1
                if verdict is None or verdict.outcome is Outcome.REJECTED:
                    break            # nothing changed: stop rather than loop
        else:
            referee.attempt(OPPONENTS[opponent](referee, rng), mover)
    result = "draw" if referee.result in ("draw", "ongoing") else (
        "win" if referee.winner is computer_colour else "loss")
    names = {computer_colour: "computer", computer_colour.other: opponent}
    record = "" if result == "win" else GameRecord.from_referee(
        referee, red=names[Colour.RED], black=names[Colour.BLACK]).to_text()
    return {"opponent": opponent, "result": result, "times": times, "illegal": illegal,
            "moves": len(referee.verdicts), "colour": colour_name, "seed": seed, "record": record}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="computer's time per move (default 1)")
    parser.add_argument("--games", type=int, default=20, help="games per opponent (default 20)")
    parser.add_argument("--level", type=int, default=3, choices=[1, 2, 3])
    parser.add_argument("--max-nodes", type=int, default=None, help="node budget instead of (or as well as) time")
    parser.add_argument("--opponents", default="random,greedy", help="comma-separated: random, greedy")
    parser.add_argument("--processes", type=int, default=2, choices=[1, 2])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--records", type=Path, default=None,
                        help="write each game the computer did not win to this folder, as a record "
                             "`thoughtwave referee --moves` replays")
    parser.add_argument("--keep", type=float, default=0.1, help="weight of pieces in hand (tuning)")
    parser.add_argument("--width", type=float, default=0.1, help="weight of spare path cells (tuning)")
    parser.add_argument("--blocks", type=int, default=12, help="blocking placements searched per position (tuning)")
    parser.add_argument("--lead", type=float, default=4.0, help="race lead beyond which blocking is worth nothing")
    parser.add_argument("--own", type=float, default=0.6, help="weight of the computer's own distance")
    args = parser.parse_args(argv)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    for name in opponents:
        if name not in OPPONENTS:
            parser.error(f"unknown opponent {name!r}")
    knobs = {"keep": args.keep, "width": args.width, "blocks": args.blocks, "lead": args.lead, "own": args.own}
    jobs = [(name, args.seed + g, "red" if g % 2 == 0 else "black", args.level, args.seconds, args.max_nodes,
             knobs) for name in opponents for g in range(args.games)]
    start = time.perf_counter()
    if args.processes == 1:
        results = [play_one(job) for job in jobs]
    else:
        with multiprocessing.Pool(args.processes) as pool:
            results = pool.map(play_one, jobs, chunksize=1)
    wall = time.perf_counter() - start
    budget = f"{args.seconds:g} s/move" + (f", at most {args.max_nodes} nodes" if args.max_nodes else "")
    budget += f", keep {args.keep:g}, width {args.width:g}, blocks {args.blocks}, lead {args.lead}, own {args.own:g}"
    print(f"Computer level {args.level}, {budget}, {args.games} games per opponent, colours alternating; "
          f"{args.processes} processes on {os.cpu_count()} cores ({platform.python_implementation()} "
          f"{platform.python_version()}), {wall:.0f} s wall.\n")
    print("| opponent | games | wins | draws | losses | win % | win % as red | win % as black "
          "| median s/move | max s/move | illegal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in opponents:
        mine = [r for r in results if r["opponent"] == name]
        count = {k: sum(r["result"] == k for r in mine) for k in ("win", "draw", "loss")}
        times = [t for r in mine for t in r["times"]]

        def rate(games: list[dict]) -> str:
            return f"{100 * sum(r['result'] == 'win' for r in games) / len(games):.0f}" if games else "-"

        print(f"| {name} | {len(mine)} | {count['win']} | {count['draw']} | {count['loss']} | {rate(mine)} "
              f"| {rate([r for r in mine if r['colour'] == 'red'])} "
              f"| {rate([r for r in mine if r['colour'] == 'black'])} "
              f"| {statistics.median(times):.2f} | {max(times):.2f} | {sum(r['illegal'] for r in mine)} |")
    if args.records is not None:
        args.records.mkdir(parents=True, exist_ok=True)
        lost = [r for r in results if r["record"]]
        for r in lost:
            (args.records / f"{r['opponent']}-{r['seed']}-{r['colour']}-{r['result']}.txt").write_text(r["record"])
        print(f"\n{len(lost)} games not won written to {args.records}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())

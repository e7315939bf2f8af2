"""The computer's rating ladder: games against benchmark players, points with a 95 % interval, Elo.

    .venv/bin/python bench/ai.py --seconds 1 --games 40 --opponents greedy,twoply --seed 70000
    .venv/bin/python bench/ai.py --levels 1,2,3 --seconds 1 --opponents greedy,twoply,previous \\
        --anchors --games 20        # the whole ladder

Players: ``L3@1`` is the computer at level 3 and 1 s a move (``--levels`` x ``--seconds`` give the
ones measured), ``previous@1`` the frozen computer of before issue 17 (bench/previous_ai.py),
``twoply`` the two-ply benchmark searcher (bench/twoply.py), ``greedy`` (the placement that
minimises its own connection distance) and ``random``. Each computer plays ``--games`` games
against each opponent: game pairs share an opening of 2-4 random placements (``--opening``) with the
colours swapped. ``--anchors`` also plays the benchmark players among themselves, so the ratings
hang together. Prints one row per pairing (wins / draws / losses, points with a 95 % interval, the
Elo difference) and a table of ratings (greedy = 0). Games run in two processes at most.
``--records DIR`` keeps every game the computer did not win (``thoughtwave referee --moves`` replays it).
``--results FILE`` writes one JSON line a game (players, opening seed, colour, result, ``--set``, ``--set-first``,
``--nodes``, ``--seconds``), for ``bench/paired.py`` to compare two runs on the same openings game by game.
``--nodes N`` replaces the computers' clocks by N positions evaluated for each second (so repeatable whatever the
load); ``--opponents L3@1`` with ``--seconds 4`` plays the computer against itself at a quarter of its budget.
``--set`` gives every computer in the run the same knobs; ``--set-first`` gives the measured one more of its own.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import Points, elo, ratings, tally  # noqa: E402
from previous_ai import Computer as PreviousComputer  # noqa: E402
from twoply import two_ply_move  # noqa: E402

from thoughtwave.engine import Colour, Move, Outcome, Referee  # noqa: E402
from thoughtwave.engine.ai import Computer, greedy_move, random_move  # noqa: E402
from thoughtwave.engine.record import GameRecord  # noqa: E402

Player = Callable[[Referee], Move | None]


def make_player(spec: str, seed: int, knobs: dict) -> Player:
    """The player a spec names (see the module docstring), seeded for its tie-breaks."""
    rng = random.Random(seed)
    name, _, seconds_text = spec.partition("@")
    seconds = float(seconds_text) if seconds_text else 1.0
    if name.startswith("L") and name[1:].isdigit():
        knobs = dict(knobs)
        if not knobs.pop("clock", True):
            # --nodes N: N positions for each second of the player's clock, which is then off (L3@4 against L3@1
            # searches four times the positions, whatever the load)
            knobs["max_nodes"] = max(1, round(knobs["max_nodes"] * seconds))
            seconds = None
        return Computer(level=int(name[1:]), seconds=seconds, seed=seed, **knobs).choose
    if name == "previous":
        return PreviousComputer(level=3, seconds=seconds, seed=seed).choose
    simple = {"greedy": greedy_move, "random": random_move, "twoply": two_ply_move}
    if name not in simple:
        raise ValueError(f"unknown player {spec!r}")
    move = simple[name]
    return lambda referee: move(referee, rng)


def opened(rng: random.Random, opening: int = 4) -> Referee:
    """A new game after an opening of ``opening - 2`` to ``opening`` random placements (0: none)."""
    referee = Referee()
    for _ in range(rng.randint(opening - 2, opening) if opening else 0):
        if not referee.over:
            referee.attempt(random_move(referee, rng))
    return referee


def play_one(job: tuple[str, str, int, int, str, int, dict, dict]) -> dict:
    """One game of ``first`` (the player measured, with its own knobs on top) against ``second``; the result is
    ``first``'s."""
    first, second, game, opening_seed, colour_name, opening, knobs, first_knobs = job
    colour = Colour(colour_name)
    players = {colour: make_player(first, opening_seed * 2 + 1, knobs | first_knobs),
               colour.other: make_player(second, opening_seed * 2, knobs)}
    rng = random.Random(opening_seed)
    referee = opened(rng, opening)
    times: list[float] = []
    illegal = 0
    while not referee.over:
        mover = referee.to_move
        assert mover is not None
        start = time.perf_counter()
        move = players[mover](referee)
        if mover is colour:
            times.append(time.perf_counter() - start)
        legal = move is not None and move in set(referee.board.legal_placements(referee.available(mover)))
        verdict = referee.attempt(move, mover) if move is not None else None
        if not legal or verdict is None or verdict.outcome is not Outcome.LEGAL:
            illegal += 1
            if verdict is None or verdict.outcome is Outcome.REJECTED:
                break                   # nothing changed: stop rather than loop
    result = "draw" if referee.result in ("draw", "ongoing") else ("win" if referee.winner is colour else "loss")
    names = {colour: first, colour.other: second}
    record = "" if result == "win" else GameRecord.from_referee(
        referee, red=names[Colour.RED], black=names[Colour.BLACK]).to_text()
    return {"first": first, "second": second, "result": result, "times": times, "illegal": illegal,
            "colour": colour_name, "game": game, "opening": opening_seed, "record": record}


def _jobs(pairs: list[tuple[str, str]], games: int, seed: int, opening: int, knobs: dict,
          first_knobs: dict | None = None) -> list[tuple]:
    return [(a, b, g, seed + g // 2, "red" if g % 2 == 0 else "black", opening, knobs, first_knobs or {})
            for a, b in pairs for g in range(games)]


def _knobs(text: str) -> dict:
    """``beam=8,lead=none`` as keyword arguments of ``Computer``."""
    knobs: dict = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        knobs[name] = None if value == "none" else float(value) if "." in value else int(value)
    return knobs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", default="1", help="the computer's seconds a move; a list measures each")
    parser.add_argument("--levels", default="3", help="computer levels to measure, e.g. 1,2,3")
    parser.add_argument("--games", type=int, default=20, help="games per pairing, colours alternating")
    parser.add_argument("--opponents", default="greedy,twoply",
                        help="comma-separated: greedy, twoply, previous (at the same seconds), random")
    parser.add_argument("--anchors", action="store_true",
                        help="also play twoply and previous against greedy and each other")
    parser.add_argument("--opening", type=int, default=4, help="random placements opening each game pair "
                        "(from N-2 to N; 0: none)")
    parser.add_argument("--processes", type=int, default=2, choices=[1, 2])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="the computer's search processes")
    parser.add_argument("--nodes", type=int, default=None,
                        help="a fixed budget of positions evaluated a move for each second of a computer's clock, "
                        "instead of the clock (load-independent A/B comparisons; L3@4 gets four times L3@1's; the "
                        "time a move is then only reported)")
    parser.add_argument("--set", default="", help="the computer's knobs for tuning, e.g. beam=8,lead=none")
    parser.add_argument("--set-first", default="",
                        help="knobs for the measured computer only, on top of --set (its computer opponents keep "
                        "--set alone), e.g. --seconds 4 --opponents L3@1 --set-first root_beam=12")
    parser.add_argument("--records", type=Path, default=None,
                        help="write each game the computer did not win to this folder")
    parser.add_argument("--results", type=Path, default=None,
                        help="write one JSON line a game to this file (for bench/paired.py)")
    args = parser.parse_args(argv)
    if args.results is not None and not args.results.parent.is_dir():
        parser.error(f"--results {args.results}: no folder {args.results.parent}")   # before the games, not after
    knobs: dict = {} if args.workers is None else {"workers": args.workers}
    if args.nodes is not None:
        knobs.update(max_nodes=args.nodes, clock=False)
    try:
        knobs.update(_knobs(args.set))
        first_knobs = _knobs(args.set_first)
    except ValueError as exc:
        parser.error(f"--set / --set-first: knobs are name=number, name=none ({exc})")
    seconds = [float(s) for s in args.seconds.split(",")]
    subjects = [f"L{level}@{s:g}" for level in args.levels.split(",") for s in seconds]
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    pairs: list[tuple[str, str]] = []
    for subject in subjects:
        for name in opponents:
            pairs.append((subject, f"previous@{subject.split('@')[1]}" if name == "previous" else name))
    if args.anchors:
        pairs += [("twoply", "greedy"), (f"previous@{seconds[0]:g}", "greedy"),
                  (f"previous@{seconds[0]:g}", "twoply")]
    for first, name in pairs:
        make_player(name, 0, knobs)             # an unknown name fails here, before any game
        try:
            make_player(first, 0, knobs | first_knobs)
        except TypeError as exc:
            parser.error(f"--set / --set-first: {exc}")
    jobs = _jobs(pairs, args.games, args.seed, args.opening, knobs, first_knobs)
    start = time.perf_counter()
    load = os.getloadavg()
    if args.processes == 1:
        results = [play_one(job) for job in jobs]
    else:
        with multiprocessing.Pool(args.processes) as pool:
            results = []
            for r in pool.imap_unordered(play_one, jobs, chunksize=1):
                results.append(r)
                print(f"\r{len(results)}/{len(jobs)} games", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
    wall = time.perf_counter() - start
    load_after = os.getloadavg()
    print(f"{args.games} games a pairing, colours alternating, openings of {max(0, args.opening - 2)}-"
          f"{args.opening} random placements, seeds {args.seed}-{args.seed + (args.games - 1) // 2}; "
          f"{args.processes} processes on {os.cpu_count()} cores ({platform.python_implementation()} "
          f"{platform.python_version()}), {wall:.0f} s wall; load average {load[0]:.2f} before, "
          f"{load_after[0]:.2f} after.\n")
    print("| player | opponent | games | wins | draws | losses | points % (95% interval) | Elo difference "
          "| median / max s a move | illegal |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- | ---: |")
    table: dict[tuple[str, str], Points] = {}
    for a, b in pairs:
        mine = [r for r in results if r["first"] == a and r["second"] == b]
        pts = tally([r["result"] for r in mine])
        table[(a, b)] = pts
        low, high = pts.interval()
        times = [t for r in mine for t in r["times"]] or [0.0]
        print(f"| {a} | {b} | {pts.games} | {pts.wins} | {pts.draws} | {pts.losses} | {100 * pts.score:.0f} "
              f"({100 * low:.0f}-{100 * high:.0f}) | {elo(pts.score):+.0f} ({elo(low):+.0f} to {elo(high):+.0f}) "
              f"| {statistics.median(times):.2f} / {max(times):.2f} | {sum(r['illegal'] for r in mine)} |")
    anchor = "greedy" if any("greedy" in pair for pair in pairs) else pairs[0][1]
    print(f"\n| player | Elo-style rating ({anchor} = 0) |\n| --- | ---: |")
    for name, rating in sorted(ratings(table, anchor).items(), key=lambda x: -x[1]):
        print(f"| {name} | {rating:+.0f} |")
    if args.records is not None:
        args.records.mkdir(parents=True, exist_ok=True)
        lost = [r for r in results if r["record"]]
        for r in lost:
            name = f"{r['first']}-{r['second']}-{r['game']}-{r['colour']}-{r['result']}.txt".replace("@", "at")
            (args.records / name).write_text(r["record"])
        print(f"\n{len(lost)} games not won written to {args.records}/")
    if args.results is not None:
        with args.results.open("w", encoding="utf-8") as out:
            for r in sorted(results, key=lambda r: (r["first"], r["second"], r["game"])):
                out.write(json.dumps({k: r[k] for k in ("first", "second", "game", "opening", "colour", "result")}
                                     | {"set": args.set, "set_first": args.set_first, "nodes": args.nodes,
                                        "seconds": args.seconds}) + "\n")
        print(f"{len(results)} games written to {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

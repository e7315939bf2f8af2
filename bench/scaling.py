"""Does more search change the computer's moves? Positions of self-play searched at several budgets.

    .venv/bin/python bench/scaling.py --seeds 5000-5017 --nodes 1500,6000 [--root-beams auto|6,12]

For each seed: an opening of 2-4 random placements, then the computer against itself at 1,000 positions a move
(``--play-nodes``) for a random number of placements (8-30, from the seed), and that position searched at each
budget of ``--nodes`` (positions evaluated, so a run is repeatable whatever the load) and each ``--root-beams``
(root moves searched deeper; by default the computer's own for each budget, ``engine.ai.root_width``). One line a
position: its placement number, then per search the move, the depth completed, the value and the CPU seconds, after
each side's fewest placements still needed and pieces in hand. The summary sorts the positions into drawn (every
search valued it exactly 0: the evaluation's draw by exhaustion), decided (a forced result found by the first
search) and open, and counts in the open ones how often each search chose another move than the first.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from pathlib import Path

from thoughtwave.engine.ai import Computer, root_width
from thoughtwave.engine.analysis import analyse, placeable_count
from thoughtwave.engine.evaluate import decided
from thoughtwave.engine.pieces import Colour
from thoughtwave.engine.referee import Referee

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ai import opened  # noqa: E402  (bench/ai.py's openings)


def needs(ref: Referee) -> dict[Colour, str]:
    """Each side's fewest placements still needed to connect (the display's figure) and its pieces in hand, as
    "9 of 17" ("- of 17": it can no longer connect)."""
    found = analyse(ref).distance
    return {c: f"{'-' if found[c] is None else found[c]} of {placeable_count(ref.inventory[c])}" for c in Colour}


def kind(values: list[float]) -> str:
    """"drawn" when every search valued the position exactly 0 (the evaluation's draw by exhaustion: a side that
    can no longer connect blocks for free, so the other's lead is worth only the pieces it has to spare),
    "decided" when the first found a forced result, else "open"."""
    if all(v == 0.0 for v in values):
        return "drawn"
    return "decided" if decided(values[0]) else "open"


def position(seed: int, play_nodes: int = 1000) -> tuple[Referee, int]:
    """The position of ``seed``'s self-play game, and how many placements the computer made to reach it."""
    rng = random.Random(seed)
    ref = opened(rng)
    target, made = rng.randint(8, 30), 0
    player = Computer(max_nodes=play_nodes, seconds=None, seed=seed)
    while not ref.over and made < target:
        ref.attempt(player.choose(ref))
        made += 1
    return ref, made


def _list(text: str, name: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"{name}: a comma-separated list of whole numbers, not {text!r}") from None
    if not values or min(values) < 1:
        raise SystemExit(f"{name}: at least one number, each 1 or more")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="5000-5017", help="a range FIRST-LAST of position seeds")
    parser.add_argument("--nodes", default="1500,6000", help="budgets to compare (the first is the reference)")
    parser.add_argument("--root-beams", default="auto", help="root moves searched deeper, each with every budget "
                        "(auto: the computer's own for the budget, 6 at 1,500 positions and 12 at 6,000)")
    parser.add_argument("--play-nodes", type=int, default=1000, help="the self-play's budget before the position")
    args = parser.parse_args(argv)
    first, _, last = args.seeds.partition("-")
    try:
        seeds = range(int(first), int(last or first) + 1)
    except ValueError:
        raise SystemExit(f"--seeds: FIRST-LAST, not {args.seeds!r}") from None
    beams: list[int | None] = [None] if args.root_beams == "auto" else list(_list(args.root_beams, "--root-beams"))
    searches = [(n, root_width(None, n) if b is None else b) for b in beams for n in _list(args.nodes, "--nodes")]
    print("| seed | placement | Red needs | Black needs | " +
          " | ".join(f"{n} positions, {b} root moves" for n, b in searches) + " |")
    print("| ---: | ---: | ---: | ---: | " + " | ".join("---" for _ in searches) + " |")
    kinds = {"drawn": 0, "decided": 0, "open": 0}
    open_moves: list[list[str]] = []
    for seed in seeds:
        ref, made = position(seed, max(1, args.play_nodes))
        if ref.over:
            continue
        cells = []
        for nodes, beam in searches:
            start = time.process_time()
            choice = Computer(max_nodes=nodes, seconds=None, seed=seed, root_beam=beam).search(copy.deepcopy(ref))
            assert choice is not None
            cells.append((str(choice.move), choice.depth, choice.value, time.process_time() - start))
        searched = " | ".join(f"{m} (depth {d}, value {v:.2f}, {t:.1f} s)" for m, d, v, t in cells)
        need = needs(ref)
        print(f"| {seed} | {made} | {need[Colour.RED]} | {need[Colour.BLACK]} | {searched} |", flush=True)
        found = kind([v for _, _, v, _ in cells])
        kinds[found] += 1
        if found == "open":
            open_moves.append([m for m, _, _, _ in cells])
    print(f"\n{sum(kinds.values())} positions: " + ", ".join(f"{n} {k}" for k, n in kinds.items()))
    for k, (nodes, beam) in enumerate(searches[1:], 1):
        other = sum(moves[k] != moves[0] for moves in open_moves)
        print(f"{nodes} positions with {beam} root moves chose another move than {searches[0][0]} with "
              f"{searches[0][1]} in {other} of the {len(open_moves)} open positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())

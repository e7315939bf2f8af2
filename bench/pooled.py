"""Several runs of one pairing pooled: each run's points, the total with its interval, and the sign test.

    .venv/bin/python bench/ai.py --seconds 4 --opponents L3@1 --games 40 --seed 104000 --results /tmp/a.jsonl
    .venv/bin/python bench/ai.py --seconds 4 --opponents L3@1 --games 40 --seed 106000 --results /tmp/b.jsonl
    .venv/bin/python bench/pooled.py /tmp/a.jsonl /tmp/b.jsonl

Where ``bench/paired.py`` compares two runs of one player on the same openings, this adds up runs of the
same pairing on different openings (each run of ``bench/ai.py --results``; one player against one
opponent). It prints one row a run and the total: wins, draws, losses, points with a 95 % interval and the
Elo difference, and the exact two-sided sign test of wins against losses (the chance of a split at least
that uneven if the two players were equally strong; draws left out). A game found in two runs (the same
opening and colour) is refused: pooling it twice would overstate the evidence.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import Points, elo, sign_test, tally  # noqa: E402
from paired import load  # noqa: E402


def pool(runs: list[tuple[str, dict[tuple, dict]]]) -> dict:
    """Each run's points and the total's, after checking the runs measure one pairing and share no game."""
    pairings = {(g["first"], g["second"]) for _, games in runs for g in games.values()}
    if len(pairings) > 1:
        raise SystemExit("the runs measure different pairings (" +
                         ", ".join(f"{a} against {b}" for a, b in sorted(pairings)) + "); pool one pairing")
    seen: dict[tuple, str] = {}
    rows = []
    for name, games in runs:
        for key in games:
            if key in seen:
                raise SystemExit(f"{name} and {seen[key]} both hold the game of opening {key[1]} with "
                                 f"{key[2]}: pool runs on different openings (--seed)")
            seen[key] = name
        rows.append((name, tally([g["result"] for g in games.values()])))
    total = tally([g["result"] for _, games in runs for g in games.values()])
    return {"pairing": pairings.pop() if pairings else None, "rows": rows, "total": total,
            "p": sign_test(total.wins, total.losses)}


def _row(name: str, pts: Points) -> str:
    low, high = pts.interval()
    return (f"| {name} | {pts.games} | {pts.wins} | {pts.draws} | {pts.losses} | "
            f"{100 * pts.score:.0f} ({100 * low:.0f}-{100 * high:.0f}) | {elo(pts.score):+.0f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="bench/ai.py --results files of one pairing")
    args = parser.parse_args(argv)
    for path in args.runs:
        if not path.is_file():
            raise SystemExit(f"{path}: no such file")
    result = pool([(str(path), load(path)) for path in args.runs])
    if not result["total"].games:
        raise SystemExit("the runs hold no game")
    first, second = result["pairing"]
    print(f"{first} against {second}\n")
    print("| run | games | wins | draws | losses | points % (95% interval) | Elo difference |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for name, pts in result["rows"]:
        print(_row(name, pts))
    total = result["total"]
    print(_row("**all**", total))
    print(f"\nWins against losses {total.wins} / {total.losses}: sign test p = {result['p']:.3f}"
          + (" (no more than noise)" if result["p"] >= 0.05 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

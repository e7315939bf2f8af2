"""Two runs of bench/ai.py on the same openings, compared game by game: is the change more than noise?

    .venv/bin/python bench/ai.py --nodes 1000 --games 40 --opponents twoply --seed 1500 --results /tmp/a.jsonl
    .venv/bin/python bench/ai.py --nodes 1000 --games 40 --opponents twoply --seed 1500 \\
        --set width=0.15 --results /tmp/b.jsonl
    .venv/bin/python bench/paired.py /tmp/a.jsonl /tmp/b.jsonl

Each run measures one player (one ``--levels`` and one ``--seconds``: the computer changed between the runs,
by its knobs, its clock or its code). Games are matched by opponent, opening seed and colour: the same
opening with the same side. Prints each run's points, how many games the second run scored
better, worse and the same, and the exact two-sided sign test on the games that differ (the chance of a
split at least that uneven if the change made no difference). A fixed-budget run (``--nodes``) is
deterministic, but a small change to the evaluation changes most games' courses, so two 40-game runs
of equal strength often differ by ten points or more; the sign test says when a difference is more
than that.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import Points, sign_test, tally  # noqa: E402

SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def load(path: Path) -> dict[tuple, dict]:
    """The games of one ``--results`` file, keyed by what must match between runs."""
    games: dict[tuple, dict] = {}
    players: set[str] = set()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"{path}: cannot read it ({exc})") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            game = json.loads(line)
            key = (game["second"], game["opening"], game["colour"])
            players.add(game["first"])
            if game["result"] not in SCORE:
                raise ValueError(f"result {game['result']!r}")
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path}:{number}: not a bench/ai.py --results line ({exc})") from None
        games[key] = game
    if len(players) > 1:
        raise SystemExit(f"{path}: measures {len(players)} players ({', '.join(sorted(players))}); "
                         "compare runs of one player each")
    return games


def compare(first: dict[tuple, dict], second: dict[tuple, dict]) -> dict:
    """Both runs' points over the games they share, and the games the second scored better or worse on."""
    shared = sorted(set(first) & set(second))
    better = sum(SCORE[second[k]["result"]] > SCORE[first[k]["result"]] for k in shared)
    worse = sum(SCORE[second[k]["result"]] < SCORE[first[k]["result"]] for k in shared)

    def points(games: dict[tuple, dict]) -> Points:
        return tally([games[k]["result"] for k in shared])

    return {"games": len(shared), "first": points(first), "second": points(second), "better": better,
            "worse": worse, "same": len(shared) - better - worse, "p": sign_test(better, worse)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="the run before the change (bench/ai.py --results)")
    parser.add_argument("second", type=Path, help="the run with the change")
    args = parser.parse_args(argv)
    for path in (args.first, args.second):
        if not path.is_file():
            raise SystemExit(f"{path}: no such file")
    c = compare(load(args.first), load(args.second))
    if not c["games"]:
        raise SystemExit("the two runs share no game: same --seed, --games and --opponents?")
    print("| run | games | wins | draws | losses | points % (95% interval) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name in ("first", "second"):
        pts: Points = c[name]
        low, high = pts.interval()
        print(f"| {getattr(args, name)} | {pts.games} | {pts.wins} | {pts.draws} | {pts.losses} | "
              f"{100 * pts.score:.0f} ({100 * low:.0f}-{100 * high:.0f}) |")
    print(f"\nThe second run scored better in {c['better']} games, worse in {c['worse']}, the same in {c['same']}; "
          f"sign test p = {c['p']:.2f}" + (" (no more than noise)" if c["p"] >= 0.05 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

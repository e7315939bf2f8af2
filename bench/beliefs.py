"""Where the computer's search claims a forced result that the game then contradicts.

    .venv/bin/python bench/beliefs.py RECORD... [--nodes 1000] [--from 24] [--side red|black]

Give it the games the computer did not win (``bench/ai.py --records DIR``). At each of the computer's moves from
placement ``--from`` on, the computer searches the position at a fixed budget (``--nodes``, so a run is
repeatable); a claimed forced win in a game it did not win, or a claimed forced loss in a game it did not lose, is
printed with the placement number and the move the search chose (the first such position a game). Either the
search believed something false (it found three games where the opponent's candidates held no waiting
placement, 2026-11-25) or it missed the result over the board; replay the record to the position
(``thoughtwave referee --moves``) to see which. The computer's side is the player named like a level (``L3@1``,
as ``bench/ai.py`` names it) unless ``--side`` says.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from thoughtwave.engine import Colour, Referee  # noqa: E402
from thoughtwave.engine.ai import Computer  # noqa: E402
from thoughtwave.engine.evaluate import decided  # noqa: E402
from thoughtwave.engine.record import GameRecord, RecordError  # noqa: E402


def computer_side(record: GameRecord, side: str | None) -> Colour | None:
    """The colour the computer played: ``side`` when given, else the player named like a level (``L3@1``)."""
    if side:
        return Colour(side)
    named = [c for c, name in ((Colour.RED, record.red), (Colour.BLACK, record.black)) if name[:1] == "L"]
    return named[0] if len(named) == 1 else None


def first_contradiction(record: GameRecord, me: Colour, nodes: int, start: int) -> str | None:
    """The first of ``me``'s positions (from placement ``start``) where the search claims a result the game's
    result contradicts, in words; None when there is none."""
    referee = Referee(record.rules)
    won, lost = record.result == me.value, record.result == me.other.value
    for n in range(len(record.moves) + 1):          # the position before each placement, and the last one
        if n >= start and referee.to_move is me and not referee.over:
            choice = Computer(level=3, seconds=None, max_nodes=nodes, seed=1).search(referee)
            if choice is not None and decided(choice.value):
                claims_win = choice.value > 0
                if (claims_win and not won) or (not claims_win and not lost):
                    outcome = "drawn" if record.result == "draw" else "won" if won else "lost" if lost else "unfinished"
                    return (f"placement {n + 1}, {me.value} to move: the search claims a forced "
                            f"{'win' if claims_win else 'loss'} ({choice.value:.0f}) with {choice.move}; "
                            f"the game was {outcome}")
        if n < len(record.moves):
            referee.play(record.moves[n].attempt())
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", type=Path, help="game records (bench/ai.py --records)")
    parser.add_argument("--nodes", type=int, default=1000, help="positions evaluated a search (default 1000)")
    parser.add_argument("--from", dest="start", type=int, default=0,
                        help="look from this placement on (default 0: every one of the computer's)")
    parser.add_argument("--side", choices=[c.value for c in Colour], help="the computer's colour in every record")
    args = parser.parse_args(argv)
    found = looked = 0
    for path in args.records:
        try:
            record = GameRecord.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, RecordError) as exc:
            print(f"{path}: cannot read it as a game record: {exc}", file=sys.stderr)
            return 2
        me = computer_side(record, args.side)
        if me is None:
            print(f"{path}: which side is the computer? Neither or both players are named like a level "
                  f"({record.red!r}, {record.black!r}); say --side", file=sys.stderr)
            return 2
        looked += 1
        said = first_contradiction(record, me, args.nodes, args.start)
        if said:
            found += 1
            print(f"{path.name}: {said}", flush=True)
    print(f"{found} of {looked} games with a claim the game contradicts (--nodes {args.nodes}, from placement "
          f"{args.start})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

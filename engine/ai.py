"""The computer player: alpha-beta with iterative deepening over the referee's own moves (``engine.search``),
judged by the connection race (``engine.evaluate``), candidates from the distance maps (``engine.candidates``).

Levels: 1 plays the best evaluated move; 2 checks the best three against the opponent's best replies
(two plies); 3 deepens ply by ply over the best ``root_beam`` moves (by default six at 1 s, more with more
time: ``root_width``) until the time (or node) budget is spent, and plays the best move of the deepest
search (a cut-short iteration counts when it has already searched the previous best move). See the ``Computer``
docstring for the measured trials.

>>> from thoughtwave.engine import Referee
>>> referee = Referee()
>>> referee.attempt(Computer(level=1, seed=1).choose(referee)).outcome.value
'legal'
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from thoughtwave.engine.analysis import distance, placeable_count
from thoughtwave.engine.board import piece_bits
from thoughtwave.engine.evaluate import NO_PATH, Evaluator, Weights, decided, win_estimate
from thoughtwave.engine.moves import Move
from thoughtwave.engine.parallel import deepen_with, default_workers, parallel_deepen
from thoughtwave.engine.pieces import Colour
from thoughtwave.engine.referee import Referee
from thoughtwave.engine.search import Limits, Search

#: The share of a move's time that ranking every placement at the root may take (``root_all``); the candidates are
#: always ranked, and the rest of the time goes to the deepening (early in a game, on a slow machine, it would not
#: leave the deepening much).
ROOT_SHARE = 0.4
#: Level 3 deepens over ``ROOT_WIDTH`` root moves at 1 s a move or less, and over more with more time: six times the
#: square root of the seconds (12 at 4 s), at most ``ROOT_WIDTH_MAX``. A node budget counts as ``NODES_A_SECOND``
#: positions a second (about what this 2-core machine evaluates). Measured at a fixed budget on tuning openings:
#: 12 root moves at 4x the budget against 6 at 1x scored 64% over 80 games, 6 at 4x 54% (README, issue 17).
ROOT_WIDTH, ROOT_WIDTH_MAX, NODES_A_SECOND = 6, 12, 1500

__all__ = ["Choice", "Computer", "chooser", "greedy_move", "random_move", "win_estimate"]
_NO_PATH = NO_PATH


@dataclass(frozen=True)
class Choice:
    """The computer's answer: the move, its win estimate in [0, 1] for the mover, and search figures."""

    move: Move
    colour: Colour
    score: float
    value: float
    depth: int
    nodes: int

    def to_json(self) -> dict:
        """``{"move": "nes@B2", "score": 0.73, "colour": "red"}``: what ``thoughtwave hint`` prints."""
        return {"move": str(self.move), "score": round(self.score, 3), "colour": self.colour.value}


class Computer:
    """A computer player. ``choose(referee)`` returns a legal placement for the side to move.

    ``level``: 1 the best move by the evaluation alone; 2 checks the best three against the
    opponent's replies (two plies); 3 deepens over the best ``root_beam`` until the budget is spent
    (at most ``plies`` deep; None: ``root_width`` of the budget, 6 at 1 s and 12 at 4 s). ``seconds`` is the
    time a move (None: no clock); ``max_nodes`` caps the positions evaluated (deterministic, for tests).
    ``seed`` makes the tie-breaking between equal moves repeatable. The tuned knobs: ``beam`` (moves searched
    deeper per position), ``keep``,
    ``width``, ``lead``, ``own``, ``exact_threats``, ``norm``, ``dead`` (the evaluation's ``Weights``) and ``blocks``
    (placements beside the opponent's connection tried per position; 0: none). ``root_all``: the first
    ply ranks every legal placement, not only the candidates (as the two-ply benchmark searcher does; it
    costs 500-1000 cheap evaluations, 0.1-0.5 s here, at most ``ROOT_SHARE`` of the clock; off by default).
    ``workers``: search processes at level 3 (``engine.parallel``; default: the cores beyond two, at most two).

    Trials (bench/ai.py against the two-ply searcher of issue 17 at 1 s a move, 8 games each on the
    tuning seeds 1000-1003 unless said, openings of 2-4 random placements, the machine shared and
    loaded 2-8): the old knobs (lead 4, own 0.6) 2 wins / 4 draws / 6 losses over 12 games (33%), the
    same at two plies 3/1/4; no lead cap and own 0 drew all 8 (both sides block until the pieces run
    out); no cap and own 0.6 2/3/3; no cap and own 0.3 3/4/1 (62%) and 2/5/1 on seeds 1100-1103;
    own 0.2 with width 0.2 2/3/3; own 0.3 with extra weight on spare cells once the opponent cannot
    connect 2/3/3. Speed, one search of a 16-placement position with a fixed depth: 2, 3 and 4 plies
    took 123, 424 and 1763 evaluations (0.13, 0.58, 2.0 s) against the previous search's 231, 1038
    and 4226 (0.26, 1.38, 7.2 s), choosing the same moves.

    Trials of 2026-11-23 at a fixed budget (bench/ai.py ``--nodes 1500``, about 1 s a move on a quiet
    machine, so load-independent; seeds 1000-1005 are the first 12 games of 1000-1007): these defaults
    5/8/3 over 16 games (56%), 3/6/3 over the first 12 (50%); own 0.3 plus, behind in the race, the
    opponent's distance worth ``own`` (swung by a sigmoid of the lead) 1/2/13 over 16 (12%: not monotone
    in the lead, a step that takes the lead lost the bonus, so it stayed behind; dropped); pieces to
    spare beyond the distance (capped at 4) weighted 0.3: 5/2/5 (50%), 0.6: 4/3/5 (46%) (dropped);
    ``norm`` 1 with own 0: 4/6/2 (58%); on seeds 1100-1105 the old defaults 2/7/3 (46%), norm 1 with own 0
    5/5/2 (62%), so norm 1 with own 0 became the default (24 games: 9/11/4, 60%, against 5/13/6, 48%).
    Then at 1 s a move on seeds 70000-70009 (``bench/ai.py --seconds 1 --games 20 --opponents twoply
    --seed 70000``, load average 6.6 before, 4.4 after): 5/9/6 (48%); against greedy at the fixed
    budget, seeds 1000-1004: 9/1/0. Most games not won end drawn when the pieces run out: both
    sides block, one side's distance passes its pieces in hand.

    Trials of 2026-11-23 (second session) at ``--nodes 1000`` on seeds 1300-1311 (24 games each, run side
    by side, so the same openings): these defaults 9/14/1 (67%); spare cells weighted 0.3 instead of
    0.1: 9/5/10 (48%); the piece economy solved exactly (an abstract race where a step and a block
    each cost a piece and a block works with probability 0.6; its value, weighted 3, added to the
    race): 4/16/4 (50%); necks (race steps where one cell carries every shortest connection, so one
    block lengthens it) weighted 0.2 against the opponent's: 7/7/10 (44%). The terms that value a
    connection's resistance to blocks win about as often and lose far more; none was kept.

    Trials of 2026-11-23 (third session), 40 games each on the same openings per seed range, one game at a
    time (``bench/ai.py --nodes 1000 --games 40 --opponents twoply --seed S --processes 1 [--set ...]``;
    1000 nodes took 0.46 s a move median here, not 1 s): the defaults before ``root_all`` 10/20/10 (50%,
    39-61) on seeds 1500-1519 and 9/25/6 (54%, 44-63) on 1520-1539; ``--set root_all=1,max_nodes=1400``
    (every placement ranked at the root; 1400 nodes with it took about the time of 1000 without, on 24
    positions) 16/18/6 (62%, 52-73) on 1500 (17 openings better, 8 worse) and 15/19/6 (61%, 50-72) on 1520
    (14 better, 7 worse): 80 games 31/37/12 (62%) against 19/45/16 (52%). On the clock it did not carry over, so
    it is not the default: with it (and the root's ranking stopped at 40% of the move), on the held-out openings
    of seeds 90000+ (``--seconds 1 --games 40 --seed 90000 --processes 2``, load 0.8-2.0) 15/20/5 (62%, 52-73)
    against 17/17/6 (64%) without; at 4 s on the first 16 (``--seconds 4 --games 16``) 3/10/3 (50%, 35-65)
    against 8/6/2 (69%) without, and 6/8/2 (62%) with it at 1 s on those 16.
    Not finished for lack of time: the lead of a side whose opponent can no longer connect capped at its
    slack (pieces left minus distance: the dead side blocks for free). Found in the non-won games of seed
    1500: at a search's last ply the opponent's best reply (by this evaluation, over every placement) is
    missing from its 24 candidates plus blocks in 23% of 155 positions, 28 of 35 times a block on the
    computer's own connection that the candidates' cheap score does not see lengthen it (8% with 60
    candidates, at a cost in depth).

    Trials of 2026-11-23 (fourth session): those blocks are now scored by how far they lengthen the
    connection (``engine.candidates``; the miss falls to 6% of the 155 positions, and 1000 nodes cost 736
    ms CPU instead of 409). At 1 s a move, the old and the new computer run side by side with one game at a
    time each (``--seconds 1 --games 20 --seed S --processes 1``; the machine shared, load 2-6, so 1 s bought
    less than on a quiet machine), on seeds 1500, 1510, 1520 and 1530: old 5/12/3, 3/11/6, 3/14/3, 6/11/3
    (80 games 17/48/15, 51%), new 7/10/3, 6/10/4, 10/9/1, 7/6/7 (30/35/15, 59%). On a quiet machine
    (``--processes 2``): fresh openings of seed 92000 19/17/4 (69%, 58-79), seed 90000 21/14/5 (70%,
    against 64% before); at 4 s the first 16 of 92000 9/4/3 (69%), the same as at 1 s on those 16.

    Trials of 2026-11-23 (fifth session): a side that can no longer connect blocks for free, so a lead over it
    was capped at the pieces the other side has beyond its distance and beyond one placement per block to come
    (``Weights.dead``; from a drawn game where the computer cut the opponent off 7 placements from its own
    connection with 9 pieces left). At ``--nodes 1000 --games 40 --seed 1500 --processes 1``, side by side:
    without it 15/23/2 (66%), with it 19/12/9 (62%): more wins and far more losses (racing on where cutting the
    opponent off would have drawn), so it was dropped. The searches that score blocks and evaluate positions now
    resume from the maps of the position before the move (``analysis.distance_after``, ``paths_after``): the same
    moves for less CPU. In 4 of the 10 games lost on seeds 92000 and 94000 every candidate near the end left the
    opponent one placement away with the move while a placement away from both connections did not lose: a waiting
    move is now a candidate once both sides are within ``candidates.WAIT_WITHIN``. On the fresh openings of seed
    94000 (``--seconds S --games 40 --seed 94000 --processes 2``, quiet machine): before it, 1 s 18/16/6 (65%) and
    4 s 22/15/3 (74%) on the same openings; with it, 1 s 17/20/3 (68%) and 4 s 17/19/4 (66%); against greedy
    (seed 95000) 19/1/0. 40 games do not tell 1 s from 4 s.

    Trials of 2026-11-24 (sixth session): the lead over a side that can no longer connect is capped at the pieces
    the other side has to spare (``Weights.dead``), as last session tried, but on that side only: the side cut off
    keeps the race's slope, so it still blocks. At ``--nodes 1000 --games 40 --seed S --processes 2``, side by side
    on the same openings: seed 1500 15/23/2 (66%) without, 21/17/2 (74%) with; seed 1520 19/18/3 (70%) and
    21/16/3 (72%): 10 openings better, 2 worse. Its weight hardly matters: on seed 1500, ``dead`` 0.5 22/16/2
    (75%), 1.0 21/17/2 (74%), 2.0 21/16/3 (72%). On the fresh openings of seed 96000 (``--seconds S --games 40
    --seed 96000 --processes 2``, quiet machine): 1 s 16/21/3 (66%, 57-76), 4 s
    20/17/3 (71%, 61-81; 14 openings better than at 1 s, 10 worse); against greedy (1 s, seed 97000) 19/1/0.

    Trials of 2026-11-25 (seventh session), ``--nodes 1000 --games 40 --seed 1500 --processes 1``, against the
    defaults' 21/17/2 (74%): ``width`` 0.0 4/31/5 (49%), 0.07 21/15/4 (71%), 0.12 14/19/7 (59%), 0.15 27/10/3
    (80%; on seed 1520 16/20/4, 65%, against the defaults' 21/16/3, 72%), 0.2 12/21/7 (56%), 0.3 4/23/13 (39%);
    ``keep`` 0.3 19/19/2 (71%); a penalty of 0.5 a piece under 3 pieces to spare beyond the distance 20/19/1 (74%);
    chokepoints (cells every shortest connection crosses) weighted 0.1, with width 0.15, 9/17/14 (44%). None kept:
    near the defaults the curve is noise (``bench/paired.py`` compares two runs game by game). Fresh openings of
    seed 98000 (``--seconds S --games 40 --seed 98000 --processes 2``, quiet machine): 1 s 18/18/4 (68%, 57-78),
    4 s 21/15/4 (71%, 61-82; 12 games better than at 1 s, 10 worse, sign test p = 0.83); against greedy (1 s, seed
    99000) 18/2/0 (95%).

    Trials of 2026-11-25 (eighth session): in three positions of drawn and lost games the search claimed a win in
    three that the opponent stopped by waiting (``bench/beliefs.py``), as the opponent's candidates held no waiting
    placement; they now hold one a kind of piece (``engine.candidates``). At ``--nodes 1000 --games 40 --seed S
    --processes 2``: seeds 1500 and 1520 21/17/2 and 21/16/3 before, 20/19/1 and 21/16/3 with them (5 games
    changed). ``beam`` 6 (before them) 19/17/4 and 18/17/5; ``root_beam`` 10 24/13/3 and 17/19/4: noise, not kept.
    Fresh openings (``--seconds S --games 40 --seed S --processes 2``, quiet machine): seed 100000 1 s 27/8/5 (78%),
    4 s 25/9/6 (74%); seed 102000 1 s 21/18/1 (75%), 4 s 17/20/3 (68%); against greedy (1 s, seed 101000) 20/0/0.

    Trials of 2026-11-26 (ninth session): the computer against itself at time odds, ``bench/ai.py --nodes 1500
    --seconds 4 --opponents L3@1 --games 40 --seed 1500`` (6000 positions a move against 1500): 13/19/8 (56%,
    45-67). Tried and not kept: threat extensions (a placement leaving its mover one placement from joining searched
    a ply deeper, two a line) left every result of 40 games at ``--nodes 1000`` on seed 1500 as it was (such
    threats come only at the leaves, where the exact threat check answers them); widening the root at the last
    completed depth instead of a deeper iteration predicted not to finish replaced depth 4 by a wider depth 3 at 1500
    positions and changed no move at 6000 (4 positions). On the clock, seeds 104000-104019: L3@4 against L3@1
    12/21/7 (56%, 46-67); seeds 106000-106019 11/22/7 (55%, 45-65).

    Trials of 2026-11-26 (tenth session), the computer unchanged: two more clock runs of L3@4 against L3@1, set
    before any game, seeds 108000 8/23/9 (49%) and 110000 11/16/13 (48%); the 160 clock games 52% (46-57), the 200
    with the fixed-budget run 53% (48-58), sign test p = 0.32 (``bench/pooled.py``): four times the time is not
    measurably stronger. ``bench/scaling.py --seeds 5000-5017 --nodes 1500,6000``:
    of 18 self-play positions, 5 valued exactly 0 by both searches (drawn by exhaustion, placements 18-26), 2
    decided, and in the 11 open 6000 positions chose another move than 1500 in 5. 12 root moves instead of 6 for
    the 4x side only, ``--nodes 1500 --seconds 4 --opponents L3@1 --seed 1500 --set-first root_beam=12``: 17/18/5
    (65%) against 13/19/8 (56%) with 6; 15 games better, 10 worse, p = 0.42 (not kept: one seed range).

    Trials of 2026-11-26 (eleventh to thirteenth sessions): 12 root moves at 4x against 6 at 1x on seeds 1500, 1520
    and 1530 (80 games) 32/38/10 (64%), 6 at 4x 25/37/18 (54%); at the same budget (``--nodes 1500 --seconds 1
    --seed 1540``, 20 games) 12 against 6 5/14/1. So ``root_beam`` now defaults to ``root_width`` of the budget
    (6 at 1 s, 12 at 4 s). On the clock, fresh openings, ``--seconds 4 --opponents L3@1 --games 40 --seed S``: seed
    112000 19/12/9 (62%), 114000 15/21/4 (64%); the 80 games 63% (55-71), p = 0.003, where 6 root moves at both
    times scored 52% over 160.
    """

    def __init__(self, level: int = 3, seconds: float | None = 1.0, max_nodes: int | None = None,
                 seed: int | None = None, beam: int = 10, keep: float = 0.1, width: float = 0.1,
                 root_beam: int | None = None, plies: int = 12, blocks: int = 12, lead: float | None = None,
                 own: float = 0.0, exact_threats: bool = True, workers: int | None = None,
                 norm: float = 1.0, root_all: bool = False, dead: float = 1.0) -> None:
        if level not in (1, 2, 3):
            raise ValueError(f"level must be 1, 2 or 3, not {level}")
        self.level = level
        self.seconds = seconds
        self.max_nodes = max_nodes
        self.beam = beam
        self.root_beam = root_beam
        self.plies = plies
        self.blocks = blocks
        self.weights = Weights(keep=keep, width=width, lead=lead, own=own, exact_threats=exact_threats,
                               norm=norm, dead=dead)
        self.root_all = root_all
        self.rng = random.Random(seed)
        self.workers = default_workers() if workers is None else max(1, workers)

    def choose(self, referee: Referee) -> Move | None:
        """The move for the side to move, or None when the game is over."""
        choice = self.search(referee)
        return choice.move if choice else None

    def search(self, referee: Referee) -> Choice | None:
        """Search from the referee's position (left unchanged) and return the best move found."""
        if referee.over or referee.to_move is None:
            return None
        start = time.monotonic()
        ref = copy.deepcopy(referee)       # the caller's referee is never touched, even on a crash
        mover = ref.to_move
        assert mover is not None
        evaluator = Evaluator(mover, self.weights)
        limits = Limits(max_nodes=self.max_nodes, beam=self.beam, blocks=self.blocks, root_all=self.root_all,
                        root_deadline=math.inf if self.seconds is None else start + ROOT_SHARE * self.seconds)
        search = Search(ref, evaluator, limits, self.rng)
        ranked = search.ranked(0, 0, wide=True)     # always completes: there is always a move
        if not ranked:
            return None
        best_value, best_move = ranked[0]
        depth = 1
        search.limited = True
        limits.deadline = start + self.seconds if self.seconds is not None else math.inf
        if self.level > 1 and not decided(best_value) and len(ranked) > 1:
            width = self.root_beam
            if width is None:
                width = root_width(self.seconds, self.max_nodes) if self.level == 3 else ROOT_WIDTH
            if self.level == 2:
                width = max(1, width // 2)
            plies = self.plies if self.level == 3 else 2
            moves = [m for _, m in ranked[:width]]
            if self.workers > 1 and self.level == 3:
                left = None if self.seconds is None else max(0.0, limits.deadline - time.monotonic())
                found, nodes = parallel_deepen(ref, self.weights, limits, left, self.rng.randrange(1 << 30),
                                               moves, plies, self.workers)
                search.nodes += nodes
                if found is not None:
                    depth, best_value, best_move = found
            else:
                ref_moves = deepen_with(search, moves, plies)
                if ref_moves:
                    depth, best_value, best_move = ref_moves[-1]
        score = win_estimate(best_value + evaluator.offset(ref))
        return Choice(best_move, mover, score, best_value, depth, search.nodes)


def root_width(seconds: float | None, max_nodes: int | None) -> int:
    """The root moves level 3 deepens over for a move's budget (``ROOT_WIDTH`` up to 1 s, more with more time).

    >>> [root_width(1.0, None), root_width(4.0, None), root_width(2.0, None), root_width(None, 6000)]
    [6, 12, 8, 12]
    >>> root_width(None, None), root_width(0.2, None), root_width(30.0, None)
    (6, 6, 12)
    """
    budgets = [b for b in (seconds, None if max_nodes is None else max_nodes / NODES_A_SECOND) if b is not None]
    if not budgets:
        return ROOT_WIDTH
    grown = round(ROOT_WIDTH * math.sqrt(max(0.0, min(budgets))))
    return max(ROOT_WIDTH, min(ROOT_WIDTH_MAX, grown))


# ---- simple players to measure against (bench/ai.py, tests) ----------------------------------------
def random_move(referee: Referee, rng: random.Random) -> Move | None:
    """A uniformly random legal placement for the side to move (None when the game is over)."""
    if referee.over or referee.to_move is None:
        return None
    return referee.board.random_placement(referee.available(referee.to_move), rng)


def greedy_move(referee: Referee, rng: random.Random) -> Move | None:
    """The placement that minimises the mover's own connection distance, ties broken by maximising
    the opponent's, then at random. Tries every legal placement (a one-ply player)."""
    if referee.over or referee.to_move is None:
        return None
    mover = referee.to_move
    board, rules = referee.board, referee.rules
    counts = dict(referee.inventory[mover])
    theirs_counts = referee.inventory[mover.other]
    theirs_bits, theirs_left = piece_bits(theirs_counts), placeable_count(theirs_counts)
    best: tuple[float, float, float] | None = None
    choice = None
    for move in list(board.legal_placements(piece_bits(counts))):
        kind = move.piece.kind
        counts[kind] -= 1
        board.push(move)
        try:
            if board.sides_joined(move.cell) & rules.sides(mover) == rules.sides(mover):
                mine: float = -1.0          # a win beats everything
                theirs: float = 0.0
            else:
                d = distance(board, rules.sides(mover), piece_bits(counts), placeable_count(counts))
                mine = _NO_PATH if d is None else d
                t = distance(board, rules.sides(mover.other), theirs_bits, theirs_left)
                theirs = _NO_PATH if t is None else t
                if board.sides_joined(move.cell) & rules.sides(mover.other) == rules.sides(mover.other):
                    mine = _NO_PATH + 1     # connecting only the opponent loses at once
        finally:
            board.pop()
            counts[kind] += 1
        key = (mine, -theirs, rng.random())
        if best is None or key < best:
            best, choice = key, move
    return choice


def chooser(colour: Colour, computer: Computer) -> Callable[[Referee], str | None]:
    """A ``choose(referee)`` for ``thoughtwave play``: the computer's move line when ``colour`` is to
    move, else None (a person types)."""

    def choose(referee: Referee) -> str | None:
        if referee.to_move is not colour:
            return None
        move = computer.choose(referee)
        return str(move) if move else None

    return choose

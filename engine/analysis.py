"""Connection distance and threats: how far each player is from joining their two sides.

A wave crosses the board through *ports*: the 220 edges between neighbouring cells plus the rim.
A laid piece joins all its arm ports for free; an empty cell joins ports ``a`` and ``b`` at the
cost of one placement when some piece the player still has contains both arms *and* fits the
cell's neighbours now (blank to blank, wave to wave). A 0-1 breadth-first search from the ports of
one side to the ports of the other gives the fewest placements the player still needs, if the
opponent never helps.

Approximations, on purpose (the search must stay cheap enough for the computer player):

* each empty cell on the path is checked against the board as it is, not against the pieces the
  path itself would lay next to it (two path cells side by side that are not consecutive on the
  path would need blank edges facing each other, which is nearly always possible);
* the pieces left are counted only in total: a path of ``d`` placements needs ``d`` pieces with two
  or more arms, otherwise the distance is ``None``. Per cell only the kinds still in hand are
  offered, so a player without straights, junctions and crosses cannot cross a cell straight, but
  a path needing three straights when two are left is not caught.

Threats are exact: every placement, from the player's pieces, that fits now and joins their sides.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from thoughtwave.engine.board import FITS, LINKS, Board, piece_bits
from thoughtwave.engine.cells import CELLS, SIZE
from thoughtwave.engine.moves import Move
from thoughtwave.engine.pieces import DIRECTIONS, Colour, E, Kind, N, Piece, S, W
from thoughtwave.engine.referee import Outcome, Referee

PORT_COUNT = (SIZE + 1) * SIZE * 2
UNREACHED = 1 << 20
PATHS_SLACK = 1
_DIR_INDEX = {N: 0, E: 1, S: 2, W: 3}


def _h(row: int, col: int) -> int:  # the edge above cell (row, col); row SIZE is the south rim
    return row * SIZE + col


def _v(row: int, col: int) -> int:  # the edge left of cell (row, col); col SIZE is the east rim
    return (SIZE + 1) * SIZE + row * (SIZE + 1) + col


#: CELL_PORT[cell][direction index]: the port on that side of the cell.
CELL_PORT: list[tuple[int, int, int, int]] = [
    (_h(c.row, c.col), _v(c.row, c.col + 1), _h(c.row + 1, c.col), _v(c.row, c.col)) for c in CELLS
]
#: PORTS_OF[cell][mask]: the ports on the sides in ``mask``.
PORTS_OF: list[list[tuple[int, ...]]] = [
    [tuple(ports[k] for k, d in enumerate(DIRECTIONS) if mask & d) for mask in range(16)] for ports in CELL_PORT
]
#: PORT_CELLS[port]: (cell index, direction index of the port seen from that cell), one or two entries.
PORT_CELLS: list[list[tuple[int, int]]] = [[] for _ in range(PORT_COUNT)]
for _i, _ports in enumerate(CELL_PORT):
    for _k, _p in enumerate(_ports):
        PORT_CELLS[_p].append((_i, _k))
#: RIM_PORTS[side]: the ports where a wave leaves the board by that side.
RIM_PORTS: dict[int, tuple[int, ...]] = {
    N: tuple(_h(0, c) for c in range(SIZE)),
    S: tuple(_h(SIZE, c) for c in range(SIZE)),
    W: tuple(_v(r, 0) for r in range(SIZE)),
    E: tuple(_v(r, SIZE) for r in range(SIZE)),
}

# For an occupied cell: from the arm in direction k, the other arms (a piece is one wave).
_PIECE_REACH: list[tuple[int, int, int, int]] = [
    tuple((arms & ~d) if arms & d else 0 for d in DIRECTIONS) for arms in range(16)  # type: ignore[misc]
]
_EMPTY_REACH_CACHE: dict[int, tuple[int, int, int, int]] = {}
_NO_REACH = (0, 0, 0, 0)


def empty_reach(bits: int) -> tuple[int, int, int, int]:
    """For a set of pieces that may go on an empty cell: from side k, the sides one piece also reaches."""
    found = _EMPTY_REACH_CACHE.get(bits)
    if found is None:
        out = [0, 0, 0, 0]
        for arms in range(1, 16):
            if bits >> arms & 1:
                for k, d in enumerate(DIRECTIONS):
                    if arms & d:
                        out[k] |= arms & ~d
        found = _EMPTY_REACH_CACHE[bits] = (out[0], out[1], out[2], out[3])
    return found


@dataclass(frozen=True)
class Crossing:
    """How one player can cross every cell now: per cell, the reach table and the cost (0 laid, 1 empty)."""

    reach: list[tuple[int, int, int, int]]
    cost: list[int]


def crossing(board: Board, available: int) -> Crossing:
    """The crossing tables of ``board`` for a player holding the pieces in the ``available`` bit set."""
    arms, fixed, need = board.arms, board.fixed, board.need
    reach: list[tuple[int, int, int, int]] = []
    cost: list[int] = []
    piece_reach = _PIECE_REACH
    for i in range(SIZE * SIZE):
        a = arms[i]
        if a:
            reach.append(piece_reach[a])
            cost.append(0)
        else:
            bits = FITS[fixed[i]][need[i]] & available
            reach.append(empty_reach(bits) if bits else _NO_REACH)
            cost.append(1)
    return Crossing(reach, cost)


def port_distances(table: Crossing, sources: tuple[int, ...], targets: tuple[int, ...] = (),
                   limit: int = UNREACHED, slack: int | None = None,
                   settled: tuple[list[int], int] | None = None) -> list[int]:
    """Fewest placements to reach each port from ``sources`` (0-1 BFS).

    Stops at the first target reached, or, with ``slack``, once every port up to that target's
    distance plus ``slack`` is settled; never settles ports beyond ``limit``. Ports left unsettled
    hold an upper bound (or UNREACHED): distances up to the stopping point are exact.

    ``settled``: ``(known, below)``, exact distances from ``sources`` that hold for every port nearer
    than ``below`` (``known`` from a search on tables that differ only at ports at least ``below``
    away): those ports are taken as they are and the search resumes from the ones at ``below - 1``.
    """
    dist = [UNREACHED] * PORT_COUNT
    done = [False] * PORT_COUNT
    is_target = [False] * PORT_COUNT
    for p in targets:
        is_target[p] = True
    queue: deque[int] = deque()
    if settled is None:
        for p in sources:
            dist[p] = 0
            queue.append(p)
    else:
        known, below = settled
        edge = below - 1
        for p, v in enumerate(known):
            if v < below:
                dist[p] = v
                if v == edge:
                    queue.append(p)
                else:
                    done[p] = True
    reach, cost, port_cells, ports_of = table.reach, table.cost, PORT_CELLS, PORTS_OF
    while queue:
        p = queue.popleft()
        if done[p]:
            continue
        base = dist[p]
        if base > limit:
            break
        done[p] = True
        if is_target[p]:
            if slack is None:
                break
            limit = min(limit, base + slack)
            for q in targets:
                is_target[q] = False
        for i, k in port_cells[p]:
            m = reach[i][k]
            if not m:
                continue
            c = cost[i]
            nd = base + c
            for q in ports_of[i][m]:
                if nd < dist[q]:
                    dist[q] = nd
                    if c:
                        queue.append(q)
                    else:
                        queue.appendleft(q)
    return dist


def _sides_pair(sides: int) -> tuple[int, int]:
    return (W, E) if sides == W | E else (N, S)


def placeable_count(counts: dict[Kind, int]) -> int:
    """Pieces that can carry a wave through a cell (two arms or more)."""
    return sum(n for kind, n in counts.items() if kind is not Kind.TERMINATOR)


def distance(board: Board, sides: int, available: int, pieces_left: int = 99) -> int | None:
    """Fewest placements that still join ``sides`` (e.g. ``W | E``) with pieces from ``available``.

    ``None`` when no path exists or it needs more than ``pieces_left`` placements.
    """
    return _joining(crossing(board, available), sides, pieces_left)


def _joining(table: Crossing, sides: int, pieces_left: int) -> int | None:
    """``distance`` on crossing tables already built."""
    first, second = _sides_pair(sides)
    targets = RIM_PORTS[second]
    dist = port_distances(table, RIM_PORTS[first], targets)
    best = min(dist[p] for p in targets)
    if best >= UNREACHED or best > pieces_left:
        return None
    return best


@dataclass(frozen=True)
class Paths:
    """One player's distance maps: placements from their first side (and to their second) per port,
    exact up to ``distance + PATHS_SLACK`` (further ports hold an upper bound)."""

    table: Crossing
    from_first: list[int]
    to_second: list[int]
    distance: int | None
    #: the fewest placements whatever the pieces in hand (UNREACHED: no way at all); ``distance`` is None when the
    #: player has fewer pieces than this, yet the other side's placements (they carry both waves) may shorten it
    shortest: int = UNREACHED

    def through(self, cell_index: int, arms: int | None = None) -> int:
        """Fewest placements of a connection through the empty cell, counting the cell itself
        (``arms`` given: with that piece laid there, so the cell costs nothing)."""
        ports = CELL_PORT[cell_index]
        if arms is None:
            reach, cost = self.table.reach[cell_index], self.table.cost[cell_index]
        else:
            reach, cost = _PIECE_REACH[arms], 0
        best = UNREACHED
        a, b = self.from_first, self.to_second
        for k in range(4):
            m = reach[k]
            if not m:
                continue
            head = a[ports[k]]
            if head >= best:
                continue
            for j, d in enumerate(DIRECTIONS):
                if m & d:
                    total = head + cost + b[ports[j]]
                    if total < best:
                        best = total
        return best


def _patched(table: Crossing, board: Board, cell_index: int, arms: int, available: int,
             laid: bool) -> tuple[Crossing, list[int]]:
    """``table`` with a piece of ``arms`` on the empty cell ``cell_index`` (``laid``: ``board`` already
    holds it), and the cells whose crossing changed: that cell and its empty neighbours."""
    reach, cost = list(table.reach), list(table.cost)
    reach[cell_index], cost[cell_index] = _PIECE_REACH[arms], 0
    board_arms, fixed, need = board.arms, board.fixed, board.need
    changed = [cell_index]
    for d, j, back in LINKS[cell_index]:
        if not board_arms[j]:
            if laid:
                bits = FITS[fixed[j]][need[j]] & available
            else:
                bits = FITS[fixed[j] | back][need[j] | (back if arms & d else 0)] & available
            reach[j] = empty_reach(bits) if bits else _NO_REACH
            changed.append(j)
    return Crossing(reach, cost), changed


def _unchanged_below(maps: Paths, changed: list[int], second: int) -> tuple[int, int]:
    """How far from each side ``maps``' distances still hold once the crossings of the ``changed`` cells
    change: every port nearer to that side than all the changed cells' ports (a connection cheaper than
    that cannot pass them), within the ports the maps know exactly (the first connection plus PATHS_SLACK)."""
    near = [p for i in changed for p in CELL_PORT[i]]
    exact = min(maps.from_first[p] for p in RIM_PORTS[second]) + PATHS_SLACK + 1
    from_first, to_second = maps.from_first, maps.to_second
    return min(exact, min(from_first[p] for p in near)), min(exact, min(to_second[p] for p in near))


def distance_after(maps: Paths, board: Board, cell_index: int, arms: int, sides: int, available: int,
                   pieces_left: int = 99) -> int | None:
    """``distance`` for the player whose maps of ``board`` are ``maps``, after a piece with ``arms``
    (anyone's) is laid on the empty cell ``cell_index``: what a block costs them, scored for many
    placements a position. Only that cell and its empty neighbours change, so the crossing tables are
    patched rather than built again, and the search resumes from the side whose distances hold further."""
    patched, changed = _patched(maps.table, board, cell_index, arms, available, laid=False)
    first, second = _sides_pair(sides)
    below_first, below_second = _unchanged_below(maps, changed, second)
    if max(below_first, below_second) <= 1:
        return _joining(patched, sides, pieces_left)
    if below_first >= below_second:
        known, start, goal, below = maps.from_first, first, second, below_first
    else:
        known, start, goal, below = maps.to_second, second, first, below_second
    targets = RIM_PORTS[goal]
    kept = min(known[p] for p in targets)
    if kept < below:            # a connection that touches no changed cell is as short as any
        best = kept
    else:
        dist = port_distances(patched, RIM_PORTS[start], targets, settled=(known, below))
        best = min(dist[p] for p in targets)
    if best >= UNREACHED or best > pieces_left:
        return None
    return best


def _paths(table: Crossing, from_first: list[int], to_second: list[int], best: int, pieces_left: int) -> Paths:
    """``Paths`` whose shortest connection takes ``best`` placements, for a player with ``pieces_left``."""
    return Paths(table, from_first, to_second, None if best >= UNREACHED or best > pieces_left else best,
                 min(best, UNREACHED))


def paths_after(maps: Paths, board: Board, cell_index: int, sides: int, available: int,
                pieces_left: int = 99) -> Paths:
    """``paths`` on ``board`` just after a piece was laid on ``cell_index``, from the ``maps`` of the board
    before it (for the same ``available`` pieces): the same distance and the same exact ports, found by
    resuming both searches where the piece cannot have changed anything (see ``distance_after``)."""
    table, changed = _patched(maps.table, board, cell_index, board.arms[cell_index], available, laid=True)
    first, second = _sides_pair(sides)
    below_first, below_second = _unchanged_below(maps, changed, second)
    targets = RIM_PORTS[second]
    seed = (maps.from_first, below_first) if below_first > 1 else None
    kept = min(maps.from_first[p] for p in targets)
    if seed is not None and kept < below_first:     # the shortest connection is untouched
        from_first = port_distances(table, RIM_PORTS[first], limit=kept + PATHS_SLACK, settled=seed)
    else:
        from_first = port_distances(table, RIM_PORTS[first], targets, slack=PATHS_SLACK, settled=seed)
    best = min(from_first[p] for p in targets)
    to_second = port_distances(table, targets, limit=best + PATHS_SLACK,
                               settled=(maps.to_second, below_second) if below_second > 1 else None)
    return _paths(table, from_first, to_second, best, pieces_left)


def paths(board: Board, sides: int, available: int, pieces_left: int = 99) -> Paths:
    """Distance maps from both of ``sides`` for a player holding ``available`` (see ``distance``)."""
    first, second = _sides_pair(sides)
    table = crossing(board, available)
    # only ports within one placement of a shortest connection matter to the callers: stop there
    from_first = port_distances(table, RIM_PORTS[first], RIM_PORTS[second], slack=PATHS_SLACK)
    best = min(from_first[p] for p in RIM_PORTS[second])
    to_second = port_distances(table, RIM_PORTS[second], limit=best + PATHS_SLACK)
    return _paths(table, from_first, to_second, best, pieces_left)


def threats(board: Board, sides: int, available: int) -> list[Move]:
    """Every placement from ``available`` that fits now and joins ``sides`` at once."""
    first, second = _sides_pair(sides)
    table = crossing(board, available)
    zero = Crossing(table.reach, [c * UNREACHED for c in table.cost])  # only laid pieces are free
    from_first = port_distances(zero, RIM_PORTS[first])
    from_second = port_distances(zero, RIM_PORTS[second])
    out: list[Move] = []
    arms, fixed, need = board.arms, board.fixed, board.need
    for i in range(SIZE * SIZE):
        if arms[i]:
            continue
        bits = FITS[fixed[i]][need[i]] & available
        if not bits:
            continue
        ports = CELL_PORT[i]
        touch_first = touch_second = 0
        for k, d in enumerate(DIRECTIONS):
            if from_first[ports[k]] == 0:
                touch_first |= d
            if from_second[ports[k]] == 0:
                touch_second |= d
        if not (touch_first and touch_second):
            continue
        for piece_arms in range(1, 16):
            if bits >> piece_arms & 1 and piece_arms & touch_first and piece_arms & touch_second:
                out.append(Move(Piece(piece_arms), CELLS[i]))
    return out


@dataclass(frozen=True)
class Analysis:
    """Per player: the connection distance (None: cannot connect any more) and the winning placements."""

    distance: dict[Colour, int | None]
    threats: dict[Colour, list[Move]]
    to_move: Colour | None = None
    n: int = 0
    winner: Colour | None = None

    def to_json(self) -> dict:
        """``{"n": 3, "to_move": "black", "winner": null, "distance": {"red": 8, "black": 10},
        "threats": {"red": [], "black": []}}``"""
        return {
            "n": self.n,
            "to_move": self.to_move.value if self.to_move else None,
            "winner": self.winner.value if self.winner else None,
            "distance": {c.value: self.distance[c] for c in Colour},
            "threats": {c.value: [str(m) for m in self.threats[c]] for c in Colour},
        }


def analyse(referee: Referee) -> Analysis:
    """Distance and threats for both players in the referee's current position."""
    board, rules = referee.board, referee.rules
    distances: dict[Colour, int | None] = {}
    found: dict[Colour, list[Move]] = {}
    for colour in Colour:
        counts = referee.inventory[colour]
        if referee.winner is colour:
            distances[colour], found[colour] = 0, []
            continue
        sides, available = rules.sides(colour), piece_bits(counts)
        distances[colour] = distance(board, sides, available, placeable_count(counts))
        found[colour] = [] if referee.over else threats(board, sides, available)
    return Analysis(distances, found, referee.to_move, len(referee.verdicts), referee.winner)


def analyse_game(referee: Referee) -> list[Analysis]:
    """One Analysis per position of the game ``referee`` has ruled on, for the display's chart: the
    start, then after each legal or illegal verdict (rejected attempts change nothing and are
    skipped). ``n`` is the number of the verdict the position follows (0 for the start)."""
    replay = Referee(referee.rules)
    out = [analyse(replay)]
    for verdict in referee.verdicts:
        if verdict.outcome is Outcome.REJECTED or verdict.piece is None or verdict.cell is None:
            continue
        replay.attempt(Move(verdict.piece, verdict.cell), verdict.colour)
        out.append(replace(analyse(replay), n=verdict.n))
    return out

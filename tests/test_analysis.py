"""Connection distance and threats: hand-built positions, and threats checked against the board itself."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from thoughtwave.engine import Cell, Colour, Kind, Move, Outcome, Referee
from thoughtwave.engine.analysis import (
    RIM_PORTS,
    analyse,
    analyse_game,
    distance,
    distance_after,
    paths,
    paths_after,
    threats,
)
from thoughtwave.engine.board import ALL_PIECE_BITS, KIND_BITS, Board
from thoughtwave.engine.pieces import E, N, S, W

RED, BLACK = W | E, N | S


def board_with(*moves: str) -> Board:
    board = Board()
    for text in moves:
        board.push(Move.parse(text))
    return board


def half_wave(columns: str = "ABCDE", row: int = 5) -> list[str]:
    return [f"ew@{c}{row}" for c in columns]


def test_an_empty_board_is_ten_placements_for_both():
    board = Board()
    assert distance(board, RED, ALL_PIECE_BITS) == 10
    assert distance(board, BLACK, ALL_PIECE_BITS) == 10
    assert analyse(Referee()).distance == {Colour.RED: 10, Colour.BLACK: 10}


def test_a_half_built_straight_wave_leaves_five_placements():
    board = board_with(*half_wave())
    assert distance(board, RED, ALL_PIECE_BITS) == 5
    # the wave's blank north and south edges bar columns A-E to Black; column F is still free
    assert distance(board, BLACK, ALL_PIECE_BITS) == 10


def test_a_laid_piece_of_the_opponent_carries_my_wave_too():
    board = board_with("ns@E1", "ns@E3")
    assert distance(board, BLACK, ALL_PIECE_BITS) == 8


def test_a_full_row_of_blank_edges_blocks_the_other_player_for_good():
    board = board_with(*half_wave("ABCDEFGHIJ"))
    assert distance(board, RED, ALL_PIECE_BITS) == 0
    assert distance(board, BLACK, ALL_PIECE_BITS) is None


def test_a_cell_needs_a_piece_the_player_still_has():
    # J4's wave points into J5, so J5 must take arms n, w (and e to finish): only a junction or a cross
    board = board_with(*half_wave("ABCDEFGHI"), "ns@J4")
    assert distance(board, RED, ALL_PIECE_BITS) == 1
    no_junctions = ALL_PIECE_BITS & ~KIND_BITS[Kind.JUNCTION] & ~KIND_BITS[Kind.CROSS]
    assert threats(board, RED, no_junctions) == []
    # a bend nw@J5 turns the wave up through J4's straight, and a bend on J3 takes it off the east side
    assert distance(board, RED, no_junctions) == 2
    # Black through column J uses J4 for free and needs nsw at J5; without junctions row 5 is a wall
    assert distance(board, BLACK, ALL_PIECE_BITS) == 9
    assert distance(board, BLACK, no_junctions) is None


def test_too_few_pieces_left_means_no_connection():
    board = board_with(*half_wave())
    assert distance(board, RED, ALL_PIECE_BITS, pieces_left=4) is None
    assert distance(board, RED, ALL_PIECE_BITS, pieces_left=5) == 5


def test_threats_are_the_placements_that_finish_the_wave():
    board = board_with(*half_wave("ABCDEFGHI"))
    assert {str(m) for m in threats(board, RED, ALL_PIECE_BITS)} == {"ew@J5", "new@J5", "esw@J5", "nesw@J5"}
    assert threats(board, BLACK, ALL_PIECE_BITS) == []


def test_through_counts_the_cells_of_a_shortest_connection():
    board = board_with(*half_wave())
    maps = paths(board, RED, ALL_PIECE_BITS)
    assert maps.distance == 5
    assert maps.through(Cell.parse("G5").index) == 5
    assert maps.through(Cell.parse("G5").index, Move.parse("ew@G5").piece.arms) == 4
    assert maps.through(Cell.parse("G1").index) > 5


def _random_board(seed: int, count: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    for _ in range(count):
        move = board.random_placement(ALL_PIECE_BITS, rng)
        if move is None:
            break
        board.push(move)
    return board


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 70), st.sampled_from([RED, BLACK]),
       st.sampled_from([ALL_PIECE_BITS, ALL_PIECE_BITS & ~KIND_BITS[Kind.CROSS], KIND_BITS[Kind.BEND]]))
def test_threats_are_exactly_the_placements_that_join_the_sides(seed, count, sides, available):
    board = _random_board(seed, count)
    if board.joins(sides):
        return
    expected = set()
    for move in list(board.legal_placements(available)):
        board.push(move)
        if board.sides_joined(move.cell) & sides == sides:
            expected.add(move)
        board.pop()
    assert set(threats(board, sides, available)) == expected
    # one placement away exactly when a threat exists
    assert (distance(board, sides, available) == 1) == bool(expected)


# A random board, a side, the pieces it holds and how many, for the checks of maps carried past a placement.
PLACEMENT_CASES = (st.integers(0, 10_000), st.integers(0, 70), st.sampled_from([RED, BLACK]),
                   st.sampled_from([ALL_PIECE_BITS, ALL_PIECE_BITS & ~KIND_BITS[Kind.CROSS], KIND_BITS[Kind.BEND]]),
                   st.integers(1, 99))


def _board_and_moves(seed: int, count: int) -> tuple[Board, list[Move]]:
    """A random board of ``count`` placements and up to 12 of its legal placements, both from ``seed``."""
    board = _random_board(seed, count)
    moves = list(board.legal_placements())
    return board, random.Random(seed).sample(moves, min(12, len(moves)))


@settings(max_examples=40, deadline=None)
@given(*PLACEMENT_CASES)
def test_distance_after_a_placement_is_the_distance_on_the_board_with_it(seed, count, sides, available, left):
    # the computer scores blocks with the patched tables: they must equal laying the piece and measuring
    board, moves = _board_and_moves(seed, count)
    maps = paths(board, sides, available, left)
    for move in moves:
        patched = distance_after(maps, board, move.cell.index, move.piece.arms, sides, available, left)
        board.push(move)
        assert patched == distance(board, sides, available, left), move
        board.pop()


@settings(max_examples=40, deadline=None)
@given(*PLACEMENT_CASES)
def test_maps_carried_past_a_placement_are_the_maps_of_the_board_with_it(seed, count, sides, available, left):
    # the computer's evaluation resumes the maps of the position before each move: the distance, and every
    # port distance the maps promise exactly (up to the distance plus one), must be those of a fresh search
    board, moves = _board_and_moves(seed, count)
    maps = paths(board, sides, available, left)
    for move in moves:
        board.push(move)
        carried = paths_after(maps, board, move.cell.index, sides, available, left)
        fresh = paths(board, sides, available, left)
        assert carried.distance == fresh.distance, move
        bound = min(fresh.from_first[p] for p in RIM_PORTS[E if sides == RED else S]) + 1
        for got, want in ((carried.from_first, fresh.from_first), (carried.to_second, fresh.to_second)):
            assert [min(v, bound + 1) for v in got] == [min(v, bound + 1) for v in want], move
        board.pop()


def test_analyse_game_gives_one_position_per_ruling_and_the_winner_at_zero():
    referee = Referee()
    black = [f"ns@{c}1" for c in "ACEGI"] + [f"ne@{c}10" for c in "ACEGI"]
    for column, black_move in zip("ABCDEFGHIJ", black, strict=True):
        referee.play(f"red {'ew' if column < 'F' else 'new'}@{column}5")
        if not referee.over:
            referee.play(f"black {black_move}")
    referee.play("black ns@A2")            # rejected: the game is over
    assert referee.winner is Colour.RED
    positions = analyse_game(referee)
    ruled = [v for v in referee.verdicts if v.outcome is not Outcome.REJECTED]
    assert len(positions) == len(ruled) + 1
    assert [p.distance[Colour.RED] for p in positions[:3]] == [10, 9, 9]
    assert positions[-1].distance[Colour.RED] == 0
    assert positions[-1].winner is Colour.RED
    before_last = positions[-2]
    assert before_last.to_move is Colour.RED
    assert {str(m) for m in before_last.threats[Colour.RED]} == {"new@J5", "esw@J5", "nesw@J5"}
    assert positions[-1].to_json()["distance"]["red"] == 0
    assert positions[1].to_json() == {
        "n": 1, "to_move": "black", "winner": None, "distance": {"red": 9, "black": 10},
        "threats": {"red": [], "black": []},
    }

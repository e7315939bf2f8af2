"""The worked examples of the network Thoughtwave server's help page, as tests.

The diagrams are quoted from the help page (shared/rules/001_*.txt); ``#`` marks a wave. Reading the first
one edge by edge: B1 has waves west, east and south (``esw``); A2 is a corner with waves north and west
(``nw``, the west one leaving the board); C2 is a corner west and south (``sw``); B3 is a terminator
pointing north (``n``).
"""

import random
import re

import pytest

from thoughtwave.engine import ALL_PIECES, START_INVENTORY, Board, Cell, Colour, Kind, Move, Outcome, Referee, Rules
from thoughtwave.engine.pieces import E, N, S, W
from thoughtwave.engine.textboard import draw

EXAMPLE = """\
           A   B   C
         +---+---+---+--
       1 |   #####   |
         +-#-+-#-+---+--
       2 ### |   ### |
         +---+-#-+-#-+--
       3 |   | # |   |
         +---+---+---+--
         |   |   |   |
"""
EXAMPLE_PIECES = ["esw@B1", "nw@A2", "sw@C2", "n@B3"]

HINT_1 = """\
       4 |   |   |   |   |   |   |   |   |   |   | 4
         +---+---+---+---+---+-#-+---+---+---+---+
       5 |   #####   #####   #####   |   |   |   | 5
         +---+-#-+---+-#-+---+-#-+---+---+---+---+
       6 |   |   |   |   |   |   |   |   |   |   | 6
"""
HINT_1_PIECES = ["esw@B5", "esw@D5", "X@F5"]


def board_of(moves: list[str]) -> Board:
    board = Board()
    for move in moves:
        board.push(Move.parse(move))
    return board


def names(pieces) -> list[str]:
    return sorted(str(p) for p in pieces)


def assert_drawn_like(board: Board, diagram: str, start: int) -> None:
    """Our text board, from its line ``start`` on, agrees with the help page's diagram wherever the
    diagram draws something."""
    ours = draw(board).splitlines()[start:]
    for theirs, mine in zip(diagram.splitlines(), ours, strict=False):
        theirs = theirs[9:].rstrip()          # from the west rim on: the help page indents by 9 columns
        assert mine[3:3 + len(theirs)] == theirs


def test_the_diagram_is_read_right():
    assert_drawn_like(board_of(EXAMPLE_PIECES), EXAMPLE, start=0)      # from the column letters
    assert_drawn_like(board_of(HINT_1_PIECES), HINT_1, start=8)        # from row 4


def test_only_nes_fits_b2():
    board = board_of(EXAMPLE_PIECES)
    assert names(board.legal_pieces(Cell.parse("B2"))) == ["nes"]
    assert board.mismatch_sentence(Move.parse("nesw@B2")) == (
        "wave on the west edge of nesw@B2 touches the blank edge of A2")


@pytest.mark.parametrize("piece", ["n", "e", "ne", "ns", "es", "nsw", "esw", "nesw", "new"])
def test_no_other_piece_fits_b2(piece):
    assert not board_of(EXAMPLE_PIECES).fits(Move.parse(f"{piece}@B2"))


def test_a3_takes_only_w_s_and_sw():
    board = board_of(EXAMPLE_PIECES)
    assert names(board.legal_pieces(Cell.parse("A3"))) == ["s", "sw", "w"]


def test_a2_is_connected_and_b1_is_not():
    board = board_of(EXAMPLE_PIECES)
    assert board.sides_joined(Cell.parse("A2")) == W     # its wave leaves the board on the west
    assert board.sides_joined(Cell.parse("B1")) == 0     # B1 lies on the north rim but has no arm north


def test_a_player_without_the_fitting_piece_can_never_play_there():
    referee = Referee(Rules(inventory={
        Colour.RED: {**START_INVENTORY, Kind.JUNCTION: 0}, Colour.BLACK: dict(START_INVENTORY)}))
    for move in EXAMPLE_PIECES:
        referee.board.push(Move.parse(move))
    assert referee.legal_pieces(Cell.parse("B2")) == []
    assert names(referee.legal_pieces(Cell.parse("B2"), Colour.BLACK)) == ["nes"]


def test_hint_pieces_one_space_apart_must_be_joined_across_the_gap():
    board = board_of(HINT_1_PIECES)
    assert names(board.legal_pieces(Cell.parse("C5"))) == ["esw", "ew", "nesw", "new"]
    assert board.sides_joined(Cell.parse("B5")) == 0


def test_hint_the_terminator_on_the_end_of_the_cross():
    referee = Referee()
    for move in HINT_1_PIECES:
        referee.board.push(Move.parse(move))
    assert referee.play("w@G5").outcome is Outcome.LEGAL
    assert referee.board.wave(Cell.parse("G5")) == [Cell.parse("F5"), Cell.parse("G5")]
    assert referee.board.sides_joined(Cell.parse("F5")) == 0
    # the cross's north and south waves still lead on: the wave can go round the terminator
    assert referee.board.legal_pieces(Cell.parse("F4")) == [p for p in ALL_PIECES if p.arms & S]
    assert referee.board.legal_pieces(Cell.parse("F6")) == [p for p in ALL_PIECES if p.arms & N]


def test_both_players_start_with_the_help_pages_pieces():
    # Cross 2, T-Piece 6, Line 5, Corner 10, DeadEnd 1
    assert START_INVENTORY == {Kind.CROSS: 2, Kind.JUNCTION: 6, Kind.STRAIGHT: 5, Kind.BEND: 10, Kind.TERMINATOR: 1}
    assert Referee().rules.inventory == {Colour.RED: START_INVENTORY, Colour.BLACK: START_INVENTORY}


def test_player_1_joins_left_to_right_and_player_2_top_to_bottom():
    rules = Rules()
    assert rules.first is Colour.RED
    assert rules.sides(Colour.RED) == W | E and rules.sides(Colour.BLACK) == N | S


def test_the_help_pages_notation_for_the_cross():
    assert Move.parse("X@e5") == Move.parse("nesw@e5") == Move.parse("e5.trbl") == Move.parse("nesw@E5")
    assert str(Move.parse("ew@E5")) == "ew@E5"


def test_red_waves_in_colour_draw_the_same_board():
    rng = random.Random(7)
    board = Board()
    while (move := board.random_placement(0xFFFE, rng)) is not None:   # every cell, rims included
        board.push(move)
    colours = {cell: Colour.RED for cell, _ in board.pieces()}
    coloured = draw(board, colours, ansi=True)
    assert "\x1b[31m" in coloured
    assert re.sub(r"\x1b\[\d+m", "", coloured) == draw(board)

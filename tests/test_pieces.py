"""Pieces, cells and moves: the value types and every notation the network server accepts."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thoughtwave.engine import (
    ALL_PIECES,
    CELLS,
    START_INVENTORY,
    Cell,
    Colour,
    Kind,
    Move,
    NotationError,
    Piece,
    parse_move_line,
)
from thoughtwave.engine.pieces import PIECES_OF_KIND, E, N, S, W

WORDS = {"n": "top", "e": "right", "s": "bottom", "w": "left"}
COMPASS = {"n": "north", "e": "east", "s": "south", "w": "west"}
TRBL = {"n": "t", "e": "r", "s": "b", "w": "l"}


def test_fifteen_pieces_one_per_nonempty_set_of_arms():
    assert [p.arms for p in ALL_PIECES] == list(range(1, 16))
    assert len({str(p) for p in ALL_PIECES}) == 15


def test_kinds_by_arms_and_the_starting_set_of_24():
    counts = {kind: len(PIECES_OF_KIND[kind]) for kind in Kind}
    # orientations: 4 terminators, 4 bends, 2 straights, 4 junctions, 1 cross
    assert counts == {Kind.TERMINATOR: 4, Kind.BEND: 4, Kind.STRAIGHT: 2, Kind.JUNCTION: 4, Kind.CROSS: 1}
    assert Piece.parse("ns").kind is Kind.STRAIGHT and Piece.parse("ew").kind is Kind.STRAIGHT
    assert Piece.parse("ne").kind is Kind.BEND and Piece.parse("sw").kind is Kind.BEND
    assert Piece.parse("w").kind is Kind.TERMINATOR
    assert Piece.parse("nsw").kind is Kind.JUNCTION
    assert Piece.parse("X").kind is Kind.CROSS
    assert START_INVENTORY == {Kind.TERMINATOR: 1, Kind.BEND: 10, Kind.STRAIGHT: 5, Kind.JUNCTION: 6,
                               Kind.CROSS: 2}
    assert sum(START_INVENTORY.values()) == 24


def test_arms_are_written_in_the_fixed_order_n_e_s_w():
    assert str(Piece(N | E | S | W)) == "nesw"
    assert str(Piece.parse("wsen")) == "nesw"
    assert str(Piece.parse("sn")) == "ns"
    assert str(Piece.parse("WN")) == "nw"


@pytest.mark.parametrize("text", ["X", "x", "+", "cross", "nesw", "trbl", "TRBL", "top/right/bottom/left",
                                  "north/east/south/west", "left,right,top,bottom", "Top-Right-Bottom-Left"])
def test_every_way_of_writing_the_cross(text):
    assert Piece.parse(text) == Piece(15)


@pytest.mark.parametrize("text", ["", "   ", "/", "-", ",", " / ", "nn", "nx", "xn", "q", "top/up", "north east x",
                                  "nesww", "0", "@"])
def test_text_that_is_not_a_piece_is_a_notation_error(text):
    with pytest.raises(NotationError):
        Piece.parse(text)


@pytest.mark.parametrize("arms", [0, 16, -1])
def test_a_piece_needs_one_to_four_arms(arms):
    with pytest.raises(NotationError):
        Piece(arms)


def test_rotation_turns_clockwise():
    assert str(Piece.parse("n").rotated()) == "e"
    assert str(Piece.parse("ne").rotated()) == "es"
    assert str(Piece.parse("nw").rotated()) == "ne"
    assert str(Piece.parse("nes").rotated(2)) == "nsw"
    for piece in ALL_PIECES:
        assert piece.rotated(4) == piece
        assert piece.rotated().kind is piece.kind


def test_cells_are_named_columns_west_to_east_rows_north_to_south():
    assert Cell.parse("A1") == Cell(row=0, col=0)
    assert Cell.parse("J1") == Cell(row=0, col=9)
    assert Cell.parse("A10") == Cell(row=9, col=0)
    assert Cell.parse("e5") == Cell(row=4, col=4)
    assert str(Cell(row=1, col=0)) == "A2"
    assert Cell.parse("B2").neighbour(N) == Cell.parse("B1")
    assert Cell.parse("B2").neighbour(E) == Cell.parse("C2")
    assert Cell.parse("B2").neighbour(S) == Cell.parse("B3")
    assert Cell.parse("B2").neighbour(W) == Cell.parse("A2")
    assert Cell.parse("A1").neighbour(N) is None and Cell.parse("A1").neighbour(W) is None
    assert Cell.parse("J10").neighbour(S) is None and Cell.parse("J10").neighbour(E) is None
    assert len(Cell.parse("A1").neighbours()) == 2 and len(Cell.parse("E5").neighbours()) == 4


@pytest.mark.parametrize("text", ["", "A", "5", "K1", "A0", "A11", "A-1", "AA1", "1A", "A 1", "A1.5", "A²",
                                  "A" + "9" * 5000, "A١", "E5x"])
def test_text_that_is_not_a_cell_is_a_notation_error(text):
    with pytest.raises(NotationError):
        Cell.parse(text)


def test_cell_index_round_trips():
    for i, cell in enumerate(CELLS):
        assert cell.index == i and Cell.from_index(i) is cell
        assert Cell.parse(str(cell)) is cell


def test_colours():
    assert Colour.parse("Red") is Colour.RED and Colour.parse(" BLACK ") is Colour.BLACK
    assert Colour.RED.other is Colour.BLACK and Colour.BLACK.other is Colour.RED
    with pytest.raises(NotationError):
        Colour.parse("blue")


def _spell(piece: Piece, form: str) -> str:
    letters = str(piece)
    if form == "letters":
        return letters
    if form == "trbl":
        return "".join(TRBL[c] for c in letters)
    if form == "words":
        return "/".join(WORDS[c] for c in letters)
    if form == "compass":
        return "/".join(COMPASS[c] for c in letters)
    raise AssertionError(form)


def _spell_move(piece: Piece, cell: Cell, form: str, piece_form: str) -> str:
    p = _spell(piece, piece_form)
    if form == "at":
        return f"{p}@{cell}"
    if form == "dot":
        return f"{cell}.{p}"
    raise AssertionError(form)


def _mixed_case(text: str, data: st.DataObject) -> str:
    flips = data.draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    return "".join(c.upper() if f else c.lower() for c, f in zip(text, flips, strict=True))


@settings(max_examples=300, deadline=None)
@given(piece=st.sampled_from(ALL_PIECES), cell=st.sampled_from(CELLS),
       move_form=st.sampled_from(["at", "dot"]), piece_form=st.sampled_from(["letters", "trbl", "words", "compass"]),
       data=st.data())
def test_every_notation_form_round_trips_in_any_case(piece, cell, move_form, piece_form, data):
    text = _mixed_case(_spell_move(piece, cell, move_form, piece_form), data)
    move = Move.parse(f"  {text} ")
    assert move == Move(piece, cell)
    assert Move.parse(str(move)) == move
    assert str(move) == f"{piece}@{cell}"


@settings(max_examples=100, deadline=None)
@given(piece=st.sampled_from(ALL_PIECES), data=st.data())
def test_arms_in_any_order_name_the_same_piece(piece, data):
    letters = data.draw(st.permutations(str(piece)))
    assert Piece.parse("".join(letters)) == piece
    assert Piece.parse(str(piece)) == piece


def test_the_cross_as_x_in_both_move_forms():
    assert Move.parse("X@e5") == Move.parse("nesw@E5") == Move.parse("e5.trbl") == Move.parse("E5.x")
    assert str(Move.parse("X@e5")) == "nesw@E5"


@pytest.mark.parametrize("line, colour, move", [
    ("ew@E5", None, "ew@E5"),
    ("red ew@E5", Colour.RED, "ew@E5"),
    ("  Black   X@e5  ", Colour.BLACK, "nesw@E5"),
    ("BLACK e5.trbl", Colour.BLACK, "nesw@E5"),
    ("red top/right@b2", Colour.RED, "ne@B2"),
])
def test_a_move_line_names_an_optional_colour_then_the_move(line, colour, move):
    got_colour, got_move = parse_move_line(line)
    assert got_colour is colour and str(got_move) == move


@pytest.mark.parametrize("line", ["", "   ", "red", "red black", "red ew@E5 extra", "green ew@E5", "ew@E5 red",
                                  "ew@", "@E5", "ew E5", "ew@E5@F6", "E5", "ew@K5", "-@E5", "/@E5", "e5./"])
def test_a_line_that_is_not_a_move_is_a_notation_error(line):
    with pytest.raises(NotationError):
        parse_move_line(line)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_any_text_either_parses_or_raises_a_notation_error(text):
    for parse in (Piece.parse, Cell.parse, Move.parse, parse_move_line, Colour.parse):
        try:
            parse(text)
        except NotationError as err:
            assert str(err) and "\n" not in str(err)

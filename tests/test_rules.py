"""The rule decisions of DESIGN.md, one group of tests per decision, each reading like the rule."""

import copy

import pytest

from thoughtwave.engine import (
    ALL_PIECES,
    CELLS,
    START_INVENTORY,
    Board,
    Cell,
    Colour,
    Kind,
    Move,
    Outcome,
    Penalty,
    Piece,
    Referee,
    Rules,
)
from thoughtwave.engine.pieces import E, N, S, W

RED, BLACK = Colour.RED, Colour.BLACK

# Red's ten pieces across row 5 (west to east): five straights, then five junctions with an arm north.
RED_ROW_5 = ["ew@A5", "ew@B5", "ew@C5", "ew@D5", "ew@E5", "new@F5", "new@G5", "new@H5", "new@I5", "new@J5"]
# Black's ten pieces down column E (north to south): five straights, then five junctions with an arm east.
BLACK_COLUMN_E = ["ns@E1", "ns@E2", "ns@E3", "ns@E4", "ns@E5", "nes@E6", "nes@E7", "nes@E8", "nes@E9", "nes@E10"]
# Pieces on their own, far from row 5 and from column E: they touch nothing and join no sides.
BLACK_ASIDE = ["ne@A8", "ne@C8", "ne@G8", "ne@I8", "ne@A10", "ne@C10", "ne@G10", "ne@I10", "ne@G2", "ne@I2"]
RED_ASIDE = ["ne@A1", "ne@A3", "ne@A7", "ne@A9", "ne@C1", "ne@C3", "ne@C7", "ne@C9", "ne@H2", "ne@H8"]


def pieces(**counts: int) -> dict[Kind, int]:
    """An inventory naming only the kinds given; the others are 0."""
    return {kind: counts.get(kind.value, 0) for kind in Kind}


def legal(referee: Referee, *lines: str):
    """Play ``lines`` in order, each of which must be a legal placement; the last verdict."""
    verdict = None
    for line in lines:
        verdict = referee.play(line)
        assert verdict.outcome is Outcome.LEGAL, (line, verdict.reason)
    return verdict


def alternate(referee: Referee, first: list[str], second: list[str]):
    """The side to move plays ``first[0]``, the other ``second[0]``, and so on; the last verdict."""
    verdict = None
    for a, b in zip(first, second, strict=False):
        verdict = legal(referee, a, b)
    for extra in first[len(second):]:
        verdict = legal(referee, extra)
    return verdict


def state(referee: Referee) -> tuple:
    """Everything an attempt could change, except the list of verdicts."""
    return copy.deepcopy((referee.board.snapshot(), referee.inventory, referee.to_move, referee.skips,
                          referee.winner, referee.draw))


# ---- 1. Red moves first and joins west-east; Black joins north-south; both configurable -----------------

def test_red_moves_first():
    referee = Referee()
    assert referee.to_move is RED
    verdict = referee.play("black ew@E5")
    assert verdict.outcome is Outcome.REJECTED and "Red's turn" in verdict.reason
    assert legal(referee, "red ew@E5").next is BLACK


def test_black_moves_first_when_configured():
    referee = Referee(Rules(first=BLACK))
    assert referee.to_move is BLACK
    assert legal(referee, "ew@E5").colour is BLACK


def test_red_wins_by_joining_west_and_east():
    referee = Referee()
    verdict = alternate(referee, RED_ROW_5, BLACK_ASIDE[:9])
    assert verdict.colour is RED and verdict.winner is RED
    assert referee.result == "red" and verdict.next is None
    assert set(referee.winning_wave()) == {Cell.parse(m.split("@")[1]) for m in RED_ROW_5}


def test_black_wins_by_joining_north_and_south():
    referee = Referee()
    verdict = alternate(referee, RED_ASIDE, BLACK_COLUMN_E)
    assert verdict.colour is BLACK and verdict.winner is BLACK


def test_red_joining_north_and_south_does_not_win_for_red():
    referee = Referee(Rules(first=BLACK))
    verdict = alternate(referee, BLACK_ASIDE, BLACK_COLUMN_E)  # here Red lays column E
    assert verdict.colour is RED and verdict.winner is BLACK   # and connects Black (decision 5)


def test_red_joins_north_and_south_when_configured():
    referee = Referee(Rules(red_sides="NS"))
    assert referee.rules.sides(RED) == N | S and referee.rules.sides(BLACK) == W | E
    verdict = alternate(referee, BLACK_COLUMN_E, RED_ASIDE[:9])
    assert verdict.colour is RED and verdict.winner is RED


def test_black_joins_west_and_east_when_red_has_north_and_south():
    referee = Referee(Rules(red_sides="NS", first=BLACK))
    verdict = alternate(referee, RED_ROW_5, BLACK_ASIDE[:9])
    assert verdict.colour is BLACK and verdict.winner is BLACK


def test_sides_must_be_we_or_ns():
    with pytest.raises(ValueError):
        Rules(red_sides="NE")


# ---- 2. Placement: an empty cell, every neighbour's facing arm must match, the rim imposes nothing -------

def test_a_cell_with_no_neighbours_takes_any_piece():
    board = Board()
    for cell in CELLS:
        assert board.legal_pieces(cell) == list(ALL_PIECES)


def test_diagonal_pieces_impose_nothing():
    board = Board()
    board.push(Move.parse("X@D4"))
    board.push(Move.parse("n@F6"))
    assert board.legal_pieces(Cell.parse("E5")) == list(ALL_PIECES)


def test_a_piece_goes_on_an_empty_cell_only():
    referee = Referee()
    legal(referee, "ew@E5")
    verdict = referee.play("ew@E5")
    assert verdict.outcome is Outcome.REJECTED and verdict.reason == "E5 is already taken by ew"


def test_wave_meets_wave():
    referee = Referee()
    legal(referee, "ew@E5", "ew@F5")


def test_blank_meets_blank():
    referee = Referee()
    legal(referee, "ns@E5", "ns@F5")


def test_blank_edge_touching_a_wave_is_illegal():
    referee = Referee()
    legal(referee, "ew@E5")
    verdict = referee.play("ns@F5")
    assert verdict.outcome is Outcome.ILLEGAL
    assert verdict.reason == "blank west edge of ns@F5 touches the wave of E5"


def test_wave_touching_a_blank_edge_is_illegal():
    referee = Referee()
    legal(referee, "ns@E5")
    verdict = referee.play("ew@F5")
    assert verdict.outcome is Outcome.ILLEGAL
    assert verdict.reason == "wave on the west edge of ew@F5 touches the blank edge of E5"


def test_every_neighbour_must_match_not_just_one():
    referee = Referee()
    legal(referee, "ew@D5", "ns@F5")        # a wave from the west, a blank from the east
    verdict = referee.play("ew@E5")        # matches D5, not F5
    assert verdict.outcome is Outcome.ILLEGAL and "F5" in verdict.reason
    assert Referee().board.fits(Move.parse("ew@E5"))
    assert [str(p) for p in referee.board.legal_pieces(Cell.parse("E5"))] == ["w", "nw", "sw", "nsw"]


@pytest.mark.parametrize("move", ["X@A1", "X@J1", "X@A10", "X@J10", "nw@A1", "w@A5", "n@E1", "s@E10", "e@J5"])
def test_the_rim_imposes_nothing(move):
    referee = Referee()
    assert legal(referee, move).outcome is Outcome.LEGAL


def test_rim_rules_hold_next_to_a_corner_piece():
    board = Board()
    board.push(Move.parse("nw@A1"))         # its waves leave the board; its east and south edges are blank
    assert board.legal_pieces(Cell.parse("B1")) == [p for p in ALL_PIECES if not p.arms & W]
    assert board.legal_pieces(Cell.parse("A2")) == [p for p in ALL_PIECES if not p.arms & N]


# ---- 3. A piece's arms are one wave: a cross joins all four sides ---------------------------------------

def test_a_cross_joins_all_four_sides_through_one_piece():
    board = Board()
    for move in ["ew@A5", "ew@B5", "ew@C5", "ew@D5", "X@E5", "ew@F5", "ew@G5", "ew@H5", "ew@I5", "ew@J5"]:
        board.push(Move.parse(move))
    assert board.sides_joined(Cell.parse("A5")) == W | E
    for move in ["ns@E1", "ns@E2", "ns@E3", "ns@E4", "ns@E6", "ns@E7", "ns@E8", "ns@E9", "ns@E10"]:
        board.push(Move.parse(move))
    assert board.sides_joined(Cell.parse("E1")) == N | E | S | W
    assert board.sides_joined(Cell.parse("J5")) == N | E | S | W


def test_a_junction_joins_its_three_arms():
    board = Board()
    for move in ["e@I5", "nsw@J5", "s@J4", "n@J6"]:
        board.push(Move.parse(move))
    assert board.wave(Cell.parse("J4")) == [Cell.parse("J4"), Cell.parse("I5"), Cell.parse("J5"), Cell.parse("J6")]


# ---- 4. Connected: one chain, joined arm to arm, with arms crossing both of the player's sides -----------

def test_a_piece_on_the_rim_without_an_arm_off_the_board_does_not_reach_that_side():
    board = Board()
    for move in ["e@A5", "ew@B5", "ew@C5", "ew@D5", "ew@E5", "ew@F5", "ew@G5", "ew@H5", "ew@I5", "ew@J5"]:
        board.push(Move.parse(move))
    assert board.sides_joined(Cell.parse("E5")) == E
    assert not board.joins(W | E)


def test_two_chains_that_meet_blank_to_blank_are_not_one_chain():
    board = Board()
    for move in ["ew@A5", "ew@B5", "ew@C5", "ew@D5", "w@E5", "e@F5", "ew@G5", "ew@H5", "ew@I5", "ew@J5"]:
        board.push(Move.parse(move))
    assert board.sides_joined(Cell.parse("A5")) == W
    assert board.sides_joined(Cell.parse("J5")) == E
    assert not board.joins(W | E)


def test_the_ends_need_not_be_opposite():
    board = Board()
    path = ["ew@A3", "ew@B3", "ew@C3", "ew@D3", "sw@E3", "ns@E4", "ns@E5", "ns@E6", "ne@E7",
            "ew@F7", "ew@G7", "ew@H7", "ew@I7"]
    for move in path:
        board.push(Move.parse(move))
    assert not board.joins(W | E)
    board.push(Move.parse("ew@J7"))
    assert board.joins(W | E) and not board.joins(N | S)
    assert len(board.joining_wave(W | E)) == len(path) + 1


def test_a_wave_through_pieces_of_either_colour_counts():
    referee = Referee()
    red = ["ew@A5", "ew@C5", "ew@E5", "ew@G5", "ew@I5"]
    black = ["ew@B5", "ew@D5", "ew@F5", "ew@H5", "ew@J5"]   # Black lays half of Red's row, and the last piece
    verdict = alternate(referee, red, black)
    assert verdict.colour is BLACK and verdict.winner is RED


# ---- 5. After a legal placement: the mover wins if connected, else the opponent if connected ------------

ROW_5_BUT_E5 = ["ew@A5", "ew@B5", "ew@C5", "ew@D5", "ew@F5", "esw@G5", "esw@H5", "esw@I5", "esw@J5"]
COLUMN_E_BUT_E5 = ["ns@E1", "ns@E2", "ns@E3", "ns@E4", "ns@E6", "nsw@E7", "nsw@E8", "nsw@E9", "nsw@E10"]


def test_the_mover_wins_when_one_piece_connects_both_players():
    referee = Referee()
    alternate(referee, ROW_5_BUT_E5, COLUMN_E_BUT_E5)
    verdict = referee.play("red X@E5")
    assert verdict.outcome is Outcome.LEGAL and verdict.winner is RED
    assert referee.board.joins(N | S)       # Black was connected by the same piece


def test_the_mover_wins_when_one_piece_connects_both_players_black():
    referee = Referee()
    alternate(referee, ROW_5_BUT_E5 + ["ne@A1"], COLUMN_E_BUT_E5)
    verdict = referee.play("black X@E5")
    assert verdict.outcome is Outcome.LEGAL and verdict.winner is BLACK


def test_the_opponent_wins_when_the_mover_connects_only_the_opponent():
    referee = Referee()
    alternate(referee, RED_ASIDE[:9], BLACK_COLUMN_E[:9])
    verdict = referee.play("red ns@E10")
    assert verdict.outcome is Outcome.LEGAL and verdict.colour is RED and verdict.winner is BLACK
    assert verdict.next is None and referee.result == "black"


def test_no_win_before_the_connection():
    referee = Referee()
    verdict = alternate(referee, RED_ROW_5[:9], BLACK_ASIDE[:9])
    assert verdict.winner is None and verdict.next is RED and referee.result == "ongoing"


# ---- 6. Illegal placement: the piece leaves the game; skip-turn, forfeit or retry ------------------------

def _illegal_after_ew_e5(penalty: Penalty | None):
    referee = Referee(Rules(penalty=penalty) if penalty else Rules())
    legal(referee, "ew@E5", "ne@A1")
    before = referee.board.snapshot()
    verdict = referee.play("red ns@F5")
    assert verdict.outcome is Outcome.ILLEGAL and verdict.colour is RED
    assert referee.board.snapshot() == before and referee.board[Cell.parse("F5")] is None
    return referee, verdict


def test_skip_turn_is_the_default_and_the_opponent_plays_twice():
    referee, verdict = _illegal_after_ew_e5(None)
    assert referee.rules.penalty is Penalty.SKIP_TURN
    assert referee.inventory[RED][Kind.STRAIGHT] == 3      # one on the board, one out of the game
    assert verdict.next is BLACK
    assert legal(referee, "ne@C1").next is BLACK           # Red misses this turn
    assert legal(referee, "ne@C3").next is RED


def test_forfeit_loses_the_piece_and_the_turn_passes_normally():
    referee, verdict = _illegal_after_ew_e5(Penalty.FORFEIT)
    assert referee.inventory[RED][Kind.STRAIGHT] == 3
    assert verdict.next is BLACK
    assert legal(referee, "ne@C1").next is RED


def test_retry_gives_the_piece_back_and_the_same_player_tries_again():
    referee, verdict = _illegal_after_ew_e5(Penalty.RETRY)
    assert referee.inventory[RED][Kind.STRAIGHT] == 4
    assert verdict.next is RED
    assert legal(referee, "red ew@F5").next is BLACK


def test_an_illegal_piece_that_was_the_last_of_its_kind_is_gone():
    referee = Referee(Rules(inventory={RED: pieces(straight=1, bend=1), BLACK: dict(START_INVENTORY)}))
    legal(referee, "ne@E5", "ns@A1")
    assert referee.play("red ns@F5").outcome is Outcome.ILLEGAL    # E5's east wave meets a blank
    assert legal(referee, "ne@C1").next is BLACK                   # Red has nothing left: it passes
    assert referee.play("ns@C5").colour is BLACK


def test_skip_turns_of_both_players_cancel_out():
    referee = Referee()
    legal(referee, "ew@E5", "ns@A3")
    assert referee.play("red ns@F5").outcome is Outcome.ILLEGAL
    assert referee.play("black ew@B3").outcome is Outcome.ILLEGAL
    assert referee.to_move is RED


# ---- 7. Rejected attempts change nothing; game over, malformed, turn, occupied, none left, in that order --

def test_a_rejected_attempt_changes_nothing():
    referee = Referee()
    legal(referee, "ew@E5")
    before = state(referee)
    for line in ["nonsense", "red ew@A1", "ns@E5", "ew@K5", ""]:
        verdict = referee.play(line)
        assert verdict.outcome is Outcome.REJECTED and verdict.reason
        assert state(referee) == before


def test_game_over_comes_first():
    referee = Referee()
    alternate(referee, RED_ROW_5, BLACK_ASIDE[:9])
    for line in ["black ew@A5", "not a move", "red ns@B1", "black ns@B1"]:
        verdict = referee.play(line)
        assert verdict.outcome is Outcome.REJECTED
        assert verdict.reason == "the game is over: Red has won"


def test_malformed_comes_before_not_your_turn():
    verdict = Referee().play("black ew@K5")
    assert verdict.outcome is Outcome.REJECTED and "not a cell" in verdict.reason


def test_not_your_turn_comes_before_cell_occupied():
    referee = Referee()
    legal(referee, "ew@E5")
    verdict = referee.play("red ew@E5")
    assert verdict.reason == "it is Black's turn, not Red's"


def test_cell_occupied_comes_before_no_piece_left():
    referee = Referee(Rules(inventory={RED: pieces(bend=2), BLACK: dict(START_INVENTORY)}))
    legal(referee, "ne@E5", "ns@A1")
    verdict = referee.play("red ew@E5")
    assert verdict.reason == "E5 is already taken by ne"


def test_no_piece_left_comes_before_the_edge_check():
    referee = Referee(Rules(inventory={RED: pieces(bend=2), BLACK: dict(START_INVENTORY)}))
    legal(referee, "ne@E5", "ns@A1")
    before = state(referee)
    verdict = referee.play("red ns@F5")       # would also be an edge mismatch
    assert verdict.outcome is Outcome.REJECTED and verdict.reason == "Red has no straight left"
    assert state(referee) == before


def test_rejected_verdicts_keep_the_turn():
    referee = Referee()
    verdict = referee.play("ew@K5")
    assert verdict.next is RED and verdict.colour is None and verdict.move == "ew@K5"


# ---- 8. Automatic passes and draws ----------------------------------------------------------------------

def test_a_player_with_no_pieces_passes():
    referee = Referee(Rules(inventory={RED: pieces(cross=1), BLACK: pieces(bend=3)}))
    legal(referee, "X@E5")
    verdict = legal(referee, "ne@A1")
    assert verdict.passed == (RED,) and verdict.next is BLACK
    verdict = legal(referee, "ne@A3")
    assert verdict.next is BLACK
    verdict = legal(referee, "ne@A7")
    assert verdict.draw and verdict.next is None and referee.result == "draw"


def test_draw_when_all_pieces_are_placed():
    referee = Referee(Rules(inventory={RED: pieces(bend=1), BLACK: pieces(bend=1)}))
    legal(referee, "ne@A1")
    verdict = legal(referee, "ne@J10")
    assert verdict.draw and verdict.winner is None and verdict.next is None
    assert referee.play("ne@E5").reason == "the game is over: it was drawn"


def test_nobody_with_pieces_is_a_draw_from_the_start():
    referee = Referee(Rules(inventory={RED: pieces(), BLACK: pieces()}))
    assert referee.draw and referee.to_move is None


def test_a_player_with_pieces_but_no_legal_placement_passes_and_then_the_game_is_drawn():
    # Columns B, E, H and I filled north to south: each faces its neighbours with blank edges, so afterwards
    # no cross fits on any empty cell. A terminator at the top keeps each column off the north side.
    wall = [("s" if row == 1 else "ns") + f"@{col}{row}" for col in "BEHI" for row in range(1, 11)]
    red_part, black_part = wall[0::2], wall[1::2]
    red = pieces(terminator=sum(m.startswith("s@") for m in red_part), cross=1)
    red[Kind.STRAIGHT] = len(red_part) - red[Kind.TERMINATOR]
    black = pieces(terminator=sum(m.startswith("s@") for m in black_part), bend=1, cross=1)
    black[Kind.STRAIGHT] = len(black_part) - black[Kind.TERMINATOR]
    referee = Referee(Rules(inventory={RED: red, BLACK: black}))
    verdict = legal(referee, *wall)
    assert referee.inventory[RED] == pieces(cross=1)
    assert not any(referee.board.fits(Move(Piece.parse("X"), cell)) for cell in CELLS)
    assert verdict.colour is BLACK and verdict.passed == (RED,) and verdict.next is BLACK
    verdict = legal(referee, "ne@C5")           # Black's last piece that fits anywhere
    assert verdict.passed == () and verdict.draw and verdict.next is None and referee.result == "draw"
    assert referee.inventory[RED] == pieces(cross=1) and referee.inventory[BLACK] == pieces(cross=1)


# ---- 9. Handicap: starting inventories are configurable --------------------------------------------------

def test_starting_inventories_are_configurable():
    handicap = {**START_INVENTORY, Kind.CROSS: 0}     # Red gives both crosses away
    referee = Referee(Rules(inventory={RED: handicap, BLACK: dict(START_INVENTORY)}))
    assert referee.inventory[RED][Kind.CROSS] == 0
    verdict = referee.play("X@E5")
    assert verdict.outcome is Outcome.REJECTED and verdict.reason == "Red has no cross left"
    verdict = legal(referee, "ew@E5")
    assert verdict.left[RED] == {**handicap, Kind.STRAIGHT: 4}
    assert verdict.left[BLACK] == START_INVENTORY


@pytest.mark.parametrize("bad", [{Kind.CROSS: -1}, {Kind.CROSS: "2"}])
def test_inventories_must_count_every_kind_from_zero_up(bad):
    with pytest.raises(ValueError):
        Rules(inventory={RED: {**START_INVENTORY, **bad}, BLACK: dict(START_INVENTORY)})
    with pytest.raises(ValueError):
        Rules(inventory={RED: {Kind.CROSS: 2}, BLACK: dict(START_INVENTORY)})


# ---- undo -----------------------------------------------------------------------------------------------

def test_undo_takes_back_the_last_legal_or_illegal_attempt():
    referee = Referee()
    legal(referee, "ew@E5")
    before = state(referee)
    assert referee.play("ns@F5").outcome is Outcome.ILLEGAL
    referee.play("rubbish")
    undone = referee.undo()
    assert undone.move == "ns@F5" and state(referee) == before
    assert referee.undo().move == "ew@E5" and state(referee) == state(Referee())
    assert referee.undo() is None

"""Rule decision 10: the physical board, as the camera sees it, reconciled with the game."""

from thoughtwave.engine import Cell, Colour, Piece, Referee, Rules
from thoughtwave.engine.referee import Outcome, Penalty
from thoughtwave.engine.table import FlagKind, Table

RED, BLACK = Colour.RED, Colour.BLACK


def c(name: str) -> Cell:
    return Cell.parse(name)


def p(arms: str) -> Piece:
    return Piece.parse(arms)


class Camera:
    """Holds what lies on the table; ``view()`` is what a steady camera reports."""

    def __init__(self) -> None:
        self.lying: dict[Cell, tuple[Colour, Piece]] = {}

    def lay(self, colour: Colour, arms: str, cell: str) -> None:
        self.lying[c(cell)] = (colour, p(arms))

    def lift(self, cell: str) -> None:
        del self.lying[c(cell)]

    def view(self, hidden: set[str] = frozenset()) -> dict:
        return {cell: self.lying.get(cell) for cell in map(Cell.from_index, range(100)) if str(cell) not in hidden}


def verdicts(events):
    return [(e.verdict.colour.value, e.verdict.move, e.verdict.outcome.value) for e in events if e.verdict]


def flag_kinds(table: Table) -> dict[str, str]:
    return {str(cell): f.kind.value for cell, f in table.flags.items()}


def test_one_new_piece_is_an_attempt_by_its_colour():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "E5")
    assert verdicts(table.observe(cam.view())) == [("red", "ew@E5", "legal")]
    assert table.observe(cam.view()) == []  # nothing changed, nothing to say


def test_an_illegal_piece_is_flagged_until_taken_off_and_the_opponent_plays_twice():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "E5")
    table.observe(cam.view())
    cam.lay(BLACK, "ns", "F5")  # blank west edge against E5's wave
    events = table.observe(cam.view())
    assert verdicts(events) == [("black", "ns@F5", "illegal")]
    flag = table.flags[c("F5")]
    assert flag.kind is FlagKind.ILLEGAL_PIECE
    assert "take the black straight ns off F5; it is out of the game; Black misses a turn" in flag.message
    assert "blank west edge of ns@F5 touches the wave of E5" in flag.message
    cam.lift("F5")
    events = table.observe(cam.view())
    assert [e.cleared.cell for e in events if e.cleared] == [c("F5")]
    assert table.flags == {}
    assert table.referee.to_move is RED


def test_new_pieces_wait_while_an_illegal_piece_is_still_on_the_board():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "E5")
    table.observe(cam.view())
    cam.lay(BLACK, "ns", "F5")
    table.observe(cam.view())
    cam.lay(RED, "ns", "A1")
    assert verdicts(table.observe(cam.view())) == []
    assert flag_kinds(table) == {"F5": "illegal-piece", "A1": "held"}
    cam.lift("F5")
    assert verdicts(table.observe(cam.view())) == [("red", "ns@A1", "legal")]
    assert table.flags == {}


def test_a_rejected_piece_out_of_turn_must_come_off_and_changes_nothing():
    table, cam = Table(Referee()), Camera()
    cam.lay(BLACK, "ns", "C3")
    assert verdicts(table.observe(cam.view())) == [("black", "ns@C3", "rejected")]
    assert table.flags[c("C3")].kind is FlagKind.REJECTED_PIECE
    assert "it is Red's turn, not Black's" in table.flags[c("C3")].message
    assert table.referee.board[c("C3")] is None
    cam.lift("C3")
    table.observe(cam.view())
    assert table.flags == {}


def test_a_placed_piece_turned_or_lifted_is_flagged_until_restored():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ne", "D4")
    table.observe(cam.view())
    cam.lay(RED, "es", "D4")  # turned a quarter
    table.observe(cam.view())
    assert table.flags[c("D4")].kind is FlagKind.MOVED
    cam.lift("D4")
    table.observe(cam.view())
    assert table.flags[c("D4")].kind is FlagKind.LIFTED
    cam.lay(RED, "ne", "D4")
    events = table.observe(cam.view())
    assert table.flags == {} and [e.cleared.kind for e in events if e.cleared] == [FlagKind.LIFTED]


def test_several_new_pieces_are_accepted_in_a_legal_order_of_turns():
    table, cam = Table(Referee()), Camera()
    cam.lay(BLACK, "ns", "A1")  # black's piece first in the list, but red moves first
    cam.lay(RED, "ew", "J10")
    assert sorted(verdicts(table.observe(cam.view()))) == [("black", "ns@A1", "legal"), ("red", "ew@J10", "legal")]
    assert [v.colour for v in table.referee.verdicts] == [RED, BLACK]


def test_several_new_pieces_that_no_order_explains_are_all_flagged():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "A1")
    cam.lay(RED, "ew", "J10")  # two red pieces in a row cannot both be turns
    assert verdicts(table.observe(cam.view())) == []
    assert flag_kinds(table) == {"A1": "unexplained", "J10": "unexplained"}
    assert table.referee.verdicts == []


def test_an_unreadable_cell_is_flagged_not_taken_for_empty_and_clears_when_read():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "E5")
    table.observe(cam.view())
    events = table.observe(cam.view(hidden={"E5"}), unreadable=[c("E5")])
    assert table.flags[c("E5")].kind is FlagKind.UNREADABLE and "can't read E5" in table.flags[c("E5")].message
    assert not verdicts(events)
    table.observe(cam.view())
    assert table.flags == {}


def test_after_a_restart_what_the_stored_game_lacks_is_flagged_not_ruled():
    referee = Referee()
    referee.play("ew@E5")
    table, cam = Table(referee, resumed=True), Camera()
    cam.lay(RED, "ew", "E5")
    cam.lay(BLACK, "ns", "A1")
    assert verdicts(table.observe(cam.view())) == []
    assert flag_kinds(table) == {"A1": "differs"}
    cam.lift("A1")
    table.observe(cam.view())
    cam.lay(BLACK, "ns", "A1")
    assert verdicts(table.observe(cam.view())) == [("black", "ns@A1", "legal")]


def test_undo_takes_back_the_verdict_and_asks_for_the_piece_to_come_off():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "E5")
    table.observe(cam.view())
    assert table.undo().move == "ew@E5"
    assert table.flags[c("E5")].kind is FlagKind.UNDONE
    cam.lift("E5")
    table.observe(cam.view())
    assert table.flags == {} and table.referee.verdicts == []


def test_an_operator_correction_holds_while_the_camera_misreads_the_same_way():
    table, cam = Table(Referee()), Camera()
    cam.lay(RED, "ew", "E5")
    table.observe(cam.view())
    cam.lay(RED, "ns", "E5")  # the camera misreads E5
    table.observe(cam.view())
    assert table.flags[c("E5")].kind is FlagKind.MOVED
    table.correct(c("E5"), (RED, p("ew")))
    assert table.flags == {}


def test_retry_penalty_advice_says_try_again():
    table, cam = Table(Referee(Rules(penalty=Penalty.RETRY))), Camera()
    cam.lay(RED, "ew", "E5")
    table.observe(cam.view())
    cam.lay(BLACK, "ns", "F5")
    events = table.observe(cam.view())
    assert events[0].verdict.outcome is Outcome.ILLEGAL
    assert "Black tries again" in table.flags[c("F5")].message
    assert table.referee.to_move is BLACK


def test_event_json_shapes():
    table, cam = Table(Referee()), Camera()
    cam.lay(BLACK, "ns", "C3")
    events = table.observe(cam.view())
    assert events[0].to_json()["verdict"] == "rejected"
    assert events[1].to_json() == {"event": "flag", "flag": "rejected-piece", "cell": "C3",
                                   "message": table.flags[c("C3")].message}


def test_searching_for_an_order_leaves_the_game_exactly_as_it_was():
    referee = Referee()
    referee.play("ew@E5")
    before = (referee.board.snapshot(), [v.to_json() for v in referee.verdicts], referee.to_move)
    table, cam = Table(referee), Camera()
    cam.lay(RED, "ew", "E5")
    cam.lay(RED, "ns", "A1")
    cam.lay(RED, "ns", "J1")  # black to move: no order of three red pieces works
    table.observe(cam.view())
    assert (referee.board.snapshot(), [v.to_json() for v in referee.verdicts], referee.to_move) == before

"""Game records: the text format, its headers, reading plain move files, and refusing what is not a record."""

import pytest

from thoughtwave.engine import (
    START_INVENTORY,
    Colour,
    GameRecord,
    Kind,
    Outcome,
    Penalty,
    RecordedMove,
    RecordError,
    Referee,
    Rules,
)

HANDICAP = Rules(penalty=Penalty.FORFEIT, red_sides="NS", first=Colour.BLACK, inventory={
    Colour.RED: {**START_INVENTORY, Kind.CROSS: 0}, Colour.BLACK: dict(START_INVENTORY)})


def test_a_record_reads_like_the_format_in_the_module_docstring():
    referee = Referee()
    for line in ["ew@E5", "black ns@F5", "zzz", "red ne@A1"]:
        referee.play(line)
    text = GameRecord.from_referee(referee, "Ann", "Bob", "2026-11-21").to_text()
    assert text.splitlines() == [
        "# Thoughtwave game record",
        "# Red: Ann",
        "# Black: Bob",
        "# Red-Sides: WE",
        "# First: red",
        "# Penalty: skip-turn",
        "# Date: 2026-11-21",
        "# Result: ongoing",
        "red ew@E5  # legal",
        "black ns@F5  # illegal: blank west edge of ns@F5 touches the wave of E5",
        "zzz  # rejected: 'zzz' is not a move: write it as PIECE@CELL, e.g. ew@E5",
        "red ne@A1  # legal",                     # Black missed a turn for the illegal piece
    ]


def test_rules_and_handicaps_are_kept_in_the_headers():
    referee = Referee(HANDICAP)
    referee.play("ew@E5")
    text = GameRecord.from_referee(referee).to_text()
    assert "# Pieces-Red: terminator=1 bend=10 straight=5 junction=6 cross=0" in text
    assert "# Pieces-Black" not in text          # the standard set needs no header
    again = GameRecord.parse(text)
    assert again.rules == HANDICAP
    assert again.replay().inventory == referee.inventory


def test_a_finished_game_records_its_result():
    referee = Referee(Rules(inventory={Colour.RED: {k: 0 for k in Kind} | {Kind.BEND: 1},
                                       Colour.BLACK: {k: 0 for k in Kind} | {Kind.BEND: 1}}))
    referee.play("ne@A1")
    referee.play("ne@J10")
    record = GameRecord.parse(GameRecord.from_referee(referee).to_text())
    assert record.result == "draw" and record.replay().result == "draw"


def test_a_plain_moves_file_is_a_record_with_the_standard_rules():
    record = GameRecord.parse("# opening\new@E5\n\nblack ns@E6\n")
    assert record.rules == Rules()
    # without verdict comments every line reads as legal; replaying is what rules on them
    assert record.moves == [RecordedMove(None, "ew@E5", Outcome.LEGAL),
                            RecordedMove(Colour.BLACK, "ns@E6", Outcome.LEGAL)]
    verdicts = record.replay().verdicts
    assert [v.outcome for v in verdicts] == [Outcome.LEGAL, Outcome.ILLEGAL]


def test_names_and_dates_stay_on_one_line():
    record = GameRecord(red="Ann\nLee", black="  Bob\r\n", date="21\u2028Nov")
    assert (record.red, record.black, record.date) == ("Ann Lee", "Bob", "21 Nov")
    assert GameRecord.parse(record.to_text()) == record


def test_a_blank_attempt_is_left_out_of_the_record():
    referee = Referee()
    referee.play("   ")
    referee.play("ew@E5")
    record = GameRecord.from_referee(referee)
    assert [m.move for m in record.moves] == ["ew@E5"]


def test_a_malformed_line_with_a_colour_word_reads_back_the_same():
    referee = Referee()
    referee.play("red   black")
    record = GameRecord.from_referee(referee)
    assert record.moves == [RecordedMove(Colour.RED, "black", Outcome.REJECTED, referee.verdicts[0].reason)]
    assert GameRecord.parse(record.to_text()) == record
    assert record.replay().verdicts[0].to_json() == referee.verdicts[0].to_json()


@pytest.mark.parametrize("text, message", [
    ("ew@E5  # brilliant\n", "line 1: 'brilliant' is not a verdict"),
    ("# Result: maybe\n", "Result 'maybe'"),
    ("# Penalty: death\n", "Penalty 'death'"),
    ("# Red-Sides: NE\n", "red sides must be WE or NS"),
    ("# First: green\n", "'green' is not a colour"),
    ("# Pieces-Red: cross=x\n", "'cross=x' is not KIND=COUNT"),
    ("# Pieces-Red: cross=100\n", "from 0 to 99"),
    ("# Pieces-Black: knight=1\n", "'knight=1' is not KIND=COUNT"),
])
def test_what_is_not_a_record_is_refused_with_the_reason(text, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.parse(text)


def test_headers_after_the_first_move_are_only_comments():
    record = GameRecord.parse("ew@E5\n# Result: red\n")
    assert record.result == "ongoing"

"""Cases from real tables: saved whole with frame, reading, board and profile, capped, replayed, exported;
and every case kept under tests/cases/ is a regression test (see the README)."""

import datetime
import json
import tarfile
from pathlib import Path

import numpy as np
import pytest

from thoughtwave.calibration.profile import Profile
from thoughtwave.cases import (
    REPORT,
    UNREADABLE,
    CaseBook,
    CaseError,
    UnreadableCapture,
    export_cases,
    list_cases,
    load_case,
    save_case,
)
from thoughtwave.cli import main
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.synth import Scene, render
from thoughtwave.vision.reading import BoardReading, CellReading, CellState
from thoughtwave.vision.recognizer import Recognizer

PROFILE = Profile((1280, 960), ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)), 36.0, {"redness_split": 0.17})
REGRESSION_CASES = Path(__file__).parent / "cases"


def clock(second: int = 0):
    return lambda: datetime.datetime(2026, 11, 23, 10, 15, second, tzinfo=datetime.UTC)


@pytest.fixture(scope="module")
def table():
    frame, truth = render(Scene.random(23, level="medium", hand=False))
    return frame, truth.board_state(), Recognizer().read(frame)


def test_a_case_keeps_frame_reading_board_and_profile_and_reads_the_same_again(tmp_path, table):
    frame, board, reading = table
    path = save_case(tmp_path, frame, reading, board, PROFILE, note="E5 read as black", now=clock())
    assert path.parent == tmp_path / "cases" and path.name == "20261123-101500-report-1"
    assert sorted(p.name for p in path.iterdir()) == ["case.json", "frame.png", "profile.json"]
    case = load_case(path)
    assert np.array_equal(case.frame, frame)                    # PNG: exactly the frame that was read
    assert case.reading == reading.to_json() and case.board == board and Profile.from_json(case.profile) == PROFILE
    assert (case.kind, case.note, case.created) == (REPORT, "E5 read as black", "2026-11-23T10:15:00+00:00")
    # what `thoughtwave recognize frame.png --profile profile.json` does
    again = Recognizer(path / "profile.json").read(case.frame)
    assert again.to_json()["cells"] == case.reading["cells"]


def test_cases_are_capped_and_a_report_makes_room_by_dropping_the_oldest_automatic_one(tmp_path, table):
    frame, board, reading = table
    small = frame[:200, :200]
    first = save_case(tmp_path, small, reading, board, kind=UNREADABLE, now=clock(1), max_cases=2)
    second = save_case(tmp_path, small, reading, board, kind=UNREADABLE, now=clock(2), max_cases=2)
    assert first and second
    assert save_case(tmp_path, small, reading, board, kind=UNREADABLE, now=clock(3), max_cases=2) is None
    report = save_case(tmp_path, small, reading, board, kind=REPORT, now=clock(4), max_cases=2)
    assert list_cases(tmp_path) == [second, report]
    latest = save_case(tmp_path, small, reading, board, kind=REPORT, now=clock(5), max_cases=2)
    assert list_cases(tmp_path) == [report, latest]
    # every case kept is now a report: a further one is refused, and the size cap counts too
    assert save_case(tmp_path, small, reading, board, kind=REPORT, now=clock(6), max_cases=2) is None
    assert save_case(tmp_path / "other", small, reading, board, max_bytes=1000) is None


def test_all_cases_export_as_one_archive_that_unpacks_to_loadable_cases(tmp_path, table):
    frame, board, reading = table
    with pytest.raises(CaseError, match="no cases"):
        export_cases(tmp_path, tmp_path / "out.tar.gz")
    for second in (1, 2):
        save_case(tmp_path, frame[:300, :300], reading, board, PROFILE if second == 1 else None, now=clock(second))
    archive = export_cases(tmp_path, tmp_path)
    assert archive == tmp_path / "thoughtwave-cases.tar.gz"
    with tarfile.open(archive) as tar:
        names = sorted(tar.getnames())
        tar.extractall(tmp_path / "unpacked", filter="data")
    assert names == ["cases/20261123-101501-report-1/case.json", "cases/20261123-101501-report-1/frame.png",
                     "cases/20261123-101501-report-1/profile.json", "cases/20261123-101502-report-1/case.json",
                     "cases/20261123-101502-report-1/frame.png"]
    assert [load_case(p).profile is None for p in list_cases(tmp_path / "unpacked")] == [False, True]


def test_the_first_unreadable_frames_of_a_game_are_kept_a_few_a_game(tmp_path, table):
    frame, board, _ = table
    cells = {c: CellReading.empty() for c in CELLS} | {Cell.parse("E5"): CellReading.unreadable()}
    stuck, fine = BoardReading(True, cells), BoardReading(True, {c: CellReading.empty() for c in CELLS})
    small = frame[:100, :100]
    capture = UnreadableCapture(per_game=2, gap_seconds=10)
    book = CaseBook(tmp_path)

    def offer(t: float, reading: BoardReading) -> bool:
        if not capture.take(t, reading):
            return False
        book.save(small, reading, board, UNREADABLE, capture.note(reading))
        return True

    assert not offer(0.0, fine)
    assert offer(1.0, stuck)
    assert not offer(5.0, stuck)          # the same stall
    assert offer(20.0, stuck)
    assert not offer(40.0, stuck)         # two a game
    capture.new_game()
    assert offer(41.0, stuck)
    kept = [load_case(p) for p in list_cases(tmp_path)]
    assert [c.kind for c in kept] == [UNREADABLE] * 3 and "E5" in kept[0].note


def test_a_damaged_case_is_refused_with_its_reason(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "case.json").write_text("{not json")
    with pytest.raises(CaseError, match="not a readable case"):
        load_case(tmp_path / "x")
    (tmp_path / "x" / "case.json").write_text(json.dumps({"kind": "thoughtwave-case"}))
    with pytest.raises(CaseError, match="no readable frame.png"):
        load_case(tmp_path / "x")


def misread(path: Path) -> list[str]:
    """The cells of a case read as something other than what lies there (its checked truth, else the board)."""
    case = load_case(path)
    reading = Recognizer(case.profile).read(case.frame)
    assert reading.board_found
    expected = case.expected()
    return [f"{c}: {r.label()}" for c, r in reading.cells.items() if r.state is not CellState.UNREADABLE
            and r.label() != expected.get(str(c), "empty")]


@pytest.mark.parametrize("path", sorted(p for p in REGRESSION_CASES.glob("*") if p.is_dir()), ids=lambda p: p.name)
def test_a_case_from_a_real_table_is_never_read_confidently_wrong(path):
    assert misread(path) == []


def test_a_case_whose_truth_differs_from_what_is_read_fails_the_regression_check(tmp_path, table):
    frame, board, reading = table
    path = save_case(tmp_path, frame, reading, board, now=clock())
    assert misread(path) == []
    record = json.loads((path / "case.json").read_text())
    cell, what = next(iter(board.items()))
    record["truth"] = {**board, cell: "black n" if what != "black n" else "red n"}  # as a checker would write it
    (path / "case.json").write_text(json.dumps(record))
    assert [m.split(":")[0] for m in misread(path)] == [cell]


def test_cases_export_on_the_command_line_bundles_every_case(tmp_path, capsys):
    state = tmp_path / "state"
    assert main(["cases", "export", "--state-dir", str(state), "--out", str(tmp_path / "a.tar.gz")]) == 1
    assert "no cases" in capsys.readouterr().err
    frame = np.zeros((48, 64, 3), np.uint8)
    save_case(state, frame, {"board_found": False, "cells": {}}, {})
    assert main(["cases", "export", "--state-dir", str(state), "--out", str(tmp_path / "a.tar.gz")]) == 0
    with tarfile.open(tmp_path / "a.tar.gz") as archive:
        assert any(name.startswith("cases/") for name in archive.getnames())

"""Cases from real tables, end to end: "Report a misread" through the HTTP API with the PIN keeps the frame, the
reading, the board and the profile, and the case reads the same again (``load_case``, ``thoughtwave
recognize``); the first unreadable frames of a game are kept automatically, a few a game, off the camera
thread; a state directory that cannot be written never stops the game and the API says why in one line;
an automatic next game that cannot be stored keeps the current one and shows the problem."""

import json
import logging
import tarfile
from pathlib import Path

import numpy as np
import pytest
from doubles import FAST, Driver, read_only, scripted, state

from thoughtwave.calibration.profile import Profile, save_profile
from thoughtwave.cases import UNREADABLE, CaseBook, list_cases, load_case
from thoughtwave.cli import main
from thoughtwave.engine import CELLS, Cell, Colour, Piece, Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, ScriptFrame, StorageError, Store
from thoughtwave.game.seams import vision_watcher_factory
from thoughtwave.synth import Scene, render
from thoughtwave.vision.reading import BoardReading, CellReading
from thoughtwave.vision.watch import Watcher
from thoughtwave.webui.app import create_app, load_secret_key

PIN = "864213"
PROFILE = Profile((1280, 960), ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)), 36.0, {"redness_split": 0.17})


@pytest.fixture(scope="module")
def picture():
    frame, _ = render(Scene.random(23, level="medium", hand=False))
    return frame


class Camera:
    """A synthetic camera: the same rendered picture, ten frames a second of frame time."""

    def __init__(self, image: np.ndarray) -> None:
        self.image, self.index = image, 0

    def read(self) -> ScriptFrame:
        self.index += 1
        return ScriptFrame(self.index, self.index / 10, self.image)

    def close(self) -> None:
        pass


class ScriptedReader:
    """A reader that reads what it is told: the ``tiles`` (a red ``ew`` on E5 to start with), and with
    ``unreadable`` F6 unreadable; the picture itself is ignored."""

    pose_moved = False

    def __init__(self) -> None:
        self.unreadable = False
        self.tiles = {"E5": (Colour.RED, "ew")}

    def read(self, image: np.ndarray) -> BoardReading:
        cells = {c: CellReading.empty() for c in CELLS}
        for cell, (colour, arms) in self.tiles.items():
            cells[Cell.parse(cell)] = CellReading.tile(colour, Piece.parse(arms))
        if self.unreadable:
            cells[Cell.parse("F6")] = CellReading.unreadable()
        return BoardReading(True, cells)

    def draw_overlay(self, image: np.ndarray) -> np.ndarray:
        return image


def login(client) -> str:
    csrf = client.get("/api/session").get_json()["csrf"]
    response = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf})
    assert response.status_code == 200
    return response.get_json()["csrf"]


def report(app, body: dict | None = None, logged_in: bool = True):
    client = app.test_client()
    csrf = login(client) if logged_in else client.get("/api/session").get_json()["csrf"]
    return client.post("/api/cases/report", json=body or {}, headers={"X-CSRF-Token": csrf})


def app_for(companion: Companion, tmp_path: Path):
    return create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path / "key"), threads=4)


def feed(companion: Companion, camera: Camera, frames: int) -> None:
    """Show ``frames`` frames, each time letting an automatic case finish saving (the test then knows)."""
    for _ in range(frames):
        companion.process(camera.read())
        assert companion.cases_settled(30)


@pytest.fixture
def stopping():
    made: list[Companion] = []
    yield made.append
    for companion in made:
        companion.stop()


# ---- Report a misread ------------------------------------------------------------------------------------

def test_report_a_misread_keeps_the_frame_reading_board_and_profile_and_it_reads_the_same_again(
        tmp_path, picture, stopping, capsys):
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    save_profile(PROFILE, state_dir / "profile.json")
    companion = Companion(Store(":memory:"), Rules(), lambda: Camera(picture),
                          vision_watcher_factory(0.4, PROFILE.reader_profile()), FAST,
                          cases=CaseBook(state_dir, state_dir / "profile.json"))
    stopping(companion)
    feed(companion, Camera(picture), 8)
    live = companion.watcher.reading
    assert live is not None and live.board_found

    assert report(app_for(companion, tmp_path), logged_in=False).status_code == 401   # the PIN first
    assert list_cases(state_dir) == []
    answer = report(app_for(companion, tmp_path), {"note": "E5 is red's bend"})
    assert answer.status_code == 200, answer.get_json()
    data = answer.get_json()
    path = Path(data["case"]["path"])
    assert list_cases(state_dir) == [path] and data["case"]["name"] == path.name
    assert data["done"]["status"] == "applied"
    assert path.name in data["done"]["message"] and str(state_dir / "cases") in data["done"]["message"]
    assert "game" in data and "moves" in data           # the state, as every control action answers

    case = load_case(path)
    assert np.array_equal(case.frame, picture) and case.note == "E5 is red's bend" and case.kind == "report"
    assert case.reading == live.to_json()
    assert case.board == {str(c): f"{colour.value} {piece}"
                          for c, (colour, piece) in companion.watcher.table.expected().items()}
    assert Profile.from_json(case.profile) == PROFILE
    # what the README tells a user to run on it
    assert main(["recognize", str(path / "frame.png"), "--profile", str(path / "profile.json")]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["cells"] == case.reading["cells"] and again["unreadable"] == case.reading["unreadable"]
    # and what a user sends: every case in one archive
    archive = tmp_path / "cases.tar.gz"
    assert main(["cases", "export", "--state-dir", str(state_dir), "--out", str(archive)]) == 0
    with tarfile.open(archive) as tar:
        assert sorted(tar.getnames()) == [f"cases/{path.name}/{f}" for f in ("case.json", "frame.png", "profile.json")]


def test_a_report_with_no_picture_yet_or_no_state_directory_saves_nothing_and_says_so(tmp_path, companion,
                                                                                       stopping):
    # the shared companion keeps no cases (no state directory)
    answer = report(app_for(companion, tmp_path))
    assert answer.status_code == 409 and "no state directory" in answer.get_json()["error"]
    # a scripted game gives no pictures: nothing to keep
    game = ScriptedGame(["red ew@E5"])
    with_cases = Companion(Store(":memory:"), Rules(), lambda: ScriptedSource(50, realtime=False), game.watcher,
                           FAST, cases=CaseBook(tmp_path / "state"))
    stopping(with_cases)
    Driver(with_cases, game).steps(1)
    answer = report(app_for(with_cases, tmp_path))
    assert answer.status_code == 409
    assert answer.get_json() == {"error": "Nothing was saved: the camera has not given a picture yet. Try again "
                                          "once it shows the board."}
    assert list_cases(tmp_path / "state") == []
    # a note that is not text is refused before anything is saved
    assert report(app_for(with_cases, tmp_path), {"note": 5}).status_code == 400


# ---- automatic capture -------------------------------------------------------------------------------------

def reading_companion(image: np.ndarray, book: CaseBook) -> tuple[Companion, ScriptedReader]:
    reader = ScriptedReader()
    companion = Companion(Store(":memory:"), Rules(), lambda: Camera(image),
                          lambda table: Watcher(table=table, stable_seconds=0.3, reader=reader), FAST, cases=book)
    return companion, reader


def test_the_first_unreadable_frames_of_a_game_are_kept_as_cases_a_few_a_game(tmp_path, picture, stopping):
    image = picture[::4, ::4].copy()         # a small picture: quick to save
    state_dir = tmp_path / "state"
    companion, reader = reading_companion(image, CaseBook(state_dir, per_game=2, gap_seconds=2.0))
    stopping(companion)
    camera = Camera(image)
    feed(companion, camera, 20)               # steady and readable: E5 ruled, nothing kept
    assert [m["move"] for m in state(companion)["moves"]] == ["ew@E5"] and list_cases(state_dir) == []
    reader.unreadable = True
    feed(companion, camera, 100)              # ten seconds of a stall on F6
    kept = [load_case(p) for p in list_cases(state_dir)]
    assert [c.kind for c in kept] == [UNREADABLE] * 2                  # capped: two a game
    assert all(c.note == "unreadable: F6" and c.reading["unreadable"] == ["F6"] for c in kept)
    assert kept[0].board == {"E5": "red ew"} and np.array_equal(kept[0].frame, image)
    assert kept[0].profile is None            # no calibration profile in use
    companion.new_game()
    feed(companion, camera, 20)
    assert len(list_cases(state_dir)) == 3    # a new game, a new allowance


def test_a_hand_or_a_moving_board_is_never_kept_only_a_steady_board_with_an_unreadable_cell(tmp_path, picture,
                                                                                            stopping):
    state_dir = tmp_path / "state"
    companion, reader = reading_companion(picture[::4, ::4].copy(), CaseBook(state_dir))
    stopping(companion)
    reader.unreadable = True
    feed(companion, Camera(picture[::4, ::4].copy()), 2)     # not yet steady
    assert list_cases(state_dir) == []
    feed(companion, Camera(picture[::4, ::4].copy()), 10)
    assert len(list_cases(state_dir)) == 1


# ---- a state directory that cannot be written ----------------------------------------------------------------

def unwritable_game_goes_on(tmp_path: Path, state_dir: Path, image: np.ndarray, caplog, stopping) -> str:
    """An unreadable stall: the case cannot be written, one line is logged, and the game goes on (the next
    piece is ruled); a report answers 503 with one line. That line."""
    companion, reader = reading_companion(image, CaseBook(state_dir))
    stopping(companion)
    camera = Camera(image)
    feed(companion, camera, 10)
    reader.unreadable = True
    with caplog.at_level(logging.WARNING, logger="thoughtwave.game.loop"):
        feed(companion, camera, 10)
    lines = [r.getMessage() for r in caplog.records if r.name == "thoughtwave.game.loop"]
    assert len(lines) == 1 and lines[0].startswith("could not keep an unreadable frame as a case: cannot write")
    reader.unreadable = False
    reader.tiles["F5"] = (Colour.BLACK, "ew")
    feed(companion, camera, 150)      # a changed cell is trusted once it reads the same for a while
    assert [m["move"] for m in state(companion)["moves"]] == ["ew@E5", "ew@F5"]   # the game went on
    answer = report(app_for(companion, tmp_path))
    assert answer.status_code == 503
    error = answer.get_json()["error"]
    assert error.startswith("Nothing was saved: ") and "cannot be written" in error and "\n" not in error
    return error


def test_a_read_only_state_directory_never_stops_the_game_and_the_report_says_why(tmp_path, picture, caplog,
                                                                                 stopping):
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    with read_only(state_dir):
        error = unwritable_game_goes_on(tmp_path, state_dir, picture[::4, ::4].copy(), caplog, stopping)
    assert "Read-only file system" in error and list_cases(state_dir) == []


def test_a_state_directory_that_is_not_a_folder_never_stops_the_game_either(tmp_path, picture, caplog, stopping):
    (tmp_path / "file").write_text("not a folder")
    error = unwritable_game_goes_on(tmp_path, tmp_path / "file" / "state", picture[::4, ::4].copy(), caplog,
                                    stopping)
    assert str(tmp_path / "file" / "state" / "cases") in error


def test_a_full_case_folder_refuses_a_report_with_advice(tmp_path, picture, stopping):
    state_dir = tmp_path / "state"
    companion, _ = reading_companion(picture[::4, ::4].copy(), CaseBook(state_dir, max_cases=1))
    stopping(companion)
    feed(companion, Camera(picture[::4, ::4].copy()), 3)
    assert report(app_for(companion, tmp_path)).status_code == 200
    answer = report(app_for(companion, tmp_path))
    assert answer.status_code == 409 and "thoughtwave cases export" in answer.get_json()["error"]
    assert len(list_cases(state_dir)) == 1


# ---- an automatic next game that cannot be stored ------------------------------------------------------------

def test_a_next_game_that_cannot_be_stored_keeps_this_one_and_shows_why(caplog):
    class FullDisk(Store):
        full = True

        def replace_game(self, *args, **kwargs):
            if self.full:
                raise StorageError("database or disk is full")
            return super().replace_game(*args, **kwargs)

    companion, game = scripted([], store=FullDisk(":memory:"))
    try:
        driver = Driver(companion, game)
        driver.play("red ew@E5")
        first = companion.game.id
        companion.end()
        with caplog.at_level(logging.WARNING, logger="thoughtwave.game.session"):
            shown = driver.play("clear")            # raised in the camera thread before
        assert companion.game.id == first
        lines = [r.getMessage() for r in caplog.records if r.name == "thoughtwave.game.session"]
        assert lines == [f"could not start the next game after game {first}: database or disk is full"]
        storage = [f["message"] for f in shown["flags"] if f["kind"] == "storage"]
        assert storage == [f"could not start the next game (database or disk is full); game {first} stays on the "
                           "display: start a new game on the control page"]
        driver.play("black ns@E6")                  # the loop goes on
        companion.store.full = False
        companion.new_game()                        # the problem goes with the game that ends
        assert not [f for f in state(companion)["flags"] if f["kind"] == "storage"]
    finally:
        companion.stop()


# ---- the button, in a browser --------------------------------------------------------------------------------

@pytest.mark.browser
def test_the_report_button_says_which_case_it_saved_and_where(chromium, tmp_path, picture):
    expect = pytest.importorskip("playwright.sync_api").expect
    from serving import serving

    state_dir = tmp_path / "state"
    image = picture[::4, ::4].copy()
    companion, _ = reading_companion(image, CaseBook(state_dir))
    feed(companion, Camera(image), 3)       # not started: the frames are given here
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=6)
    context = chromium.new_context(viewport={"width": 800, "height": 480})
    try:
        with serving(app, threads=6) as url:
            page = context.new_page()
            page.goto(url + "/login")
            page.fill('input[name="pin"]', PIN)
            page.get_by_role("button", name="Unlock").click()
            expect(page.get_by_role("heading", name="Control")).to_be_visible()
            page.fill('#report input[name="note"]', "E5 is a red bend")
            page.get_by_role("button", name="Report a misread").click()
            result = page.locator("section", has=page.locator("#report")).get_by_role("status")
            expect(result).to_contain_text("as case ", timeout=10_000)
            expect(page.locator('#report input[name="note"]')).to_have_value("")
            (path,) = list_cases(state_dir)
            expect(result).to_contain_text(f"{path.name} in {path.parent}")
            assert load_case(path).note == "E5 is a red bend"
            companion.stop()
    finally:
        context.close()
        companion.stop()

"""Analysis on the display: each player's placements still needed (now and over the game, for the chart)
and the threats (cells where one placement connects), in the state, on the board and on the page."""


import pytest
from doubles import Driver, shown
from serving import serving

import thoughtwave.game.session as session_module
from thoughtwave.engine import Colour, Referee, Rules
from thoughtwave.engine.analysis import analyse_game
from thoughtwave.game import Companion, Opponent, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.webui.app import create_app, load_secret_key

# Red lays row 5 from the west (five straights, two crosses, two junctions); Black answers along row 1.
ROW = ["red ew@A5", "black ew@A1", "red ew@B5", "black ew@B1", "red ew@C5", "black ew@C1", "red ew@D5",
       "black ew@D1", "red ew@E5", "black ew@E1", "red nesw@F5", "black esw@F1", "red nesw@G5", "black esw@G1",
       "red esw@H5", "black nesw@A3", "red esw@I5"]


def companion_for(script: list[str]) -> Driver:
    """A companion over ``script``, driven frame by frame, its first state published."""
    game = ScriptedGame(script, frames_per_step=1)
    companion = Companion(Store(":memory:"), Rules(), lambda: ScriptedSource(50, realtime=False), game.watcher,
                          Settings(speech=False))
    companion.refresh()
    return Driver(companion, game)


def play(drive: Driver, frames: int) -> dict:
    return drive.frames(frames)


def replayed(state: dict) -> list[dict]:
    """The chart's points worked out afresh from the moves shown (what the companion must agree with)."""
    referee = Referee()
    for m in state["moves"]:
        referee.play(f"{m['colour']} {m['move']}")
    return [{"n": a.n, "red": a.distance[Colour.RED], "black": a.distance[Colour.BLACK]} for a in analyse_game(referee)]


def test_the_state_carries_the_distances_and_one_point_per_position_for_the_chart():
    companion = companion_for(ROW[:4] + ["red ns@B4"])
    state = shown(companion.companion.state())
    assert state["analysis"]["history"] == [{"n": 0, "red": 10, "black": 10}]
    state = play(companion, 6)
    history = state["analysis"]["history"]
    assert [h["n"] for h in history] == [0, 1, 2, 3, 4, 5]
    assert [h["red"] for h in history[:5]] == [10, 9, 9, 8, 8]        # each ew on row 5 brings Red one closer
    assert state["moves"][-1]["verdict"] == "illegal"                  # an illegal piece is a position too
    assert history == replayed(state)
    assert state["analysis"]["distance"] == {"red": history[-1]["red"], "black": history[-1]["black"]}


def test_a_player_one_placement_away_is_a_threat_in_the_state_on_the_board_and_in_words():
    companion = companion_for(ROW)
    state = play(companion, len(ROW) + 1)
    assert state["next"] == "black" and state["analysis"]["distance"]["red"] == 1
    assert state["analysis"]["threats"] == {"red": ["J5"], "black": []}
    assert '<rect class="threat threat-red" data-cell="J5"' in state["svg"]
    companion.game.steps.append("black nesw@J5")      # Black blocks
    state = play(companion, 2)
    assert state["moves"][-1]["verdict"] == "legal" and state["analysis"]["threats"]["red"] == []
    assert "threat-red" not in state["svg"]


def test_the_analysis_follows_undo_and_corrections_and_replays_the_game_only_when_it_must(monkeypatch):
    calls = []
    whole = session_module.analyse_game
    monkeypatch.setattr(session_module, "analyse_game", lambda referee: calls.append(1) or whole(referee))
    companion = companion_for(ROW[:6] + ["wait 30"])
    state = play(companion, 40)                # six verdicts and many quiet frames
    assert len(state["analysis"]["history"]) == 7 and len(calls) == 1
    state = shown(companion.companion.undo())
    assert len(state["analysis"]["history"]) == 6 and state["analysis"]["history"] == replayed(state)
    assert len(calls) == 1                     # taken back: the earlier points are kept, not recomputed
    state = shown(companion.companion.correct("A5", "red", "nesw"))
    assert state["analysis"]["history"] == replayed(state) and len(calls) == 2


def test_the_analysis_is_not_worked_out_per_frame(monkeypatch):
    calls = []
    one = session_module.analyse
    monkeypatch.setattr(session_module, "analyse", lambda referee: calls.append(1) or one(referee))
    companion = companion_for(["red ew@E5", "wait 50", "black ew@E1"])
    play(companion, 60)
    assert len(calls) == 2                     # one per verdict, none for the 50 quiet frames


# ---- on the page ---------------------------------------------------------------------------------------

class Fixed:
    """A computer that always answers ns@J10."""

    def __init__(self, opponent):
        pass

    def search(self, referee):
        from thoughtwave.engine import Move
        from thoughtwave.engine.ai import Choice

        return Choice(Move.parse("ns@J10"), referee.to_move, 0.5, 0.0, 1, 1)


@pytest.fixture
def served(tmp_path):
    game = ScriptedGame(ROW[:15], frames_per_step=2)
    store = Store.in_dir(tmp_path)
    companion = Companion(store, Rules(), lambda: ScriptedSource(20), game.watcher, Settings(speech=False),
                          make_computer=Fixed)
    app = create_app(companion, pin="1357", secret_key=load_secret_key(tmp_path), threads=6)
    with serving(app, threads=6) as url:
        yield url, companion, game
        companion.stop()
    store.close()


@pytest.mark.browser
def test_the_chart_the_threat_and_the_computers_instruction_show_on_the_page(served, page):
    expect = pytest.importorskip("playwright.sync_api").expect
    url, companion, game = served
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.add_init_script("""
        window.said = [];
        class Utterance { constructor(text) { this.text = text; } }
        window.SpeechSynthesisUtterance = Utterance;
        const voice = {cancel() {}, speak(u) { window.said.push(u.text); }};
        Object.defineProperty(window, "speechSynthesis", {value: voice});
        localStorage.setItem("thoughtwave-speech", "on");""")
    page.goto(url + "/")
    companion.start()
    expect(page.locator("#chart-legend .needs.red")).to_have_text("Red needs 2", timeout=15_000)
    expect(page.locator("#chart-legend .needs.black")).to_have_text("Black needs 9")
    assert page.locator("#chart polyline.line.red").count() == 1
    assert page.locator("#chart polyline.line.black").count() == 1
    expect(page.locator("#threats")).to_be_hidden()
    # Red's next piece on row 5 leaves one placement to go: the threat shows on the board and in words.
    game.steps += ROW[15:]
    expect(page.locator("#threats .threat.red")).to_have_text("Red threatens to connect at J5", timeout=10_000)
    expect(page.locator('#board rect.threat-red[data-cell="J5"]')).to_have_count(1)
    # A new game against the computer (Black), Black to move: its instruction shows.
    companion.new_game(Rules(first=Rules().first.other), "Ann", "", Opponent(Rules().first.other, 1, 0.5))
    instruction = page.locator("#instruction")
    expect(instruction).to_be_visible(timeout=10_000)
    expect(page.locator("#instruction-text")).to_have_text("Black plays straight ns at J10")
    expect(page.locator("#instruction-detail")).to_have_text("Lay the black straight so its wave runs north and south")
    expect(page.locator('#board g.ghost.black[data-cell="J10"]')).to_have_count(1)
    expect(page.locator("#turn")).to_have_text("Computer to move")
    expect(page.locator("#turn")).to_have_class("turn black")
    said = page.evaluate("window.said")
    assert said.count("Black plays the straight, north and south, at J 10") == 1      # spoken once
    assert errors == []

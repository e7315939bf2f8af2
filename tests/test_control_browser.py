"""The control page in a real browser, on the Pi's 800x480 screen and on a phone: End game asks first and
then says what it did, the message is in view, and the "This game" card follows the event stream."""

import pytest
from doubles import Driver
from serving import serving

from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.webui.app import create_app, load_secret_key

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PIN = "1357"


@pytest.fixture
def served(tmp_path):
    game = ScriptedGame([])
    store = Store.in_dir(tmp_path)
    companion = Companion(store, Rules(), lambda: ScriptedSource(20), game.watcher, Settings(speech=False))
    companion.refresh()           # not started: the test lays the pieces frame by frame
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=6)
    with serving(app, threads=6) as url:
        yield url, companion, Driver(companion, game)
        companion.stop()
    store.close()


def _unlocked(chromium, url: str, width: int, height: int, mobile: bool = False):
    context = chromium.new_context(viewport={"width": width, "height": height}, is_mobile=mobile)
    page = context.new_page()
    page.goto(url + "/login")
    page.fill('input[name="pin"]', PIN)
    page.get_by_role("button", name="Unlock").click()
    expect(page.get_by_role("heading", name="Control")).to_be_visible()
    return context, page


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    view = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= view["height"] and box["x"] >= 0 \
        and box["x"] + box["width"] <= view["width"]


def test_end_game_asks_first_then_ends_it_and_says_so_on_the_pi_screen(chromium, served):
    url, companion, driver = served
    context, page = _unlocked(chromium, url, 800, 480)
    try:
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        summary = page.locator("#game-summary")
        driver.play("red ew@E5")
        expect(summary).to_contain_text("Black to move; 1 move so far.", timeout=10_000)   # live, no reload
        page.get_by_role("button", name="End game").click()
        question = page.get_by_role("group").filter(has_text="End this game now")
        expect(question).to_be_visible()
        page.get_by_role("button", name="No, keep playing").click()
        expect(question).to_be_hidden()
        assert not companion.game.ended, "nothing is ended before the player says yes"
        page.get_by_role("button", name="End game").click()
        page.get_by_role("button", name="Yes, end the game").click()
        result = page.locator("section", has=page.locator("#game-summary")).get_by_role("status").last
        expect(result).to_have_text(f"Game {companion.game.id} has ended after 1 move, with no winner. Clear the "
                                    "board to start the next game, or start a new one below.")
        assert _in_view(page, result), "the message is on the 800x480 screen"
        expect(summary).to_contain_text("Ended with no winner after 1 move")
        expect(page.get_by_role("button", name="End game")).to_be_disabled()
        assert companion.game.ended and errors == []
    finally:
        context.close()


def test_a_refused_correction_is_an_alert_in_view_on_a_phone(chromium, served):
    url, companion, driver = served
    context, page = _unlocked(chromium, url, 390, 844, mobile=True)
    try:
        driver.play("red ew@E5")
        page.fill('#correct input[name="cell"]', "B2")
        page.fill('#correct input[name="piece"]', "ns")
        expect(page.locator("#whose")).to_be_visible()
        page.fill('#correct input[name="piece"]', "")
        expect(page.locator("#whose")).to_be_hidden()      # no piece: whose it is does not apply
        page.get_by_role("button", name="Correct").click()
        alert = page.get_by_role("alert")
        expect(alert).to_have_text("The game has nothing on B2 to take away.")
        assert _in_view(page, alert)
        computer = page.locator("#computer-fields")
        expect(computer).to_be_hidden()                  # two people: the computer's fields do not apply
        page.select_option("#computer", "black")
        expect(computer).to_be_visible()
    finally:
        context.close()


def test_the_arrow_keys_step_through_a_past_game(chromium, served):
    url, companion, driver = served
    driver.play("red ew@E5", "black ns@A1", "red ew@F5")
    context = chromium.new_context(viewport={"width": 800, "height": 480})
    page = context.new_page()
    try:
        page.goto(f"{url}/games/{companion.game.id}?move=1")
        status = page.locator("aside [role=status]")
        expect(status).to_contain_text("Move 1 of 3: Red ew@E5.")
        page.wait_for_load_state()             # each step loads a page: its key handler is set up at load
        page.keyboard.press("ArrowRight")
        expect(status).to_contain_text("Move 2 of 3: Black ns@A1.")
        expect(page.locator('svg g.tile[data-cell="A1"]')).to_have_count(1)
        page.wait_for_load_state()
        page.keyboard.press("ArrowLeft")
        expect(status).to_contain_text("Move 1 of 3: Red ew@E5.")
        page.wait_for_load_state()
        page.keyboard.press("Home")
        expect(status).to_contain_text("Before the first move.")
        expect(page.locator("svg g.tile")).to_have_count(0)
        page.get_by_role("link", name="Last").click()
        expect(status).to_contain_text("Move 3 of 3: Red ew@F5.")
    finally:
        context.close()

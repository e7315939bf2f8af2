"""The display in a real browser: the game plays on the page, flags come and go, the winner is announced,
and a control action without the PIN is refused. Served by waitress, fed by a fast scripted game."""

import re

import pytest
from serving import serving

from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.webui.app import create_app, load_secret_key

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

# Red joins west to east along row 5; Black's illegal piece on A6 is flagged until taken off.
GAME = ["red ew@A5", "black ns@A6", "wait 10", "off A6", "red ew@B5", "red ew@C5", "black ns@A1", "red ew@D5",
        "black ns@C1", "red ew@E5", "black ns@E1", "red nesw@F5", "black ns@G1", "red nesw@G5", "black nes@I1",
        "red esw@H5", "black nesw@A3", "red esw@I5", "black nesw@C3", "red esw@J5"]


@pytest.fixture
def served(tmp_path):
    """The app on 127.0.0.1 (a free port) in a waitress thread, the scripted game stepping every 0.1 s."""
    game = ScriptedGame(GAME, frames_per_step=2)
    store = Store.in_dir(tmp_path)
    companion = Companion(store, Rules(), lambda: ScriptedSource(20), game.watcher, Settings(speech=False))
    app = create_app(companion, pin="1357", secret_key=load_secret_key(tmp_path), threads=6)
    with serving(app, threads=6) as url:
        yield url, companion
        companion.stop()          # streams end when the companion stops
    store.close()


def test_the_demo_game_plays_on_the_page_flags_clear_and_the_winner_is_announced(served, page):
    url, companion = served
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url + "/")
    expect(page.locator("#connection")).to_be_hidden()
    companion.start()         # the game starts once the page is watching
    expect(page.locator("#moves li").last).to_contain_text("ew@A5", timeout=10_000)   # newest first
    flag = page.locator('#flags .flag[data-cells="A6"]')
    expect(flag).to_be_visible(timeout=10_000)
    expect(flag).to_contain_text("Take the black straight ns off A6; it is out of the game; Black misses a turn")
    expect(page.locator('svg g.flag[data-cell="A6"]')).to_have_count(1)
    expect(flag).to_have_count(0, timeout=10_000)         # taken off: the flag clears itself
    expect(page.locator("#winner")).to_be_visible(timeout=20_000)
    expect(page.locator("#winner-text")).to_have_text("Red wins!")
    expect(page.locator("#turn")).to_have_text("Red has won")
    assert page.locator("#moves li").count() == len([s for s in GAME if "@" in s])
    expect(page.locator("svg g.tile.red")).to_have_count(10)
    page.locator("#winner-close").click()
    expect(page.locator("#winner")).to_be_hidden()
    assert errors == []


def test_a_control_action_without_the_pin_is_refused_in_the_browser(served, page):
    url, companion = served
    companion.start()
    page.goto(url + "/control")
    expect(page.get_by_text("Enter the PIN")).to_be_visible()
    status = page.evaluate("""async () => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        const r = await fetch('/api/game/end', {method: 'POST', headers: {'X-CSRF-Token': token}});
        return [r.status, (await r.json()).error];
    }""")
    assert status[0] == 401 and "PIN" in status[1]
    page.goto(url + "/login")
    page.fill('input[name="pin"]', "0000")
    page.click("button[type=submit]")
    expect(page.locator("#login-error")).to_have_text("wrong PIN")
    page.fill('input[name="pin"]', "1357")
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(r"/control$"))
    expect(page.get_by_role("button", name="Take back the last move")).to_be_visible()
    first_game = companion.game.id
    page.get_by_role("button", name="End game").click()
    page.get_by_role("button", name="Yes, end the game").click()
    expect(page.get_by_role("status").filter(has_text="has ended")).to_contain_text(f"Game {first_game} has ended")
    assert companion.game.id == first_game and companion.game.ended
    page.fill('#correct input[name="cell"]', "Q99")
    page.get_by_role("button", name="Correct").click()
    expect(page.locator("#correct ~ .result")).to_contain_text("has ended: start a new game first")


def test_the_page_reads_on_a_phone(chromium, served):
    url, companion = served
    companion.start()
    context = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(url + "/")
    expect(page.locator("#board svg")).to_be_visible()
    # Measure the board's box, not the SVG: each frame from the running camera replaces the SVG inside it,
    # and a replaced element has no box.
    board = page.locator("#board").bounding_box()
    assert board["width"] > 330 and board["x"] >= 0      # the board fills the phone's width, not wider
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()

"""Every page at the five screen classes (the Pi's 7-inch 800x480, 1024x600, 1280x800, a 1920x1080 TV and a
390x844 phone) in three states of a game (mid-game, a flag showing, the winner announced): the live page fits
without page scroll with its board, status and flags in view, its landmarks are there, the winner's dialog
takes focus and closes on Escape without starting anything, and axe-core finds nothing on any page.

One browser for the module and one server per state (``displaystates.served_state``); each size is one
browser context, logged in once, that visits every page.
"""

from __future__ import annotations

import json
from contextlib import ExitStack

import pytest
from displaystates import MOVES, PIN, STATES, served_state

pytestmark = pytest.mark.browser
pytest.importorskip("playwright.sync_api")
#: axe-core as shipped by axe-playwright-python; loaded once into each browser context.
AXE_SCRIPT = pytest.importorskip("axe_playwright_python.base").AXE_SCRIPT

SIZES = [(800, 480), (1024, 600), (1280, 800), (1920, 1080), (390, 844)]
PAGES = ["/", "/control", "/login", "/games", "/games/1", "/calibrate"]
#: Pages a player taps: every control on them is at least 44x44 px (WCAG 2.5.5).
TAPPED = {"/", "/control", "/login", "/calibrate"}
MIN_TARGET = 44

# The interactive elements of a page with their box (a checkbox counts with its label, which takes the tap).
TARGETS_JS = """() => [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, summary')]
  .filter((el) => el.offsetParent !== null && !el.closest('p, li, td') && !el.closest('[hidden]'))
  .map((el) => {
    const label = el.closest('label');
    const box = (label && (el.type === 'checkbox' || el.type === 'radio') ? label : el).getBoundingClientRect();
    return {what: el.outerHTML.slice(0, 80), w: box.width, h: box.height};
  })"""


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """A function giving (base URL, companion) of the server holding the game in a state: each state's
    server starts when first asked for and serves every test of the module."""
    with ExitStack() as stack:
        started: dict[str, tuple] = {}

        def server(name: str) -> tuple:
            if name not in started:
                started[name] = stack.enter_context(served_state(name, tmp_path_factory.mktemp(name)))
            return started[name]

        yield server


def _inside(box: dict | None, width: int, height: int) -> bool:
    return (box is not None and box["width"] > 0 and box["x"] >= -0.5 and box["y"] >= -0.5
            and box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5)


def _axe_problems(page, where: str) -> list[str]:
    """axe-core's violations on the page as it stands (every rule axe runs by default)."""
    violations = page.evaluate("() => axe.run(document, {resultTypes: ['violations']}).then((r) => r.violations)")
    return [f"{where}: axe {v['id']} ({v['impact']}) at {[n['target'] for n in v['nodes']][:4]}: {v['help']}"
            for v in violations]


def _live_checks(page, name: str, width: int, height: int) -> list[str]:
    """The live page at one size: no page scroll, the board large and whole, status and flags in view."""
    where = f"{name} {width}x{height} /"
    problems = []
    scroll = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    if scroll[0] > width or scroll[1] > height:
        problems.append(f"{where}: the page scrolls ({scroll[0]}x{scroll[1]})")
    board = page.locator("#board svg[role=img]").bounding_box()
    if not _inside(board, width, height):
        problems.append(f"{where}: the board is not wholly in view ({board})")
    elif board["width"] < 0.8 * min(width, height) or (width, height) == (800, 480) and board["width"] < 400:
        problems.append(f"{where}: the board is only {board['width']:.0f} px")
    status = page.locator("[role=status]#now")
    if not _inside(status.bounding_box(), width, height):
        problems.append(f"{where}: the status (turn, pieces left) is not in view")
    if status.locator("#turn").inner_text().strip() == "" or status.locator("#left").count() != 1:
        problems.append(f"{where}: the status region lacks the turn or the pieces left")
    flags = page.locator("[role=alert]#flags")
    if name == "flag" and not _inside(flags.bounding_box(), width, height):
        problems.append(f"{where}: the flags are not in view")
    if page.locator("h1").count() != 1:
        problems.append(f"{where}: {page.locator('h1').count()} level-one headings")
    return problems


def _targets(page, where: str) -> list[str]:
    small = [t for t in page.evaluate(TARGETS_JS) if t["w"] < MIN_TARGET - 0.5 or t["h"] < MIN_TARGET - 0.5]
    return [f"{where}: a {t['w']:.0f}x{t['h']:.0f} px target: {t['what']}" for t in small]


def _focus_ring(page, where: str) -> list[str]:
    """Tab to the first control: its outline is solid and at least 2 px wide."""
    page.keyboard.press("Tab")
    ring = page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
        return [document.activeElement.tagName, s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
    if ring[0] == "BODY" or ring[1] == "none" or ring[2] < 2:
        return [f"{where}: no visible focus ring on the first control ({ring})"]
    return []


def _open(page, url: str, path: str) -> None:
    page.goto(url + path)
    if path == "/":
        page.wait_for_selector("body[data-version]")   # the first state has been drawn
    else:
        page.wait_for_load_state("load")


@pytest.mark.parametrize("name", STATES)
def test_every_page_fits_reads_and_passes_axe_at_every_size(name, servers, chromium):
    url, _ = servers(name)
    problems: list[str] = []
    for width, height in SIZES:
        context = chromium.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500,
                                       has_touch=width < 500)
        context.add_init_script(script=AXE_SCRIPT)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err, errors=errors: errors.append(str(err)))
        page.goto(url + "/login")
        page.fill('input[name="pin"]', PIN)
        page.click("button[type=submit]")
        page.wait_for_url("**/control")
        for path in PAGES:
            where = f"{name} {width}x{height} {path}"
            _open(page, url, path)
            if path == "/":
                problems += _live_checks(page, name, width, height)
            problems += _axe_problems(page, where)
            if path in TAPPED:
                problems += _targets(page, where)
            if (width, height) == (1280, 800) and path in TAPPED and name == "midgame":
                problems += _focus_ring(page, where)
        problems += [f"{name} {width}x{height}: script error {e}" for e in errors]
        context.close()
    assert problems == [], "\n".join(problems)


def test_the_flags_show_one_banner_per_kind_saying_what_to_do(servers, page):
    url, _ = servers("flag")
    _open(page, url, "/")
    banners = page.locator("#flags[role=alert] .flag")
    assert banners.count() == 2
    clear = page.locator('#flags .flag[data-kind="clear-board"]')
    cells = [m.split("@")[1] for m in MOVES]
    assert clear.inner_text() == f"Clear the board: 17 pieces are still on it ({', '.join(sorted(cells, key=_order))})"
    assert sorted(clear.get_attribute("data-cells").split()) == sorted(cells)
    assert "off the board" in page.locator('#flags .flag[data-kind="hand"]').inner_text()
    assert page.locator("svg g.flag").count() == 17


def _order(cell: str) -> tuple[int, str]:
    return int(cell[1:]), cell[0]          # the board's order: row by row, west to east


def test_the_winner_dialog_takes_focus_and_escape_closes_it_without_a_new_game(servers, page):
    url, companion = servers("winner")
    game = companion.game.id
    _open(page, url, "/")
    dialog = page.get_by_role("dialog")
    assert dialog.is_visible() and dialog.get_attribute("aria-modal") == "true"
    assert page.locator("#winner-text").inner_text() == "Red wins!"
    assert page.evaluate("document.getElementById('winner').contains(document.activeElement)")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "winner-close"     # the focus stays in the dialog
    page.keyboard.press("Escape")
    assert dialog.is_hidden()
    assert page.locator("#turn").inner_text() == "Red has won"               # the board stays as it is
    assert companion.game.id == game and companion.state().winner is not None
    page.reload()
    page.wait_for_selector("body[data-version]")
    page.get_by_role("button", name="Back to the board").click()
    assert dialog.is_hidden() and companion.game.id == game
    # only the winner's wave is lit: the crosses on F5 and G5 light their west-east arms, not north-south
    lit = json.loads(page.evaluate("""JSON.stringify([...document.querySelectorAll('#board g.tile path.win')]
        .map((p) => [p.parentNode.dataset.cell, p.getAttribute('d')]))"""))
    assert [cell for cell, _ in lit] == [m.split("@")[1] for m in MOVES + ["red esw@J5"] if m.startswith("red")]
    assert all("L50 0" not in d and "L50 100" not in d for _, d in lit)
    assert page.locator("#board rect.side-red.win").count() == 2
    assert page.locator("#board rect.side-black.win").count() == 0


@pytest.mark.parametrize("size", [(800, 480), (1024, 600)])
def test_on_a_short_screen_the_calibration_buttons_and_verdict_are_in_view(servers, chromium, size):
    # The Pi's own screen is where the board is calibrated: the picture sits beside the steps, so Check, Save and
    # what the check said are above the fold (stacked, Check fell at 500 px of 480); the details follow below.
    from playwright.sync_api import expect
    url, _ = servers("midgame")
    width, height = size
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(url + "/login")
        page.fill('input[name="pin"]', PIN)
        page.click("button[type=submit]")
        page.wait_for_url("**/control")
        _open(page, url, "/calibrate")
        page.click("#check")
        expect(page.locator("#result")).not_to_be_empty()
        for selector in ("#check", "#save", "#reset", "#result"):
            assert _inside(page.locator(selector).bounding_box(), width, height), selector
        # a camera picture, once it streams, keeps within the screen too
        top, most = page.evaluate("""() => { const img = document.getElementById('preview');
            return [img.getBoundingClientRect().top, parseFloat(getComputedStyle(img).maxHeight)]; }""")
        assert top + most <= height
    finally:
        context.close()


#: The longest camera status the live page can show, in the page's own words and format (10 frames a second).
LONGEST_STATUS_JS = """() => { const text = JSON.parse(document.getElementById('live').dataset.text);
  return Object.values(text.statuses).map((s) => text.fps.replace('{status}', s).replace('{fps}', '10'))
    .reduce((a, b) => (a.length >= b.length ? a : b)); }"""
HEADER_JS = """(status) => { const camera = document.getElementById('camera');
  if (status !== null) camera.textContent = status;
  const header = document.querySelector('header.top').getBoundingClientRect().height;
  const board = document.querySelector('#board svg[role=img]').getBoundingClientRect().width;
  return [header, board, camera.textContent]; }"""


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_live_page_keeps_its_board_in_every_language_whatever_the_camera_says(servers, chromium, lang):
    # French and German words are longer: on the Pi's 800x480 the header took two rows in both and the board lost
    # 44 px, and in English too while a hand was over the board, so the board shrank and grew as hands passed.
    url, _ = servers("flag")
    problems: list[str] = []
    for width, height in SIZES:
        context = chromium.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500,
                                       has_touch=width < 500)
        page = context.new_page()
        try:
            page.goto(f"{url}/?lang={lang}")
            page.wait_for_selector("body[data-version]")
            where = f"{lang} {width}x{height}"
            problems += [f"{where}: {p}" for p in _live_checks(page, "flag", width, height)]
            header, board, _ = page.evaluate(HEADER_JS, None)
            longest = page.evaluate(LONGEST_STATUS_JS)
            header_long, board_long, shown = page.evaluate(HEADER_JS, longest)
            if shown != longest:
                problems.append(f"{where}: the status was not set ({shown!r})")
            if width > height and header > 50:
                problems.append(f"{where}: the header takes {header:.0f} px, more than one row")
            if (header_long, board_long) != (header, board):
                problems.append(f"{where}: with the status {longest!r} the header went from {header:.0f} to "
                                f"{header_long:.0f} px and the board from {board:.0f} to {board_long:.0f} px")
        finally:
            context.close()
    assert problems == [], "\n".join(problems)

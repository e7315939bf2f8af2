"""Shared fixtures: a companion over an empty scripted game (the pages and API tests drive it), and headless
system Chromium through Playwright (tests marked ``browser``)."""

from pathlib import Path

import pytest

from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture
def game():
    """An empty scripted game: a test lays pieces with ``Driver(companion, game).play``."""
    return ScriptedGame([])


@pytest.fixture
def settings():
    """The companion's settings; a test module overrides this fixture to change them."""
    return Settings()


@pytest.fixture
def companion(game, settings):
    """A companion over ``game``, not started (requests see the published state, tests drive the game);
    stopped after the test."""
    companion = Companion(Store(":memory:"), Rules(), lambda: ScriptedSource(50, realtime=False), game.watcher,
                          settings)
    companion.refresh()
    yield companion
    companion.stop()


@pytest.fixture(scope="session")
def chromium():
    """A headless Chromium for the session; the test is skipped when the system has none."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    # A page's answer may take longer than Playwright's 5 s on a loaded machine (the full suite beside a render):
    # waiting longer changes no verdict, it only keeps a slow machine from failing a test.
    sync_api.expect.set_options(timeout=15_000)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    """A fresh page (own cookies and storage) with a laptop-sized window."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    yield page
    context.close()

"""The README's screenshots of the live display at each screen class, remade from scripted games.

Serves the display in a known state (``tests/displaystates.py``: the same scripted games the browser tests
use), opens it in headless Chromium at each size and saves ``docs/display-WxH.png``, quantised to 256
colours so each stays small. Needs /usr/bin/chromium and the dev extra (Playwright).

    .venv/bin/python bench/screenshots.py [--out docs]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from displaystates import served_state  # noqa: E402  (a helper of the tests, found through sys.path)
from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

#: (width, height, state, close the winner's dialog): each screen class in the state that shows it best.
SHOTS = [
    (800, 480, "flag", False),      # the Pi's 7-inch touchscreen: a new game with the last one's pieces still down
    (1024, 600, "midgame", False),
    (1280, 800, "winner", False),   # the winner's dialog over the board
    (1920, 1080, "winner", True),   # then the board: only the winner's wave and edges lit
    (390, 844, "midgame", False),   # a phone across the table
]


def save_small(png: bytes, path: Path) -> int:
    """Write ``png`` as a 256-colour PNG; its size in bytes."""
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT)
    image.save(path, optimize=True)
    return path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs"), help="folder for the PNGs (default docs/)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for state in dict.fromkeys(shot[2] for shot in SHOTS):
            with served_state(state, Path(tmp) / state) as (url, _):
                for width, height, shot_state, close in SHOTS:
                    if shot_state != state:
                        continue
                    context = browser.new_context(viewport={"width": width, "height": height},
                                                  is_mobile=width < 500, has_touch=width < 500)
                    page = context.new_page()
                    page.emulate_media(reduced_motion="reduce")      # no pulse caught half-way
                    page.goto(url + "/")
                    page.wait_for_selector("body[data-version]")
                    if close:
                        page.keyboard.press("Escape")
                    page.evaluate("document.activeElement && document.activeElement.blur()")
                    path = out / f"display-{width}x{height}.png"
                    size = save_small(page.screenshot(), path)
                    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {size // 1024} KB")
                    context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

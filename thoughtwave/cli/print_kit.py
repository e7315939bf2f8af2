"""``thoughtwave print-kit --out kit.pdf [--paper a4|a3|letter] [--cell-mm MM]`` / ``--png DIR [--dpi N]``.

Writes the printable board and both tile sets: a PDF at exact physical size, and/or the PNG set with
board.json (the pixel map of board.png) that the synthetic camera and tests use. Prints one JSON line
saying what was written; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from thoughtwave.calibration.lens import sheet_art
from thoughtwave.cli.errors import UsageError
from thoughtwave.cli.rulesargs import sides_argument
from thoughtwave.engine import ALL_SIDES, Sides
from thoughtwave.i18n import LANGUAGES, terminal_language
from thoughtwave.kit import write_pdf, write_png_set
from thoughtwave.vision.artwork import BoardLayout

PAPERS = ("a4", "a3", "letter")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="PDF", help="write the print kit as a PDF (e.g. kit.pdf)")
    parser.add_argument("--paper", default="a4", type=str.lower, choices=PAPERS,
                        help="paper the PDF is laid out for (default a4); the board is split over sheets as needed")
    parser.add_argument("--cell-mm", type=float, default=25.0, metavar="MM",
                        help="edge of a board cell in mm, 20 to 40 (default 25); tiles are 0.96 of it")
    parser.add_argument("--png", metavar="DIR", help="write board.png, board.json and the 30 tile PNGs to DIR")
    parser.add_argument("--dpi", type=int, default=200, metavar="N", help="resolution of the PNGs (default 200)")
    parser.add_argument("--red-sides", default=Sides.WE, type=sides_argument, choices=ALL_SIDES,
                        help=f"the sides Red joins, marked red on the board (default {Sides.WE}: {Sides.WE.names})")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the language of the kit's printed words (default: the terminal's locale, else en)")
    parser.add_argument("--lens-sheet", action="store_true",
                        help="also print the ChArUco lens sheet (a PDF page; charuco.png with --png) for calibrate")


def _progress(message: str) -> None:
    print(f"print-kit: {message}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if not args.out and not args.png:
        raise UsageError("print-kit needs --out FILE.pdf, --png DIR or both")
    if not 20.0 <= args.cell_mm <= 40.0:  # also refuses NaN
        raise UsageError(f"--cell-mm {args.cell_mm:g} is outside 20..40 mm")
    if not 25 <= args.dpi <= 1200:
        raise UsageError(f"--dpi {args.dpi} is outside 25..1200")
    if args.out:
        out = Path(args.out)
        if out.is_dir() or not out.parent.is_dir():
            raise UsageError(f"cannot write the PDF to {args.out!r}: not a file in an existing folder")
    if args.png and Path(args.png).exists() and not Path(args.png).is_dir():
        raise UsageError(f"--png {args.png!r} is a file, not a folder")

    layout = BoardLayout(args.cell_mm)
    sheets = (sheet_art(),) if args.lens_sheet else ()
    summary: dict = {"cell_mm": layout.cell_mm, "board_mm": [layout.width_mm, layout.height_mm],
                     "tile_mm": round(layout.tile_mm, 3)}
    try:
        if args.out:
            kit = write_pdf(args.out, layout, paper=args.paper, red_sides=args.red_sides, progress=_progress,
                            sheets=sheets, lang=args.lang or terminal_language())
            summary.update(pdf=str(args.out), paper=args.paper, pages=kit.pages, board_sheets=kit.board_sheets)
        if args.png:
            files = write_png_set(args.png, layout, dpi=args.dpi, red_sides=args.red_sides, progress=_progress,
                                  sheets=sheets)
            summary.update(png=str(args.png), dpi=args.dpi, files=len(files))
    except OSError as err:
        raise UsageError(f"cannot write the kit: {err.strerror or err}") from None
    print(json.dumps(summary))
    return 0

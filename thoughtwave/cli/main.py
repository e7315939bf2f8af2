"""``thoughtwave``: the command line. Each command lives in a ``webui.cmd_*`` module that defines
``add_arguments(parser)`` and ``run(args) -> int``; heavy imports (OpenCV, Flask) happen in ``run``.

Exit codes: 0 done, 1 the thing asked for was not found, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from thoughtwave.cli.errors import NotFound, UsageError

#: (command, module, one-line help), in the order ``--help`` lists them.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("referee", "thoughtwave.webui.cmd_referee", "referee typed moves (or camera frames): one JSON line per attempt"),
    ("legal", "thoughtwave.webui.cmd_legal", "which pieces the side to move may place on a cell"),
    ("recognize", "thoughtwave.webui.cmd_recognize", "one photo of the board in, the board as JSON out"),
    ("play", "thoughtwave.webui.cmd_play", "a game in the terminal"),
    ("hint", "thoughtwave.webui.cmd_hint", "the computer's move for the side to move"),
    ("serve", "thoughtwave.webui.cmd_serve", "the companion: camera, referee and the live display in a browser"),
    ("calibrate", "thoughtwave.webui.cmd_calibrate",
     "check the camera and the printed board, and write the calibration profile"),
    ("print-kit", "thoughtwave.webui.cmd_print_kit", "the printable board and tiles: a PDF at exact size, or PNGs"),
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line on stderr, exit 2
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The full parser, every command registered."""
    parser = _Parser(prog="thoughtwave", description="A camera referee for Thoughtwave.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, module_name, help_text in COMMANDS:
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``thoughtwave`` console script."""
    try:
        args = build_parser().parse_args(argv)
        return int(args._run(args) or 0)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except NotFound as err:
        print(f"not found: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""``thoughtwave``: the command line. Each command lives in a module of its own that defines
``add_arguments(parser)`` and ``run(args) -> int``. Only the module of the command being run is imported
(the COMMANDS table holds the one-line help), so ``thoughtwave legal`` never loads OpenCV or Flask.

Exit codes: 0 done, 1 the thing asked for was not found, 2 bad input or a file or disk that failed (one
line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys
from collections.abc import Sequence

from thoughtwave.cli.errors import NotFound, UsageError

#: (command, module, one-line help), in the order ``--help`` lists them.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("referee", "thoughtwave.cli.referee", "referee typed moves (or camera frames): one JSON line per attempt"),
    ("legal", "thoughtwave.cli.legal", "which pieces the side to move may place on a cell"),
    ("recognize", "thoughtwave.cli.recognize", "one photo of the board in, the board as JSON out"),
    ("play", "thoughtwave.cli.play", "a game in the terminal"),
    ("hint", "thoughtwave.cli.hint", "the computer's move for the side to move"),
    ("serve", "thoughtwave.cli.serve", "the companion: camera, referee and the live display in a browser"),
    ("calibrate", "thoughtwave.cli.calibrate",
     "check the camera and the printed board, and write the calibration profile"),
    ("print-kit", "thoughtwave.cli.print_kit", "the printable board and tiles: a PDF at exact size, or PNGs"),
    ("cases", "thoughtwave.cli.cases", "the saved misread cases: list them, or export them as one archive to send"),
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line on stderr, exit 2
        raise UsageError(f"{self.prog}: {message}")


def _chosen(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top level has only -h)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser with every command listed; the arguments of the command ``argv`` names are registered
    (its module imported), or every command's when ``argv`` is None."""
    chosen = None if argv is None else _chosen(argv)
    parser = _Parser(prog="thoughtwave", description="A camera referee for Thoughtwave.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, module_name, help_text in COMMANDS:
        command = sub.add_parser(name, help=help_text, description=help_text)
        if argv is None or name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(command)
            command.set_defaults(run_command=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``thoughtwave`` console script: runs the command ``argv`` (default
    ``sys.argv[1:]``) names and returns its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(argv).parse_args(argv)
        return int(args.run_command(args) or 0)
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
    except OSError as err:   # a file or the disk failed where the command did not expect it: still one line
        print(f"error: {os_error_text(err)}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of memory", file=sys.stderr)
        return 2


def os_error_text(err: OSError) -> str:
    """One line for an OSError: a full disk says so and where to free space (as the display does), anything
    else names the file and the reason."""
    where = f" {err.filename}" if err.filename is not None else ""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full: free space on the disk holding{where or ' the files written'}"
    reason = err.strerror or str(err)
    return f"cannot use{where}: {reason}" if where else reason

"""``thoughtwave cases export [--out F]``: the saved misread cases (frame, reading, board, profile) in one archive."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from thoughtwave.cases import CaseError, export_cases, list_cases
from thoughtwave.cli.errors import NotFound, UsageError
from thoughtwave.cli.profiles import load_config_or_usage


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("export", "list"),
                        help="export: one .tar.gz of every case; list: their names")
    parser.add_argument("--out", metavar="F", default="thoughtwave-cases.tar.gz",
                        help="the archive to write (a folder gets thoughtwave-cases.tar.gz inside it)")
    parser.add_argument("--state-dir", metavar="DIR", help="where the companion keeps its games and cases")
    parser.add_argument("--config", metavar="FILE", help="TOML config (default: /etc/thoughtwave/config.toml if there)")


def run(args: argparse.Namespace) -> int:
    config = load_config_or_usage(args.config, args.state_dir)
    if args.action == "list":
        for case in list_cases(config.state_dir):
            print(case.name)
        return 0
    try:
        out = export_cases(config.state_dir, Path(args.out))
    except CaseError as err:
        raise NotFound(str(err)) from None
    except OSError as err:
        raise UsageError(f"cannot write {args.out}: {err.strerror or err}") from None
    print(json.dumps({"archive": str(out), "cases": len(list_cases(config.state_dir))}))
    return 0

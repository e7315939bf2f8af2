"""The one build step pyproject.toml cannot declare: compile the message catalogs (.po -> .mo) at install.

The .po files are the source kept in git; the .mo files are made here, for ``pip install .``, ``pip wheel .``
and ``pip install -e .`` (setuptools runs build_py for an editable install too, and the .mo files are written
beside their .po, where both the wheel's package data and the editable checkout find them).
"""

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import setup
from setuptools.command.build_py import build_py

LOCALE = Path(__file__).resolve().parent / "thoughtwave" / "i18n" / "locale"


def compile_catalogs() -> list[Path]:
    """Write messages.mo beside every messages.po under LOCALE; the .mo files written."""
    written = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as source:
            catalog = read_po(source)
        mo = po.with_suffix(".mo")
        with mo.open("wb") as out:
            write_mo(out, catalog)
        written.append(mo)
    return written


class BuildWithCatalogs(build_py):
    """build_py that compiles the catalogs first, so the package data it copies includes them."""

    def run(self) -> None:
        for mo in compile_catalogs():
            self.announce(f"compiled {mo.relative_to(LOCALE.parent.parent.parent)}", level=2)
        super().run()


setup(cmdclass={"build_py": BuildWithCatalogs})

"""The calibration checks in the players' language: their names, their marks, and what each measured and advises.

``calibration.checks`` words every measure and advice as ``engine.phrases.Words`` (English text that keeps a
phrase code and its values); ``words`` says one whole in French or German. Text that carries no phrase (a
profile read back from its file, or a check made elsewhere) stays as written.

>>> from thoughtwave.calibration.checks import cell_size_check
>>> check = cell_size_check(24.0)
>>> words(Text("fr"), check.advice)
"abaissez la caméra d'environ 14 % de sa hauteur, ou choisissez une résolution plus élevée"
>>> check_name(Text("de"), check.name), check_mark(Text("de"), "warn")
('Pixel pro Feld', 'Warnung')
"""

from __future__ import annotations

from collections.abc import Callable

from thoughtwave.calibration.checks import NAMED_CELLS
from thoughtwave.engine.phrases import said_as
from thoughtwave.i18n import Text
from thoughtwave.i18n.phrases import LOST_CAUSES, lost_reason


def check_name(t: Text, name: str) -> str:
    """A check's name (``"focus"``) as the page shows it; an unknown name as it is."""
    names = {
        "markers": t.pgettext("check", "markers"),
        "board in frame": t.pgettext("check", "board in frame"),
        "pixels per cell": t.pgettext("check", "pixels per cell"),
        "focus": t.pgettext("check", "focus"),
        "exposure": t.pgettext("check", "exposure"),
        "glare": t.pgettext("check", "glare"),
        "colour separation": t.pgettext("check", "colour separation"),
        "lens model": t.pgettext("check", "lens model"),
    }
    return names.get(name, name)


def check_mark(t: Text, status: str) -> str:
    """``ok``, ``warn`` or ``FAIL`` (a check's status) as the page marks it."""
    return {"ok": t.pgettext("check", "ok"), "warn": t.pgettext("check", "warn"),
            "FAIL": t.pgettext("check", "FAIL")}.get(status, status)


def _side(t: Text, side: str) -> str:
    return {"left": t.pgettext("picture", "left"), "right": t.pgettext("picture", "right"),
            "top": t.pgettext("picture", "top"), "bottom": t.pgettext("picture", "bottom")}[side]


def _and(t: Text, items: list[str]) -> str:
    """``"top and left"``: items listed the language's way."""
    said = items[0]
    for item in items[1:]:
        said = t.gettext("%(first)s and %(second)s", first=said, second=item)
    return said


def cell_list(t: Text, cells: tuple[str, ...] | list[str]) -> str:
    """``"E5, F6 and 3 more"``: the first cells named, the rest counted."""
    named = ", ".join(cells[:NAMED_CELLS])
    if len(cells) <= NAMED_CELLS:
        return named
    return t.ngettext("%(cells)s and %(num)d more", "%(cells)s and %(num)d more", len(cells) - NAMED_CELLS,
                      cells=named)


def _lens_fit(t: Text, v: dict) -> str:
    return t.gettext("reprojection %(rms)s px from %(used)s of %(given)s pictures (focal %(focal)s px, k1 %(k1)s)",
                     rms=t.number(v["rms"], "0.00"), used=v["used"], given=v["given"], focal=v["focal"],
                     k1=t.number(v["k1"], "+0.000;-0.000"))


def _light(t: Text, v: dict) -> str:
    glare = t.ngettext("%(num)d cell with glare", "%(num)d cells with glare", v["glare"])
    shadow = t.ngettext("%(num)d in shadow", "%(num)d in shadow", v["shadow"])
    return t.gettext("%(glare)s, %(shadow)s; the paper from %(dark)s to %(bright)s of 255", glare=glare,
                     shadow=shadow, dark=v["dark"], bright=v["bright"])


_SAY: dict[str, Callable[[Text, dict], str]] = {
    "markers-none": lambda t, v: t.gettext("%(n)s of 8 board markers seen, no board found", n=v["n"]),
    "markers-none-advice": lambda t, v: t.gettext(
        "lay the printed board under the camera with its corner and edge markers in view; if it is in view, the "
        "picture is too blurred or too dark: focus the lens and add light"),
    "markers-some": lambda t, v: t.gettext("%(n)s of 8 found", n=v["n"]),
    "markers-missing-advice": lambda t, v: t.ngettext(
        "uncover or bring into view the missing marker so that a hand over the board never hides too many",
        "uncover or bring into view the %(num)d missing markers so that a hand over the board never hides too many",
        v["missing"]),
    "markers-all": lambda t, v: t.gettext("8 of 8 found"),
    "off-frame": lambda t, v: t.gettext("the grid runs off the %(sides)s of the picture",
                                        sides=_and(t, [_side(t, s) for s in v["sides"]])),
    "off-frame-advice": lambda t, v: t.gettext("raise the camera about 10 cm, or move it over the middle of the board"),
    "in-frame": lambda t, v: t.gettext("the whole grid is in the picture"),
    "cell-px": lambda t, v: t.gettext("cells are %(px)s px wide (the reader wants %(good)s or more)", px=v["px"],
                                      good=v["good"]),
    "cell-px-advice": lambda t, v: t.gettext(
        "lower the camera by about %(percent)s%% of its height, or choose a higher camera resolution",
        percent=v["percent"]),
    "no-edge": lambda t, v: t.gettext("no marker edge to measure"),
    "no-edge-advice": lambda t, v: t.gettext("bring the markers into view"),
    "edges": lambda t, v: t.gettext("edges %(width)s px wide (%(percent)s%% of a cell)",
                                    width=t.number(v["width"], "0.0"), percent=v["percent"]),
    "focus-advice": lambda t, v: t.gettext(
        "focus the lens on the board, wipe it clean, and make sure the camera mount does not shake"),
    "paper": lambda t, v: t.gettext("paper at %(level)s of 255, %(percent)s%% of the board clipped white",
                                    level=v["level"], percent=v["percent"]),
    "over-exposed": lambda t, v: t.gettext("the picture is over-exposed: lower the camera's exposure or dim the lamp"),
    "too-dark": lambda t, v: t.gettext("too dark: add light over the board or raise the exposure"),
    "a-little-dark": lambda t, v: t.gettext("a little dark: more light will make reading surer"),
    "no-reflections": lambda t, v: t.gettext("no reflections on the cells"),
    "reflections": lambda t, v: t.ngettext("reflections on %(num)d cell: %(cells)s",
                                           "reflections on %(num)d cells: %(cells)s", v["num"], cells=v["cells"]),
    "reflections-advice": lambda t, v: t.gettext(
        "turn the lamp away so its reflection leaves the board, or print on matt paper"),
    "not-measured": lambda t, v: t.gettext("not measured"),
    "samples-advice": lambda t, v: t.gettext(
        "lay a red tile on %(red)s and a black tile on %(black)s and calibrate again to learn this print's colours",
        red=v["red"], black=v["black"]),
    "separation": lambda t, v: t.gettext(
        "red vs black %(red_black)s, tiles vs paper %(tiles_paper)s (need %(need_red_black)s and %(need_tiles_paper)s)",
        red_black=t.number(v["red_black"], "0.00"), tiles_paper=t.number(v["tiles_paper"], "0.00"),
        need_red_black=t.number(v["need_red_black"], "0.0#"), need_tiles_paper=t.number(v["need_tiles_paper"], "0.0#")),
    "alike": lambda t, v: t.gettext("red and black tiles look alike in this light: use a whiter lamp, or print with "
                                    "stronger colour (no draft/economy mode)"),
    "like-paper": lambda t, v: t.gettext("tiles look too much like the paper: print darker (no draft mode) or "
                                         "reduce glare"),
    "light": _light,
    "glare-advice": lambda t, v: t.gettext(
        "glare on %(cells)s: turn or raise the lamp so its reflection leaves the board, tilt the board a little, "
        "or print on matt paper", cells=cell_list(t, v["cells"])),
    "shadow-advice": lambda t, v: t.gettext(
        "shadow on %(cells)s: move what casts it, or light the board from two sides", cells=cell_list(t, v["cells"])),
    "dark-advice": lambda t, v: t.gettext("part of the board is too dark to read: add light there"),
    "several": lambda t, v: t.clauses([words(t, part) for part in v["parts"]]),
    "lens-fit": _lens_fit,
    "lens-fit-flat": lambda t, v: t.gettext("%(fit)s, no tilted picture", fit=_lens_fit(t, v)),
    "lens-fit-coverage": lambda t, v: t.gettext("%(fit)s, the sheet reached %(percent)s%% of the picture",
                                                fit=_lens_fit(t, v), percent=v["percent"]),
    "lens-fit-few-tilted": lambda t, v: t.ngettext("%(fit)s, only %(num)d tilted picture",
                                                   "%(fit)s, only %(num)d tilted pictures", v["num"],
                                                   fit=_lens_fit(t, v)),
    "lens-retake": lambda t, v: t.gettext(
        "retake the sheet pictures: sharp, the sheet glued flat on card, the camera still, in good light"),
    "lens-retake-usable": lambda t, v: t.gettext(
        "retake the sheet pictures: sharp, the sheet glued flat on card, the camera still, in good light (usable as "
        "it is)"),
    "lens-tilt": lambda t, v: t.gettext("add pictures with the sheet tilted %(degrees)s-45 degrees toward the camera",
                                        degrees=t.number(v["degrees"], "0.#")),
    "lens-corners": lambda t, v: t.gettext("add pictures with the sheet near the corners and edges of the picture"),
    "lens-misfit": lambda t, v: t.gettext(
        "the saved lens model was made at %(made)s, the camera now gives %(now)s: not used", made=v["made"],
        now=v["now"] or t.gettext("another size")),
    "lens-misfit-advice": lambda t, v: t.gettext("make a new one with thoughtwave calibrate --lens-camera"),
}

# A board not found: the advice is why, as the board-lost flag says it (``thoughtwave.i18n.phrases.lost_reason``).
for _cause in LOST_CAUSES:
    _SAY[f"lost-{_cause}-advice"] = lambda t, v, cause=_cause: lost_reason(t, cause, v)


def words(t: Text, text: str | None) -> str | None:
    """A check's measure or advice in ``t``'s language (English, or text without a phrase: as it is)."""
    phrase = said_as(text)
    if text is None or t.lang == "en" or phrase is None or phrase.code not in _SAY:
        return text
    return _SAY[phrase.code](t, phrase.values)


def known_codes() -> frozenset[str]:
    """Every phrase code of the checks ``words`` says in another language."""
    return frozenset(_SAY)


__all__ = ["cell_list", "check_mark", "check_name", "known_codes", "words"]

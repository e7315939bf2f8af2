"""bench/shaken.py: every cell of every shaken frame is counted once, and the figures print with the machine and
command that produced them."""

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from shaken import main, shaken_tally  # noqa: E402


def test_each_cell_of_each_frame_is_right_unreadable_or_wrong_once():
    tally, wrong = shaken_tally(2, 5)
    assert sum(tally) == 200 and tally[2] == len(wrong)


def test_it_prints_the_figures_with_the_command(capsys):
    assert main(["--frames", "1", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "Shaken frames (1, seed 5, medium, 3-9 px smooth): 100 cells" in out
    assert "command: bench/shaken.py --frames 1 --seed 5 --level medium --blur smooth" in out


def test_the_shake_is_smooth_unless_asked_to_be_drawn_in_whole_pixels(monkeypatch):
    import shaken
    seen = []
    real = shaken.render

    def render(scene):
        seen.append(scene.optics.motion_smooth)
        return real(scene)

    monkeypatch.setattr(shaken, "render", render)
    shaken_tally(1, 5)
    shaken_tally(1, 5, smooth=False)
    assert seen == [True, False]

"""The Pi installer's pre-flight, camera and desktop: a 32-bit userland, an old Python or release, a full
disk or a machine that is no Pi is refused with one line saying what to do, before a single file changes;
Bookworm and Trixie pass without a warning; the camera found (pi, usb:N, else demo, said so) goes into the
config; apt's simplejpeg that trips on the venv's numpy is replaced by the pinned wheel; the kiosk hides
the pointer on labwc and turns screen blanking off, and uninstalling takes that back.

(tests/test_systemd.py holds the unit files and the installer's dry run; tests/installer.py the stubs.)"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from installer import SYSTEMD, commands, run_installer, run_staged, staged_root

DETECT = SYSTEMD / "detect-camera.py"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"
REAL_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

NUMPY_ABI_ERROR = ("numpy.dtype size changed, may indicate binary incompatibility. "
                   "Expected 96 from C header, got 88 from PyObject")


def tree(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path under root with its kind, mode, size, mtime and content hash."""
    found: dict[str, tuple[object, ...]] = {}
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        found[str(path.relative_to(root))] = (info.st_mode, info.st_size, info.st_mtime_ns, digest)
    return found


def os_release(tmp_path: Path, codename: str) -> str:
    path = tmp_path / "os-release"
    path.write_text(f'PRETTY_NAME="Debian GNU/Linux ({codename})"\nID=debian\nVERSION_CODENAME={codename}\n')
    return str(path)


def pi_model(tmp_path: Path, model: str = PI4) -> str:
    path = tmp_path / f"model-{hashlib.sha256(model.encode()).hexdigest()[:8]}"
    path.write_bytes(model.encode() + b"\0")   # the device tree ends the string in NUL
    return str(path)


def arch_fakes(arch: str = "arm64", kernel: str = "aarch64", python: str | None = None,
               free_kb: int | None = None) -> dict[str, str]:
    """A dpkg and uname saying this architecture; optionally a python3 of this version, a df this full."""
    fakes = {
        "dpkg": f'[ "$1" = --print-architecture ] && {{ echo {arch}; exit 0; }}\nexec /usr/bin/dpkg "$@"',
        "uname": f'[ "$1" = -m ] && {{ echo {kernel}; exit 0; }}\nexec /bin/uname "$@"',
    }
    if python:
        fakes["python3"] = f'case "$*" in *version_info*) echo {python} ;; *) exec {REAL_PYTHON} "$@" ;; esac'
    if free_kb is not None:
        fakes["df"] = (f'echo "Filesystem 1024-blocks Used Available Capacity Mounted on"\n'
                       f'echo "/dev/mmcblk0p2 30000000 29000000 {free_kb} 99% /"')
    return fakes


def pi_env(tmp_path: Path, codename: str = "bookworm", **extra: str) -> dict[str, str]:
    return {"THOUGHTWAVE_MODEL_FILE": pi_model(tmp_path), "THOUGHTWAVE_OS_RELEASE": os_release(tmp_path, codename),
            **extra}


# --- the pre-flight -----------------------------------------------------------------------------

REFUSALS = {
    "32-bit Pi OS on a Pi 3": (arch_fakes("armhf", "armv7l"), "bookworm", [
        "32-bit Raspberry Pi OS (armhf; the kernel says armv7l): numpy and OpenCV have no 32-bit wheels. "
        "Flash Raspberry Pi OS (64-bit) with Raspberry Pi Imager, then run this again"]),
    # A Pi 4 or 5 boots a 64-bit kernel under 32-bit Pi OS: uname says aarch64, dpkg still says armhf.
    "32-bit Pi OS on a Pi 4": (arch_fakes("armhf", "aarch64"), "bookworm", [
        "32-bit Raspberry Pi OS (armhf; the kernel says aarch64): numpy and OpenCV have no 32-bit wheels. "
        "Flash Raspberry Pi OS (64-bit) with Raspberry Pi Imager, then run this again"]),
    "old Python": (arch_fakes(python="3.9.2"), "bookworm", [
        "Python 3.9.2 is too old (3.11 or later needed): flash Raspberry Pi OS (64-bit) Bookworm or Trixie"]),
    "Bullseye": (arch_fakes(), "bullseye", [
        "Raspberry Pi OS Bullseye is too old: flash Raspberry Pi OS (64-bit) Bookworm or Trixie"]),
    "full card": (arch_fakes(free_kb=204800), "bookworm", [
        "only 200 MB free on / (1024 MB needed): free some (sudo apt clean; sudo apt autoremove) "
        "or use a larger SD card"]),
    "Bullseye 32-bit": (arch_fakes("armhf", "armv7l", python="3.9.2"), "bullseye", [
        "32-bit Raspberry Pi OS (armhf; the kernel says armv7l): numpy and OpenCV have no 32-bit wheels. "
        "Flash Raspberry Pi OS (64-bit) with Raspberry Pi Imager, then run this again",
        "Python 3.9.2 is too old (3.11 or later needed): flash Raspberry Pi OS (64-bit) Bookworm or Trixie",
        "Raspberry Pi OS Bullseye is too old: flash Raspberry Pi OS (64-bit) Bookworm or Trixie"]),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_the_pre_flight_refuses_with_one_line_each_and_changes_nothing(tmp_path, case):
    fakes, codename, lines = REFUSALS[case]
    root, pip_log = staged_root(tmp_path)
    before = tree(root)
    # A real run, not a dry run: the refusal must come before any change.
    result, system_calls = run_staged(tmp_path, root, "--kiosk", env=pi_env(tmp_path, codename), fakes=fakes,
                                      force=False)
    assert result.returncode == 1
    refusal = [line for line in result.stderr.splitlines() if line.startswith("install.sh: ")]
    assert refusal == [f"install.sh: {line}" for line in lines] + ["install.sh: nothing was changed"]
    assert tree(root) == before
    assert system_calls == [] and pip_log.read_text() == ""
    assert "installing the files" not in result.stdout


def test_a_machine_that_is_no_pi_is_refused_before_any_change(tmp_path):
    root, pip_log = staged_root(tmp_path)
    before = tree(root)
    env = pi_env(tmp_path, THOUGHTWAVE_MODEL_FILE=pi_model(tmp_path, "Generic x86 box"))
    result, system_calls = run_staged(tmp_path, root, env=env, fakes=arch_fakes(), force=False)
    assert result.returncode == 1
    assert "install.sh: this is not a Raspberry Pi (device-tree model: Generic x86 box)" in result.stderr
    assert tree(root) == before and system_calls == [] and pip_log.read_text() == ""


@pytest.mark.parametrize(("codename", "said"), [("bookworm", "Bookworm (Raspberry Pi OS 12)"),
                                                 ("trixie", "Trixie (Raspberry Pi OS 13)")])
def test_bookworm_and_trixie_on_arm64_are_supported_without_a_warning(tmp_path, codename, said):
    root, _ = staged_root(tmp_path)
    result, _ = run_staged(tmp_path, root, "--no-kiosk", "--camera", "demo", env=pi_env(tmp_path, codename),
                           fakes=arch_fakes(), force=False)
    assert result.returncode == 0, result.stderr
    assert f"==> found {PI4}" in result.stdout
    assert "==> userland: arm64 (64-bit)" in result.stdout
    assert f"==> release: {said}, supported" in result.stdout
    assert result.stderr == ""       # no warning at all: not the release, not the camera (--camera demo)


# --- the camera -----------------------------------------------------------------------------------

def fake_picamera2(site: Path, body: str) -> Path:
    """A picamera2 package whose Picamera2.global_camera_info() runs ``body``."""
    (site / "picamera2").mkdir(parents=True)
    (site / "picamera2" / "__init__.py").write_text(
        f"class Picamera2:\n    @staticmethod\n    def global_camera_info():\n        {body}\n")
    return site


def fake_sysfs(tmp_path: Path, nodes: dict[int, tuple[str, str, str]]) -> Path:
    """A /sys with /sys/class/video4linux/videoN: (name, index, device path under /sys/devices)."""
    sysfs = tmp_path / "fakesys"
    for number, (name, index, device) in nodes.items():
        node = sysfs / "class" / "video4linux" / f"video{number}"
        node.mkdir(parents=True)
        (node / "name").write_text(name + "\n")
        (node / "index").write_text(index + "\n")
        (sysfs / "devices" / device).mkdir(parents=True, exist_ok=True)
        (node / "device").symlink_to(sysfs / "devices" / device)
    return sysfs


# A Pi 4 with a USB webcam: the webcam's picture and metadata nodes, and the Pi's own codec node.
WEBCAM = {0: ("HD Webcam C525", "0", "platform/scb/fd500000.pcie/usb1/1-1/1-1.3/1-1.3:1.0"),
          1: ("HD Webcam C525", "1", "platform/scb/fd500000.pcie/usb1/1-1/1-1.3/1-1.3:1.0"),
          10: ("bcm2835-codec-decode", "0", "platform/soc/fe00b840.mailbox/bcm2835-codec")}
UNICAM = {0: ("unicam-image", "0", "platform/soc/fe801000.csi")}


def detect(tmp_path: Path, *args: str, site: Path | None = None, sysfs: Path | None = None) -> list[str]:
    env = {**os.environ, "THOUGHTWAVE_SYSFS": str(sysfs or tmp_path / "nothing")}
    env["PYTHONPATH"] = str(site) if site else ""
    result = subprocess.run([sys.executable, str(DETECT), *args], capture_output=True, text=True, env=env,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_a_camera_picamera2_lists_is_the_pi_camera(tmp_path):
    site = fake_picamera2(tmp_path / "site", 'return [{"Model": "imx708", "Num": 0}]')
    assert detect(tmp_path, site=site, sysfs=fake_sysfs(tmp_path, WEBCAM)) == [
        "pi", "picamera2 lists 1 camera(s): imx708"]


def test_without_a_pi_camera_the_first_usb_camera_is_taken_not_its_metadata_node_or_the_codec(tmp_path):
    site = fake_picamera2(tmp_path / "site", "return []")
    assert detect(tmp_path, site=site, sysfs=fake_sysfs(tmp_path, WEBCAM)) == [
        "usb:0", "/dev/video0: HD Webcam C525 (USB)"]


def test_with_no_camera_it_is_the_demo_and_the_reason_says_what_was_looked_at(tmp_path):
    assert detect(tmp_path) == ["demo", "picamera2 is not installed; no USB camera"]
    site = fake_picamera2(tmp_path / "site", "return []")
    assert detect(tmp_path, site=site, sysfs=fake_sysfs(tmp_path, UNICAM)) == [
        "demo", "picamera2 lists no camera; the kernel found a Pi camera (unicam-image); no USB camera"]


def test_a_broken_picamera2_is_no_camera_and_says_why(tmp_path):
    site = fake_picamera2(tmp_path / "site", f"raise ValueError({NUMPY_ABI_ERROR!r})")
    assert detect(tmp_path, site=site) == [
        "demo", f"picamera2 does not work here (ValueError: {NUMPY_ABI_ERROR}); no USB camera"]


def test_before_picamera2_is_installed_the_pre_flight_counts_a_connected_pi_camera(tmp_path):
    assert detect(tmp_path, "--preflight", sysfs=fake_sysfs(tmp_path, UNICAM)) == [
        "pi", "a Pi camera is connected (unicam-image); picamera2 is not installed"]


def test_the_stack_check_names_a_numpy_abi_break(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "simplejpeg.py").write_text(f"raise ValueError({NUMPY_ABI_ERROR!r})\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    result = subprocess.run([sys.executable, str(DETECT), "--stack"], capture_output=True, text=True, env=env,
                            timeout=60)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok numpy ") and lines[1].startswith("ok cv2 ")
    assert lines[2:] == [f"broken simplejpeg numpy-abi: ValueError: {NUMPY_ABI_ERROR}", "absent picamera2"]


@pytest.mark.parametrize("camera", ["pi", "usb", "none"])
def test_the_installer_writes_the_camera_it_finds_into_the_config(tmp_path, camera):
    root, _ = staged_root(tmp_path)
    env = pi_env(tmp_path)
    if camera == "pi":
        env["PYTHONPATH"] = str(fake_picamera2(tmp_path / "site", 'return [{"Model": "imx219", "Num": 0}]'))
    if camera == "usb":
        env["THOUGHTWAVE_SYSFS"] = str(fake_sysfs(tmp_path, WEBCAM))
    result, _ = run_staged(tmp_path, root, "--no-kiosk", env=env, fakes=arch_fakes(), force=False)
    assert result.returncode == 0, result.stderr
    text = (root / "etc/thoughtwave/config.toml").read_text()
    source = tomllib.loads(text)["camera"]["source"]
    if camera == "pi":
        assert source == "pi" and "==> camera: pi (picamera2 lists 1 camera(s): imx219)" in result.stdout
    elif camera == "usb":
        assert source == "usb:0" and "==> camera: usb:0 (/dev/video0: HD Webcam C525 (USB))" in result.stdout
    else:
        assert source == "demo"
        # The config says why, and how to change it; the pre-flight warned before anything was done.
        assert "# No camera was found when this was installed (picamera2 is not installed; no USB camera).\n" in text
        assert "set pi (a Pi camera) or usb:N (/dev/videoN)" in text
        assert result.stderr.startswith("warning: no camera found (picamera2 is not installed; no USB camera)")
    assert 'source = "pi"' not in text or camera == "pi"


def test_apts_simplejpeg_that_trips_on_the_venvs_numpy_is_replaced_by_the_pinned_wheel(tmp_path):
    root, pip_log = staged_root(tmp_path)
    broken, fixed = tmp_path / "dist-packages", tmp_path / "venv-site"
    broken.mkdir()
    fixed.mkdir()
    (broken / "simplejpeg.py").write_text(f"raise ValueError({NUMPY_ABI_ERROR!r})\n")
    env = pi_env(tmp_path, PYTHONPATH=f"{fixed}:{broken}", FIXED_SITE=str(fixed))
    result, _ = run_staged(tmp_path, root, "--no-kiosk", env=env, fakes=arch_fakes(), force=False)
    assert result.returncode == 0, result.stderr
    assert "apt's simplejpeg does not fit the venv's numpy: installing simplejpeg==1.8.2 into the venv" in result.stdout
    assert ("pip install --disable-pip-version-check --quiet --only-binary=:all: --no-deps simplejpeg==1.8.2 (wheel)"
            in pip_log.read_text().splitlines())
    # Said as found, then repaired: after the repair nothing is broken.
    said = result.stdout.splitlines()
    broken = f"==> camera stack: broken simplejpeg numpy-abi: ValueError: {NUMPY_ABI_ERROR}"
    repaired = next(n for n, line in enumerate(said) if line.startswith("==> camera stack: ok simplejpeg 1.8.2 "))
    assert said.index(broken) < repaired and [line for line in said if "broken" in line] == [broken]
    assert "broken" not in result.stderr

    again, _ = run_staged(tmp_path, root, "--no-kiosk", env=env, fakes=arch_fakes(), force=False)
    assert again.returncode == 0, again.stderr
    assert pip_log.read_text().count("simplejpeg==") == 1       # repaired once, left alone after


# --- the kiosk in the desktop user's session ----------------------------------------------------

PI_RC = """<?xml version="1.0"?>
<labwc_config>
  <keyboard>
    <keybind key="C-A-t"><action name="Execute" command="lxterminal" /></keybind>
  </keyboard>
</labwc_config>
"""


def desktop_root(tmp_path: Path) -> Path:
    """A staged root with a labwc desktop and the user alice, who runs the installer through sudo."""
    root, _ = staged_root(tmp_path)
    (root / "etc" / "xdg" / "labwc").mkdir(parents=True)
    (root / "etc" / "xdg" / "labwc" / "rc.xml").write_text(PI_RC)
    (root / "etc" / "passwd").write_text("alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / "labwc").write_text("#!/bin/sh\n")
    (root / "usr" / "bin" / "labwc").chmod(0o755)
    return root


def test_on_labwc_a_window_rule_hides_the_pointer_and_uninstalling_takes_it_out(tmp_path):
    root = desktop_root(tmp_path)
    env = pi_env(tmp_path, SUDO_USER="alice")
    first, _ = run_staged(tmp_path, root, "--kiosk", env=env, fakes=arch_fakes(), force=False)
    assert first.returncode == 0, first.stderr
    rc = root / "home" / "alice" / ".config" / "labwc" / "rc.xml"
    config = ElementTree.fromstring(rc.read_text())      # still well-formed XML
    assert config.tag == "labwc_config"
    assert config.find("keyboard/keybind").get("key") == "C-A-t"          # the system's settings kept
    rule = config.find("windowRules/windowRule")
    assert rule.get("identifier") == "chromium*"
    assert [action.get("name") for action in rule.findall("action")] == ["WarpCursor", "HideCursor"]
    assert (root / "opt/thoughtwave/kiosk-browser").read_text() == (SYSTEMD / "kiosk-browser.sh").read_text()

    second, _ = run_staged(tmp_path, root, "--kiosk", env=env, fakes=arch_fakes(), force=False)
    assert second.returncode == 0, second.stderr
    assert f"{rc} unchanged" in second.stdout

    removed, _ = run_staged(tmp_path, root, "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert rc.read_text() == PI_RC


def test_on_a_pi_desktop_raspi_config_turns_screen_blanking_off_for_the_user(tmp_path):
    apt = {"dpkg-query": "exit 1",
           "apt-cache": 'echo "$2:"; echo "  Installed: (none)"; echo "  Candidate: 1.0-1"',
           "raspi-config": "exit 0"}
    result, calls = run_installer(tmp_path, "--dry-run", "--kiosk", model=PI4, extra=apt,
                                  env={"SUDO_USER": "nobody"})
    assert result.returncode == 0, result.stderr
    assert "env SUDO_USER=nobody raspi-config nonint do_blanking 1" in commands(result.stdout)
    assert [c for c in calls if not (c.startswith("rm ") and str(tmp_path) in c)] == []

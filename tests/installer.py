"""Running systemd/install.sh in tests: stubs for every command that changes the system, a staged
--root with a venv whose pip only logs, and a record of what a real install would touch."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SYSTEMD = ROOT / "systemd"
INSTALL = SYSTEMD / "install.sh"

# What a real install would create; a dry run must leave every one as it found it.
INSTALLED_PATHS = [
    Path("/opt/thoughtwave"), Path("/etc/thoughtwave"), Path("/var/lib/thoughtwave"),
    Path("/etc/systemd/system/thoughtwave.service"), Path("/etc/systemd/user/thoughtwave-kiosk.service"),
    Path("/etc/xdg/autostart/thoughtwave-kiosk.desktop"),
]
# Commands that change a system. In the dry-run tests each is a stub on PATH that only logs its call.
MUTATING = ["apt-get", "useradd", "usermod", "userdel", "groupadd", "systemctl", "install", "chown", "chgrp",
            "chmod", "mv", "cp", "ln", "pip", "rm"]


def stub_bin(tmp_path: Path, extra: dict[str, str] | None = None) -> tuple[Path, Path]:
    """A directory of logging stubs for every system-changing command, and the log they write."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir(parents=True)
    log.touch()
    real_rm = shutil.which("rm")
    for name in MUTATING:
        # rm also really removes: install.sh cleans up its own temporary files with it.
        tail = f'exec {real_rm} "$@"\n' if name == "rm" else "exit 0\n"
        (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n{tail}')
    # python3 also answers read-only probes (its version); only "-m venv" is a change.
    real_python = shutil.which("python3")
    (bin_dir / "python3").write_text(
        f'#!/bin/sh\nif [ "$1" = -m ]; then echo "python3 $*" >> "{log}"; exit 0; fi\nexec {real_python} "$@"\n')
    for name, body in (extra or {}).items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    return bin_dir, log


def snapshot() -> dict[str, object]:
    state: dict[str, object] = {str(p): p.exists() for p in INSTALLED_PATHS}
    state["user"] = subprocess.run(["getent", "passwd", "thoughtwave"], capture_output=True).returncode
    return state


def run_installer(tmp_path: Path, *args: str, model: str | None = "Generic x86 box",
                  extra: dict[str, str] | None = None, env: dict[str, str] | None = None,
                  ) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir, log = stub_bin(tmp_path, extra)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "TMPDIR": str(tmp_path), **(env or {})}
    if model is not None:
        model_file = tmp_path / "model"
        model_file.write_bytes(model.encode() + b"\0")   # the device tree ends the string in NUL
        env["THOUGHTWAVE_MODEL_FILE"] = str(model_file)
    result = subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, env=env,
                            timeout=120, stdin=subprocess.DEVNULL)
    return result, log.read_text().splitlines()


def commands(output: str) -> list[str]:
    return [line[2:] for line in output.splitlines() if line.startswith("+ ")]


# --- a real run, staged under --root ----------------------------------------------------------

def staged_root(tmp_path: Path) -> tuple[Path, Path]:
    """A root directory whose venv already exists: its python is this project's, its pip only logs."""
    root, pip_log = tmp_path / "root", tmp_path / "pip.log"
    venv = root / "opt" / "thoughtwave" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = true\n")
    # The stub notes where it was run from (the installer must not run it inside the checkout).
    (venv / "bin" / "python").write_text(
        f'#!/bin/sh\necho "$PWD" >> "{tmp_path / "python-cwd.log"}"\nexec {Path(sys.executable)} "$@"\n')
    # The stub notes whether what it was given to build is a clean copy: the project, no venv, no git.
    # Asked for the pinned simplejpeg, it puts a working one in $FIXED_SITE (first on PYTHONPATH).
    (venv / "bin" / "pip").write_text(
        '#!/bin/sh\nfor last; do :; done\nnote=unclean\n'
        'if [ -f "$last/pyproject.toml" ] && [ -d "$last/webui" ] && [ ! -e "$last/.venv" ] && [ ! -e "$last/.git" ]; '
        'then note=clean; fi\n'
        'case "$last" in simplejpeg==*) note=wheel\n'
        '    echo "__version__ = \'${last#*==}\'" > "$FIXED_SITE/simplejpeg.py";; esac\n'
        f'echo "pip $* ($note)" >> "{pip_log}"\n')
    for tool in ("python", "pip"):
        (venv / "bin" / tool).chmod(0o755)
    pip_log.touch()
    return root, pip_log


# Only the system-wide commands are stubs here; install, mv, chmod and rm really write under --root.
SYSTEM_WIDE = ("apt-get", "useradd", "usermod", "userdel", "groupadd", "systemctl", "chown", "chgrp")


def run_staged(tmp_path: Path, root: Path, *args: str, env: dict[str, str] | None = None,
               fakes: dict[str, str] | None = None, force: bool = True,
               ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """install.sh --root ROOT (with --force unless told otherwise) and the system-wide calls it made.

    ``fakes`` are shell scripts (name: body) put first on PATH, e.g. a dpkg that says armhf."""
    bin_dir, log = tmp_path / "sysbin", tmp_path / "system.log"
    if not bin_dir.exists():
        bin_dir.mkdir()
        for name in SYSTEM_WIDE:
            (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
            (bin_dir / name).chmod(0o755)
        log.touch()
    path = f"{bin_dir}:{os.environ['PATH']}"
    if fakes:
        fake_dir = tmp_path / "fakebin"
        fake_dir.mkdir(exist_ok=True)
        for name, body in fakes.items():
            (fake_dir / name).write_text(f"#!/bin/sh\n{body}\n")
            (fake_dir / name).chmod(0o755)
        path = f"{fake_dir}:{path}"
    # No camera unless a test brings one: an empty /sys, and no picamera2 to import.
    (tmp_path / "sys").mkdir(exist_ok=True)
    environ = {**os.environ, "PATH": path, "TMPDIR": str(tmp_path), "THOUGHTWAVE_SYSFS": str(tmp_path / "sys"),
               **(env or {})}
    if "THOUGHTWAVE_MODEL_FILE" not in (env or {}):
        environ.pop("THOUGHTWAVE_MODEL_FILE", None)
    # Run from the checkout, as the README says.
    result = subprocess.run(["bash", str(INSTALL), *(["--force"] if force else []), "--root", str(root), *args],
                            capture_output=True, text=True, env=environ, timeout=120, stdin=subprocess.DEVNULL,
                            cwd=ROOT)
    return result, log.read_text().splitlines()

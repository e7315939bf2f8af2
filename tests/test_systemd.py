"""The Pi appliance: unit files that systemd accepts and that keep the sandbox and the camera, and an
installer that refuses a non-Pi, and in a dry run prints its steps and touches nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SYSTEMD = ROOT / "systemd"
SERVICE = SYSTEMD / "thoughtwave.service"
KIOSK = SYSTEMD / "thoughtwave-kiosk.service"
DESKTOP = SYSTEMD / "thoughtwave-kiosk.desktop"
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


def parse_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """A systemd unit (or .desktop) file as {section: {key: [values in order]}}; continuations joined."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    pending = ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = pending + raw.strip() if pending else raw.strip()
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("["):
            assert line.endswith("]"), f"{path.name}:{number}: broken section header"
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{path.name}:{number}: key before any section"
        key, equals, value = line.partition("=")
        assert equals and re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", key.strip()), f"{path.name}:{number}: {raw!r}"
        current.setdefault(key.strip(), []).append(value.strip())
    assert not pending, f"{path.name}: ends in a continuation"
    return sections


def one(section: dict[str, list[str]], key: str) -> str:
    values = section.get(key)
    assert values, f"{key}= missing"
    return values[-1]


# --- thoughtwave.service ----------------------------------------------------------------------

def test_the_service_runs_serve_as_an_unprivileged_user_with_the_camera_group():
    unit = parse_unit(SERVICE)
    service = unit["Service"]
    assert one(service, "ExecStart") == (
        "/opt/thoughtwave/venv/bin/thoughtwave serve --config /etc/thoughtwave/config.toml")
    assert one(service, "User") == "thoughtwave"
    assert "video" in one(service, "SupplementaryGroups").split()
    assert one(service, "StateDirectory") == "thoughtwave"
    assert one(service, "ConfigurationDirectory") == "thoughtwave"
    assert one(unit["Install"], "WantedBy") == "multi-user.target"


def test_the_service_comes_back_after_a_crash_but_not_after_a_config_mistake():
    unit = parse_unit(SERVICE)
    service = unit["Service"]
    assert one(service, "Restart") == "on-failure"
    assert re.fullmatch(r"\d+(\.\d+)?s?", one(service, "RestartSec"))
    assert "2" in one(service, "RestartPreventExitStatus").split()   # exit 2: bad config, say so and stop
    assert one(unit["Unit"], "StartLimitIntervalSec") == "0"           # never give up on a crash


@pytest.mark.parametrize(("key", "value"), [
    ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
    ("ProtectKernelTunables", "yes"), ("ProtectKernelModules", "yes"), ("ProtectKernelLogs", "yes"),
    ("ProtectControlGroups", "yes"), ("ProtectClock", "yes"), ("ProtectHostname", "yes"),
    ("RestrictNamespaces", "yes"), ("RestrictRealtime", "yes"), ("LockPersonality", "yes"),
    ("CapabilityBoundingSet", ""), ("UMask", "0077"), ("SystemCallArchitectures", "native"),
])
def test_the_service_is_hardened(key, value):
    assert one(parse_unit(SERVICE)["Service"], key) == value


def test_system_calls_address_families_and_memory_are_limited():
    service = parse_unit(SERVICE)["Service"]
    assert "@system-service" in service["SystemCallFilter"]
    families = set(one(service, "RestrictAddressFamilies").split())
    assert {"AF_UNIX", "AF_INET", "AF_INET6"} <= families <= {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    assert re.fullmatch(r"\d+[KMG]", one(service, "MemoryMax"))


def test_the_sandbox_leaves_the_camera_reachable():
    # ProtectClock= implies a device allow-list, and an allow-list closes every device not on it:
    # the camera's device classes must be listed, and nothing may hide /dev or the video group.
    service = parse_unit(SERVICE)["Service"]
    allowed = {entry.split()[0]: entry.split()[1] for entry in service["DeviceAllow"]}
    for device in ("char-video4linux", "char-media", "char-dma_heap"):
        assert allowed.get(device) == "rw", device
    assert service.get("PrivateDevices", ["no"])[-1] == "no"
    assert service.get("PrivateUsers", ["no"])[-1] == "no"          # would map the video group to nobody
    assert service.get("MemoryDenyWriteExecute", ["no"])[-1] == "no"  # left out on purpose: see the unit


def unit_copy_with_existing_binary(tmp_path: Path) -> Path:
    # systemd-analyze verify insists that ExecStart's binary exists; the real one is only on a Pi.
    copy = tmp_path / SERVICE.name
    copy.write_text(SERVICE.read_text(encoding="utf-8").replace(
        "ExecStart=/opt/thoughtwave/venv/bin/thoughtwave", "ExecStart=/bin/true"), encoding="utf-8")
    return copy


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_service_without_a_warning(tmp_path):
    result = subprocess.run(["systemd-analyze", "verify", str(unit_copy_with_existing_binary(tmp_path))],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""   # an unknown or misspelt directive is only a warning


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_rates_the_sandbox_ok(tmp_path):
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager",
                             str(unit_copy_with_existing_binary(tmp_path))],
                            capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for thoughtwave.service: (\d+\.\d+)", result.stdout)
    if found is None:
        pytest.skip(f"this systemd-analyze cannot rate unit files offline: {result.stderr.strip()[:200]}")
    assert float(found.group(1)) <= 2.5   # systemd's scale: 0 safe .. 10 exposed; "OK" is below 3


# --- the kiosk --------------------------------------------------------------------------------

def test_the_kiosk_waits_for_the_server_and_opens_it_full_screen_again_and_again():
    unit = parse_unit(KIOSK)
    service = unit["Service"]
    assert one(service, "Environment") == "THOUGHTWAVE_URL=http://127.0.0.1:8080/"
    assert one(service, "EnvironmentFile") == "-/etc/thoughtwave/kiosk.env"   # what install.sh writes
    assert "curl" in one(service, "ExecStartPre") and "until" in one(service, "ExecStartPre")
    start = one(service, "ExecStart")
    assert "--kiosk" in start and "chromium-browser" in start and "chromium)" in start
    assert "$${THOUGHTWAVE_URL}" in start        # $$: the shell, not systemd, reads the variable
    assert one(service, "Restart") == "always"
    assert "Install" not in unit                   # started by the desktop autostart, never enabled


def test_the_autostart_entry_hands_the_display_over_and_starts_the_kiosk():
    entry = parse_unit(DESKTOP)["Desktop Entry"]
    assert one(entry, "Type") == "Application"
    command = one(entry, "Exec")
    assert "import-environment WAYLAND_DISPLAY DISPLAY" in command
    assert "systemctl --user restart thoughtwave-kiosk.service" in command


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_kiosk_user_unit(tmp_path):
    (tmp_path / "run").mkdir()
    shutil.copy(KIOSK, tmp_path / KIOSK.name)
    result = subprocess.run(["systemd-analyze", "--user", "verify", str(tmp_path / KIOSK.name)],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")})
    if result.returncode != 0 and "manager" in result.stderr.lower():
        pytest.skip(f"no user manager can be simulated here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""


# --- install.sh -------------------------------------------------------------------------------

def test_the_installer_is_valid_bash():
    subprocess.run(["bash", "-n", str(INSTALL)], check=True, timeout=30)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (optional)")
def test_shellcheck_finds_nothing():
    result = subprocess.run(["shellcheck", str(INSTALL)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


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
                  extra: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir, log = stub_bin(tmp_path, extra)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "TMPDIR": str(tmp_path)}
    if model is not None:
        model_file = tmp_path / "model"
        model_file.write_bytes(model.encode() + b"\0")   # the device tree ends the string in NUL
        env["THOUGHTWAVE_MODEL_FILE"] = str(model_file)
    result = subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, env=env,
                            timeout=120, stdin=subprocess.DEVNULL)
    return result, log.read_text().splitlines()


def commands(output: str) -> list[str]:
    return [line[2:] for line in output.splitlines() if line.startswith("+ ")]


def test_a_machine_that_is_not_a_pi_is_refused_without_force(tmp_path):
    before = snapshot()
    result, calls = run_installer(tmp_path, "--dry-run", model="Generic x86 box")
    assert result.returncode == 1
    assert "not a Raspberry Pi" in result.stderr and "--force" in result.stderr
    assert commands(result.stdout) == [] and calls == []
    assert snapshot() == before


def test_this_machine_is_refused_without_force(tmp_path):
    result, _ = run_installer(tmp_path, "--dry-run", model=None)
    model = Path("/proc/device-tree/model")
    if model.exists() and b"Raspberry Pi" in model.read_bytes():
        pytest.skip("this machine is a Raspberry Pi")
    assert result.returncode == 1
    assert "not a Raspberry Pi" in result.stderr


def test_a_forced_dry_run_prints_every_step_and_touches_nothing(tmp_path):
    before = snapshot()
    result, calls = run_installer(tmp_path, "--dry-run", "--force", "--no-kiosk", model=None)
    assert result.returncode == 0, result.stderr
    steps = commands(result.stdout)
    text = "\n".join(steps)
    assert re.search(r"^python3 -m venv --system-site-packages .*/opt/thoughtwave/venv$", text, re.MULTILINE)
    # pip builds a clean copy, so no root-owned build/ or *.egg-info is left in the checkout.
    copy = re.search(rf"^copy_source {re.escape(str(ROOT))} (\S+)$", text, re.MULTILINE)
    assert copy and copy.group(1).startswith(str(tmp_path))
    assert f"/opt/thoughtwave/venv/bin/pip install --disable-pip-version-check --quiet {copy.group(1)}" in text
    assert not Path(copy.group(1)).exists()            # the copy is tidied away on exit
    assert "/etc/thoughtwave/config.toml" in text and "-m 0640 -o root -g thoughtwave" in text
    assert "install -D -m 0644 -o root -g root" in text and "/etc/systemd/system/thoughtwave.service" in text
    if before["user"] != 0:
        assert any(s.startswith("useradd --system") and "--groups video" in s and s.endswith("thoughtwave")
                   for s in steps)
    assert steps[-3:] == ["systemctl daemon-reload", "systemctl enable thoughtwave.service",
                          "systemctl restart thoughtwave.service"]
    assert "kiosk" not in text
    assert "the PIN that unlocks changes" in result.stdout
    assert "dry run done: nothing was changed" in result.stdout
    # Nothing that changes the system ran; rm only tidied the installer's own temporary files.
    assert [c for c in calls if not (c.startswith("rm ") and str(tmp_path) in c)] == []
    assert snapshot() == before


PI_APT = {
    # A fresh Raspberry Pi OS: nothing of ours installed yet, everything available from apt.
    "dpkg-query": "exit 1",
    "apt-cache": 'echo "$2:"; echo "  Installed: (none)"; echo "  Candidate: 1.0-1"',
}


def test_on_a_pi_the_dry_run_adds_picamera2_chromium_and_the_kiosk(tmp_path):
    before = snapshot()
    result, calls = run_installer(tmp_path, "--dry-run", "--kiosk", model="Raspberry Pi 5 Model B Rev 1.0",
                                  extra=PI_APT)
    assert result.returncode == 0, result.stderr
    assert "found Raspberry Pi 5 Model B Rev 1.0" in result.stdout
    steps = commands(result.stdout)
    apt = [s for s in steps if "apt-get install" in s]
    assert len(apt) == 1 and "apt-get update" in steps
    for package in ("python3-venv", "python3-picamera2", "chromium-browser", "curl", "sqlite3"):
        assert package in apt[0].split()
    assert "python3-opencv" not in apt[0]          # OpenCV comes as a pip wheel
    text = "\n".join(steps)
    assert "import\\ picamera2" in text
    for path in ("/etc/systemd/user/thoughtwave-kiosk.service", "/etc/xdg/autostart/thoughtwave-kiosk.desktop",
                 "/etc/thoughtwave/kiosk.env"):
        assert path in text
    assert [c for c in calls if not (c.startswith("rm ") and str(tmp_path) in c)] == []
    assert snapshot() == before


def test_uninstall_keeps_the_games_unless_purged(tmp_path):
    before = snapshot()
    kept, _ = run_installer(tmp_path / "a", "--dry-run", "--uninstall")   # removing needs no Pi, no --force
    assert kept.returncode == 0, kept.stderr
    text = "\n".join(commands(kept.stdout))
    assert "rm -rf /opt/thoughtwave" in text and "/etc/systemd/system/thoughtwave.service" in text
    assert "/var/lib/thoughtwave" not in text
    assert "games kept in /var/lib/thoughtwave" in kept.stdout

    purged, _ = run_installer(tmp_path / "b", "--dry-run", "--force", "--uninstall", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert "rm -rf /var/lib/thoughtwave /etc/thoughtwave" in "\n".join(commands(purged.stdout))
    assert snapshot() == before


@pytest.mark.parametrize(("args", "message"), [
    (["--dry-run", "--force", "--frobnicate"], "unknown option --frobnicate"),
    (["--dry-run", "--force", "--purge"], "--purge only goes with --uninstall"),
    (["--dry-run", "--force", "--source", "/nonexistent/checkout"], "no such directory"),
    (["--dry-run", "--force", "--source", "/"], "has no pyproject.toml"),
])
def test_bad_options_are_refused_with_exit_2(tmp_path, args, message):
    result, calls = run_installer(tmp_path, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert commands(result.stdout) == [] and calls == []


def test_help_describes_the_options(tmp_path):
    result, _ = run_installer(tmp_path, "--help")
    assert result.returncode == 0
    for option in ("--dry-run", "--force", "--uninstall", "--purge", "--no-kiosk"):
        assert option in result.stdout


# --- a real run, staged under --root ----------------------------------------------------------

def staged_root(tmp_path: Path) -> tuple[Path, Path]:
    """A root directory whose venv already exists: its python is this project's, its pip only logs."""
    root, pip_log = tmp_path / "root", tmp_path / "pip.log"
    venv = root / "opt" / "thoughtwave" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = true\n")
    (venv / "bin" / "python").write_text(f'#!/bin/sh\nexec {Path(sys.executable)} "$@"\n')
    # The stub notes whether what it was given to build is a clean copy: the project, no venv, no git.
    (venv / "bin" / "pip").write_text(
        '#!/bin/sh\nfor last; do :; done\nnote=unclean\n'
        'if [ -f "$last/pyproject.toml" ] && [ -d "$last/webui" ] && [ ! -e "$last/.venv" ] && [ ! -e "$last/.git" ]; '
        'then note=clean; fi\n'
        f'echo "pip $* ($note)" >> "{pip_log}"\n')
    for tool in ("python", "pip"):
        (venv / "bin" / tool).chmod(0o755)
    pip_log.touch()
    return root, pip_log


# Only the system-wide commands are stubs here; install, mv, chmod and rm really write under --root.
SYSTEM_WIDE = ("apt-get", "useradd", "usermod", "userdel", "groupadd", "systemctl", "chown", "chgrp")


def run_staged(tmp_path: Path, root: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir, log = tmp_path / "sysbin", tmp_path / "system.log"
    if not bin_dir.exists():
        bin_dir.mkdir()
        for name in SYSTEM_WIDE:
            (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
            (bin_dir / name).chmod(0o755)
        log.touch()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "TMPDIR": str(tmp_path)}
    env.pop("THOUGHTWAVE_MODEL_FILE", None)
    result = subprocess.run(["bash", str(INSTALL), "--force", "--root", str(root), *args], capture_output=True,
                            text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    return result, log.read_text().splitlines()


def test_install_writes_a_valid_config_with_a_fresh_pin_and_a_second_run_changes_nothing(tmp_path):
    from thoughtwave.config import load_config

    root, pip_log = staged_root(tmp_path)
    first, system_calls = run_staged(tmp_path, root, "--kiosk")
    assert first.returncode == 0, first.stderr
    config_path = root / "etc" / "thoughtwave" / "config.toml"
    assert config_path.stat().st_mode & 0o777 == 0o640
    config = load_config(config_path, environ={"STATE_DIRECTORY": "/var/lib/thoughtwave"})
    assert config.camera.source == "pi"
    assert re.fullmatch(r"\d{6}", config.server.pin or "")
    assert f"the PIN that unlocks changes on the display is: {config.server.pin}" in first.stdout
    unit = root / "etc" / "systemd" / "system" / "thoughtwave.service"
    assert unit.read_text() == SERVICE.read_text() and unit.stat().st_mode & 0o777 == 0o644
    assert (root / "etc/systemd/user/thoughtwave-kiosk.service").read_text() == KIOSK.read_text()
    assert (root / "etc/xdg/autostart/thoughtwave-kiosk.desktop").read_text() == DESKTOP.read_text()
    assert (root / "etc/thoughtwave/kiosk.env").read_text() == "THOUGHTWAVE_URL=http://127.0.0.1:8080/\n"
    installs = pip_log.read_text().splitlines()
    copy = installs[0].split()[-2]
    assert copy.startswith(str(tmp_path))             # a copy of the checkout, never the checkout itself
    assert installs == [f"pip install --disable-pip-version-check --quiet {copy} (clean)",
                        f"pip install --disable-pip-version-check --quiet --no-deps --force-reinstall {copy} (clean)"]
    assert system_calls == []                      # --root: no apt, no users, no systemctl
    assert "(--root: skipped) systemctl enable thoughtwave.service" in first.stdout

    # The owner edits the config; running the installer again (an update) keeps it, PIN and all.
    edited = config_path.read_text().replace("# port = 8080", "port = 9090").replace(
        '# host = "127.0.0.1"', 'host = "0.0.0.0"')
    config_path.write_text(edited)
    second, system_calls = run_staged(tmp_path, root, "--kiosk")
    assert second.returncode == 0, second.stderr
    assert config_path.read_text() == edited
    assert "PIN" not in second.stdout
    assert f"{config_path} exists: kept as it is" in second.stdout
    assert f"{unit} unchanged" in second.stdout
    # The kiosk follows the port; a server on every interface is reached through loopback.
    assert (root / "etc/thoughtwave/kiosk.env").read_text() == "THOUGHTWAVE_URL=http://127.0.0.1:9090/\n"
    assert system_calls == []


def test_a_broken_config_stops_an_update_and_names_the_key(tmp_path):
    root, _ = staged_root(tmp_path)
    config_path = root / "etc" / "thoughtwave" / "config.toml"
    config_path.parent.mkdir(parents=True)
    config_path.write_text("[server]\nport = 99999\n")
    result, _ = run_staged(tmp_path, root, "--no-kiosk")
    assert result.returncode == 1
    assert "[server] port: must be 1-65535, got 99999" in result.stderr
    assert not (root / "etc" / "systemd" / "system" / "thoughtwave.service").exists()


def test_uninstall_removes_the_program_and_keeps_the_games_until_purged(tmp_path):
    root, _ = staged_root(tmp_path)
    assert run_staged(tmp_path, root, "--kiosk")[0].returncode == 0
    games = root / "var" / "lib" / "thoughtwave" / "games.sqlite3"
    games.parent.mkdir(parents=True)
    games.write_bytes(b"SQLite format 3\0")

    kept, _ = run_staged(tmp_path, root, "--uninstall")
    assert kept.returncode == 0, kept.stderr
    assert not (root / "opt" / "thoughtwave").exists()
    for gone in ("etc/systemd/system/thoughtwave.service", "etc/systemd/user/thoughtwave-kiosk.service",
                 "etc/xdg/autostart/thoughtwave-kiosk.desktop", "etc/thoughtwave/kiosk.env"):
        assert not (root / gone).exists(), gone
    assert games.exists() and (root / "etc" / "thoughtwave" / "config.toml").exists()

    purged, _ = run_staged(tmp_path, root, "--uninstall", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert not games.parent.exists() and not (root / "etc" / "thoughtwave").exists()

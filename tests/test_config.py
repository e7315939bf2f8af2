"""The configuration file: defaults, every key checked, and mistakes named by file and key."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from thoughtwave import config as config_module
from thoughtwave import configvalues
from thoughtwave.config import (
    DEFAULT_STABLE_SECONDS,
    KEYS,
    CameraConfig,
    CameraKind,
    CameraSpec,
    Config,
    ConfigError,
    DisplayConfig,
    RulesConfig,
    ServerConfig,
    VisionConfig,
    default_state_dir,
    describe_keys,
    load_config,
    open_camera,
    parse_document,
    rules_of,
)
from thoughtwave.engine import Colour, Penalty, Sides
from thoughtwave.vision.sources import CameraError, ImageDirSource

EXAMPLE = Path(__file__).resolve().parent.parent / "systemd" / "config.example.toml"
ENV = {"HOME": "/home/player"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text), environ=ENV)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- defaults ---------------------------------------------------------------------------------

def test_no_file_anywhere_gives_every_default(tmp_path):
    config = load_config(None, environ=ENV, default=tmp_path / "absent.toml")
    assert config == Config(state_dir=Path("/home/player/.local/state/thoughtwave"))
    assert config.camera == CameraConfig(source="demo", resolution=(1280, 960), fps=10.0)
    assert config.server == ServerConfig(host="127.0.0.1", port=8080, pin=None, threads=8)
    assert config.rules == RulesConfig(illegal_penalty="skip-turn", red_sides=Sides.WE, first="red")
    assert config.vision == VisionConfig(stable_seconds=0.4, hand_warning_seconds=10.0, profile=None)
    assert DEFAULT_STABLE_SECONDS == 0.4
    assert config.display == DisplayConfig(speech=True)


def test_no_path_reads_the_default_file_when_it_exists(tmp_path):
    default = write(tmp_path, "[server]\nport = 9000\n")
    assert load_config(environ=ENV, default=default).server.port == 9000


def test_an_empty_file_is_all_defaults(tmp_path):
    assert load_config(write(tmp_path, ""), environ=ENV) == Config(
        state_dir=Path("/home/player/.local/state/thoughtwave"))


def test_state_dir_follows_systemd_then_xdg_then_home():
    assert default_state_dir({"STATE_DIRECTORY": "/var/lib/thoughtwave", "XDG_STATE_HOME": "/x"}) == Path(
        "/var/lib/thoughtwave")
    # systemd joins several StateDirectory= entries with ':'
    assert default_state_dir({"STATE_DIRECTORY": "/var/lib/a:/var/lib/b"}) == Path("/var/lib/a")
    assert default_state_dir({"XDG_STATE_HOME": "/home/p/.state", "HOME": "/home/p"}) == Path(
        "/home/p/.state/thoughtwave")
    assert default_state_dir({"XDG_STATE_HOME": "relative/is/ignored", "HOME": "/home/p"}) == Path(
        "/home/p/.local/state/thoughtwave")
    assert default_state_dir({"HOME": "/home/p"}) == Path("/home/p/.local/state/thoughtwave")


def test_the_environment_passed_in_is_the_only_one_read(tmp_path, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", "/from/os/environ")
    config = load_config(write(tmp_path, ""), environ={"STATE_DIRECTORY": "/from/argument"})
    assert config.state_dir == Path("/from/argument")


# --- values -----------------------------------------------------------------------------------

def test_every_key_set_is_read(tmp_path):
    config = load_config(write(tmp_path, """
state_dir = "games"
[camera]
source = "usb:1"
resolution = [640, 480]
fps = 15
[server]
host = "0.0.0.0"
port = 8888
pin = "004200"
threads = 8
[rules]
illegal_penalty = "forfeit"
red_sides = "ns"
first = "Black"
[vision]
stable_seconds = 0.25
hand_warning_seconds = 30
profile = "calibration/profile.json"
[display]
speech = false
"""), environ=ENV)
    assert config.camera == CameraConfig(source="usb:1", resolution=(640, 480), fps=15.0)
    assert isinstance(config.camera.fps, float)
    assert config.server == ServerConfig(host="0.0.0.0", port=8888, pin="004200", threads=8)
    assert config.rules == RulesConfig(illegal_penalty="forfeit", red_sides=Sides.NS, first="black")
    assert config.rules.red_sides is Sides.NS
    assert config.state_dir == tmp_path / "games"          # relative to the config file
    assert config.vision.profile == tmp_path / "games" / "calibration" / "profile.json"  # inside state_dir
    assert config.vision.stable_seconds == 0.25 and config.vision.hand_warning_seconds == 30.0
    assert config.display.speech is False


def test_absolute_and_home_paths(tmp_path):
    config = load_config(write(tmp_path, 'state_dir = "~/tw"\n[vision]\nprofile = "/etc/tw/p.json"\n'),
                         environ=ENV)
    assert config.state_dir == Path("/home/player/tw")
    assert config.vision.profile == Path("/etc/tw/p.json")


@pytest.mark.parametrize("source", ["demo", "pi", "PI", "usb:0", "usb:12", "pi@640x480", "usb:0@1920x1080",
                                    "file:game.mp4", "dir:/srv/frames"])
def test_camera_sources_the_frame_sources_accept(tmp_path, source):
    assert load_config(write(tmp_path, f'[camera]\nsource = "{source}"\n'), environ=ENV).camera.source == source


def test_resolution_also_reads_width_x_height(tmp_path):
    config = load_config(write(tmp_path, '[camera]\nresolution = "1640x1232"\n'), environ=ENV)
    assert config.camera.resolution == (1640, 1232)


def test_rules_of_gives_the_engine_rules(tmp_path):
    config = load_config(write(tmp_path, '[rules]\nillegal_penalty = "retry"\nred_sides = "NS"\n'
                                         'first = "black"\n'), environ=ENV)
    rules = rules_of(config)
    assert rules.penalty is Penalty.RETRY
    assert rules.red_sides is Sides.NS
    assert rules.first is Colour.BLACK
    assert rules_of(Config(state_dir=Path("/s"))).penalty is Penalty.SKIP_TURN


# --- mistakes ---------------------------------------------------------------------------------

def test_the_message_names_file_section_key_and_value(tmp_path):
    message = error_of(tmp_path, "[server]\nport = 99999\n")
    assert message == f"{tmp_path / 'config.toml'}: [server] port: must be 1-65535, got 99999"


@pytest.mark.parametrize(("text", "expected"), [
    ("[sever]\nport = 1\n", "unknown section [sever] (did you mean [server]?)"),
    ("[plugins]\n", "unknown section [plugins]"),
    ("[server]\nprot = 8080\n", "[server] unknown key 'prot' (did you mean 'port'?)"),
    ("[display]\nspeach = false\n", "[display] unknown key 'speach' (did you mean 'speech'?)"),
    ("stat_dir = '/x'\n", "unknown key 'stat_dir' (did you mean 'state_dir'?)"),
    ("port = 8080\n", "unknown key 'port' (port belongs in [server])"),
    ("[server]\nsource = 'pi'\n", "[server] unknown key 'source' (source belongs in [camera])"),
    ("[camera]\nstate_dir = '/x'\n", "state_dir belongs at the top, before any [section]"),
])
def test_unknown_names_are_named_with_a_suggestion(tmp_path, text, expected):
    assert expected in error_of(tmp_path, text)


@pytest.mark.parametrize(("text", "expected"), [
    ('[server]\nport = "8080"\n', "[server] port: must be a whole number 1-65535, got string '8080'"),
    ("[server]\nport = true\n", "[server] port: must be a whole number 1-65535, got boolean true"),
    ("[server]\nport = 0\n", "[server] port: must be 1-65535, got 0"),
    ("[server]\nport = 80.5\n", "[server] port: must be a whole number"),
    ("[server]\nthreads = 1\n", "[server] threads: must be 2-32, got 1"),
    ("[server]\nthreads = 33\n", "[server] threads: must be 2-32, got 33"),
    ('[server]\nhost = "my host"\n', "[server] host: must be an IP address"),
    ("[server]\npin = 1234\n", '[server] pin: must be in quotes, like pin = "123456"'),
    ('[server]\npin = "123"\n', "[server] pin: must be 6-12 digits"),
    ('[server]\npin = "1234567890123"\n', "[server] pin: must be 6-12 digits"),
    ('[server]\npin = "12a4"\n', "[server] pin: must be 6-12 digits"),
    ('[server]\npin = "12345"\n', "[server] pin: must be 6-12 digits"),
    ('[camera]\nsource = "webcam"\n', "[camera] source: must be demo, pi, usb:N, file:PATH or dir:PATH"),
    ('[camera]\nsource = "usb:x"\n', "[camera] source: must be demo"),
    ('[camera]\nsource = "file:"\n', "[camera] source: must be demo"),
    ("[camera]\nsource = 3\n", "[camera] source: must be a string in quotes, got number 3"),
    ("[camera]\nresolution = [640]\n", "[camera] resolution: must be two whole numbers"),
    ("[camera]\nresolution = [640, -480]\n", "[camera] resolution: must be two whole numbers"),
    ("[camera]\nresolution = [640.0, 480]\n", "[camera] resolution: must be two whole numbers"),
    ("[camera]\nfps = 0\n", "[camera] fps: must be more than 0 and at most 120, got 0"),
    ("[camera]\nfps = -5\n", "[camera] fps: must be more than 0"),
    ("[camera]\nfps = nan\n", "[camera] fps: must be more than 0"),
    ("[camera]\nfps = 'fast'\n", "[camera] fps: must be a number, got string 'fast'"),
    ('[rules]\nillegal_penalty = "death"\n', "[rules] illegal_penalty: must be one of skip-turn, forfeit, retry"),
    ('[rules]\nred_sides = "NE"\n', "[rules] red_sides: must be one of WE, NS, got 'NE'"),
    ('[rules]\nfirst = "blue"\n', "[rules] first: must be one of red, black, got 'blue'"),
    ("[vision]\nstable_seconds = 0.01\n", "[vision] stable_seconds: must be 0.05-10, got 0.01"),
    ("[vision]\nstable_seconds = 11\n", "[vision] stable_seconds: must be 0.05-10, got 11"),
    ("[vision]\nhand_warning_seconds = 0\n", "[vision] hand_warning_seconds: must be 1-600, got 0"),
    ('[vision]\nprofile = ""\n', "[vision] profile: must be a path"),
    ('[display]\nspeech = "yes"\n', "[display] speech: must be true or false, got string 'yes'"),
    ("state_dir = 5\n", "state_dir: must be a string in quotes"),
    ("camera = 3\n", "[camera] must be a section"),
    ("[server.port]\nx = 1\n", "[server] port: must be a whole number 1-65535, got a table"),
])
def test_bad_values_say_what_is_wanted(tmp_path, text, expected):
    assert expected in error_of(tmp_path, text)


def test_the_pin_is_never_echoed_in_an_error(tmp_path):
    assert "98765432109876" not in error_of(tmp_path, '[server]\npin = "98765432109876"\n')
    assert "24680" not in error_of(tmp_path, "[server]\npin = 24680\n")


def test_malformed_toml_gives_the_line(tmp_path):
    message = error_of(tmp_path, '[server]\nport = 8080\nhost = "127.0.0.1\n')
    assert message.startswith(f"{tmp_path / 'config.toml'}: invalid TOML: ")
    assert "line 3" in message


def test_a_key_given_twice_is_malformed(tmp_path):
    assert "invalid TOML" in error_of(tmp_path, "[server]\nport = 1\nport = 2\n")


def test_not_utf8_is_named_with_its_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"[server]\nhost = '\xff'\n")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(line 2\)"):
        load_config(path, environ=ENV)


def test_a_missing_explicit_file_is_an_error_not_the_defaults(tmp_path):
    with pytest.raises(ConfigError, match=re.escape(f"{tmp_path / 'nope.toml'}: no such file")):
        load_config(tmp_path / "nope.toml", environ=ENV)


def test_a_directory_is_not_a_config_file(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path, environ=ENV)


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
))
def test_any_value_for_any_key_is_accepted_or_named_never_a_crash(value):
    # Whatever TOML can hold, each key's check either converts it or raises ConfigError naming the key.
    for key in KEYS:
        document = {key.name: value} if not key.section else {key.section: {key.name: value}}
        try:
            parse_document(document, "config.toml")
        except ConfigError as err:
            assert f"{key.name}" in str(err)


# --- the example and the key table -----------------------------------------------------------

def test_the_example_lists_every_key_commented_and_parses_to_the_defaults():
    text = EXAMPLE.read_text(encoding="utf-8")
    commented = set(re.findall(r"^# ([a-z_]+) = ", text, flags=re.MULTILINE))
    assert commented == {key.name for key in KEYS}
    assert load_config(EXAMPLE, environ=ENV) == Config(state_dir=Path("/home/player/.local/state/thoughtwave"))


def test_the_example_with_every_line_uncommented_is_valid_and_equals_the_defaults_apart_from_the_set_values(
        tmp_path):
    text = re.sub(r"^# ([a-z_]+ = )", r"\1", EXAMPLE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    config = load_config(write(tmp_path, text), environ=ENV)
    # Only the three keys whose default is "unset" differ: the example shows a value for them.
    assert config.server.pin == "123456"
    assert config.state_dir == Path("/var/lib/thoughtwave")
    assert config.vision.profile == Path("/var/lib/thoughtwave/profile.json")
    defaults = Config(state_dir=config.state_dir)
    assert config.camera == defaults.camera and config.rules == defaults.rules
    assert config.display == defaults.display
    assert config.server == ServerConfig(pin="123456")
    assert config.vision == VisionConfig(profile=config.vision.profile)


def test_the_installer_edit_of_the_example_gives_the_pi_camera_and_a_pin(tmp_path):
    # install.sh uncomments these two lines with sed; if the example's wording changes, it must too.
    text = EXAMPLE.read_text(encoding="utf-8")
    assert '\n# source = "demo"\n' in text and '\n# pin = "123456"\n' in text
    text = text.replace('\n# source = "demo"\n', '\nsource = "pi"\n').replace('\n# pin = "123456"\n',
                                                                              '\npin = "004711"\n')
    config = load_config(write(tmp_path, text), environ=ENV)
    assert (config.camera.source, config.server.pin) == ("pi", "004711")


def test_describe_keys_lists_every_key_with_its_default():
    table = {key: (default, meaning) for key, default, meaning in describe_keys()}
    assert len(table) == len(KEYS)
    assert table["server.port"][0] == "8080"
    assert table["camera.resolution"][0] == "[1280, 960]"
    assert table["camera.source"][0] == '"demo"'
    assert table["display.speech"][0] == "true"
    assert table["server.pin"][0] == "(unset)"
    assert table["vision.stable_seconds"][0] == "0.4"
    assert all(meaning for _, meaning in table.values())


# --- the camera spec ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "parsed", "canonical"), [
    ("demo", CameraSpec(CameraKind.DEMO), "demo"),
    (" PI ", CameraSpec(CameraKind.PI), "pi"),
    ("pi@640x480", CameraSpec(CameraKind.PI, resolution=(640, 480)), "pi@640x480"),
    ("usb:12", CameraSpec(CameraKind.USB, device=12), "usb:12"),
    ("USB:0@1920X1080", CameraSpec(CameraKind.USB, device=0, resolution=(1920, 1080)), "usb:0@1920x1080"),
    ("file:game.mp4", CameraSpec(CameraKind.FILE, path=Path("game.mp4")), "file:game.mp4"),
    ("Dir:/srv/frames", CameraSpec(CameraKind.DIR, path=Path("/srv/frames")), "dir:/srv/frames"),
])
def test_a_camera_spec_is_parsed_into_its_parts_and_prints_back(text, parsed, canonical):
    assert CameraSpec.parse(text) == parsed
    assert str(parsed) == canonical and CameraSpec.parse(canonical) == parsed


@pytest.mark.parametrize("text", ["webcam", "usb:x", "usb:", "file:", "dir: ", "pi@0x480", "demo@640x480", "pi:1", ""])
def test_a_spec_that_names_no_camera_is_refused_with_the_forms(text):
    with pytest.raises(ValueError, match="must be demo, pi, usb:N, file:PATH or dir:PATH"):
        CameraSpec.parse(text)


def test_the_configured_source_is_kept_as_written_and_parsed_once(tmp_path):
    camera = load_config(write(tmp_path, '[camera]\nsource = "USB:2@800x600"\n'), environ=ENV).camera
    assert camera.source == "USB:2@800x600"
    assert camera.spec == CameraSpec(CameraKind.USB, device=2, resolution=(800, 600))
    with pytest.raises(ValueError):
        CameraConfig(source="webcam")


def test_open_camera_opens_a_folder_of_images_at_the_rate_asked(tmp_path):
    for n in range(3):
        cv2.imwrite(str(tmp_path / f"{n:02d}.png"), np.full((48, 64, 3), 40 * n, np.uint8))
    source = open_camera(CameraSpec.parse(f"dir:{tmp_path}"), fps=4.0)
    try:
        assert isinstance(source, ImageDirSource)
        frames = [source.read() for _ in range(4)]
    finally:
        source.close()
    assert [f.t for f in frames[:3]] == [0.0, 0.25, 0.5] and frames[3] is None
    assert int(frames[2].image[0, 0, 0]) == 80


def test_open_camera_names_a_missing_usb_camera_and_opens_the_demo_at_the_size_asked():
    with pytest.raises(CameraError):
        open_camera(CameraSpec.parse("usb:97"))
    demo = open_camera(CameraSpec.parse("demo"), fps=4.0, resolution=(320, 240))
    try:
        assert demo.fps == 4.0 and demo.read().image.shape == (240, 320, 3)
    finally:
        demo.close()


# --- the rules and the profile ------------------------------------------------------------------

@pytest.mark.parametrize("written", ["ns", "SN", " NS "])
def test_red_sides_are_the_engines_sides(tmp_path, written):
    config = load_config(write(tmp_path, f'[rules]\nred_sides = "{written}"\n'), environ=ENV)
    assert config.rules.red_sides is Sides.NS and rules_of(config).red_sides is Sides.NS


def test_the_profile_is_the_configured_one_else_profile_json_in_the_state_dir(tmp_path):
    plain = load_config(write(tmp_path, 'state_dir = "games"\n'), environ=ENV)
    assert plain.profile_path == tmp_path / "games" / "profile.json"
    moved = plain.with_state_dir(tmp_path / "elsewhere" / ".." / "other")
    assert moved.state_dir == tmp_path / "other" and moved.profile_path == tmp_path / "other" / "profile.json"
    configured = load_config(write(tmp_path, '[vision]\nprofile = "/etc/tw/p.json"\n'), environ=ENV)
    assert configured.profile_path == configured.with_state_dir(tmp_path).profile_path == Path("/etc/tw/p.json")


@pytest.mark.parametrize("module", [config_module, configvalues])
def test_the_docstring_examples_pass(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0

"""The game loop, with no web framework: camera -> watcher (vision) -> referee (engine) -> store -> snapshot.

``Companion`` (``game.loop``) runs the loop in a thread and publishes immutable ``Snapshot``s; the live
game it drives is a ``Session`` (``game.session``), kept in SQLite by a ``Store`` (``game.store``) and
replayed by ``GameLog`` (``game.log``). The computer opponent (``game.opponent``) plugs in as the table
the session gives the watcher; ``game.scripted`` plays typed moves without a camera. ``game.seams`` holds
the contracts (sources, watchers) any part can be swapped through.
"""

from thoughtwave.game.log import Action, GameLog
from thoughtwave.game.loop import Companion, Settings, is_picture
from thoughtwave.game.opponent import Instruction, Opponent, Searcher, Thinker
from thoughtwave.game.scripted import ScriptedGame, ScriptedSource, ScriptedWatcher, ScriptFrame, read_script
from thoughtwave.game.seams import MakeWatcher, OpenCamera, Source, Watch, vision_watcher_factory
from thoughtwave.game.session import ControlError, Session
from thoughtwave.game.snapshot import Camera, ComputerTurn, Notice, Snapshot
from thoughtwave.game.store import GameRow, StorageError, Store

__all__ = [
    "Action", "Camera", "Companion", "ComputerTurn", "ControlError", "GameLog", "GameRow", "Instruction",
    "MakeWatcher", "Notice", "OpenCamera", "Opponent", "ScriptFrame", "ScriptedGame", "ScriptedSource",
    "ScriptedWatcher", "Searcher", "Session", "Settings", "Snapshot", "Source", "StorageError", "Store", "Thinker",
    "Watch",
    "is_picture", "read_script", "vision_watcher_factory",
]

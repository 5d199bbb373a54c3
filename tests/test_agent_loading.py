"""An agent file loads as the leaderboard loads it: its folder on sys.path for its own
imports, `import carla` and the leaderboard's agent module bound to lockstep's."""

from __future__ import annotations

import sys
from pathlib import Path

from runner_helpers import REPO

from runner.agents.base import AutonomousAgent, Track
from runner.agents.loader import load_agent_class
from world.actors.controls import VehicleControl

LEADERBOARD_AGENT = """import carla
from leaderboard.autoagents import autonomous_agent

from my_net import Net


def get_entry_point():
    return "NetAgent"


class NetAgent(autonomous_agent.AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = autonomous_agent.Track.MAP
        self.net = Net()

    def sensors(self):
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data, timestamp):
        return carla.VehicleControl(throttle=self.net.throttle)
"""


def test_an_agent_imports_its_neighbour_carla_and_the_leaderboard(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the agent's folder goes on a copy
    (tmp_path / "my_net.py").write_text("class Net:\n    throttle = 0.25\n", encoding="utf-8")
    (tmp_path / "net_agent.py").write_text(LEADERBOARD_AGENT, encoding="utf-8")
    cls = load_agent_class(str(tmp_path / "net_agent.py"))
    assert issubclass(cls, AutonomousAgent)
    agent = cls("localhost", 2000, False)
    agent.setup(None)
    assert agent.track is Track.MAP
    control = agent.run_step({}, 0.0)
    assert isinstance(control, VehicleControl)
    assert control.throttle == 0.25
    assert sys.path[0] == str(tmp_path)


def test_a_folder_beside_the_agent_named_like_lockstep_s_packages_shadows_nothing(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "__init__.py").write_text("MINE = True\n", encoding="utf-8")
    (tmp_path / "plain_agent.py").write_text(
        "from runner.agents.dummy import DummyAgent\n\n\ndef get_entry_point():\n"
        "    return 'DummyAgent'\n",
        encoding="utf-8",
    )
    load_agent_class(str(tmp_path / "plain_agent.py"))
    import scenarios.library

    assert not hasattr(sys.modules["scenarios"], "MINE")
    assert Path(scenarios.library.__file__).is_relative_to(REPO / "scenarios")

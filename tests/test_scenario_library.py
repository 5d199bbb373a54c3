"""The scenario library: every leaderboard 2.0 type registered, parameters bound as the
route files give them (values read off routes_devtest.xml), bad names refused clearly."""

from __future__ import annotations

import pytest
from runner_helpers import REPO

from runner.routes import read_route_file
from scenarios.base import ScenarioContext
from scenarios.errors import (
    ScenarioNotImplementedError,
    ScenarioParameterError,
    UnknownScenarioTypeError,
)
from scenarios.library import SCENARIO_TYPES, bind_scenario
from scenarios.library._pending import PENDING
from world.geometry import Location, Transform

# issue 14's list: ScenarioRunner's srunner/scenarios types of leaderboard 2.0
LEADERBOARD_2_TYPES = """
Accident AccidentTwoWays BlockedIntersection ConstructionObstacle ConstructionObstacleTwoWays
ControlLoss CrossingBicycleFlow DynamicObjectCrossing EnterActorFlow EnterActorFlowV2
HardBreakRoute HazardAtSideLane HazardAtSideLaneTwoWays HighwayCutIn HighwayExit
InterurbanActorFlow InterurbanAdvancedActorFlow InvadingTurn MergerIntoSlowTraffic
MergerIntoSlowTrafficV2 NonSignalizedJunctionLeftTurn NonSignalizedJunctionRightTurn
OppositeVehicleRunningRedLight OppositeVehicleTakingPriority ParkedObstacle
ParkedObstacleTwoWays ParkingCrossingPedestrian ParkingCutIn ParkingExit PedestrianCrossing
PriorityAtJunction SignalizedJunctionLeftTurn SignalizedJunctionRightTurn StaticCutIn
VehicleOpensDoorTwoWays VehicleTurningRoute VehicleTurningRoutePedestrian
YieldToEmergencyVehicle
""".split()  # noqa: SIM905 - the list as the issue writes it


def test_all_38_types_registered():
    assert len(LEADERBOARD_2_TYPES) == 38
    assert sorted(SCENARIO_TYPES) == sorted(LEADERBOARD_2_TYPES)


def test_an_implemented_type_is_not_also_pending():
    implemented = [n for n, cls in SCENARIO_TYPES.items() if cls.implemented]
    assert "HardBreakRoute" in implemented
    assert not set(implemented) & set(PENDING)


def test_every_devtest_scenario_binds(shared):
    routes = read_route_file(shared / "routes" / "leaderboard-2.0" / "routes_devtest.xml")
    entries = [s for r in routes for s in r.scenarios]
    assert len(entries) == 68 + len(routes[1].scenarios)
    bound = {e["name"]: bind_scenario(e) for e in entries}
    # <scenario name="ParkingExit_1"> ... front_vehicle_distance value="9" behind value="9"
    cls, params = bound["ParkingExit_1"]
    assert cls.type_name == "ParkingExit"
    assert params == {
        "front_vehicle_distance": 9.0,
        "behind_vehicle_distance": 9.0,
        "direction": "right",
        "flow_distance": 25.0,  # ScenarioRunner's default
        "speed": 60.0,
    }
    # the second scenario of route 0: SignalizedJunctionLeftTurn, flow_speed 16.6, 30-65
    second = routes[0].scenarios[1]
    assert bind_scenario(second)[1] == {"flow_speed": 16.6, "source_dist_interval": (30.0, 65.0)}


def test_yaml_shapes_bind_like_the_xml_ones():
    trigger = {"x": 1.0, "y": 2.0, "yaw": 0.0}
    xml = {"type": "AccidentTwoWays", "trigger": trigger, "distance": {"value": "80"}}
    xml["frequency"] = {"from": "40", "to": "105"}
    yaml = {"type": "AccidentTwoWays", "trigger": trigger, "distance": 80, "frequency": [40, 105]}
    expected = {"distance": 80.0, "direction": "right", "speed": 60.0, "frequency": (40.0, 105.0)}
    assert bind_scenario(xml)[1] == expected
    assert bind_scenario(yaml)[1] == expected
    flow = {"type": "EnterActorFlow", "start_actor_flow": [1, 2, 3], "end_actor_flow": {}}
    with pytest.raises(ScenarioParameterError, match="'end_actor_flow': expected x, y, z"):
        bind_scenario(flow)


def test_bad_names_are_named_with_the_valid_ones():
    with pytest.raises(UnknownScenarioTypeError, match=r"'HardBrakeRoute'.*HardBreakRoute"):
        bind_scenario({"type": "HardBrakeRoute"})
    with pytest.raises(ScenarioParameterError) as err:
        bind_scenario({"type": "YieldToEmergencyVehicle", "distanse": 10})
    assert str(err.value) == (
        "scenario YieldToEmergencyVehicle: parameter 'distanse': unknown parameter "
        "(valid parameters: distance (float, default 140.0))"
    )
    with pytest.raises(ScenarioParameterError, match="'start_actor_flow': required"):
        bind_scenario({"type": "EnterActorFlow"})
    with pytest.raises(ScenarioParameterError, match=r"'frequency': from 50\.0 is above to 20\.0"):
        bind_scenario({"type": "AccidentTwoWays", "frequency": [50, 20]})


def test_a_pending_type_fails_clearly_when_run():
    if not PENDING:
        pytest.skip("every type is implemented")
    name = sorted(PENDING)[0]  # any type still pending
    cls = SCENARIO_TYPES[name]
    ctx = ScenarioContext(None, None, [])
    scenario = cls(ctx, f"{name}_1", Transform(Location()), {}, None)
    with pytest.raises(ScenarioNotImplementedError) as err:
        scenario.setup()
    assert str(err.value) == f"scenario type {name} is not implemented yet"


def test_a_route_file_with_a_typo_is_refused_naming_route_and_scenario(tmp_path):
    from runner.config import load_config
    from runner.errors import ConfigError

    (tmp_path / "r.xml").write_text(
        '<routes><route id="3" town="Town01"><waypoints><position x="0" y="0" z="0"/>'
        '<position x="9" y="0" z="0"/></waypoints><scenarios>'
        '<scenario name="Accident_2" type="Accident"><trigger_point x="1" y="0" z="0" yaw="0"/>'
        '<distanse value="90"/></scenario></scenarios></route></routes>',
        encoding="utf-8",
    )
    config = tmp_path / "c.yaml"
    config.write_text(
        "name: x\nagent: {entry: runner.agents.dummy}\nmap: "
        f"{REPO / 'configs' / 'maps' / 'town_small.xodr'}\nroutes: {{file: r.xml}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as err:
        load_config(config)
    text = str(err.value)
    assert text.startswith(f"{config}:4: routes.file: route 3, scenario Accident_2: ")
    assert "parameter 'distanse': unknown parameter (valid parameters: distance" in text

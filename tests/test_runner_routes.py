"""Leaderboard route files (1.0 and 2.0) and route subsets, read against the files themselves."""

from __future__ import annotations

import pytest

from runner.errors import ConfigError
from runner.routes import read_route_file, select_subset


def test_leaderboard_1_routes(shared):
    routes = read_route_file(shared / "routes" / "leaderboard-1.0" / "routes_devtest.xml")
    assert [(r.id, r.town) for r in routes] == [
        ("0", "Town01"),
        ("1", "Town03"),
        ("2", "Town04"),
        ("3", "Town06"),
    ]
    first = routes[0]
    assert len(first.points) == 11
    # the file's first <waypoint>: x="338.7027893066406" y="226.75003051757812" z="0.0"
    assert first.points[0] == (338.7027893066406, 226.75003051757812, 0.0)
    assert first.scenarios == ()


def test_leaderboard_2_routes_weathers_and_scenarios(shared):
    routes = read_route_file(shared / "routes" / "leaderboard-2.0" / "routes_devtest.xml")
    assert [(r.id, r.town) for r in routes] == [("0", "Town12"), ("1", "Town12")]
    route = routes[0]
    assert len(route.points) == 35
    assert route.points[0] == (983.5, 5382.2, 371.0)
    assert route.points[-1] == (75.0, 5587.0, 367.2)
    assert [pct for pct, _ in route.weathers] == [0.0, 100.0]
    assert route.weathers[0][1]["sun_altitude_angle"] == 90.0
    assert route.weathers[1][1]["sun_altitude_angle"] == 15.0
    assert len(route.scenarios) == 68
    parking = route.scenarios[0]
    assert parking["type"] == "ParkingExit" and parking["name"] == "ParkingExit_1"
    assert parking["trigger"] == {"x": 983.5, "y": 5382.2, "z": 371.0, "yaw": 90.0}
    assert parking["direction"] == {"value": "right"}
    assert route.scenarios[1]["source_dist_interval"] == {"from": "30", "to": "65"}


def test_subset_ranges_follow_file_order():
    ids = ["0", "1", "2", "3", "4", "5", "10"]
    assert select_subset(ids, "0-2,5", "f") == ["0", "1", "2", "5"]
    assert select_subset(ids, "5, 3-4", "f") == ["3", "4", "5"]
    assert select_subset(ids, "4-10", "f") == ["4", "5", "10"]  # by position, not by number
    with pytest.raises(ConfigError, match="no route with id '9'"):
        select_subset(ids, "9", "f")
    with pytest.raises(ConfigError, match="no route with id '1' after '3'"):
        select_subset(ids, "3-1", "f")


def test_subset_of_a_file(shared):
    path = shared / "routes" / "leaderboard-1.0" / "routes_devtest.xml"
    assert [r.id for r in read_route_file(path, "1-2")] == ["1", "2"]


def test_bad_route_xml(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<routes>\n<route id="0" town="T">\n<waypoint x="1" y="oops" z="0"/>\n')
    with pytest.raises(ConfigError, match=r"bad.xml:4: bad XML"):
        read_route_file(bad)
    bad.write_text('<routes><route id="0"><waypoint x="1" y="oops" z="0"/></route></routes>')
    with pytest.raises(ConfigError, match=r"y='oops' is not a number"):
        read_route_file(bad)

"""The one-point forms of the road evaluation (PlanView.point_at, RoadEvaluator.height_at),
which a waypoint's pose takes in plain floats, give the array forms' numbers bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from runner_helpers import TOWN

from world import Map
from world.map.opendrive import parse_opendrive
from world.map.opendrive.evaluation import RoadEvaluator

PLANS = {
    "line": "<line/>",
    "arc": '<arc curvature="0.013"/>',
    "straight arc": '<arc curvature="0"/>',
    "spiral": '<spiral curvStart="0.001" curvEnd="0.03"/>',
    "poly3": '<poly3 a="0" b="0.1" c="0.01" d="-0.0002"/>',
    "paramPoly3": '<paramPoly3 aU="0" bU="1" cU="0.02" dU="0" aV="0" bV="0.1" cV="0.04" dV="0"/>',
    "flat paramPoly3": '<paramPoly3 aU="1" bU="0" cU="0.5" dU="0" aV="0" bV="0" cV="0" dV="0"/>',
}
# Zero-width lanes sharing borders, a lane with height records, lanes either side.
LANES = """<laneSection s="0">
  <left>
    <lane id="2" type="sidewalk"><width sOffset="0" a="2" b="0" c="0" d="0"/>
      <height sOffset="0" inner="0.15" outer="0.2"/><height sOffset="20" inner="0.1" outer="0.3"/>
    </lane>
    <lane id="1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane>
  </left>
  <center><lane id="0"/></center>
  <right>
    <lane id="-1" type="driving"><width sOffset="0" a="3" b="0.01" c="0" d="0"/></lane>
    <lane id="-2" type="curb"><width sOffset="0" a="0" b="0" c="0" d="0"/>
      <height sOffset="0" inner="0.12" outer="0.12"/></lane>
    <lane id="-3" type="sidewalk"><width sOffset="0" a="0" b="0.1" c="0" d="0"/>
      <height sOffset="0" inner="0.12" outer="0.18"/></lane>
  </right>
</laneSection>"""


def _road(shape: str) -> RoadEvaluator:
    text = f"""<OpenDRIVE><header/><road id="1" length="60"><planView>
      <geometry s="0" x="3" y="-2" hdg="0.7" length="30">{shape}</geometry>
      <geometry s="30" x="40" y="20" hdg="-2.9" length="30">{shape}</geometry>
      </planView><lanes><laneOffset s="0" a="0.3" b="-0.01" c="0" d="0"/>{LANES}</lanes>
      </road></OpenDRIVE>"""
    return RoadEvaluator(parse_opendrive(text).roads["1"])


def _bits(values) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()


def _stations(road: RoadEvaluator) -> list[float]:
    inside = np.linspace(-1.0, road.length + 1.0, 97)
    starts = road.plan_view.starts
    return [*inside.tolist(), *starts.tolist(), *np.nextafter(starts, -np.inf).tolist()]


@pytest.mark.parametrize("kind", sorted(PLANS))
def test_point_at_is_evaluate_at_one_s(kind):
    road = _road(PLANS[kind])
    plan_view = road.plan_view
    for s in _stations(road):
        array = [v[0] for v in plan_view.evaluate(np.array([s]))]
        assert _bits(plan_view.point_at(s)) == _bits(array), s


def _heights_agree(road: RoadEvaluator, s: float) -> None:
    borders = road.lane_borders(int(road.section_index(np.array([s]))[0]), np.array([s]))[0]
    middles = 0.5 * (borders[:-1] + borders[1:])
    ts = [*borders, *middles, *np.nextafter(borders, np.inf), *np.nextafter(borders, -np.inf)]
    ts += [float(borders.min()) - 1.0, float(borders.max()) + 1.0]
    for t in ts:
        array = road.surface_height(np.array([s]), np.array([t]))
        assert _bits([road.height_at(s, t)]) == _bits(array), (s, t)


def test_height_at_is_surface_height_at_one_point():
    road = _road(PLANS["line"])
    for s in [*np.linspace(0.0, 60.0, 41).tolist(), 20.0, 0.5]:  # a height record starts at 20
        _heights_agree(road, s)
    # at s = 5 lane -1 spans t = 0.25 .. -2.8, where the zero-width curb's border is too: the
    # curb (lowest id on the shared border) gives its height 0.12 to lane -1's outer part, and
    # lane -3 (to -3.3, heights 0.12 .. 0.18) is 0.9 of the way out at t = -3.25
    assert road.height_at(5.0, -2.75) == pytest.approx(0.12, abs=1e-12)
    assert road.height_at(5.0, -3.25) == pytest.approx(0.12 + 0.9 * 0.06, abs=1e-12)


def test_height_at_on_a_town():
    town = Map.from_file(TOWN)
    roads = [frames.geometry for frames in town._frames.values()]
    assert any(section.has_heights for road in roads for section in road.sections)
    for road in roads[::3]:
        for s in np.linspace(0.0, road.length, 7).tolist():
            _heights_agree(road, s)

"""A light box moved to a predecessor with another lane sign, worked by hand on tjunction.xodr.

Road 3 starts at ODR (0, -10) heading south (-90 deg) and leaves junction 100 at
s = 0; its lane 1 (left, 3.5 m) drives north, with decreasing s, into the
junction, where it becomes lane -1 of junction road 12 (connection 3). A light
signal 40 is added on road 3 (s = 2, orientation "+": lane 1) and referenced on
road 12's lane -1 at s = 0.5.

* From the signal itself: road 3 is no junction road; lane 1 travels against s,
  so the box goes 3 m the other way: s = 5, ODR (1.75, -15), CARLA (1.75, 15).
* From the reference: road 12 is a junction road with one predecessor lane
  outside, road 3 lane 1, whose end toward the junction is s = 0. The offset
  follows that lane's direction (it adds): s = 3, CARLA (1.75, 13). The
  reference lane's own sign (-1, subtract) would have put it at s = -3, clamped
  to 1e-5 m inside road 3: CARLA (1.75, 10.00001).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.traffic_helpers import world_on
from world.map.map import Map
from world.traffic.signals.system import BOX_LIGHT

TJUNCTION = Path(__file__).parent / "maps" / "tjunction.xodr"
LIGHT = (
    '<signal id="40" name="Light" s="2.0" t="5.0" zOffset="0.0" hOffset="0.0" roll="0.0"'
    ' pitch="0.0" orientation="+" dynamic="yes" country="OpenDRIVE" type="1000001"'
    ' subtype="-1" value="-1" text="" height="1.0" width="0.5"/>\n        </signals>'
)
REFERENCE = (
    '<signals><signalReference id="40" s="0.5" t="0.0" orientation="-">'
    '<validity fromLane="-1" toLane="-1"/></signalReference></signals>\n    </road>\n    <junction'
)


def test_box_follows_the_predecessor_lane_direction():
    text = TJUNCTION.read_text().replace("</signals>", LIGHT, 1)
    text = text.replace("    </road>\n    <junction", REFERENCE)
    world = world_on(Map("tjunction_light", text))
    traffic = world._traffic
    assert [p.signal_id for p in traffic.placement.lights] == ["40"]
    boxes = [b for b in traffic.boxes if b.kind == BOX_LIGHT]
    got = sorted(
        (round(b.transform.location.x, 9), round(b.transform.location.y, 9)) for b in boxes
    )
    assert got == [pytest.approx((1.75, 13.0)), pytest.approx((1.75, 15.0))]
    # Both boxes face the lane's traffic: north, CARLA yaw -90.
    assert all(abs((b.transform.rotation.yaw + 90.0 + 180.0) % 360.0 - 180.0) < 1e-6 for b in boxes)

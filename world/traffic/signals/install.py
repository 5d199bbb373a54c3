"""A world's traffic: the map's light and sign actors, their road boxes, and lookups over them.

`install_traffic(world)` runs while a World is being made, right after the
spectator: it registers the map's traffic lights (`traffic.traffic_light`) and
signs (`traffic.stop`, `traffic.yield`, `traffic.speed_limit.NN`) in
world.traffic.signals.placement's order, builds their groups and road boxes, adds the
tick steps in the world's phases (sign timers, light groups, trigger boxes)
and returns the `WorldTraffic` the world keeps. A map without roads (FlatMap)
gets no lights or signs.

`WorldTraffic` answers what the TrafficLight and TrafficSign handles and the
World's light calls ask, by actor id; it imports nothing of world.world, so the
world can build it without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from world.actors.vehicle_state import ActorType
from world.geometry import BoundingBox, Location, Rotation, Transform, Vector3D
from world.traffic.signals.lights import TrafficLightGroups
from world.traffic.signals.placement import TrafficPlacement, place_traffic
from world.traffic.signals.system import BOX_LIGHT, TrafficSystem
from world.traffic.signals.trigger_box_builder import TriggerBoxBuilder, lane_waypoints
from world.traffic.signals.trigger_boxes import OrientedBoxes, TriggerBox

__all__ = [
    "LIGHT_EXTENT",
    "SIGN_EXTENT",
    "TrafficLightTable",
    "WorldTraffic",
    "install_traffic",
    "traffic_light_table",
    "traffic_light_views",
]

# Boxes of the light and sign actors themselves (pole and head), half-extents in m.
LIGHT_EXTENT = Vector3D(0.3, 0.3, 2.5)
SIGN_EXTENT = Vector3D(0.1, 0.4, 1.2)


@dataclass(frozen=True, slots=True)
class TrafficLightTable:
    """Every light's recorded state as arrays, in light (actor id) order, for the recorder."""

    ids: np.ndarray  # actor ids
    state: np.ndarray  # TrafficLightState values
    elapsed: np.ndarray  # s in the controller's current stage (float32)
    frozen: np.ndarray  # bool
    green_time: np.ndarray
    yellow_time: np.ndarray
    red_time: np.ndarray


class TrafficLightViews:
    """The lights' live arrays, in light (actor id) order, read by the recorder every tick:
    the world's own arrays, not copies (read them between ticks, never write them), and
    the freeze flag as it is now. Taken once: the arrays are made with the lights."""

    __slots__ = ("_groups", "controller", "controller_elapsed", "ids", "state")

    def __init__(self, ids: np.ndarray, groups: Any) -> None:
        self._groups = groups
        self.ids = ids  # actor ids
        self.state = groups.state  # TrafficLightState values
        self.controller = groups.light_controller  # each light's controller
        self.controller_elapsed = groups.elapsed  # s in each controller's stage (float32)

    @property
    def frozen(self) -> bool:
        return bool(self._groups.frozen)


def _local_box(owner_transform: Transform, box: TriggerBox) -> BoundingBox:
    """A trigger box in its owner actor's frame (CARLA's trigger_volume)."""
    centre = box.transform.location
    local = owner_transform.inverse_transform(Location(centre.x, centre.y, centre.z))
    yaw = box.transform.rotation.yaw - owner_transform.rotation.yaw
    return BoundingBox(
        Location(local.x, local.y, local.z),
        Vector3D(box.extent.x, box.extent.y, box.extent.z),
        Rotation(0.0, yaw, 0.0),
    )


class WorldTraffic:
    """The placement, the traffic system and the boxes of one world, looked up by actor id."""

    def __init__(
        self,
        world_map: Any,
        placement: TrafficPlacement,
        system: TrafficSystem,
        light_ids: list[int],
        sign_ids: list[int],
        boxes: list[TriggerBox],
    ) -> None:
        self.map = world_map
        self.placement = placement
        self.system = system
        self.light_ids = light_ids
        self.sign_ids = sign_ids
        self.boxes = boxes
        self.junction_of_group = [g.junction_id for g in placement.groups]
        self._light_index = {actor_id: k for k, actor_id in enumerate(light_ids)}
        self._light_id_array = np.array(light_ids, dtype=np.int64)
        self._sign_index = {actor_id: k for k, actor_id in enumerate(sign_ids)}

    @property
    def groups(self) -> TrafficLightGroups:
        return self.system.groups

    def light_index(self, actor_id: int) -> int:
        """The light's index in the groups (its order among the lights)."""
        return self._light_index[actor_id]

    def sign_index(self, actor_id: int) -> int:
        return self._sign_index[actor_id]

    def light_opendrive_id(self, actor_id: int) -> str:
        return self.placement.lights[self.light_index(actor_id)].signal_id

    def sign_opendrive_id(self, actor_id: int) -> str:
        return self.placement.signs[self.sign_index(actor_id)].opendrive_id

    def group_light_ids(self, actor_id: int) -> list[int]:
        """The actor ids of the light's group, controller by controller."""
        lights = self.groups.group_lights(self.light_index(actor_id))
        return [self.light_ids[k] for k in lights]

    def light_with_opendrive_id(self, opendrive_id: str) -> int | None:
        """The actor id of the light placed for the signal `opendrive_id`, or None."""
        for index, light in enumerate(self.placement.lights):
            if light.signal_id == str(opendrive_id):
                return self.light_ids[index]
        return None

    def lights_in_junction(self, junction_id: int | str) -> list[int]:
        """The actor ids of the lights grouped under OpenDRIVE junction `junction_id`."""
        groups = self.groups
        return [
            actor_id
            for index, actor_id in enumerate(self.light_ids)
            if self.junction_of_group[groups.group_of(index)] == str(junction_id)
        ]

    def trigger_volume(self, actor_id: int, owner_transform: Transform) -> BoundingBox:
        """The first road box of a light or sign, in its own frame (an empty box when none)."""
        if actor_id in self._light_index:
            index, lights = self._light_index[actor_id], True
        else:
            index, lights = self._sign_index[actor_id], False
        for box in self.boxes:
            if box.owner == index and (box.kind == BOX_LIGHT) == lights:
                return _local_box(owner_transform, box)
        return BoundingBox()

    def affected_lane_waypoints(self, actor_id: int) -> list[Any]:
        """For each landmark of the light's signal and each lane of its validities (lane 0
        left out), the waypoint at the landmark's s; missing lanes are left out."""
        return [
            wp
            for landmark in self.map.get_all_landmarks_from_id(self.light_opendrive_id(actor_id))
            for wp in lane_waypoints(
                self.map, landmark.road_id, landmark.s, landmark.get_lane_validities()
            )
        ]

    def stop_waypoints(self, actor_id: int, transform: Transform) -> list[Any]:
        """CARLA's rule: points every 1 m along the light's forward vector through its trigger
        volume's centre, from -0.9 to 0.9 of the volume's x extent; the lane waypoint of each,
        one per (road, lane)."""
        volume = self.trigger_volume(actor_id, transform)
        centre = transform.transform(
            Location(volume.location.x, volume.location.y, volume.location.z)
        )
        forward = transform.get_forward_vector()
        out, seen = [], []
        x, end = -0.9 * volume.extent.x, 0.9 * volume.extent.x
        while x < end:
            wp = self.map.get_waypoint(centre + forward * x)
            if wp is not None and (wp.road_id, wp.lane_id) not in seen:
                seen.append((wp.road_id, wp.lane_id))
                out.append(wp)
            x += 1.0
        return out

    def light_table(self) -> TrafficLightTable:
        """The state, clock and stage times of all lights at once (copies)."""
        groups = self.groups
        ctrl = groups.light_controller
        times = groups.stage_times[ctrl]
        return TrafficLightTable(
            self._light_id_array.copy(),
            groups.state.copy(),
            groups.elapsed[ctrl],
            np.full(len(ctrl), groups.frozen),
            times[:, 0],
            times[:, 1],
            times[:, 2],
        )

    def light_views(self) -> TrafficLightViews:
        """The lights' state and clocks without a copy (see TrafficLightViews)."""
        return TrafficLightViews(self._light_id_array, self.groups)


def _layout(world_map: Any) -> tuple[TrafficPlacement, list[TriggerBox]]:
    """The map's light and sign placement and their road boxes. They depend on the map
    alone, so the worlds made on one Map (an evaluation's routes) work them out once; the
    placements and boxes are never changed after they are built, so the worlds share them."""
    odr = getattr(world_map, "opendrive", None)
    if odr is None:
        return TrafficPlacement([], [], []), []

    def build() -> tuple[TrafficPlacement, list[TriggerBox]]:
        placement = place_traffic(odr, world_map.road_evaluators())
        builder = TriggerBoxBuilder(world_map)
        return placement, builder.light_boxes(placement.lights) + builder.sign_boxes(
            placement.signs
        )

    placement, boxes = world_map.derived("traffic layout", build)
    return placement, list(boxes)


def install_traffic(world: Any) -> WorldTraffic:
    """Places the map's lights and signs, plugs their steps into the world's tick, and returns
    what the world keeps of them."""
    world_map = world.get_map()
    placement, boxes = _layout(world_map)
    light_ids = [
        world.register_static_actor(
            "traffic.traffic_light", ActorType.TrafficLight, light.transform, LIGHT_EXTENT
        ).id
        for light in placement.lights
    ]
    sign_ids = [
        world.register_static_actor(
            sign.blueprint_id, ActorType.TrafficSign, sign.transform, SIGN_EXTENT
        ).id
        for sign in placement.signs
    ]
    groups = TrafficLightGroups(
        [[c[1] for c in g.controllers] for g in placement.groups],
        [[c[2] for c in g.controllers] for g in placement.groups],
    )
    system = TrafficSystem(
        groups,
        np.array(light_ids, dtype=np.int64) - 1,
        np.array(sign_ids, dtype=np.int64) - 1,
        np.array([np.nan if s.speed_limit is None else s.speed_limit for s in placement.signs]),
        [
            None if s.speed_limit is not None else s.blueprint_id == "traffic.stop"
            for s in placement.signs
        ],
        OrientedBoxes(boxes),
    )
    world.add_tick_system("sign_timers", system.tick_sign_timers)
    world.add_tick_system("light_groups", system.tick_lights)
    world.add_tick_system("trigger_boxes", system.tick_boxes)
    return WorldTraffic(world_map, placement, system, light_ids, sign_ids, boxes)


def traffic_light_table(world: Any) -> TrafficLightTable:
    """Every light's id, state, elapsed time, frozen flag and stage times (for the recorder)."""
    return world.traffic_signals(required=True).light_table()


def traffic_light_views(world: Any) -> TrafficLightViews:
    """Every light's id, state, controller and the controllers' clocks, uncopied (for the
    recorder's per-tick State records)."""
    return world.traffic_signals(required=True).light_views()

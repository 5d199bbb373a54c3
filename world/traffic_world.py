"""Plugs traffic and sensors into a World: the map's light and sign actors, tick steps, handles.

`install_traffic(world)` is a static actor provider (World's hook, run right
after the spectator is made): it registers the map's traffic lights
(`traffic.traffic_light`) and signs (`traffic.stop`, `traffic.yield`,
`traffic.speed_limit.NN`) in world.traffic_placement's order, builds their
groups and road boxes, and adds the tick steps in the world's phases:
sign timers, light groups, (physics), trigger boxes, sensors. A map without
roads (FlatMap) gets no lights or signs. Sensors work in any world: their
system joins the tick on first use.

Adapter: world-core's actor handles carry no traffic-light, sign or sensor
methods, so this module gives the world subclasses with CARLA's methods
(`TrafficLightActor`, `TrafficSignActor`, `ListeningSensor`) and makes the
world hand them out; the world-level calls CARLA has on carla.World are
functions here taking the world (`freeze_all_traffic_lights`,
`reset_all_traffic_lights`, `get_traffic_light`, `get_traffic_light_from_opendrive_id`,
`get_traffic_lights_from_waypoint`, `get_traffic_lights_in_junction`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from world import world as world_module
from world.actors import Actor, Sensor, TrafficLight, TrafficSign
from world.errors import WorldError
from world.geometry import BoundingBox, Location, Rotation, Transform, Vector3D
from world.sensors import SensorBehaviour, SensorSystem
from world.traffic import BOX_LIGHT, TrafficSystem
from world.traffic_light_logic import TrafficLightGroups
from world.traffic_placement import TrafficPlacement, place_traffic
from world.trigger_box_builder import TriggerBoxBuilder, lane_waypoints
from world.trigger_boxes import OrientedBoxes, TriggerBox
from world.vehicle_state import ActorType, TrafficLightState

__all__ = [
    "LIGHT_EXTENT",
    "SIGN_EXTENT",
    "ListeningSensor",
    "TrafficLightActor",
    "TrafficLightTable",
    "TrafficSignActor",
    "freeze_all_traffic_lights",
    "get_traffic_light",
    "get_traffic_light_from_opendrive_id",
    "get_traffic_lights_from_waypoint",
    "get_traffic_lights_in_junction",
    "install_traffic",
    "reset_all_traffic_lights",
    "traffic_light_table",
]

# Boxes of the light and sign actors themselves (pole and head), half-extents in m.
LIGHT_EXTENT = Vector3D(0.3, 0.3, 2.5)
SIGN_EXTENT = Vector3D(0.1, 0.4, 1.2)


class _WorldTraffic:
    """What install_traffic leaves on a world: the placement, the traffic system, the boxes."""

    def __init__(
        self,
        placement: TrafficPlacement,
        system: TrafficSystem,
        light_ids: list[int],
        sign_ids: list[int],
        boxes: list[TriggerBox],
    ) -> None:
        self.placement = placement
        self.system = system
        self.light_ids = light_ids
        self.sign_ids = sign_ids
        self.boxes = boxes
        self.junction_of_group = [g.junction_id for g in placement.groups]


def _traffic(world: Any) -> _WorldTraffic:
    traffic = getattr(world, "_traffic", None)
    if traffic is None:
        raise WorldError("this world was made without traffic (install_traffic was not run)")
    return traffic


def install_traffic(world: Any) -> None:
    """Places the map's lights and signs and plugs traffic and sensors into the world's tick."""
    world_map = world.get_map()
    odr = getattr(world_map, "opendrive", None)
    placement = TrafficPlacement([], [], []) if odr is None else place_traffic(odr)
    light_ids, sign_ids = [], []
    for light in placement.lights:
        actor = world.register_static_actor(
            "traffic.traffic_light", ActorType.TrafficLight, light.transform, LIGHT_EXTENT
        )
        world._info[actor.id - 1].handle = TrafficLightActor
        light_ids.append(actor.id)
    for sign in placement.signs:
        actor = world.register_static_actor(
            sign.blueprint_id, ActorType.TrafficSign, sign.transform, SIGN_EXTENT
        )
        world._info[actor.id - 1].handle = TrafficSignActor
        sign_ids.append(actor.id)
    boxes: list[TriggerBox] = []
    if odr is not None:
        builder = TriggerBoxBuilder(world_map)
        boxes = builder.light_boxes(placement.lights) + builder.sign_boxes(placement.signs)
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
    world._traffic = _WorldTraffic(placement, system, light_ids, sign_ids, boxes)
    world.add_tick_system("sign_timers", system.tick_sign_timers)
    world.add_tick_system("light_groups", system.tick_lights)
    world.add_tick_system("trigger_boxes", system.tick_boxes)
    _sensors(world)


def _sensors(world: Any) -> SensorSystem:
    """The world's sensor system, made (and plugged into the tick) on first use."""
    sensors = getattr(world, "_sensor_system", None)
    if sensors is None:
        world._sensor_system = sensors = SensorSystem()
        world.add_tick_system("sensors", lambda w, dt: _tick_sensors(w, sensors))
    return sensors


def _tick_sensors(world: Any, sensors: SensorSystem) -> None:
    """Gives new sensor actors their behaviour, forgets dead ones, and steps them in id order."""
    a, n = world._actors, world._actors.n
    rows = np.flatnonzero(a.alive[:n] & (a.kind[:n] == ActorType.Sensor))
    live = set((rows + 1).tolist())
    for actor_id in sensors.ids():
        if actor_id not in live:
            sensors.remove(actor_id)
    for row in rows.tolist():
        _behaviour(world, row + 1)
    sensors.tick(world, world._frame, world._elapsed, world._delta)


def _behaviour(world: Any, actor_id: int) -> SensorBehaviour | None:
    sensors = _sensors(world)
    found = sensors.get(actor_id)
    if found is None:
        info = world._info[actor_id - 1]
        found = sensors.add(world._handle(actor_id), info.type_id, info.attributes)
    return found


# -- handles -------------------------------------------------------------------------------


class ListeningSensor(Sensor):
    """A sensor with CARLA's listen / stop / is_listening."""

    __slots__ = ()

    def _behaviour(self) -> SensorBehaviour:
        found = _behaviour(self._world, self.id)
        if found is None:
            raise WorldError(f"{self.type_id} (actor {self.id}) needs rendering; lockstep has none")
        return found

    def listen(self, callback: Callable[[Any], None]) -> None:
        self._behaviour().listen(callback)

    def stop(self) -> None:
        self._behaviour().stop()

    def is_listening(self) -> bool:  # type: ignore[override]
        found = _behaviour(self._world, self.id)
        return found is not None and found.is_listening()


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


class TrafficLightActor(TrafficLight):
    """A traffic light with CARLA's carla.TrafficLight methods."""

    __slots__ = ()

    @property
    def _index(self) -> int:
        return _traffic(self._world).light_ids.index(self.id)

    @property
    def _system(self) -> TrafficSystem:
        return _traffic(self._world).system

    @property
    def state(self) -> TrafficLightState:
        return self.get_state()

    def get_state(self) -> TrafficLightState:
        return self._system.groups.get_state(self._index)

    def set_state(self, state: TrafficLightState) -> None:
        """Sets this light only; its controller's next stage sets it again."""
        self._system.set_light_state(self._world._vehicles, self._index, state)

    def get_elapsed_time(self) -> float:
        return self._system.groups.get_elapsed_time(self._index)

    def get_green_time(self) -> float:
        return self._system.groups.get_stage_time(self._index, TrafficLightState.Green)

    def get_yellow_time(self) -> float:
        return self._system.groups.get_stage_time(self._index, TrafficLightState.Yellow)

    def get_red_time(self) -> float:
        return self._system.groups.get_stage_time(self._index, TrafficLightState.Red)

    def set_green_time(self, green_time: float) -> None:
        self._system.groups.set_stage_time(self._index, TrafficLightState.Green, green_time)

    def set_yellow_time(self, yellow_time: float) -> None:
        self._system.groups.set_stage_time(self._index, TrafficLightState.Yellow, yellow_time)

    def set_red_time(self, red_time: float) -> None:
        self._system.groups.set_stage_time(self._index, TrafficLightState.Red, red_time)

    def freeze(self, freeze: bool) -> None:
        """Stops (or restarts) the clock of every light, as CARLA's freeze does."""
        self._system.groups.frozen = bool(freeze)

    def is_frozen(self) -> bool:
        return self._system.groups.frozen

    def reset_group(self) -> None:
        self._system.reset_group(self._world._vehicles, self._index)

    def get_pole_index(self) -> int:
        return self._system.groups.pole_index(self._index)

    def get_group_traffic_lights(self) -> list[TrafficLightActor]:
        ids = _traffic(self._world).light_ids
        return [self._world._handle(ids[i]) for i in self._system.groups.group_lights(self._index)]

    def get_opendrive_id(self) -> str:
        return _traffic(self._world).placement.lights[self._index].signal_id

    def _boxes(self) -> list[TriggerBox]:
        index = self._index
        return [b for b in _traffic(self._world).boxes if b.kind == BOX_LIGHT and b.owner == index]

    @property
    def trigger_volume(self) -> BoundingBox:
        """The light's first road box, in the light's frame."""
        boxes = self._boxes()
        if not boxes:
            return BoundingBox()
        return _local_box(self.get_transform(), boxes[0])

    def get_affected_lane_waypoints(self) -> list[Any]:
        """For each landmark of the light's signal and each lane of its validities (lane 0
        left out), the waypoint at the landmark's s; missing lanes are left out."""
        world_map = self._world.get_map()
        return [
            wp
            for landmark in world_map.get_all_landmarks_from_id(self.get_opendrive_id())
            for wp in lane_waypoints(
                world_map, landmark.road_id, landmark.s, landmark.get_lane_validities()
            )
        ]

    def get_stop_waypoints(self) -> list[Any]:
        """CARLA's rule: points every 1 m along the light's forward vector through its trigger
        volume's centre, from -0.9 to 0.9 of the volume's x extent; the lane waypoint of each,
        one per (road, lane)."""
        world_map = self._world.get_map()
        volume = self.trigger_volume
        transform = self.get_transform()
        centre = transform.transform(
            Location(volume.location.x, volume.location.y, volume.location.z)
        )
        forward = transform.get_forward_vector()
        out, seen = [], []
        x, end = -0.9 * volume.extent.x, 0.9 * volume.extent.x
        while x < end:
            wp = world_map.get_waypoint(centre + forward * x)
            if wp is not None and (wp.road_id, wp.lane_id) not in seen:
                seen.append((wp.road_id, wp.lane_id))
                out.append(wp)
            x += 1.0
        return out


class TrafficSignActor(TrafficSign):
    """A traffic sign with its trigger volume and OpenDRIVE id."""

    __slots__ = ()

    @property
    def _index(self) -> int:
        return _traffic(self._world).sign_ids.index(self.id)

    def get_opendrive_id(self) -> str:
        return _traffic(self._world).placement.signs[self._index].opendrive_id

    @property
    def trigger_volume(self) -> BoundingBox:
        index = self._index
        boxes = [b for b in _traffic(self._world).boxes if b.kind != BOX_LIGHT and b.owner == index]
        if not boxes:
            return BoundingBox()
        return _local_box(self.get_transform(), boxes[0])


# -- carla.World's traffic calls -----------------------------------------------------------


def freeze_all_traffic_lights(world: Any, frozen: bool) -> None:
    _traffic(world).system.groups.frozen = bool(frozen)


def reset_all_traffic_lights(world: Any) -> None:
    _traffic(world).system.reset_all(world._vehicles)


def get_traffic_light_from_opendrive_id(world: Any, opendrive_id: str) -> Actor | None:
    traffic = _traffic(world)
    for index, light in enumerate(traffic.placement.lights):
        if light.signal_id == str(opendrive_id):
            return world._handle(traffic.light_ids[index])
    return None


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


def traffic_light_table(world: Any) -> TrafficLightTable:
    """The state, clock and stage times of all lights at once (copies)."""
    traffic = _traffic(world)
    groups = traffic.system.groups
    ctrl = groups.light_controller
    times = groups.stage_times[ctrl]
    return TrafficLightTable(
        np.array(traffic.light_ids, dtype=np.int64),
        groups.state.copy(),
        groups.elapsed[ctrl],
        np.full(len(ctrl), groups.frozen),
        times[:, 0],
        times[:, 1],
        times[:, 2],
    )


def get_traffic_light(world: Any, landmark: Any) -> Actor | None:
    """The light placed for a landmark's signal (carla.World.get_traffic_light)."""
    return get_traffic_light_from_opendrive_id(world, landmark.id)


def get_traffic_lights_from_waypoint(world: Any, waypoint: Any, distance: float) -> list[Actor]:
    """The lights whose signals apply to the waypoint's lane within `distance` m ahead, each
    once, nearest first (carla.World.get_traffic_lights_from_waypoint)."""
    if not math.isfinite(distance) or distance < 0.0:
        raise WorldError(
            f"get_traffic_lights_from_waypoint: distance must be finite and >= 0, got {distance!r}"
        )
    out: list[Actor] = []
    for landmark in waypoint.get_landmarks(distance):
        light = get_traffic_light(world, landmark)
        if light is not None and all(light.id != seen.id for seen in out):
            out.append(light)
    return out


def get_traffic_lights_in_junction(world: Any, junction_id: int | str) -> list[Actor]:
    traffic = _traffic(world)
    groups = traffic.system.groups
    out = []
    for index, actor_id in enumerate(traffic.light_ids):
        if traffic.junction_of_group[groups.group_of(index)] == str(junction_id):
            out.append(world._handle(actor_id))
    return out


# Spawned sensors get the listening handle, and every World places its map's traffic.
world_module._HANDLES[ActorType.Sensor] = ListeningSensor
world_module.World.default_static_actor_providers = (install_traffic,)

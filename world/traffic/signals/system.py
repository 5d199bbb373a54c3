"""The world's traffic at run time: light cycles, sign timers and who is in which road box.

Three tick steps, in the world's order: the sign timers run down, the light
groups advance (each light change reaches the vehicles in its boxes at once),
and after physics the vehicles' boxes are tested against every box (compiled,
world.traffic.signals.trigger_boxes) and the boxes' owners are told who came and who went:

* a light's box gives an entering vehicle the light's state and the light
  (`tl_state`, `tl_actor` of the vehicle table); leaving the last box of that
  light it is told green again and has no light;
* a stop or yield sign's effect and check boxes feed its `GiveWaySign`, which
  sets the vehicle's `tl_state` as CARLA's sign components do; the vehicle table's
  `sign_boxes` counts the effect boxes a vehicle is in (the autopilot reads it);
* a speed-limit box sets the vehicle's `speed_limit` (km/h), which stays.

Events are handled in vehicle (id) order, then box order, leaving before
entering. A vehicle is inside a box when its own bounding box (its pose composed with
its blueprint's box) overlaps it, as in CARLA, not when its origin is: a car's
front enters a box about half a car length before its origin would.
"""

from __future__ import annotations

import numpy as np

from world.actors.vehicle_state import TrafficLightState
from world.traffic.signals.lights import TrafficLightGroups
from world.traffic.signals.signs import GiveWaySign, SignTimers
from world.traffic.signals.trigger_boxes import OrientedBoxes

__all__ = ["BOX_CHECK", "BOX_EFFECT", "BOX_LIGHT", "BOX_SPEED", "TrafficSystem"]

BOX_LIGHT, BOX_EFFECT, BOX_CHECK, BOX_SPEED = 0, 1, 2, 3


class TrafficSystem:
    """Lights (by index, with their actor rows), signs (by index) and all their boxes."""

    def __init__(
        self,
        groups: TrafficLightGroups,
        light_rows: np.ndarray,
        sign_rows: np.ndarray,
        sign_speed: np.ndarray,
        sign_is_stop: list[bool | None],
        boxes: OrientedBoxes,
    ) -> None:
        self.groups = groups
        self.light_rows = np.asarray(light_rows, dtype=np.int64)
        self.sign_rows = np.asarray(sign_rows, dtype=np.int64)
        self.sign_speed = np.asarray(sign_speed, dtype=np.float64)
        self.boxes = boxes
        self.timers = SignTimers()
        self._vehicles = None  # the world's vehicle table, set at each tick step
        self.give_way: list[GiveWaySign | None] = [
            None if is_stop is None else GiveWaySign(is_stop, self.timers, self._tell)
            for is_stop in sign_is_stop
        ]
        top = int(max(self.light_rows.max(initial=-1), self.sign_rows.max(initial=-1)))
        self.light_of_row = np.full(top + 2, -1, dtype=np.int64)
        self.light_of_row[self.light_rows] = np.arange(len(self.light_rows))
        self._inside = np.zeros(0, dtype=np.int64)  # vehicle row * boxes + box, sorted
        self._changed = np.zeros(len(groups.state), dtype=bool)  # the lights a tick changed
        self._light_boxes_held: dict[tuple[int, int], int] = {}

    # -- tick steps -----------------------------------------------------------------------

    def tick_sign_timers(self, world, dt: float) -> None:
        self._vehicles = world.state_tables().vehicles
        self.timers.tick(dt)

    def tick_lights(self, world, dt: float) -> None:
        if self.groups.advance(dt, self._changed):  # (a light changes every few seconds)
            self.push_light_states(world.state_tables().vehicles, self._changed)
            self._changed[:] = False

    def push_light_states(self, vehicles, changed: np.ndarray) -> None:
        """Gives the vehicles held by the changed lights (mask over lights) their new state."""
        if not changed.any():
            return
        light = vehicles.tl_actor[: vehicles.n]
        held = np.flatnonzero(light >= 0)
        index = self.light_of_row[light[held]]
        hit = changed[index]
        vehicles.tl_state[held[hit]] = self.groups.state[index[hit]]

    def tick_boxes(self, world, dt: float) -> None:
        """Tests every vehicle's box against every box and tells the owners (one compiled
        call: OrientedBoxes.changes; most ticks have no event)."""
        a, vehicles, _ = world.state_tables()
        self._vehicles = vehicles
        columns = (a.pos, a.rot, a.box_loc, a.extent, a.alive)
        self._inside, event_vehicle, event_box, entered = self.boxes.changes(
            self._inside, vehicles.actor, vehicles.n, columns
        )
        if not len(event_vehicle):
            return
        for vehicle_row, b, enters in zip(
            event_vehicle.tolist(), event_box.tolist(), entered.tolist(), strict=True
        ):
            if enters:
                self._enter(vehicle_row, b)
            else:
                self._leave(vehicle_row, b)

    # -- box events -----------------------------------------------------------------------

    def _tell(self, vehicle: int, state: TrafficLightState) -> None:
        self._vehicles.tl_state[vehicle] = int(state)

    def _enter(self, vehicle: int, box: int) -> None:
        kind, owner = int(self.boxes.kind[box]), int(self.boxes.owner[box])
        v = self._vehicles
        if kind == BOX_LIGHT:
            key = (owner, vehicle)
            self._light_boxes_held[key] = self._light_boxes_held.get(key, 0) + 1
            v.tl_actor[vehicle] = self.light_rows[owner]
            v.tl_state[vehicle] = self.groups.state[owner]
        elif kind == BOX_SPEED:
            v.speed_limit[vehicle] = self.sign_speed[owner]
        elif kind == BOX_EFFECT:
            v.sign_boxes[vehicle] += 1
            self.give_way[owner].enter_effect(vehicle)
        else:
            self.give_way[owner].enter_check(vehicle)

    def _leave(self, vehicle: int, box: int) -> None:
        kind, owner = int(self.boxes.kind[box]), int(self.boxes.owner[box])
        v = self._vehicles
        if kind == BOX_LIGHT:
            key = (owner, vehicle)
            self._light_boxes_held[key] -= 1
            if self._light_boxes_held[key] == 0:
                del self._light_boxes_held[key]
                if v.tl_actor[vehicle] == self.light_rows[owner]:
                    v.tl_actor[vehicle] = -1
                    v.tl_state[vehicle] = int(TrafficLightState.Green)
        elif kind == BOX_EFFECT:
            v.sign_boxes[vehicle] -= 1
            self.give_way[owner].leave_effect(vehicle)
        elif kind == BOX_CHECK:
            self.give_way[owner].leave_check(vehicle)

    # -- light operations that reach the vehicles --------------------------------------

    def set_light_state(self, vehicles, light: int, state: TrafficLightState) -> None:
        self.groups.set_state(light, state)
        changed = np.zeros(len(self.light_rows), dtype=bool)
        changed[light] = True
        self.push_light_states(vehicles, changed)

    def reset_group(self, vehicles, light: int) -> None:
        self.push_light_states(vehicles, self.groups.reset_group(self.groups.group_of(light)))

    def reset_all(self, vehicles) -> None:
        self.push_light_states(vehicles, self.groups.reset_all())

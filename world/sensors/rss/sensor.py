"""sensor.other.rss: Intel's Responsibility-Sensitive Safety check of its parent vehicle.

While it listens, the sensor checks its parent (the ego) against every vehicle and walker
near it once per tick, in the world's sensor phase, and hands the listener an RssResponse:
the proper response (the acceleration restrictions RSS allows the ego), the per-pair
states, the situations, the world model and the ego's motion on its route. Nothing of it
feeds the world's state unless the user applies a control restricted with RssRestrictor.

`listen` loads the world's map into ad_map_access (once per map per process: admap.py)
and starts a fresh check (CARLA makes a new RssCheck per listen). Settings made while not
listening have no effect and say so, as CARLA's; the constellation callback is set before
listening. The route's random picks draw from the sensor's own generator, PCG64 of
SeedSequence((RSS_STREAM, sensor id)), so a run's responses are the same every time.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from world.errors import WorldError
from world.geometry import Location, Transform
from world.sensors.base import SensorBehaviour, SensorContext
from world.sensors.rss.admap import ensure_map, map_key
from world.sensors.rss.bindings import ad, require
from world.sensors.rss.check import RssCheck
from world.sensors.rss.data import RssLogLevel, RssResponse, RssRoadBoundariesMode
from world.sensors.rss.dynamics import other_vehicle_dynamics, pedestrian_dynamics, vehicle_dynamics
from world.sensors.rss.world_model import ConstellationCallback
from world.snapshot import Timestamp

__all__ = ["RssSensorBehaviour"]

RSS_STREAM = 0x525353  # the generator's first key word ("RSS"), beside the sensor's id
_DEFAULTS = {
    "ego_vehicle": vehicle_dynamics,
    "other_vehicle": other_vehicle_dynamics,
    "pedestrian": pedestrian_dynamics,
}


def _warn(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=3)


class RssSensorBehaviour(SensorBehaviour):
    """The RSS sensor's state: its settings, and its check while it listens."""

    measures_unheard = False  # CARLA checks only while listening

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self._check: RssCheck | None = None
        self._constellation_callback: ConstellationCallback | None = None
        self._drop_route = False
        self._map: tuple[str, str] | None = None  # (OpenDRIVE text, its key), read at listen

    @classmethod
    def check_available(cls, type_id: str) -> None:
        require(f"spawning {type_id}")

    def _name(self) -> str:
        return f"{self.sensor.type_id} (actor {self.sensor.id})"

    # listening --------------------------------------------------------------------------
    def listen(self, callback: Callable[[Any], None]) -> None:
        if self.is_listening():
            _warn(f"{self._name()}: already listening")
            return
        parent = self.sensor.parent
        if parent is None:
            raise WorldError(f"{self._name()}: not attached to an actor")
        if not parent.type_id.startswith("vehicle."):
            raise WorldError(f"{self._name()}: its parent {parent.type_id} is not a vehicle")
        wheels = parent.get_physics_control().wheels
        max_steer = math.radians(max((w.max_steer_angle for w in wheels), default=0.0))
        world_map = self.sensor.get_world().get_map()
        text = world_map.to_opendrive()
        self._map = (text, map_key(text))
        ensure_map(text, self._map[1], world_map.name)
        seed = np.random.SeedSequence([RSS_STREAM, self.sensor.id])
        rng = np.random.Generator(np.random.PCG64(seed))
        self._check = RssCheck(parent, max_steer, self._constellation_callback, rng)
        super().listen(callback)

    def stop(self) -> None:
        if not self.is_listening():
            _warn(f"{self._name()}: not listening")
            return
        self._check = None
        super().stop()

    def measure(self, ctx: SensorContext) -> list[RssResponse]:
        check, ego = self._check, self.sensor.parent
        if check is None or ego is None:
            return []  # not listening, or its vehicle is gone: nothing to check
        assert self._map is not None
        ensure_map(self._map[0], self._map[1], self.sensor.get_world().get_map().name)
        if self._drop_route:
            self._drop_route = False
            check.routes.drop()
        timestamp = Timestamp(ctx.frame, ctx.timestamp, ctx.delta_seconds, 0.0)
        outcome = check.check(ctx.world, ego, timestamp)
        return [
            RssResponse(
                ctx.frame,
                ctx.timestamp,
                self.sensor.get_transform(),
                outcome.valid,
                outcome.proper_response,
                outcome.rss_state_snapshot,
                outcome.situation_snapshot,
                outcome.world_model,
                outcome.ego_dynamics_on_route,
            )
        ]

    # settings (CARLA's RssSensor) ----------------------------------------------------------
    def _listening_check(self, what: str) -> RssCheck | None:
        """The check, or None after saying `what` has no effect while not listening."""
        if self._check is None:
            _warn(f"{self._name()}: not yet listening: {what} has no effect")
        return self._check

    def _dynamics_check(self, what: str) -> RssCheck | None:
        """The check whose default dynamics `what` reads or sets, or None with a warning."""
        check = self._listening_check(what)
        if check is not None and self._constellation_callback is not None:
            _warn(f"{self._name()}: a constellation callback is registered: {what} has no effect")
            return None
        return check

    def get_dynamics(self, which: str) -> Any:
        """A copy of the default `which` dynamics (ego_vehicle, other_vehicle, pedestrian)."""
        check = self._dynamics_check(f"{which}_dynamics")
        if check is None:
            return _DEFAULTS[which]()  # CARLA's
        return ad().rss.world.RssDynamics(getattr(check, f"{which}_dynamics"))

    def set_dynamics(self, which: str, value: Any) -> None:
        check = self._dynamics_check(f"{which}_dynamics")
        if check is not None:
            setattr(check, f"{which}_dynamics", ad().rss.world.RssDynamics(value))

    @property
    def road_boundaries_mode(self) -> RssRoadBoundariesMode:
        check = self._listening_check("road_boundaries_mode")
        return RssRoadBoundariesMode.Off if check is None else check.road_boundaries_mode

    @road_boundaries_mode.setter
    def road_boundaries_mode(self, mode: RssRoadBoundariesMode) -> None:
        found = self._boundaries_mode(mode)
        check = self._listening_check("road_boundaries_mode")
        if check is not None:
            check.road_boundaries_mode = found

    def _boundaries_mode(self, mode: Any) -> RssRoadBoundariesMode:
        """`mode` as an RssRoadBoundariesMode (a member or its number), or WorldError."""
        if isinstance(mode, int) and not isinstance(mode, bool):  # members are ints too
            for member in RssRoadBoundariesMode:
                if member == mode:
                    return member
        raise WorldError(
            f"{self._name()}: road_boundaries_mode {mode!r} is not one of "
            "carla.RssRoadBoundariesMode's Off (0) and On (1)"
        )

    def routing_targets(self) -> list[Transform]:
        check = self._listening_check("routing_targets")
        if check is None:
            return []
        return [Transform(location) for location in check.routes.targets()]

    def append_routing_target(self, target: Transform) -> None:
        check = self._listening_check("append_routing_target")
        if check is not None:
            location = target.location
            check.routes.append_target(Location(location.x, location.y, location.z))

    def reset_routing_targets(self) -> None:
        check = self._listening_check("reset_routing_targets")
        if check is not None:
            check.routes.reset_targets()

    def drop_route(self) -> None:
        """The next tick plans a new route (CARLA defers it to the next tick too)."""
        self._drop_route = True

    def register_actor_constellation_callback(self, callback: ConstellationCallback) -> None:
        if not callable(callback):
            raise TypeError("callback argument must be callable!")
        if self.is_listening():
            _warn(
                f"{self._name()}: the actor constellation callback is registered before "
                "listening: this one has no effect"
            )
            return
        self._constellation_callback = callback

    def set_log_level(self, level: RssLogLevel) -> None:
        """The RSS core library's log level."""
        found = self._level("set_log_level", level)
        if found is not None:
            ad().rss.core.setLogLevel(found)

    def set_map_log_level(self, level: RssLogLevel) -> None:
        """The map libraries' log level (ad_map_access and ad-rss's map integration)."""
        found = self._level("set_map_log_level", level)
        if found is not None:
            lib = ad()
            lib.map.access.setLogLevel(found)
            lib.rss.map.setLogLevel(found)

    def _level(self, what: str, level: RssLogLevel) -> Any:
        """spdlog's level for an RssLogLevel (or its number), or None when it has no effect:
        not listening, or a number past `off` (CARLA ignores those too)."""
        if not isinstance(level, int) or isinstance(level, bool):
            raise WorldError(
                f"{self._name()}: {what}({level!r}): expected a carla.RssLogLevel (0..6)"
            )
        if self._listening_check(what) is None:
            return None
        number = int(level)
        if not 0 <= number <= int(RssLogLevel.off):
            _warn(f"{self._name()}: {what}({number}): not one of RssLogLevel's 0..6, ignored")
            return None
        return ad().map.access.level_enum.values[number]

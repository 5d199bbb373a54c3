"""CollisionTest: the ego's collisions, typed by what it hit (static/traffic objects,
vehicles, walkers), without repeats: the same actor again within 5 s, or any collision
within 5 m of the last counted one, is the same collision; none counts below 0.1 m/s."""

from __future__ import annotations

from runner.criteria.base import Criterion, TickView, at_text
from runner.scoring.events import TrafficEvent, TrafficEventType

COLLISION_RADIUS = 5  # m: collisions this close to the last counted one are the same one
MAX_ID_TIME = 5  # s: the same actor again within this time is the same collision
EPSILON = 0.1  # m/s: collisions below this ego speed are not the ego's fault


def collision_kind(type_id: str) -> TrafficEventType | None:
    """The event type for a collision with an actor of blueprint `type_id`, None if none."""
    if ("static" in type_id or "traffic" in type_id) and "sidewalk" not in type_id:
        return TrafficEventType.COLLISION_STATIC
    if "vehicle" in type_id:
        return TrafficEventType.COLLISION_VEHICLE
    if "walker" in type_id:
        return TrafficEventType.COLLISION_PEDESTRIAN
    return None


class CollisionTest(Criterion):
    """Reads the world's collision pairs of each tick that involve the ego (one per other
    actor, as the collision sensor reports them), then drops the stale repeat filters."""

    name = "CollisionTest"

    def __init__(self) -> None:
        super().__init__()
        self.actual_value = 0
        self._last_id: int | None = None
        self._last_time: float | None = None
        self._last_location = None

    def update(self, tick: TickView) -> None:
        ego_id = tick.ego.id
        seen: set[int] = set()
        for pair in tick.world.collision_events():
            if pair.actor_id == ego_id:
                other_id = pair.other_id
            elif pair.other_id == ego_id:
                other_id = pair.actor_id
            else:
                continue
            if other_id in seen:
                continue
            seen.add(other_id)
            other = tick.world.get_actor(other_id)
            self.on_collision(tick, other_id, other.type_id if other is not None else "")
        self._expire(tick)

    def on_collision(self, tick: TickView, other_id: int, other_type: str) -> None:
        """One collision of the ego with actor `other_id` (0: the map's static layout)."""
        location = tick.location
        if self._last_id == other_id:
            return
        last = self._last_location
        if last is not None and (location - last).length() <= COLLISION_RADIUS:
            return
        if tick.speed < EPSILON:
            return
        self.test_status = "FAILURE"
        self.actual_value += 1
        self._last_time = tick.time
        self._last_location = location
        if other_id != 0:
            self._last_id = other_id
        kind = collision_kind(other_type)
        if kind is None:
            return
        self.events.append(
            TrafficEvent(
                kind,
                tick.frame,
                f"Agent collided against object with type={other_type} and id={other_id} "
                f"at {at_text(location)}",
                {"other_actor": {"id": other_id, "type_id": other_type}, "location": location},
            )
        )

    def _expire(self, tick: TickView) -> None:
        last = self._last_location
        if last is not None and (tick.location - last).length() > COLLISION_RADIUS:
            self._last_location = None
        if self._last_id is not None and tick.time - self._last_time > MAX_ID_TIME:
            self._last_id = None

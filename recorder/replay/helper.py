"""What a replayed record asks of a world: the calls of CARLA's CarlaReplayerHelper.

The replayer never touches a world itself. It hands each record to one helper object
with these calls, so the same replay can drive a lockstep World (recorder.replay.world_helper)
or a recording stand-in that writes every call down (recorder.replay.standin).
Ids given to a helper are world ids (the replayer maps the log's ids first), except
a Position's id when the log id has no mapping, which passes unchanged, as in CARLA.
Locations are centimetres and rotations (roll, pitch, yaw) degrees, as in the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recorder.logfile.packets import (
    ActorAttribute,
    AnimBikerRecord,
    AnimVehicleRecord,
    AnimVehicleWheelsRecord,
    AnimWalkerRecord,
    PositionRecord,
    SceneLightRecord,
    StateRecord,
    VehicleDoorRecord,
    VehicleLightRecord,
    WalkerBonesRecord,
    WeatherRecord,
)
from recorder.replay.pose_math import Vec3

# ProcessReplayerEventAdd's result codes.
NOT_CREATED = 0
SPAWNED = 1
REUSED = 2
IGNORED = 3


@dataclass(slots=True)
class ActorDescription:
    """The actor an EventAdd asks for: its blueprint id, the log's UId and its attributes."""

    uid: int
    blueprint: str
    attributes: list[ActorAttribute] = field(default_factory=list)

    def attribute(self, name: str) -> str | None:
        """The value of the attribute `name` (case-insensitive, as UE compares FStrings)."""
        for a in self.attributes:
            if ue_equal(a.id, name):
                return a.value
        return None


def ue_equal(a: str, b: str) -> bool:
    """FString `==`: equal ignoring case."""
    return a.lower() == b.lower()


def ue_starts_with(text: str, prefix: str) -> bool:
    """FString StartsWith: a case-insensitive prefix test."""
    return text[: len(prefix)].lower() == prefix.lower()


def is_hero_description(description: ActorDescription) -> bool:
    """A role_name of "hero" (any case) marks the hero, as CARLA's replayer tests it."""
    return any(
        ue_equal(a.id, "role_name") and ue_equal(a.value, "hero") for a in description.attributes
    )


class ReplayHelper:
    """The calls a replay makes into its world; every one does nothing here.

    Subclasses override what their world supports. Return values follow CARLA's helper:
    `process_event_add` gives (code, world id), the others whether the actor was found."""

    def remove_static_props(self) -> None:
        """The start of a replay (CARLA removes the map's movable props)."""

    def set_visual_game_time(self, time: float) -> None:
        """A VisualTime record: the episode's visual time in seconds."""

    def process_event_add(
        self,
        location: Vec3,
        rotation: Vec3,
        description: ActorDescription,
        desired_id: int,
        ignore_hero: bool,
        ignore_spectator: bool,
        replay_sensors: bool,
    ) -> tuple[int, int]:
        return NOT_CREATED, 0

    def process_event_del(self, actor_id: int) -> bool:
        return False

    def process_event_parent(self, child_id: int, parent_id: int) -> bool:
        return False

    def process_position(
        self, pos1: PositionRecord, pos2: PositionRecord, per: float, delta: float
    ) -> bool:
        return False

    def process_state_traffic_light(self, state: StateRecord) -> bool:
        return False

    def process_anim_vehicle(self, record: AnimVehicleRecord) -> None:
        pass

    def process_anim_vehicle_wheels(self, record: AnimVehicleWheelsRecord) -> None:
        pass

    def process_anim_walker(self, record: AnimWalkerRecord) -> None:
        pass

    def process_anim_biker(self, record: AnimBikerRecord) -> None:
        pass

    def process_light_vehicle(self, record: VehicleLightRecord) -> None:
        pass

    def process_door_vehicle(self, record: VehicleDoorRecord) -> None:
        pass

    def process_light_scene(self, record: SceneLightRecord) -> None:
        pass

    def process_walker_bones(self, record: WalkerBonesRecord) -> None:
        pass

    def process_weather(self, record: WeatherRecord) -> None:
        pass

    def set_camera_position(self, actor_id: int, offset: Vec3, rotation: Vec3) -> bool:
        return False

    def process_finish(
        self, apply_autopilot: bool, ignore_hero: bool, is_hero: dict[int, bool]
    ) -> bool:
        return True

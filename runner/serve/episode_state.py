"""The world snapshot CARLA's client reads every tick: stream 1's EpisodeState message.

Layout (CARLA 0.9.16, docs/serve.md "The world stream"): the 48-byte sensor header (type 17),
a 36-byte episode header (u64 episode id, f64 platform time, f32 delta seconds, 3 x i32 map
origin, u32 simulation-state flags), then one packed 119-byte record per actor: u32 id,
u8 state, the transform (location, then pitch, yaw, roll; f32), velocity, angular velocity
(deg/s) and acceleration (f32), and a 54-byte part that depends on the actor's kind:

* vehicle: throttle, steer, brake (f32), hand brake, reverse, manual gear shift (u8), gear
  (i32), speed limit (km/h, f32), traffic light state (u8), at a light (u8), its id (u32);
* walker: direction (3 x f32), speed (f32), jump (u8);
* traffic light: its OpenDRIVE id (32 bytes), green, yellow, red and elapsed time (f32),
  pole index (u32), frozen (u8), state (u8);
* traffic sign: its OpenDRIVE id (32 bytes).

The records are filled from the world's state tables with numpy, vectorised over actors.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from runner.serve.stream import SENSOR_TYPES, sensor_header

__all__ = ["MAP_CHANGE", "RECORD_SIZE", "EpisodeStateWriter"]

MAP_CHANGE = 0x1  # simulation-state flag: the client fetches the map again
RECORD_SIZE = 119
_EPISODE = struct.Struct("<Qdf3iI")
_ACTIVE = 1  # rpc::ActorState::Active

_RECORD = np.dtype(
    {
        "names": ["id", "state", "pose", "vel", "angvel", "acc"],
        "formats": ["<u4", "u1", ("<f4", (6,)), ("<f4", (3,)), ("<f4", (3,)), ("<f4", (3,))],
        "offsets": [0, 4, 5, 29, 41, 53],
        "itemsize": RECORD_SIZE,
    }
)
_UNION = 65  # where the kind-dependent part starts
_VEHICLE = np.dtype(
    {
        "names": [
            "throttle",
            "steer",
            "brake",
            "hand_brake",
            "reverse",
            "manual_gear_shift",
            "gear",
            "speed_limit",
            "tl_state",
            "has_tl",
            "tl_id",
        ],
        "formats": ["<f4", "<f4", "<f4", "u1", "u1", "u1", "<i4", "<f4", "u1", "u1", "<u4"],
        "offsets": [_UNION + o for o in (0, 4, 8, 12, 13, 14, 15, 19, 23, 24, 25)],
        "itemsize": RECORD_SIZE,
    }
)
_WALKER = np.dtype(
    {
        "names": ["direction", "speed", "jump"],
        "formats": [("<f4", (3,)), "<f4", "u1"],
        "offsets": [_UNION, _UNION + 12, _UNION + 16],
        "itemsize": RECORD_SIZE,
    }
)
_LIGHT = np.dtype(
    {
        "names": ["sign_id", "green", "yellow", "red", "elapsed", "pole", "frozen", "state"],
        "formats": ["S32", "<f4", "<f4", "<f4", "<f4", "<u4", "u1", "u1"],
        "offsets": [_UNION + o for o in (0, 32, 36, 40, 44, 48, 52, 53)],
        "itemsize": RECORD_SIZE,
    }
)
_SIGN = np.dtype(
    {"names": ["sign_id"], "formats": ["S32"], "offsets": [_UNION], "itemsize": RECORD_SIZE}
)


def _sign_id(text: str) -> bytes:
    """An OpenDRIVE id as CARLA's char[32]: at most 31 bytes and a terminating zero."""
    return text.encode("utf-8")[:31]


class EpisodeStateWriter:
    """Packs one world's snapshots; the map's lights and signs are looked up once."""

    def __init__(self, world: Any) -> None:
        self._world = world
        traffic = getattr(world, "_traffic", None)
        lights = [] if traffic is None else list(traffic.light_ids)
        signs = [] if traffic is None else list(traffic.sign_ids)
        self._light_ids = np.array(lights, dtype=np.int64)
        self._light_sign_ids = np.array(
            [_sign_id(traffic.light_opendrive_id(i)) for i in lights], dtype="S32"
        )
        self._poles = np.array(
            [traffic.groups.pole_index(traffic.light_index(i)) for i in lights], dtype=np.uint32
        )
        self._sign_ids = np.array(signs, dtype=np.int64)
        self._sign_texts = np.array(
            [_sign_id(traffic.sign_opendrive_id(i)) for i in signs], dtype="S32"
        )

    def message(self, episode_id: int, flags: int = 0) -> bytes:
        """The EpisodeState payload of the world's last tick (header included)."""
        world = self._world
        stamp = world.get_snapshot().timestamp
        actors, vehicles, walkers = world.state_tables()
        n = actors.n
        rows = np.flatnonzero(actors.alive[:n])
        records = np.zeros(len(rows), dtype=_RECORD)
        records["id"] = rows + 1
        records["state"] = _ACTIVE
        pose = records["pose"]
        pose[:, :3] = actors.pos[rows]
        pose[:, 3:] = actors.rot[rows]
        records["vel"] = actors.vel[rows]
        records["angvel"] = actors.angvel[rows]
        records["acc"] = actors.acc[rows]
        self._vehicles(records, rows, actors, vehicles)
        self._walkers(records, rows, actors, walkers)
        self._lights(records)
        head = sensor_header(SENSOR_TYPES["episode_state"], stamp.frame, stamp.elapsed_seconds)
        episode = _EPISODE.pack(
            episode_id, stamp.platform_timestamp, stamp.delta_seconds, 0, 0, 0, flags
        )
        return head + episode + records.tobytes()

    @staticmethod
    def _vehicles(records: np.ndarray, rows: np.ndarray, actors: Any, v: Any) -> None:
        at = np.flatnonzero(actors.vrow[rows] >= 0)
        if not len(at):
            return
        vrows = actors.vrow[rows[at]]
        out = records.view(_VEHICLE)
        out["throttle"][at] = v.throttle[vrows]
        out["steer"][at] = v.steer[vrows]
        out["brake"][at] = v.brake[vrows]
        out["hand_brake"][at] = v.hand_brake[vrows]
        out["reverse"][at] = v.reverse[vrows]
        out["manual_gear_shift"][at] = v.manual_gear_shift[vrows]
        out["gear"][at] = v.gear[vrows]
        out["speed_limit"][at] = v.speed_limit[vrows]
        out["tl_state"][at] = v.tl_state[vrows]
        light = v.tl_actor[vrows]
        out["has_tl"][at] = light >= 0
        out["tl_id"][at] = np.where(light >= 0, light + 1, 0)

    @staticmethod
    def _walkers(records: np.ndarray, rows: np.ndarray, actors: Any, w: Any) -> None:
        at = np.flatnonzero(actors.wrow[rows] >= 0)
        if not len(at):
            return
        wrows = actors.wrow[rows[at]]
        out = records.view(_WALKER)
        out["direction"][at] = w.direction[wrows]
        out["speed"][at] = w.speed[wrows]
        out["jump"][at] = w.jump[wrows]

    def _lights(self, records: np.ndarray) -> None:
        ids = records["id"]
        if len(self._light_ids):
            table = self._world.traffic_signals(required=True).light_table()
            at = np.searchsorted(ids, table.ids)
            out = records.view(_LIGHT)
            out["sign_id"][at] = self._light_sign_ids
            out["green"][at] = table.green_time
            out["yellow"][at] = table.yellow_time
            out["red"][at] = table.red_time
            out["elapsed"][at] = table.elapsed
            out["pole"][at] = self._poles
            out["frozen"][at] = table.frozen
            out["state"][at] = table.state
        if len(self._sign_ids):
            at = np.searchsorted(ids, self._sign_ids)
            records.view(_SIGN)["sign_id"][at] = self._sign_texts

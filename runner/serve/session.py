"""What the server holds for its clients: the simulation, its episode, its clock and streams.

The simulation is lockstep's in-process `carla` layer (runner.carla.client: the Client of
a Simulation, its World, recorder and replayer); RPCs are answered by calling it, as an
in-process script would. The session adds what only a server has:

* the episode id CARLA's client watches (a new one for every world loaded);
* the clock: in synchronous mode the world steps when a client sends `tick_cue`; in
  asynchronous mode (CARLA's default) the server steps it by itself, one fixed step each
  `step_seconds()` of wall time (real time when the client asked for a variable step, as
  fast as it can when it asked for a fixed one), and only while a client listens;
* the world stream (a snapshot after every step) and each sensor's stream;
* the rpc::Actor records the client caches, the blueprint definitions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from runner.carla.client import DEFAULT_DELTA, Client
from runner.serve import sensor_streams, shapes
from runner.serve.calls_actors import trigger_volume
from runner.serve.episode_state import MAP_CHANGE, EpisodeStateWriter
from runner.serve.errors import CallError
from runner.serve.navmesh import build_navmesh
from runner.serve.stream import WORLD_STREAM, StreamHub, token
from world import Actor

__all__ = ["Session"]

# A sensor's stream id: the episode (12 bits) over the actor id (20 bits), so a stream of an
# earlier episode never reaches a sensor of this one, and none is the world's (1).
_ACTOR_BITS = 20
_EPISODE_MASK = 0xFFF


class Session:
    """The served simulation of one `lockstep serve` process."""

    def __init__(
        self,
        client: Client,
        host: str,
        port: int,
        log: Callable[[str], None],
        synchronous: bool = False,
        delta: float | None = None,
    ) -> None:
        self.client = client
        self.host, self.port = host, port
        self.log = log
        self.streams = StreamHub(on_first=self._stream_opened, on_last=self._stream_closed)
        self.episode_id = 0
        self.synchronous = synchronous
        self.asked_delta = delta  # the client's fixed_delta_seconds (None: variable)
        self._initial_mode = (synchronous, delta)
        self.opendrive_text: str | None = None  # the text copy_opendrive_to_file sent
        self._world: Any = None
        self._writer: EpisodeStateWriter | None = None
        self._actors: dict[int, list] = {}  # rpc::Actor records of this episode, by id
        self._definitions: list | None = None
        self._uids: dict[str, int] = {}
        self._pending_flags = 0
        self._listening: dict[int, Any] = {}  # sensor stream id -> the sensor listened to
        # the traffic managers registered: port -> (host, port, the client connection that
        # runs it; None for lockstep's own, served on that port)
        self.traffic_managers: dict[int, tuple[str, int, Any]] = {}
        self.caller: Any = None  # the connection whose call is being answered
        self._said: set[str] = set()
        self.seed = 0  # lockstep's own choices: the pedestrians' generator

    # the world and its episode ------------------------------------------------------------
    @property
    def world(self) -> Any:
        world = self.client.get_world()
        if world is not self._world:
            self._new_episode(world)
        return world

    def _new_episode(self, world: Any) -> None:
        """A world the client has not seen: a new episode id, its caches, and the settings
        the clock needs (the world keeps stepping in fixed ticks)."""
        self._world = world
        self.episode_id += 1
        self._writer = EpisodeStateWriter(world)
        self._actors = {}
        self._definitions = None
        self._pending_flags |= MAP_CHANGE
        settings = world.get_settings()
        if self.asked_delta is not None:
            settings.fixed_delta_seconds = self.asked_delta
        elif settings.fixed_delta_seconds is None:
            settings.fixed_delta_seconds = DEFAULT_DELTA
        world.apply_settings(settings)
        world.set_pedestrians_seed(self.seed)
        for port, (_host, _port, owner) in sorted(self.traffic_managers.items()):
            if owner is None:  # lockstep's own, served on that port: ready before any call
                manager = world.get_trafficmanager(port)
                manager.set_random_device_seed(self.seed)
                manager.fleet  # noqa: B018 - builds the map's lane paths now, not in a call

    def navigation(self) -> tuple[str, bytes] | None:
        """(file name, bytes) of the map's pedestrian navigation mesh for CARLA's client, or
        None for a map without sidewalks. The name carries the bytes' digest, so a client's
        cache never serves another map's mesh under it."""
        world_map = self.world.get_map()

        def build() -> tuple[str, bytes] | None:
            mesh = build_navmesh(world_map)
            if mesh is None:
                self.log(f"{world_map.name}: no sidewalks for CARLA's walker navigation")
                return None
            data = mesh.to_bytes()
            digest = hashlib.sha256(data).hexdigest()[:16]
            return f"lockstep/Nav/{world_map.name}-{digest}.bin", data

        return world_map.derived("serve: navigation file", build)

    def map_name(self) -> str:
        return self.world.get_map().name

    def load(self, loader: Callable[[], Any], reset_settings: bool) -> None:
        """Runs `loader` (which makes the client's world anew); resetting the settings brings
        back the mode the server started in. The new episode's first snapshot goes out with
        its first step (the client's tick_cue, or the asynchronous clock), not at once: CARLA's
        client drops its old episode right after the call returns, and a snapshot arriving
        on the old episode's stream then can crash it."""
        loader()
        for stream_id in list(self._listening):
            self._stream_closed(stream_id)
        if reset_settings:
            self.synchronous, self.asked_delta = self._initial_mode
        self.world  # noqa: B018 - the new episode, its id and settings

    # the clock ----------------------------------------------------------------------------
    def step_seconds(self) -> float | None:
        """Wall seconds between the server's own steps: None in synchronous mode, 0 when the
        client asked for a fixed step (as fast as the server can), the step otherwise."""
        if self.synchronous:
            return None
        if self.asked_delta is not None:
            return 0.0
        return float(self.world.get_settings().fixed_delta_seconds)

    def say_once(self, key: str, message: str) -> None:
        """Logs `message` the first time `key` comes up in this session."""
        if key not in self._said:
            self._said.add(key)
            self.log(message)

    def say_variable_step(self) -> None:
        self.say_once(
            "variable step",
            f"a variable step was asked: the world steps {DEFAULT_DELTA} s at a time "
            "(lockstep steps in fixed ticks)",
        )

    def tick(self) -> int:
        """One step of the world; its snapshot goes out on the world stream."""
        frame = self.world.tick()
        self.publish_world()
        return frame

    def publish_world(self) -> None:
        world = self.world
        if not self.streams.has_subscribers(WORLD_STREAM):
            return
        flags, self._pending_flags = self._pending_flags, 0
        assert self._writer is not None and world is self._world
        self.streams.publish(WORLD_STREAM, self._writer.message(self.episode_id, flags))

    def first_snapshot(self) -> bytes:
        """The last step's snapshot for a client that starts listening to the world (CARLA's
        client waits for one before `get_world()` returns in asynchronous mode)."""
        world = self.world
        assert self._writer is not None and world is self._world
        return self._writer.message(self.episode_id)  # its map is new to it anyway

    def client_left(self, connection: Any) -> None:
        """A client connection closed: the traffic managers it ran went with it."""
        for port, (_host, _port, owner) in list(self.traffic_managers.items()):
            if owner is connection:
                del self.traffic_managers[port]
                self.log(f"CARLA's traffic manager on port {port} left with its client")

    # actors -------------------------------------------------------------------------------
    def actor(self, actor_id: Any, function: str) -> Actor:
        """The live actor `actor_id`, or CARLA's not-found error for `function`."""
        actor_id = shapes.integer(actor_id, f"{function}: actor id", high=1 << 32)
        actor = self.world.get_actor(actor_id)
        if actor is None:
            raise CallError(
                f"Responding error from function {function}: Actor could not be found in "
                f"the registry.  Actor Id: {actor_id}"
            )
        return actor

    def definitions(self) -> list:
        """The blueprint library as CARLA's ActorDefinitions (uid = position + 1)."""
        if self._definitions is None:
            library = self.world.get_blueprint_library()
            out = []
            for uid, blueprint in enumerate(library, start=1):
                attributes = [
                    [
                        a.id,
                        shapes.ATTRIBUTE_TYPES[a.type.name],
                        a.value,
                        a.recommended_values,
                        a.is_modifiable,
                        a.restrict_to_recommended,
                    ]
                    for a in blueprint
                ]
                out.append([uid, blueprint.id, ",".join(blueprint.tags), attributes])
                self._uids[blueprint.id] = uid
            self._definitions = out
        return self._definitions

    def rpc_actor(self, actor: Actor) -> list:
        """CARLA's rpc::Actor: id, parent id, description, bounding box, semantic tags
        (bin), stream token (bin, sensors only)."""
        found = self._actors.get(actor.id)
        if found is None:
            self.definitions()
            type_id = actor.type_id
            types = self._attribute_types(type_id)
            description = [
                self._uids.get(type_id, 0),
                type_id,
                [[k, types.get(k, 4), v] for k, v in sorted(actor.attributes.items())],
            ]
            parent = actor.parent
            box = trigger_volume(actor) or actor.bounding_box
            stream = token(self.sensor_stream(actor.id), self.host, self.port + 1)
            found = [
                actor.id,
                0 if parent is None else parent.id,
                description,
                shapes.bounding_box_out(box),
                bytes(actor.semantic_tags),
                stream if type_id.startswith("sensor.") else b"",
            ]
            self._actors[actor.id] = found
        return found

    def _attribute_types(self, type_id: str) -> dict[str, int]:
        library = self.world.get_blueprint_library()
        if type_id not in library:
            return {}
        return {a.id: shapes.ATTRIBUTE_TYPES[a.type.name] for a in library.find(type_id)}

    def forget_actor(self, actor_id: int) -> None:
        self._actors.pop(actor_id, None)

    # sensor streams -----------------------------------------------------------------------
    def sensor_stream(self, actor_id: int) -> int:
        episode = max(1, self.episode_id & _EPISODE_MASK)
        return episode << _ACTOR_BITS | (actor_id & ((1 << _ACTOR_BITS) - 1))

    def stream_token(self, stream_id: int) -> bytes:
        return token(stream_id, self.host, self.port + 1)

    def _stream_opened(self, stream_id: int) -> None:
        if stream_id == WORLD_STREAM:
            return
        world = self.world
        sensor = world.get_actor(stream_id & ((1 << _ACTOR_BITS) - 1))
        if sensor is None or self.sensor_stream(sensor.id) != stream_id:
            return
        if not sensor.type_id.startswith("sensor."):
            return
        if sensor_streams.start_listening(self, sensor, stream_id):
            self._listening[stream_id] = sensor

    def _stream_closed(self, stream_id: int) -> None:
        sensor = self._listening.pop(stream_id, None)
        if sensor is not None and sensor.is_alive:
            sensor.stop()

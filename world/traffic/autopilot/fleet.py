"""The autopilot's per-tick work for every vehicle of one traffic manager, as numpy arrays.

Each autopilot vehicle keeps a short route: ROUTE_SLOTS lane paths
(world.traffic.autopilot.lane_paths) starting with the one it is on, and its arc position
on that path. Per tick, vectorised over vehicles:

1. localise: project the vehicle onto its current path near its last arc;
   vehicles past a path's end move on to the next path (the route is extended
   then, choosing among successors with the vehicle's own generator: a Python
   step per vehicle, only when it changes lanes, a few times a minute);
2. sample the route ahead (PATH_SAMPLES points, PATH_STEP apart from the vehicle's
   centre) and the pure-pursuit look-ahead point;
3. find the distance the vehicle may still travel: the nearest vehicle or
   walker whose footprint comes within the vehicle's half width of the path
   (less the leading distance), a red (or stoppable yellow) light at the next
   junction entry, a stop or yield sign's red, a junction where another
   vehicle already drives on a conflicting path (or arrives first), or the end
   of a dead-end lane; vehicles outside the fleet count there by the lane they
   are found on each tick (autopilot_kernels.other_vehicles);
4. target speed: the limit less the speed difference, capped by curvature
   and by braking comfortably to the stop distance; PI control of speed and
   pure pursuit steering make the VehicleControl, written to the vehicle table;
5. lane changes (auto_lane_change): vehicles behind a slower leader (any vehicle,
   autopilot or not) move their route to the free lane beside, from the next tick.

Ignore percentages are drawn once per lane path entered, from the vehicle's
generator, so a run draws the same numbers whatever else consumes randomness.
"""

from __future__ import annotations

import numpy as np

from world.actors.vehicle_state import ActorType, TrafficLightState, VehicleLightState
from world.kernels.array_table import ArrayTable
from world.traffic.autopilot.kernels import (
    FLEET_TABLE_KINDS,
    ActorColumns,
    Constants,
    ControlColumns,
    FleetSettings,
    FleetState,
    Kept,
    Work,
    stuck_row,
    tick_fleet,
)
from world.traffic.autopilot.lane_paths import HEADING_PENALTY, JUNCTION_PENALTY, LanePaths
from world.traffic.autopilot.path_ends import settle_routes, shift_routes

__all__ = ["AutopilotFleet"]

ROUTE_SLOTS = 5
PATH_SAMPLES = 25
PATH_STEP = 2.0  # m, from the vehicle's centre
COMFORT_DECEL = 3.5  # m/s², braking toward a stop point
MAX_DECEL = 6.0  # m/s², the most the vehicle is assumed to brake for a yellow light
LATERAL_ACCEL = 2.0  # m/s², the most the vehicle takes in a curve
STOP_LINE_GAP = 1.5  # m between the front bumper and the junction entry when stopped
SLOW = 3.0  # m/s: a vehicle this slow before a yellow light stops for it
BRAKE_FROM_DECEL = 4.5  # m/s²: needed deceleration (over the comfortable one) that adds brake
BRAKE_DECEL_SCALE = 8.0  # m/s² of needed deceleration per unit of brake
APPROACH = 14.0  # m from a junction entry (vehicle centre) where yielding is decided
SIGN_CRAWL = 2.5  # m/s: speed at which a vehicle reaches a stop or yield sign
SIGN_ZONE = 12.0  # m before the junction entry where the sign crawl applies
SAMPLE_DISTANCES = PATH_STEP * np.arange(PATH_SAMPLES)  # m ahead of the vehicle's centre
COARSE_STRIDE = 4  # path samples, PATH_STEP apart: one coarse sample every 8 m
COARSE_REACH = 9.0  # m: half the stride, a car's half length and half width, the margin, room
BEHIND_REACH = 6.0  # m: bodies further behind the vehicle's centre are not on its path ahead
PATH_MARGIN = 0.35  # m added to the vehicle's half width when testing its path
LOST_DISTANCE = 6.0  # m off its path: the vehicle is localised again from the map
HOLD_LIMIT = 15.0  # s stopped in a junction for an obstacle before it pushes on
CROSSING_ANGLE = 30.0  # deg: vehicles heading this much apart cross each other's paths
OVERRIDE_TIME = 4.0  # s of pushing on
VEHICLE_KIND, WALKER_KIND = int(ActorType.Vehicle), int(ActorType.Walker)  # plain ints: fast
LOCATE_WINDOW = 6  # path segments searched around the last arc
# A junction is not entered while its exit is blocked (blocked_exits), with the values of
# CARLA's traffic manager (its Constants.h, WaypointSelection and MotionPlan)
SAFE_DISTANCE_AFTER_JUNCTION = 4.0  # m along the exit lane: the safe point
MIN_SAFE_INTERVAL_LENGTH = 2.0  # m: a shorter stretch to the safe point is not checked
MAX_JUNCTION_BLOCK_DISTANCE = 4.0  # m from the stretch's middle to a blocking vehicle
AFTER_JUNCTION_MIN_SPEED = 5.0 / 3.6  # m/s: a vehicle slower than this blocks
MIN_JUNCTION_LENGTH = 8.0  # m between a junction's entry and exit: shorter is not checked
JUNCTION_CONSTANTS = np.array(
    [
        STOP_LINE_GAP,
        MAX_DECEL,
        SLOW,
        SIGN_CRAWL,
        COMFORT_DECEL,
        SIGN_ZONE,
        APPROACH,
        SAFE_DISTANCE_AFTER_JUNCTION,
        MIN_SAFE_INTERVAL_LENGTH,
        MAX_JUNCTION_BLOCK_DISTANCE,
        AFTER_JUNCTION_MIN_SPEED,
        MIN_JUNCTION_LENGTH,
    ]
)
NO_LIGHTS = np.zeros(0, dtype=np.int8)
HELD_SPEED = 0.5  # m/s: a vehicle outside the fleet this slow before a junction is held
# other_vehicles: the lane search of the vehicles outside the fleet (LanePaths.nearest's
# penalties), the distance off a lane beyond which one is on none, HELD_SPEED, APPROACH
OTHER_CONSTANTS = np.array(
    [HEADING_PENALTY, JUNCTION_PENALTY, LOCATE_WINDOW, LOST_DISTANCE, HELD_SPEED, APPROACH]
)


# What sets each vehicle's stop point (`AutopilotFleet.reason`, for inspection and tests).
STOP_NONE, STOP_ROUTE_END, STOP_LIGHT, STOP_SIGN, STOP_YIELD, STOP_OBSTACLE = range(6)
CONTROL_CONSTANTS = np.array(
    [COMFORT_DECEL, BRAKE_FROM_DECEL, BRAKE_DECEL_SCALE, HOLD_LIMIT, OVERRIDE_TIME]
)
PLAN_CONSTANTS = np.array(
    [
        LATERAL_ACCEL,
        COMFORT_DECEL,
        PATH_STEP,
        CROSSING_ANGLE,
        BEHIND_REACH,
        COARSE_STRIDE,
        COARSE_REACH,
        PATH_MARGIN,
        VEHICLE_KIND,
        WALKER_KIND,
        STOP_OBSTACLE,
    ],
    dtype=np.float64,
)
# Automatic lane changes (lane_changes), after CARLA's traffic manager (LocalizationStage's
# AssignLaneChange: a leader within 50 m, 10 m or 10 s of driving between changes, right
# before left); a vehicle changes only behind a leader slower than it wishes to drive (any
# vehicle; one outside the fleet is held in a red box or within LANE_CHANGE_ROOM of a junction).
LANE_CHANGE_ROOM = 30.0  # m left on its lane and on the lane beside
LANE_CHANGE_REACH = 50.0  # m to the leader at most (centre to centre)...
LANE_CHANGE_MIN_GAP = 10.0  # m: ...and at least this, bumper to bumper
LANE_CHANGE_GAIN = 2.0  # m/s: the leader drives at least this much slower than wished
LANE_CHANGE_BEHIND = 8.0  # m behind the vehicle that the lane beside must be free...
LANE_CHANGE_BEHIND_TIME = 1.5  # s: ...plus this time at the wished speed
LANE_CHANGE_AHEAD = 10.0  # m beyond the leader that it must be free...
LANE_CHANGE_MIN_AHEAD = 20.0  # m: ...and at least this far ahead
LANE_CHANGE_SPACING = 10.0  # m driven between two changes, at least...
LANE_CHANGE_SPACING_TIME = 10.0  # s: ...and this time at the current speed
LANE_CHANGE_CONSTANTS = np.array(
    [
        STOP_OBSTACLE,
        STOP_LIGHT,
        STOP_SIGN,
        STOP_YIELD,
        LANE_CHANGE_ROOM,
        LANE_CHANGE_REACH,
        LANE_CHANGE_MIN_GAP,
        LANE_CHANGE_GAIN,
        LANE_CHANGE_BEHIND,
        LANE_CHANGE_BEHIND_TIME,
        LANE_CHANGE_AHEAD,
        LANE_CHANGE_MIN_AHEAD,
        LANE_CHANGE_SPACING,
        LANE_CHANGE_SPACING_TIME,
        int(TrafficLightState.Red),
        PATH_MARGIN,
    ],
    dtype=np.float64,
)
_SET_BY_CONTROLS = (
    VehicleLightState.Brake | VehicleLightState.LeftBlinker | VehicleLightState.RightBlinker
)
LIGHT_BITS = np.array(
    [
        0xFFFFFFFF & ~int(_SET_BY_CONTROLS),
        int(VehicleLightState.Position | VehicleLightState.LowBeam),
        int(VehicleLightState.Brake),
        int(VehicleLightState.LeftBlinker),
        int(VehicleLightState.RightBlinker),
    ],
    dtype=np.int64,
)


def _work(n: int, vrow_type: np.dtype) -> Work:
    empty, index = np.empty(n), np.empty(n, dtype=np.int64)
    return Work(
        np.empty(n, dtype=vrow_type),
        np.empty((n, 3)),
        *(empty.copy() for _ in range(7)),
        index,
        index.copy(),
        index.copy(),
        np.full(n, -1, dtype=np.int64),
    )


CONSTANTS = Constants(
    PLAN_CONSTANTS,
    JUNCTION_CONSTANTS,
    CONTROL_CONSTANTS,
    LANE_CHANGE_CONSTANTS,
    OTHER_CONSTANTS,
    LIGHT_BITS,
    SAMPLE_DISTANCES,
)


class AutopilotFleet:
    """Autopilot state of registered vehicles, one row each, in registration order."""

    def __init__(self, world) -> None:
        self.world = world
        traffic = world.traffic_signals()
        light_boxes, sign_boxes = [], []
        if traffic is not None:
            from world.traffic.signals.system import BOX_EFFECT, BOX_LIGHT

            for box in traffic.boxes:
                loc = box.transform.location
                centre = np.array([loc.x, loc.y, loc.z])
                if box.kind == BOX_LIGHT:
                    light_boxes.append((centre, box.owner))
                elif box.kind == BOX_EFFECT:
                    sign_boxes.append((centre, box.owner))
        self.paths = LanePaths.of_map(world.get_map(), light_boxes, sign_boxes)
        self.actor = np.zeros(0, dtype=np.int64)  # actor rows
        self.route = np.zeros((0, ROUTE_SLOTS), dtype=np.int64)
        self.arc = np.zeros(0)
        self.integral = np.zeros(0)
        self.hold_time = np.zeros(0)
        self.near_time = np.zeros(0)  # s within APPROACH of its next junction entry (its turn)
        self.override = np.zeros(0)
        self.ignore = np.zeros((0, 4), dtype=bool)  # lights, signs, vehicles, walkers
        self.rngs: list[np.random.Generator] = []
        self.commands: list[list[str]] = []
        self.targets: list[list[np.ndarray]] = []
        self.reason = np.zeros(0, dtype=np.int64)
        self.changed_at = np.zeros((0, 2))  # x, y of the last lane change (nan: none yet)
        self.idle_since = np.zeros(0)  # s: when last seen moving (the manager's stuck rule)
        self.version = 0  # counts membership changes (the manager's per-vehicle columns follow)
        self._arguments_key: tuple = ()
        self._arguments: tuple[Work, ArrayTable] | None = None
        self._ignore_of: np.ndarray | None = None  # the manager's ignore chances last seen...
        self._ignore_any: list[bool] = []  # ...and whether each vehicle's has one not 0

    def __len__(self) -> int:
        return len(self.actor)

    # -- membership ------------------------------------------------------------------------

    def slot(self, actor_row: int) -> int:
        found = np.flatnonzero(self.actor == actor_row)
        return int(found[0]) if len(found) else -1

    def add(self, actor_row: int, rng: np.random.Generator) -> None:
        if self.slot(actor_row) >= 0:
            return
        a = self.world.state_tables().actors
        path, arc = self._localise(a.pos[actor_row], a.rot[actor_row, 1])
        self.actor = np.append(self.actor, actor_row)
        route = np.full((1, ROUTE_SLOTS), -1, dtype=np.int64)
        route[0, 0] = path
        self.route = np.vstack([self.route, route])
        self.arc = np.append(self.arc, arc)
        self.integral = np.append(self.integral, 0.0)
        self.hold_time = np.append(self.hold_time, 0.0)
        self.near_time = np.append(self.near_time, 0.0)
        self.override = np.append(self.override, 0.0)
        self.ignore = np.vstack([self.ignore, np.zeros((1, 4), dtype=bool)])
        self.reason = np.append(self.reason, STOP_NONE)
        self.changed_at = np.vstack([self.changed_at, np.full((1, 2), np.nan)])
        self.idle_since = np.append(self.idle_since, np.nan)
        self.rngs.append(rng)
        self.commands.append([])
        self.targets.append([])
        self.version += 1
        self._extend(len(self.actor) - 1)

    def remove(self, actor_row: int) -> None:
        i = self.slot(actor_row)
        if i < 0:
            return
        keep = np.arange(len(self.actor)) != i
        self._keep(keep)

    def _keep(self, keep: np.ndarray) -> None:
        names = (
            "actor",
            "route",
            "arc",
            "integral",
            "hold_time",
            "near_time",
            "override",
            "ignore",
            "reason",
            "changed_at",
            "idle_since",
        )
        for name in names:
            setattr(self, name, getattr(self, name)[keep])
        idx = np.flatnonzero(keep).tolist()
        self.rngs = [self.rngs[i] for i in idx]
        self.commands = [self.commands[i] for i in idx]
        self.targets = [self.targets[i] for i in idx]
        self.version += 1

    def prune(self) -> None:
        """Forgets vehicles that were destroyed."""
        alive = self.world.state_tables().actors.alive[self.actor]
        if not alive.all():
            self._keep(alive)

    def replan(self, i: int) -> None:
        """Chooses the route again after the current path (new commands or targets)."""
        self.route[i, 1:] = -1
        self._extend(i)

    def change_lane(self, i: int, right: bool) -> bool:
        """Moves vehicle i's route to the next lane right (or left) in its direction, if any."""
        target = int(self.paths.neighbour[int(self.route[i, 0]), 0 if right else 1])
        if target < 0:
            return False
        self._move_to_lane(i, target)
        return True

    def _move_to_lane(self, i: int, target: int) -> None:
        """Vehicle i's route starts again on path `target` (beside its own), where it stands."""
        row = int(self.actor[i])
        xy = self.world.state_tables().actors.pos[row, None, :2]
        lengths = self.paths.length
        here = lengths[int(self.route[i, 0])]
        near = self.arc[i] * lengths[target] / here if here > 0.0 else self.arc[i]
        arc, _ = self.paths.locate(np.array([target]), np.array([near]), xy)
        self.route[i] = -1
        self.route[i, 0] = target
        self.arc[i] = float(arc[0])
        self.changed_at[i] = xy[0]
        self._extend(i)

    def _localise(self, pos: np.ndarray, yaw: float) -> tuple[int, float]:
        """The driving lane path under a pose and the arc on it (LanePaths.nearest)."""
        path, arc, _ = self.paths.nearest(pos[None, :2], np.array([yaw]), LOCATE_WINDOW)
        return int(path[0]), float(arc[0])

    def relocate(self, i: int) -> None:
        a = self.world.state_tables().actors
        row = int(self.actor[i])
        path, arc = self._localise(a.pos[row], a.rot[row, 1])
        self.route[i] = -1
        self.route[i, 0] = path
        self.arc[i] = arc
        self._extend(i)

    # -- route choices (rare, per vehicle) -------------------------------------------------

    def _extend(self, i: int) -> None:
        """Fills vehicle i's empty route slots after its last path (read as a list: numpy's
        scalars cost a call each)."""
        route = self.route[i]
        slots = route.tolist()
        for r in range(1, ROUTE_SLOTS):
            if slots[r] >= 0:
                continue
            last = slots[r - 1]
            if last < 0:
                break
            succ = self.paths.successors[last]
            if not succ:
                break
            slots[r] = succ[0] if len(succ) == 1 else self._choose(i, last, succ)
            route[r] = slots[r]

    def _choose(self, i: int, last: int, succ: list[int]) -> int:
        """A junction exit: by the next route command, toward the next path location, or drawn."""
        if self.commands[i]:
            return self._by_command(self.commands[i].pop(0), last, succ, i)
        if self.targets[i]:
            target = self.targets[i][0]
            ends = np.array([self._end_point(s) for s in succ])
            best = int(np.argmin(np.linalg.norm(ends[:, :2] - target[:2], axis=1)))
            if np.linalg.norm(ends[best, :2] - target[:2]) < 5.0:
                self.targets[i].pop(0)
            return succ[best]
        return succ[int(self.rngs[i].integers(len(succ)))]

    def _end_point(self, path: int) -> np.ndarray:
        p = self.paths
        return p.points[p.first[path] + p.count[path] - 1]

    def _by_command(self, command: str, last: int, succ: list[int], i: int) -> int:
        turn = np.array([self.paths.turn_angle(s) for s in succ])
        name = str(command).lower()
        if name == "left":
            return succ[int(np.argmin(turn))]
        if name == "right":
            return succ[int(np.argmax(turn))]
        if name == "straight":
            return succ[int(np.argmin(np.abs(turn)))]
        return succ[int(self.rngs[i].integers(len(succ)))]

    def _draw_ignores(self, i: int, percentages: np.ndarray, drawn: bool) -> None:
        """Vehicle i's ignore flags for the lane it enters, drawn from its generator when any
        of its `percentages` is not 0 (`drawn`), else all False."""
        if drawn:
            self.ignore[i] = self.rngs[i].random(4) * 100.0 < percentages
        else:
            self.ignore[i] = False

    # -- the tick --------------------------------------------------------------------------

    def tick(
        self,
        settings: FleetSettings,
        ignore: np.ndarray,
        global_pct: float,
        global_lead: float,
        dt: float,
    ) -> bool:
        """One tick of every vehicle in one compiled call (tick_fleet: localisation, then the
        plan, which writes the controls), or, on a tick where a vehicle passed its path's end
        or got lost, localisation, Python for those rare events, then the plan; the lane
        changes the plan decides are taken here. `settings` and `ignore` (the ignore chances,
        (N, 4)) are the manager's per-vehicle settings, `global_pct` and `global_lead` its
        speed difference and leading distance. False, with nothing done, when a vehicle was
        destroyed (prune first)."""
        tables = self.world.state_tables()
        work, table = self._kernel_arguments(tables, settings)
        per_tick = (tables.actors.n, dt, float(global_pct), float(global_lead))
        past, _, all_alive, changes = tick_fleet(
            table.table, *per_tick, LOCATE_WINDOW, LOST_DISTANCE, True
        )
        if not all_alive:
            return False
        if changes < 0:
            changes = self._past_ends(work, table.table, past, per_tick, ignore)
        # lane changes decided now take effect from the next tick
        if changes:
            for i, path in zip(
                work.changers[:changes].tolist(), work.to_paths[:changes].tolist(), strict=True
            ):
                self._move_to_lane(i, path)
        return True

    def _past_ends(
        self, work: Work, table: np.ndarray, past: int, per_tick: tuple, ignore: np.ndarray
    ) -> int:
        """The rest of a tick on which `past` vehicles (work.past) passed their path's end or
        some got lost (world.traffic.autopilot.path_ends): each moves on to its next path
        (extending its route and drawing its ignores), again while past the new path's end
        too, at most ROUTE_SLOTS - 1 times; then the lost ones are located from the map; then
        the plan. Its number of lane changes."""
        moved = past
        if moved:
            shift_routes(table, moved)
        if ignore is not self._ignore_of:  # (the manager makes them again on a change)
            self._ignore_of, self._ignore_any = ignore, ignore.any(axis=1).tolist()
        rounds = 1
        while True:
            for i in work.past[:moved].tolist():
                self._extend(i)
                self._draw_ignores(i, ignore[i], self._ignore_any[i])
            more = moved > 0 and rounds < ROUTE_SLOTS - 1
            moved, lost, changes = settle_routes(
                table, moved, more, *per_tick, LOCATE_WINDOW, LOST_DISTANCE
            )
            if changes >= 0:
                return changes
            if not moved:
                break
            rounds += 1
        for i in work.past[:lost].tolist():
            self.relocate(i)
        return tick_fleet(table, *per_tick, LOCATE_WINDOW, LOST_DISTANCE, False)[3]

    def stuck_row(self, hero: np.ndarray, limits: tuple, now: float) -> int:
        """The actor row of the vehicle to remove now as stuck by the manager's rule
        (kernels.stuck_row; `limits`: the manager's STUCK_LIMITS; `hero`: the vehicles never
        removed), -1 for none; keeps each vehicle's idle time (`idle_since`, seconds: the
        elapsed time it was last seen moving, nan until seen at a time past 0) up to date.
        One compiled call (a dozen numpy passes over the fleet cost ~20 us a tick at 100
        vehicles)."""
        a, v, _ = self.world.state_tables()
        columns = (a.alive, a.vel, a.vrow, v.tl_state)
        return stuck_row(self.actor, hero, self.idle_since, columns, limits, float(now))

    def _kernel_arguments(self, tables, settings: FleetSettings) -> tuple[Work, ArrayTable]:
        """The work arrays and tick_fleet's table of the arrays it reads and writes, made
        again only when an array among them may have been replaced: the membership changed,
        the manager's per-vehicle settings were made again, a table grew. The table holds
        those arrays (world.kernels.array_table), so no address in it outlives its array and
        the ids in the key are those of live arrays, which no other array can take."""
        signals = self.world.traffic_signals()
        light_state = signals.system.groups.state if signals is not None else NO_LIGHTS
        key = (
            self.version,
            id(settings.speed_pct),
            id(tables.actors.pos),
            id(tables.vehicles.throttle),
            id(light_state),
        )
        if self._arguments is None or key != self._arguments_key:
            self._arguments_key = key
            self._arguments = self._gather_arguments(tables, settings, light_state)
        return self._arguments

    def _gather_arguments(
        self, tables, settings: FleetSettings, light_state: np.ndarray
    ) -> tuple[Work, ArrayTable]:
        """The work arrays, and the table of tick_fleet's groups (FLEET_TABLE_KINDS)."""
        a, v = tables.actors, tables.vehicles
        work = _work(len(self.actor), a.vrow.dtype)
        fleet = FleetState(
            self.actor,
            self.route,
            self.arc,
            self.ignore,
            self.integral,
            self.hold_time,
            self.override,
            self.reason,
            self.changed_at,
            self.near_time,
        )
        actors = ActorColumns(
            a.alive, a.body, a.static_collider, a.kind, a.vrow, a.pos, a.rot, a.vel, a.extent,
            a.box_loc,
        )  # fmt: skip
        controls = ControlColumns(
            v.wheelbase, v.cg_front, v.max_steer, v.speed_limit, v.tl_actor, v.tl_state,
            v.steer_kmh, v.steer_factor, v.throttle, v.steer, v.brake, v.hand_brake,
            v.reverse, v.manual_gear_shift, v.ackermann, v.lights, v.sign_boxes,
        )  # fmt: skip
        lanes = self.paths.arrays()
        n = len(self.actor)
        kept = Kept(
            np.full((n, ROUTE_SLOTS), -1, dtype=np.int64),
            np.full(n, np.nan),
            np.empty((n * PATH_SAMPLES, 3)),
            np.empty((n, PATH_SAMPLES), dtype=np.int64),
            np.full(n, -1, dtype=np.int64),
            np.full(n, np.nan),
            np.empty((n, 2)),
        )
        groups = (fleet, settings, work, lanes, actors, controls, CONSTANTS, (light_state,), kept)
        return work, ArrayTable(groups, FLEET_TABLE_KINDS)

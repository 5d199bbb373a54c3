"""The town's plan: crossings (nodes) on a grid, street segments between them, and every seeded
choice (lanes per street line, speed limits, junction control, crossing heights, parking
lanes).

Each kind of choice draws from its own generator spawned from the seed, so turning hills on
does not change the lanes or the junction control of a town.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from world import elementary as el
from world.map.towngen.path import spiral_corner_reach
from world.map.towngen.spec import TownSpec, TownSpecError

ARMS = ("E", "N", "W", "S")
ARM_HEADING = {"E": 0.0, "N": 0.5 * math.pi, "W": math.pi, "S": -0.5 * math.pi}
SIGNALISED, STOP, YIELD, PLAIN, ROUNDED = "signalised", "stop", "yield", "plain", "rounded"
CONTROL_KINDS = (SIGNALISED, STOP, YIELD)
MIN_STREET_LENGTH = 20.0
CORNER_LEAD = 2.0  # straight metres between a rounded corner's spiral and the street
PARKING_CLEAR = 8.0  # m at each street end without a parking lane (crosswalk, lights, signs)
PARKING_TAPER = 5.0  # m over which a parking lane widens from nothing to its full width


@dataclass(frozen=True)
class Node:
    """A grid crossing: position, height, arms, control kind and how far each arm's street
    starts from the centre (the junction's half-size along that arm)."""

    i: int
    j: int
    x: float
    y: float
    z: float
    arms: tuple[str, ...]
    kind: str
    extent: dict[str, float]

    @property
    def key(self) -> tuple[int, int]:
        return self.i, self.j


@dataclass(frozen=True)
class Street:
    """A street segment from node `start` to node `end` (east- or north-bound reference line)."""

    axis: str  # "h" (west to east) or "v" (south to north)
    start: tuple[int, int]
    end: tuple[int, int]
    lanes: int
    speed_kmh: int
    parking: bool = False  # a parking lane each side (narrowing to nothing at both ends)


@dataclass(frozen=True)
class Layout:
    """Nodes by (i, j), streets in order (rows, then columns), lanes per row and column."""

    spec: TownSpec
    nodes: dict[tuple[int, int], Node]
    streets: list[Street]
    row_lanes: tuple[int, ...]
    col_lanes: tuple[int, ...]
    street_index: dict[tuple[tuple[int, int], tuple[int, int]], int]

    def street_at(self, node: tuple[int, int], arm: str) -> tuple[int, Street]:
        """The street leaving `node` along `arm`, with its index."""
        i, j = node
        other = {"E": (i + 1, j), "N": (i, j + 1), "W": (i - 1, j), "S": (i, j - 1)}[arm]
        index = self.street_index[(node, other) if arm in ("E", "N") else (other, node)]
        return index, self.streets[index]


def plan_town(spec: TownSpec) -> Layout:
    """Draws every seeded choice and places the nodes and streets."""
    bx, by = spec.blocks_x, spec.blocks_y
    lanes_rng, speed_rng, kind_rng, hill_rng, parking_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(spec.seed).spawn(5)
    )
    low, high = spec.lane_range
    row_lanes = [int(n) for n in lanes_rng.integers(low, high + 1, size=by + 1)]
    col_lanes = [int(n) for n in lanes_rng.integers(low, high + 1, size=bx + 1)]
    if spec.curves:
        ring = int(lanes_rng.integers(low, high + 1))
        row_lanes[0] = row_lanes[by] = col_lanes[0] = col_lanes[bx] = ring
    limits = np.asarray(spec.speed_limits, dtype=np.int64)
    row_speed = [int(v) for v in speed_rng.choice(limits, size=by + 1)]
    col_speed = [int(v) for v in speed_rng.choice(limits, size=bx + 1)]
    heights = hill_rng.uniform(0.0, spec.hill_height, size=(bx + 1, by + 1))
    if not spec.hills:
        heights = np.zeros_like(heights)

    keys = [(i, j) for j in range(by + 1) for i in range(bx + 1)]
    arms_of = {key: _arms(key, bx, by) for key in keys}
    controlled = [key for key in keys if len(arms_of[key]) >= 3]
    kinds = _draw_kinds(kind_rng, len(controlled), spec.junction_weights)
    kind_of = dict(zip(controlled, kinds, strict=True))
    corner_kind = ROUNDED if spec.curves else PLAIN

    reach = 0.0
    if spec.curves:
        reach = spiral_corner_reach(*spec.corner_geometry) + CORNER_LEAD
    nodes: dict[tuple[int, int], Node] = {}
    for key in keys:
        i, j = key
        arms = arms_of[key]
        kind = kind_of.get(key, corner_kind)
        extent = {}
        for arm in arms:
            crossing_lanes = col_lanes[i] if arm in ("E", "W") else row_lanes[j]
            extent[arm] = (
                reach
                if kind == ROUNDED
                else spec.turn_radius + (crossing_lanes - 1) * spec.lane_width
            )
        z = round(float(heights[i, j]), 3)
        nodes[key] = Node(i, j, i * spec.block_size, j * spec.block_size, z, arms, kind, extent)

    streets = [
        Street("h", (i, j), (i + 1, j), row_lanes[j], row_speed[j])
        for j in range(by + 1)
        for i in range(bx)
    ]
    streets += [
        Street("v", (i, j), (i, j + 1), col_lanes[i], col_speed[i])
        for i in range(bx + 1)
        for j in range(by)
    ]
    index = {(street.start, street.end): k for k, street in enumerate(streets)}
    layout = Layout(spec, nodes, streets, tuple(row_lanes), tuple(col_lanes), index)
    for street in streets:
        length = street_length(layout, street)
        if length < MIN_STREET_LENGTH:
            raise TownSpecError(
                f"town spec: block_size: expected streets of at least {MIN_STREET_LENGTH:g} m "
                f"between junctions, found {length:.2f} m (make block_size larger)"
            )
    if spec.parking > 0.0:
        draws = parking_rng.random(len(streets))
        streets = [
            replace(street, parking=bool(draw < spec.parking) and _parkable(layout, street))
            for street, draw in zip(streets, draws, strict=True)
        ]
        layout = replace(layout, streets=streets)
    return layout


def _parkable(layout: Layout, street: Street) -> bool:
    """A street may get parking lanes when it runs between two junctions (a rounded corner's
    road has none to join) and is long enough for them to reach their full width."""
    ends = (layout.nodes[street.start], layout.nodes[street.end])
    room = 2.0 * (PARKING_CLEAR + PARKING_TAPER)
    return all(node.kind != ROUNDED for node in ends) and street_length(layout, street) > room


def street_length(layout: Layout, street: Street) -> float:
    """Length of a street between its two junctions' edges."""
    start_arm, end_arm = ("E", "W") if street.axis == "h" else ("N", "S")
    return (
        layout.spec.block_size
        - layout.nodes[street.start].extent[start_arm]
        - layout.nodes[street.end].extent[end_arm]
    )


def arm_point(node: Node, arm: str, along: float, right_of_inbound: float) -> tuple[float, float]:
    """The point `along` m out from the node's centre on `arm`, shifted `right_of_inbound` m to
    the right of a vehicle driving in on that arm (towards the centre)."""
    out = ARM_HEADING[arm]
    inbound = out + math.pi
    return (
        node.x + along * el.cos(out) + right_of_inbound * el.sin(inbound),
        node.y + along * el.sin(out) - right_of_inbound * el.cos(inbound),
    )


def _arms(key: tuple[int, int], bx: int, by: int) -> tuple[str, ...]:
    i, j = key
    present = {"E": i < bx, "N": j < by, "W": i > 0, "S": j > 0}
    return tuple(arm for arm in ARMS if present[arm])


def _draw_kinds(rng: np.random.Generator, count: int, weights: tuple[float, ...]) -> list[str]:
    """Control kinds for `count` junctions: each kind with a positive weight at least once when
    there are enough junctions, the rest drawn by weight, all in a seeded order."""
    p = np.asarray(weights, dtype=np.float64) / sum(weights)
    kinds = [kind for kind, w in zip(CONTROL_KINDS, p, strict=True) if w > 0.0][:count]
    extra = rng.choice(len(CONTROL_KINDS), size=count - len(kinds), p=p)
    kinds += [CONTROL_KINDS[k] for k in extra]
    return [kinds[k] for k in rng.permutation(count)]

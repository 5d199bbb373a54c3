"""Driving lanes as polylines in their travel direction, for the autopilot's vectorised queries.

Every driving lane node of the map (road, section, lane) becomes a polyline of
its centre samples (<= 1 m apart, the Map's own samples) ordered the way its
traffic moves. All polylines are concatenated into one array whose cumulative
arc length runs on across lanes (`base[p]` is where lane path p starts), so
"the point d metres into path p" for many (p, d) at once is one `searchsorted`.

Each path also knows its successors (driving lanes only, in the Map's order),
its junction (-1 outside), the traffic light whose box lies on it (-1: none),
for junction paths, which other paths of the same junction cross or merge
into it (`conflict(p, q)`; kept per junction, a small matrix over its own paths, so the
table grows with the junctions, not with the square of the paths), and the paths beside it in
its direction (`neighbour`: right, left). `nearest` finds the lane path under poses
(the autopilot's relocalisation and its lanes of the vehicles it does not drive).

All of it but the lights and give-way flags depends on the map alone, and nothing
changes it once built: `LanePaths.of_map` builds it once per Map (every traffic manager
of every route on that map shares it) and adds the lights and signs of a world.
"""

from __future__ import annotations

import copy

import numpy as np

from world import elementary as el
from world.map.lane_enums import LaneType
from world.traffic.autopilot.kernels import (
    LaneArrays,
    locate_on_paths,
    nearest_lanes,
    sample_paths,
    segment_tangents,
)

__all__ = ["CONFLICT_DISTANCE", "LanePaths"]

CONFLICT_DISTANCE = 2.5  # m: two junction paths whose centres come this close conflict
HEADING_PENALTY = 20.0  # m added (nearest) to points heading more than 60 degrees away
JUNCTION_PENALTY = 0.5  # m added (nearest) to junction points (junction paths overlap at ends)
GRID_CELL = 3.0  # m: the side of a cell of the points' grid (nearest's search)


class LanePaths:
    """The map's driving lanes as concatenated travel-direction polylines."""

    @classmethod
    def of_map(
        cls,
        world_map,
        light_boxes: list[tuple[np.ndarray, int]] = (),
        sign_boxes: list[tuple[np.ndarray, int]] = (),
    ) -> LanePaths:
        """The lane paths of `world_map` with these lights and signs: the map's paths built
        once per Map (their arrays shared, never written), and light and give-way flags of
        their own when boxes are given."""
        shared = world_map.derived("lane paths", lambda: cls(world_map))
        if not light_boxes and not sign_boxes:
            return shared
        out = copy.copy(shared)
        out._mark_signals(world_map, light_boxes, sign_boxes)
        return out

    def __init__(
        self,
        world_map,
        light_boxes: list[tuple[np.ndarray, int]] = (),
        sign_boxes: list[tuple[np.ndarray, int]] = (),
    ) -> None:
        graph = world_map.road_graph
        keys = world_map.lane_keys
        driving = [i for i, k in enumerate(keys) if graph.nodes[k].lane_type & LaneType.Driving]
        self.node_of_path = np.array(driving, dtype=np.int64)
        self.path_of_node = np.full(len(keys), -1, dtype=np.int64)
        self.path_of_node[self.node_of_path] = np.arange(len(driving))
        self.keys = [keys[i] for i in driving]
        self.index = {key: p for p, key in enumerate(self.keys)}
        seg = world_map.lane_segments
        order = np.argsort(seg.node, kind="stable")
        starts = np.searchsorted(seg.node[order], self.node_of_path, side="left")
        ends = np.searchsorted(seg.node[order], self.node_of_path, side="right")
        points, widths = [], []
        for p, key in enumerate(self.keys):
            rows = order[starts[p] : ends[p]]
            a, b = seg.a[rows], seg.b[rows]
            pts = np.vstack([a, b[-1:]]) if len(rows) else np.zeros((0, 3))
            width = np.append(seg.width[rows], seg.width[rows][-1:]) if len(rows) else []
            if not graph.nodes[key].forward:
                pts, width = pts[::-1], np.asarray(width)[::-1]
            points.append(pts)
            widths.append(np.asarray(width, dtype=np.float64))
        self.count = np.array([len(p) for p in points], dtype=np.int64)
        self.first = np.concatenate([[0], np.cumsum(self.count)[:-1]]).astype(np.int64)
        self.points = np.vstack(points) if points else np.zeros((0, 3))
        self.width = np.concatenate(widths) if widths else np.zeros(0)
        step = np.linalg.norm(np.diff(self.points, axis=0), axis=1)
        # steps between the last point of one path and the first of the next count zero
        last = self.first[1:] - 1
        step[last] = 0.0
        self.cum = np.concatenate([[0.0], np.cumsum(step)])
        self.base = self.cum[self.first]
        self.length = self.cum[self.first + self.count - 1] - self.base
        self.junction = np.array(
            [_junction_index(world_map, k[0]) for k in self.keys], dtype=np.int64
        )
        self.point_junction = np.repeat(self.junction >= 0, self.count)
        tangent = np.diff(self.points[:, :2], axis=0, append=self.points[-1:, :2])
        tangent[self.first + self.count - 1] = tangent[np.maximum(self.first + self.count - 2, 0)]
        self.point_heading = np.degrees(el.atan2_v(tangent[:, 1], tangent[:, 0]))
        # the direction (and its heading, rad) of the segment starting at each point
        self.segment_tangent = segment_tangents(self.points, self.first, self.count)
        self.segment_heading = el.atan2_v(self.segment_tangent[:, 1], self.segment_tangent[:, 0])
        self.grid_first, self.grid_point, self.grid_frame = _point_grid(self.points, GRID_CELL)
        self.successors: list[list[int]] = [
            [int(self.path_of_node[world_map.lane_index(n)]) for n in graph.nodes[k].next]
            for k in self.keys
        ]
        self.successors = [[s for s in succ if s >= 0] for succ in self.successors]
        # the successors as flat arrays for compiled code: path p's are
        # successor_flat[successor_first[p] : successor_first[p + 1]]
        self.successor_first = np.concatenate(
            [[0], np.cumsum([len(s) for s in self.successors])]
        ).astype(np.int64)
        self.successor_flat = np.array([s for succ in self.successors for s in succ], np.int64)
        self.predecessors: list[list[int]] = [[] for _ in self.keys]
        for p, succ in enumerate(self.successors):
            for s in succ:
                self.predecessors[s].append(p)
        self._mark_signals(world_map, light_boxes, sign_boxes)
        self.junction_member, self.conflict_first, self.conflict_flat = self._conflicts()
        self.junction_size = np.bincount(self.junction[self.junction >= 0]).astype(np.int64)
        self.neighbour = self._neighbours(graph)

    def _mark_signals(self, world_map, light_boxes, sign_boxes) -> None:
        """`light`: the traffic light whose box lies on each path (-1: none); `give_way`:
        whether a sign's box does (new arrays, never the shared ones changed)."""
        self.light = np.full(len(self.keys), -1, dtype=np.int64)
        for p, light in self._paths_under(world_map, light_boxes):
            self.light[p] = light
        self.give_way = np.zeros(len(self.keys), dtype=bool)
        for p, _sign in self._paths_under(world_map, sign_boxes):
            self.give_way[p] = True

    def _neighbours(self, graph) -> np.ndarray:
        """(P, 2): the driving lane path beside each path on its right and on its left in the
        same road section and travel direction (-1: none). Lane ids grow away from the
        reference line on both sides, so the driver's right is the larger |lane id|."""
        out = np.full((len(self.keys), 2), -1, dtype=np.int64)
        for p, (road, section, lane) in enumerate(self.keys):
            away = 1 if lane > 0 else -1
            forward = graph.nodes[(road, section, lane)].forward
            for side, beside in enumerate((lane + away, lane - away)):
                q = self.index.get((road, section, beside), -1)
                same_side = beside != 0 and (beside > 0) == (lane > 0)
                if same_side and q >= 0 and graph.nodes[self.keys[q]].forward == forward:
                    out[p, side] = q
        return out

    def _paths_under(self, world_map, boxes) -> list[tuple[int, int]]:
        """(path, owner) for each box centre that lies on a driving lane path."""
        if not boxes:
            return []
        proj = world_map.project_batch(np.array([c for c, _ in boxes]), LaneType.Driving)
        out = []
        for (_, owner), node in zip(boxes, proj.node.tolist(), strict=True):
            p = int(self.path_of_node[node]) if node >= 0 else -1
            if p >= 0:
                out.append((p, int(owner)))
        return out

    def arrays(self) -> tuple:
        """The arrays the autopilot's kernels read, as a plain tuple in LaneArrays' field order
        (world.traffic.autopilot.kernels)."""
        return tuple(
            LaneArrays(
                self.points, self.cum, self.base, self.length, self.first, self.count,
                self.segment_tangent, self.segment_heading, self.junction, self.light,
                self.give_way, self.neighbour, self.width, self.point_junction,
                self.point_heading, self.grid_first, self.grid_point, self.grid_frame,
                self.successor_first, self.successor_flat, self.junction_member,
                self.junction_size, self.conflict_first, self.conflict_flat,
            )
        )  # fmt: skip

    def turn_angle(self, path: int) -> float:
        """Heading change (deg, + = right) from the path's start to its end."""
        i, j = self.first[path], self.first[path] + self.count[path] - 1
        a = self.points[i + 1] - self.points[i]
        b = self.points[j] - self.points[j - 1]
        turn = np.degrees(el.atan2_v(b[1], b[0]) - el.atan2_v(a[1], a[0]))
        return float((turn + 180.0) % 360.0 - 180.0)

    def __len__(self) -> int:
        return len(self.keys)

    def at(self, path: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points (…, 3) and unit travel directions (…, 2) `d` metres into each path."""
        path, d = np.broadcast_arrays(np.asarray(path, dtype=np.int64), np.asarray(d, dtype=float))
        point, tangent = sample_paths(
            self.points,
            self.cum,
            self.base,
            self.length,
            self.first,
            self.count,
            self.segment_tangent,
            path.ravel(),
            d.ravel(),
        )
        return point.reshape((*path.shape, 3)), tangent.reshape((*path.shape, 2))

    def locate(self, path: np.ndarray, near: np.ndarray, xy: np.ndarray, window: int = 6):
        """Arc position on each path of points `xy` (N, 2), searching the segments around the arc
        `near` (N,); returns (arc, lateral distance)."""
        path = np.asarray(path, dtype=np.int64)
        return locate_on_paths(
            self.points,
            self.cum,
            self.base,
            self.first,
            self.count,
            path,
            np.asarray(near, dtype=float),
            np.ascontiguousarray(xy, dtype=float),
            int(window),
            np.full(len(path), -1, dtype=np.int64),
        )

    def nearest(self, xy: np.ndarray, yaw: np.ndarray, window: int = 6):
        """The driving lane path under each pose (xy (N, 2), yaw (N,) degrees): the nearest
        centre point, counting a heading off by more than 60 degrees as HEADING_PENALTY metres
        further and junction points (junction paths overlap at their ends) as JUNCTION_PENALTY
        further; returns (path, arc, lateral distance), the arc located around that point."""
        return nearest_lanes(
            self.points,
            self.point_junction,
            self.point_heading,
            self.first,
            self.count,
            self.cum,
            self.base,
            self.grid_first,
            self.grid_point,
            self.grid_frame,
            np.ascontiguousarray(xy, dtype=float),
            np.asarray(yaw, dtype=float),
            HEADING_PENALTY,
            JUNCTION_PENALTY,
            int(window),
        )

    def _conflicts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Junction paths of one junction whose centres pass within CONFLICT_DISTANCE, unless
        they leave from the same lane (the one behind then simply follows), as one square
        matrix per junction over its paths (in path order): each path's index among its
        junction's paths (`junction_member`, -1 outside a junction), where junction j's
        matrix starts in the flat table (`conflict_first[j]`; its side is the number of the
        junction's paths, `junction_size[j]`) and the flat table of every junction's matrix,
        row by row."""
        n_junctions = int(self.junction.max(initial=-1)) + 1
        member = np.full(len(self.keys), -1, dtype=np.int64)
        first = np.zeros(n_junctions + 1, dtype=np.int64)
        blocks = []
        for junction in range(n_junctions):
            members = np.flatnonzero(self.junction == junction).tolist()
            member[members] = np.arange(len(members))
            block = np.zeros((len(members), len(members)), dtype=bool)
            crossing = [x for x, p in enumerate(members) if self.count[p]]  # no points: none
            gaps = self._closest_approaches([members[x] for x in crossing])
            for a, x in enumerate(crossing):
                p = members[x]
                for b in range(a + 1, len(crossing)):
                    y = crossing[b]
                    q = members[y]
                    if set(self.predecessors[p]) & set(self.predecessors[q]):
                        continue
                    if gaps[a, b] < CONFLICT_DISTANCE:
                        block[x, y] = block[y, x] = True
            blocks.append(block.ravel())
            first[junction + 1] = first[junction] + block.size
        flat = np.concatenate(blocks) if blocks else np.zeros(0, dtype=bool)
        return member, first, flat

    def conflict(self, p: int, q: int) -> bool:
        """Whether junction paths p and q cross or merge (see _conflicts); False for paths of
        two junctions or outside any."""
        junction = int(self.junction[p])
        if junction < 0 or int(self.junction[q]) != junction:
            return False
        start = self.conflict_first[junction]
        side = int(self.junction_size[junction])
        return bool(
            self.conflict_flat[start + self.junction_member[p] * side + self.junction_member[q]]
        )

    def conflict_matrix(self, paths: list[int]) -> np.ndarray:
        """conflict(p, q) for every pair of `paths`, as a boolean matrix."""
        return np.array([[self.conflict(p, q) for q in paths] for p in paths], dtype=bool)

    def _closest_approaches(self, members: list[int]) -> np.ndarray:
        """(M, M), above the diagonal: the least distance between a point of path
        members[x] and one of members[y], x < y. Each path's distances to all the later
        paths' points at once; the square root of the least square, which is the least
        distance exactly (a square root keeps the order)."""
        spans = [(int(self.first[p]), int(self.first[p] + self.count[p])) for p in members]
        out = np.full((len(members), len(members)), np.inf)
        for x, (a, b) in enumerate(spans[:-1]):
            mine = self.points[a:b, :2]
            later = np.concatenate([self.points[c:d, :2] for c, d in spans[x + 1 :]])
            offsets = mine[:, None, :] - later[None, :, :]
            squared = offsets[..., 0] * offsets[..., 0] + offsets[..., 1] * offsets[..., 1]
            starts = np.cumsum([0] + [d - c for c, d in spans[x + 1 : -1]])
            out[x, x + 1 :] = np.sqrt(np.minimum.reduceat(squared.min(axis=0), starts))
        return out


def _point_grid(points: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points (K, 3+) by square cells of side `cell` in x and y, for nearest's search:
    cell (i, j) (i along x, from the lowest point's x, j along y) holds the point indices
    grid_point[grid_first[i * ny + j] : grid_first[i * ny + j + 1]], ascending; grid_frame is
    (x0, y0, cell, nx, ny)."""
    if len(points) == 0:
        return (
            np.zeros(2, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            np.array([0.0, 0.0, cell, 1.0, 1.0]),
        )
    low = points[:, :2].min(axis=0)
    ij = np.floor((points[:, :2] - low) / cell).astype(np.int64)
    nx, ny = (ij.max(axis=0) + 1).tolist()
    key = ij[:, 0] * ny + ij[:, 1]
    order = np.argsort(key, kind="stable")
    grid_first = np.searchsorted(key[order], np.arange(nx * ny + 1)).astype(np.int64)
    frame = np.array([low[0], low[1], cell, nx, ny], dtype=np.float64)
    return grid_first, order.astype(np.int64), frame


def _junction_index(world_map, road_id: str) -> int:
    """An integer id for the road's junction (-1 outside any), stable for the document."""
    junction = world_map.road_junction(road_id)
    if junction in (None, "-1", ""):
        return -1
    ids = list(world_map.opendrive.junctions)
    return ids.index(junction) if junction in ids else -1

"""The pedestrians' navigation graph: sidewalk lanes as chains of points, joined at crossings.

Nodes are points on every sidewalk lane's centre about NODE_SPACING apart
(the Map's own centre samples, thinned). Edges join neighbouring points of a
lane both ways, and the ends of sidewalk lanes that meet (within LINK_DISTANCE:
a street's sidewalk and the junction corner's). Crossings come from the map's
crosswalk outlines: the middle points of the crosswalk's two ends become nodes,
joined to each other and to the nearest sidewalk node on each side; these are
crossing edges, which only walkers allowed to cross use. A map without
crosswalks gets crossings at junctions instead: each sidewalk lane end inside a
junction is joined to the nearest other sidewalk lane end across the road
(within JUNCTION_CROSSING_REACH).

Routes are A* over the graph, compiled (world.traffic.walkers.kernels.route; ties broken
by node index, so they are deterministic). A walker that may not cross stays in
its sidewalk component: a goal outside it is replaced by the component's node
nearest the goal.

The graph depends on the map alone and nothing changes it once built:
`WalkerNavigation.of_map` builds it once per Map, for every world on that map.
"""

from __future__ import annotations

import numpy as np

from world.map.lane_enums import LaneType
from world.traffic.walkers.kernels import route

__all__ = ["NODE_SPACING", "WalkerNavigation"]

NODE_SPACING = 2.0  # m
LINK_DISTANCE = 2.5  # m between sidewalk lane ends that join
CROSSWALK_REACH = 4.0  # m from a crosswalk end to the sidewalk node it joins
JUNCTION_CROSSING_REACH = 16.0  # m across a junction arm, for maps without crosswalks


class WalkerNavigation:
    """Sidewalk nodes (N, 3), their edges, and the crossing flag of each edge."""

    @classmethod
    def of_map(cls, world_map) -> WalkerNavigation:
        """The navigation of `world_map`, built on first use and shared after (read only)."""
        return world_map.derived("walker navigation", lambda: cls(world_map))

    def __init__(self, world_map) -> None:
        points, lane_of, ends = self._sidewalk_points(world_map)
        self.points = points
        self.lane_of = lane_of
        self._edges: list[dict[int, bool]] = [{} for _ in range(len(points))]
        for a, b in zip(range(len(points) - 1), range(1, len(points)), strict=True):
            if lane_of[a] == lane_of[b]:
                self._join(a, b, False)
        end_nodes = np.array(sorted({e for pair in ends for e in pair}), dtype=np.int64)
        for i in end_nodes.tolist():
            gap = np.linalg.norm(points[end_nodes, :2] - points[i, :2], axis=1)
            for j in end_nodes[(gap < LINK_DISTANCE) & (lane_of[end_nodes] != lane_of[i])]:
                self._join(i, int(j), False)
        self.crossings = self._crosswalks(world_map)
        if not self.crossings and len(end_nodes):
            self._junction_crossings(world_map, end_nodes)
        self.component = self._components()
        self.sidewalk = np.flatnonzero(self.lane_of >= 0)
        self._first_edge, self._edge_to, self._edge_crossing = self._edge_arrays()

    # -- building ------------------------------------------------------------------------

    @staticmethod
    def _sidewalk_points(world_map):
        seg = world_map.lane_segments
        types = np.array(
            [int(world_map.road_graph.nodes[k].lane_type) for k in world_map.lane_keys]
        )
        mask = (types[seg.node] & int(LaneType.Sidewalk)) > 0 if len(types) else []
        rows = np.flatnonzero(mask)
        points, lane_of, ends = [], [], []
        count = 0
        for node in np.unique(seg.node[rows]).tolist():
            mine = rows[seg.node[rows] == node]
            line = np.vstack([seg.a[mine], seg.b[mine][-1:]])
            step = np.linalg.norm(np.diff(line[:, :2], axis=0), axis=1)
            arc = np.concatenate([[0.0], np.cumsum(step)])
            n = max(2, round(float(arc[-1]) / NODE_SPACING) + 1)
            at = np.linspace(0.0, arc[-1], n)
            pts = np.stack([np.interp(at, arc, line[:, c]) for c in range(3)], axis=1)
            points.append(pts)
            lane_of.append(np.full(n, node, dtype=np.int64))
            ends.append((count, count + n - 1))
            count += n
        if not points:
            return np.zeros((0, 3)), np.zeros(0, dtype=np.int64), []
        return np.vstack(points), np.concatenate(lane_of), ends

    def _join(self, a: int, b: int, crossing: bool) -> None:
        self._edges[a][b] = crossing
        self._edges[b][a] = crossing

    def _add_node(self, point: np.ndarray) -> int:
        self.points = np.vstack([self.points, point[None]])
        self.lane_of = np.append(self.lane_of, -1)
        self._edges.append({})
        return len(self.points) - 1

    def _crosswalks(self, world_map) -> list[tuple[int, int]]:
        """Crossing edges from crosswalk outlines; returns the (end, end) node pairs."""
        out = []
        sidewalk = np.flatnonzero(self.lane_of >= 0)
        if not len(sidewalk):
            return out
        for corners in _polygons(world_map.get_crosswalks()):
            if len(corners) != 4:
                continue
            mids = [(corners[e] + corners[(e + 1) % 4]) / 2.0 for e in range(4)]
            best = None
            for pair in ((0, 2), (1, 3)):
                far = [self._nearest(mids[e], sidewalk) for e in pair]
                cost = sum(d for _, d in far)
                if best is None or cost < best[0]:
                    best = (cost, pair, far)
            _, pair, far = best
            if max(d for _, d in far) > CROSSWALK_REACH:
                continue
            ends = [self._add_node(mids[e]) for e in pair]
            self._join(ends[0], ends[1], True)
            for end, (node, _) in zip(ends, far, strict=True):
                self._join(end, node, True)
            out.append((ends[0], ends[1]))
        return out

    def _junction_crossings(self, world_map, end_nodes: np.ndarray) -> None:
        """For maps without crosswalks: join junction sidewalk ends to the nearest end across."""
        in_junction = np.array(
            [
                world_map.road_junction(world_map.lane_keys[self.lane_of[e]][0]) != "-1"
                for e in end_nodes
            ]
        )
        for i in end_nodes[in_junction].tolist():
            gap = np.linalg.norm(self.points[end_nodes, :2] - self.points[i, :2], axis=1)
            ok = (gap > LINK_DISTANCE) & (gap < JUNCTION_CROSSING_REACH)
            ok &= self.lane_of[end_nodes] != self.lane_of[i]
            if ok.any():
                j = int(end_nodes[ok][np.argmin(gap[ok])])
                if j not in self._edges[i]:
                    self._join(i, j, True)
                    self.crossings.append((i, j))

    def _nearest(self, point: np.ndarray, among: np.ndarray) -> tuple[int, float]:
        gap = np.linalg.norm(self.points[among, :2] - point[None, :2], axis=1)
        k = int(np.argmin(gap))
        return int(among[k]), float(gap[k])

    def _components(self) -> np.ndarray:
        """Component label of each node over the non-crossing edges."""
        label = np.full(len(self.points), -1, dtype=np.int64)
        for seed in range(len(self.points)):
            if label[seed] >= 0:
                continue
            label[seed] = seed
            stack = [seed]
            while stack:
                node = stack.pop()
                for other, crossing in self._edges[node].items():
                    if not crossing and label[other] < 0:
                        label[other] = seed
                        stack.append(other)
        return label

    def _edge_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges as flat arrays for the compiled search: node j's neighbours, ascending,
        are edge_to[first_edge[j]:first_edge[j + 1]], with their crossing flags."""
        counts = np.array([len(edges) for edges in self._edges], dtype=np.int64)
        first_edge = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        to = [other for edges in self._edges for other in sorted(edges)]
        crossing = [edges[other] for edges in self._edges for other in sorted(edges)]
        return first_edge, np.array(to, dtype=np.int64), np.array(crossing, dtype=np.bool_)

    # -- queries ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.points)

    def is_crossing_edge(self, a: int, b: int) -> bool:
        return bool(self._edges[a].get(b, False))

    def crossing_segments(self) -> np.ndarray:
        """(M, 2, 2): the end points (x, y) of every crossing edge, each edge once."""
        segs = [
            (self.points[a, :2], self.points[b, :2])
            for a, edges in enumerate(self._edges)
            for b in sorted(edges)
            if edges[b] and a < b
        ]
        return np.array(segs, dtype=np.float64).reshape(-1, 2, 2)

    def route(self, start: np.ndarray, goal: np.ndarray, cross: bool) -> np.ndarray:
        """Nodes from the sidewalk node nearest `start` to the node nearest `goal` (A*, by
        distance; compiled, world.traffic.walkers.kernels.route)."""
        return route(
            self.points,
            self.lane_of,
            self.component,
            self._first_edge,
            self._edge_to,
            self._edge_crossing,
            np.asarray(start, dtype=np.float64),
            np.asarray(goal, dtype=np.float64),
            bool(cross),
        )


def _polygons(corners) -> list[list[np.ndarray]]:
    """Splits Map.get_crosswalks()'s flat corner list into polygons (each closed by repeating its
    first corner), dropping the repeated corner."""
    out, current = [], []
    for loc in corners:
        point = np.array([loc.x, loc.y, loc.z], dtype=np.float64)
        if current and np.allclose(point, current[0], atol=1e-6):
            out.append(current)
            current = []
        else:
            current.append(point)
    return out

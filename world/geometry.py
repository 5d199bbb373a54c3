"""CARLA's geometry value types: Vector3D, Location, Rotation, Transform, BoundingBox, GeoLocation.

All in CARLA's left-handed frame (x forward, y right, z up), metres and degrees.
The rotation matrix is CARLA's (LibCarla geom::Math / Transform), so transforms
of points and the box vertices come out in the same numbers and order as CARLA's.
`rotation_matrices` is the same matrix for arrays of angles, for vectorised code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

__all__ = [
    "BoundingBox",
    "GeoLocation",
    "Location",
    "Rotation",
    "Transform",
    "Vector2D",
    "Vector3D",
    "rotation_matrices",
    "wrap_yaw",
    "xyz_distance",
]


UNIT_VECTOR_EPSILON = 2.384185791015625e-07  # CARLA's default: twice float32's epsilon


def _el() -> ModuleType:
    """world.elementary, imported on first use: the plain types load without numba."""
    from world import elementary

    return elementary


@dataclass(slots=True)
class Vector2D:
    """A 2D vector (CARLA's carla.Vector2D)."""

    x: float = 0.0
    y: float = 0.0

    def length(self) -> float:
        return _el().hypot(self.x, self.y)

    def squared_length(self) -> float:
        return self.x * self.x + self.y * self.y

    def make_unit_vector(self) -> Vector2D:
        n = self.length()
        if n == 0.0:
            raise ZeroDivisionError("cannot make a unit vector from a zero vector")
        return Vector2D(self.x / n, self.y / n)

    def __add__(self, o: Vector2D) -> Vector2D:
        return Vector2D(self.x + o.x, self.y + o.y)

    def __sub__(self, o: Vector2D) -> Vector2D:
        return Vector2D(self.x - o.x, self.y - o.y)

    def __mul__(self, k: float) -> Vector2D:
        return Vector2D(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __truediv__(self, k: float) -> Vector2D:
        return Vector2D(self.x / k, self.y / k)


def xyz_distance(ax: float, ay: float, az: float, bx: float, by: float, bz: float) -> float:
    """|a - b|: the numbers of `(a - b).length()`, without the vector in between (the
    distance is taken in scans over many points)."""
    dx, dy, dz = ax - bx, ay - by, az - bz
    return math.sqrt(dx * dx + dy * dy + dz * dz)


def wrap_yaw(yaw: np.ndarray) -> np.ndarray:
    """Yaws (degrees) in CARLA's range (-180, 180]: those outside move by whole turns (the
    others are returned as they are, bit for bit)."""
    yaw = np.asarray(yaw, dtype=np.float64)
    outside = (yaw > 180.0) | (yaw <= -180.0)
    if not outside.any():
        return yaw
    turns = np.ceil((yaw - 180.0) / 360.0)
    return np.where(outside, yaw - 360.0 * turns, yaw)


@dataclass(slots=True)
class Vector3D:
    """A 3D vector (CARLA's carla.Vector3D); arithmetic returns new vectors."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0

    def __init__(self, x: float = 0.0, y: float = 0.0, z: float = 0.0, *, rhs: Any = None):
        if rhs is not None:  # CARLA's copy constructor
            x, y, z = rhs.x, rhs.y, rhs.z
        self.x, self.y, self.z = x, y, z

    def _new(self, x: float, y: float, z: float) -> Vector3D:
        return type(self)(x, y, z)

    def __add__(self, vector: Vector3D) -> Vector3D:
        return self._new(self.x + vector.x, self.y + vector.y, self.z + vector.z)

    def __sub__(self, vector: Vector3D) -> Vector3D:
        return self._new(self.x - vector.x, self.y - vector.y, self.z - vector.z)

    def __mul__(self, k: float) -> Vector3D:
        return self._new(self.x * k, self.y * k, self.z * k)

    __rmul__ = __mul__

    def __truediv__(self, k: float) -> Vector3D:
        return self._new(self.x / k, self.y / k, self.z / k)

    def __neg__(self) -> Vector3D:
        return self._new(-self.x, -self.y, -self.z)

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def length(self) -> float:
        return math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)

    def squared_length(self) -> float:
        return self.x * self.x + self.y * self.y + self.z * self.z

    def make_unit_vector(self, epsilon: float = UNIT_VECTOR_EPSILON) -> Vector3D:
        """This vector over its length; a vector shorter than `epsilon` is returned as it is
        (CARLA's MakeUnitVector)."""
        n = self.length()
        if n < epsilon:
            return self._new(self.x, self.y, self.z)
        return self._new(self.x / n, self.y / n, self.z / n)

    def dot(self, vector: Vector3D) -> float:
        return self.x * vector.x + self.y * vector.y + self.z * vector.z

    def dot_2d(self, vector: Vector3D) -> float:
        return self.x * vector.x + self.y * vector.y

    def cross(self, vector: Vector3D) -> Vector3D:
        return self._new(
            self.y * vector.z - self.z * vector.y,
            self.z * vector.x - self.x * vector.z,
            self.x * vector.y - self.y * vector.x,
        )

    def distance(self, vector: Vector3D) -> float:
        return xyz_distance(self.x, self.y, self.z, vector.x, vector.y, vector.z)

    def distance_squared(self, vector: Vector3D) -> float:
        dx, dy, dz = self.x - vector.x, self.y - vector.y, self.z - vector.z
        return dx * dx + dy * dy + dz * dz

    def distance_2d(self, vector: Vector3D) -> float:
        return _el().hypot(self.x - vector.x, self.y - vector.y)

    def distance_squared_2d(self, vector: Vector3D) -> float:
        dx, dy = self.x - vector.x, self.y - vector.y
        return dx * dx + dy * dy

    def get_vector_angle(self, vector: Vector3D) -> float:
        """Angle between the two vectors in radians (CARLA's get_vector_angle)."""
        n = self.length() * vector.length()
        if n == 0.0:
            return 0.0
        return _el().acos(max(-1.0, min(1.0, self.dot(vector) / n)))

    def abs(self) -> Vector3D:
        return self._new(abs(self.x), abs(self.y), abs(self.z))

    def as_array(self) -> np.ndarray:
        return np.array([self.x, self.y, self.z], dtype=np.float64)


@dataclass(slots=True)
class Location(Vector3D):
    """A point in the world, metres (CARLA's carla.Location); `Location(vector)` takes a
    Vector3D's components, as CARLA's constructor does."""

    def __init__(
        self, x: float | Vector3D = 0.0, y: float = 0.0, z: float = 0.0, *, rhs: Any = None
    ) -> None:
        if rhs is not None:
            x = rhs
        if isinstance(x, Vector3D):
            x, y, z = x.x, x.y, x.z
        self.x, self.y, self.z = x, y, z

    def distance(self, location: Vector3D) -> float:
        return xyz_distance(self.x, self.y, self.z, location.x, location.y, location.z)


@dataclass(slots=True)
class Rotation:
    """Pitch, yaw and roll in degrees, constructed in CARLA's order (pitch, yaw, roll)."""

    pitch: float = 0.0
    yaw: float = 0.0
    roll: float = 0.0

    def _trig(self) -> tuple[float, float, float, float, float, float]:
        p, y, r = math.radians(self.pitch), math.radians(self.yaw), math.radians(self.roll)
        return _el().cos_sin3(p, y, r)

    def get_forward_vector(self) -> Vector3D:
        cp, sp, cy, sy, _cr, _sr = self._trig()
        return Vector3D(cy * cp, sy * cp, sp)

    def get_right_vector(self) -> Vector3D:
        cp, sp, cy, sy, cr, sr = self._trig()
        return Vector3D(cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, -cp * sr)

    def get_up_vector(self) -> Vector3D:
        cp, sp, cy, sy, cr, sr = self._trig()
        return Vector3D(-cy * sp * cr - sy * sr, -sy * sp * cr + cy * sr, cp * cr)

    def matrix(self) -> np.ndarray:
        """The 3x3 rotation matrix whose columns are forward, right and up."""
        return rotation_matrices(
            np.array([self.pitch]), np.array([self.yaw]), np.array([self.roll])
        )[0]

    def rotate_vector(self, v: Vector3D) -> Vector3D:
        f, r, u = self.get_forward_vector(), self.get_right_vector(), self.get_up_vector()
        return Vector3D(
            f.x * v.x + r.x * v.y + u.x * v.z,
            f.y * v.x + r.y * v.y + u.y * v.z,
            f.z * v.x + r.z * v.y + u.z * v.z,
        )

    def inverse_rotate_vector(self, v: Vector3D) -> Vector3D:
        f, r, u = self.get_forward_vector(), self.get_right_vector(), self.get_up_vector()
        return Vector3D(f.dot(v), r.dot(v), u.dot(v))


@dataclass(slots=True)
class Transform:
    """A location and a rotation (CARLA's carla.Transform)."""

    location: Location = None  # type: ignore[assignment]
    rotation: Rotation = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.location = Location() if self.location is None else self.location
        self.rotation = Rotation() if self.rotation is None else self.rotation

    def copy(self) -> Transform:
        loc, rot = self.location, self.rotation
        return Transform(Location(loc.x, loc.y, loc.z), Rotation(rot.pitch, rot.yaw, rot.roll))

    def transform(self, in_point: Vector3D | list) -> Vector3D | None:
        """Moves `in_point` from this frame to the world frame, in place, and returns it (as
        CARLA); given a list of points, moves each in place and returns None (CARLA's
        overload for lists)."""
        if isinstance(in_point, list):
            for point in in_point:
                self.transform(point)
            return None
        w = self.rotation.rotate_vector(in_point)
        in_point.x = w.x + self.location.x
        in_point.y = w.y + self.location.y
        in_point.z = w.z + self.location.z
        return in_point

    def transform_vector(self, in_point: Vector3D) -> Vector3D:
        """Rotates `in_point` from this frame to the world frame, in place, and returns it."""
        w = self.rotation.rotate_vector(in_point)
        in_point.x, in_point.y, in_point.z = w.x, w.y, w.z
        return in_point

    def inverse_transform(self, in_point: Vector3D) -> Vector3D:
        """Moves `in_point` from the world frame into this frame, in place, and returns it."""
        d = Vector3D(
            in_point.x - self.location.x,
            in_point.y - self.location.y,
            in_point.z - self.location.z,
        )
        w = self.rotation.inverse_rotate_vector(d)
        in_point.x, in_point.y, in_point.z = w.x, w.y, w.z
        return in_point

    def get_forward_vector(self) -> Vector3D:
        return self.rotation.get_forward_vector()

    def get_right_vector(self) -> Vector3D:
        return self.rotation.get_right_vector()

    def get_up_vector(self) -> Vector3D:
        return self.rotation.get_up_vector()

    def get_matrix(self) -> list[list[float]]:
        """The 4x4 local-to-world matrix."""
        m = self.rotation.matrix()
        loc = self.location
        return [
            [*m[0].tolist(), loc.x],
            [*m[1].tolist(), loc.y],
            [*m[2].tolist(), loc.z],
            [0.0, 0.0, 0.0, 1.0],
        ]

    def get_inverse_matrix(self) -> list[list[float]]:
        """The 4x4 world-to-local matrix."""
        m = self.rotation.matrix().T
        t = -m @ self.location.as_array()
        return [
            [*m[0].tolist(), float(t[0])],
            [*m[1].tolist(), float(t[1])],
            [*m[2].tolist(), float(t[2])],
            [0.0, 0.0, 0.0, 1.0],
        ]


# CARLA's vertex order: x varies slowest, then y, then z (-,-,-), (-,-,+), (-,+,-) ...
_VERTEX_SIGNS = np.array(
    [[sx, sy, sz] for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0)]
)


@dataclass(slots=True)
class BoundingBox:
    """A box by its centre and half-extents, in its actor's frame (CARLA's carla.BoundingBox)."""

    location: Location = None  # type: ignore[assignment]
    extent: Vector3D = None  # type: ignore[assignment]
    rotation: Rotation = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.location = Location() if self.location is None else self.location
        self.extent = Vector3D() if self.extent is None else self.extent
        self.rotation = Rotation() if self.rotation is None else self.rotation

    def _vertices(self, transform: Transform | None) -> list[Location]:
        ext = self.extent.as_array()
        local = (_VERTEX_SIGNS * ext) @ self.rotation.matrix().T + self.location.as_array()
        if transform is not None:
            local = local @ transform.rotation.matrix().T + transform.location.as_array()
        return [Location(*map(float, p)) for p in local]

    def get_local_vertices(self) -> list[Location]:
        """The eight corners in the actor's frame, in CARLA's order."""
        return self._vertices(None)

    def get_world_vertices(self, bbox_transform: Transform) -> list[Location]:
        """The eight corners in the world, for an actor at `bbox_transform`, in CARLA's order."""
        return self._vertices(bbox_transform)

    def contains(self, point: Location, bbox_transform: Transform) -> bool:
        """Whether `point` (in the world) lies in the box of an actor at `bbox_transform`."""
        p = Location(point.x, point.y, point.z)
        bbox_transform.inverse_transform(p)
        local = Transform(self.location, self.rotation).inverse_transform(p)
        e = self.extent
        return abs(local.x) <= e.x and abs(local.y) <= e.y and abs(local.z) <= e.z


@dataclass(slots=True)
class GeoLocation:
    """Latitude and longitude in degrees, altitude in metres (CARLA's carla.GeoLocation)."""

    latitude: float = 0.0
    longitude: float = 0.0
    altitude: float = 0.0


def rotation_matrices(pitch: np.ndarray, yaw: np.ndarray, roll: np.ndarray) -> np.ndarray:
    """CARLA's rotation matrices for arrays of angles in degrees, shape (N, 3, 3).

    Column 0 is the forward vector, column 1 the right vector, column 2 the up
    vector, so `R @ local` gives the world direction of a local vector.
    """
    p, y, r = np.radians(pitch), np.radians(yaw), np.radians(roll)
    el = _el()
    cp, sp, cy, sy, cr, sr = (
        el.cos_v(p),
        el.sin_v(p),
        el.cos_v(y),
        el.sin_v(y),
        el.cos_v(r),
        el.sin_v(r),
    )
    m = np.empty((len(p), 3, 3), dtype=np.float64)
    m[:, 0, 0] = cp * cy
    m[:, 1, 0] = cp * sy
    m[:, 2, 0] = sp
    m[:, 0, 1] = cy * sp * sr - sy * cr
    m[:, 1, 1] = sy * sp * sr + cy * cr
    m[:, 2, 1] = -cp * sr
    m[:, 0, 2] = -cy * sp * cr - sy * sr
    m[:, 1, 2] = -sy * sp * cr + cy * sr
    m[:, 2, 2] = cp * cr
    return m

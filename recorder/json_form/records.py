"""Records <-> the JSON objects of the golden SPEC.json schema (`../shared/carla-golden`).

Record field names are the schema's keys, so most packets convert field by field. The physics
control is the exception: the schema gives the UE-side `FVehiclePhysicsControl`, which CARLA
converts before writing (curves through `FRichCurve::AddKey`, centre of mass cm -> m as
`1e-2f * X` in float). `physics_from_json` does that conversion; `physics_to_json` inverts it,
checking that the conversion gives the record back, and otherwise writes the record as stored
with the schema extension `"rpc": true`.
"""

from __future__ import annotations

import struct
from dataclasses import MISSING, fields, is_dataclass
from typing import Any

import numpy as np

from recorder.errors import RecorderError
from recorder.logfile.packets import (
    ActorAttribute,
    AnimVehicleWheelsRecord,
    Bone,
    EventAddRecord,
    GearRecord,
    PhysicsControlRecord,
    WalkerBonesRecord,
    WheelInfo,
)
from recorder.logfile.packets.base import FixedLayout
from recorder.logfile.packets.physics_control import WHEEL_LAYOUTS, rich_curve_keys

# Lists of nested records inside a record.
_NESTED: dict[type, dict[str, type]] = {
    EventAddRecord: {"attributes": ActorAttribute},
    AnimVehicleWheelsRecord: {"wheels": WheelInfo},
    WalkerBonesRecord: {"bones": Bone},
}
_F32_CENTI = np.float32(1e-2)
# UE-side keys the file does not hold (the schema marks them "never written").
_UE_ONLY = ("gear_switch_time", "use_sweep_wheel_collision")
_JSON_NAN = struct.pack("<d", float("nan"))


class JsonInexactError(ValueError):
    """A value JSON cannot carry exactly: a NaN with a sign or payload other than JSON's NaN."""


def record_from_json(record_type: type, obj: Any, path: str) -> Any:
    """A record from its JSON object; a missing key or a wrong shape names its key path."""
    if not isinstance(obj, dict):
        raise RecorderError(f"{path}: expected an object, found {type(obj).__name__}")
    nested = _NESTED.get(record_type, {})
    args = {}
    for f in fields(record_type):
        if f.name not in obj:
            if f.default is not MISSING or f.default_factory is not MISSING:
                continue  # a field with a default may be left out
            raise RecorderError(f"{path}: missing key {f.name!r}")
        value = obj[f.name]
        if f.name in nested:
            value = [
                record_from_json(nested[f.name], item, f"{path}.{f.name}[{i}]")
                for i, item in enumerate(_as_list(value, f"{path}.{f.name}"))
            ]
        elif isinstance(value, list):
            value = tuple(value)
        args[f.name] = value
    return record_type(**args)


def record_to_json(record: Any) -> dict:
    """The JSON object of a record (vectors as lists, nested records as objects); JsonInexactError
    when a float would not come back from JSON with the same bits."""
    out = {}
    for f in fields(record):
        out[f.name] = _plain(getattr(record, f.name))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        if value != value and struct.pack("<d", value) != _JSON_NAN:
            raise JsonInexactError(f"NaN with bits {struct.pack('>d', value).hex()}")
        return value
    if is_dataclass(value):
        return record_to_json(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _as_list(value: Any, path: str) -> list:
    if not isinstance(value, list):
        raise RecorderError(f"{path}: expected a list, found {type(value).__name__}")
    return value


# -- fixed-size records, in bulk through numpy ---------------------------------------------------


def fixed_to_json(layout: FixedLayout, records: np.ndarray) -> list[dict]:
    """The JSON objects of a numpy array of fixed-size records (C++ bools as JSON booleans)."""
    _check_nans(records)
    names = layout.names
    columns = []
    for name, is_bool in zip(names, layout.bools, strict=True):
        column = records[name].tolist()  # vectors become lists
        if is_bool:
            column = [bool(v) if v in (0, 1) else v for v in column]
        columns.append(column)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def fixed_from_json(layout: FixedLayout, items: Any, path: str) -> np.ndarray:
    """A numpy array of fixed-size records from their JSON objects; errors name the key path."""
    items = _as_list(items, path)
    names = layout.names
    try:
        return np.array([tuple(o[n] for n in names) for o in items], layout.dtype)
    except (KeyError, TypeError, ValueError, OverflowError):
        pass
    for i, o in enumerate(items):  # find the bad record, to say where it is
        record_from_json(layout.record, o, f"{path}[{i}]")
        try:
            np.array([tuple(o[n] for n in names)], layout.dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise RecorderError(f"{path}[{i}]: {exc}") from None
    raise RecorderError(f"{path}: records do not fit {layout.record.__name__}")  # pragma: no cover


def _check_nans(records: np.ndarray) -> None:
    for name in records.dtype.names or ():
        column = records[name]
        if column.dtype.kind != "f":
            continue
        nan = np.isnan(column)
        if nan.any():
            with np.errstate(invalid="ignore"):  # a signalling NaN warns when widened
                bits = column[nan].astype(np.float64).view(np.uint64)
            if np.any(bits != np.frombuffer(_JSON_NAN, np.uint64)[0]):
                raise JsonInexactError(f"{name}: a NaN JSON cannot carry")


# -- physics control ----------------------------------------------------------------------------


def _points_for_keys(keys: list[tuple[float, float]]) -> list[tuple[float, float]] | None:
    """Points that AddKey turns into these keys (each run of equal times reversed), or None."""
    points: list[tuple[float, float]] = []
    i = 0
    while i < len(keys):
        j = i
        while j + 1 < len(keys) and keys[j + 1][0] == keys[i][0]:
            j += 1
        points.extend(reversed(keys[i : j + 1]))
        i = j + 1
    return points if rich_curve_keys(points) == keys else None


def centre_of_mass_metres(cm: tuple[float, float, float]) -> tuple[float, ...]:
    """CARLA's `1e-2f * X` per axis, in float arithmetic."""
    return tuple(float(_F32_CENTI * np.float32(x)) for x in cm)


def _centre_of_mass_cm(m: tuple[float, ...]) -> tuple[float, ...] | None:
    """A centre of mass in cm that `1e-2f * X` turns into `m` (the float next to m * 100)."""
    out = []
    with np.errstate(over="ignore", invalid="ignore"):
        for x in m:
            guess = np.float32(np.float64(x) * 100.0)
            up = np.nextafter(guess, np.float32(np.inf))
            down = np.nextafter(guess, np.float32(-np.inf))
            for candidate in (guess, up, down):
                if float(_F32_CENTI * candidate) == x:
                    out.append(float(candidate))
                    break
            else:
                return None
    return tuple(out)


def physics_from_json(obj: dict, path: str, wheel_size: int = 48) -> PhysicsControlRecord:
    """The record CARLA writes for a UE-side physics control (or an `"rpc": true` record)."""
    if not isinstance(obj, dict):
        raise RecorderError(f"{path}: expected an object")
    size = obj.get("wheel_size", wheel_size)
    if size not in WHEEL_LAYOUTS:
        raise RecorderError(f"{path}.wheel_size: {size} is not one of {sorted(WHEEL_LAYOUTS)}")
    wheel_type = WHEEL_LAYOUTS[size].record
    fields_in = {k: v for k, v in obj.items() if k not in (*_UE_ONLY, "rpc", "wheel_size")}
    for key in ("torque_curve", "steering_curve", "forward_gears", "wheels", "center_of_mass"):
        if key not in fields_in:
            raise RecorderError(f"{path}: missing key {key!r}")
    pairs = {
        key: [tuple(p) for p in _as_list(fields_in[key], f"{path}.{key}")]
        for key in ("torque_curve", "steering_curve")
    }
    com = tuple(fields_in["center_of_mass"])
    if not obj.get("rpc", False):
        pairs = {key: rich_curve_keys(points) for key, points in pairs.items()}
        com = centre_of_mass_metres(com)
    gears = [
        record_from_json(GearRecord, g, f"{path}.forward_gears[{i}]")
        for i, g in enumerate(_as_list(fields_in["forward_gears"], f"{path}.forward_gears"))
    ]
    wheels = [
        record_from_json(wheel_type, w, f"{path}.wheels[{i}]")
        for i, w in enumerate(_as_list(fields_in["wheels"], f"{path}.wheels"))
    ]
    plain = {
        k: v
        for k, v in fields_in.items()
        if k not in ("torque_curve", "steering_curve", "forward_gears", "wheels", "center_of_mass")
    }
    try:
        return PhysicsControlRecord(
            **plain,
            center_of_mass=com,
            torque_curve=pairs["torque_curve"],
            forward_gears=gears,
            steering_curve=pairs["steering_curve"],
            wheels=wheels,
            wheel_size=size,
        )
    except TypeError as exc:
        raise RecorderError(f"{path}: {exc}") from None


def physics_to_json(record: PhysicsControlRecord) -> dict:
    """The UE-side JSON object that physics_from_json turns back into this record."""
    out = record_to_json(record)
    del out["wheel_size"]
    if record.wheel_size != 48:
        out["wheel_size"] = record.wheel_size
    torque = _points_for_keys(list(record.torque_curve))
    steering = _points_for_keys(list(record.steering_curve))
    com = _centre_of_mass_cm(record.center_of_mass)
    if torque is None or steering is None or com is None:
        out["rpc"] = True
        return out
    out["torque_curve"] = [list(p) for p in torque]
    out["steering_curve"] = [list(p) for p in steering]
    out["center_of_mass"] = list(com)
    return out

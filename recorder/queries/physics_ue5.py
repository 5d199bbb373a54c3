"""The file-info query's text of a CARLA 0.10 (UE5) PhysicsControl record.

The UE5 query prints the rpc control's fields with the stream's defaults (6 significant
digits; a uint8 as its character, a bool as 0 or 1), each wheel on a line of its own after
`wheel #N:`, and its vectors with `snprintf("%f")` (the UE5 query's formatting when the
compiler has no std::format, as clang's library on Linux). CARLA prints the control after
an rpc -> UE -> rpc round trip; of it, the curves' FRichCurve::AddKey order is reproduced
(LibCarla's UE5 VehiclePhysicsControl adds each point as a key). Not reproduced: the centre
of mass's metre -> centimetre -> metre conversion in UE5's double FVector and the wheels'
FWheelPhysicsControl conversions (not confirmed here; the values print as stored), and the
lateral slip graph, which the file holds as three pointers of the writing process and which
prints as the empty curve `[]`.
"""

from __future__ import annotations

from recorder.logfile.cformat import c_general
from recorder.logfile.packets.physics_control import Wheel208, rich_curve_keys

_ENGINE = (
    ("max_torque", "max_torque"),
    ("max_rpm", "max_rpm"),
    ("MOI", "rev_up_moi"),
    ("rev_down_rate", "rev_down_rate"),
    ("differential_type", "differential_type"),
    ("front_rear_split", "front_rear_split"),
    ("use_gear_auto_box", "use_automatic_gears"),
    ("gear_change_time", "gear_change_time"),
    ("final_ratio", "final_ratio"),
    ("change_up_rpm", "change_up_rpm"),
    ("change_down_rpm", "change_down_rpm"),
    ("transmission_efficiency", "transmission_efficiency"),
    ("mass", "mass"),
    ("drag_coefficient", "drag_coefficient"),
)
_CHARS = {"differential_type", "axle_type", "external_torque_combine_method"}
_CHARS |= {"sweep_shape", "sweep_type"}
# The query prints a wheel's fields in the record's order.
_WHEEL = tuple(name for name in Wheel208.__dataclass_fields__ if not name.startswith("padding"))


def _value(name: str, value) -> str:
    """One field as `operator<<` prints it."""
    if name == "use_automatic_gears":
        return "true" if value else "false"
    if name in _CHARS:
        return bytes([value & 0xFF]).decode("utf-8", "surrogateescape")
    if isinstance(value, bool) or name == "wheel_index" or name == "suspension_smoothing":
        return str(int(value))
    if name == "lateral_slip_graph":
        return "[]"
    if isinstance(value, tuple):
        return "(" + ", ".join(f"{v:f}" for v in value) + ")"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # a raw bool byte other than 0 or 1
    return c_general(value)


def _curve(points) -> str:
    """A curve's keys as FRichCurve::AddKey orders them."""
    return "".join(f" ({c_general(x)}, {c_general(y)})" for x, y in rich_curve_keys(points))


def physics_text_ue5(r) -> str:
    """One UE5 PhysicsControl record as CARLA 0.10's info query prints it."""
    lines = [f"  Id: {r.id}\n"]
    lines += [f"   {label} = {_value(name, getattr(r, name))}\n" for label, name in _ENGINE]
    lines.append("   center_of_mass = (" + ", ".join(map(c_general, r.center_of_mass)) + ")\n")
    lines.append(f"   torque_curve ={_curve(r.torque_curve)}\n")
    lines.append(f"   steering_curve ={_curve(r.steering_curve)}\n")
    for title, ratios in (("forward", r.forward_gear_ratios), ("reverse", r.reverse_gear_ratios)):
        lines.append(f"   {title}_gear_ratios:\n")
        lines += [f"    gear {n}: ratio {c_general(v)}\n" for n, v in enumerate(ratios)]
    lines.append("   wheels:")
    for n, wheel in enumerate(r.wheels):
        fields = " ".join(f"{name}: {_value(name, getattr(wheel, name))}" for name in _WHEEL)
        lines.append(f"\nwheel #{n}:\n {fields}")
    lines.append("\n")
    return "".join(lines)

"""CARLA 0.9.15's blueprint catalogue as data: ids, tags and attribute definitions.

Attribute ids, types, recommended values and which are modifiable follow the UE4
plugin's ActorBlueprintFunctionLibrary.cpp (and the sensors' definitions) of
CARLA 0.9.15: every blueprint gets a modifiable `role_name` whose first
recommended value is its starting value ("default"; "front" for cameras, LiDARs
and the generic sensors; "autopilot" for vehicles; "pedestrian"; "prop").
A modifiable attribute starts at its first recommended value.

The vehicle, pedestrian and prop ids are those a CARLA 0.9.15 server lists.
Which vehicles are generation 2, and their base and special types, follow
CARLA's vehicle catalogue (Docs/catalogue_vehicles.md) and the base types the
0.9.15 server reports (mini.cooper_s and bmw.grandtourer report an empty one).
Data CARLA keeps in assets is chosen here and documented in docs/world-data.md:
the five recommended colours, `has_lights`, `has_dynamic_doors`, the drivers of
two-wheelers, the pedestrians' gender, speeds and generation, the props' sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

from world.actors.model_dimensions import PROP_SIZES

__all__ = [
    "CATALOG",
    "PEDESTRIAN_IDS",
    "PROP_IDS",
    "VEHICLES",
    "AttributeDefinition",
    "BlueprintDefinition",
    "VehicleEntry",
]

# ActorAttributeType numbers (rpc/ActorAttributeType.h).
BOOL, INT, FLOAT, STRING, RGB = 0, 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class AttributeDefinition:
    """One attribute as the server defines it: a variation (modifiable) or a fixed attribute."""

    id: str
    type: int
    value: str
    recommended_values: tuple[str, ...] = ()
    modifiable: bool = True
    restrict_to_recommended: bool = False


@dataclass(frozen=True, slots=True)
class BlueprintDefinition:
    """A blueprint's id, tags (the id's dotted parts) and attribute definitions."""

    id: str
    tags: tuple[str, ...]
    attributes: tuple[AttributeDefinition, ...]


def _variation(
    attribute_id: str, kind: int, *recommended: str, restrict: bool = False
) -> AttributeDefinition:
    return AttributeDefinition(attribute_id, kind, recommended[0], recommended, True, restrict)


def _fixed(attribute_id: str, kind: int, value: str) -> AttributeDefinition:
    return AttributeDefinition(attribute_id, kind, value, (), False, False)


def _define(blueprint_id: str, attributes: list[AttributeDefinition]) -> BlueprintDefinition:
    return BlueprintDefinition(blueprint_id, tuple(blueprint_id.split(".")), tuple(attributes))


def _role(*names: str) -> AttributeDefinition:
    return _variation("role_name", STRING, *names)


_DEFAULT_ROLE = _role("default")
_SENSOR_ROLES = _role(
    "front", "back", "left", "right", "front_left", "front_right", "back_left", "back_right"
)
_SENSOR_TICK = _variation("sensor_tick", FLOAT, "0.0")

# --- cameras -----------------------------------------------------------------

_CAMERA_BASE = [
    _variation("image_size_x", INT, "800"),
    _variation("image_size_y", INT, "600"),
    _variation("fov", FLOAT, "90.0"),
    _variation("lens_circle_falloff", FLOAT, "5.0"),
    _variation("lens_circle_multiplier", FLOAT, "0.0"),
    _variation("lens_k", FLOAT, "-1.0"),
    _variation("lens_kcube", FLOAT, "0.0"),
    _variation("lens_x_size", FLOAT, "0.08"),
    _variation("lens_y_size", FLOAT, "0.08"),
]

_POST_PROCESS = [
    _variation("exposure_mode", STRING, "histogram", "manual", restrict=True),
    _variation("exposure_compensation", FLOAT, "0.0"),
    _variation("shutter_speed", FLOAT, "200.0"),
    _variation("iso", FLOAT, "100.0"),
    _variation("fstop", FLOAT, "1.4"),
    _variation("enable_postprocess_effects", BOOL, "true"),
    _variation("gamma", FLOAT, "2.2"),
    _variation("motion_blur_intensity", FLOAT, "0.45"),
    _variation("motion_blur_max_distortion", FLOAT, "0.35"),
    _variation("lens_flare_intensity", FLOAT, "0.1"),
    _variation("bloom_intensity", FLOAT, "0.675"),
    _variation("motion_blur_min_object_screen_size", FLOAT, "0.1"),
    _variation("exposure_min_bright", FLOAT, "10.0"),
    _variation("exposure_max_bright", FLOAT, "12.0"),
    _variation("exposure_speed_up", FLOAT, "3.0"),
    _variation("exposure_speed_down", FLOAT, "1.0"),
    _variation("calibration_constant", FLOAT, "16.0"),
    _variation("focal_distance", FLOAT, "1000.0"),
    _variation("min_fstop", FLOAT, "1.2"),
    _variation("blade_count", INT, "5"),
    _variation("blur_amount", FLOAT, "1.0"),
    _variation("blur_radius", FLOAT, "0.0"),
    _variation("slope", FLOAT, "0.88"),
    _variation("toe", FLOAT, "0.55"),
    _variation("shoulder", FLOAT, "0.26"),
    _variation("black_clip", FLOAT, "0.0"),
    _variation("white_clip", FLOAT, "0.04"),
    _variation("temp", FLOAT, "6500.0"),
    _variation("tint", FLOAT, "0.0"),
    _variation("chromatic_aberration_intensity", FLOAT, "0.0"),
    _variation("chromatic_aberration_offset", FLOAT, "0.0"),
]

_DVS = [
    _variation("positive_threshold", FLOAT, "0.3"),
    _variation("negative_threshold", FLOAT, "0.3"),
    _variation("sigma_positive_threshold", FLOAT, "0.0"),
    _variation("sigma_negative_threshold", FLOAT, "0.0"),
    _variation("refractory_period_ns", INT, "0"),
    _variation("use_log", BOOL, "True"),  # CARLA's text, capital T
    _variation("log_eps", FLOAT, "0.001"),
]


def _camera(name: str, extra: list[AttributeDefinition]) -> BlueprintDefinition:
    return _define(f"sensor.camera.{name}", [_SENSOR_ROLES, _SENSOR_TICK, *_CAMERA_BASE, *extra])


# --- other sensors -------------------------------------------------------------

_LIDAR_COMMON = [
    _variation("channels", INT, "32"),
    _variation("range", FLOAT, "10.0"),
    _variation("points_per_second", INT, "56000"),
    _variation("rotation_frequency", FLOAT, "10.0"),
    _variation("upper_fov", FLOAT, "10.0"),
    _variation("lower_fov", FLOAT, "-30.0"),
    _variation("horizontal_fov", FLOAT, "360.0"),
]

_LIDAR_INTENSITY = [
    _variation("atmosphere_attenuation_rate", FLOAT, "0.004"),
    _variation("noise_seed", INT, "0"),
    _variation("dropoff_general_rate", FLOAT, "0.45"),
    _variation("dropoff_intensity_limit", FLOAT, "0.8"),
    _variation("dropoff_zero_intensity", FLOAT, "0.4"),
    _variation("noise_stddev", FLOAT, "0.0"),
]


def _zeros(*names: str) -> list[AttributeDefinition]:
    return [_variation(n, FLOAT, "0.0") for n in names]


# The radio model both V2X senders share (MakeV2XDefinition / MakeCustomV2XDefinition).
_V2X_RADIO = [
    _variation("noise_seed", INT, "0"),
    _variation("transmit_power", FLOAT, "21.5"),
    _variation("receiver_sensitivity", FLOAT, "-99.0"),
    _variation("frequency_ghz", FLOAT, "5.9"),
    _variation("combined_antenna_gain", FLOAT, "10.0"),
    _variation("scenario", STRING, "highway", "rural", "urban", restrict=True),
    _variation("path_loss_model", STRING, "winner", "geometric", restrict=True),
    _variation("path_loss_exponent", FLOAT, "2.7"),
    _variation("d_ref", FLOAT, "1.0"),
    _variation("filter_distance", FLOAT, "500.0"),
    _variation("use_etsi_fading", BOOL, "true"),
    _variation("custom_fading_stddev", FLOAT, "0.0"),
]

# What the cooperative-awareness sender adds: message rates and the noise of its contents.
_V2X_CAM = [
    _variation("gen_cam_min", FLOAT, "0.1"),
    _variation("gen_cam_max", FLOAT, "1.0"),
    _variation("fixed_rate", BOOL, "false"),
    *_zeros(
        "noise_lat_stddev", "noise_lat_bias", "noise_lon_stddev", "noise_lon_bias",
        "noise_alt_stddev", "noise_alt_bias", "noise_head_stddev", "noise_head_bias",
        "noise_accel_stddev_x", "noise_accel_stddev_y", "noise_accel_stddev_z",
        "noise_yawrate_stddev", "noise_yawrate_bias", "noise_vel_stddev_x",
    ),
]  # fmt: skip


def _sensors() -> list[BlueprintDefinition]:
    post = _POST_PROCESS
    return [
        _camera("rgb", post),
        _camera("depth", []),
        _camera("semantic_segmentation", []),
        _camera("instance_segmentation", []),
        _camera("optical_flow", []),
        _camera("normals", []),
        _camera("cosmos_visualization", []),  # spawns; lockstep gives it no pictures
        _camera("dvs", [*post, *_DVS]),
        _define(
            "sensor.lidar.ray_cast",
            [_SENSOR_ROLES, _SENSOR_TICK, *_LIDAR_COMMON, *_LIDAR_INTENSITY],
        ),
        _define("sensor.lidar.ray_cast_semantic", [_SENSOR_ROLES, _SENSOR_TICK, *_LIDAR_COMMON]),
        _define(
            "sensor.other.radar",
            [
                _DEFAULT_ROLE,
                _SENSOR_TICK,
                _variation("horizontal_fov", FLOAT, "30"),
                _variation("vertical_fov", FLOAT, "30"),
                _variation("range", FLOAT, "100"),
                _variation("points_per_second", INT, "1500"),
                _variation("noise_seed", INT, "0"),
            ],
        ),
        _define(
            "sensor.other.gnss",
            [
                _DEFAULT_ROLE,
                _SENSOR_TICK,
                _variation("noise_seed", INT, "0"),
                *_zeros(
                    "noise_lat_stddev",
                    "noise_lat_bias",
                    "noise_lon_stddev",
                    "noise_lon_bias",
                    "noise_alt_stddev",
                    "noise_alt_bias",
                ),
            ],
        ),
        _define(
            "sensor.other.imu",
            [
                _DEFAULT_ROLE,
                _SENSOR_TICK,
                _variation("noise_seed", INT, "0"),
                *_zeros(
                    "noise_accel_stddev_x",
                    "noise_accel_stddev_y",
                    "noise_accel_stddev_z",
                    "noise_gyro_stddev_x",
                    "noise_gyro_stddev_y",
                    "noise_gyro_stddev_z",
                    "noise_gyro_bias_x",
                    "noise_gyro_bias_y",
                    "noise_gyro_bias_z",
                ),
            ],
        ),
        _define("sensor.other.collision", [_SENSOR_ROLES]),
        _define("sensor.other.lane_invasion", [_SENSOR_ROLES]),
        _define(
            "sensor.other.obstacle",
            [
                _SENSOR_ROLES,
                _SENSOR_TICK,
                _variation("distance", FLOAT, "5.0"),
                _variation("hit_radius", FLOAT, "0.5"),
                _variation("only_dynamics", BOOL, "false"),
                _variation("debug_linetrace", BOOL, "false"),
            ],
        ),
        _define("sensor.other.rss", [_SENSOR_ROLES]),
        _define("sensor.other.v2x", [_DEFAULT_ROLE, _SENSOR_TICK, *_V2X_RADIO, *_V2X_CAM]),
        _define("sensor.other.v2x_custom", [_DEFAULT_ROLE, _SENSOR_TICK, *_V2X_RADIO]),
    ]


# --- vehicles --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VehicleEntry:
    """A vehicle blueprint's catalogue facts (attributes the server reports)."""

    id: str
    base_type: str  # car, truck, van, bus, motorcycle, bicycle; "" where CARLA reports none
    generation: int
    special_type: str = ""  # "", "emergency", "taxi", "electric"
    has_lights: bool = False
    has_dynamic_doors: bool = False

    @property
    def kind(self) -> str:
        """The base type used for boxes and physics (a car where CARLA reports none)."""
        return self.base_type or "car"

    @property
    def number_of_wheels(self) -> int:
        return 2 if self.kind in ("motorcycle", "bicycle") else 4


def _v(
    vid: str, base: str, gen: int, special: str = "", lights: bool = False, doors: bool = False
) -> VehicleEntry:
    return VehicleEntry(f"vehicle.{vid}", base, gen, special, lights, doors)


VEHICLES: tuple[VehicleEntry, ...] = (
    _v("audi.a2", "car", 1),
    _v("audi.etron", "car", 1, "electric", lights=True),
    _v("audi.tt", "car", 1, lights=True),
    _v("bh.crossbike", "bicycle", 1),
    _v("bmw.grandtourer", "", 1),
    _v("carlamotors.carlacola", "truck", 1),
    _v("carlamotors.european_hgv", "truck", 2, lights=True),
    _v("carlamotors.firetruck", "truck", 2, "emergency", lights=True),
    _v("chevrolet.impala", "car", 1, lights=True),
    _v("citroen.c3", "car", 1),
    _v("diamondback.century", "bicycle", 1),
    _v("dodge.charger_2020", "car", 2, lights=True, doors=True),
    _v("dodge.charger_police", "car", 1, "emergency", lights=True),
    _v("dodge.charger_police_2020", "car", 2, "emergency", lights=True, doors=True),
    _v("ford.ambulance", "van", 2, "emergency", lights=True, doors=True),
    _v("ford.crown", "car", 2, "taxi", lights=True, doors=True),
    _v("ford.mustang", "car", 1, lights=True),
    _v("gazelle.omafiets", "bicycle", 1),
    _v("harley-davidson.low_rider", "motorcycle", 1),
    _v("jeep.wrangler_rubicon", "car", 1),
    _v("kawasaki.ninja", "motorcycle", 1),
    _v("lincoln.mkz_2017", "car", 1, lights=True),
    _v("lincoln.mkz_2020", "car", 2, lights=True, doors=True),
    _v("mercedes.coupe", "car", 1, lights=True),
    _v("mercedes.coupe_2020", "car", 2, lights=True, doors=True),
    _v("mercedes.sprinter", "van", 2, lights=True, doors=True),
    _v("micro.microlino", "car", 1, "electric", lights=True),
    _v("mini.cooper_s", "", 1),
    _v("mini.cooper_s_2021", "car", 2, lights=True, doors=True),
    _v("mitsubishi.fusorosa", "bus", 2, lights=True),
    _v("nissan.micra", "car", 1),
    _v("nissan.patrol", "car", 1),
    _v("nissan.patrol_2021", "car", 2, lights=True, doors=True),
    _v("seat.leon", "car", 1),
    _v("tesla.cybertruck", "truck", 2, "electric", lights=True),
    _v("tesla.model3", "car", 1, "electric", lights=True),
    _v("toyota.prius", "car", 1),
    _v("vespa.zx125", "motorcycle", 1),
    _v("volkswagen.t2", "van", 1, lights=True),
    _v("volkswagen.t2_2021", "van", 2, lights=True, doors=True),
    _v("yamaha.yzf", "motorcycle", 1),
)

# Five colours offered by every vehicle; the first is the one a spawn gets unless set.
VEHICLE_COLORS = ("16,16,16", "183,187,162", "230,230,230", "140,20,20", "30,60,130")
# Drivers offered by the two-wheelers (CARLA restricts driver_id to its recommended values).
TWO_WHEEL_DRIVERS = ("0", "1", "2")


def _vehicle(entry: VehicleEntry) -> BlueprintDefinition:
    attributes = [
        _role("autopilot", "scenario", "ego_vehicle"),
        _variation("color", RGB, *VEHICLE_COLORS),
        _variation("sticky_control", BOOL, "true"),
        _variation("terramechanics", BOOL, "false"),
        _fixed("object_type", STRING, ""),
        _fixed("base_type", STRING, entry.base_type),
        _fixed("special_type", STRING, entry.special_type),
        _fixed("number_of_wheels", INT, str(entry.number_of_wheels)),
        _fixed("generation", INT, str(entry.generation)),
        _fixed("has_dynamic_doors", BOOL, "true" if entry.has_dynamic_doors else "false"),
        _fixed("has_lights", BOOL, "true" if entry.has_lights else "false"),
    ]
    if entry.number_of_wheels == 2:
        attributes.append(_variation("driver_id", INT, *TWO_WHEEL_DRIVERS, restrict=True))
    return _define(entry.id, attributes)


# --- pedestrians -----------------------------------------------------------------

# walker.pedestrian.0001 ... 0051, the ids of CARLA 0.9.15.
PEDESTRIAN_IDS: tuple[str, ...] = tuple(f"walker.pedestrian.{n:04d}" for n in range(1, 52))
# Children's models (CARLA's smaller boxes: 0.5 m wide and 1.1 m high, or 1.3 m high).
CHILD_PEDESTRIANS = frozenset(f"walker.pedestrian.{n:04d}" for n in (9, 10, 11, 12, 13, 14, 48, 49))


def _pedestrian(pid: str) -> BlueprintDefinition:
    generation = "1" if int(pid[-4:]) <= 14 else "2"
    return _define(
        pid,
        [
            _role("pedestrian"),
            _fixed("gender", STRING, "other"),
            _fixed("generation", INT, generation),
            _fixed("age", STRING, "child" if pid in CHILD_PEDESTRIANS else "adult"),
            _fixed("can_use_wheelchair", BOOL, "false"),
            _variation("speed", FLOAT, "0.0", "1.4", "2.8"),
            _variation("is_invincible", BOOL, "true"),
            _variation("use_wheelchair", BOOL, "false", restrict=True),
        ],
    )


# --- props and the rest ------------------------------------------------------------

# static.prop.* of CARLA 0.9.15 (the props with a measured box). CARLA's size class
# (tiny/small/medium/big/huge) is chosen from each box's largest side: < 0.25 m tiny,
# < 1 m small, < 2.5 m medium, < 5 m big, else huge.
PROP_IDS: tuple[str, ...] = tuple(f"static.prop.{name}" for name in sorted(PROP_SIZES))


def _size_class(largest_side: float) -> str:
    for limit, name in ((0.25, "tiny"), (1.0, "small"), (2.5, "medium"), (5.0, "big")):
        if largest_side < limit:
            return name
    return "huge"


def _prop(prop_id: str, largest_side: float) -> BlueprintDefinition:
    return _define(
        prop_id,
        [_role("prop"), _fixed("size", STRING, _size_class(largest_side))],
    )


def _others() -> list[BlueprintDefinition]:
    return [
        _define(
            "static.prop.mesh",
            [
                _DEFAULT_ROLE,
                _variation("mesh_path", STRING, ""),
                _variation("mass", FLOAT, ""),  # empty: atof reads 0, no physics
                _variation("scale", FLOAT, "1.0f"),
            ],
        ),
        _define(
            "static.trigger.friction",
            [
                _DEFAULT_ROLE,
                _variation("friction", FLOAT, "3.5f"),
                _variation("extent_x", FLOAT, "1.0f"),
                _variation("extent_y", FLOAT, "1.0f"),
                _variation("extent_z", FLOAT, "1.0f"),
            ],
        ),
        _define("util.actor.empty", [_DEFAULT_ROLE]),
        _define("controller.ai.walker", [_DEFAULT_ROLE]),
    ]


def _build() -> tuple[BlueprintDefinition, ...]:
    definitions = [
        *_sensors(),
        *(_vehicle(v) for v in VEHICLES),
        *(_pedestrian(p) for p in PEDESTRIAN_IDS),
        *(_prop(p, max(PROP_SIZES[p.removeprefix("static.prop.")])) for p in PROP_IDS),
        *_others(),
    ]
    return tuple(sorted(definitions, key=lambda d: d.id))


CATALOG: tuple[BlueprintDefinition, ...] = _build()

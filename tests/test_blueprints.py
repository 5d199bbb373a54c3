"""The blueprint library against CARLA's rules (client/ActorAttribute.cpp, BlueprintLibrary.cpp)."""

import struct

import pytest

from world.actors.blueprints import ActorAttributeType, Color, blueprint_library
from world.errors import BlueprintError, WorldError


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@pytest.fixture(scope="module")
def lib():
    return blueprint_library()


def test_vehicle_wildcard_counts_every_vehicle(lib):
    # CARLA 0.9.15 lists 41 vehicle blueprints (25 cars, 4 trucks, 4 vans, 1 bus,
    # 4 motorcycles, 3 bicycles).
    vehicles = lib.filter("vehicle.*")
    assert len(vehicles) == 41
    kinds = [bp.get_attribute("base_type").as_str() for bp in vehicles]
    assert kinds.count("truck") == 4 and kinds.count("van") == 4 and kinds.count("bus") == 1
    assert kinds.count("motorcycle") == 4 and kinds.count("bicycle") == 3
    assert kinds.count("car") == 23 and kinds.count("") == 2  # cooper_s, grandtourer


def test_filter_by_id_substring(lib):
    assert [bp.id for bp in lib.filter("*mkz*")] == [
        "vehicle.lincoln.mkz_2017",
        "vehicle.lincoln.mkz_2020",
    ]


def test_filter_by_tag(lib):
    # Tags are the dotted parts of the id: "walker" is a tag of the 51 pedestrians and
    # of controller.ai.walker, whose id does not match the bare word.
    walkers = [bp.id for bp in lib.filter("walker")]
    assert len(walkers) == 52
    assert "controller.ai.walker" in walkers
    assert [bp.id for bp in lib.filter("lincoln")] == [
        "vehicle.lincoln.mkz_2017",
        "vehicle.lincoln.mkz_2020",
    ]
    assert len(lib.filter("ray_cast*")) == 2  # tags ray_cast and ray_cast_semantic
    assert len(lib.filter("Vehicle.*")) == 0  # fnmatch is case-sensitive


def test_wildcard_brackets_and_question_mark(lib):
    ids = [bp.id for bp in lib.filter("walker.pedestrian.000[1-3]")]
    assert ids == [f"walker.pedestrian.000{n}" for n in (1, 2, 3)]
    assert [bp.id for bp in lib.filter("vehicle.audi.?2")] == ["vehicle.audi.a2"]


def test_iteration_sorted_by_id_and_indexing(lib):
    ids = [bp.id for bp in lib]
    assert ids == sorted(ids)
    assert len(ids) == len(lib) == len(set(ids))
    assert lib[0].id == ids[0] and lib[-1].id == ids[-1]
    with pytest.raises(IndexError):
        lib[len(lib)]


def test_find_unknown_id(lib):
    with pytest.raises(BlueprintError, match=r"blueprint 'vehicle.lincoln.mkz2017' not found"):
        lib.find("vehicle.lincoln.mkz2017")
    assert issubclass(BlueprintError, WorldError)


def test_find_returns_a_copy(lib):
    bp = lib.find("vehicle.tesla.model3")
    bp.set_attribute("role_name", "hero")
    assert lib.find("vehicle.tesla.model3").get_attribute("role_name").as_str() == "autopilot"


def test_modifiable_attributes_start_at_first_recommended(lib):
    camera = lib.find("sensor.camera.rgb")
    assert camera.get_attribute("image_size_x").as_int() == 800
    assert camera.get_attribute("fov").as_float() == 90.0
    assert camera.get_attribute("role_name").as_str() == "front"
    assert camera.get_attribute("exposure_mode").recommended_values == ["histogram", "manual"]
    assert camera.get_attribute("exposure_mode").as_str() == "histogram"
    assert lib.find("sensor.other.gnss").get_attribute("role_name").as_str() == "default"
    friction = lib.find("static.trigger.friction")
    assert friction.get_attribute("friction").value == "3.5f"  # text kept as CARLA's
    assert friction.get_attribute("friction").as_float() == 3.5
    walker = lib.find("walker.pedestrian.0001")
    assert walker.get_attribute("speed").recommended_values == ["0.0", "1.4", "2.8"]
    assert walker.get_attribute("is_invincible").as_bool() is True


def test_set_attribute_read_only_raises(lib):
    bp = lib.find("vehicle.audi.a2")
    assert bp.get_attribute("number_of_wheels").is_modifiable is False
    with pytest.raises(BlueprintError, match="read-only attribute"):
        bp.set_attribute("number_of_wheels", "3")
    assert bp.get_attribute("number_of_wheels").as_int() == 4


def test_set_attribute_checks_the_value_type(lib):
    bp = lib.find("vehicle.audi.a2")
    bp.set_attribute("sticky_control", "FALSE")  # a bool is lower-cased
    assert bp.get_attribute("sticky_control").value == "false"
    with pytest.raises(BlueprintError, match="invalid bool"):
        bp.set_attribute("sticky_control", "yes")
    assert bp.get_attribute("sticky_control").value == "false"  # unchanged
    with pytest.raises(BlueprintError, match="3 channels"):
        bp.set_attribute("color", "1,2")
    with pytest.raises(BlueprintError, match="attribute 'colour' not found"):
        bp.set_attribute("colour", "1,2,3")
    camera = lib.find("sensor.camera.rgb")
    with pytest.raises(BlueprintError, match="float overflow"):
        camera.set_attribute("fov", "1e39")  # above FLT_MAX = 3.4e38


def test_attribute_reads_as_c(lib):
    camera = lib.find("sensor.camera.rgb")
    camera.set_attribute("image_size_x", " 1280px")
    assert camera.get_attribute("image_size_x").as_int() == 1280
    camera.set_attribute("fov", "abc")
    assert camera.get_attribute("fov").as_float() == 0.0
    camera.set_attribute("gamma", "2.2")
    assert camera.get_attribute("gamma").as_float() == f32(2.2)  # read back as a float
    with pytest.raises(BlueprintError, match="bad attribute cast"):
        camera.get_attribute("fov").as_int()


def test_color_attribute(lib):
    bp = lib.find("vehicle.nissan.patrol")
    color = bp.get_attribute("color")
    assert color.type == ActorAttributeType.RGBColor
    assert len(color.recommended_values) == 5
    bp.set_attribute("color", "183,187,162")
    assert bp.get_attribute("color").as_color() == Color(183, 187, 162, 255)
    bp.set_attribute("color", Color(1, 2, 3))
    assert bp.get_attribute("color").value == "1,2,3"
    # atoi per channel: " 7" -> 7, "x" -> 0, "-1" -> -1, which C's uint8_t cast makes 255.
    bp.set_attribute("color", " 7,x,-1")
    assert bp.get_attribute("color").as_color() == Color(7, 0, 255, 255)
    with pytest.raises(BlueprintError, match="integer overflow in color channel"):
        bp.set_attribute("color", "0,0,300")  # 300 > 255
    assert bp.get_attribute("color").value == " 7,x,-1"  # unchanged


def test_attribute_comparisons(lib):
    bp = lib.find("vehicle.lincoln.mkz_2017")
    assert bp.get_attribute("base_type") == "car"
    assert bp.get_attribute("number_of_wheels") == 4
    assert int(bp.get_attribute("number_of_wheels")) == 4
    assert bp.get_attribute("sticky_control") == True  # noqa: E712 (CARLA's bool comparison)
    assert bool(bp.get_attribute("has_lights")) is True
    assert lib.find("sensor.camera.rgb").get_attribute("fov") == 90.0
    assert str(bp.get_attribute("number_of_wheels")) == (
        "ActorAttribute(id=number_of_wheels,type=int,value=4(const))"
    )


def test_filter_by_attribute(lib):
    # Recommended values count, else the value: number_of_wheels has none, so its value.
    two_wheelers = lib.filter_by_attribute("number_of_wheels", "2")
    assert len(two_wheelers) == 7
    assert len(lib.filter_by_attribute("role_name", "ego_vehicle")) == 41
    assert [bp.id for bp in lib.filter_by_attribute("special_type", "taxi")] == [
        "vehicle.ford.crown"
    ]


def test_tags_and_blueprint_api(lib):
    bp = lib.find("sensor.lidar.ray_cast_semantic")
    assert bp.tags == ["sensor", "lidar", "ray_cast_semantic"]
    assert bp.has_tag("lidar") and not bp.has_tag("lid*")
    assert bp.match_tags("lid*")
    assert bp.has_attribute("channels") and not bp.has_attribute("noise_stddev")
    names = [a.id for a in bp]
    assert names == sorted(names) and len(names) == len(bp) == 9


def test_catalogue_contents(lib):
    for bp_id in (
        "sensor.camera.depth", "sensor.camera.semantic_segmentation",
        "sensor.camera.instance_segmentation", "sensor.camera.optical_flow",
        "sensor.camera.normals", "sensor.camera.dvs", "sensor.other.radar",
        "sensor.other.imu", "sensor.other.collision", "sensor.other.lane_invasion",
        "sensor.other.obstacle", "sensor.other.rss", "static.prop.streetbarrier",
        "static.prop.constructioncone", "static.prop.trafficcone01",
        "static.prop.warningconstruction", "static.prop.mesh", "static.trigger.friction",
        "util.actor.empty", "controller.ai.walker", "walker.pedestrian.0051",
        "vehicle.harley-davidson.low_rider", "vehicle.carlamotors.carlacola",
    ):  # fmt: skip
        assert bp_id in lib, bp_id
    assert len(lib.filter("walker.pedestrian.*")) == 51
    assert lib.find("vehicle.yamaha.yzf").get_attribute("driver_id").restrict_to_recommended


def test_dvs_keeps_carla_texts(lib):
    dvs = lib.find("sensor.camera.dvs")
    assert dvs.get_attribute("use_log").value == "True"  # CARLA writes "True"; as_bool lowers it
    assert dvs.get_attribute("use_log").as_bool() is True
    assert dvs.get_attribute("positive_threshold").as_float() == f32(0.3)
    assert dvs.has_attribute("exposure_mode")  # the DVS is an RGB camera underneath
    depth = lib.find("sensor.camera.depth")
    assert not depth.has_attribute("exposure_mode") and len(depth) == 11


def test_v2x_senders(lib):
    cam = lib.find("sensor.other.v2x")
    custom = lib.find("sensor.other.v2x_custom")
    assert cam.get_attribute("frequency_ghz").as_float() == f32(5.9)
    assert cam.get_attribute("scenario").recommended_values == ["highway", "rural", "urban"]
    assert cam.get_attribute("scenario").restrict_to_recommended
    assert custom.has_attribute("path_loss_model") and not custom.has_attribute("gen_cam_min")
    # sensor_tick, role_name, 12 radio attributes; the CAM sender adds 3 rates and 14 noises.
    assert (len(custom), len(cam)) == (14, 31)


def test_static_mesh_prop(lib):
    mesh = lib.find("static.prop.mesh")
    assert mesh.get_attribute("mass").value == ""  # CARLA's empty default
    assert mesh.get_attribute("mass").as_float() == 0.0  # atof("") is 0
    assert mesh.get_attribute("scale").as_float() == 1.0
    assert mesh.get_attribute("role_name").as_str() == "default"  # a generic definition
    assert lib.find("static.prop.streetbarrier").get_attribute("role_name").as_str() == "prop"


def test_ids_are_the_iterations_ids_in_order(lib):
    assert lib.ids() == [bp.id for bp in lib]
    assert lib.ids() == sorted(lib.ids()) and len(lib.ids()) == len(lib)


def test_the_cosmos_camera_has_a_plain_camera_s_attributes(lib):
    # CosmosControlSensor::GetSensorDefinition is MakeCameraDefinition("cosmos_visualization"),
    # as the depth camera's: no post-processing attributes (manual_control.py lists it)
    cosmos = lib.find("sensor.camera.cosmos_visualization")
    depth = lib.find("sensor.camera.depth")
    assert sorted(a.id for a in cosmos) == sorted(a.id for a in depth)
    assert not cosmos.has_attribute("gamma")

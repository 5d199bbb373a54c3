"""The rendering sensors' data classes against CARLA's definitions, worked by hand.

CARLA's depth code of d metres is round(d / 1000 · (256³ − 1)) with R the low byte
(LibCarla ColorConverter::Depth decodes (R + G·256 + B·256²) / (256³ − 1) · 1000);
LogarithmicDepth is 1 + ln(normalised) / 5.70378 clamped to [0.005, 1]; GIL turns a float
channel into a byte as value · 255 + 0.5, truncated. The CityScapes palette is LibCarla's
CityScapesPalette.h (tag 7 traffic light (250, 170, 30), tag 14 car (0, 0, 142)).
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PillowImage

import world
from world.geometry import Location, Transform
from world.sensors.camera_encodings import depth_bgra
from world.sensors.color_converter import CITYSCAPES_PALETTE, ColorConverter, depth_metres
from world.sensors.dvs_events import DVS_EVENT, DVSEvent, DVSEventArray
from world.sensors.images import Image, OpticalFlowImage, OpticalFlowPixel
from world.sensors.picture_file import png_bytes
from world.sensors.point_clouds import (
    LidarMeasurement,
    RadarDetection,
    RadarMeasurement,
    SemanticLidarMeasurement,
)


def _image(bgra: np.ndarray) -> Image:
    h, w = bgra.shape[:2]
    return Image(7, 0.35, Transform(), w, h, 90.0, bytearray(bgra.astype(np.uint8).tobytes()))


def test_depth_code_of_ten_metres_is_carlas():
    # round(10 / 1000 * 16777215) = round(167772.15) = 167772 = 2 * 65536 + 143 * 256 + 92
    bgra = depth_bgra(np.array([[10.0]]))
    assert bgra[0, 0].tolist() == [2, 143, 92, 255]  # B, G, R, A
    decoded = depth_metres(bgra)[0, 0]  # 1000 * 167772 / 16777215 = 9.99999106 m
    assert abs(decoded - 10.0) < 0.01
    assert abs(decoded - 1000.0 * 167772 / 16777215) < 1e-9


def test_the_sky_reads_the_far_plane():
    bgra = depth_bgra(np.array([[np.inf, 2000.0]]))
    assert bgra[0].tolist() == [[255, 255, 255, 255]] * 2
    # the renderer's float32 far plane: 1000 * 16777.215 in float32 is 2^24, one code too many
    assert depth_bgra(np.array([[1000.0]], np.float32))[0].tolist() == [[255, 255, 255, 255]]
    assert depth_metres(bgra)[0, 0] == 1000.0


def test_depth_and_logarithmic_depth_converters():
    image = _image(depth_bgra(np.array([[10.0, 1000.0, 0.0]])))
    image.convert(ColorConverter.Depth)
    # 167772 / 16777215 * 255 + 0.5 = 3.05 -> 3; the far plane 255; zero 0 + 0.5 -> 0
    grey = np.frombuffer(image.raw_data, np.uint8).reshape(1, 3, 4)
    assert grey[0].tolist() == [[3, 3, 3, 255], [255, 255, 255, 255], [0, 0, 0, 255]]

    image = _image(depth_bgra(np.array([[10.0, 1000.0, 0.0]])))
    image.convert(ColorConverter.LogarithmicDepth)
    # 1 + ln(0.00999999) / 5.70378 = 1 - 4.6051711 / 5.70378 = 0.1926090 -> 49.115 + 0.5 -> 49;
    # ln(1) = 0 -> 1 -> 255; ln(0) = -inf -> clamped to 0.005 -> 1.775 -> 1
    expected = 1.0 + math.log(167772 / 16777215) / 5.70378
    assert int(expected * 255 + 0.5) == 49
    logs = np.frombuffer(image.raw_data, np.uint8).reshape(1, 3, 4)
    assert logs[0, :, 0].tolist() == [49, 255, 1]
    assert logs[0, :, 3].tolist() == [255, 255, 255]


def test_cityscapes_palette_colours_carlas_tags():
    assert CITYSCAPES_PALETTE.shape == (29, 3)
    bgra = np.zeros((1, 4, 4), np.uint8)
    bgra[0, :, 2] = [7, 14, 11, 29]  # traffic light, car, sky, and a tag past the palette
    image = _image(bgra)
    image.convert(ColorConverter.CityScapesPalette)
    out = np.frombuffer(image.raw_data, np.uint8).reshape(4, 4)
    assert out.tolist() == [
        [30, 170, 250, 255],
        [142, 0, 0, 255],
        [180, 130, 70, 255],
        [0, 0, 0, 255],  # 29 % 29 = 0: unlabeled
    ]


def test_image_bytes_pixels_and_text():
    bgra = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    image = _image(bgra)
    array = np.frombuffer(image.raw_data, dtype=np.uint8).reshape(image.height, image.width, 4)
    assert (array == bgra).all()
    assert len(image) == 6
    assert image[4] == world.Color(18, 17, 16, 19)  # pixel 4 = bytes 16..19 = B G R A
    image[4] = world.Color(1, 2, 3, 4)
    assert bytes(image.raw_data[16:20]) == bytes([3, 2, 1, 4])
    assert str(image) == "Image(frame=7, timestamp=0.350000, size=3x2)"
    with pytest.raises(IndexError):
        image[6]


def test_save_to_disk_writes_png_as_carla(tmp_path):
    bgra = np.zeros((2, 2, 4), np.uint8)
    bgra[..., 0], bgra[..., 1], bgra[..., 2], bgra[..., 3] = 10, 20, 30, 255
    image = _image(bgra)
    written = image.save_to_disk(str(tmp_path / "out" / "frame"))  # no extension: .png added
    assert written == str(tmp_path / "out" / "frame.png")
    with PillowImage.open(written) as picture:
        assert picture.mode == "RGBA"
        assert np.asarray(picture)[0, 0].tolist() == [30, 20, 10, 255]
    depth = _image(depth_bgra(np.array([[10.0, 1000.0]])))
    with PillowImage.open(depth.save_to_disk(str(tmp_path / "d.png"), ColorConverter.Depth)) as p:
        assert p.mode == "L"
        assert np.asarray(p).tolist() == [[3, 255]]


def test_png_bytes_decode_with_an_independent_reader():
    grey = np.array([[0, 128, 255]], np.uint8)
    with PillowImage.open(io.BytesIO(png_bytes(grey))) as picture:
        assert np.asarray(picture).tolist() == grey.tolist()


def test_lidar_measurement_layout_and_ply(tmp_path):
    points = np.array([[1, 2, 3, 0.5], [4, -5, 6, 0.25], [7, 8, 9, 1.0]], np.float32)
    m = LidarMeasurement(3, 0.15, Transform(), bytearray(points.tobytes()), 2, 1.5, (2, 1))
    read = np.frombuffer(m.raw_data, dtype=np.dtype("f4")).reshape(-1, 4)  # the leaderboard's
    assert (read == points).all()
    assert len(m) == 3 and m.get_point_count(0) == 2 and m.get_point_count(1) == 1
    assert m[1].point == Location(4.0, -5.0, 6.0) and m[1].intensity == 0.25
    assert str(m[0]) == "LidarDetection(x=1.000000, y=2.000000, z=3.000000, intensity=0.500000)"
    assert str(m) == "LidarMeasurement(frame=3, timestamp=0.150000, number_of_points=3)"
    path = m.save_to_disk(str(tmp_path / "cloud"))
    assert path.endswith("cloud.ply")
    assert Path(path).read_text() == (
        "ply\nformat ascii 1.0\nelement vertex 3\n"
        "property float32 x\nproperty float32 y\nproperty float32 z\nproperty float32 I\n"
        "end_header\n1.0000 2.0000 3.0000 0.5000\n4.0000 -5.0000 6.0000 0.2500\n"
        "7.0000 8.0000 9.0000 1.0000\n"
    )


def test_semantic_lidar_records_are_carlas_24_bytes():
    record = np.zeros(1, SemanticLidarMeasurement._record)
    record[0] = (1.0, 2.0, 3.0, 0.5, 42, 14)
    m = SemanticLidarMeasurement(1, 0.05, Transform(), bytearray(record.tobytes()), 1, 0.0, (1,))
    assert len(bytes(m.raw_data)) == 24
    d = m[0]
    assert (d.object_idx, d.object_tag, d.cos_inc_angle) == (42, 14, 0.5)


def test_radar_raw_data_and_the_leaderboards_flip():
    rows = np.array([[-5.0, 0.1, -0.2, 30.0]], np.float32)  # velocity, azimuth, altitude, depth
    m = RadarMeasurement(1, 0.05, Transform(), bytearray(rows.tobytes()))
    points = np.flip(np.frombuffer(m.raw_data, np.dtype("f4")).reshape(-1, 4), 1)
    assert points.tolist()[0] == pytest.approx([30.0, -0.2, 0.1, -5.0])  # depth, alt, az, vel
    assert m.get_detection_count() == 1
    assert m[0].velocity == -5.0
    m[0] = RadarDetection(1.0, 2.0, 3.0, 4.0)
    assert np.frombuffer(m.raw_data, np.float32).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert str(m) == "RadarMeasurement(frame=1, timestamp=0.050000, point_count=1)"


def test_dvs_events_are_carlas_packed_records():
    assert DVS_EVENT.itemsize == 13  # uint16 x, uint16 y, int64 t, bool pol, packed
    events = np.array([(3, 1, 1000, True), (0, 0, 2000, False)], DVS_EVENT)
    array = DVSEventArray(2, 0.1, Transform(), 4, 2, 90.0, bytearray(events.tobytes()))
    assert array.to_array() == [[3, 1, 1000, 1], [0, 0, 2000, -1]]
    assert array.to_array_pol() == [1, -1]
    assert array[0] == DVSEvent(3, 1, 1000, True)
    picture = array.to_image()
    assert len(picture) == 8
    assert (picture[4 * 1 + 3].b, picture[4 * 1 + 3].r) == (255, 0)  # brighter: blue
    assert (picture[0].b, picture[0].r) == (0, 255)  # darker: red


def test_color_coded_flow_follows_libcarla():
    # (-1, 0): angle 180 + pi * 360 / (2 * 3.1415) = 360.0053 -> 0.0053 deg, sector 0: red;
    # |v| = 1: ln(1.999) / ln(1.099) = 7.3 -> clamped to 1. (0, 0.001): ln(1.0) = 0: black.
    flow = np.array([[[-1.0, 0.0], [0.0, 0.001]]], np.float32)
    image = OpticalFlowImage(1, 0.05, Transform(), 2, 1, 90.0, bytearray(flow.tobytes()))
    painted = image.get_color_coded_flow()
    out = np.frombuffer(painted.raw_data, np.uint8).reshape(2, 4)
    assert out.tolist() == [[0, 0, 255, 0], [0, 0, 0, 0]]
    assert image[1] == OpticalFlowPixel(0.0, np.float32(0.001))


def test_the_classes_are_carlas_names():
    for name in ("Image", "ColorConverter", "LidarMeasurement", "RadarMeasurement",
                 "SemanticLidarMeasurement", "DVSEventArray", "OpticalFlowImage"):  # fmt: skip
        assert getattr(world, name).__name__ == name
    assert str(world.ColorConverter.LogarithmicDepth) == "LogarithmicDepth"

"""The camera sensors: sensor.camera.rgb, depth, semantic_segmentation, instance_segmentation
and normals, each an Image of the frame's scene through a pinhole.

A camera measures when due (sensor_tick) and listened to: an unheard camera renders nothing.
Its pose is the sensor's transform after the tick's physics; its picture is the renderer's
visibility buffers of that pose (world.sensors.scene_frame) made into CARLA's encoding
(world.sensors.camera_encodings); the RGB camera's view is drawn and shaded a strip of rows
at a time (world.sensors.shading), without buffers of the whole image.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from world.geometry import Transform
from world.render import Visibility
from world.sensors.base import SensorBehaviour, SensorContext, attribute_float
from world.sensors.buffers import records_bytes
from world.sensors.camera_encodings import depth_bgra, normals_bgra, segmentation_bgra
from world.sensors.images import Image
from world.sensors.pinhole import world_rays
from world.sensors.scene_frame import FrameScene
from world.sensors.shading import Shader, lighting_of

__all__ = [
    "CameraSensor",
    "DepthCamera",
    "InstanceSegmentationCamera",
    "NormalsCamera",
    "RGBCamera",
    "SemanticSegmentationCamera",
]


class CameraSensor(SensorBehaviour):
    """A pinhole camera of image_size_x × image_size_y pixels and a horizontal fov."""

    measures_unheard = False

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.width = int(attribute_float(attributes, "image_size_x", 800.0))
        self.height = int(attribute_float(attributes, "image_size_y", 600.0))
        self.fov = float(np.float32(attribute_float(attributes, "fov", 90.0)))

    def buffers(self, ctx: SensorContext) -> tuple[FrameScene, Transform, np.ndarray, Visibility]:
        """The frame's scene, the camera's transform and axes, and the visibility buffers."""
        return self.look(ctx.world.frame_scene(), self.sensor.get_transform())

    def look(
        self, scene: FrameScene, transform: Transform
    ) -> tuple[FrameScene, Transform, np.ndarray, Visibility]:
        """The visibility buffers of `scene` from `transform` (the scene's buffers for the
        image size: valid until the next camera of that size looks)."""
        axes = transform.rotation.matrix()
        origin = transform.location.as_array()
        seen = scene.camera(origin, axes, self.width, self.height, self.fov)
        return scene, transform, axes, seen

    def picture(self, scene: FrameScene, transform: Transform, weather: Any) -> np.ndarray:
        """The (H, W, 4) BGRA picture of `scene` from `transform` (no measurement is made:
        for pictures of a replayed log, recorder.replay.camera_video)."""
        _scene, transform, axes, seen = self.look(scene, transform)
        return self.encode(scene, transform, axes, seen, weather)

    def image(self, ctx: SensorContext, transform: Transform, bgra: np.ndarray) -> Image:
        return Image(
            ctx.frame,
            ctx.timestamp,
            transform,
            self.width,
            self.height,
            self.fov,
            records_bytes(bgra),
        )

    def measure(self, ctx: SensorContext) -> list[Image]:
        scene, transform = ctx.world.frame_scene(), self.sensor.get_transform()
        bgra = self.picture(scene, transform, ctx.world.get_weather())
        return [self.image(ctx, transform, bgra)]

    def encode(
        self,
        scene: FrameScene,
        transform: Transform,
        axes: np.ndarray,
        seen: Visibility,
        weather: Any,
    ) -> np.ndarray:
        """The (H, W, 4) BGRA picture of the buffers."""
        raise NotImplementedError


class DepthCamera(CameraSensor):
    """sensor.camera.depth: planar depth in CARLA's 24-bit code."""

    def encode(self, scene, transform, axes, seen, weather) -> np.ndarray:
        return depth_bgra(seen.depth)


class SemanticSegmentationCamera(CameraSensor):
    """sensor.camera.semantic_segmentation: the tag in red."""

    def encode(self, scene, transform, axes, seen, weather) -> np.ndarray:
        return segmentation_bgra(seen.number, scene.labels(), instances=False)


class InstanceSegmentationCamera(CameraSensor):
    """sensor.camera.instance_segmentation: tag in red, instance id in green and blue."""

    def encode(self, scene, transform, axes, seen, weather) -> np.ndarray:
        return segmentation_bgra(seen.number, scene.labels(), instances=True)


class NormalsCamera(CameraSensor):
    """sensor.camera.normals: world-space normals in [0, 255]."""

    def encode(self, scene, transform, axes, seen, weather) -> np.ndarray:
        rays = world_rays(self.width, self.height, self.fov, axes)
        return normals_bgra(scene.normal(seen.number), rays)


class RGBCamera(CameraSensor):
    """sensor.camera.rgb: albedo lit by the weather's sun and sky, in its fog. The view is
    drawn and shaded a strip of rows at a time (world.sensors.shading): no whole-image
    visibility buffers."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.shader = Shader()

    def picture(self, scene: FrameScene, transform: Transform, weather: Any) -> np.ndarray:
        axes = transform.rotation.matrix()
        origin = transform.location.as_array()
        return self.shader.shade(
            scene.strips(origin, axes, self.width, self.height, self.fov),
            self.fov,
            axes,
            transform.location.z,
            scene.columns(),
            scene.lit,
            lighting_of(weather),
        )

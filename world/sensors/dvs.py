"""sensor.camera.dvs: an event camera, CARLA's DVS simulator on the RGB camera's pictures.

As CARLA's DVSCamera.cpp: each measurement renders the RGB picture, turns it grey (0.2989 R
+ 0.587 G + 0.114 B) and, with use_log, into L = ln(log_eps + grey / 255). A pixel whose L
moved by more than 10⁻⁶ since the last measurement (from L₀ to L₁) fires events at the
levels reference + m · pol · C, m = 1, 2, ..., while they lie in (L₀, L₁] (pol = +1 when
brighter) — none when the first level does not pass L₀; C is positive_threshold or
negative_threshold, plus a normal draw of sigma_positive_threshold or
sigma_negative_threshold (at least 0.01) when those are set. An event's time interpolates
its level between the two measurements' times (nanoseconds); an event closer than
refractory_period_ns to the pixel's last one is dropped; the pixel's reference moves to each
level crossed. The first measurement only sets the references. Events are sorted by time
(ties in pixel, then crossing, order); a measurement with no event delivers nothing, as
CARLA sends nothing. Draws come from the sensor's generator for the frame (PCG64 of
SeedSequence((noise_seed, frame)), noise_seed 0 as the DVS blueprint has none), pixel by
pixel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from world import elementary as el
from world.sensors.base import SensorContext, attribute_bool, attribute_float
from world.sensors.cameras import RGBCamera
from world.sensors.dvs_events import DVS_EVENT, DVSEventArray
from world.sensors.lidar import frame_generator

__all__ = ["DVSCamera", "dvs_events", "grey_levels"]

_TOLERANCE = np.float32(1e-6)
_MIN_THRESHOLD = np.float32(0.01)


def grey_levels(bgra: np.ndarray, use_log: bool, log_eps: float) -> np.ndarray:
    """(H·W,) float32 brightness of a BGRA picture, logarithmic with `use_log`."""
    b, g, r = (bgra[..., i].reshape(-1).astype(np.float64) for i in range(3))
    grey = 0.2989 * r + 0.587 * g + 0.114 * b
    if use_log:
        grey = el.log_v(log_eps + grey / 255.0)
    return grey.astype(np.float32)


class _State:
    """A DVS's memory: the last levels, the references, last event times, the clock."""

    def __init__(self, levels: np.ndarray, now_ns: int) -> None:
        self.previous = levels
        self.reference = levels.copy()
        self.last_event = np.zeros(len(levels), np.int64)  # ns; 0: none yet
        self.now_ns = now_ns


def dvs_events(
    state: _State,
    levels: np.ndarray,
    now_ns: int,
    thresholds: tuple[float, float],
    sigmas: tuple[float, float],
    refractory_ns: int,
    rng: np.random.Generator | None,
    width: int,
) -> np.ndarray:
    """The events (DVS_EVENT records, sorted) from `state` to `levels` at `now_ns`; updates
    `state`."""
    before, after = state.previous, levels
    changed = np.flatnonzero(np.abs(before - after) > _TOLERANCE)
    old, new = before[changed], after[changed]
    up = new >= old
    step = np.where(up, np.float32(thresholds[0]), np.float32(thresholds[1]))
    sigma = np.where(up, sigmas[0], sigmas[1])
    noisy = sigma > 0.0
    if noisy.any() and rng is not None:
        step = step + np.where(noisy, rng.normal(0.0, 1.0, len(changed)) * sigma, 0.0).astype(
            np.float32
        )
        step = np.where(noisy, np.maximum(step, _MIN_THRESHOLD), step).astype(np.float32)
    sign = np.where(up, np.float32(1.0), np.float32(-1.0))
    delta_ns = now_ns - state.now_ns
    found: list[np.ndarray] = []
    pixels = changed
    reference = state.reference[changed]
    alive = np.ones(len(changed), bool)
    m = 1
    while alive.any():
        level = (reference + sign * step * np.float32(m)).astype(np.float32)
        inside = np.where(up, (level > old) & (level <= new), (level < old) & (level >= new))
        alive &= inside
        if not alive.any():
            break
        k = np.flatnonzero(alive)
        pixel = pixels[k]
        t = state.now_ns + (
            (level[k] - old[k]).astype(np.float64) * delta_ns / (new[k] - old[k])
        ).astype(np.int64)
        last = state.last_event[pixel]
        fire = (last == 0) | (t - last >= refractory_ns)
        record = np.zeros(int(fire.sum()), DVS_EVENT)
        record["x"] = pixel[fire] % width
        record["y"] = pixel[fire] // width
        record["t"] = t[fire]
        record["pol"] = up[k][fire]
        found.append(record)
        state.last_event[pixel[fire]] = t[fire]
        state.reference[pixel] = level[k]
        m += 1
    state.previous = levels
    state.now_ns = now_ns
    if not found:
        return np.zeros(0, DVS_EVENT)
    events = np.concatenate(found)
    order = np.lexsort((events["y"] * width + events["x"], events["t"]))
    return events[order]


class DVSCamera(RGBCamera):
    """The event camera (see the module)."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.thresholds = (
            attribute_float(attributes, "positive_threshold", 0.3),
            attribute_float(attributes, "negative_threshold", 0.3),
        )
        self.sigmas = (
            attribute_float(attributes, "sigma_positive_threshold", 0.0),
            attribute_float(attributes, "sigma_negative_threshold", 0.0),
        )
        self.refractory_ns = int(attribute_float(attributes, "refractory_period_ns", 0.0))
        self.use_log = attribute_bool(attributes, "use_log", True)
        self.log_eps = attribute_float(attributes, "log_eps", 0.001)
        self.seed = int(attribute_float(attributes, "noise_seed", 0.0))
        self._state: _State | None = None

    def measure(self, ctx: SensorContext) -> list[DVSEventArray]:
        transform = self.sensor.get_transform()
        bgra = self.picture(ctx.world.frame_scene(), transform, ctx.world.get_weather())
        levels = grey_levels(bgra, self.use_log, self.log_eps)
        now_ns = int(ctx.timestamp * 1e9)
        if self._state is None:
            self._state = _State(levels, now_ns)
            return []
        noisy = self.sigmas[0] > 0.0 or self.sigmas[1] > 0.0
        rng = frame_generator(self.seed, ctx.frame) if noisy else None
        events = dvs_events(
            self._state, levels, now_ns, self.thresholds, self.sigmas, self.refractory_ns, rng,
            self.width,
        )  # fmt: skip
        if len(events) == 0:
            return []
        return [
            DVSEventArray(
                ctx.frame,
                ctx.timestamp,
                transform,
                self.width,
                self.height,
                self.fov,
                bytearray(events.tobytes()),
            )
        ]

"""ControlLoss (ScenarioRunner's control_loss.py): dirt debris lies on the ego's lane 14,
48 and 74 m past the trigger; while the ego is within 2 m of a piece, its control is
perturbed each tick (ScenarioRunner's AddNoiseToRouteEgo): throttle + N(±0.03, 0.01) and
steer + N(±0.055, 0.015), the signs drawn per piece. The scenario ends once the ego has
driven 110 m. Randomness from the scenario's generator. Differences: ScenarioRunner keeps
the noisy throttle in [-1, 1] and the steer in [0, 1] (losing any left steer); here they
stay in the control's own ranges, [0, 1] and [-1, 1]."""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import in_trigger_distance, wait_until
from scenarios.library._blockers import odometer
from world.actors.controls import VehicleControl
from world.geometry import Transform

DISTANCES = (14.0, 48.0, 74.0)  # m past the trigger, ScenarioRunner's non-random ones
END_DISTANCE = 110.0  # m the ego drives before the scenario ends
THROTTLE_MEAN, THROTTLE_STD = 0.03, 0.01
STEER_MEAN, STEER_STD = 0.055, 0.015
NEAR = 2.0  # m from a piece of debris: the noise is on
DEBRIS = "static.prop.dirtdebris01"


def along_lane(wp: Any, distance: float) -> Any:
    """`wp` moved `distance` m along its lane in 1 m steps, through junctions
    (ScenarioRunner's get_waypoint_in_distance)."""
    travelled = 0.0
    while travelled + 1e-6 < distance:  # a 1 m step measures a hair short of 1 m
        ahead = wp.next(1.0)
        if not ahead:
            break
        travelled += ahead[0].transform.location.distance(wp.transform.location)
        wp = ahead[0]
    return wp


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


class ControlLoss(Scenario):
    type_name = "ControlLoss"
    parameters = ()

    def setup(self) -> None:
        start = self.world.get_map().get_waypoint(self.trigger.location)
        self.debris: list[Any] = []
        for distance in DISTANCES:
            tf = along_lane(start, distance).transform
            piece = self.spawn(DEBRIS, Transform(tf.location, tf.rotation), role_name="prop")
            piece.set_simulate_physics(False)
            self.debris.append(piece)
        self.noise: tuple[float, float, float, float] | None = None
        self.ctx.ego_control_filters.append(self.perturb)

    def perturb(self, control: VehicleControl) -> VehicleControl:
        """The agent's control with this tick's noise, while the ego is near a piece."""
        if self.noise is None:
            return control
        throttle_mean, throttle_std, steer_mean, steer_std = self.noise
        throttle = control.throttle + float(self.rng.normal(throttle_mean, throttle_std))
        steer = control.steer + float(self.rng.normal(steer_mean, steer_std))
        return VehicleControl(
            throttle=_clamp(throttle, 0.0, 1.0),
            steer=_clamp(steer, -1.0, 1.0),
            brake=control.brake,
            hand_brake=control.hand_brake,
            reverse=control.reverse,
            manual_gear_shift=control.manual_gear_shift,
            gear=control.gear,
        )

    def _noise_parameters(self) -> tuple[float, float, float, float]:
        throttle = float(self.rng.choice([THROTTLE_MEAN, -THROTTLE_MEAN]))
        steer = float(self.rng.choice([STEER_MEAN, -STEER_MEAN]))
        return (throttle, THROTTLE_STD, steer, STEER_STD)

    def behaviour(self) -> None:
        done = odometer(self.ego, END_DISTANCE)
        for piece in self.debris:
            where = piece.get_location()
            near = in_trigger_distance(self.ego, where, NEAR)
            if not wait_until(lambda near=near: done() or near()) or done():
                break
            self.noise = self._noise_parameters()
            wait_until(lambda near=near: done() or not near())
            self.noise = None
        wait_until(done)

    def cleanup(self) -> None:
        self.noise = None
        if self.perturb in self.ctx.ego_control_filters:
            self.ctx.ego_control_filters.remove(self.perturb)
        super().cleanup()

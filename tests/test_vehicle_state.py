"""State enums carry CARLA's names and numbers (values from LibCarla rpc/*.h, typed in)."""

from world.actors.vehicle_state import (
    ActorState,
    ActorType,
    AttachmentType,
    CityObjectLabel,
    TrafficLightState,
    VehicleDoor,
    VehicleFailureState,
    VehicleLightState,
    VehicleWheelLocation,
)


def test_light_state_bits():
    expected = {
        "NONE": 0, "Position": 1, "LowBeam": 2, "HighBeam": 4, "Brake": 8,
        "RightBlinker": 16, "LeftBlinker": 32, "Reverse": 64, "Fog": 128,
        "Interior": 256, "Special1": 512, "Special2": 1024, "All": 0xFFFFFFFF,
    }  # fmt: skip
    assert {name: int(m) for name, m in VehicleLightState.__members__.items()} == expected
    both = VehicleLightState.Position | VehicleLightState.LowBeam
    assert int(both) == 3
    assert str(VehicleLightState.Brake) == "Brake"
    assert VehicleLightState(0x8 | 0x40) & VehicleLightState.Reverse


def test_doors_and_wheels():
    assert [(d.name, int(d)) for d in VehicleDoor] == [
        ("FL", 0), ("FR", 1), ("RL", 2), ("RR", 3), ("Hood", 4), ("Trunk", 5), ("All", 6)
    ]  # fmt: skip
    assert VehicleWheelLocation.BR_Wheel == 3
    assert VehicleWheelLocation.Front_Wheel == 0 and VehicleWheelLocation.Back_Wheel == 1
    assert str(VehicleWheelLocation.Back_Wheel) == "FR_Wheel"  # an alias, as in CARLA


def test_traffic_light_and_actor_types():
    assert [int(s) for s in (TrafficLightState.Red, TrafficLightState.Yellow)] == [0, 1]
    assert int(TrafficLightState.Green) == 2 and int(TrafficLightState.Unknown) == 4
    assert str(TrafficLightState.Off) == "Off"
    assert [m.name for m in ActorType] == [
        "Other", "Vehicle", "Walker", "TrafficLight", "TrafficSign", "Sensor", "INVALID"
    ]  # fmt: skip
    assert [int(m) for m in ActorType] == list(range(7))
    assert int(ActorState.Dormant) == 2
    assert int(AttachmentType.SpringArmGhost) == 2
    assert int(VehicleFailureState.TirePuncture) == 3


def test_semantic_tags():
    assert int(CityObjectLabel.Roads) == 1
    assert int(CityObjectLabel.Car) == 14
    assert int(CityObjectLabel.Pedestrians) == 12
    assert int(CityObjectLabel.TrafficLight) == 7
    assert int(CityObjectLabel.GuardRail) == 28
    assert int(CityObjectLabel.Any) == 255
    assert str(CityObjectLabel.Bicycle) == "Bicycle"

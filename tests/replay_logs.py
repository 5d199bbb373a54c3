"""Small hand-made recorder logs for the replayer tests (built with recorder.LogWriter)."""

from __future__ import annotations

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import (
    ActorAttribute,
    AnimWalkerRecord,
    EventAddRecord,
    EventDelRecord,
    PositionRecord,
)
from recorder.logfile.writer import LogWriter

CAR = 7  # log ids
WALKER = 9


def two_actor_log(
    car_x: list[float],
    yaw: list[float] | None = None,
    walker_speed: list[float] | None = None,
    delete_car_in_last_frame: bool = False,
    dt: float = 0.1,
) -> bytes:
    """A log of len(car_x) frames `dt` apart: a car (log id 7) at x = car_x[k] cm and yaw
    yaw[k], and a walker (log id 9) standing at (0, 500) with the AnimWalker speed
    walker_speed[k] (cm/s). The car is removed in the last frame when asked."""
    n = len(car_x)
    yaw = yaw or [0.0] * n
    walker_speed = walker_speed or [0.0] * n
    w = LogWriter(None, map_name="test", date=0, version=2)
    for k in range(n):
        packets: dict = {
            PacketId.Position: [
                PositionRecord(CAR, (car_x[k], 0.0, 0.0), (0.0, 0.0, yaw[k])),
                PositionRecord(WALKER, (0.0, 500.0, 0.0), (0.0, 0.0, 90.0)),
            ],
            PacketId.AnimWalker: [AnimWalkerRecord(WALKER, walker_speed[k])],
        }
        if k == 0:
            packets[PacketId.EventAdd] = [
                EventAddRecord(
                    CAR,
                    1,
                    (car_x[0], 0.0, 0.0),
                    (0.0, 0.0, yaw[0]),
                    1,
                    "vehicle.tesla.model3",
                    [ActorAttribute(4, "role_name", "hero")],
                ),
                EventAddRecord(
                    WALKER, 2, (0.0, 500.0, 0.0), (0.0, 0.0, 90.0), 2, "walker.pedestrian.0001"
                ),
            ]
        if delete_car_in_last_frame and k == n - 1:
            packets[PacketId.EventDel] = [EventDelRecord(CAR)]
            packets[PacketId.Position] = packets[PacketId.Position][1:]
        w.write_frame(dt, packets)
    return w.getvalue()

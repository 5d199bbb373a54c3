"""The one main loop: order of an iteration, one resumption per tick, the stop rule, failures."""

from __future__ import annotations

import pytest
from world_helpers import at, blueprint, flat_world

from runner.loop import MainLoop
from scenarios.errors import ScenarioError
from scenarios.tasks import stopping, tick, wait, wait_until
from world import VehicleControl


def test_each_task_is_resumed_once_per_tick():
    world = flat_world()
    loop = MainLoop(world)
    counts = {"a": 0, "b": 0}
    frames = {"a": [], "b": []}

    def counter(name):
        while True:
            counts[name] += 1
            frames[name].append(world.get_snapshot().timestamp.frame)
            tick()

    def deep(name, depth):  # tick() from several calls down works the same
        if depth:
            return deep(name, depth - 1)
        counter(name)

    loop.start(counter, "a")
    loop.start(deep, "b", 5)
    for _ in range(37):
        assert loop.step()
    assert loop.ticks == 37
    assert counts == {"a": 37, "b": 37}
    # each resumption sees the world after exactly one more tick
    assert frames["a"] == list(range(37)) == frames["b"]


def test_start_order_and_late_start():
    world = flat_world()
    loop = MainLoop(world)
    seen = []

    def child():
        while True:
            seen.append(("child", world.get_snapshot().timestamp.frame))
            tick()

    def parent():
        seen.append(("parent", world.get_snapshot().timestamp.frame))
        loop.start(child)
        tick()
        seen.append(("parent", world.get_snapshot().timestamp.frame))

    loop.start(parent)
    loop.step()
    loop.step()
    # the child started during iteration 1 first runs in iteration 2, after the parent
    assert seen == [("parent", 0), ("parent", 1), ("child", 1)]


def test_wait_counts_simulated_time():
    world = flat_world(dt=0.05)
    loop = MainLoop(world)
    done = []

    def waiter():
        wait(1.0)
        done.append(world.get_snapshot().timestamp.frame)

    loop.start(waiter)
    for _ in range(25):
        loop.step()
    assert done == [20]  # 20 ticks of 0.05 s; the sum 0.9999999999999999 still counts as 1 s


def test_wait_until_and_timeout():
    world = flat_world(dt=0.1)
    loop = MainLoop(world)
    out = []

    def task():
        out.append(wait_until(lambda: world.get_snapshot().timestamp.frame >= 3))
        out.append(world.get_snapshot().timestamp.frame)
        out.append(wait_until(lambda: False, timeout=0.5))
        out.append(world.get_snapshot().timestamp.frame)

    loop.start(task)
    for _ in range(12):
        loop.step()
    assert out == [True, 3, False, 8]


def test_tick_outside_a_task_is_an_error():
    with pytest.raises(ScenarioError, match="outside a task"):
        tick()


def test_stop_lets_a_setup_finish_one_tick_per_switch():
    world = flat_world()
    loop = MainLoop(world, after_tick=lambda info: "done" if info.frame >= 3 else None)
    log = []

    def builder():
        while not stopping():
            log.append(("idle", world.get_snapshot().timestamp.frame))
            if world.get_snapshot().timestamp.frame == 2:
                for _ in range(4):  # a setup needing four ticks, caught by the stop at frame 3
                    tick()
                    log.append(("setup", world.get_snapshot().timestamp.frame))
            tick()

    loop.start(builder)
    result = loop.run()
    assert result.reason == "done"
    assert result.killed == []
    # resumed at frame 3 (the stop), then one tick per switch: frames 4, 5, 6
    assert log[-4:] == [("setup", 3), ("setup", 4), ("setup", 5), ("setup", 6)]
    # and one more for the tick() that ends the loop body before stopping() is read
    assert result.drain_ticks == 4
    assert world.get_snapshot().timestamp.frame == 7


def test_a_task_past_the_bound_is_killed():
    world = flat_world()
    loop = MainLoop(world, after_tick=lambda info: "done", drain_ticks=5)

    def forever():
        while True:
            tick()

    loop.start(forever, name="forever")
    result = loop.run()
    assert result.killed == ["forever"]
    assert result.drain_ticks == 5
    assert loop.tasks[0].greenlet.dead


def test_a_task_exception_ends_the_loop_with_its_traceback():
    world = flat_world()
    loop = MainLoop(world)

    def broken():
        tick()
        tick()
        raise ValueError("no such trigger")

    loop.start(broken, name="broken")
    result = loop.run(max_ticks=10)
    assert result.ticks == 2
    assert result.failure.kind == "task"
    assert "no such trigger" in result.failure.message
    assert "raise ValueError" in result.failure.traceback


def test_agent_control_reaches_the_ego_before_the_tick():
    world = flat_world()
    car = world.spawn_actor(blueprint("vehicle.lincoln.mkz_2017"), at(z=0.5))
    seen = []

    def agent(info):
        seen.append(info.frame)
        if info.frame == 4:
            raise RuntimeError("agent fell over")
        return VehicleControl(throttle=0.75)

    loop = MainLoop(world, ego=car, agent_step=agent)
    result = loop.run(max_ticks=10)
    assert seen == [0, 1, 2, 3, 4]
    assert result.ticks == 4
    assert result.failure.kind == "agent"
    assert car.get_control().throttle == 0.75

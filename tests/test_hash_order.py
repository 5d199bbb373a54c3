"""libc++/libstdc++ unordered-container orders: worked by hand and against CARLA's golden logs."""

from __future__ import annotations

import json
import struct

import pytest

from recorder.logfile.hash_order import (
    LIBCXX,
    LIBSTDCXX,
    CollisionSet,
    UnorderedTable,
    collision_hash,
    collision_order,
)


def _table(library, keys):
    table = UnorderedTable(library)
    for key in keys:
        table.insert(key, key)
    return table


def test_collision_hash_is_id1_shifted_plus_id2_in_64_bits():
    assert collision_hash(1, 2) == (1 << 32) + 2
    assert collision_hash(0xFFFFFFFF, 0xFFFFFFFF) == 0xFFFFFFFFFFFFFFFF


def test_libcxx_bucket_growth():
    # Empty: 0 buckets; first insert rehashes to 2; the 3rd to next_prime(2*2+1) = 5;
    # the 6th to next_prime(2*5+1) = 11; the 12th to 23.
    counts = []
    table = UnorderedTable(LIBCXX)
    for key in range(12):
        table.insert(key, key)
        counts.append(table.bucket_count)
    assert counts == [2, 2, 5, 5, 5, 11, 11, 11, 11, 11, 11, 23]


def test_libstdcxx_bucket_growth():
    # One bucket when empty; the first insert asks for 11 -> _M_next_bkt(12) = 13;
    # the 14th asks for max(15, 26) -> the prime list's 29.
    counts = []
    table = UnorderedTable(LIBSTDCXX)
    for key in range(14):
        table.insert(key, key)
        counts.append(table.bucket_count)
    assert counts[0] == 13 and counts[12] == 13 and counts[13] == 29


def test_libcxx_order_worked_by_hand():
    # 0 -> [0] (2 buckets); 1 -> bucket 1 empty, list front: [1, 0]; 5: rehash to 5
    # buckets keeps [1, 0], 5 % 5 = 0 goes after bucket 0's predecessor (node 1):
    # [1, 5, 0]; 2 and 3 go to the front: [3, 2, 1, 5, 0]; 11: rehash to 11 keeps the
    # list, 11 % 11 = 0 goes after bucket 0's predecessor (5): [3, 2, 1, 5, 11, 0].
    assert list(_table(LIBCXX, [0, 1, 5, 2, 3, 11])) == [3, 2, 1, 5, 11, 0]


def test_libstdcxx_order_worked_by_hand():
    # 13 buckets from the first insert, every key in its own empty bucket but 11 % 13:
    # each goes to the list front: [11, 3, 2, 5, 1, 0].
    assert list(_table(LIBSTDCXX, [0, 1, 5, 2, 3, 11])) == [11, 3, 2, 5, 1, 0]


def test_erase_unlinks_and_clear_keeps_buckets():
    table = _table(LIBCXX, [0, 1, 5, 2, 3, 11])
    assert table.erase(5) and not table.erase(5)
    assert list(table) == [3, 2, 1, 11, 0]
    table.insert(22, 22)  # bucket 0 again: after its predecessor, now node 1
    assert list(table) == [3, 2, 1, 22, 11, 0]
    table.clear()
    assert list(table) == [] and table.bucket_count == 11


def test_repeated_pair_keeps_first_record():
    collisions = CollisionSet()
    assert collisions.add(1, 2, "first")
    assert not collisions.add(1, 2, "second")
    assert collisions.records() == ["first"]


@pytest.mark.parametrize("library", [LIBCXX, LIBSTDCXX])
def test_copy_is_independent_and_keeps_bucket_state(library):
    collisions = CollisionSet(library)
    for key in (0, 1, 5, 2, 3):
        collisions.add(0, key, key)
    twin = collisions.copy()
    twin.add(0, 11, 11)  # the copy grows on its own; the original keeps five records
    assert collisions.records() == list(_table(library, [0, 1, 5, 2, 3]))
    # The copy goes on exactly as one set given all six keys in turn.
    assert twin.records() == list(_table(library, [0, 1, 5, 2, 3, 11]))
    assert not twin.add(0, 5, "again") and twin.records()[-1] != "again"


def _collision_ids_per_frame(log: bytes) -> list[list[int]]:
    """The collision ids of each Collision packet (one a frame), in file order."""
    pos = 2 + 2 + struct.unpack_from("<H", log, 2)[0] + 8  # version, magic, date
    pos += 2 + struct.unpack_from("<H", log, pos)[0]  # map name
    frames = []
    while pos < len(log):
        pid, size = struct.unpack_from("<BI", log, pos)
        body = pos + 5
        if pid == 5:
            (count,) = struct.unpack_from("<H", log, body)
            frames.append(
                [struct.unpack_from("<I", log, body + 2 + 14 * i)[0] for i in range(count)]
            )
        pos = body + size
    return frames


def _spec_orders(spec: dict, library: str) -> list[list[int]]:
    collisions = CollisionSet(library)
    frames = []
    for frame in spec["frames"]:
        collisions.clear()
        for record in frame.get("collision", []):
            collisions.add(record["id1"], record["id2"], record["id"])
        if not frame.get("bare"):
            frames.append(collisions.records())
    return frames


@pytest.mark.parametrize("case", ["all_packets", "town_drive", "edge_cases", "edge_single_frame"])
def test_collision_order_matches_carla_logs(shared, case):
    folder = shared / "carla-golden" / case
    spec = json.loads((folder / "SPEC.json").read_text())
    # The libstdcxx/ log exists only where libstdc++'s order differs.
    variant = folder / "libstdcxx" / "recording.log"
    logs = {LIBCXX: folder / "recording.log"}
    logs[LIBSTDCXX] = variant if variant.exists() else logs[LIBCXX]
    for library, log in logs.items():
        logged = _collision_ids_per_frame(log.read_bytes())
        assert logged == _spec_orders(spec, library), library


def test_libcxx_and_libstdcxx_differ_on_all_packets_frame_1(shared):
    spec = json.loads((shared / "carla-golden" / "all_packets" / "SPEC.json").read_text())
    pairs = [(c["id1"], c["id2"]) for c in spec["frames"][0]["collision"]]
    ids = [c["id"] for c in spec["frames"][0]["collision"]]
    # The golden info texts list frame 1's collisions as ids 4294967295, 3, 2, 0
    # (libc++) and 3, 2, 4294967295, 0 (libstdcxx/).
    assert [ids[i] for i in collision_order(pairs, LIBCXX)] == [4294967295, 3, 2, 0]
    assert [ids[i] for i in collision_order(pairs, LIBSTDCXX)] == [3, 2, 4294967295, 0]

"""Every query text beside CARLA's golden and real logs equals lockstep's, character for character.

File names say the query and its parameters (../shared/carla-golden/README.md): info_0 /
info_1 = show_all false/true, collisions_C1_C2, blocked_T_D (D in centimetres); the
`libstdcxx/` variants are checked with order="libstdc++".
"""

from __future__ import annotations

import pytest

from recorder import query_blocked, query_collisions, query_info
from tests.conftest import find_shared


def _cases() -> list:
    shared = find_shared()
    if shared is None:
        return [pytest.param(None, None, None, id="no-shared-data")]
    cases = []
    for top in ("carla-golden", "carla-logs"):
        for folder in sorted(p for p in (shared / top).iterdir() if p.is_dir()):
            for library, texts in (("libc++", folder), ("libstdc++", folder / "libstdcxx")):
                for text in sorted(texts.glob("*.txt")):
                    cases.append(
                        pytest.param(
                            folder.relative_to(shared).as_posix(),
                            text.name,
                            library,
                            id=f"{folder.name}/{library}/{text.stem}",
                        )
                    )
    return cases


def run_query(log, name: str, library: str) -> str:
    kind, *args = name.removesuffix(".txt").split("_")
    if kind == "info":
        return query_info(log, show_all=args[0] == "1")
    if kind == "collisions":
        return query_collisions(log, args[0], args[1])
    return query_blocked(log, float(args[0]), float(args[1]), order=library)


@pytest.mark.parametrize(("folder", "name", "library"), _cases())
def test_query_text_equals_carla(shared, folder, name, library):
    base = shared / folder
    expected_path = base / name if library == "libc++" else base / "libstdcxx" / name
    expected = expected_path.read_bytes().decode("utf-8", "surrogateescape")
    # A libstdcxx/recording.log holds the collision records in libstdc++'s order.
    variant = base / "libstdcxx" / "recording.log"
    log = variant if library == "libstdc++" and variant.exists() else base / "recording.log"
    got = run_query(log, name, library)
    assert got == expected


def test_0910_log_info_all_ends_like_carlas_info(shared):
    # CARLA's own show-all text of this 0.9.10 log is garbage (it reads the 36-byte wheels
    # as 48-byte ones); read right, it ends with the Frames/Duration lines of CARLA's info.
    folder = shared / "carla-logs" / "DistanceToLaneCenter_2020"
    expected_tail = (folder / "info_0.txt").read_text().splitlines()[-2:]
    text = query_info(folder / "recording.log", show_all=True)
    assert text.splitlines()[-2:] == expected_tail
    assert expected_tail[0].startswith("Frames: ") and expected_tail[1].startswith("Duration: ")
    assert "   wheels:\n    wheel 0: tire_friction " in text

"""The compiled kernels' cache key: a digest over the modules that define kernels."""

from __future__ import annotations

from pathlib import Path

from world.kernels.compiled_cache import (
    KERNEL_MODULES,
    kernel_source_files,
    kernel_sources_digest,
)


def _package(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "kernels.py").write_text(
        "from world.kernels.compiled import njit\n\n\n@njit\ndef f():\n    return 1\n"
    )
    (root / "sub" / "more.py").write_text("import numba\n")
    (root / "plain.py").write_text("X = 1\n")
    return root


def test_an_edit_of_any_kernel_module_changes_the_digest(tmp_path: Path) -> None:
    package = _package(tmp_path / "pkg")
    before = kernel_sources_digest([package])
    (package / "sub" / "more.py").write_text("import numba\n# edited\n")
    assert kernel_sources_digest([package]) != before


def test_an_edit_of_a_module_with_lockstep_kernels_changes_the_digest(tmp_path: Path) -> None:
    package = _package(tmp_path / "pkg")
    before = kernel_sources_digest([package])
    (package / "kernels.py").write_text(
        "from world.kernels.compiled import njit\n\n\n@njit\ndef f():\n    return 2\n"
    )
    assert kernel_sources_digest([package]) != before


def test_modules_without_kernels_do_not_count(tmp_path: Path) -> None:
    package = _package(tmp_path / "pkg")
    before = kernel_sources_digest([package])
    (package / "plain.py").write_text("X = 2\n")
    (package / "new_plain.py").write_text("Y = 3\n")
    assert kernel_sources_digest([package]) == before


def test_the_digest_is_the_same_for_the_same_sources(tmp_path: Path) -> None:
    first = kernel_sources_digest([_package(tmp_path / "a" / "pkg")])
    second = kernel_sources_digest([_package(tmp_path / "b" / "pkg")])
    assert first == second and len(first) == 16


def test_the_digest_covers_the_kernels_of_every_wing_and_the_recorder() -> None:
    root = Path(__file__).resolve().parent.parent
    names = {p.relative_to(root).as_posix() for p in kernel_source_files()}
    for kernel in (
        "world/elementary.py",
        "world/physics/tick.py",
        "world/physics/vehicle_dynamics.py",
        "world/kernels/ahead_of_time.py",
        "world/map/lane_index.py",
        "world/map/ground_query.py",
        "world/traffic/autopilot/kernels.py",
        "world/traffic/autopilot/control.py",
        "world/traffic/walkers/kernels.py",
        "world/actors/attachments.py",
        "recorder/live/tick_packing.py",
        "recorder/live/packing_intrinsics.py",
    ):
        assert kernel in names
    assert "world/kernels/compiled.py" not in names  # the decorator compiles nothing itself


def test_the_listed_kernel_modules_are_the_ones_a_scan_finds() -> None:
    root = Path(__file__).resolve().parent.parent
    scanned = [p.relative_to(root).as_posix() for p in kernel_source_files()]
    assert list(KERNEL_MODULES) == scanned
    assert kernel_sources_digest() == kernel_sources_digest([root / "world", root / "recorder"])

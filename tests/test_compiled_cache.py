"""The compiled kernels' cache key: a digest over the modules that compile code."""

from __future__ import annotations

from pathlib import Path

from world.physics.compiled_cache import kernel_source_files, kernel_sources_digest


def _package(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "kernels.py").write_text("from numba import njit\n\n\ndef f():\n    return 1\n")
    (root / "sub" / "more.py").write_text("import numba\n")
    (root / "plain.py").write_text("X = 1\n")
    return root


def test_an_edit_of_any_kernel_module_changes_the_digest(tmp_path: Path) -> None:
    package = _package(tmp_path / "pkg")
    before = kernel_sources_digest(package)
    (package / "sub" / "more.py").write_text("import numba\n# edited\n")
    assert kernel_sources_digest(package) != before


def test_modules_without_numba_do_not_count(tmp_path: Path) -> None:
    package = _package(tmp_path / "pkg")
    before = kernel_sources_digest(package)
    (package / "plain.py").write_text("X = 2\n")
    (package / "new_plain.py").write_text("Y = 3\n")
    assert kernel_sources_digest(package) == before


def test_the_digest_is_the_same_for_the_same_sources(tmp_path: Path) -> None:
    first = kernel_sources_digest(_package(tmp_path / "a"))
    second = kernel_sources_digest(_package(tmp_path / "b"))
    assert first == second and len(first) == 16


def test_the_world_digest_covers_the_kernels_of_every_wing() -> None:
    world = Path(__file__).resolve().parent.parent / "world"
    names = {p.relative_to(world).as_posix() for p in kernel_source_files()}
    for kernel in (
        "physics/tick.py",
        "physics/vehicle_dynamics.py",
        "map/lane_index.py",
        "map/ground_query.py",
        "traffic/autopilot/kernels.py",
        "traffic/autopilot/control.py",
        "traffic/walkers/kernels.py",
        "actors/attachments.py",
    ):
        assert kernel in names

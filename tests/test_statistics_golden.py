"""The leaderboard's own results.json files, reproduced byte for byte from each golden
spec.json (../shared/leaderboard-golden, written by the leaderboard master's scoring code)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.statistics import merge_result_files, results_from_spec
from tests.conftest import find_shared

GOLDEN = "leaderboard-golden"


def _case_names() -> list[str]:
    shared = find_shared()
    if shared is None or not (shared / GOLDEN).is_dir():
        return ["<no golden cases>"]
    return sorted(p.name for p in (shared / GOLDEN).iterdir() if (p / "spec.json").is_file())


def test_all_34_cases_are_present(shared: Path) -> None:
    assert len(_case_names()) == 34


@pytest.mark.parametrize("case", _case_names())
def test_golden_case_bytes(shared: Path, case: str) -> None:
    folder = shared / GOLDEN / case
    if not (folder / "spec.json").is_file():
        pytest.skip(f"no golden spec at {folder}")
    spec = json.loads((folder / "spec.json").read_text())
    produced = results_from_spec(spec)
    golden = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "spec.json"}
    assert sorted(produced) == sorted(golden)
    for name, raw in golden.items():
        assert produced[name] == raw, f"{case}/{name} differs"


MERGE_CASES = [
    "merge_incomplete_no_global",
    "merge_no_sensors_invalid",
    "merge_sorted",
    "merge_with_crashed_partial",
]


@pytest.mark.parametrize("case", MERGE_CASES)
def test_merging_the_golden_partial_files_on_disk(shared: Path, tmp_path: Path, case: str) -> None:
    folder = shared / GOLDEN / case
    spec = json.loads((folder / "spec.json").read_text())
    parts = [folder / f"partial-{n}.results.json" for n in spec["merge_order"]]
    merged = tmp_path / "results.json"
    merge_result_files(parts, merged)
    assert merged.read_bytes() == (folder / "results.json").read_bytes()

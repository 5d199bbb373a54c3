"""Where the compiled kernels are kept: the first writable base, a folder per digest.

The rules (world.kernels.compiled_cache): a user's NUMBA_CACHE_DIR, else the package's
own __pycache__, else $XDG_CACHE_HOME/lockstep or $HOME/.cache/lockstep, else the temp
dir's lockstep-<uid>; always inside `numba-<digest>`; older digests removed; numba's
config set in this process, never the environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from world.kernels import compiled_cache
from world.kernels.compiled_cache import (
    COMPILE_NOTICE,
    KernelCacheError,
    cache_bases,
    choose_cache_dir,
    prune,
)

ROOT = Path(__file__).resolve().parent.parent
DIGEST = "0123456789abcdef"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _temp_base() -> Path:
    return Path(tempfile.gettempdir()) / f"lockstep-{os.getuid()}"


def test_the_bases_in_order(tmp_path: Path) -> None:
    package = tmp_path / "world"
    environ = {"HOME": "/home/ada", "XDG_CACHE_HOME": "/var/cache/ada"}
    bases = cache_bases(environ, "/data/numba", package)
    assert [b for b, _ in bases] == [
        Path("/data/numba"),
        package / "__pycache__",
        Path("/var/cache/ada/lockstep"),
        _temp_base(),
    ]
    # only the shared temp dir's folder must be the user's own
    assert [private for _, private in bases] == [False, False, False, True]


def test_the_home_base_without_xdg_and_without_any_home(tmp_path: Path) -> None:
    package = tmp_path / "world"
    with_home = cache_bases({"HOME": "/home/ada"}, "", package)
    assert [b for b, _ in with_home] == [
        package / "__pycache__",
        Path("/home/ada/.cache/lockstep"),
        _temp_base(),
    ]
    # a relative XDG_CACHE_HOME is ignored, as the XDG rules say
    assert cache_bases({"XDG_CACHE_HOME": "cache"}, "", package) == [
        (package / "__pycache__", False),
        (_temp_base(), True),
    ]


def test_the_folder_is_named_by_the_digest_in_the_first_writable_base(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    assert choose_cache_dir([(first, False), (second, False)], DIGEST) == (
        first / f"numba-{DIGEST}"
    )
    assert (first / f"numba-{DIGEST}").is_dir()
    assert not second.exists()


@pytest.mark.skipif(AS_ROOT, reason="root writes into read-only folders")
def test_a_read_only_base_is_passed_over(tmp_path: Path) -> None:
    locked, open_ = tmp_path / "locked", tmp_path / "open"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert choose_cache_dir([(locked, False), (open_, False)], DIGEST) == (
            open_ / f"numba-{DIGEST}"
        )
    finally:
        locked.chmod(0o755)


def test_a_file_where_a_base_should_be_is_passed_over(tmp_path: Path) -> None:
    """(A file stands in for an unwritable folder even for root.)"""
    blocked, open_ = tmp_path / "blocked", tmp_path / "open"
    blocked.write_text("not a folder")
    assert choose_cache_dir([(blocked, False), (open_, False)], DIGEST) == (
        open_ / f"numba-{DIGEST}"
    )


def test_no_writable_base_names_every_one_tried(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("")
    b.write_text("")
    with pytest.raises(KernelCacheError, match=f"tried {a}, {b}"):
        choose_cache_dir([(a, False), (b, False)], DIGEST)


def test_a_shared_base_open_to_others_is_not_used(tmp_path: Path) -> None:
    shared, own = tmp_path / "shared", tmp_path / "own"
    shared.mkdir()
    shared.chmod(0o777)
    assert choose_cache_dir([(shared, True), (own, True)], DIGEST) == own / f"numba-{DIGEST}"
    assert own.stat().st_mode & 0o777 == 0o700
    assert not (shared / f"numba-{DIGEST}").exists()


def test_older_digests_are_pruned_and_nothing_else(tmp_path: Path) -> None:
    base = tmp_path / "base"
    old = base / "numba-ffffffffffffffff"
    (old / "physics_abc").mkdir(parents=True)
    (old / "physics_abc" / "tick.nbi").write_bytes(b"x")
    keep = [base / "numba-notadigest", base / "tick.cpython-311.pyc", base / "other"]
    keep[0].mkdir()
    keep[1].write_bytes(b"")
    keep[2].mkdir()
    assert choose_cache_dir([(base, False)], DIGEST) == base / f"numba-{DIGEST}"
    assert not old.exists()
    assert all(p.exists() for p in keep)
    assert prune(base, keep=f"numba-{DIGEST}") == []


def _in_fresh_process(code: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_users_numba_cache_dir_is_the_base_and_the_environment_is_left_alone(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LOCKSTEP_KERNELS"] = "jit"  # numba's config is set where numba compiles
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    code = (
        "import os\n"
        "from numba.core import config\n"
        "import world.physics.tick\n"
        "from world.kernels.compiled_cache import cache_dir, kernel_sources_digest\n"
        "print(config.CACHE_DIR, cache_dir(), os.environ['NUMBA_CACHE_DIR'], "
        "kernel_sources_digest())\n"
    )
    numba_dir, chosen, environ, digest = _in_fresh_process(code, env).split()
    expected = str(tmp_path / "mine" / f"numba-{digest}")
    assert numba_dir == chosen == expected
    assert environ == str(tmp_path / "mine")  # unchanged: child processes see the user's own


def test_the_environment_gets_no_numba_cache_dir() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["LOCKSTEP_KERNELS"] = "jit"  # numba's config is set where numba compiles
    code = (
        "import os, subprocess, sys\n"
        "import world.physics.tick\n"
        "from numba.core import config\n"
        "child = subprocess.run([sys.executable, '-c', "
        '\'import os; print(os.environ.get("NUMBA_CACHE_DIR", "-"))\'], '
        "capture_output=True, text=True).stdout.strip()\n"
        "print(os.environ.get('NUMBA_CACHE_DIR', '-'), child, bool(config.CACHE_DIR))\n"
    )
    assert _in_fresh_process(code, env) == "- - True"


def test_the_package_folder_is_the_base_of_a_writable_checkout() -> None:
    folder = compiled_cache.cache_dir()
    if not os.access(ROOT / "world", os.W_OK) or os.environ.get("NUMBA_CACHE_DIR"):
        pytest.skip("a read-only checkout or a user's NUMBA_CACHE_DIR: another base is used")
    assert folder == ROOT / "world" / "__pycache__" / (
        f"numba-{compiled_cache.kernel_sources_digest()}"
    )


def test_the_compile_notice_is_said_once_and_only_for_a_compile(tmp_path: Path) -> None:
    """A kernel not yet in the cache folder makes the process say so once; a process that
    finds it there says nothing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    # two compiles (two signatures of one small kernel), one notice
    code = (
        "from world.map.lane_index import _cell\n"
        "assert _cell(2.5, 1.0, 0, 8) == _cell(2, 1, 0, 8) == 2\n"
    )
    first = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines().count(COMPILE_NOTICE) == 1
    again = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    assert COMPILE_NOTICE not in again.stderr

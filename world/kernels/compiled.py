"""lockstep's kernel decorator: a kernel runs from the ahead-of-time module, else numba's JIT.

Every kernel of world/ and recorder/ is decorated with this module's `njit` (numba's
options). `lockstep warmup` builds one extension module of every kernel that Python calls
(world.kernels.ahead_of_time, numba's pycc) into the kernels' folder
(world.kernels.compiled_cache). A process that finds it there binds each of those kernels
to the module's function and never imports numba: numba's import and the loading of its
cached kernels cost about a second of every process's start. Without the module (not built
yet, or LOCKSTEP_KERNELS=jit), `njit` is numba's own and kernels compile (or load from
numba's cache) on their first call, as always.

A kernel the module does not hold (one only other kernels call, or one called with other
argument types than the warm-up's) still runs when Python calls it: numba compiles it on
its first call from a copy of its function whose globals name numba's dispatchers of the
other kernels (the `_Deferred` stand-in), so the code and the bits are the same as numba's.

The module's functions take exactly the argument types they were compiled for and do not
check them: an array of another dtype or rank is read as if it had the compiled one.
lockstep's callers build their arrays with fixed dtypes; LOCKSTEP_KERNEL_CHECK=1 (the test
suite sets it) checks every call against the compiled types and raises KernelTypeError on
a mismatch, naming the kernel, the argument and both types.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pickle
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from world.errors import WorldError
from world.kernels import compiled_cache

__all__ = [
    "CHECK_VARIABLE",
    "GENERIC_CPU",
    "MANIFEST",
    "MODE_VARIABLE",
    "MODULE_NAME",
    "KernelTypeError",
    "ahead_of_time_path",
    "cpu_levels",
    "from_numba",
    "kernels",
    "manifest",
    "njit",
    "numba_dispatcher",
    "running_ahead_of_time",
]

MODE_VARIABLE = "LOCKSTEP_KERNELS"  # "jit": numba only; otherwise the module when it is built
CHECK_VARIABLE = "LOCKSTEP_KERNEL_CHECK"  # "1": every call to the module checks its types
MODULE_NAME = "lockstep_kernels"  # the extension module's name (its init function's)
MANIFEST = f"{MODULE_NAME}.json"  # beside it: the file, the kernels, what it was built by
SIGNATURES = f"{MODULE_NAME}.signatures.pickle"  # numba's types, for the checks only
FORMAT = 2  # 2: the manifest names the CPU model the module is built for
GENERIC_CPU = "generic"  # the manifest's cpu of a module built for any CPU of the architecture


class KernelTypeError(WorldError, TypeError):
    """A compiled kernel was called with arguments of other types than it was built for."""


@dataclass
class Kernel:
    """One kernel: its Python function, numba's options, and what its module name holds."""

    name: str  # module.qualname
    py_func: types.FunctionType
    options: dict[str, Any]
    bound: Any


_KERNELS: dict[str, Kernel] = {}
_BY_BINDING: dict[int, Kernel] = {}  # id(bound) -> kernel, for the fallback's globals


# -- the ahead-of-time module -------------------------------------------------------------------


class _Module:
    """The built extension module and its manifest."""

    def __init__(self, module: types.ModuleType, manifest: dict[str, Any], folder: Path):
        self.module = module
        self.symbols: dict[str, str] = manifest["kernels"]
        self.folder = folder
        self._signatures: dict[str, Any] | None = None

    def function(self, name: str) -> Callable | None:
        symbol = self.symbols.get(name)
        return None if symbol is None else getattr(self.module, symbol)

    def signature(self, name: str) -> Any:
        """numba's argument types the kernel was built for (imports numba)."""
        if self._signatures is None:
            with open(self.folder / SIGNATURES, "rb") as file:
                self._signatures = pickle.load(file)
        return self._signatures[name]


# x86-64's microarchitecture levels (LLVM's CPU names), highest first, each with the
# /proc/cpuinfo flags it adds to the level below it
X86_LEVELS = (
    ("x86-64-v4", ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")),
    ("x86-64-v3", ("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave")),
    ("x86-64-v2", ("cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3")),
)


def cpu_levels() -> tuple[str, ...]:
    """The CPU models this machine runs code for, highest first: the x86-64 levels whose
    flags (and the lower levels' flags) /proc/cpuinfo lists, read without importing numba
    or LLVM, then GENERIC_CPU (all that is known off x86-64 Linux)."""
    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as file:
            for line in file:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    flags = set(value.split())
                    break  # the first core's: all cores are alike
    except OSError:
        pass
    levels = [GENERIC_CPU]
    for name, needs in reversed(X86_LEVELS):
        if not flags.issuperset(needs):
            break
        levels.insert(0, name)
    return tuple(levels)


def manifest(folder: Path | None = None) -> dict[str, Any] | None:
    """The built module's manifest in the kernels' folder, when it fits this Python, these
    sources and this CPU (None otherwise): its file, kernels' symbols, the workload's
    digest, the CPU model it is built for (one of cpu_levels())."""
    folder = compiled_cache.cache_dir() if folder is None else folder
    try:
        found = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    fits = (
        isinstance(found, dict)
        and found.get("format") == FORMAT
        and found.get("python") == sys.implementation.cache_tag
        and found.get("digest") == folder.name.removeprefix("numba-")
        and found.get("cpu") in cpu_levels()
        and (folder / str(found.get("file", ""))).is_file()
    )
    return found if fits else None


def ahead_of_time_path(folder: Path | None = None) -> Path | None:
    """The built module's file in the kernels' folder when it fits (manifest()), else None."""
    folder = compiled_cache.cache_dir() if folder is None else folder
    found = manifest(folder)
    return None if found is None else folder / found["file"]


def _load() -> _Module | None:
    if os.environ.get(MODE_VARIABLE, "") == "jit":
        return None
    folder = compiled_cache.cache_dir()
    found = manifest(folder)
    if found is None:
        return None
    spec = importlib.util.spec_from_file_location(MODULE_NAME, folder / found["file"])
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:  # a module this machine cannot load: numba compiles instead
        return None
    return _Module(module, found, folder)


_MODULE = _load()
_CHECK = os.environ.get(CHECK_VARIABLE, "") == "1"


def running_ahead_of_time() -> bool:
    """Whether this process runs the kernels from the ahead-of-time module."""
    return _MODULE is not None


# -- the decorator -------------------------------------------------------------------------------


def njit(func: types.FunctionType | None = None, /, **options: Any) -> Any:
    """numba's `njit`: `@njit`, `@njit(**options)` or `njit(**options)(func)`."""
    if func is None:
        return lambda f: _define(f, options)
    return _define(func, options)


def _define(func: types.FunctionType, options: dict[str, Any]) -> Any:
    name = f"{func.__module__}.{func.__qualname__}"
    if _MODULE is None:
        numba = _numba()
        bound = numba.njit(**options)(func)
    else:
        function = _MODULE.function(name)
        if function is None:
            bound = _Deferred(name)
        elif _CHECK:
            bound = _checked(name, function)
        else:
            bound = function
    kernel = Kernel(name, func, options, bound)
    _KERNELS[name] = kernel
    _BY_BINDING[id(bound)] = kernel
    return bound


def kernels() -> dict[str, Kernel]:
    """Every kernel defined so far, by qualified name, in definition order."""
    return dict(_KERNELS)


def _numba() -> types.ModuleType:
    compiled_cache.configure_numba()
    import numba

    return numba


# -- names of numba's own that kernels use (intrinsics, carray) -----------------------------


@dataclass(frozen=True)
class _Later:
    """A name from a module that imports numba, imported only when numba compiles."""

    module: str
    name: str

    def resolve(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)


def from_numba(module: str, *names: str) -> tuple[Any, ...]:
    """The `names` of `module` (which imports numba) for kernels to call: the objects when
    numba compiles in this process, stand-ins resolved when numba compiles a kernel later,
    so a process running the ahead-of-time module does not import numba."""
    if _MODULE is None:
        found = importlib.import_module(module)
        return tuple(getattr(found, n) for n in names)
    return tuple(_Later(module, n) for n in names)


# -- numba's compile of a kernel the module does not hold -------------------------------------


class _Deferred:
    """Stands for a kernel the ahead-of-time module lacks; numba compiles it when called."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._dispatcher: Any = None

    def __call__(self, *args: Any) -> Any:
        if self._dispatcher is None:
            self._dispatcher = numba_dispatcher(self.name)
        return self._dispatcher(*args)

    def __repr__(self) -> str:
        return f"<kernel {self.name}, compiled by numba when called>"


_DISPATCHERS: dict[str, Any] = {}
_SHADOWS: dict[str, types.ModuleType] = {}


def numba_dispatcher(name: str) -> Any:
    """numba's dispatcher of the kernel `name`: the kernel itself in a process without the
    ahead-of-time module; otherwise made from a copy of its function whose globals hold
    numba's dispatchers of the other kernels (and of the modules holding them)."""
    kernel = _KERNELS[name]
    if _MODULE is None:
        return kernel.bound
    if name not in _DISPATCHERS:
        numba = _numba()
        f = kernel.py_func
        copy = types.FunctionType(
            f.__code__, _shadow(f.__module__).__dict__, f.__name__, f.__defaults__, f.__closure__
        )
        copy.__qualname__, copy.__module__, copy.__doc__ = f.__qualname__, f.__module__, f.__doc__
        copy.__kwdefaults__ = f.__kwdefaults__
        _DISPATCHERS[name] = numba.njit(**kernel.options)(copy)
    return _DISPATCHERS[name]


def _shadow(module_name: str) -> types.ModuleType:
    """A copy of a kernel module whose kernels are numba's dispatchers (made once, filled
    after it is registered, so modules that import each other find each other)."""
    if module_name not in _SHADOWS:
        shadow = types.ModuleType(module_name)
        _SHADOWS[module_name] = shadow
        for key, value in vars(sys.modules[module_name]).items():
            shadow.__dict__[key] = _shadowed(value)
    return _SHADOWS[module_name]


def _kernel_modules() -> set[str]:
    return {k.py_func.__module__ for k in _KERNELS.values()}


def _shadowed(value: Any) -> Any:
    kernel = _BY_BINDING.get(id(value))
    if kernel is not None and kernel.bound is value:
        return numba_dispatcher(kernel.name)
    if isinstance(value, _Later):
        return value.resolve()
    if isinstance(value, types.ModuleType) and value.__name__ in _kernel_modules():
        return _shadow(value.__name__)
    return value


# -- checked calls ------------------------------------------------------------------------------


def _checked(name: str, function: Callable) -> Callable:
    """`function` behind a check of its arguments' types against the compiled ones."""

    checked: set[bytes] = set()  # numba's fingerprints of argument types already checked

    def call(*args: Any) -> Any:
        key = _fingerprint(args)
        if key is None or key not in checked:
            _check_types(name, args)
            if key is not None:
                checked.add(key)
        return function(*args)

    call.__name__ = call.__qualname__ = name.rsplit(".", 1)[-1]
    call.__doc__ = f"{name} from the ahead-of-time module, its arguments checked"
    return call


def _fingerprint(args: tuple) -> bytes | None:
    """numba's own fingerprint of the arguments' types (dtype, rank, layout, writeable, in
    tuples too), computed in C: a call whose fingerprint passed the check once is not
    checked again. None where numba has no fingerprint for a value."""
    from numba._dispatcher import compute_fingerprint

    try:
        return compute_fingerprint(args)
    except (TypeError, ValueError, NotImplementedError):
        return None


def _check_types(name: str, args: tuple) -> None:
    numba = _numba()
    expected = _MODULE.signature(name)  # type: ignore[union-attr]
    if len(args) != len(expected):
        raise KernelTypeError(f"kernel {name}: {len(args)} arguments, built for {len(expected)}")
    for index, (arg, want) in enumerate(zip(args, expected, strict=True)):
        found = numba.typeof(arg)
        if not _fits(found, want, numba):
            raise KernelTypeError(
                f"kernel {name}: argument {index} is {found}, the module was built for {want}"
            )


def _fits(found: Any, want: Any, numba: types.ModuleType) -> bool:
    """Whether a value of numba type `found` is read right where `want` was compiled."""
    nt = numba.types
    if isinstance(want, nt.Array):
        return (
            isinstance(found, nt.Array)
            and found.dtype == want.dtype
            and found.ndim == want.ndim
            and (want.layout == "A" or found.layout == want.layout)
            and (found.mutable or not want.mutable)
        )
    if isinstance(want, nt.BaseTuple):
        return (
            isinstance(found, nt.BaseTuple)
            and type(found) is type(want)
            and getattr(found, "instance_class", None) is getattr(want, "instance_class", None)
            and len(found) == len(want)
            and all(_fits(f, w, numba) for f, w in zip(found, want, strict=True))
        )
    if found == want:
        return True
    if isinstance(want, nt.Number | nt.Boolean) and isinstance(found, nt.Number | nt.Boolean):
        from numba.core.registry import cpu_target
        from numba.core.typeconv import Conversion

        kind = cpu_target.typing_context.can_convert(found, want)
        return kind is not None and kind <= Conversion.safe
    return False

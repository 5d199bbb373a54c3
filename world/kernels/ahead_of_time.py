"""Builds the ahead-of-time module: every kernel Python called, compiled once into one
extension module (numba's pycc) in the kernels' folder.

The kernels and their argument types come from a process that ran lockstep's work in
numba's JIT (runner.warmup's workload): each kernel it called from Python holds the
signature it was called with. Each is exported through a small function that calls the
kernel itself, so the kernel keeps its own numba options (error model, inlining) and its
code is the very code numba's JIT runs. The module is compiled for the highest x86-64
microarchitecture level this machine's CPU has (world.kernels.compiled.cpu_levels: here
x86-64-v4, AVX-512, where the renderer's pixel loops run on 4 or 8 doubles and the
architecture's generic CPU has 2), with numba's flags (no fastmath). That is safe for the
bits: without fastmath LLVM neither fuses a multiply and an add nor reorders floating-point
arithmetic, whatever instructions the CPU model offers, so the module computes what
numba's JIT computes for this CPU and for a generic one (tests/test_ahead_of_time.py
compares the module with the JIT; tests/test_cross_cpu_determinism.py the JIT for this
CPU with the JIT for a generic one). The manifest names the level: a process on a CPU
without it (the kernels' folder may sit on a mount several machines share) does not load
the module and runs numba's JIT, and `lockstep warmup` there builds the module for its
own level. Off x86-64 Linux the module is built for the architecture's generic CPU.

It is written beside numba's cache: the module's file, its manifest (the kernels' symbols,
the Python it fits, the sources' digest) and numba's types of their arguments (for
LOCKSTEP_KERNEL_CHECK), each replaced whole, the manifest last, so a process that starts
meanwhile finds the old module or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from world.errors import WorldError
from world.kernels import compiled, compiled_cache

__all__ = ["AheadOfTimeError", "build_module", "called_kernels"]


class AheadOfTimeError(WorldError):
    """The ahead-of-time module could not be built (no C compiler, a kernel pycc refuses)."""


def called_kernels() -> dict[str, Any]:
    """numba's full signature (return and argument types) of each kernel this process
    called from Python, by qualified name; a kernel called with several types is left to
    numba's JIT (the module binds a name to one function)."""
    found: dict[str, Any] = {}
    for name, kernel in compiled.kernels().items():
        dispatcher = kernel.bound
        signatures = getattr(dispatcher, "signatures", [])
        if len(signatures) == 1:
            found[name] = dispatcher.overloads[signatures[0]].signature
    return found


def _symbol(name: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", name)


def _exporter(dispatcher: Any, arity: int) -> Any:
    """A function of `arity` arguments that calls `dispatcher` with them (pycc exports it)."""
    params = ", ".join(f"a{i}" for i in range(arity))
    scope: dict[str, Any] = {"kernel": dispatcher}
    exec(f"def export({params}):\n    return kernel({params})\n", scope)
    return scope["export"]


@contextmanager
def _unpickled_once() -> Iterator[None]:
    """While pycc compiles: the Python objects the exported functions' wrappers take from
    the module's pickled constants (the class of every array they hand back, a dtype, a
    named tuple's class) are unpickled on the first call only and kept in a global of the
    module for the next ones.

    numba's JIT keeps each such object once per process (numba.core.serialize's memo), but
    pycc's wrappers call pickle.loads every time: ~1-2 us for each array a kernel hands back,
    5 % of a tick of the route runner. A wrapper still gets its own reference, as from
    pickle.loads; the object is the same one each call, as numba's JIT gives."""
    from llvmlite import ir
    from numba.core import cgutils
    from numba.core.pythonapi import PythonAPI

    unpickle = PythonAPI.unserialize

    def unserialize(self: Any, structptr: Any) -> Any:
        if not isinstance(structptr, ir.GlobalVariable):
            return unpickle(self, structptr)
        builder, module = self.builder, self.builder.module
        name = f"{structptr.name}.unpickled"
        if name in module.globals:
            kept = module.globals[name]
        else:
            kept = ir.GlobalVariable(module, self.pyobj, name)
            kept.linkage = "internal"
            kept.initializer = ir.Constant(self.pyobj, None)
        found = cgutils.alloca_once_value(builder, builder.load(kept))
        with builder.if_then(cgutils.is_null(builder, builder.load(found)), likely=False):
            fresh = unpickle(self, structptr)
            with builder.if_then(cgutils.is_not_null(builder, fresh), likely=True):
                builder.store(fresh, kept)  # the module's reference
            builder.store(fresh, found)
        obj = builder.load(found)
        self.incref(obj)  # the wrapper's own (Py_IncRef: none for NULL, an error)
        return obj

    PythonAPI.unserialize = unserialize
    try:
        yield
    finally:
        PythonAPI.unserialize = unpickle


def build_module(signatures: Mapping[str, Any], workload: str, folder: Path | None = None) -> Path:
    """Compiles the kernels of `signatures` (called_kernels()) into the kernels' folder;
    returns the module's path. `workload` names the work that called them (its digest: a
    new one calls for a new module). The process must run numba's JIT (LOCKSTEP_KERNELS=jit)."""
    from numba.pycc import CC

    if compiled.running_ahead_of_time():
        raise AheadOfTimeError("the ahead-of-time module is built by a process running numba")
    folder = compiled_cache.cache_dir() if folder is None else folder
    kernels = compiled.kernels()
    symbols = {name: _symbol(name) for name in sorted(signatures)}
    cpu = compiled.cpu_levels()[0]
    with tempfile.TemporaryDirectory(prefix="lockstep-aot-") as scratch:
        cc = CC(compiled.MODULE_NAME, source_module=__name__)
        cc.output_dir = scratch
        if cpu != compiled.GENERIC_CPU:
            cc.target_cpu = cpu
        for name, symbol in symbols.items():
            signature = signatures[name]
            cc.export(symbol, signature)(_exporter(kernels[name].bound, len(signature.args)))
        try:
            with _unpickled_once():
                cc.compile()
        except Exception as exc:  # pycc's toolchain raises its own and distutils' errors
            raise AheadOfTimeError(
                f"could not build the ahead-of-time kernels ({type(exc).__name__}: {exc})"
            ) from exc
        built = Path(scratch) / (compiled.MODULE_NAME + sysconfig.get_config_var("EXT_SUFFIX"))
        target = folder / built.name
        _write(target, built.read_bytes())
    args = {name: tuple(signatures[name].args) for name in symbols}
    _write(folder / compiled.SIGNATURES, pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL))
    manifest = {
        "format": compiled.FORMAT,
        "file": target.name,
        "python": sys.implementation.cache_tag,
        "digest": folder.name.removeprefix("numba-"),
        "numba": _numba_version(),
        "workload": workload,
        "cpu": cpu,
        "kernels": symbols,
    }
    _write(folder / compiled.MANIFEST, json.dumps(manifest, indent=1).encode())
    return target


def _numba_version() -> str:
    import numba

    return str(numba.__version__)


def _write(target: Path, data: bytes) -> None:
    """`data` as the whole of `target`, replaced in one step (staged beside it)."""
    staged = target.with_name(f".{target.name}.{os.getpid()}")
    staged.write_bytes(data)
    os.replace(staged, target)

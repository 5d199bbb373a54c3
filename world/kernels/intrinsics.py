"""numba intrinsics the kernels of every wing may use: an address as a pointer (for numba's
carray, re-exported here), and a prefetch (a hint to the CPU's caches that changes no bit).

They exist only where numba compiles: a process running the ahead-of-time kernels
(world.kernels.compiled) never imports this module, nor numba; kernels take its names
through world.kernels.compiled.from_numba.
"""

from __future__ import annotations

from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["address", "carray", "prefetch"]


@intrinsic
def address(typingctx, address):
    """An int64 address as a void pointer (for numba.carray)."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))

    return types.voidptr(types.int64), codegen


@intrinsic
def prefetch(typingctx, array, flat):
    """Asks the CPU to bring the cache line holding element `flat` (C order) of a C-contiguous
    array into its caches for a read (LLVM's llvm.prefetch): for data a loop will read a few
    iterations on, at addresses the hardware cannot guess (each vehicle's lane points). Only
    a hint: it reads nothing, an address beyond the array does not fault, and no result can
    change."""
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None
    if not isinstance(flat, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte = ir.IntType(8).as_pointer()
        size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        offset = builder.mul(args[1], ir.Constant(args[1].type, size))
        at = builder.gep(builder.bitcast(data, byte), [offset])
        word = ir.IntType(32)
        kind = ir.FunctionType(ir.VoidType(), [byte, word, word, word])
        hint = cgutils.get_or_insert_function(builder.module, kind, "llvm.prefetch.p0i8")
        # a read (0), kept in every level of cache (3), of data (1)
        builder.call(hint, [at, ir.Constant(word, 0), ir.Constant(word, 3), ir.Constant(word, 1)])
        return context.get_dummy_value()

    return types.none(array, flat), codegen

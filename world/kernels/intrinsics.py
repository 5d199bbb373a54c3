"""numba intrinsics the kernels of every wing may use: an address as a pointer (for numba's
carray, re-exported here).

They exist only where numba compiles: a process running the ahead-of-time kernels
(world.kernels.compiled) never imports this module, nor numba; kernels take its names
through world.kernels.compiled.from_numba.
"""

from __future__ import annotations

from numba import carray, types
from numba.extending import intrinsic

__all__ = ["address", "carray"]


@intrinsic
def address(typingctx, address):
    """An int64 address as a void pointer (for numba.carray)."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))

    return types.voidptr(types.int64), codegen

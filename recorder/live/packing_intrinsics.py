"""numba intrinsics of the frame packing (recorder.live.tick_packing): unaligned stores, an
address as a pointer (world.kernels.intrinsics'), memcpy and pwrite, and pack_frame's argument
types.

They exist only where numba compiles: a process running the ahead-of-time kernels
(world.kernels.compiled) never imports this module, nor numba.
"""

from __future__ import annotations

from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.extending import intrinsic

from world.kernels.intrinsics import address

__all__ = ["SIGNATURE", "address", "carray", "memcpy", "pwrite", "store"]


@intrinsic
def store(typingctx, buf, at, value):
    """`value` into the uint8 array `buf` at byte `at`, as its own machine type, unaligned;
    bounds are the caller's."""
    if not isinstance(value, types.Integer | types.Float):
        return None
    sig = types.void(buf, types.intp, value)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        place = builder.gep(array.data, [args[1]])
        kind = context.get_data_type(signature.args[2])
        builder.store(args[2], builder.bitcast(place, kind.as_pointer()), align=1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def memcpy(typingctx, dst, at, src, start, count):
    """`count` bytes of the uint8 array `src` from index `start` into the uint8 array `dst`
    from index `at`, as one C memcpy; bounds are the caller's."""
    sig = types.void(dst, types.intp, src, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        dst_array = context.make_array(signature.args[0])(context, builder, args[0])
        src_array = context.make_array(signature.args[2])(context, builder, args[2])
        to = builder.gep(dst_array.data, [args[1]])
        source = builder.gep(src_array.data, [args[3]])
        cgutils.raw_memcpy(builder, to, source, args[4], 1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def pwrite(typingctx, fd, buf, start, count, offset):
    """C's pwrite(fd, &buf[start], count, offset): the bytes the OS took, or -1."""
    sig = types.int64(types.int64, buf, types.intp, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        size = ir.IntType(64)
        kind = ir.FunctionType(size, [ir.IntType(32), ir.IntType(8).as_pointer(), size, size])
        function = cgutils.get_or_insert_function(builder.module, kind, "pwrite")
        array = context.make_array(signature.args[1])(context, builder, args[1])
        place = builder.gep(array.data, [args[2]])
        return builder.call(function, [builder.trunc(args[0], ir.IntType(32)), place, *args[3:]])

    return sig, codegen


# pack_frame's argument types: the writer's frame buffer and stream, the last frame's
# duration, the visual and platform times, check, the laid-out blocks (read-only bytes) and
# where their runs start, additional data, the address table, the actor, walker and vehicle
# rows, frozen
SIGNATURE = (
    types.Array(types.uint8, 1, "C"),
    types.Array(types.int64, 1, "C"),
    types.float64,
    types.float64,
    types.float64,
    types.boolean,
    types.Array(types.uint8, 1, "C", readonly=True),
    types.intp,
    types.intp,
    types.intp,
    types.boolean,
    types.Array(types.int64, 1, "C"),
    types.intp,
    types.intp,
    types.intp,
    types.boolean,
)

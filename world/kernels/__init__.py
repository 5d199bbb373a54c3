"""The kernels wing: the machinery every wing's compiled kernels stand on, below every wing.

Holds lockstep's kernel decorator (compiled: the ahead-of-time module's functions or
numba's JIT), the build of the ahead-of-time module (ahead_of_time), the folder the
kernels are kept in (compiled_cache), the tables of array addresses a kernel called every
tick takes instead of dozens of arrays (array_table, with numba's intrinsics: intrinsics)
and glibc's atoi/atof/fnmatch (cstdlib), which the blueprints and sensors read attributes
with.

May import: world.errors only. Every other wing may import it; it imports none of them.
"""

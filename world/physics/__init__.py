"""The physics wing: the fixed-step tick over the state tables and the kernels it runs.

Holds the compiled tick (tick.py), the vehicle drivetrain and single-track model
(vehicle_dynamics), walker motion, collisions (broad and narrow phase), the vehicle
physics control values, glibc's atoi/atof/fnmatch (cstdlib) and the compiled kernels'
decorator and where they are kept (compiled: the ahead-of-time module or numba's JIT;
ahead_of_time: its build; compiled_cache: the folder).

May import: the plain types and the state tables at the top of world/, map/ (the ground
query) and actors/ (state enums, attachments). Never traffic/, sensors/ or world.py.
"""

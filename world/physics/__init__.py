"""The physics wing: the fixed-step tick over the state tables and the kernels it runs.

Holds the compiled tick (tick.py), the vehicle drivetrain and single-track model
(vehicle_dynamics), the body's pitch on its suspension (body_pitch), walker motion,
collisions (broad and narrow phase) and the vehicle physics control values. Its kernels take
the kernels wing's decorator (world.kernels).

May import: the plain types and the state tables at the top of world/, map/ (the ground
query) and actors/ (state enums, attachments, vehicle models). Never traffic/, sensors/ or
world.py.
"""

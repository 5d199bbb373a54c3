"""Recording a live world: the Recorder, the events found by comparing the world with the
last frame, the per-tick records packed from the world's tables (the compiled frame pass
and its numba intrinsics), and the collisions the collision sensors hear.

May import: logfile/, recorder.errors and the world. Never replay/, json_form/, queries/
or picture/.
"""

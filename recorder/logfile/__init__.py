"""The log file itself: CARLA's packet ids and packets, the reader and the writer, the
packet walk, the memory-mapped source, the analysis API (`open_log`), the rotation form the
log stores, the C library's number text and the C++ hash orders CARLA's containers give,
and the debug drawings' sidecar file beside a log.

May import: recorder.errors, world's plain types (enums, errors, file kinds) and its own
modules. Never live/, replay/, json_form/, queries/ or picture/: every other wing reads or
writes logs through this one.
"""

"""A log as JSON, in the schema of the golden SPEC.json files: dump a log, build the log
CARLA's recorder writes for a spec, and records <-> JSON objects.

May import: logfile/ and recorder.errors. Never live/, replay/, queries/ or picture/.
"""

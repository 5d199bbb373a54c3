"""The traffic manager and its autopilot: lane paths, the vectorised driver, its control laws."""

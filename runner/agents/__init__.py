"""Built-in agents with the leaderboard's AutonomousAgent interface: autopilot, dummy, logged."""

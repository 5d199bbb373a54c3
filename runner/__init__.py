"""The main loop, agents, configs, evaluation, statistics, determinism check and the CLI."""

"""One module per group of CLI commands; each has `register(subparsers)`.

A module registers its commands by adding its name to COMMAND_MODULES.
"""

COMMAND_MODULES: list[str] = [
    "log_tools",
    "queries",
    "maps",
    "exec_script",
    "replay",
    "render",
    "view",
    "warmup",
    "evaluate",
    "leaderboard",
    "serve",
]

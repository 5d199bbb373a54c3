"""The main loop, agents, configs, evaluation, statistics, determinism check and the CLI."""

# world's package sets BLAS to one thread; imported first so that it does so before any
# runner module loads numpy (a BLAS pool made at numpy's import spins on the workers' cores)
import world  # noqa: F401

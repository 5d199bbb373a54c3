"""Tasks on a Ray cluster (`lockstep run CONFIG --ray [ADDRESS]`; `pip install 'lockstep[ray]'`).

The driver connects with ray.init(address=ADDRESS) (an existing cluster: "auto" on one of
its nodes, or "ray://head:10001"), or starts a local Ray instance without an address.
The config is put in the object store once; each task is one remote call that runs the
route in a scratch folder on whichever node Ray picks and returns its result and its
log as bytes, so nodes need no shared disk: only the driver writes the run directory.
The config's files (maps, route files, the agent module) must exist at the same paths on
every node (the same checkout or install, or a shared mount).

A worker that dies (the process crashed, its node went away) is retried once by Ray
(`max_retries=1`); a second death reports the task as crashed. An exception inside the
task is not a worker death: run_task already turns it into the route's failure.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from runner.errors import UsageError
from runner.execution.scheduling import RETRIES, Finished
from runner.execution.tasks import RouteTask, execute_task

__all__ = ["RayScheduler", "import_ray"]

INSTALL_HINT = "pip install 'lockstep[ray]'"


def import_ray() -> Any:
    """The ray module, or a UsageError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UsageError(
            f"--ray needs the ray package, which is not installed: {INSTALL_HINT}"
        ) from None
    return ray


def _run_remote(config: Any, task: RouteTask) -> tuple[bytes, bytes | None]:
    return execute_task(replace(task, config=config, log_path=None))


class RayScheduler:
    """Every task as a Ray remote call; results come back as they finish."""

    wants_log_paths = False
    parallel = True

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        self.ray = import_ray()
        self.address = address or None
        self.num_cpus = num_cpus
        self.running = 0

    def _connect(self) -> None:
        ray = self.ray
        if ray.is_initialized():
            return
        options: dict[str, Any] = {"log_to_driver": False}
        if self.address is None:
            options.update(include_dashboard=False, num_cpus=self.num_cpus)
        ray.init(address=self.address, **options)

    def run(self, tasks: Sequence[RouteTask]) -> Iterator[Finished]:
        if not tasks:
            return
        ray = self.ray
        self._connect()
        remote = ray.remote(max_retries=RETRIES, num_cpus=1)(_run_remote)
        config_ref = ray.put(tasks[0].config)
        pending = {
            remote.remote(config_ref, replace(task, config=None, log_path=None)): task
            for task in tasks
        }
        try:
            while pending:
                self.running = len(pending)
                done, _ = ray.wait(list(pending), num_returns=1)
                task = pending.pop(done[0])
                try:
                    payload, log = ray.get(done[0])
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
                    yield Finished(task, died=f"the Ray worker died running the route ({exc})")
                    continue
                yield Finished(task, payload, log)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            self.running = 0

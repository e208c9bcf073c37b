"""What every Ray-backed command shares (`run --executor ray`, `ingest --executor ray`): importing the optional
extra, starting a local instance or joining a cluster, and carrying this process's settings to the workers.

Ray is an optional extra (requirements-ray.lock, scripts/setup_ray_env.sh); it is imported only when a command
asks for it.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Self

from graph.errors import ColabenchError
from graph.paths import REPO_ROOT

# What a worker needs of the driver process's environment (the encoder, caches, offline switches, keys).
CARRIED_PREFIXES = ("COLABENCH_", "NEO4J_")
CARRIED_NAMES = ("OPENAI_API_KEY", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM")
# Left out of the code shipped to a cluster (`--ray-address`): data, caches, tests and benchmarks.
SHIPPED_EXCLUDES = [
    ".git", ".data", ".mypy_cache", ".ruff_cache", ".pytest_cache", "**/__pycache__", "node_modules",
    "graph/neo4j_launcher/target", "test-artifacts", "results", "reports", "tests", "bench", "notes", "samples",
]  # fmt: skip
INSTALL_HINT = (
    "create the Ray environment with `scripts/setup_ray_env.sh` (it layers requirements-ray.lock on the project's "
    "environment) and run the command as `COLABENCH_RAY=1 ./colabench ... --executor ray`; or install Ray into "
    "your own environment with `pip install --no-deps --require-hashes -r requirements-ray.lock`"
)


class RayNotInstalled(ColabenchError):
    """`--executor ray` in a Python environment without Ray (an optional extra)."""


class RayExecutorError(ColabenchError):
    """Ray workers that cannot start, or that keep dying, or a cluster that cannot be joined."""


def import_ray() -> Any:
    """The `ray` module; RayNotInstalled, saying how to install it, when it is not importable."""
    try:
        ray = importlib.import_module("ray")
    except ImportError as exc:
        raise RayNotInstalled(
            f"the Ray executor needs Ray, which is not installed here ({exc}); {INSTALL_HINT}"
        ) from exc
    if not callable(getattr(ray, "init", None)):  # e.g. a folder named `ray` in the working directory (/tmp/ray)
        path = getattr(ray, "__path__", None)
        where = ", ".join(path) if path is not None else str(getattr(ray, "__file__", None) or "no file")
        raise RayNotInstalled(
            f"the Ray executor needs Ray, but `import ray` found something else ({where}); {INSTALL_HINT}"
        )
    return ray


def start_local_ray(num_cpus: int) -> None:
    """Start a Ray instance on this machine for this process (no dashboard, no usage report sent anywhere);
    `num_cpus` logical CPUs for the workers to share."""
    ray = import_ray()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # Ray would otherwise report usage over the network
    pythonpath = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(
        address="local",
        num_cpus=max(1, num_cpus),
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        runtime_env={"env_vars": {"PYTHONPATH": pythonpath}},
    )


def join_ray_cluster(address: str) -> None:
    """Join the Ray cluster at `address`, shipping the project's code with the job (Ray's `working_dir`,
    without SHIPPED_EXCLUDES); RayExecutorError with the reason when it cannot be reached."""
    ray = import_ray()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        ray.init(
            address=address,
            log_to_driver=False,
            logging_level=logging.ERROR,
            runtime_env={"working_dir": str(REPO_ROOT), "excludes": SHIPPED_EXCLUDES},
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        reason = f"{exc}" + (f" ({last_line(exc.__cause__)})" if exc.__cause__ is not None else "")
        raise RayExecutorError(
            f"could not join the Ray cluster at {address}: {reason}; check the address (`ray status` on "
            "its head node prints it) and that this machine can reach it"
        ) from exc


def ensure_ray(address: str | None, num_cpus: int) -> bool:
    """Ray ready in this process: used as it is when already initialised, else `address` joined or, without
    one, a local instance with `num_cpus` logical CPUs started. True when this call started or joined it (the
    caller then shuts it down when done)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address:
        join_ray_cluster(address)
    else:
        start_local_ray(num_cpus)
    return True


def carried_environment() -> dict[str, str]:
    """The variables of this process a worker must see (CARRIED_PREFIXES, CARRIED_NAMES)."""
    return {k: v for k, v in os.environ.items() if k.startswith(CARRIED_PREFIXES) or k in CARRIED_NAMES}


def apply_environment(env: dict[str, str], config_text: str | None) -> tempfile.TemporaryDirectory[str] | None:
    """Make this worker process's environment the driver's (the carried variables exactly, and its config
    file's content, written here: the driver's path may not exist on this node). Returns the scratch folder
    holding that file (clean it up when the worker closes), or None."""
    for name in [n for n in os.environ if n.startswith(CARRIED_PREFIXES) or n in CARRIED_NAMES]:
        del os.environ[name]
    os.environ.update(env)
    if config_text is None:
        os.environ.pop("COLABENCH_CONFIG", None)
        return None
    scratch = tempfile.TemporaryDirectory(prefix="colabench-ray-")
    path = Path(scratch.name) / "colabench.toml"
    path.write_text(config_text, encoding="utf-8")
    os.environ["COLABENCH_CONFIG"] = str(path)
    return scratch


def last_line(error: BaseException) -> str:
    """The last non-empty line of an error (Ray's carry the remote traceback before it)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[-1].strip() if lines else type(error).__name__


class RayPool:
    """What every pool of Ray actors shares: Ray started or joined on first use (`_ensure_ray`), an equal share
    of the cluster's CPUs per actor (`cpu_share`), and on close the actors killed and a Ray this pool started shut
    down. Use it as a context manager. Subclasses start their actors into `_actors`."""

    def __init__(self, workers: int, address: str | None) -> None:
        self._ray = import_ray()
        self.workers = max(1, workers)
        self.address = address
        self._owns_ray = False
        self._actors: list[Any] = []  # actor handles (a subclass may keep other records: `_actor_handles`)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the actors and leave Ray (the local instance this pool started stops with it)."""
        self._kill_actors()
        if self._owns_ray:
            self._ray.shutdown()
            self._owns_ray = False

    def _ensure_ray(self) -> None:
        self._owns_ray = ensure_ray(self.address, self.workers) or self._owns_ray

    def cpu_share(self) -> float:
        """Logical CPUs per actor: one, or an equal share when the cluster has fewer CPUs than actors."""
        total = float(self._ray.cluster_resources().get("CPU", 1.0))
        return max(0.0001, math.floor(min(1.0, total / self.workers) * 10_000) / 10_000)

    def actor_class(self, cls: type, **options: Any) -> Any:
        """`cls` as a Ray actor class with this pool's defaults: an equal CPU share, spread over the nodes, never
        restarted or retried by Ray (the pool decides what a dead actor means); `options` add or override."""
        defaults: dict[str, Any] = {
            "num_cpus": self.cpu_share(),
            "max_restarts": 0,
            "max_task_retries": 0,
            "scheduling_strategy": "SPREAD",
        }
        return self._ray.remote(cls).options(**{**defaults, **options})

    def start_actors(self, cls: type, args: tuple[Any, ...], *, probe: str, what: str, **options: Any) -> list[Any]:
        """Start `workers` actors of `cls(*args)` into `_actors` (Ray ready: `_ensure_ray` first) and wait until
        each answers `probe`; their answers, in order. RayExecutorError naming `what` when one cannot start."""
        actor_class = self.actor_class(cls, **options)
        self._actors = [actor_class.remote(*args) for _ in range(self.workers)]
        try:
            return list(self._ray.get([getattr(actor, probe).remote() for actor in self._actors]))
        except self._ray.exceptions.RayError as exc:
            self._kill_actors()
            raise RayExecutorError(f"a Ray {what} worker could not start: {last_line(exc)}") from exc

    def _actor_handles(self) -> list[Any]:
        return list(self._actors)

    def _forget_actors(self) -> None:
        """Drop the pool's actors (after `_kill_actors` killed them)."""
        self._actors = []

    def _kill_actors(self) -> None:
        for handle in self._actor_handles():
            with contextlib.suppress(Exception):  # an actor that is already gone needs no kill
                self._ray.kill(handle, no_restart=True)
        self._forget_actors()

"""The `--executor` / `--ray-address` options that `run`, `ingest` and `synth` share, and their checks."""

from __future__ import annotations

from typing import Any

import typer

from graph.errors import BadInputError


def ray_address_option() -> Any:
    return typer.Option(
        None,
        "--ray-address",
        metavar="ADDR",
        help="with --executor ray: the Ray cluster to join (default: start a local Ray instance)",
    )


def check_executor(executor: str, ray_address: str | None, default: str) -> None:
    """Refuse an unknown executor or a cluster address without `--executor ray`; with Ray asked for, make sure
    it is installed (RayNotInstalled says how) before any work."""
    if executor not in (default, "ray"):
        raise BadInputError(f"--executor {executor!r}: choose {default} (the default) or ray")
    if ray_address and executor != "ray":
        raise BadInputError("--ray-address names the Ray cluster of --executor ray: give it with --executor ray")
    if executor == "ray":
        from graph.ray_runtime import import_ray

        import_ray()

"""sha256 of large files (model weights), remembered in a small json so a process rarely re-reads them."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

from graph.paths import cache_dir


def default_hash_index() -> Path:
    """The json that remembers file hashes, next to the embedding cache in the machine cache dir."""
    return cache_dir() / "file_hashes.json"


def sha256_of_file(path: Path) -> str:
    """Hex sha256 of the file's bytes, read in 1 MiB blocks (nothing remembered)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_index(index: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_index(index: Path, data: dict[str, dict[str, object]]) -> None:
    index.parent.mkdir(parents=True, exist_ok=True)
    # Write then rename so a concurrent reader never sees a half-written json.
    fd, tmp = tempfile.mkstemp(dir=index.parent, prefix=index.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
        os.replace(tmp, index)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def file_sha256(path: Path, index: Path | None = None) -> str:
    """Hex sha256 of the file at `path`.

    The result is remembered in `index` (default: `default_hash_index()`) under the file's absolute path,
    and reused while the file's size and mtime (ns) are unchanged. An unwritable index only costs speed.
    """
    path = Path(path).resolve()
    index = index or default_hash_index()
    stat = path.stat()
    key = str(path)
    entries = _read_index(index)
    entry = entries.get(key)
    if entry and entry.get("size") == stat.st_size and entry.get("mtime_ns") == stat.st_mtime_ns:
        cached = entry.get("sha256")
        if isinstance(cached, str) and len(cached) == 64:
            return cached
    digest = sha256_of_file(path)
    # Re-read so entries added by other processes meanwhile are kept.
    entries = _read_index(index)
    entries[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest}
    with contextlib.suppress(OSError):
        _write_index(index, entries)
    return digest

"""The project's own Neo4j: an embedded Community DBMS with Bolt, run by a small Java launcher.

The launcher (graph/neo4j_launcher) is built once per source hash with Maven into the machine cache;
its data lives under <data dir>/neo4j. Only loopback addresses are used.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graph.errors import Neo4jServerError
from graph.paths import REPO_ROOT, cache_dir, data_dir
from graph.settings import Neo4jSettings

LAUNCHER_SRC = REPO_ROOT / "graph" / "neo4j_launcher"
READY_MARK = "COLABENCH-NEO4J-READY"
JAVA_OPENS = [
    "--add-opens",
    "java.base/java.lang=ALL-UNNAMED",
    "--add-opens",
    "java.base/java.nio=ALL-UNNAMED",
    "--add-opens",
    "java.base/java.io=ALL-UNNAMED",
    "--add-opens",
    "java.base/sun.nio.ch=ALL-UNNAMED",
]


def launcher_source_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(LAUNCHER_SRC.rglob("*")):
        if path.is_file() and "target" not in path.parts:
            digest.update(str(path.relative_to(LAUNCHER_SRC)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_launcher(quiet: bool = True) -> Path:
    """Build the launcher with Maven unless this source hash is already built; return its build dir."""
    build_dir = cache_dir() / "neo4j-launcher" / launcher_source_hash()
    if (build_dir / ".complete").is_file():
        return build_dir
    mvn = shutil.which("mvn")
    if mvn is None:
        raise Neo4jServerError("Maven (mvn) is not on PATH; it is needed once to fetch Neo4j from Maven Central")
    if shutil.which("java") is None:
        raise Neo4jServerError("java is not on PATH; Neo4j 5.26 needs JDK 17")
    if build_dir.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True)
    command = [
        mvn,
        "-B",
        *(["-q"] if quiet else []),
        "-f",
        str(LAUNCHER_SRC / "pom.xml"),
        f"-Dlauncher.build.dir={build_dir}",
        "package",
        "dependency:copy-dependencies",
        f"-DoutputDirectory={build_dir / 'dependency'}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-25:])
        raise Neo4jServerError(f"building the Neo4j launcher with Maven failed:\n{tail}")
    (build_dir / ".complete").touch()
    return build_dir


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    uri: str
    home: Path
    log: Path
    detail: str


class LocalNeo4jServer:
    """Start, stop and inspect the project's local Neo4j."""

    def __init__(self, settings: Neo4jSettings | None = None, home: Path | None = None) -> None:
        self.settings = settings or Neo4jSettings()
        self.home = (home or data_dir() / "neo4j").resolve()
        self.state_file = self.home / "server.json"
        self.log_file = self.home / "launcher.log"

    @property
    def uri(self) -> str:
        return f"bolt://{self.settings.local_host}:{self.settings.local_port}"

    def _read_state(self) -> dict[str, object] | None:
        try:
            data: dict[str, object] = json.loads(self.state_file.read_text())
            return data
        except (OSError, ValueError):
            return None

    def _pid_alive(self, pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return True
        return b"Neo4jLauncher" in cmdline

    def _port_open(self) -> bool:
        try:
            with socket.create_connection((self.settings.local_host, self.settings.local_port), timeout=0.5):
                return True
        except OSError:
            return False

    def status(self) -> ServerStatus:
        state = self._read_state()
        raw_pid = state.get("pid") if state else None
        pid = raw_pid if isinstance(raw_pid, int) else None
        if pid and self._pid_alive(pid):
            ready = self._port_open()
            detail = "ready" if ready else "starting (Bolt not yet accepting connections)"
            return ServerStatus(True, pid, self.uri, self.home, self.log_file, detail)
        if self._port_open():
            return ServerStatus(
                False,
                None,
                self.uri,
                self.home,
                self.log_file,
                f"port {self.settings.local_port} is taken by another process",
            )
        return ServerStatus(False, None, self.uri, self.home, self.log_file, "stopped")

    def start(self, timeout_s: float | None = None) -> ServerStatus:
        """Start the server (idempotent) and wait until Bolt accepts connections."""
        timeout_s = timeout_s or self.settings.start_timeout_s
        current = self.status()
        if current.running:
            return self._wait_ready(current.pid or 0, timeout_s)
        if self._port_open():
            raise Neo4jServerError(
                f"port {self.settings.local_port} on {self.settings.local_host} is already in use by another "
                "process; stop it or choose another port with COLABENCH_NEO4J_PORT"
            )
        build_dir = build_launcher()
        self.home.mkdir(parents=True, exist_ok=True)
        java = shutil.which("java") or "java"
        classpath = f"{build_dir / 'neo4j-launcher-1.0.jar'}:{build_dir / 'dependency'}/*"
        command = [
            java,
            f"-Xms{self.settings.heap}",
            f"-Xmx{self.settings.heap}",
            *JAVA_OPENS,
            "-cp",
            classpath,
            "colabench.Neo4jLauncher",
            str(self.home),
            self.settings.local_host,
            str(self.settings.local_port),
            str(self.settings.pagecache_mib),
            str(self.settings.tx_total_bound_mib),
            str(self.settings.tx_each_bound_mib),
        ]
        log = self.log_file.open("ab")
        log.write(f"\n=== start {time.strftime('%Y-%m-%dT%H:%M:%S')} ===\n".encode())
        log.flush()
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=self.home,
        )
        log.close()
        self.state_file.write_text(json.dumps({"pid": process.pid, "uri": self.uri, "started": time.time()}))
        return self._wait_ready(process.pid, timeout_s, process)

    def _wait_ready(self, pid: int, timeout_s: float, process: subprocess.Popen[bytes] | None = None) -> ServerStatus:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise Neo4jServerError(
                    f"Neo4j exited during start-up (code {process.returncode}); last log lines:\n{self.tail_log(20)}"
                )
            if process is None and not self._pid_alive(pid):
                raise Neo4jServerError(f"Neo4j (pid {pid}) died; last log lines:\n{self.tail_log(20)}")
            if self._ready_marked() and self._port_open():
                return ServerStatus(True, pid, self.uri, self.home, self.log_file, "ready")
            time.sleep(0.25)
        raise Neo4jServerError(
            f"Neo4j did not become ready within {timeout_s:.0f} s (log: {self.log_file}); "
            f"last log lines:\n{self.tail_log(20)}"
        )

    def _ready_marked(self) -> bool:
        try:
            text = self.log_file.read_text(errors="replace")
        except OSError:
            return False
        last_start = text.rfind("=== start")
        return READY_MARK in text[last_start:]

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop the server cleanly (SIGTERM, then SIGKILL after the timeout). Returns False if not running."""
        current = self.status()
        if not current.running or current.pid is None:
            self.state_file.unlink(missing_ok=True)
            return False
        os.kill(current.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self._pid_alive(current.pid):
                break
            time.sleep(0.2)
        else:
            os.kill(current.pid, signal.SIGKILL)
        self.state_file.unlink(missing_ok=True)
        return True

    def tail_log(self, lines: int = 50) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log yet)"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (for throwaway servers in tests and benchmarks)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextmanager
def throwaway_server(
    home: Path, heap: str = "1g", pagecache_mib: int = 256, timeout_s: float = 240
) -> Iterator[tuple[Neo4jSettings, ServerStatus]]:
    """A local Neo4j in `home` on a free loopback port, stopped on exit."""
    settings = Neo4jSettings(local_port=free_port(), heap=heap, pagecache_mib=pagecache_mib)
    server = LocalNeo4jServer(settings, home=home)
    status = server.start(timeout_s=timeout_s)
    try:
        yield settings, status
    finally:
        server.stop()

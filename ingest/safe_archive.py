"""Unpacking a bundle .tar.gz safely, into a temporary folder that is always removed.

Every member is vetted before anything is extracted: paths must stay inside the bundle (no absolute paths,
no `..`), only regular files and folders are allowed (symbolic and hard links, devices and FIFOs are
refused), no path appears twice (tar keeps both copies and extraction would silently keep the last), and the
member count and unpacked size are bounded (`ingest.limits`). A file that is not gzip, a truncated stream or a
corrupt tar is one located problem.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from ingest.errors import InputError, Problem
from ingest.limits import current_limits

_GZIP_MAGIC = b"\x1f\x8b"
TEMP_PREFIX = "colabench-bundle-"


def member_display(archive: Path, member: str) -> str:
    """How problems name a file inside an archive: `bundle.tar.gz!bundle/sessions.jsonl`."""
    return f"{archive}!{member}"


def _member_problem(archive: Path, member: tarfile.TarInfo) -> str | None:
    name = member.name
    pure = PurePosixPath(name)
    if name.startswith(("/", "\\")) or pure.is_absolute() or (len(name) > 1 and name[1] == ":"):
        return "an absolute path; members must lie inside the bundle"
    if ".." in pure.parts or ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return "a path with `..`; members must lie inside the bundle"
    if member.issym() or member.islnk():
        return f"a {'symbolic' if member.issym() else 'hard'} link (to {member.linkname!r}); links are refused"
    if not (member.isfile() or member.isdir()):
        return "neither a file nor a folder (device, FIFO...); refused"
    return None


def _vet(archive: Path, handle: tarfile.TarFile) -> list[tarfile.TarInfo]:
    limits = current_limits()
    problems: list[Problem] = []
    members: list[tarfile.TarInfo] = []
    seen: dict[str, bool] = {}  # normalised path -> whether it was a folder
    total = 0
    for member in handle:
        members.append(member)
        if len(members) > limits.max_archive_members:
            problems.append(
                Problem(
                    str(archive),
                    None,
                    "(archive)",
                    f"more than {limits.max_archive_members:,} members (max_archive_members)",
                )
            )
            break
        reason = _member_problem(archive, member) or _duplicate_problem(member, seen)
        if reason:
            problems.append(Problem(member_display(archive, member.name), None, "(member)", reason))
        total += max(member.size, 0)
        if total > limits.max_archive_bytes:
            problems.append(
                Problem(
                    str(archive),
                    None,
                    "(archive)",
                    f"unpacks to more than {limits.max_archive_bytes:,} bytes (max_archive_bytes)",
                )
            )
            break
    if problems:
        raise InputError(problems)
    return members


def _duplicate_problem(member: tarfile.TarInfo, seen: dict[str, bool]) -> str | None:
    """A path the archive already holds (`a/x` and `./a/x` are the same path); a folder listed twice is fine."""
    key = str(PurePosixPath(member.name.replace("\\", "/")))
    earlier = seen.get(key)
    seen[key] = member.isdir()
    if earlier is None or (earlier and member.isdir()):
        return None
    return "a second member with this path; an archive holds each file once (the later copy would replace the first)"


def _archive_problem(archive: Path, exc: BaseException) -> Problem:
    if isinstance(exc, EOFError):
        message = "the archive ends early (truncated); copy or download it again"
    elif isinstance(exc, zlib.error):
        message = f"the gzip data is corrupt ({exc})"
    else:
        message = f"not a readable tar.gz archive ({exc})"
    return Problem(str(archive), None, "(archive)", message)


@contextmanager
def unpacked_archive(archive: Path) -> Iterator[Path]:
    """The folder the vetted archive unpacked into; removed when the block ends, also on error."""
    try:
        with archive.open("rb") as raw:
            magic = raw.read(2)
    except OSError as exc:
        raise InputError([Problem(str(archive), None, "(archive)", f"cannot be read: {exc.strerror}")]) from exc
    if magic != _GZIP_MAGIC:
        raise InputError(
            [
                Problem(
                    str(archive),
                    None,
                    "(archive)",
                    "not a gzip file: a bundle archive must be a gzip-compressed tar (tar -czf NAME.tar.gz FOLDER)",
                )
            ]
        )
    target = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    try:
        try:
            with tarfile.open(archive, "r:gz") as handle:
                members = _vet(archive, handle)
                handle.extractall(target, members=members, filter="data")
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            raise InputError([_archive_problem(archive, exc)]) from exc
        yield target
    finally:
        shutil.rmtree(target, ignore_errors=True)


def inside(root: Path, candidate: Path) -> bool:
    """True when `candidate` (after following links) lies inside `root`."""
    try:
        candidate.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True

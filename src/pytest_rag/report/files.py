"""Writing output files (results, reports, judgment exports) so that a reader never sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import RagError


class FileWriteError(RagError, OSError):
    """An output file that could not be written, named with the system's reason and the fix (the
    system's words alone, "No such file or directory: '/x'", name neither the file nor the step).
    Also an :class:`OSError`, as the failure it reports; ``path`` is the file (OSError's own
    ``filename`` would change how the message prints)."""

    path: Path | None = None


def write_atomically(path: Path, content: str | bytes, what: str) -> None:
    """Write ``content`` (text as UTF-8, or bytes) to a temporary file beside ``path``, then rename it
    over ``path``; ``what`` names the file in the error (``"the results file"``).

    A crash mid-write leaves the previous file intact. The file gets the permissions any file the user
    writes would get (mkstemp's private 0600 would hide a report from a CI artifact uploader).
    """
    try:
        _write_atomically(path, content)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        error = FileWriteError(
            f"{what} {path} could not be written ({why}); give a path in a folder you can write to"
        )
        error.path = path
        raise error from exc


def _write_atomically(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp_name, 0o666 & ~umask)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise

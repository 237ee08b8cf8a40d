"""Crash-safe file writing for everything symnet writes for a user (checkpoints, .rec/.idx/.lst,
logs, plots, summaries), through the C++ writer (src/base/file_io.cc): the bytes go to a
temporary file next to the target, which is fsync'ed and renamed over it, then the folder is
fsync'ed. A crash or a failed write leaves the previous file or the new one, never a torn mix."""
import io
import logging

from . import _core


def write_atomically(path, data):
    """Replaces `path` with `data` (bytes, or str written as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    _core.write_file_atomically(str(path), bytes(data))


class AtomicTextFile(io.StringIO):
    """`with AtomicTextFile(path) as f: f.write(...)`: the text reaches `path` atomically when the
    block ends without an exception; on an exception the previous file stays untouched."""

    def __init__(self, path):
        super().__init__()
        self.path = str(path)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            write_atomically(self.path, self.getvalue())
        return super().__exit__(exc_type, exc, tb)


def append_line(path, line):
    """Appends `line` and a newline with one write(2): a killed run tears at most that line."""
    _core.append_line(str(path), line)


def repair_log_tail(path):
    """Before a resumed run appends to the log at `path`: cuts off a torn last line (the previous
    run was killed while writing it), with a warning. Returns the removed text ('' if none)."""
    torn = _core.truncate_torn_last_line(str(path)).decode("utf-8", "replace")
    if torn:
        logging.warning("%s: ignoring a torn last line left by an interrupted run: %r", path, torn[:200])
    return torn

"""Automatic names for symbols ("fullyconnected0", ...), shared with the C++ API."""
from . import _core


class NameManager:
    """Gives names to unnamed symbols. As in MXNet, a new manager (`with NameManager():`)
    counts from 0 again; the default one shares its counters with the C++ API. A Prefix
    manager prepends a prefix to every name."""

    _current = None

    def __init__(self):
        self._old = None
        self._counter = {}

    def get(self, name, hint):
        if name:
            return name
        if self is _DEFAULT:
            return _core.name_get("", hint)
        key = hint.lower()
        count = self._counter.get(key, 0)
        self._counter[key] = count + 1
        return "%s%d" % (key, count)

    def __enter__(self):
        self._old = NameManager._current
        NameManager._current = self
        return self

    def __exit__(self, *exc):
        NameManager._current = self._old

    @staticmethod
    def current():
        return NameManager._current or _DEFAULT


class Prefix(NameManager):
    """Prefixes every name given while it is active: with Prefix('stage1_'): ..."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


_DEFAULT = NameManager()


def reset():
    """Restarts the automatic name counters."""
    _core.name_reset()

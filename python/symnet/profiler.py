"""mx.profiler: records a span per operator call (bound executors and imperative calls), per
executor forward/backward and per user event, plus memory counters, and writes them as a
Chrome trace (open it in chrome://tracing or https://ui.perfetto.dev) or an aggregate table.

    mx.profiler.set_config(profile_all=True, filename="profile.json", aggregate_stats=True)
    mx.profiler.set_state("run")
    ...                                   # train a few batches
    mx.profiler.set_state("stop")
    mx.profiler.dump()                    # writes profile.json
    print(mx.profiler.dumps())            # per-operator totals
"""
import os
import threading

from . import _core

_CONFIG_KEYS = ("filename", "profile_all", "profile_symbolic", "profile_imperative",
                "profile_memory", "profile_api", "continuous_dump", "dump_period",
                "aggregate_stats", "profile_process")
_config = {"filename": "profile.json", "profile_process": "worker", "continuous_dump": False,
           "dump_period": 1.0}
_dumper = None  # the continuous_dump thread


def set_config(**kwargs):
    """MXNet's profiler configuration. profile_symbolic, profile_imperative, profile_api and
    profile_memory choose what is recorded (each on unless given False; profile_all=True turns
    all four on); aggregate_stats keeps per-operator totals for dumps(); filename is where
    dump() writes the trace; continuous_dump writes it every dump_period seconds while running.
    Only the worker process is profiled here (profile_process='server' is an error)."""
    unknown = sorted(set(kwargs) - set(_CONFIG_KEYS))
    if unknown:
        raise TypeError("profiler.set_config: unknown option(s) %s; expected %s"
                        % (", ".join(unknown), ", ".join(_CONFIG_KEYS)))
    if kwargs.get("profile_process", "worker") != "worker":
        raise ValueError("profiler.set_config: profile_process=%r; symnet has no parameter-server "
                         "processes, only 'worker'" % (kwargs["profile_process"],))
    period = float(kwargs.get("dump_period", _config["dump_period"]))
    if not period > 0:
        raise ValueError("profiler.set_config: dump_period=%r; expected seconds > 0" % (period,))
    _config.update(kwargs)
    _config["dump_period"] = period
    every = bool(kwargs.get("profile_all", False))
    pick = lambda key: every or bool(kwargs.get(key, True))
    _core.profiler_set_config(symbolic=pick("profile_symbolic"),
                              imperative=pick("profile_imperative"), api=pick("profile_api"),
                              memory=pick("profile_memory"),
                              aggregate=bool(kwargs.get("aggregate_stats", False)))


def set_state(state="stop", profile_process="worker"):
    """'run' starts recording, 'stop' stops it (what was recorded stays until dump)."""
    global _dumper
    if state not in ("run", "stop"):
        raise ValueError("profiler.set_state: state=%r; expected 'run' or 'stop'" % (state,))
    _core.profiler_set_running(state == "run")
    if state == "run" and _config.get("continuous_dump") and _dumper is None:
        _dumper = _ContinuousDump(_config["dump_period"])
        _dumper.start()
    elif state == "stop" and _dumper is not None:
        _dumper.stop()
        _dumper = None


def state():
    """'run' or 'stop'."""
    return "run" if _core.profiler_is_running() else "stop"


def pause(profile_process="worker"):
    """Records nothing until resume(), without stopping."""
    _core.profiler_set_paused(True)


def resume(profile_process="worker"):
    _core.profiler_set_paused(False)


def dump(finished=True, profile_process="worker"):
    """Writes the Chrome trace of everything recorded since the last finished dump to the
    configured filename. finished=True (MXNet's default) also drops those records, so a later
    dump holds only what came after."""
    text = _core.profiler_trace_json(clear=bool(finished))
    path = _config["filename"]
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)  # a reader never sees half a trace


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """The per-operator totals (count, total/min/max/avg ms, per device) since the last reset,
    as a table or JSON text; needs set_config(aggregate_stats=True)."""
    if format not in ("table", "json"):
        raise ValueError("profiler.dumps: format=%r; expected 'table' or 'json'" % (format,))
    return _core.profiler_aggregate(json=format == "json", sort_by=sort_by,
                                    ascending=bool(ascending), reset=bool(reset))


def dumpprofile(finished=True):
    """MXNet's old name of dump()."""
    dump(finished)


class _ContinuousDump(threading.Thread):
    def __init__(self, period):
        super().__init__(daemon=True, name="symnet-profiler-dump")
        self.period = period
        self.halt = threading.Event()

    def run(self):
        while not self.halt.wait(self.period):
            dump(finished=False)

    def stop(self):
        self.halt.set()
        self.join()
        dump(finished=False)


# ---- user events (MXNet's Domain, Task, Frame, Event, Counter, Marker) ------------------------
class Domain:
    """A named group of user events; shown as its own process in the trace."""

    def __init__(self, name):
        self.name = str(name)

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)

    def __str__(self):
        return self.name


class _Span:
    """A span from start() to stop(), also usable as a context manager."""

    _kind = "event"

    def __init__(self, domain, name):
        self.domain, self.name = domain, str(name)
        self._start = None

    def start(self):
        self._start = _core.profiler_now_us()

    def stop(self):
        if self._start is None:
            raise RuntimeError("profiler %s '%s': stop() without start()" % (self._kind, self.name))
        _core.profiler_record_span("user", self.name, str(self.domain), self._start,
                                   _core.profiler_now_us())
        self._start = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self):
        return self.name


class Task(_Span):
    _kind = "task"


class Frame(_Span):
    _kind = "frame"


class Event(_Span):
    """A span outside any domain (shown under 'events')."""

    def __init__(self, name):
        super().__init__("events", name)


class Counter:
    """A value over time (a counter track in the trace)."""

    def __init__(self, domain, name, value=None):
        self.domain, self.name = domain, str(name)
        self.value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        self.value = value
        _core.profiler_record_counter(self.name, str(self.domain), float(value))

    def increment(self, delta=1):
        self.set_value(self.value + delta)

    def decrement(self, delta=1):
        self.set_value(self.value - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """An instant in the trace; scope 'global', 'process' or 'thread'."""

    def __init__(self, domain, name):
        self.domain, self.name = domain, str(name)

    def mark(self, scope="process"):
        _core.profiler_record_marker(self.name, str(self.domain), scope)

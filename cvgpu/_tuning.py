"""A family's tuned constants in one place, and the one documented way to change them.

Each family keeps its measured choices (block sizes, thresholds between two code paths, capacities)
in one ``Tuning`` object, read by its code as ``TUNING.name``. Each value is documented where it is
declared, with the benchmark row that chose it. Tests and experiments that force a path change a
value for a ``with`` block through ``override``; they never monkeypatch private module names::

    from cvgpu.contours import TUNING
    with TUNING.override(grouped_min=0):   # every call takes the grouped layout
        ...

Overrides are process-wide (the values are read by every thread), meant for tests and benchmarks.

A test that forces a path also asserts that the path ran: the code counts each path it takes with
``TUNING.ran("name")`` and the test reads ``TUNING.paths()`` before and after (a ``Counter``)::

    before = TUNING.paths()
    with TUNING.override(grouped_min=0):
        cvgpu.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    assert TUNING.paths()["grouped"] > before["grouped"]
"""
import collections
import contextlib
import threading


class Tuning:
    """Named tuned values; ``override(**values)`` changes some for a ``with`` block.

    Each value is also an attribute of the instance, so that ``TUNING.name`` on a hot path is one
    dictionary hit (a class's ``__getattr__`` runs only after the normal lookup has failed and
    raised internally: ~0.4 us a read, several a call on the per-call paths)."""

    def __init__(self, family, **values):
        clash = sorted(n for n in values if hasattr(type(self), n) or n.startswith("_"))
        if clash:
            raise ValueError("%s tuning: value names %s clash with the class's own" % (family, ", ".join(clash)))
        object.__setattr__(self, "_family", family)
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "_lock", threading.Lock())
        object.__setattr__(self, "_paths", collections.Counter())
        self._publish(values)

    def _publish(self, values):
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __getattr__(self, name):  # (only names that are not values reach here)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError("%s tuning has no value %r" % (self._family, name)) from None

    def __setattr__(self, name, value):
        raise AttributeError("%s tuning is read-only; use override()" % self._family)

    def ran(self, path):
        """Count one call that took ``path`` (a name the family documents beside the code)."""
        self._paths[path] += 1

    def paths(self):
        """A copy of the path counts since the process started."""
        with self._lock:
            return collections.Counter(self._paths)

    def names(self):
        return sorted(self._values)

    @contextlib.contextmanager
    def override(self, **values):
        unknown = set(values) - set(self._values)
        if unknown:
            raise AttributeError("%s tuning has no value %s" % (self._family, ", ".join(sorted(unknown))))
        with self._lock:
            saved = {k: self._values[k] for k in values}
            self._values.update(values)
            self._publish(values)
        try:
            yield self
        finally:
            with self._lock:
                self._values.update(saved)
                self._publish(saved)

    def __repr__(self):
        return "Tuning(%r, %s)" % (self._family, ", ".join("%s=%r" % kv for kv in sorted(self._values.items())))

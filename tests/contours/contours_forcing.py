"""Forcing a path of cvgpu.contours in a test, and proving that it ran (cvgpu/_tuning.py)."""
import contextlib

from cvgpu.contours import PATHS, TUNING


@contextlib.contextmanager
def forcing(*paths, **values):
    """TUNING.override(**values) for the block; when it ends, each of ``paths`` (names in
    cvgpu.contours.PATHS) must have run inside it."""
    unknown = set(paths) - set(PATHS)
    assert not unknown, "not a documented path: %s" % sorted(unknown)
    # The paths forced here are the launched pipeline's: a shape met before would otherwise take its
    # captured graph (RETR_EXTERNAL, cvgpu/contours/_graph.py), which has tests of its own.
    values.setdefault("graph_max_pixels", 0)
    before = TUNING.paths()
    with TUNING.override(**values):
        yield
    ran = TUNING.paths() - before
    missing = [p for p in paths if not ran[p]]
    assert not missing, "forced paths that did not run: %s (ran: %s)" % (missing, dict(ran))

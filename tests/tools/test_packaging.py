"""What a non-editable install ships: every file the package needs at run time matches a
package-data pattern of pyproject.toml (a wheel built before this test existed held no fatbin, so
every first call compiled with NVRTC)."""
import fnmatch
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _patterns():
    tomllib = pytest.importorskip("tomllib")  # (Python 3.11+)
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data["tool"]["setuptools"]["package-data"]["*"]


@pytest.mark.parametrize("folder", ["kernels/_aot", "cvgpu/_native"])
def test_run_time_files_are_package_data(folder):
    patterns = _patterns()
    files = [p for p in (ROOT / folder).iterdir() if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert files, folder
    missing = [p.name for p in files if not any(fnmatch.fnmatch(p.name, pat) for pat in patterns)]
    assert not missing, "not shipped by a non-editable install: %s" % missing


def test_package_folders_are_packages():
    # setup.py ships kernels/ and its sub-folders as packages; cvgpu/_native must be one itself.
    assert (ROOT / "cvgpu" / "_native" / "__init__.py").is_file()

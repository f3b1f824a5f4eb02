"""The package list, worked out from the tree so that a new family folder needs no edit here: every
cvgpu package (a folder with an __init__.py under cvgpu/), and the kernel sources, shipped as
cvgpu.kernels (kernels/, mapped in pyproject.toml) with each of its sub-folders. Everything else is
in pyproject.toml."""
import pathlib

from setuptools import find_packages, setup

KERNELS = pathlib.Path(__file__).resolve().parent / "kernels"
kernel_packages = ["cvgpu.kernels"] + sorted(
    "cvgpu.kernels." + ".".join(d.relative_to(KERNELS).parts)
    for d in KERNELS.rglob("*") if d.is_dir() and d.name != "__pycache__")

setup(packages=find_packages(include=["cvgpu", "cvgpu.*"]) + kernel_packages)

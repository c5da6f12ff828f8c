"""The type stubs: shipped with the installed package (py.typed), equal to
the compiled module (mypy's stubtest), and good enough that `mypy --strict`
passes on the package and on these tests; a wrong stub fails both checks."""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import pytest

import softpick
from conftest import ROOT

PACKAGE = Path(softpick.__file__).resolve().parent


def run(args: List[str], cwd: Path, mypypath: Optional[Path] = None) -> "subprocess.CompletedProcess[str]":
    """`python -m <args>` in the test venv, failing with a clear message
    when mypy is not installed there (scripts/test installs it)."""
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    if mypypath is not None:
        env["MYPYPATH"] = str(mypypath)
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail(f"mypy is not installed in {sys.prefix}: pip install mypy (scripts/test does)")
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def stubtest(tmp: Path, mypypath: Optional[Path] = None) -> "subprocess.CompletedProcess[str]":
    # the whole package, as a user runs it: the compiled module against its
    # stubs, and softpick.types (whose Literal aliases must be Unions at run
    # time for stubtest)
    return run(["mypy.stubtest", "softpick"], cwd=tmp, mypypath=mypypath)


def mypy_strict(tmp: Path, *targets: str, mypypath: Optional[Path] = None) -> "subprocess.CompletedProcess[str]":
    return run(["mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp / "cache"), *targets],
               cwd=ROOT, mypypath=mypypath)


def test_stubs_and_marker_are_installed() -> None:
    for name in ("_softpick.pyi", "py.typed", "types.py"):
        assert (PACKAGE / name).is_file(), f"{name} is not in the installed package {PACKAGE}"


def test_stubtest_finds_the_stubs_equal_to_the_compiled_module(tmp_path: Path) -> None:
    r = stubtest(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_passes_on_the_package_and_the_tests(tmp_path: Path) -> None:
    # the installed package, found through its py.typed marker
    r = mypy_strict(tmp_path, "-p", "softpick")
    assert r.returncode == 0, r.stdout + r.stderr
    r = mypy_strict(tmp_path, "python/tests", "scripts/export_dataset.py")
    assert r.returncode == 0, r.stdout + r.stderr


def wrong_copy(tmp: Path, old: str, new: str) -> Path:
    """A copy of the installed package whose stub has `old` replaced by
    `new`, in a folder to put first on MYPYPATH."""
    root = tmp / "wrong"
    shutil.copytree(PACKAGE, root / "softpick", ignore=shutil.ignore_patterns("__pycache__"))
    stub = root / "softpick" / "_softpick.pyi"
    text = stub.read_text()
    assert old in text, f"{old!r} is not in the stub any more: update this test"
    stub.write_text(text.replace(old, new))
    return root


def test_a_wrong_parameter_name_fails_stubtest(tmp_path: Path) -> None:
    root = wrong_copy(tmp_path, "def mesh_node(self, mesh: int)", "def mesh_node(self, node: int)")
    r = stubtest(tmp_path, mypypath=root)
    assert r.returncode != 0 and "mesh_node" in r.stdout, r.stdout + r.stderr


def test_a_wrong_return_type_fails_mypy_on_the_tests(tmp_path: Path) -> None:
    # cast_rays said to return frame.layers' dict: the tests' reads of
    # t_hit, geometry_ids, ... no longer type-check
    root = wrong_copy(tmp_path, "    ) -> RayHits: ...", "    ) -> Layers: ...")
    r = mypy_strict(tmp_path, "python/tests/test_rays.py", mypypath=root)
    assert r.returncode != 0 and "TypedDict \"Layers\" has no key" in r.stdout, r.stdout + r.stderr

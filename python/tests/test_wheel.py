"""The wheel: `maturin build --release` makes one abi3 wheel (CPython 3.9
and later) holding the compiled module, the stubs and py.typed; it
installs into a fresh venv on a PATH without any Rust toolchain, imports,
and renders the frame this package renders."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict

import numpy as np
import pytest

import softpick
from conftest import ROOT

# what the fresh venv runs: the built-in scene's ids, as raw bytes on stdout
RENDER = """
import sys, softpick
scene = softpick.builtin_scene()
frame = scene.render(softpick.Camera.auto(scene, 96, 72))
sys.stdout.buffer.write(frame.ids.tobytes())
"""


def without_rust() -> Dict[str, str]:
    """The environment less every PATH entry holding cargo or rustc, and
    less the variables that point at a toolchain."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CARGO", "RUSTC", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
                        "CARGO_TARGET_DIR", "VIRTUAL_ENV", "PYTHONPATH")}
    keep = [p for p in env.get("PATH", "").split(os.pathsep)
            if p and not any(Path(p, tool).exists() for tool in ("cargo", "rustc"))]
    env["PATH"] = os.pathsep.join(keep)
    assert shutil.which("cargo", path=env["PATH"]) is None
    assert shutil.which("rustc", path=env["PATH"]) is None
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    r = subprocess.run([sys.executable, "-m", "maturin", "build", "--release",
                        "-m", str(ROOT / "python" / "Cargo.toml"), "-o", str(out)],
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, f"maturin build failed:\n{r.stdout}\n{r.stderr}"
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_is_abi3_and_holds_the_stubs(wheel: Path) -> None:
    assert "-cp39-abi3-" in wheel.name, wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    for want in ("softpick/__init__.py", "softpick/_softpick.pyi", "softpick/py.typed",
                 "softpick/types.py", "softpick/conventions.py"):
        assert want in names, f"{want} is not in {wheel.name}: {names}"
    assert any(n.startswith("softpick/_softpick.") and n.endswith(".so") for n in names), names
    # the licence texts the metadata's "MIT OR Apache-2.0" names, as the
    # repository's (python/ holds a copy for maturin to find)
    for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
        found = [n for n in names if n.endswith(f".dist-info/licenses/{lic}")]
        assert found, f"{lic} is not in {wheel.name}: {names}"
        assert zipfile.ZipFile(wheel).read(found[0]) == (ROOT / lic).read_bytes(), lic


def test_the_wheel_installs_and_renders_without_rust(wheel: Path, tmp_path: Path) -> None:
    env = without_rust()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    # binaries only: nothing may be built from source here
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--only-binary=:all:", str(wheel)],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, f"pip install of {wheel.name} failed:\n{r.stdout}\n{r.stderr}"
    out = subprocess.run([str(py), "-c", RENDER], capture_output=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr.decode()
    ids = np.frombuffer(out.stdout, np.uint32).reshape(72, 96)
    scene = softpick.builtin_scene()
    np.testing.assert_array_equal(ids, scene.render(softpick.Camera.auto(scene, 96, 72)).ids)
    assert (ids > 0).any()
    # and it is the wheel's module that ran, not this checkout's
    r = subprocess.run([str(py), "-c", "import softpick; print(softpick.__file__)"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert str(venv) in r.stdout

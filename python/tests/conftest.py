"""Shared test data: meshes generated here (no model files needed), the CLI
binary the tests compare against, and small helpers."""

import json
import os
import struct
import subprocess
from pathlib import Path
from typing import Dict, Sequence, Tuple, Union

import numpy as np
import pytest
from numpy.typing import ArrayLike, NDArray

import softpick

ROOT = Path(__file__).resolve().parents[2]

# a mesh: vertices (N, 3) float64 and triangles (M, 3) int64
MeshData = Tuple[NDArray[np.float64], NDArray[np.int64]]


def uv_sphere(center: Sequence[float], radius: float, rings: int = 12, segments: int = 16) -> MeshData:
    """A closed UV sphere: (vertices, triangles), counter-clockwise outside."""
    verts = [(0.0, radius, 0.0)]
    for i in range(1, rings):
        phi = np.pi * i / rings
        for j in range(segments):
            th = 2 * np.pi * j / segments
            verts.append((radius * np.sin(phi) * np.cos(th), radius * np.cos(phi),
                          radius * np.sin(phi) * np.sin(th)))
    verts.append((0.0, -radius, 0.0))
    v = np.asarray(verts) + np.asarray(center)
    tris = []
    last = len(verts) - 1
    for j in range(segments):
        tris.append((0, 1 + (j + 1) % segments, 1 + j))
    for i in range(rings - 2):
        a, b = 1 + i * segments, 1 + (i + 1) * segments
        for j in range(segments):
            j1 = (j + 1) % segments
            tris.append((a + j, a + j1, b + j))
            tris.append((a + j1, b + j1, b + j))
    base = 1 + (rings - 2) * segments
    for j in range(segments):
        tris.append((last, base + j, base + (j + 1) % segments))
    return v, np.asarray(tris, dtype=np.int64)


def grid(n: int = 8, size: float = 6.0, y: float = -1.0, jitter: float = 0.0, seed: int = 1) -> MeshData:
    """An n×n grid of quads (two triangles each) at height y, shared edges
    through many pixel centres; optional seeded height jitter."""
    xs = np.linspace(-size / 2, size / 2, n + 1)
    xx, zz = np.meshgrid(xs, xs)
    yy = np.full_like(xx, y)
    if jitter:
        yy = yy + np.random.default_rng(seed).uniform(-jitter, jitter, yy.shape)
    v = np.stack([xx.ravel(), yy.ravel(), zz.ravel()], axis=1)
    tris = []
    for i in range(n):
        for j in range(n):
            a = i * (n + 1) + j
            tris.append((a, a + n + 1, a + 1))
            tris.append((a + 1, a + n + 1, a + n + 2))
    return v, np.asarray(tris, dtype=np.int64)


def parts() -> Dict[str, MeshData]:
    """The test scene's meshes: name -> (vertices, triangles)."""
    return {
        "ground": grid(10, 8.0, -1.0, jitter=0.2),
        "ball": uv_sphere((0.3, 0.0, 0.0), 1.0, 14, 20),
        "small": uv_sphere((-1.6, -0.4, 1.0), 0.5, 8, 10),
    }


def write_obj(path: Union[str, Path], meshes: Dict[str, MeshData]) -> None:
    """meshes: name -> (vertices, triangles); one `o` group each."""
    lines, base = [], 1
    for name, (v, t) in meshes.items():
        lines.append(f"o {name}")
        lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in np.asarray(v, np.float32).tolist()]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in t.tolist()]
        base += len(v)
    Path(path).write_text("\n".join(lines) + "\n")


def write_stl(path: Union[str, Path], v: ArrayLike, t: NDArray[np.int64]) -> None:
    """Binary STL of one mesh."""
    v = np.asarray(v, np.float32)
    with open(path, "wb") as f:
        f.write(b"softpick test".ljust(80, b" "))
        f.write(struct.pack("<I", len(t)))
        for a, b, c in t:
            n = np.cross(v[b] - v[a], v[c] - v[a])
            f.write(struct.pack("<12fH", *n, *v[a], *v[b], *v[c], 0))


def write_ply(path: Union[str, Path], v: ArrayLike, t: NDArray[np.int64]) -> None:
    """ASCII PLY of one mesh."""
    v = np.asarray(v, np.float32)
    head = ["ply", "format ascii 1.0", f"element vertex {len(v)}", "property float x",
            "property float y", "property float z", f"element face {len(t)}",
            "property list uchar int vertex_indices", "end_header"]
    body = [f"{x!r} {y!r} {z!r}" for x, y, z in v.tolist()]
    body += [f"3 {a} {b} {c}" for a, b, c in t.tolist()]
    Path(path).write_text("\n".join(head + body) + "\n")


def build_scene(meshes: Dict[str, MeshData]) -> softpick.Scene:
    """A softpick.Scene with the meshes at the identity, in order."""
    s = softpick.Scene()
    for name, (v, t) in meshes.items():
        s.add_mesh(v, t, name=name)
    return s


def camera(width: int = 160, height: int = 120) -> softpick.Camera:
    return softpick.Camera.look_at(eye=(0.5, 2.5, 7.0), target=(0.0, -0.3, 0.0),
                                   fov_y_deg=40.0, width=width, height=height,
                                   near=0.1, far=50.0)


def world_triangles(scene: softpick.Scene) -> NDArray[np.float64]:
    """(T, 3, 3) float64 world corners of every global triangle."""
    out = []
    for m in range(scene.mesh_count):
        v = scene.mesh_vertices(m).astype(np.float64)
        w = scene.mesh_world(m)
        vw = v @ w[:3, :3].T + w[:3, 3]
        out.append(vw[scene.mesh_triangles(m)])
    return np.concatenate(out)


def target_dir() -> Path:
    """Cargo's target directory for the repository: CARGO_TARGET_DIR (or a
    build.target-dir setting) as `cargo metadata` reports it, else
    ROOT/target when cargo cannot be asked."""
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
        return Path(json.loads(out)["target_directory"])
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
        return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


@pytest.fixture(scope="session")
def cli() -> Path:
    """The softpick binary (SOFTPICK_BIN, else release/softpick in Cargo's
    target directory, which CARGO_TARGET_DIR moves): tests that compare
    against it fail when it is missing."""
    env = os.environ.get("SOFTPICK_BIN")
    path = Path(env) if env else target_dir() / "release" / "softpick"
    assert path.is_file(), (
        f"{path} is missing: run `cargo build --release --bin softpick` (scripts/test does)"
    )
    return path


def run_cli(cli: Path, *args: object) -> None:
    subprocess.run([str(cli), *map(str, args)], check=True, capture_output=True)

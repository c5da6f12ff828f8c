"""The Python snippets of README.md ("Python") and docs/python.md ("A first
frame") run as written, on a model.obj of the tests' own (the README's
`origins` and `directions` given), and give what their comments say."""

import os
import re
from pathlib import Path
from typing import Any, Dict

import numpy as np

from conftest import ROOT, uv_sphere, write_obj


def snippet(doc: str, heading: str) -> str:
    """The first ```python block after `heading` in `doc` (a path under the repository)."""
    text = (ROOT / doc).read_text()
    at = text.find(f"\n{heading}\n")
    assert at >= 0, f"{doc} has no heading {heading!r} any more: update this test"
    m = re.compile(r"```python\n(.*?)```", re.S).search(text, at)
    assert m, f"{doc} has no python block after {heading!r}"
    return m.group(1)


def run(code: str, tmp: Path, names: Dict[str, Any]) -> Dict[str, Any]:
    """`code` run in `tmp` (which holds model.obj), with `names` defined."""
    write_obj(tmp / "model.obj", {"ball": uv_sphere((0, 0, 0), 1.0), "moon": uv_sphere((2, 0.5, 0), 0.4)})
    here = os.getcwd()
    os.chdir(tmp)
    try:
        env = dict(names)
        exec(compile(code, "snippet", "exec"), env)
        return env
    finally:
        os.chdir(here)


def test_readme_python_snippet_runs(tmp_path: Path) -> None:
    rays = np.array([[0, 0, 5], [0, 5, 0], [9, 9, 9]], np.float32)
    env = run(snippet("README.md", "## Python"), tmp_path,
              {"origins": rays, "directions": -rays})
    frame, hits = env["frame"], env["hits"]
    assert frame.ids.shape == frame.depth.shape == (480, 640)
    assert frame.barycentrics.shape == frame.normals.shape == (480, 640, 3)
    assert {"t_hit", "primitive_ids", "geometry_ids"} <= set(hits)
    np.testing.assert_allclose(hits["t_hit"], [0.8, 0.8, 1 - 1 / np.sqrt(243)], rtol=0.05)


def test_first_frame_snippet_runs(tmp_path: Path) -> None:
    env = run(snippet("docs/python.md", "## A first frame"), tmp_path, {})
    frame, hit = env["frame"], env["hit"]
    assert frame.ids.shape == (480, 640) and frame.ids.dtype == np.uint32
    assert frame.depth.shape == (480, 640) and frame.depth.dtype == np.float32
    assert frame.barycentrics.shape == (480, 640, 3) and frame.barycentrics.dtype == np.float32
    # the auto camera frames the model: its centre pixel shows a triangle
    assert hit is not None and hit["id"] == frame.ids[240, 320]

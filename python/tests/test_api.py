"""The rest of the API: scene building, cameras, picks, selections,
layers, conventions, method choice and errors."""

import pickle
import threading
from pathlib import Path
from typing import Callable, List, Optional, Tuple, Type

import numpy as np
import pytest
from numpy.typing import NDArray

import softpick
from conftest import build_scene, camera, grid, parts, uv_sphere, write_obj


def test_transforms_and_hierarchy_match_moved_vertices() -> None:
    v, t = uv_sphere((0, 0, 0), 1.0, 10, 12)
    moved = softpick.Scene()
    moved.add_mesh(v + [1.0, 0.5, -2.0], t)
    placed = softpick.Scene()
    root = placed.add_node(name="root")
    m = np.eye(4)
    m[:3, 3] = (0.5, 0.5, 0.0)
    child = placed.add_node(name="child", transform=m, parent=root)
    mesh = placed.add_mesh(v, t, parent=child)
    cam = softpick.Camera.look_at((0, 1, 6), (0.5, 0, -1), width=80, height=60)
    first = placed.render(cam)
    r = np.eye(4)
    r[:3, 3] = (0.5, 0.0, -2.0)
    placed.set_transform(root, r)
    with pytest.raises(softpick.Error, match="render it again"):
        first.mesh_ids
    np.testing.assert_array_equal(placed.render(cam).ids, moved.render(cam).ids)
    assert placed.mesh_node(mesh) == 2 and placed.node_count == 3


def test_set_vertices_refits_and_keeps_ids() -> None:
    meshes = parts()
    scene = build_scene(meshes)
    cam = camera(100, 80)
    before = scene.render(cam)
    scene.build_bvhs()
    v, t = meshes["ball"]
    # (meshes placed at the identity share one scene BVH: theirs are not built)
    assert scene.set_vertices(1, v * 0.5) in ("refit", "rebuilt", "not built")
    meshes["ball"] = (v * 0.5, t)
    fresh = build_scene(meshes)
    after = scene.render(cam)
    np.testing.assert_array_equal(after.ids, fresh.render(cam).ids)
    assert (after.ids != before.ids).any()
    assert scene.mesh_names == ["ground", "ball", "small"]
    with pytest.raises(softpick.Error):
        before.pick(50, 40)
    np.testing.assert_array_equal(scene.render(cam, method="ray").ids, fresh.render(cam, method="ray").ids)
    with pytest.raises(ValueError, match="vertices"):
        scene.set_vertices(1, v[:-1])


def test_camera_constructors_round_trip(tmp_path: Path) -> None:
    cam = camera(128, 96)
    path = tmp_path / "c.json"
    path.write_text(cam.to_json())
    assert softpick.Camera.from_json(path).to_json() == cam.to_json()
    same = softpick.Camera.from_intrinsics(cam.intrinsic_matrix, cam.extrinsic_matrix,
                                           128, 96, cam.near, cam.far)
    np.testing.assert_allclose(same.eye, cam.eye, atol=1e-5)
    assert same.fov_y_deg is not None and cam.fov_y_deg is not None
    np.testing.assert_allclose(same.fov_y_deg, cam.fov_y_deg, rtol=1e-5)
    scene = build_scene(parts())
    a, b = scene.render(cam).ids, scene.render(same).ids
    assert (a == b).mean() > 0.995
    assert same.projection == "perspective"
    # an off-centre principal point is a pinhole camera; a K[1,0] is refused
    K = np.asarray(cam.intrinsic_matrix)
    K[0, 2] += 3
    off = softpick.Camera.from_intrinsics(K, cam.extrinsic_matrix, 128, 96)
    assert off.projection == "pinhole"
    np.testing.assert_allclose(off.intrinsic_matrix, K, rtol=1e-6)
    K[1, 0] = 0.5
    with pytest.raises(ValueError, match="K\\[1,0\\]"):
        softpick.Camera.from_intrinsics(K, cam.extrinsic_matrix, 128, 96)
    auto = softpick.Camera.auto(scene, 64, 64)
    (tmp_path / "auto.json").write_text('{"width": 64, "height": 64}')
    assert softpick.Camera.from_json(tmp_path / "auto.json", scene).to_json() == auto.to_json()


def test_pick_select_and_lasso() -> None:
    scene = build_scene(parts())
    frame = scene.render(camera(120, 90))
    ids = frame.ids
    y, x = np.argwhere(ids > 0)[len(np.argwhere(ids > 0)) // 2]
    p = frame.pick(int(x), int(y))
    assert p is not None
    assert p["id"] == ids[y, x] and p["mesh"] == frame.mesh_ids[y, x]
    assert p == frame.pick(int(x), int(y), method="direct")
    assert frame.pick(-1, 0) is None and frame.pick(0, 10**12) is None
    whole = frame.select_rect(0, 0, 119, 89)
    assert whole["meshes"] == sorted(np.unique(frame.mesh_ids[ids > 0]).tolist())
    assert whole["pixels"] == int((ids > 0).sum())
    assert set(whole["triangles"]) == set((np.unique(ids[ids > 0]) - 1).tolist())
    box = frame.select_rect(10, 20, 49, 59)
    lasso = frame.select_lasso([(10, 20), (50, 20), (50, 60), (10, 60)])
    assert box == lasso and box["pixels"] == int((ids[20:60, 10:50] > 0).sum())
    through = frame.select_rect(0, 0, 119, 89, mode="through")
    assert set(whole["triangles"]) <= set(through["triangles"])


def test_layers_are_sorted_hits() -> None:
    scene = build_scene(parts())
    frame = scene.render(camera(60, 45), method="ray")
    lay = frame.layers(3)
    assert lay["ids"].shape == (45, 60, 3) and lay["barycentrics"].shape == (45, 60, 3, 3)
    assert (lay["ids"][..., 0] == frame.ids).mean() > 0.97
    z = lay["z"]
    both = np.isfinite(z[..., 1:])
    with np.errstate(invalid="ignore"):  # inf - inf where no hit
        step = np.diff(z, axis=-1)
    assert (step[both] >= 0).all() and both.any()
    # a pixel on the ball sees its front, its back, then the ground
    on_ball = frame.mesh_ids == 1
    assert (lay["ids"][on_ball][:, 2] > 0).mean() > 0.5
    assert ((lay["ids"] == 0) == np.isinf(z)).all()
    np.testing.assert_array_equal(lay["depth"] == 1.0, lay["ids"] == 0)
    with pytest.raises(ValueError, match=r"k must be 1\.\.=64 \(got 0\)"):
        frame.layers(0)
    with pytest.raises(ValueError, match=r"k must be 1\.\.=64 \(got -1\)"):
        frame.layers(-1)


@pytest.mark.parametrize("conv", ["softpick", "open3d", "pytorch3d", "nvdiffrast"])
def test_conventions_round_trip(conv: str) -> None:
    scene = build_scene(parts())
    frame = scene.render(camera(40, 30))
    out = frame.ids_as(conv)
    np.testing.assert_array_equal(softpick.ids_from(out, conv), frame.ids)
    bg = frame.ids == 0
    assert bg.any() and (~bg).any()
    if conv == "open3d":
        assert out.dtype == np.uint32 and (out[bg] == softpick.INVALID_ID).all()
        np.testing.assert_array_equal(out[~bg], frame.ids[~bg] - 1)
    if conv == "pytorch3d":
        assert out.shape == (1, 30, 40, 1) and out.dtype == np.int64 and (out[0, bg, 0] == -1).all()
    if conv == "nvdiffrast":
        assert out.shape == (1, 30, 40) and (out[0, ::-1] == frame.ids).all()
    with pytest.raises(ValueError):
        softpick.ids_as(frame.ids, "blender")


def test_method_auto_is_reported() -> None:
    v, t = grid(200, 4.0, 0.0)  # 80,000 triangles
    scene = softpick.Scene()
    scene.add_mesh(v, t)
    small = softpick.Camera.look_at((0, 3, 3), (0, 0, 0), width=64, height=48)
    first = scene.render(small, method="auto")
    assert first.method == "raster" and "BVH" in first.method_reason
    scene.build_bvhs()
    second = scene.render(small, method="auto")
    assert second.method == "ray" and "triangles" in second.method_reason
    assert (second.ids == first.ids).mean() > 0.95
    # the switch at 8 triangles per pixel: 80,000 > 8 x 9,900; 80,000 <= 8 x 10,000
    assert scene.render(small.with_size(110, 90), method="auto").method == "ray"
    assert scene.render(small.with_size(100, 100), method="auto").method == "raster"
    assert scene.render(small.with_size(640, 480), method="auto").method == "raster"
    assert scene.render(small, method="auto", color=True).method == "raster"


def test_renders_in_threads_agree() -> None:
    scene = build_scene(parts())
    cam = camera(200, 150)
    ref = scene.render(cam).ids
    out: List[Optional[NDArray[np.uint32]]] = [None] * 4

    def work(i: int) -> None:
        out[i] = scene.render(cam, threads=1 + i % 2).ids

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for o in out:
        np.testing.assert_array_equal(o, ref)


def test_ray_batches_in_threads_agree() -> None:
    scene = build_scene(parts())
    rng = np.random.default_rng(2)
    o = rng.uniform(-6, 6, (3000, 3))
    d = -o + rng.normal(size=o.shape)
    ref = scene.cast_rays(o, d)["triangle_ids"]
    out: List[Optional[NDArray[np.uint32]]] = [None] * 4

    def work(i: int) -> None:
        out[i] = scene.cast_rays(o, d, threads=1 + i % 2)["triangle_ids"]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for o_ in out:
        np.testing.assert_array_equal(o_, ref)


def test_bad_input_raises(tmp_path: Path) -> None:
    s = softpick.Scene()
    v, t = uv_sphere((0, 0, 0), 1.0)
    bad: List[Tuple[Callable[[], object], Type[Exception], str]] = [
        (lambda: s.add_mesh(v[:, :2], t), ValueError, r"shape \(N, 3\)"),
        (lambda: s.add_mesh(v, t.astype(float)), ValueError, "integers"),
        (lambda: s.add_mesh(v.astype(str), t), ValueError, "numbers"),
        (lambda: s.add_mesh(np.where(v > 0.9, np.nan, v), t), ValueError, "finite"),
        (lambda: s.add_mesh(v, t + len(v)), ValueError, "refers to vertex"),
        (lambda: s.add_mesh(v, -t - 1), ValueError, "refers to vertex"),
        (lambda: s.add_mesh(v, t, parent=5), ValueError, "parent"),
        (lambda: s.add_mesh(v, t, transform=np.eye(3)), ValueError, "4x4|shape"),
        (lambda: s.add_mesh(v, t, transform=[[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]), ValueError, "shear"),
        (lambda: s.set_transform(9, np.eye(4)), ValueError, "node 9"),
        (lambda: s.set_vertices(3, v), ValueError, "mesh 3"),
        (lambda: softpick.Camera.look_at((0, 0, 1), (0, 0, 1)), ValueError, "same point"),
        (lambda: softpick.Camera.look_at((0, 0, 1), (0, 0, 0), width=20000), ValueError, "16384"),
        (lambda: softpick.Camera.look_at((0, 0, 1), (0, 0, 0), near=-1), ValueError, "near"),
        (lambda: softpick.Camera.look_at((0, 0, float("nan")), (0, 0, 0)), ValueError, "finite"),
        # (mypy refuses these three too: the stubs name the allowed values)
        (lambda: s.render(camera(), method="magic"), ValueError, "method"),  # type: ignore[arg-type]
        (lambda: s.render(camera(), rule="fuzzy"), ValueError, "rule"),  # type: ignore[arg-type]
        (lambda: s.render(camera(), cull="sideways"), ValueError, "cull"),  # type: ignore[arg-type]
        (lambda: s.render(camera(), threads=0), ValueError, "threads"),
        # negative ids and sizes: PyO3's conversion raised OverflowError
        # ("can't convert negative int to unsigned"), naming nothing
        (lambda: s.render(camera(), threads=-1), ValueError, r"threads must be 1\.\.=1024 \(got -1\)"),
        (lambda: s.set_transform(-1, np.eye(4)), ValueError, "node -1 does not exist"),
        (lambda: s.mesh_vertices(-1), ValueError, "mesh -1 does not exist"),
        (lambda: s.set_vertices(-2, v), ValueError, "mesh -2 does not exist"),
        (lambda: s.add_mesh(v, t, parent=-1), ValueError, "parent node -1 does not exist"),
        (lambda: s.add_node(parent=2**40), ValueError, f"parent node {2**40} does not exist"),
        (lambda: softpick.Camera.look_at((0, 0, 1), (0, 0, 0), width=-5), ValueError, r"frame size -5x480 is invalid \(each side must be 1\.\.=16384\)"),
        (lambda: softpick.Camera.auto(s, 8, -1), ValueError, "frame size 8x-1"),
        (lambda: camera().with_size(2**32, 8), ValueError, f"frame size {2**32}x8"),
        (lambda: s.cast_rays(np.zeros((3, 3)), np.ones((4, 3))), ValueError, "same shape"),
        (lambda: s.cast_rays(np.zeros(3), np.ones(3)), ValueError, r"\(\.\.\., 3\): two or more axes.*got \[3\]"),
        (lambda: s.cast_rays(np.zeros((3, 3)), np.full((3, 3), np.nan)), ValueError, "finite"),
        (lambda: s.cast_rays(np.zeros((3, 3)), np.ones((3, 3)), near=2, far=1), ValueError, "near"),
        (lambda: softpick.load(tmp_path / "missing.obj"), FileNotFoundError, "missing.obj"),
    ]
    for call, exc, msg in bad:
        with pytest.raises(exc, match=msg):
            call()
    (tmp_path / "broken.obj").write_text("v 0 0 0\nf 1 2 3\n")
    with pytest.raises(softpick.Error, match="broken.obj") as broken:
        softpick.load(tmp_path / "broken.obj")
    # named where the package exports it, so a worker process's error
    # pickles back (Dask, multiprocessing) and tracebacks say softpick.Error
    assert f"{softpick.Error.__module__}.{softpick.Error.__qualname__}" == "softpick.Error"
    back = pickle.loads(pickle.dumps(broken.value))
    assert type(back) is softpick.Error and str(back) == str(broken.value)
    (tmp_path / "cam.json").write_text('{"eye": [0, 0, 1], "fov_y_deg": 400}')
    with pytest.raises(ValueError):
        softpick.Camera.from_json(tmp_path / "cam.json")
    assert s.mesh_count == 0, "nothing was added by the failed calls"

"""Frames: ids and depth equal the CLI's raw files, and the other maps
agree with independent computations."""

from pathlib import Path
from typing import List, Tuple

import numpy as np
import pytest
from numpy.typing import NDArray

import softpick
from softpick.types import CullMode, FillRule
from conftest import (build_scene, camera, parts, run_cli, world_triangles, write_obj,
                      write_ply, write_stl)


@pytest.fixture(scope="module")
def obj_scene(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Path, softpick.Scene]:
    d = tmp_path_factory.mktemp("obj")
    path = d / "scene.obj"
    write_obj(path, parts())
    return path, softpick.load(path)


@pytest.mark.parametrize("size", [(160, 120), (97, 61)])
@pytest.mark.parametrize("rule,cull", [("top-left", "none"), ("strict", "back")])
def test_ids_and_depth_equal_cli_raw(cli: Path, obj_scene: Tuple[Path, softpick.Scene], tmp_path: Path, size: Tuple[int, int],
                                     rule: FillRule, cull: CullMode) -> None:
    path, scene = obj_scene
    cam = camera(*size)
    cam_file = tmp_path / "cam.json"
    cam_file.write_text(cam.to_json())
    run_cli(cli, "render", path, "--camera", cam_file, "--rule", rule, "--cull", cull,
            "--no-color", "--ids-raw", tmp_path / "ids.u32", "--depth-raw", tmp_path / "d.f32")
    frame = scene.render(cam, rule=rule, cull=cull)
    ids = np.fromfile(tmp_path / "ids.u32", "<u4").reshape(size[1], size[0])
    depth = np.fromfile(tmp_path / "d.f32", "<f4").reshape(size[1], size[0])
    assert (ids > 0).mean() > 0.5, "the camera sees the scene"
    np.testing.assert_array_equal(frame.ids, ids)
    np.testing.assert_array_equal(frame.depth, depth)


def test_ray_frame_equals_cli_ray_pickmap(cli: Path, obj_scene: Tuple[Path, softpick.Scene], tmp_path: Path) -> None:
    path, scene = obj_scene
    cam = camera(120, 90)
    (tmp_path / "cam.json").write_text(cam.to_json())
    run_cli(cli, "pickmap", path, "--camera", tmp_path / "cam.json", "--method", "ray",
            "--by", "triangle", "-o", tmp_path / "p.png", "--ids-raw", tmp_path / "ids.u32")
    frame = scene.render(cam, method="ray")
    assert frame.method == "ray"
    ids = np.fromfile(tmp_path / "ids.u32", "<u4").reshape(90, 120)
    np.testing.assert_array_equal(frame.ids, ids)
    # rasterization and rays differ only on a few edge pixels
    assert (scene.render(cam).ids == ids).mean() > 0.98


def test_every_format_loads_and_renders_alike(tmp_path: Path) -> None:
    v, t = parts()["ball"]
    write_obj(tmp_path / "m.obj", {"ball": (v, t)})
    write_stl(tmp_path / "m.stl", v, t)
    write_ply(tmp_path / "m.ply", v, t)
    cam = camera(80, 60)
    ref = softpick.load(tmp_path / "m.obj").render(cam).ids
    assert (ref > 0).sum() > 300
    for ext in ("stl", "ply"):
        s = softpick.load(tmp_path / f"m.{ext}")
        assert s.triangle_count == len(t)
        np.testing.assert_array_equal(s.render(cam).ids, ref)


def test_output_does_not_depend_on_threads() -> None:
    scene = build_scene(parts())
    cam = camera(150, 110)
    a, b = scene.render(cam, threads=1), scene.render(cam, threads=2)
    for name in ("ids", "depth", "barycentrics", "normals", "z", "distance", "mesh_ids"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def _pixel_points(cam: softpick.Camera) -> Tuple[NDArray[np.float64], NDArray[np.float64]]:
    """World points of pixel centres at camera-space z = 1, and the eye."""
    K = np.asarray(cam.intrinsic_matrix)
    E = cam.extrinsic_matrix
    R, t = E[:3, :3], E[:3, 3]
    ys, xs = np.mgrid[0:cam.height, 0:cam.width]
    px = np.stack([xs + 0.5, ys + 0.5, np.ones_like(xs, float)], -1)
    dirs = px @ np.linalg.inv(K).T @ R  # (R^T K^-1 p) for every pixel
    return -R.T @ t, dirs


def test_barycentrics_reconstruct_the_world_position() -> None:
    scene = build_scene(parts())
    cam = camera(160, 120)
    frame = scene.render(cam)
    ids, bary = frame.ids, frame.barycentrics.astype(np.float64)
    cov = ids > 0
    corners = world_triangles(scene)[ids[cov].astype(np.int64) - 1]
    p = np.einsum("nk,nkj->nj", bary[cov], corners)
    # 1. the barycentrics are weights on the triangle
    np.testing.assert_allclose(bary[cov].sum(-1), 1.0, atol=1e-5)
    assert bary[cov].min() > -1e-3 and bary[cov].max() < 1 + 1e-3
    # 2. the point lies on the pixel ray at camera-space z (OpenCV pinhole)
    eye, dirs = _pixel_points(cam)
    q = eye + dirs[cov] * frame.z[cov, None]
    scale = np.abs(corners).max()
    # stated tolerance: 1e-5 of the scene's extent
    assert np.abs(p - q).max() < 1e-5 * scale
    # 3. and where the core's ray cast hits the same triangle, at its hit point
    o, d = frame.pixel_rays()
    hits = scene.cast_rays(o, d, far=1.0)
    same = cov & (hits["triangle_ids"] == ids.astype(np.int64) - 1)
    assert same.sum() > 0.97 * cov.sum()
    h = o[same] + d[same] * hits["t_hit"][same, None]
    assert np.abs(np.einsum("nk,nkj->nj", bary[same], world_triangles(scene)[ids[same].astype(np.int64) - 1]) - h).max() < 1e-5 * scale
    np.testing.assert_allclose(frame.barycentrics[same][:, 1:], hits["primitive_uvs"][same], atol=1e-4)


def test_distance_z_normals_and_mesh_maps() -> None:
    scene = build_scene(parts())
    cam = camera(120, 100)
    frame = scene.render(cam)
    ids, cov = frame.ids, frame.ids > 0
    eye, dirs = _pixel_points(cam)
    np.testing.assert_allclose(frame.distance[cov], frame.z[cov] * np.linalg.norm(dirs[cov], axis=-1), rtol=1e-5)
    assert np.isinf(frame.z[~cov]).all() and np.isinf(frame.distance[~cov]).all()
    # window depth from z: the OpenGL projection's depth
    n, f = cam.near, cam.far
    z = frame.z[cov].astype(np.float64)
    win = ((f + n) / (f - n) - 2 * f * n / ((f - n) * z)) * 0.5 + 0.5
    np.testing.assert_allclose(frame.depth[cov], win, atol=2e-6)
    # normals: unit, those of the triangles
    tri = world_triangles(scene)[ids[cov].astype(np.int64) - 1]
    nrm = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    nrm /= np.linalg.norm(nrm, axis=-1, keepdims=True)
    np.testing.assert_allclose(frame.normals[cov], nrm, atol=1e-5)
    # mesh and instance ids from the global triangle
    offsets = scene.triangle_offsets
    mesh = np.searchsorted(offsets, ids[cov].astype(np.int64) - 1, side="right") - 1
    np.testing.assert_array_equal(frame.mesh_ids[cov], mesh)
    assert (frame.mesh_ids[~cov] == softpick.INVALID_ID).all()
    nodes = np.array([scene.mesh_instance(m) for m in range(scene.mesh_count)])
    np.testing.assert_array_equal(frame.instance_ids[cov], nodes[mesh])
    assert len(np.unique(frame.mesh_ids[cov])) == 3


def test_orthographic_maps() -> None:
    scene = build_scene(parts())
    cam = softpick.Camera.orthographic((0, 6, 0.01), (0, 0, 0), ortho_height=7.0,
                                       width=90, height=80, near=0.5, far=20)
    frame = scene.render(cam)
    cov = frame.ids > 0
    assert cov.mean() > 0.5
    corners = world_triangles(scene)[frame.ids[cov].astype(np.int64) - 1]
    p = np.einsum("nk,nkj->nj", frame.barycentrics[cov].astype(np.float64), corners)
    # z is the distance from the eye's plane along the viewing direction,
    # and so is the distance along the parallel rays
    eye = np.array([0, 6, 0.01])
    fwd = -eye / np.linalg.norm(eye)
    np.testing.assert_allclose((p - eye) @ fwd, frame.z[cov], atol=1e-4)
    np.testing.assert_allclose(frame.distance[cov], frame.z[cov])


def test_color_frame() -> None:
    scene = build_scene(parts())
    frame = scene.render(camera(64, 48), color=True)
    c = frame.color
    assert c.shape == (48, 64, 3) and c.dtype == np.uint8
    assert len(np.unique(c.reshape(-1, 3), axis=0)) > 3
    with pytest.raises(ValueError, match="color"):
        scene.render(camera(64, 48)).color


def test_arrays_are_the_frames_buffers() -> None:
    scene = build_scene(parts())
    frame = scene.render(camera(64, 48))
    a, b = frame.ids, frame.ids
    assert np.shares_memory(a, b) and not a.flags.owndata and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 7
    del frame  # the arrays keep the frame alive
    assert a.sum() == b.sum() and a.shape == (48, 64)


def test_renders_into_handed_back_frames_equal_fresh_ones(obj_scene: Tuple[Path, softpick.Scene]) -> None:
    """A render reuses the buffers of frames nobody holds any more (other
    sizes, color on or off, other rules): its arrays equal those of renders
    made while every earlier frame is still held (fresh buffers)."""
    _, scene = obj_scene
    views: List[Tuple[softpick.Camera, FillRule, bool]] = [(camera(160, 120), "top-left", True), (camera(64, 48), "strict", False),
             (camera(97, 61), "inclusive", False), (camera(160, 120), "strict", True)]
    held = []
    fresh = []
    for cam, rule, color in views:
        f = scene.render(cam, rule=rule, color=color)
        held.append(f)
        fresh.append((f.ids.copy(), f.depth.copy(), f.barycentrics.copy(),
                      f.color.copy() if color else None))
    del held, f
    for _ in range(2):
        for (cam, rule, color), (ids, depth, bary, rgb) in zip(views, fresh):
            f = scene.render(cam, rule=rule, color=color)
            assert (ids > 0).any()
            np.testing.assert_array_equal(f.ids, ids)
            np.testing.assert_array_equal(f.depth, depth)
            np.testing.assert_array_equal(f.barycentrics, bary)
            if color:
                np.testing.assert_array_equal(f.color, rgb)
            else:
                with pytest.raises(ValueError, match="no color"):
                    f.color
            del f

"""Cameras from any OpenCV intrinsics: a pinhole camera (fx != fy, the
principal point off the centre, skew) renders what rays built from
K^-1 [u, v, 1] hit, and round-trips through its JSON."""

from pathlib import Path
from typing import Tuple

import numpy as np
import pytest
from numpy.typing import NDArray

import softpick
from conftest import build_scene, camera, parts, run_cli, write_obj

W, H = 160, 120
# every intrinsic away from the symmetric case
K = np.array([[170.0, 6.5, 71.3],
              [0.0, 148.0, 66.8],
              [0.0, 0.0, 1.0]])


def pinhole_camera(k: NDArray[np.float64] = K) -> softpick.Camera:
    # the extrinsic of the suite's usual look-at camera
    return softpick.Camera.from_intrinsics(k, camera(W, H).extrinsic_matrix, W, H, 0.1, 50.0)


def opencv_rays(k: NDArray[np.float64], extrinsic: NDArray[np.float64], width: int,
                height: int) -> Tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The eye and the world direction of K^-1 [u, v, 1] for every pixel
    centre (u = x + 0.5, v = y + 0.5): (H, W, 3), camera z 1."""
    R, t = extrinsic[:3, :3], extrinsic[:3, 3]
    ys, xs = np.mgrid[0:height, 0:width]
    px = np.stack([xs + 0.5, ys + 0.5, np.ones_like(xs, float)], -1)
    cam_dirs = px @ np.linalg.inv(k).T
    return -R.T @ t, cam_dirs @ R  # rows of R^T d


def test_pinhole_frame_equals_rays_from_the_intrinsics() -> None:
    scene = build_scene(parts())
    cam = pinhole_camera()
    assert cam.projection == "pinhole"
    E = np.asarray(cam.extrinsic_matrix, dtype=np.float64)
    eye, dirs = opencv_rays(K, E, W, H)
    hits = scene.cast_rays(np.broadcast_to(eye, dirs.shape), dirs)
    ray_ids = hits["triangle_ids"].astype(np.int64)
    ray_ids[hits["triangle_ids"] == softpick.INVALID_ID] = -1
    for method in ("raster", "ray"):
        frame = scene.render(cam, method=method)
        ids = frame.ids.astype(np.int64) - 1
        cov = ids >= 0
        assert cov.mean() > 0.5, "the camera sees the scene"
        same = cov & (ids == ray_ids)
        # the methods may differ on edge pixels only
        assert same.sum() >= 0.995 * cov.sum(), (method, same.sum(), cov.sum())
        assert ((ray_ids >= 0) != cov).mean() < 0.005, method
        # camera-space z: the rays' t_hit, their camera z being 1; stated
        # tolerance 2e-5 relative (float32 hit points and maps)
        np.testing.assert_allclose(frame.z[same], hits["t_hit"][same], rtol=2e-5)
        assert np.isinf(frame.z[~cov]).all()
    # the frame's own pixel rays point along the same directions
    o, d = frame.pixel_rays()
    unit = d / np.linalg.norm(d, axis=-1, keepdims=True)
    want = dirs / np.linalg.norm(dirs, axis=-1, keepdims=True)
    assert np.abs(unit - want).max() < 1e-5


def test_pinhole_projects_points_to_the_opencv_pixels() -> None:
    cam = pinhole_camera()
    E = np.asarray(cam.extrinsic_matrix, dtype=np.float64)
    rng = np.random.default_rng(5)
    p = rng.uniform(-2, 2, (200, 3))
    pc = p @ E[:3, :3].T + E[:3, 3]  # OpenCV camera frame
    p, pc = p[pc[:, 2] > 1.0], pc[pc[:, 2] > 1.0]
    uv = (pc @ K.T)[:, :2] / pc[:, 2:3]
    # the OpenGL projection of the view-space point, then the window mapping
    view, proj = np.asarray(cam.view_matrix), np.asarray(cam.projection_matrix)
    clip = np.c_[p, np.ones(len(p))] @ (proj @ view).T
    ndc = clip[:, :3] / clip[:, 3:4]
    win = np.c_[(ndc[:, 0] * 0.5 + 0.5) * W, (1 - (ndc[:, 1] * 0.5 + 0.5)) * H]
    np.testing.assert_allclose(win, uv, atol=2e-3)


def test_pinhole_facts_and_json_round_trip(cli: Path, tmp_path: Path) -> None:
    cam = pinhole_camera()
    np.testing.assert_array_equal(cam.intrinsic_matrix, K.astype(np.float32).astype(np.float64))
    fy, cy = K[1, 1], K[1, 2]
    want = np.degrees(np.arctan(cy / fy) + np.arctan((H - cy) / fy))
    assert cam.fov_y_deg is not None
    np.testing.assert_allclose(cam.fov_y_deg, want, rtol=1e-6)
    np.testing.assert_allclose(cam.extrinsic_matrix, camera(W, H).extrinsic_matrix, atol=1e-5)
    path = tmp_path / "cam.json"
    path.write_text(cam.to_json())
    back = softpick.Camera.from_json(path)
    assert back.to_json() == cam.to_json()
    assert back.projection == "pinhole"
    np.testing.assert_array_equal(back.intrinsic_matrix, cam.intrinsic_matrix)
    np.testing.assert_array_equal(back.projection_matrix, cam.projection_matrix)
    # and the CLI renders the file as the package does
    scene_path = tmp_path / "scene.obj"
    write_obj(scene_path, parts())
    run_cli(cli, "render", scene_path, "--camera", path, "--no-color",
            "--ids-raw", tmp_path / "ids.u32")
    ids = np.fromfile(tmp_path / "ids.u32", "<u4").reshape(H, W)
    np.testing.assert_array_equal(softpick.load(scene_path).render(cam).ids, ids)
    # another size keeps the intrinsics (pixels)
    np.testing.assert_array_equal(cam.with_size(90, 70).intrinsic_matrix, cam.intrinsic_matrix)


def test_symmetric_intrinsics_stay_perspective() -> None:
    base = camera(W, H)
    k = np.asarray(base.intrinsic_matrix)
    same = softpick.Camera.from_intrinsics(k, base.extrinsic_matrix, W, H, base.near, base.far)
    assert same.projection == "perspective"
    assert same.fov_y_deg is not None and base.fov_y_deg is not None
    np.testing.assert_allclose(same.fov_y_deg, base.fov_y_deg, rtol=1e-5)
    for change in ((0, 0, 1.0), (0, 2, 0.5), (1, 2, -0.5), (0, 1, 0.25)):
        k2 = k.copy()
        k2[change[0], change[1]] += change[2]
        assert pinhole_camera(k2).projection == "pinhole", change


@pytest.mark.parametrize("where,value,msg", [
    ((0, 0), 0.0, "focal"),
    ((0, 0), -170.0, "focal"),
    ((1, 1), -1e-9, "focal"),
    ((1, 1), np.nan, "finite"),
    ((1, 1), np.inf, "finite"),
    ((1, 0), 0.5, r"K\[1,0\]"),
    ((2, 0), 1e-3, "last row"),
    ((2, 2), 2.0, "last row"),
    ((0, 2), np.nan, "finite"),
    ((0, 1), np.inf, "finite"),
])
def test_from_intrinsics_still_rejects(where: Tuple[int, int], value: float, msg: str) -> None:
    k = K.copy()
    k[where] = value
    with pytest.raises(ValueError, match=msg):
        pinhole_camera(k)


def test_from_intrinsics_rejects_other_shapes_and_extrinsics() -> None:
    E = camera(W, H).extrinsic_matrix
    with pytest.raises(ValueError, match="3x3"):
        softpick.Camera.from_intrinsics(K[:2], E, W, H)
    scaled = np.asarray(E).copy()
    scaled[:3, :3] *= 2.0
    with pytest.raises(ValueError, match="rotation"):
        softpick.Camera.from_intrinsics(K, scaled, W, H)

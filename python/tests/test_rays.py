"""Batched rays: cast_rays equals the core's ray picks, hits lie on their
triangles, list_intersections lists every hit in Open3D's layout."""

from typing import Any, List, Mapping, Tuple, cast

import numpy as np
import pytest
from numpy.typing import NDArray

import softpick
from conftest import build_scene, camera, parts, uv_sphere, world_triangles


def test_cast_rays_equals_the_frames_ray_picks() -> None:
    scene = build_scene(parts())
    cam = camera(120, 90)
    frame = scene.render(cam, method="ray")
    o, d = frame.pixel_rays()
    hits = scene.cast_rays(o, d, far=1.0)
    assert hits["t_hit"].shape == (90, 120) and hits["primitive_uvs"].shape == (90, 120, 2)
    got = np.where(hits["triangle_ids"] == softpick.INVALID_ID, 0, hits["triangle_ids"] + 1)
    np.testing.assert_array_equal(got.astype(np.uint32), frame.ids)
    assert (frame.ids > 0).mean() > 0.5
    # and the single picks, on a sample of pixels
    rng = np.random.default_rng(3)
    for x, y in zip(rng.integers(0, 120, 60), rng.integers(0, 90, 60)):
        p = frame.pick(int(x), int(y), method="ray")
        if p is None:
            assert hits["geometry_ids"][y, x] == softpick.INVALID_ID
            continue
        assert (hits["geometry_ids"][y, x], hits["primitive_ids"][y, x]) == (p["mesh"], p["triangle"])
        assert hits["instance_ids"][y, x] == p["instance"]
        np.testing.assert_allclose(hits["primitive_uvs"][y, x], p["barycentric"][1:], atol=1e-6)
        np.testing.assert_allclose(hits["primitive_normals"][y, x], p["normal"], atol=1e-6)


def test_random_rays_hit_their_triangles_with_transforms() -> None:
    scene = softpick.Scene()
    v, t = uv_sphere((0, 0, 0), 1.0, 10, 12)
    parent = scene.add_node(name="parent", transform=np.diag([1.0, 1.0, 1.0, 1.0]))
    m = np.eye(4)
    m[:3, 3] = (2.0, 0.5, -1.0)
    scene.add_mesh(v, t, name="a", parent=parent, transform=m)
    rot = np.eye(4)
    c, s = np.cos(0.7), np.sin(0.7)
    rot[:3, :3] = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    rot[:3, :3] *= 1.5
    scene.add_mesh(v, t, name="b", transform=rot)
    rng = np.random.default_rng(7)
    n = 5000
    origins = rng.uniform(-5, 5, (n, 3))
    targets = rng.uniform(-1.5, 1.5, (n, 3)) + np.where(rng.random((n, 1)) < 0.5, 0, 1) * [2.0, 0.5, -1.0]
    dirs = (targets - origins) * rng.uniform(0.2, 3.0, (n, 1))  # not unit length
    hits = scene.cast_rays(origins, dirs)
    hit = hits["geometry_ids"] != softpick.INVALID_ID
    assert 0.3 < hit.mean() < 0.95
    tris = world_triangles(scene)
    gid = hits["triangle_ids"][hit].astype(np.int64)
    uv = hits["primitive_uvs"][hit].astype(np.float64)
    w = np.stack([1 - uv.sum(1), uv[:, 0], uv[:, 1]], 1)
    on_tri = np.einsum("nk,nkj->nj", w, tris[gid])
    on_ray = origins[hit] + dirs[hit] * hits["t_hit"][hit, None]
    assert np.abs(on_tri - on_ray).max() < 1e-4
    assert (w > -1e-5).all()
    # nothing is nearer: the every-hit list starts with the first hit
    every = scene.list_intersections(origins, dirs)
    splits = every["ray_splits"]
    assert splits[-1] == len(every["t_hit"]) and len(splits) == n + 1
    first = splits[:-1][hit]
    np.testing.assert_array_equal(every["triangle_ids"][first], hits["triangle_ids"][hit])
    np.testing.assert_array_equal(every["ray_ids"][first], np.nonzero(hit)[0])
    assert (np.diff(splits)[~hit] == 0).all()
    # a closed sphere is entered and left: an even number of hits per ray
    # through mesh "a" alone
    assert (np.diff(splits)[hit] >= 1).all()


def test_list_intersections_through_a_sphere() -> None:
    scene = softpick.Scene()
    v, t = uv_sphere((0, 0, 0), 1.0, 16, 24)
    scene.add_mesh(v, t)
    n = 200
    rng = np.random.default_rng(5)
    d = rng.normal(size=(n, 3))
    o = -4 * d / np.linalg.norm(d, axis=1, keepdims=True) + rng.uniform(-0.3, 0.3, (n, 3))
    every = scene.list_intersections(o, d)
    counts = np.diff(every["ray_splits"])
    assert (counts == 2).all()
    for i in range(n):
        t_ray = every["t_hit"][every["ray_splits"][i]:every["ray_splits"][i + 1]]
        assert t_ray[0] <= t_ray[1]
    # near and far bound the hits, in units of the direction
    first = scene.cast_rays(o, d)
    cut = scene.cast_rays(o, d, far=float(np.min(first["t_hit"])) * 0.99)
    assert (cut["geometry_ids"] == softpick.INVALID_ID).all()
    past = scene.cast_rays(o, d, near=float(np.max(first["t_hit"])) * 1.0001)
    assert (past["t_hit"] > first["t_hit"]).all()
    back = scene.cast_rays(o, d, cull="front")
    assert (back["t_hit"] > first["t_hit"]).all(), "the outside faces are culled"


def test_cast_rays_threads_and_shapes() -> None:
    scene = build_scene(parts())
    rng = np.random.default_rng(11)
    o = rng.uniform(-6, 6, (4, 250, 3))
    d = -o + rng.normal(size=o.shape)
    a = scene.cast_rays(o, d, threads=1)
    b = scene.cast_rays(o, d, threads=2)
    assert a["t_hit"].shape == (4, 250) and a["primitive_normals"].shape == (4, 250, 3)
    for (k, x), (k2, y) in zip(a.items(), b.items()):
        assert k == k2
        np.testing.assert_array_equal(x, y)


def brute_force_hits(tris: NDArray[np.float64], o: NDArray[np.float64],
                     d: NDArray[np.float64]) -> List[Tuple[int, int, float]]:
    """Every (ray, global triangle, t) of rays o + t·d, t >= 0, through
    triangles tris (T, 3, 3), by Möller–Trumbore in float64."""
    e1, e2 = tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    out = []
    for i in range(len(o)):
        p = np.cross(d[i], e2)
        det = np.einsum("tj,tj->t", e1, p)
        ok = np.abs(det) > 1e-12
        inv = np.where(ok, 1 / np.where(ok, det, 1), 0)
        s = o[i] - tris[:, 0]
        u = np.einsum("tj,tj->t", s, p) * inv
        q = np.cross(s, e1)
        v = (q @ d[i]) * inv
        t = np.einsum("tj,tj->t", e2, q) * inv
        hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
        out += [(i, int(k), float(t[k])) for k in np.nonzero(hit)[0]]
    return out


def test_list_intersections_has_open3ds_layout_and_every_hit() -> None:
    scene = build_scene(parts())
    rng = np.random.default_rng(21)
    n = 300
    o = rng.uniform(-6, 6, (3, n // 3, 3))
    d = (rng.uniform(-1.5, 1.5, o.shape) - o) * rng.uniform(0.5, 2.0, (3, n // 3, 1))
    every = scene.list_intersections(o, d)
    # Open3D's RaycastingScene.list_intersections: its six keys, flat,
    # uint32 ray_splits (N + 1) and ids, float32 t_hit and uvs (K, 2)
    k = len(every["t_hit"])
    layout = {"ray_splits": (np.uint32, (n + 1,)), "ray_ids": (np.uint32, (k,)),
              "t_hit": (np.float32, (k,)), "geometry_ids": (np.uint32, (k,)),
              "primitive_ids": (np.uint32, (k,)), "primitive_uvs": (np.float32, (k, 2))}
    arrays = cast(Mapping[str, NDArray[Any]], every)  # (a TypedDict read by a key in a variable)
    for key, (dtype, shape) in layout.items():
        assert arrays[key].dtype == dtype and arrays[key].shape == shape, key
    ours = {"triangle_ids": (np.uint32, (k,)), "instance_ids": (np.uint32, (k,)),
            "primitive_normals": (np.float32, (k, 3))}
    for key, (dtype, shape) in ours.items():
        assert arrays[key].dtype == dtype and arrays[key].shape == shape, key
    assert set(every) == set(layout) | set(ours)
    splits = every["ray_splits"]
    assert splits[0] == 0 and splits[-1] == k and (np.diff(splits.astype(np.int64)) >= 0).all()
    np.testing.assert_array_equal(every["ray_ids"], np.repeat(np.arange(n), np.diff(splits)))
    # the same hits as a brute-force float64 intersection of every triangle
    tris = world_triangles(scene)
    flat_o, flat_d = o.reshape(-1, 3), d.reshape(-1, 3)
    want = sorted(brute_force_hits(tris, flat_o, flat_d), key=lambda h: (h[0], h[2]))
    assert k > n, "most rays cross several triangles"
    assert [(r, g) for r, g, _ in want] == list(zip(every["ray_ids"].tolist(), every["triangle_ids"].tolist()))
    np.testing.assert_allclose(every["t_hit"], [t for _, _, t in want], rtol=1e-5, atol=1e-6)
    # each ray's first listed hit is cast_rays' hit, nearest first after it
    first = scene.cast_rays(flat_o, flat_d)
    has = np.diff(splits) > 0
    np.testing.assert_array_equal(every["triangle_ids"][splits[:-1][has]], first["triangle_ids"][has])
    # (t from the hit's distance / |direction| here, the ray parameter itself
    # there: equal to within an ulp)
    np.testing.assert_allclose(every["t_hit"][splits[:-1][has]], first["t_hit"][has], rtol=3e-7)
    assert (first["geometry_ids"][~has] == softpick.INVALID_ID).all()
    for i in np.nonzero(has)[0]:
        assert (np.diff(every["t_hit"][splits[i]:splits[i + 1]]) >= 0).all()
    # geometry and primitive ids split the global triangle as the offsets say
    offsets = scene.triangle_offsets
    np.testing.assert_array_equal(offsets[every["geometry_ids"]] + every["primitive_ids"], every["triangle_ids"])


def test_cast_rays_all_is_list_intersections() -> None:
    scene = build_scene(parts())
    rng = np.random.default_rng(4)
    o = rng.uniform(-6, 6, (200, 3))
    d = -o + rng.normal(size=o.shape)
    a, b = scene.list_intersections(o, d, near=0.1), scene.cast_rays_all(o, d, near=0.1)
    assert a.keys() == b.keys()
    for (_, x), (_, y) in zip(a.items(), b.items()):
        np.testing.assert_array_equal(x, y)
    assert "list_intersections" in (softpick.Scene.cast_rays_all.__doc__ or "")


def test_clip_planes_cut_renders_and_rays_alike() -> None:
    scene = build_scene(parts())
    cam = camera(120, 90)
    plain = scene.render(cam)
    # keep x <= 0 (the half-space -x >= 0), as three.js's Plane((-1, 0, 0), 0)
    cut = np.array([[-1.0, 0.0, 0.0, 0.0]])
    for method in ("raster", "ray"):
        frame = scene.render(cam, method=method, clip_planes=cut)
        assert 0 < (frame.ids > 0).sum() < (plain.ids > 0).sum()
        o, d = frame.pixel_rays()
        hits = scene.cast_rays(o, d, far=1.0, clip_planes=cut)
        got = np.where(hits["triangle_ids"] == softpick.INVALID_ID, 0, hits["triangle_ids"] + 1)
        same = (got.astype(np.uint32) == frame.ids).mean()
        # the ray frame is these rays; the raster frame agrees but at cut and ID edges
        assert same == 1.0 if method == "ray" else same > 0.97
        kept = hits["t_hit"] < np.inf
        points = o + d * np.where(kept, hits["t_hit"], 0.0)[..., None]
        assert (points[kept][:, 0] <= 1e-4).all()
    every = scene.list_intersections(o, d, far=1.0, clip_planes=cut)
    assert every["t_hit"].size > 0
    with pytest.raises(ValueError, match="zero normal"):
        scene.cast_rays(o, d, clip_planes=[[0.0, 0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="clip_planes"):
        scene.render(cam, clip_planes=[[1.0, 0.0, 0.0]])

"""glTF files from Python: instances, their ids in the maps, scene choice
and posing at a time. The files are written here (data-URI buffers)."""

import base64
import json
import struct
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import softpick
from softpick.types import LoopMode


def write_gltf(path: Path, animated: bool = False) -> Path:
    """A quad mesh placed by three nodes (instances); with `animated`, the
    last node slides +2 in x over one second."""
    pos = [-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0]
    idx = [0, 1, 2, 0, 2, 3]
    b = struct.pack("<12f", *pos) + struct.pack("<6I", *idx)
    views = [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
             {"buffer": 0, "byteOffset": 48, "byteLength": 24}]
    accessors = [
        {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
         "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]},
        {"bufferView": 1, "componentType": 5125, "count": 6, "type": "SCALAR"},
    ]
    doc = {"asset": {"version": "2.0"},
           "scenes": [{"nodes": [0, 1, 2]}, {"name": "one", "nodes": [1]}], "scene": 0,
           "nodes": [{"name": "a", "mesh": 0, "translation": [-1.2, 0, 0]},
                     {"name": "b", "mesh": 0},
                     {"name": "c", "mesh": 0, "translation": [1.2, 0, 0]}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}]}
    if animated:
        k = struct.pack("<2f", 0.0, 1.0) + struct.pack("<6f", 1.2, 0, 0, 3.2, 0, 0)
        views += [{"buffer": 0, "byteOffset": 72, "byteLength": 8},
                  {"buffer": 0, "byteOffset": 80, "byteLength": 24}]
        accessors += [{"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
                       "min": [0.0], "max": [1.0]},
                      {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"}]
        doc["animations"] = [{"name": "slide",
                              "samplers": [{"input": 2, "output": 3}],
                              "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]}]
        b += k
    doc["buffers"] = [{"byteLength": len(b),
                       "uri": "data:application/octet-stream;base64," + base64.b64encode(b).decode()}]
    doc["bufferViews"] = views
    doc["accessors"] = accessors
    path.write_text(json.dumps(doc))
    return path


def test_instances_have_their_own_ids_in_the_maps(tmp_path: Path) -> None:
    scene = softpick.load(write_gltf(tmp_path / "tiles.gltf"))
    assert scene.mesh_count == 3 and scene.triangle_count == 6
    cam = softpick.Camera.look_at((0, 0, 5), (0, 0, 0), width=120, height=60)
    f = scene.render(cam)
    covered = f.ids != 0
    # three instances, one mesh each: instance ids follow mesh ids here,
    # and each instance's triangles have their own global ids
    assert set(np.unique(f.instance_ids[covered])) == {0, 1, 2}
    np.testing.assert_array_equal(f.instance_ids[covered], f.mesh_ids[covered])
    np.testing.assert_array_equal((f.ids[covered] - 1) // 2, f.mesh_ids[covered])
    one = softpick.load(tmp_path / "tiles.gltf", scene="one")
    assert one.mesh_count == 1
    with pytest.raises(softpick.Error, match="no scene"):
        softpick.load(tmp_path / "tiles.gltf", scene=5)


def test_pose_moves_what_every_method_sees(tmp_path: Path) -> None:
    scene = softpick.load(write_gltf(tmp_path / "anim.gltf", animated=True))
    assert scene.animations == ["slide"]
    cam = softpick.Camera.look_at((1, 0, 7), (1, 0, 0), width=160, height=60)
    scene.pose(0.0)
    f0 = scene.render(cam)
    ids0, inst0 = f0.ids.copy(), f0.instance_ids.copy()
    scene.pose(1.0, animation="slide")
    f1 = scene.render(cam)
    ray = scene.render(cam, method="ray")
    assert (ids0 != f1.ids).any()
    # the third tile moved right by 2: its pixels' x grew

    def xs(inst: NDArray[np.uint32]) -> NDArray[np.intp]:
        return np.nonzero(inst == 2)[1]

    assert xs(f1.instance_ids).mean() > xs(inst0).mean() + 10
    # a frame rendered before the pose is stale
    with pytest.raises(softpick.Error, match="render it again"):
        f0.pick(80, 30)
    agree = (ray.ids == f1.ids).mean()
    assert agree > 0.99, agree
    with pytest.raises(ValueError, match="no animation"):
        scene.pose(0.5, animation="jump")


def test_pose_loop_modes_clamp_wrap_and_mirror(tmp_path: Path) -> None:
    # the third tile slides from x = 1.2 at 0 s to 3.2 at 1 s (LINEAR); at
    # 1.25 s once holds the end, repeat wraps to 0.25 s, pingpong comes
    # back to 0.75 s
    scene = softpick.load(write_gltf(tmp_path / "anim.gltf", animated=True))
    cam = softpick.Camera.look_at((1, 0, 7), (1, 0, 0), width=160, height=60)

    def tile_x(loop: LoopMode) -> float:
        scene.pose(1.25, loop=loop)
        return float(np.nonzero(scene.render(cam).instance_ids == 2)[1].mean())

    def at(t: float) -> float:
        scene.pose(t)
        return float(np.nonzero(scene.render(cam).instance_ids == 2)[1].mean())

    assert tile_x("once") == at(1.0)
    assert tile_x("repeat") == at(0.25)
    assert tile_x("pingpong") == at(0.75)
    with pytest.raises(ValueError, match="loop must be"):
        scene.pose(0.5, loop="bounce")  # type: ignore[arg-type]

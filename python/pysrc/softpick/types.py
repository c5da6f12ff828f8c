"""The layouts of the dicts softpick returns, as TypedDicts, for annotations
(``hits: softpick.types.RayHits = scene.cast_rays(o, d)``) and for mypy.

At run time each is a plain ``dict``; these classes only name its keys and
their types. Array dtypes and shapes are in each key's comment and in the
returning method's docstring (``help(softpick.Scene.cast_rays)``).
"""

from typing import List, Literal, TypedDict, Union

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CullMode",
    "FillRule",
    "Hit",
    "Intersections",
    "Layers",
    "LoopMode",
    "PickMethod",
    "RayHits",
    "RenderMethod",
    "SelectMode",
    "Selection",
]

# the values of the str arguments (a Union of one-value Literals: the same type
# as Literal[a, b, ...] to mypy, and a Union at run time, which is what
# `python -m mypy.stubtest softpick` wants to find)
FillRule = Union[Literal["top-left"], Literal["strict"], Literal["inclusive"], Literal["area-guard"]]
CullMode = Union[Literal["none"], Literal["back"], Literal["front"]]
RenderMethod = Union[Literal["raster"], Literal["ray"], Literal["auto"]]
PickMethod = Union[Literal["buffer"], Literal["direct"], Literal["ray"]]
SelectMode = Union[Literal["visible"], Literal["through"]]
LoopMode = Union[Literal["once"], Literal["repeat"], Literal["pingpong"]]


class Hit(TypedDict):
    """What ``Frame.pick`` finds under a pixel."""

    id: int  # global triangle index + 1 (the ``ids`` value)
    mesh: int  # mesh id
    mesh_name: str
    instance: int  # instance id (``Scene.mesh_instance``)
    triangle: int  # triangle index within the mesh
    global_triangle: int  # triangle index over all meshes
    depth: float  # window depth, 0 at the near plane, 1 at the far plane
    distance: float  # distance from the eye to the hit
    position: List[float]  # world point, 3 numbers
    barycentric: List[float]  # weights of corners 0, 1, 2
    normal: List[float]  # unit world normal (v1 - v0) x (v2 - v0)
    front_face: bool  # whether the triangle faces the eye


class Selection(TypedDict):
    """What ``Frame.select_rect`` and ``Frame.select_lasso`` find."""

    meshes: List[int]  # mesh ids, sorted
    instances: List[int]  # the instance of each of ``meshes``
    triangles: List[int]  # global triangle indices, sorted
    pixels: int  # covered pixels in the region


class Layers(TypedDict):
    """``Frame.layers(k)``: the k nearest triangles of each pixel."""

    ids: NDArray[np.uint32]  # (H, W, k): global triangle + 1, 0 where fewer hits
    depth: NDArray[np.float32]  # (H, W, k): window depth, 1 where none
    z: NDArray[np.float32]  # (H, W, k): camera-space z, inf where none
    barycentrics: NDArray[np.float32]  # (H, W, k, 3)


class RayHits(TypedDict):
    """``Scene.cast_rays``: the first hit of each ray, arrays in the rays'
    leading shape (...), Open3D's ``RaycastingScene.cast_rays`` names."""

    t_hit: NDArray[np.float32]  # (...): ray parameter, inf for a miss
    geometry_ids: NDArray[np.uint32]  # (...): mesh id, INVALID_ID for a miss
    primitive_ids: NDArray[np.uint32]  # (...): triangle within the mesh
    triangle_ids: NDArray[np.uint32]  # (...): global triangle index
    instance_ids: NDArray[np.uint32]  # (...): instance id
    primitive_uvs: NDArray[np.float32]  # (..., 2): barycentrics of corners 1, 2
    primitive_normals: NDArray[np.float32]  # (..., 3): unit world normal


class Intersections(TypedDict):
    """``Scene.list_intersections``: every hit of every ray, flat, in
    Open3D's ``RaycastingScene.list_intersections`` layout (its six keys
    with its dtypes) plus three of ``cast_rays``' keys."""

    ray_splits: NDArray[np.uint32]  # (N + 1,): ray i's hits are ray_splits[i]:ray_splits[i + 1]
    ray_ids: NDArray[np.uint32]  # (K,): the (flat) ray of each hit
    t_hit: NDArray[np.float32]  # (K,)
    geometry_ids: NDArray[np.uint32]  # (K,)
    primitive_ids: NDArray[np.uint32]  # (K,)
    primitive_uvs: NDArray[np.float32]  # (K, 2)
    triangle_ids: NDArray[np.uint32]  # (K,)
    instance_ids: NDArray[np.uint32]  # (K,)
    primitive_normals: NDArray[np.float32]  # (K, 3)

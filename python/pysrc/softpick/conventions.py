"""Triangle-id images in other tools' conventions.

softpick's own: (H, W) uint32, global triangle index + 1, 0 on background,
row 0 the top row. Each other convention is documented against its tool in
docs/python.md; ``ids_from`` is the exact inverse of ``ids_as``.
"""

from typing import Any, Dict

import numpy as np
from numpy.typing import ArrayLike, NDArray

_INVALID = np.uint32(0xFFFFFFFF)

# name -> one-line description (offset, background value, row order, shape)
CONVENTIONS: Dict[str, str] = {
    "softpick": "uint32 (H, W), triangle + 1, background 0, top row first",
    "open3d": "uint32 (H, W) like cast_rays' primitive_ids for create_rays_pinhole rays: "
              "triangle index, background INVALID_ID (2**32 - 1), top row first",
    "pytorch3d": "int64 (1, H, W, 1) like MeshRasterizer's fragments.pix_to_face for one mesh: "
                 "face index, background -1, top row first",
    "nvdiffrast": "int32 (1, H, W) like rasterize()'s rast[..., 3] (stored there as float32): "
                  "triangle index + 1, background 0, bottom row first (OpenGL)",
}


def _check(ids: ArrayLike) -> NDArray[np.uint32]:
    ids = np.asarray(ids)
    if ids.ndim != 2 or ids.dtype != np.uint32:
        raise ValueError(f"ids must be a (H, W) uint32 array (got {ids.dtype} {ids.shape})")
    return ids


def ids_as(ids: ArrayLike, convention: str) -> NDArray[Any]:
    """softpick ids (H, W) uint32 in ``convention`` (a key of CONVENTIONS)."""
    ids = _check(ids)
    if convention == "softpick":
        return ids.copy()
    if convention == "open3d":
        return np.where(ids == 0, _INVALID, ids - np.uint32(1)).astype(np.uint32)
    if convention == "pytorch3d":
        return (ids.astype(np.int64) - 1)[None, :, :, None]
    if convention == "nvdiffrast":
        if ids.size and int(ids.max()) >= 2**31:
            raise ValueError("triangle ids above 2**31 do not fit nvdiffrast's int32")
        return np.ascontiguousarray(ids[::-1].astype(np.int32))[None]
    raise ValueError(f"unknown convention {convention!r} (use one of {sorted(CONVENTIONS)})")


def ids_from(arr: ArrayLike, convention: str) -> NDArray[np.uint32]:
    """The inverse of ``ids_as``: ``convention`` ids back to softpick's."""
    arr = np.asarray(arr)
    if convention == "softpick":
        return _check(arr).copy()
    if convention == "open3d":
        a = _check(arr)
        return np.where(a == _INVALID, np.uint32(0), a + np.uint32(1)).astype(np.uint32)
    if convention == "pytorch3d":
        if arr.ndim != 4 or arr.shape[0] != 1:
            raise ValueError(f"pix_to_face must be (1, H, W, K) (got {arr.shape})")
        return (arr[0, :, :, 0] + 1).astype(np.uint32)
    if convention == "nvdiffrast":
        if arr.ndim != 3 or arr.shape[0] != 1:
            raise ValueError(f"nvdiffrast ids must be (1, H, W) (got {arr.shape})")
        return np.ascontiguousarray(arr[0, ::-1]).astype(np.uint32)
    raise ValueError(f"unknown convention {convention!r} (use one of {sorted(CONVENTIONS)})")

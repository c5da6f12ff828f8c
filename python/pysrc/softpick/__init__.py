"""softpick for Python: exact CPU ID, depth, barycentric and normal maps,
picks and batched rays over the Rust core (docs/python.md)."""

from typing import Any

from numpy.typing import NDArray

from ._softpick import (
    INVALID_ID,
    MAX_FRAME_SIDE,
    Camera,
    Error,
    Frame,
    Scene,
    builtin_scene,
    load,
)
from . import types
from .conventions import CONVENTIONS, ids_as, ids_from

__all__ = [
    "INVALID_ID",
    "MAX_FRAME_SIDE",
    "CONVENTIONS",
    "Camera",
    "Error",
    "Frame",
    "Scene",
    "builtin_scene",
    "ids_as",
    "ids_from",
    "load",
    "types",
]


def _frame_ids_as(self: Frame, convention: str) -> NDArray[Any]:
    """The frame's ids in another tool's convention (a key of
    softpick.CONVENTIONS; see softpick.ids_as). Returns a numpy array of
    that convention's dtype and shape, e.g. int64 (1, H, W, 1) for
    "pytorch3d"."""
    return ids_as(self.ids, convention)


# (a method of the compiled class, written here in Python; typed in _softpick.pyi)
setattr(Frame, "ids_as", _frame_ids_as)

"""softpick for Python: exact CPU ID, depth, barycentric and normal maps,
picks and batched rays over the Rust core (docs/python.md)."""

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
]


def _frame_ids_as(self, convention):
    """The frame's ids in another tool's convention (see softpick.ids_as)."""
    return ids_as(self.ids, convention)


Frame.ids_as = _frame_ids_as
